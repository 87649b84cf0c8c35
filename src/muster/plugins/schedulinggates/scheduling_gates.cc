#include "muster/plugins/schedulinggates/scheduling_gates.h"

namespace muster::plugins::schedulinggates {

using framework::QueueingHint;
using framework::Status;

std::unique_ptr<framework::Plugin> SchedulingGates::New(const framework::PluginArgs& /*args*/,
                                                        framework::Handle& /*handle*/,
                                                        std::string* /*error*/) {
  return std::make_unique<SchedulingGates>();
}

Status SchedulingGates::PreEnqueue(const api::Pod& pod) {
  const std::vector<std::string>& gates = pod.spec.scheduling_gates;
  if (gates.empty()) return Status::OK();
  // Go's %v of a []string: "[a b]".
  std::string message = "waiting for scheduling gates: [";
  for (size_t i = 0; i < gates.size(); ++i) {
    if (i > 0) message += ' ';
    message += gates[i];
  }
  message += ']';
  return Status::Unresolvable(std::move(message));
}

std::vector<framework::ClusterEventWithHint> SchedulingGates::EventsToRegister() const {
  auto hint = [this](const api::Pod& pod, const framework::EventObjects& e, Status* error) {
    return IsSchedulableAfterGatesEliminated(pod, e, error);
  };
  return {{framework::ClusterEvent{framework::EventResource::kPod,
                                   framework::kUpdatePodSchedulingGatesEliminated,
                                   "PodUpdatePodSchedulingGatesEliminated"},
           hint}};
}

QueueingHint SchedulingGates::IsSchedulableAfterGatesEliminated(
    const api::Pod& pod, const framework::EventObjects& event, Status* error) const {
  if (event.new_pod == nullptr) {
    if (error != nullptr) *error = Status::Error("SchedulingGates: pod event without the new pod");
    return QueueingHint::kQueue;
  }
  // Upstream registers this for the target pod only (its TargetPod resource); another pod losing
  // its gates says nothing about this one.
  return event.new_pod->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue
                                                         : QueueingHint::kSkip;
}

}  // namespace muster::plugins::schedulinggates
