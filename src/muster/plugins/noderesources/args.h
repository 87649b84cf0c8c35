#pragma once

// The args of NodeResourcesFit and NodeResourcesBalancedAllocation (kubescheduler.config.k8s.io/v1
// NodeResourcesFitArgs and NodeResourcesBalancedAllocationArgs): decoding, v1 defaults
// (pkg/scheduler/apis/config/v1/defaults.go) and validation with upstream's messages
// (pkg/scheduler/apis/config/validation/validation_pluginargs.go).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/labels.h"
#include "muster/framework/registry.h"
#include "muster/plugins/args.h"

namespace muster::plugins::noderesources {

// The plugins' registry names; each args kind is "<name>Args".
inline constexpr std::string_view kFitName = "NodeResourcesFit";
inline constexpr std::string_view kBalancedAllocationName = "NodeResourcesBalancedAllocation";

inline constexpr std::string_view kLeastAllocated = "LeastAllocated";
inline constexpr std::string_view kMostAllocated = "MostAllocated";
inline constexpr std::string_view kRequestedToCapacityRatio = "RequestedToCapacityRatio";
// The upper bound of a shape point's score; scores are scaled to [0, 100] when used.
inline constexpr int32_t kMaxCustomPriorityScore = 10;

struct ResourceSpec {
  std::string name;
  int64_t weight = 0;

  friend bool operator==(const ResourceSpec&, const ResourceSpec&) = default;
};

struct UtilizationShapePoint {
  int32_t utilization = 0;  // percent, [0, 100]
  int32_t score = 0;        // [0, kMaxCustomPriorityScore]

  friend bool operator==(const UtilizationShapePoint&, const UtilizationShapePoint&) = default;
};

struct RequestedToCapacityRatioParam {
  std::vector<UtilizationShapePoint> shape;

  friend bool operator==(const RequestedToCapacityRatioParam&,
                         const RequestedToCapacityRatioParam&) = default;
};

struct ScoringStrategy {
  // Kept as written so that validation can name an unsupported value.
  std::string type;
  std::vector<ResourceSpec> resources;
  std::optional<RequestedToCapacityRatioParam> requested_to_capacity_ratio;

  friend bool operator==(const ScoringStrategy&, const ScoringStrategy&) = default;
};

struct NodeResourcesFitArgs {
  // Extended resources the filter does not check.
  std::vector<std::string> ignored_resources;
  // Extended resource groups (the part before '/') the filter does not check.
  std::vector<std::string> ignored_resource_groups;
  std::optional<ScoringStrategy> scoring_strategy;

  friend bool operator==(const NodeResourcesFitArgs&, const NodeResourcesFitArgs&) = default;
};

struct NodeResourcesBalancedAllocationArgs {
  std::vector<ResourceSpec> resources;

  friend bool operator==(const NodeResourcesBalancedAllocationArgs&,
                         const NodeResourcesBalancedAllocationArgs&) = default;
};

// cpu and memory, weight 1: the resources both plugins score when none are configured.
std::vector<ResourceSpec> DefaultResources();

// Strict decoding of the YAML args (null args decode to the zero value), reporting into `errors`.
// Returns false when anything was reported.
bool DecodeNodeResourcesFitArgs(const YAML::Node& args, NodeResourcesFitArgs* out,
                                ArgsErrors& errors);
bool DecodeNodeResourcesBalancedAllocationArgs(const YAML::Node& args,
                                               NodeResourcesBalancedAllocationArgs* out,
                                               ArgsErrors& errors);

// The v1 defaults: LeastAllocated over DefaultResources() when no strategy is given, the default
// resources when a strategy lists none, and weight 1 for a weight left at 0.
void SetDefaults(NodeResourcesFitArgs& args);
// DefaultResources() when none are given; weight 1 for a weight left at 0.
void SetDefaults(NodeResourcesBalancedAllocationArgs& args);

// Upstream's validation, every error in upstream's order, paths relative to the args.
std::vector<api::FieldError> Validate(const NodeResourcesFitArgs& args);
std::vector<api::FieldError> Validate(const NodeResourcesBalancedAllocationArgs& args);

// Decode, default and validate: what the plugin factories run. False with *error set (one error
// per line) when the args are bad.
bool LoadNodeResourcesFitArgs(const framework::PluginArgs& args, NodeResourcesFitArgs* out,
                              std::string* error);
bool LoadNodeResourcesBalancedAllocationArgs(const framework::PluginArgs& args,
                                             NodeResourcesBalancedAllocationArgs* out,
                                             std::string* error);

}  // namespace muster::plugins::noderesources
