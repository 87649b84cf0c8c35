#pragma once

// The args of VolumeBinding (kubescheduler.config.k8s.io/v1 VolumeBindingArgs): decoding, v1
// defaults and validation with upstream's messages (validation_pluginargs.go
// ValidateVolumeBindingArgs).
//
// `shape` belongs to the StorageCapacityScoring feature gate: alpha and off by default in
// kube-scheduler 1.33 to 1.36, beta and on by default since 1.37. muster follows 1.37: an absent
// or empty shape takes the gate's default (utilization 0 scores 10, 100 scores 0: the node
// whose volumes would be least full wins), and a given one must pass the gate-on checks. To
// score as 1.36 does (not at all), disable VolumeBinding's Score in the profile.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/labels.h"
#include "muster/framework/registry.h"
#include "muster/plugins/args.h"

namespace muster::plugins::volumes {

inline constexpr std::string_view kVolumeBindingName = "VolumeBinding";
inline constexpr int64_t kDefaultBindTimeoutSeconds = 600;
// The upper bound of a shape point's score (upstream config.MaxCustomPriorityScore).
inline constexpr int32_t kMaxCustomPriorityScore = 10;

struct UtilizationShapePoint {
  int32_t utilization = 0;  // percent, [0, 100]
  int32_t score = 0;        // [0, kMaxCustomPriorityScore]

  friend bool operator==(const UtilizationShapePoint&, const UtilizationShapePoint&) = default;
};

struct VolumeBindingArgs {
  // How long PreBind waits for volumes to bind; set by SetDefaults when absent.
  std::optional<int64_t> bind_timeout_seconds;
  // Storage capacity scoring's utilization-to-score function; nullopt when not given (SetDefaults
  // then gives the default).
  std::optional<std::vector<UtilizationShapePoint>> shape;

  friend bool operator==(const VolumeBindingArgs&, const VolumeBindingArgs&) = default;
};

// Strict decoding of the YAML args (null args decode to nothing set), reporting into `errors`.
// Returns false when anything was reported.
bool DecodeVolumeBindingArgs(const YAML::Node& args, VolumeBindingArgs* out, ArgsErrors& errors);

// The v1 defaults with StorageCapacityScoring on (1.37): bindTimeoutSeconds 600 when absent, and
// an absent or empty shape [{0, 10}, {100, 0}].
void SetDefaults(VolumeBindingArgs& args);

// Upstream's validation (see the header comment for shape), every error in upstream's order,
// paths relative to the args.
std::vector<api::FieldError> Validate(const VolumeBindingArgs& args);

// Decode, default and validate: what the plugin factory runs. False with *error set (one error
// per line) when the args are bad.
bool LoadVolumeBindingArgs(const framework::PluginArgs& args, VolumeBindingArgs* out,
                           std::string* error);

}  // namespace muster::plugins::volumes
