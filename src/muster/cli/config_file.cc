#include "muster/cli/config_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "muster/api/manifests.h"
#include "muster/host/host.h"
#include "muster/plugins/registry.h"

namespace muster::cli {

std::optional<api::SchedulerConfiguration> LoadConfigFile(const std::string& path, std::istream& in,
                                                          std::vector<std::string>* errors) {
  api::LoadResult cfg = api::LoadManifests({path}, in);
  if (!cfg.ok()) {
    errors->insert(errors->end(), cfg.errors.begin(), cfg.errors.end());
    // Every error at once: a misspelt field does not hide a misspelt plugin.
    if (cfg.manifests.scheduler_configs.size() == 1) {
      for (std::string& e :
           host::ValidateConfiguration(cfg.manifests.scheduler_configs[0],
                                       plugins::InTreeRegistry(), plugins::DefaultPlugins())) {
        errors->push_back(std::move(e));
      }
    }
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
    std::vector<std::string> sources;
    if (config) sources.push_back(config->source);
    for (const api::SchedulerConfiguration& c : inputs.scheduler_configs) {
      sources.push_back(c.source);
    }
    errors->push_back(
        fmt::format("more than one KubeSchedulerConfiguration given ({}); give exactly one",
                    fmt::join(sources, ", ")));
    return std::nullopt;
  }
  return inputs.scheduler_configs[0];
}

}  // namespace muster::cli
