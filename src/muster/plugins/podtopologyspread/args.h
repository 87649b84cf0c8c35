#pragma once

// The args of PodTopologySpread (kubescheduler.config.k8s.io/v1 PodTopologySpreadArgs): strict
// decoding, the v1 default (pkg/scheduler/apis/config/v1/defaults.go) and validation with
// upstream's messages (pkg/scheduler/apis/config/validation/validation_pluginargs.go).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "muster/api/labels.h"
#include "muster/framework/registry.h"
#include "muster/plugins/args.h"

namespace muster::plugins::podtopologyspread {

inline constexpr std::string_view kName = "PodTopologySpread";

// defaultingType values: System uses the built-in constraints (hostname maxSkew 3, zone maxSkew 5,
// both ScheduleAnyway); List uses args.defaultConstraints (possibly none).
inline constexpr std::string_view kSystemDefaulting = "System";
inline constexpr std::string_view kListDefaulting = "List";

// One entry of defaultConstraints, a v1.TopologySpreadConstraint kept as written so that
// validation can name what it found. Enum-like fields stay strings for the same reason.
struct DefaultConstraint {
  int32_t max_skew = 0;
  std::string topology_key;
  std::string when_unsatisfiable;
  // Whether a labelSelector was given: it is forbidden here (the selector is deduced per pod),
  // so its content is only checked for unknown fields, never used.
  bool has_label_selector = false;
  std::optional<int32_t> min_domains;
  std::optional<std::string> node_affinity_policy;
  std::optional<std::string> node_taints_policy;
  std::vector<std::string> match_label_keys;

  friend bool operator==(const DefaultConstraint&, const DefaultConstraint&) = default;
};

struct PodTopologySpreadArgs {
  std::vector<DefaultConstraint> default_constraints;
  std::string defaulting_type;

  friend bool operator==(const PodTopologySpreadArgs&, const PodTopologySpreadArgs&) = default;
};

// Strict decoding of the YAML args (null args decode to the zero value), reporting into `errors`.
// Returns false when anything was reported.
bool DecodePodTopologySpreadArgs(const YAML::Node& args, PodTopologySpreadArgs* out,
                                 ArgsErrors& errors);

// The v1 default: defaultingType System when none is given.
void SetDefaults(PodTopologySpreadArgs& args);

// Upstream ValidatePodTopologySpreadArgs: every error in upstream's order, paths relative to the
// args.
std::vector<api::FieldError> Validate(const PodTopologySpreadArgs& args);

// Decode, default and validate: what the plugin factory runs. False with *error set (one error
// per line) when the args are bad.
bool LoadPodTopologySpreadArgs(const framework::PluginArgs& args, PodTopologySpreadArgs* out,
                               std::string* error);

}  // namespace muster::plugins::podtopologyspread
