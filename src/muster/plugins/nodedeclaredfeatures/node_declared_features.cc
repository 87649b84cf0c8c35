#include "muster/plugins/nodedeclaredfeatures/node_declared_features.h"

#include "muster/api/node_features.h"

namespace muster::plugins::nodedeclaredfeatures {
namespace {

using framework::QueueingHint;
using framework::Status;

bool HasAll(api::NodeFeatureSet declared, api::NodeFeatureSet required) {
  return (declared & required) == required;
}

QueueingHint Misdelivered(Status* error, std::string_view what) {
  if (error != nullptr) *error = Status::Error("NodeDeclaredFeatures: " + std::string(what));
  return QueueingHint::kQueue;
}

}  // namespace

std::unique_ptr<framework::Plugin> NodeDeclaredFeatures::New(const framework::PluginArgs& /*args*/,
                                                             framework::Handle& /*handle*/,
                                                             std::string* /*error*/) {
  return std::make_unique<NodeDeclaredFeatures>();
}

Status NodeDeclaredFeatures::PreFilter(framework::CycleState& /*state*/,
                                       const framework::PodInfo& pod,
                                       std::span<framework::NodeInfo* const> /*nodes*/,
                                       framework::PreFilterResult* /*result*/) {
  if (pod.pod.spec.required_node_features == 0) return Status(framework::Code::kSkip);
  return Status::OK();
}

Status NodeDeclaredFeatures::Filter(const framework::CycleState& /*state*/,
                                    const framework::PodInfo& pod,
                                    const framework::NodeInfo& node) const {
  static const Status kUnsatisfied = framework::SharedFailure(
      framework::Code::kUnschedulableAndUnresolvable, kErrReasonUnsatisfied, kName);
  const api::NodeFeatureSet required = pod.pod.spec.required_node_features;
  if (required == 0) return Status::OK();
  if (node.node() == nullptr) return Status::Error("node not found");
  return HasAll(node.node()->status.declared_features, required) ? Status::OK() : kUnsatisfied;
}

std::vector<framework::ClusterEventWithHint> NodeDeclaredFeatures::EventsToRegister() const {
  auto node_hint = [this](const api::Pod& pod, const framework::EventObjects& e, Status* error) {
    return IsSchedulableAfterNodeChange(pod, e, error);
  };
  auto pod_hint = [this](const api::Pod& pod, const framework::EventObjects& e, Status* error) {
    return IsSchedulableAfterPodUpdate(pod, e, error);
  };
  return {
      {framework::ClusterEvent{framework::EventResource::kNode,
                               framework::kAdd | framework::kUpdateNodeDeclaredFeature,
                               "NodeAdd|UpdateNodeDeclaredFeature"},
       node_hint},
      {framework::ClusterEvent{framework::EventResource::kPod, framework::kUpdatePodOther,
                               "PodUpdate"},
       pod_hint},
  };
}

QueueingHint NodeDeclaredFeatures::IsSchedulableAfterNodeChange(
    const api::Pod& pod, const framework::EventObjects& event, Status* error) const {
  if (event.new_node == nullptr) return Misdelivered(error, "node event without the new node");
  if (event.old_node != nullptr &&
      event.old_node->status.declared_features == event.new_node->status.declared_features) {
    return QueueingHint::kSkip;
  }
  return HasAll(event.new_node->status.declared_features, pod.spec.required_node_features)
             ? QueueingHint::kQueue
             : QueueingHint::kSkip;
}

QueueingHint NodeDeclaredFeatures::IsSchedulableAfterPodUpdate(const api::Pod& pod,
                                                               const framework::EventObjects& event,
                                                               Status* error) const {
  if (event.new_pod == nullptr || event.old_pod == nullptr) {
    return Misdelivered(error, "pod update without both pods");
  }
  if (event.new_pod->metadata.uid != pod.metadata.uid) return QueueingHint::kSkip;
  return event.old_pod->spec.required_node_features != event.new_pod->spec.required_node_features
             ? QueueingHint::kQueue
             : QueueingHint::kSkip;
}

}  // namespace muster::plugins::nodedeclaredfeatures
