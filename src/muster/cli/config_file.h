#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "muster/api/scheduler_config.h"

namespace muster::cli {

// Reads --config FILE ("-" for `in`): exactly one KubeSchedulerConfiguration, decoded strictly.
// nullopt with the errors appended (each naming the file, document and field) otherwise.
std::optional<api::SchedulerConfiguration> LoadConfigFile(const std::string& path, std::istream& in,
                                                          std::vector<std::string>* errors);

}  // namespace muster::cli
