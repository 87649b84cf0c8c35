#include "muster/plugins/nodeunschedulable/node_unschedulable.h"

#include <optional>

#include "muster/api/taints.h"

namespace muster::plugins::nodeunschedulable {
namespace {

using framework::QueueingHint;
using framework::Status;

// The taint a cordoned node implies; built once (interning takes a lock) and shared by Filter's
// concurrent calls, which only read it.
const api::Taint& UnschedulableTaint() {
  static const api::Taint taint{api::Symbol(kTaintNodeUnschedulable), api::Symbol(),
                                api::TaintEffect::kNoSchedule};
  return taint;
}

bool ToleratesUnschedulable(const api::Pod& pod) {
  return api::TolerationsTolerateTaint(pod.spec.tolerations, UnschedulableTaint());
}

QueueingHint Misdelivered(Status* error, std::string_view what) {
  if (error != nullptr) *error = Status::Error("NodeUnschedulable: " + std::string(what));
  return QueueingHint::kQueue;
}

}  // namespace

std::unique_ptr<framework::Plugin> NodeUnschedulable::New(const framework::PluginArgs& /*args*/,
                                                          framework::Handle& /*handle*/,
                                                          std::string* /*error*/) {
  return std::make_unique<NodeUnschedulable>();
}

Status NodeUnschedulable::Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                                 const framework::NodeInfo& node) const {
  return framework::FilterOneNode(*this, state, pod, node);
}

size_t NodeUnschedulable::FilterNodes(const framework::CycleState& /*state*/,
                                      const framework::PodInfo& pod,
                                      std::span<const framework::NodeInfo* const> nodes,
                                      std::span<Status> statuses) const {
  static const Status kCordoned = framework::SharedFailure(
      framework::Code::kUnschedulableAndUnresolvable, kErrReasonUnschedulable, kName);
  std::optional<bool> tolerates;  // looked up at the first cordoned node
  return framework::FilterEachNode(nodes, statuses, [&](const framework::NodeInfo& node) {
    if (node.node() == nullptr) return Status::Error("node not found");
    if (!node.unschedulable()) return Status::OK();
    if (!tolerates) tolerates = ToleratesUnschedulable(pod.pod);
    return *tolerates ? Status::OK() : kCordoned;
  });
}

std::vector<framework::ClusterEventWithHint> NodeUnschedulable::EventsToRegister() const {
  auto node_hint = [this](const api::Pod& pod, const framework::EventObjects& e, Status* error) {
    return IsSchedulableAfterNodeChange(pod, e, error);
  };
  auto toleration_hint = [this](const api::Pod& pod, const framework::EventObjects& e,
                                Status* error) {
    return IsSchedulableAfterPodTolerationChange(pod, e, error);
  };
  // Uncordoning a node is a kUpdateNodeTaint event, as upstream classifies a change of
  // spec.unschedulable. Label updates are registered as upstream does when it pre-checks nodes;
  // the hint turns away those that do not uncordon.
  return {
      {framework::ClusterEvent{
           framework::EventResource::kNode,
           framework::kAdd | framework::kUpdateNodeTaint | framework::kUpdateNodeLabel,
           "NodeAdd|UpdateNodeTaint|UpdateNodeLabel"},
       node_hint},
      {framework::ClusterEvent{framework::EventResource::kPod, framework::kUpdatePodToleration,
                               "PodUpdatePodToleration"},
       toleration_hint},
  };
}

QueueingHint NodeUnschedulable::IsSchedulableAfterNodeChange(const api::Pod& /*pod*/,
                                                             const framework::EventObjects& event,
                                                             Status* error) const {
  if (event.new_node == nullptr) return Misdelivered(error, "node event without the new node");
  const bool schedulable = !event.new_node->spec.unschedulable;
  const bool was_unschedulable = event.old_node == nullptr || event.old_node->spec.unschedulable;
  return schedulable && was_unschedulable ? QueueingHint::kQueue : QueueingHint::kSkip;
}

QueueingHint NodeUnschedulable::IsSchedulableAfterPodTolerationChange(
    const api::Pod& pod, const framework::EventObjects& event, Status* error) const {
  if (event.new_pod == nullptr) return Misdelivered(error, "pod event without the new pod");
  // Tolerations can only be added, and a pod this plugin rejected did not tolerate the taint
  // before: the new object alone decides.
  if (event.new_pod->metadata.uid != pod.metadata.uid) return QueueingHint::kSkip;
  return ToleratesUnschedulable(*event.new_pod) ? QueueingHint::kQueue : QueueingHint::kSkip;
}

}  // namespace muster::plugins::nodeunschedulable
