#pragma once

// NodePorts (upstream pkg/scheduler/framework/plugins/nodeports): a pod that asks for host ports
// fits only nodes where none of them is taken.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::nodeports {

inline constexpr std::string_view kName = "NodePorts";
inline constexpr std::string_view kErrReason =
    "node(s) didn't have free ports for the requested pod ports";

// The host ports a pod holds while it runs (upstream util.GetHostPorts): those of its app
// containers and of its restartable (sidecar) init containers, sidecars first. Ordinary init
// containers have exited before the app containers start, so their ports are not counted.
std::vector<framework::HostPort> HostPortsOf(const api::Pod& pod);

class NodePorts final : public framework::PreFilterPlugin,
                        public framework::FilterPlugin,
                        public framework::EnqueueExtensions {
 public:
  // The CycleState key of the pod's host ports (PreFilter).
  static constexpr std::string_view kPreFilterStateKey = "PreFilterNodePorts";

  // The plugin has no args; any given are ignored.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  // Records the pod's host ports; Skip when it asks for none.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  // Unschedulable when a port conflicts with one in use on the node (preemption can free it); an
  // Error when PreFilter did not run.
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  // Pods deleted (with a hint) and nodes added. Port declarations are immutable, so pod updates
  // cannot help; node updates never free a port.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  // Queue when the deleted pod held (or was nominated with) a host port the pod asks for.
  framework::QueueingHint IsSchedulableAfterPodDeleted(const api::Pod& pod,
                                                       const framework::EventObjects& event,
                                                       framework::Status* error) const;
};

}  // namespace muster::plugins::nodeports
