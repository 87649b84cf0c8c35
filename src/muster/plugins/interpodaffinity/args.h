#pragma once

// The args of InterPodAffinity (kubescheduler.config.k8s.io/v1 InterPodAffinityArgs): decoding,
// the v1 default (pkg/scheduler/apis/config/v1/defaults.go) and validation with upstream's message
// (pkg/scheduler/apis/config/validation/validation_pluginargs.go).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "muster/api/labels.h"
#include "muster/framework/registry.h"
#include "muster/plugins/args.h"

namespace muster::plugins::interpodaffinity {

inline constexpr int32_t kDefaultHardPodAffinityWeight = 1;
inline constexpr int32_t kMinHardPodAffinityWeight = 0;
inline constexpr int32_t kMaxHardPodAffinityWeight = 100;

struct InterPodAffinityArgs {
  // The score an existing pod's required affinity term adds to the nodes of its topology when the
  // incoming pod matches it. Unset (nullopt) until SetDefaults; 0 turns the symmetry off.
  std::optional<int32_t> hard_pod_affinity_weight;
  // When the incoming pod has no preferred (anti-)affinity, skip scoring altogether instead of
  // weighing the existing pods' terms.
  bool ignore_preferred_terms_of_existing_pods = false;

  friend bool operator==(const InterPodAffinityArgs&, const InterPodAffinityArgs&) = default;
};

// Strict decoding of the YAML args (null args decode to the zero value), reporting into `errors`.
// Returns false when anything was reported.
bool DecodeInterPodAffinityArgs(const YAML::Node& args, InterPodAffinityArgs* out,
                                ArgsErrors& errors);
// hardPodAffinityWeight defaults to 1 when not given (an explicit 0 stays 0).
void SetDefaults(InterPodAffinityArgs& args);
// Upstream ValidateInterPodAffinityArgs; paths relative to the args. Expects defaulted args.
std::vector<api::FieldError> Validate(const InterPodAffinityArgs& args);
// Decode, default and validate: what the plugin factory runs. False with *error set (one error
// per line) when the args are bad.
bool LoadInterPodAffinityArgs(const framework::PluginArgs& args, InterPodAffinityArgs* out,
                              std::string* error);

}  // namespace muster::plugins::interpodaffinity
