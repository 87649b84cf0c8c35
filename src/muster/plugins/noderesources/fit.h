#pragma once

// NodeResourcesFit (upstream pkg/scheduler/framework/plugins/noderesources/fit.go): filters out
// nodes without room for the pod's requests and scores the rest by one of three strategies
// (LeastAllocated, MostAllocated, RequestedToCapacityRatio).

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/intern.h"
#include "muster/api/resources.h"
#include "muster/framework/interface.h"
#include "muster/framework/registry.h"
#include "muster/plugins/noderesources/args.h"
#include "muster/plugins/noderesources/resource_allocation.h"

namespace muster::plugins::noderesources {

// One resource the node lacks for the pod (upstream InsufficientResource).
struct InsufficientResource {
  std::string resource_name;
  std::string reason;  // "Insufficient cpu", "Too many pods", ...
  int64_t requested = 0;
  int64_t used = 0;
  int64_t capacity = 0;
  // The request exceeds the node's allocatable: evicting pods (preemption) cannot make room.
  bool unresolvable = false;

  friend bool operator==(const InsufficientResource&, const InsufficientResource&) = default;
};

// What `node` lacks for a pod requesting `request` (upstream fitsRequest with nothing ignored):
// a pod slot, then cpu, memory, ephemeral-storage and each extended resource with a non-zero
// request.
std::vector<InsufficientResource> Fits(const api::Resource& request,
                                       const framework::NodeInfo& node);

// Whether a node's allocatable grew in a way that matters to a pod requesting `request` (upstream
// haveAnyRequestedResourcesIncreased): more pod slots, or more of a resource the pod requests.
bool HaveAnyRequestedResourcesIncreased(const api::Resource& request,
                                        const api::Resource& old_allocatable,
                                        const api::Resource& new_allocatable);

class Fit final : public framework::PreFilterPlugin,
                  public framework::FilterPlugin,
                  public framework::EnqueueExtensions,
                  public framework::PreScorePlugin,
                  public framework::ScorePlugin {
 public:
  // The CycleState keys of the pod's requests (PreFilter) and of its scored requests (PreScore).
  static constexpr std::string_view kPreFilterStateKey = "PreFilterNodeResourcesFit";
  static constexpr std::string_view kPreScoreStateKey = "PreScoreNodeResourcesFit";

  // Upstream NewFit: validates `args` as given (no defaults applied) and builds the plugin;
  // nullptr with *error (one error per line) when they are invalid.
  static std::unique_ptr<Fit> Create(const NodeResourcesFitArgs& args, std::string* error);
  // The registry factory: decodes, defaults and validates the YAML args.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kFitName; }

  // The requests Filter checks: `requests` without ignored and zero-quantity extended resources.
  api::Resource CheckedRequest(const api::Resource& requests) const;

  // Records CheckedRequest(pod.requests) for Filter, and which of its extended resources devices
  // may serve instead of the node.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  // Unschedulable with one reason per missing resource, UnschedulableAndUnresolvable when some
  // request exceeds the node's allocatable outright. An extended resource a DeviceClass serves
  // is not checked on a node that has none of it (0 or absent): DynamicResources allocates it.
  // An Error when PreFilter did not run.
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  size_t FilterNodes(const framework::CycleState& state, const framework::PodInfo& pod,
                     std::span<const framework::NodeInfo* const> nodes,
                     std::span<framework::Status> statuses) const override;

  // Pods deleted or scaled down (scheduled ones free room; the pod itself may shrink), nodes
  // added or changed, and DeviceClasses added or renaming their extended resource, each with a
  // queueing hint. The hints call into this plugin: they are valid
  // while it lives.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  framework::QueueingHint IsSchedulableAfterPodEvent(const api::Pod& pod,
                                                     const framework::EventObjects& event,
                                                     framework::Status* error) const;
  framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                       const framework::EventObjects& event,
                                                       framework::Status* error) const;
  framework::QueueingHint IsSchedulableAfterDeviceClassEvent(const api::Pod& pod,
                                                             const framework::EventObjects& event,
                                                             framework::Status* error) const;

  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<framework::NodeInfo* const> feasible) override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  framework::Status ScoreNodes(const framework::CycleState& state, const framework::PodInfo& pod,
                               std::span<framework::NodeInfo* const> nodes,
                               std::span<framework::NodeScore> scores) const override;

 private:
  enum class Strategy { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };

  // `args` have passed Validate.
  explicit Fit(const NodeResourcesFitArgs& args);

  bool IsIgnored(api::Symbol resource) const;
  // The extended resources of `request` that a DeviceClass serves (DRAExtendedResource): on a
  // node whose allocatable has none of one, DynamicResources finds it devices and Filter here
  // passes over it. Empty without a handle (a plugin built by Create).
  std::vector<api::Symbol> DeviceBacked(const api::Resource& request) const;

  // Null when built by Create.
  const framework::Handle* handle_ = nullptr;
  // Constant after construction.
  std::vector<api::Symbol> ignored_resources_;
  std::vector<std::string> ignored_resource_groups_;
  Strategy strategy_;
  ScoredResources scored_;
  std::optional<RequestedToCapacityRatioScorer> ratio_scorer_;
  // The pod shapes scored so far (PreScore, on the scheduling thread).
  ShapeMemoKeys memo_keys_;
};

}  // namespace muster::plugins::noderesources
