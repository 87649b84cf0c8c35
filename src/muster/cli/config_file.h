#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "muster/api/manifests.h"
#include "muster/api/scheduler_config.h"

namespace muster::cli {

// Reads --config FILE ("-" for `in`): exactly one KubeSchedulerConfiguration, decoded strictly.
// nullopt with the errors appended (each naming the file, document and field) otherwise.
std::optional<api::SchedulerConfiguration> LoadConfigFile(const std::string& path, std::istream& in,
                                                          std::vector<std::string>* errors);

// The configuration a command runs with: --config (`path`, empty when not given), else the one
// KubeSchedulerConfiguration among the inputs, else none (nullopt, no error). More than one is an
// error. Decoding only: the scheduler (or host::ValidateConfiguration) checks the rest.
std::optional<api::SchedulerConfiguration> ResolveConfig(const std::string& path,
                                                         const api::Manifests& inputs,
                                                         std::istream& in,
                                                         std::vector<std::string>* errors);

}  // namespace muster::cli
