#pragma once

// NodeUnschedulable (upstream pkg/scheduler/framework/plugins/nodeunschedulable): a cordoned node
// (spec.unschedulable) takes only pods that tolerate the
// node.kubernetes.io/unschedulable:NoSchedule taint.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::nodeunschedulable {

inline constexpr std::string_view kName = "NodeUnschedulable";
inline constexpr std::string_view kErrReasonUnschedulable = "node(s) were unschedulable";
inline constexpr std::string_view kTaintNodeUnschedulable = "node.kubernetes.io/unschedulable";

class NodeUnschedulable final : public framework::FilterPlugin,
                                public framework::EnqueueExtensions {
 public:
  // The plugin has no args; any given are ignored, as upstream ignores args of plugins that have
  // no args type.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  // UnschedulableAndUnresolvable: preemption does not uncordon a node.
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  size_t FilterNodes(const framework::CycleState& state, const framework::PodInfo& pod,
                     std::span<const framework::NodeInfo* const> nodes,
                     std::span<framework::Status> statuses) const override;

  // Nodes added or uncordoned, and the pod gaining the toleration, each with a hint.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  // Queue for a node added schedulable or changed from unschedulable to schedulable.
  framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                       const framework::EventObjects& event,
                                                       framework::Status* error) const;
  // Queue when the pod itself now tolerates the unschedulable taint.
  framework::QueueingHint IsSchedulableAfterPodTolerationChange(
      const api::Pod& pod, const framework::EventObjects& event, framework::Status* error) const;
};

}  // namespace muster::plugins::nodeunschedulable
