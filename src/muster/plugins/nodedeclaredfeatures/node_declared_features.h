#pragma once

// NodeDeclaredFeatures (upstream pkg/scheduler/framework/plugins/nodedeclaredfeatures, KEP-5328;
// its gate is GA and locked on in Kubernetes 1.37, so the plugin is in the default profile): a
// pod whose spec needs node features (api/node_features.h) goes only to a node whose kubelet
// declares them all in status.declaredFeatures.
//  - PreFilter: Skip for a pod that needs none (nearly every pod), so Filter never runs for it.
//  - Filter: UnschedulableAndUnresolvable "node(s) didn't match Pod's required features" (1.36
//    and later; 1.35 listed the missing features): preemption cannot add a feature.
//  - Events: a node added or declaring other features; the pod's own update changing what it
//    needs.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::nodedeclaredfeatures {

inline constexpr std::string_view kName = "NodeDeclaredFeatures";
inline constexpr std::string_view kErrReasonUnsatisfied =
    "node(s) didn't match Pod's required features";

class NodeDeclaredFeatures final : public framework::PreFilterPlugin,
                                   public framework::FilterPlugin,
                                   public framework::EnqueueExtensions {
 public:
  // The plugin has no args; any given are ignored, as upstream ignores args of plugins that have
  // no args type.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  // Queue for a node added, or one whose declared features changed, that now has them all.
  framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                       const framework::EventObjects& event,
                                                       framework::Status* error) const;
  // Queue when the pod's own update changed the features it needs.
  framework::QueueingHint IsSchedulableAfterPodUpdate(const api::Pod& pod,
                                                      const framework::EventObjects& event,
                                                      framework::Status* error) const;
};

}  // namespace muster::plugins::nodedeclaredfeatures
