// The scheduler's informer handlers (upstream eventhandlers.go): what each cluster event does to
// the store, the cache and the queue. Which actions an update amounts to is update_actions.cc's.

#include <array>
#include <tuple>

#include <fmt/format.h>

#include "muster/scheduler/scheduler.h"
#include "muster/scheduler/update_actions.h"

namespace muster::scheduler {

using framework::ClusterEvent;
using framework::EventObjects;
using framework::EventResource;

namespace {

bool Assigned(const api::Pod& pod) { return !pod.spec.node_name.empty(); }

// Each kind's events, labelled as upstream labels them ("PodGroupAdd").
template <typename T>
const ClusterEvent& KindEvent(framework::ActionType action) {
  static const std::array<ClusterEvent, 3> events = {
      ClusterEvent{EventResource::Of<T>(), framework::kAdd,
                   fmt::format("{}Add", api::KindOf<T>().name)},
      ClusterEvent{EventResource::Of<T>(), framework::kUpdateOther,
                   fmt::format("{}Update", api::KindOf<T>().name)},
      ClusterEvent{EventResource::Of<T>(), framework::kDelete,
                   fmt::format("{}Delete", api::KindOf<T>().name)},
  };
  return events[action == framework::kAdd ? 0 : action == framework::kDelete ? 2 : 1];
}

// Times one handler into scheduler_event_handling_duration_seconds under `label`, set by the
// handler once it knows which event it handles (none: not observed).
class HandlingTimer {
 public:
  explicit HandlingTimer(framework::Metrics& metrics, std::string_view label = {})
      : metrics_(metrics), label(label) {}
  ~HandlingTimer() {
    if (!label.empty()) metrics_.EventHandled(label, watch_.Seconds());
  }
  HandlingTimer(const HandlingTimer&) = delete;
  HandlingTimer& operator=(const HandlingTimer&) = delete;

 private:
  framework::Metrics& metrics_;
  const framework::Stopwatch watch_;

 public:
  std::string_view label;
};

}  // namespace

// ---- any kind but pods and nodes ----

template <typename T>
void Scheduler::Raise(framework::ActionType action, const api::Shared<T>& old_object,
                      const api::Shared<T>& new_object) {
  const ClusterEvent& event = KindEvent<T>(action);
  if (!profiles_.Registered(event)) return;
  EventObjects objects;
  if (old_object) objects.old_object = old_object;
  if (new_object) objects.new_object = new_object;
  MoveAll(event, objects);
}

template <typename T>
void Scheduler::OnAdd(const api::Shared<T>& object) {
  const HandlingTimer timer(metrics_, KindEvent<T>(framework::kAdd).label);
  queue_.ClusterChanged();
  store_.mutable_objects().Of<T>().Set(object);
  Raise<T>(framework::kAdd, nullptr, object);
  if (!awaiting_pre_bind_.empty()) AskAwaitingPreBindNow();
}

template <typename T>
void Scheduler::OnUpdate(const api::Shared<T>& old_object, const api::Shared<T>& new_object) {
  const HandlingTimer timer(metrics_, KindEvent<T>(framework::kUpdateOther).label);
  queue_.ClusterChanged();
  store_.mutable_objects().Of<T>().Set(new_object);
  Raise<T>(framework::kUpdateOther, old_object, new_object);
  if (!awaiting_pre_bind_.empty()) AskAwaitingPreBindNow();
}

template <typename T>
void Scheduler::OnDelete(const api::Shared<T>& object) {
  const HandlingTimer timer(metrics_, KindEvent<T>(framework::kDelete).label);
  queue_.ClusterChanged();
  store_.mutable_objects().Of<T>().Erase(object->metadata);
  Raise<T>(framework::kDelete, object, nullptr);
  if (!awaiting_pre_bind_.empty()) AskAwaitingPreBindNow();
}

// ---- pods ----

template <>
void Scheduler::OnAdd<api::Pod>(const api::PodPtr& added) {
  HandlingTimer timer(metrics_);
  queue_.ClusterChanged();
  const framework::PodInfoPtr& info = store_.StorePod(added);
  const api::Pod& pod = *added;
  EventObjects objects;
  objects.new_pod = &pod;
  if (Assigned(pod)) {
    if (pod.IsTerminal()) return;
    timer.label = kAssignedPodAdd.label;
    cache_.AddPod(info);
    queue_.DeleteNominatedPodIfExists(pod);
    MoveAll(kAssignedPodAdd, objects);
    return;
  }
  if (!Responsible(pod) || pod.IsTerminal()) return;
  timer.label = kUnscheduledPodAdd.label;
  // A pod nominated before this scheduler started (a restart, a new leader) keeps its room.
  if (!pod.status.nominated_node_name.empty()) {
    queue_.AddNominatedPod(info, pod.status.nominated_node_name);
  }
  queue_.Add(info);
  MoveAll(kUnscheduledPodAdd, objects, pod.metadata.Key());
}

template <>
void Scheduler::OnUpdate<api::Pod>(const api::PodPtr& old_ptr, const api::PodPtr& new_ptr) {
  HandlingTimer timer(metrics_);
  const framework::PodInfoPtr& info = store_.StorePod(new_ptr);
  const api::Pod& old_pod = *old_ptr;
  const api::Pod& new_pod = *new_ptr;
  EventObjects objects;
  objects.old_pod = &old_pod;
  objects.new_pod = &new_pod;
  // A pod bound, or finished, changed the cluster whatever else changed: its update's actions
  // are only worked out (once) for a pod that stays where it was.
  const bool in_place =
      Assigned(old_pod) == Assigned(new_pod) && new_pod.IsTerminal() == old_pod.IsTerminal();
  const uint32_t actions = in_place ? PodUpdateActions(old_pod, new_pod) : 0;
  // A change of status only is not an event for a pending pod (the scheduler's own PodScheduled
  // condition, a nomination), as upstream's isPodUpdated ignores status, nor a change that could
  // help one when the pod runs on (the kubelet's Running): a pod that finishes is one.
  // The resource claim controller's record of the claims it made is the exception
  // (upstream's UpdatePodGeneratedResourceClaim): the pod waits for it at PreEnqueue.
  auto claims_of = [](const api::Pod& p) {
    std::vector<std::pair<api::Symbol, api::Symbol>> out;
    for (const api::PodResourceClaimStatus& c : p.status.resource_claim_statuses) {
      out.emplace_back(c.name, c.resource_claim_name);
    }
    return out;
  };
  const bool status_only = in_place && actions == framework::kUpdatePodOther &&
                           old_pod.metadata.annotations == new_pod.metadata.annotations &&
                           claims_of(old_pod) == claims_of(new_pod);
  // Nor is the binding of a pod assumed on that node: passing Permit was the change (see
  // Scheduler::Commit), and every attempt since has counted the pod there.
  const framework::PodInfo* assumed =
      cache_.IsAssumedPod(new_pod) ? cache_.GetPod(api::PodName::Of(new_pod)) : nullptr;
  const bool confirms_assumed = !Assigned(old_pod) && Assigned(new_pod) && !new_pod.IsTerminal() &&
                                assumed != nullptr &&
                                assumed->pod.spec.node_name == new_pod.spec.node_name;
  if (!status_only && !confirms_assumed) queue_.ClusterChanged();
  if (Assigned(new_pod)) {
    timer.label = Assigned(old_pod) ? std::string_view("AssignedPodUpdate")
                                    : std::string_view(kAssignedPodAdd.label);
    if (!Assigned(old_pod)) {
      // Bound: it leaves the queue and joins the cache (confirming an assumed pod).
      queue_.Delete(old_pod);
      if (new_pod.IsTerminal()) {
        cache_.RemovePod(new_pod);
        return;
      }
      cache_.AddPod(info);
      MoveAll(kAssignedPodAdd, objects);
      return;
    }
    if (new_pod.IsTerminal()) {
      // A finished pod no longer holds its node's resources.
      if (!old_pod.IsTerminal()) {
        cache_.RemovePod(old_pod);
        MoveAll(kAssignedPodDelete, EventObjects{&old_pod, nullptr});
      }
      return;
    }
    cache_.UpdatePod(old_pod, info);
    // Not in place only for a finished pod coming back, which the API server never sends.
    MoveAll(
        ClusterEvent{EventResource::kAssignedPod,
                     in_place ? actions : PodUpdateActions(old_pod, new_pod), "AssignedPodUpdate"},
        objects);
    return;
  }
  if (!Responsible(new_pod)) return;
  timer.label = "UnscheduledPodUpdate";
  if (new_pod.IsTerminal()) {
    queue_.Delete(new_pod);
    return;
  }
  // A pod assumed on a node, its binding under way, is the cache's until the binding lands: its
  // nomination to that node (KEP-5278) must not count it a second time among the node's
  // nominated pods (upstream's update handler passes over assumed pods).
  if (assumed != nullptr) return;
  // A nomination cleared (by preemption of a higher-priority pod, or by hand) releases the room
  // the nominator kept for the pod; one set on the pod (by an earlier run of the scheduler) keeps
  // room there.
  queue_.UpdateNominatedPod(old_pod, info);
  queue_.Update(old_pod, info, status_only);
}

template <>
void Scheduler::OnDelete<api::Pod>(const api::PodPtr& deleted) {
  const api::Pod& pod = *deleted;
  const HandlingTimer timer(metrics_,
                            Assigned(pod) ? kAssignedPodDelete.label : kUnscheduledPodDelete.label);
  queue_.ClusterChanged();
  store_.ForgetPod(pod);
  EventObjects objects;
  objects.old_pod = &pod;
  if (Assigned(pod)) {
    cache_.RemovePod(pod);
    queue_.DeleteNominatedPodIfExists(pod);
    if (!pod.IsTerminal()) MoveAll(kAssignedPodDelete, objects);
    return;
  }
  DropAwaitingPreBind(pod.metadata.Key());
  queue_.Delete(pod);
  waiting_.Reject(PodUid(pod), "", "pod deleted");
  MoveAll(kUnscheduledPodDelete, objects);
}

// ---- nodes ----

template <>
void Scheduler::OnAdd<api::Node>(const api::Shared<api::Node>& added) {
  const HandlingTimer timer(metrics_, kNodeAdd.label);
  queue_.ClusterChanged();
  const api::Node& node = *added;
  cache_.AddNode(node);
  EventObjects objects;
  objects.new_node = &node;
  MoveAll(kNodeAdd, objects);
}

template <>
void Scheduler::OnUpdate<api::Node>(const api::Shared<api::Node>& old_ptr,
                                    const api::Shared<api::Node>& new_ptr) {
  HandlingTimer timer(metrics_);
  queue_.ClusterChanged();
  const api::Node& old_node = *old_ptr;
  const api::Node& new_node = *new_ptr;
  cache_.UpdateNode(new_node);
  const uint32_t actions = NodeUpdateActions(old_node, new_node);
  if (actions == 0) return;
  timer.label = "NodeUpdate";
  EventObjects objects;
  objects.old_node = &old_node;
  objects.new_node = &new_node;
  MoveAll(ClusterEvent{EventResource::kNode, actions, "NodeUpdate"}, objects);
}

template <>
void Scheduler::OnDelete<api::Node>(const api::Shared<api::Node>& deleted) {
  const HandlingTimer timer(metrics_, kNodeDelete.label);
  queue_.ClusterChanged();
  const api::Node& node = *deleted;
  cache_.RemoveNode(node);
  EventObjects objects;
  objects.old_node = &node;
  MoveAll(kNodeDelete, objects);
}

// ---- PodGroups ----

namespace {

// Whether the update changed the group's status alone (its counters and phase, written by the
// PodGroup controller, or its conditions, by the group cycle): nothing scheduling reads.
bool StatusOnly(const api::PodGroup& a, const api::PodGroup& b) {
  return a.metadata.labels == b.metadata.labels && a.spec.min_member == b.spec.min_member &&
         a.spec.min_resources == b.spec.min_resources &&
         a.spec.schedule_timeout_seconds == b.spec.schedule_timeout_seconds;
}

bool OnlyConditionsChanged(const api::PodGroup& a, const api::PodGroup& b) {
  if (!StatusOnly(a, b) || a.status.conditions == b.status.conditions) return false;
  api::PodGroup::Status rest = b.status;
  rest.conditions = a.status.conditions;
  return rest == a.status;
}

}  // namespace

template <>
void Scheduler::OnUpdate<api::PodGroup>(const api::Shared<api::PodGroup>& old_group,
                                        const api::Shared<api::PodGroup>& new_group) {
  const HandlingTimer timer(metrics_, KindEvent<api::PodGroup>(framework::kUpdateOther).label);
  store_.mutable_objects().Of<api::PodGroup>().Set(new_group);
  // The group cycle's own writes of the Scheduled condition are no reason to retry anything.
  if (OnlyConditionsChanged(*old_group, *new_group)) return;
  // Pods in a group are requeued on any update of it, as upstream's Coscheduling asks; but
  // one of its status alone leaves every earlier attempt's answer standing.
  if (!StatusOnly(*old_group, *new_group)) queue_.ClusterChanged();
  Raise<api::PodGroup>(framework::kUpdateOther, old_group, new_group);
}

// The handlers of every cluster kind, compiled here: an external table of their addresses makes
// the compiler emit each.
template <typename... T>
constexpr auto Handlers(api::KindList<T...>) {
  return std::tuple{
      std::tuple{&Scheduler::OnAdd<T>, &Scheduler::OnUpdate<T>, &Scheduler::OnDelete<T>}...};
}
extern const auto kHandlers = Handlers(api::ClusterKinds{});

}  // namespace muster::scheduler
