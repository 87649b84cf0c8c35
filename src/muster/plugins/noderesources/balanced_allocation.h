#pragma once

// NodeResourcesBalancedAllocation (upstream pkg/scheduler/framework/plugins/noderesources/
// balanced_allocation.go): favours nodes whose resources would be used evenly with the pod, by the
// standard deviation of the requested/allocatable fractions of the configured resources.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"
#include "muster/plugins/noderesources/args.h"
#include "muster/plugins/noderesources/resource_allocation.h"

namespace muster::plugins::noderesources {

class BalancedAllocation final : public framework::PreScorePlugin, public framework::ScorePlugin {
 public:
  static constexpr std::string_view kPreScoreStateKey = "PreScoreNodeResourcesBalancedAllocation";

  // Upstream NewBalancedAllocation: validates `args` as given and builds the plugin; nullptr with
  // *error (one error per line) when they are invalid.
  static std::unique_ptr<BalancedAllocation> Create(const NodeResourcesBalancedAllocationArgs& args,
                                                    std::string* error);
  // The registry factory: decodes, defaults and validates the YAML args.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kBalancedAllocationName; }

  // Skip for a pod that requests none of the scored resources: upstream found that scoring such
  // pods piles them onto the same nodes (kubernetes#129138).
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<framework::NodeInfo* const> feasible) override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  framework::Status ScoreNodes(const framework::CycleState& state, const framework::PodInfo& pod,
                               std::span<framework::NodeInfo* const> nodes,
                               std::span<framework::NodeScore> scores) const override;

 private:
  explicit BalancedAllocation(const NodeResourcesBalancedAllocationArgs& args)
      : scored_(args.resources, /*use_requested=*/true) {}

  // Constant after construction. Balanced allocation scores the requests as written: the
  // defaults charged to request-less containers would skew the fractions.
  ScoredResources scored_;
  // The pod shapes scored so far (PreScore, on the scheduling thread).
  ShapeMemoKeys memo_keys_;
};

}  // namespace muster::plugins::noderesources
