#pragma once

// For the whole-program tests that generate their input: simulates manifests and a
// KubeSchedulerConfiguration given as YAML text, decoded as `muster simulate -f FILE --config
// FILE` decodes them, with the in-tree plugins.

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/manifests.h"
#include "muster/cli/config_file.h"
#include "muster/plugins/registry.h"
#include "muster/sim/simulation.h"

namespace muster::testing {

// The text of a file of the checkout, by its path from the root ("tests/scenarios/x/all.yaml").
inline std::string SourceFile(std::string_view path) {
  std::ifstream in(std::string(MUSTER_SOURCE_DIR) + "/" + std::string(path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The simulation, ready to Run; nullptr with *error set when the manifests (named `name` in
// errors) or the configuration do not decode, or the configuration is invalid.
inline std::unique_ptr<sim::Simulation> SimulateText(std::string_view manifests,
                                                     const std::string& name,
                                                     const std::string& config_text,
                                                     sim::SimulationOptions options,
                                                     std::string* error) {
  api::LoadResult loaded;
  api::DecodeText(manifests, name, loaded);
  api::FinishLoad(loaded);
  if (!loaded.ok()) {
    *error = "invalid manifests: " + loaded.errors.front();
    return nullptr;
  }
  std::istringstream config_in(config_text);
  std::vector<std::string> errors;
  std::optional<api::SchedulerConfiguration> config = cli::LoadConfigFile("-", config_in, &errors);
  if (!config) {
    *error = "invalid configuration: " + errors.front();
    return nullptr;
  }
  std::unique_ptr<sim::Simulation> simulation =
      sim::Simulation::Create(std::move(loaded.manifests), &*config, options,
                              plugins::InTreeRegistry(), plugins::DefaultPlugins(), &errors);
  if (simulation == nullptr) *error = errors.front();
  return simulation;
}

}  // namespace muster::testing
