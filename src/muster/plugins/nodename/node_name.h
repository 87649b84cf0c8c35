#pragma once

// NodeName (upstream pkg/scheduler/framework/plugins/nodename): a pod that names its node in
// spec.nodeName fits only that node.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::nodename {

inline constexpr std::string_view kName = "NodeName";
inline constexpr std::string_view kErrReason = "node(s) didn't match the requested node name";

class NodeName final : public framework::FilterPlugin, public framework::EnqueueExtensions {
 public:
  // The plugin has no args; any given are ignored, as upstream ignores args of plugins that have
  // no args type.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  // UnschedulableAndUnresolvable on any other node: preemption cannot change a node's name.
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  size_t FilterNodes(const framework::CycleState& state, const framework::PodInfo& pod,
                     std::span<const framework::NodeInfo* const> nodes,
                     std::span<framework::Status> statuses) const override;

  // Only a new node can be the named one.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
};

// Whether the pod may run on the node by name (upstream Fits).
bool Fits(const api::Pod& pod, const framework::NodeInfo& node);

}  // namespace muster::plugins::nodename
