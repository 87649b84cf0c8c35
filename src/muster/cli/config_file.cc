#include "muster/cli/config_file.h"

#include <fmt/format.h>

#include "muster/api/manifests.h"

namespace muster::cli {

std::optional<api::SchedulerConfiguration> LoadConfigFile(const std::string& path, std::istream& in,
                                                          std::vector<std::string>* errors) {
  api::LoadResult cfg = api::LoadManifests({path}, in);
  if (!cfg.ok()) {
    errors->insert(errors->end(), cfg.errors.begin(), cfg.errors.end());
    return std::nullopt;
  }
  if (cfg.manifests.scheduler_configs.size() != 1 || cfg.manifests.order.size() != 1) {
    errors->push_back(
        fmt::format("{}: --config must hold exactly one KubeSchedulerConfiguration", path));
    return std::nullopt;
  }
  return std::move(cfg.manifests.scheduler_configs[0]);
}

}  // namespace muster::cli
