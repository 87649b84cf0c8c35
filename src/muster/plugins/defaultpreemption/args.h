#pragma once

// The args of DefaultPreemption (kubescheduler.config.k8s.io/v1 DefaultPreemptionArgs): decoding,
// the v1 defaults (pkg/scheduler/apis/config/v1/defaults.go) and validation with upstream's
// messages (pkg/scheduler/apis/config/validation/validation_pluginargs.go).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "muster/api/labels.h"
#include "muster/framework/registry.h"
#include "muster/plugins/args.h"

namespace muster::plugins::defaultpreemption {

inline constexpr std::string_view kName = "DefaultPreemption";

inline constexpr int32_t kDefaultMinCandidateNodesPercentage = 10;
inline constexpr int32_t kDefaultMinCandidateNodesAbsolute = 100;

// How many nodes preemption's dry run must find candidates on before it stops looking: at least
// `percentage` percent of the nodes that might help, and at least `absolute` nodes (capped at the
// number of such nodes).
struct DefaultPreemptionArgs {
  int32_t min_candidate_nodes_percentage = kDefaultMinCandidateNodesPercentage;
  int32_t min_candidate_nodes_absolute = kDefaultMinCandidateNodesAbsolute;

  friend bool operator==(const DefaultPreemptionArgs&, const DefaultPreemptionArgs&) = default;
};

// Strict decoding of the YAML args, with the v1 defaults for fields left out (an explicit 0 stays
// 0, as the v1 fields are pointers). Reports into `errors`; false when anything was reported.
bool DecodeDefaultPreemptionArgs(const YAML::Node& args, DefaultPreemptionArgs* out,
                                 ArgsErrors& errors);

// Upstream ValidateDefaultPreemptionArgs: every error in upstream's order, paths relative to the
// args.
std::vector<api::FieldError> Validate(const DefaultPreemptionArgs& args);

// Decode, default and validate: what the plugin factory runs. False with *error set (one error
// per line) when the args are bad.
bool LoadDefaultPreemptionArgs(const framework::PluginArgs& args, DefaultPreemptionArgs* out,
                               std::string* error);

}  // namespace muster::plugins::defaultpreemption
