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

framework::Status NodeName::Filter(const framework::CycleState& /*state*/,
                                   const framework::PodInfo& pod,
                                   const framework::NodeInfo& node) const {
  if (Fits(pod.pod, node)) return framework::Status::OK();
  static const framework::Status kNotMatch =
      framework::SharedFailure(framework::Code::kUnschedulableAndUnresolvable, kErrReason, kName);
  return kNotMatch;
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
