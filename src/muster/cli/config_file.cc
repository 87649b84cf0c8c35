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

std::optional<api::SchedulerConfiguration> ResolveConfig(const std::string& path,
                                                         const api::Manifests& inputs,
                                                         std::istream& in,
                                                         std::vector<std::string>* errors) {
  std::optional<api::SchedulerConfiguration> config;
  if (!path.empty()) {
    config = LoadConfigFile(path, in, errors);
    if (!config) return std::nullopt;
  }
  if (inputs.scheduler_configs.empty()) return config;
  if (config || inputs.scheduler_configs.size() > 1) {
    errors->push_back(
        "more than one KubeSchedulerConfiguration given (inputs and --config); give exactly one");
    return std::nullopt;
  }
  return inputs.scheduler_configs[0];
}

}  // namespace muster::cli
