#include "muster/plugins/nodename/node_name.h"

namespace muster::plugins::nodename {

std::unique_ptr<framework::Plugin> NodeName::New(const framework::PluginArgs& /*args*/,
                                                 framework::Handle& /*handle*/,
                                                 std::string* /*error*/) {
  return std::make_unique<NodeName>();
}

bool Fits(const api::Pod& pod, const framework::NodeInfo& node) {
  return pod.spec.node_name.empty() || pod.spec.node_name == node.name();
}

framework::Status NodeName::Filter(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   const framework::NodeInfo& node) const {
  return framework::FilterOneNode(*this, state, pod, node);
}

size_t NodeName::FilterNodes(const framework::CycleState& /*state*/, const framework::PodInfo& pod,
                             std::span<const framework::NodeInfo* const> nodes,
                             std::span<framework::Status> statuses) const {
  if (pod.pod.spec.node_name.empty()) return 0;  // fits every node
  static const framework::Status kNotMatch =
      framework::SharedFailure(framework::Code::kUnschedulableAndUnresolvable, kErrReason, kName);
  return framework::FilterEachNode(nodes, statuses, [&](const framework::NodeInfo& node) {
    return Fits(pod.pod, node) ? framework::Status::OK() : kNotMatch;
  });
}

std::vector<framework::ClusterEventWithHint> NodeName::EventsToRegister() const {
  // Taint and label updates are registered, without a hint, as upstream does for every plugin
  // that registers node adds when it pre-checks nodes: a node added while it failed that check
  // reaches the queue only as a later update.
  return {{framework::ClusterEvent{
               framework::EventResource::kNode,
               framework::kAdd | framework::kUpdateNodeTaint | framework::kUpdateNodeLabel,
               "NodeAdd|UpdateNodeTaint|UpdateNodeLabel"},
           nullptr}};
}

}  // namespace muster::plugins::nodename
