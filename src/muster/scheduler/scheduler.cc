#include "muster/scheduler/scheduler.h"

#include <algorithm>

#include <fmt/format.h>

#include "muster/framework/profile.h"
#include "muster/scheduler/informer_events.h"

namespace muster::scheduler {

using framework::ClusterEvent;
using framework::EventObjects;
using framework::EventResource;
using framework::Status;

namespace {

bool Assigned(const api::Pod& pod) { return !pod.spec.node_name.empty(); }

}  // namespace

Scheduler::Scheduler(SchedulerOptions options, framework::Clock& clock,
                     framework::ClusterClient& client)
    : options_(options),
      clock_(clock),
      client_(client),
      queue_(options.queue, profiles_, clock),
      waiting_(clock),
      rng_(options.seed),
      pool_(std::clamp(options.parallelism, 1, framework::LoopPool::AvailableCores())) {
  queue_.SetMetrics(&metrics_);
}

void Scheduler::PublishGauges() {
  using framework::QueueName;
  const size_t gated = queue_.NumGated();
  metrics_.SetPending(QueueName::kActive, queue_.NumActive());
  metrics_.SetPending(QueueName::kBackoff, queue_.NumBackoff());
  metrics_.SetPending(QueueName::kUnschedulable, queue_.NumUnschedulable() - gated);
  metrics_.SetPending(QueueName::kGated, gated);
  metrics_.SetCacheSize(cache_.NodeCount(), cache_.PodCount(), cache_.AssumedPodCount());
}

Scheduler::~Scheduler() = default;

std::unique_ptr<Scheduler> Scheduler::Create(const api::SchedulerConfiguration* config,
                                             const framework::Registry& registry,
                                             const api::Plugins& default_plugins,
                                             framework::Clock& clock,
                                             framework::ClusterClient& client, uint64_t seed,
                                             std::vector<std::string>* errors) {
  SchedulerOptions options;
  options.seed = seed;
  if (config != nullptr) {
    options.parallelism = config->parallelism;
    options.percentage_of_nodes_to_score = config->percentage_of_nodes_to_score;
    options.queue.initial_backoff = std::chrono::seconds(config->pod_initial_backoff_seconds);
    options.queue.max_backoff = std::chrono::seconds(config->pod_max_backoff_seconds);
  }
  std::unique_ptr<Scheduler> s(new Scheduler(options, clock, client));
  std::vector<std::unique_ptr<framework::Framework>> profiles =
      framework::CreateProfiles(config, registry, default_plugins, *s, errors);
  if (config != nullptr && !config->source.empty()) {
    // Every error names the file: an args error already carries its full location; the others
    // get the configuration's.
    const std::string context = config->source + " (KubeSchedulerConfiguration): ";
    for (std::string& e : *errors) {
      const size_t at = e.find(config->source);
      e = at == std::string::npos ? context + e : e.substr(at);
    }
  }
  if (!errors->empty() || profiles.empty()) return nullptr;
  s->profiles_.Set(std::move(profiles));
  return s;
}

int Scheduler::Attempts(const std::string& pod_key) const {
  auto it = attempts_.find(pod_key);
  return it == attempts_.end() ? 0 : it->second;
}

void Scheduler::MoveAll(const ClusterEvent& event, const EventObjects& objects,
                        const std::string& exclude_key) {
  queue_.MoveAllToActiveOrBackoffQueue(event, objects, exclude_key);
}

// ---- informer events ----

void Scheduler::OnPodAdd(const api::PodPtr& added) {
  queue_.ClusterChanged();
  const framework::PodInfoPtr& info = store_.StorePod(added);
  const api::Pod& pod = *added;
  EventObjects objects;
  objects.new_pod = &pod;
  if (Assigned(pod)) {
    if (pod.IsTerminal()) return;
    cache_.AddPod(info);
    queue_.DeleteNominatedPodIfExists(pod);
    MoveAll(kAssignedPodAdd, objects);
    return;
  }
  if (!Responsible(pod) || pod.IsTerminal()) return;
  // A pod nominated before this scheduler started (a restart, a new leader) keeps its room.
  if (!pod.status.nominated_node_name.empty()) {
    queue_.AddNominatedPod(info, pod.status.nominated_node_name);
  }
  queue_.Add(info);
  MoveAll(kUnscheduledPodAdd, objects, pod.metadata.Key());
}

void Scheduler::OnPodUpdate(const api::PodPtr& old_ptr, const api::PodPtr& new_ptr) {
  const framework::PodInfoPtr& info = store_.StorePod(new_ptr);
  const api::Pod& old_pod = *old_ptr;
  const api::Pod& new_pod = *new_ptr;
  EventObjects objects;
  objects.old_pod = &old_pod;
  objects.new_pod = &new_pod;
  // A pod bound, or finished, changed the cluster whatever else changed: its update's actions
  // are only worked out (once) for a pod that stays where it was.
  const bool in_place = Assigned(old_pod) == Assigned(new_pod) &&
                        new_pod.IsTerminal() == old_pod.IsTerminal();
  const uint32_t actions = in_place ? PodUpdateActions(old_pod, new_pod) : 0;
  // A change of status only is not an event for a pending pod (the scheduler's own PodScheduled
  // condition, a nomination), as upstream's isPodUpdated ignores status, nor a change that could
  // help one when the pod runs on (the kubelet's Running): a pod that finishes is one.
  const bool status_only = in_place && actions == framework::kUpdatePodOther &&
                           old_pod.metadata.annotations == new_pod.metadata.annotations;
  // Nor is the binding of a pod assumed on that node: passing Permit was the change (see
  // Scheduler::Commit), and every attempt since has counted the pod there.
  const framework::PodInfo* assumed =
      cache_.IsAssumedPod(new_pod) ? cache_.GetPod(new_pod.metadata.Key()) : nullptr;
  const bool confirms_assumed = !Assigned(old_pod) && Assigned(new_pod) &&
                                !new_pod.IsTerminal() && assumed != nullptr &&
                                assumed->pod.spec.node_name == new_pod.spec.node_name;
  if (!status_only && !confirms_assumed) queue_.ClusterChanged();
  if (Assigned(new_pod)) {
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
    MoveAll(ClusterEvent{EventResource::kAssignedPod,
                         in_place ? actions : PodUpdateActions(old_pod, new_pod),
                         "AssignedPodUpdate"},
            objects);
    return;
  }
  if (!Responsible(new_pod)) return;
  if (new_pod.IsTerminal()) {
    queue_.Delete(new_pod);
    return;
  }
  // A nomination cleared (by preemption of a higher-priority pod, or by hand) releases the room
  // the nominator kept for the pod; one set on the pod (by an earlier run of the scheduler) keeps
  // room there.
  queue_.UpdateNominatedPod(old_pod, info);
  queue_.Update(old_pod, info, status_only);
}

void Scheduler::OnPodDelete(const api::PodPtr& deleted) {
  queue_.ClusterChanged();
  const api::Pod& pod = *deleted;
  store_.ForgetPod(pod);
  EventObjects objects;
  objects.old_pod = &pod;
  if (Assigned(pod)) {
    cache_.RemovePod(pod);
    queue_.DeleteNominatedPodIfExists(pod);
    if (!pod.IsTerminal()) MoveAll(kAssignedPodDelete, objects);
    return;
  }
  queue_.Delete(pod);
  waiting_.Reject(PodUid(pod), "", "pod deleted");
  MoveAll(kUnscheduledPodDelete, objects);
}

void Scheduler::OnNodeAdd(const api::Node& node) {
  queue_.ClusterChanged();
  cache_.AddNode(node);
  EventObjects objects;
  objects.new_node = &node;
  MoveAll(kNodeAdd, objects);
}

void Scheduler::OnNodeUpdate(const api::Node& old_node, const api::Node& new_node) {
  queue_.ClusterChanged();
  cache_.UpdateNode(new_node);
  const uint32_t actions = NodeUpdateActions(old_node, new_node);
  if (actions == 0) return;
  EventObjects objects;
  objects.old_node = &old_node;
  objects.new_node = &new_node;
  MoveAll(ClusterEvent{EventResource::kNode, actions, "NodeUpdate"}, objects);
}

void Scheduler::OnNodeDelete(const api::Node& node) {
  queue_.ClusterChanged();
  cache_.RemoveNode(node);
  EventObjects objects;
  objects.old_node = &node;
  MoveAll(kNodeDelete, objects);
}

void Scheduler::OnPodGroupAdd(const api::PodGroup& group) {
  queue_.ClusterChanged();
  store_.SetPodGroup(group);
  EventObjects objects;
  objects.new_group = &group;
  MoveAll(ClusterEvent{EventResource::kPodGroup, framework::kAdd, "PodGroupAdd"}, objects);
}

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

void Scheduler::OnPodGroupUpdate(const api::PodGroup& old_group, const api::PodGroup& new_group) {
  // The group cycle's own writes of the Scheduled condition are no reason to retry anything.
  if (OnlyConditionsChanged(old_group, new_group)) {
    store_.SetPodGroup(new_group);
    return;
  }
  // Pods in a group are requeued on any update of it, as upstream's Coscheduling asks; but
  // one of its status alone leaves every earlier attempt's answer standing.
  if (!StatusOnly(old_group, new_group)) queue_.ClusterChanged();
  store_.SetPodGroup(new_group);
  EventObjects objects;
  objects.old_group = &old_group;
  objects.new_group = &new_group;
  MoveAll(ClusterEvent{EventResource::kPodGroup, framework::kUpdateOther, "PodGroupUpdate"},
          objects);
}

void Scheduler::OnPodGroupDelete(const api::PodGroup& group) {
  queue_.ClusterChanged();
  store_.ErasePodGroup(group);
}

void Scheduler::OnNamespaceAdd(const api::Namespace& ns) {
  queue_.ClusterChanged();
  store_.SetNamespace(ns);
}

void Scheduler::OnPodDisruptionBudgetAdd(const api::PodDisruptionBudget& pdb) {
  queue_.ClusterChanged();
  store_.SetPodDisruptionBudget(pdb);
}

void Scheduler::ActivatePods(std::span<const std::string> pod_keys) {
  queue_.Activate(std::vector<std::string>(pod_keys.begin(), pod_keys.end()));
}

}  // namespace muster::scheduler
