#include "muster/sim/history.h"

#include <algorithm>

#include "muster/api/pod_resources.h"

namespace muster::sim {
namespace {

int32_t& CountOf(PodCounts& counts, const api::Pod& pod) {
  switch (pod.status.phase) {
    case api::PodPhase::kRunning:
      return counts.running;
    case api::PodPhase::kSucceeded:
      return counts.succeeded;
    case api::PodPhase::kFailed:
      return counts.failed;
    default:
      // As Simulation::IsGated: gates matter only until the pod is bound.
      return !pod.spec.scheduling_gates.empty() && pod.spec.node_name.empty() ? counts.gated
                                                                              : counts.pending;
  }
}

// Whether the pod's requests count against its node.
bool OnNode(const api::Pod& pod) { return !pod.spec.node_name.empty() && !pod.IsTerminal(); }

// Records `state` as of `now`, one entry per instant, as History::Sample keeps the counts.
void SetState(std::vector<GroupStateChange>& states, api::Duration now, GroupState state) {
  if (!states.empty() && states.back().state == state) return;
  if (states.empty() || states.back().from != now) {
    states.push_back(GroupStateChange{now, state});
    return;
  }
  // A later change at the same instant overwrites it; back where the instant started, the
  // instant leaves no trace.
  states.back().state = state;
  if (states.size() >= 2 && states[states.size() - 2].state == state) states.pop_back();
}

}  // namespace

const NodeUsage* History::node(api::Symbol name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

GroupTimeline& History::Group(api::Symbol namespace_, api::Symbol name) {
  const uint64_t id = api::PairId(namespace_, name);
  auto it = group_index_.find(id);
  if (it != group_index_.end()) return *it->second;
  std::string key = std::string(namespace_.str()) + "/" + std::string(name.str());
  GroupTimeline& group = groups_[std::move(key)];
  group.namespace_ = namespace_.string();
  group.name = name.string();
  group_index_.emplace(id, &group);
  return group;
}

void History::Apply(const api::Pod& pod, int sign) {
  CountOf(counts_, pod) += sign;
  const api::GangRef gang = api::GangOf(pod);
  if (gang.empty()) return;
  GroupTimeline& group = Group(pod.metadata.namespace_, gang.name);
  group.members += sign;
  if (!pod.spec.node_name.empty()) group.bound += sign;
  if (pod.status.phase == api::PodPhase::kRunning) group.running_now += sign;
  if (pod.status.phase == api::PodPhase::kSucceeded) group.succeeded_now += sign;
}

void History::Charge(const api::Pod& pod, int sign) {
  const api::Resource requests = api::PodFitRequests(pod);
  NodeUsage& usage = nodes_[pod.spec.node_name];
  if (sign > 0) {
    usage.requested.Add(requests);
    usage.peak.SetMax(usage.requested);
    total_.requested.Add(requests);
    total_.peak.SetMax(total_.requested);
  } else {
    usage.requested.Sub(requests);
    total_.requested.Sub(requests);
  }
}

void History::Reached(GroupTimeline& group) {
  if (!group.created || group.deleted) return;
  const int32_t need = std::max(group.min_count, 1);
  const api::Duration now = Now();
  const bool quorum = group.bound >= need;
  const bool running = group.running_now + group.succeeded_now >= need;
  if (!group.quorum && quorum) group.quorum = now;
  if (!group.running && running) group.running = now;
  if (!group.finished && group.succeeded_now >= need && group.succeeded_now == group.members) {
    group.finished = now;
  }
  GroupState state = GroupState::kWaiting;
  if (group.finished) {
    state = GroupState::kFinished;
  } else if (running) {
    state = GroupState::kRunning;
  } else if (quorum) {
    state = GroupState::kQuorum;
  }
  SetState(group.states, now, state);
}

void History::Sample() {
  const api::Duration now = Now();
  if (!samples_.empty() && samples_.back().at == now) {
    samples_.back().counts = counts_;
    // Back where the instant started: the instant leaves no trace.
    const PodCounts before =
        samples_.size() >= 2 ? samples_[samples_.size() - 2].counts : PodCounts{};
    if (before == counts_) samples_.pop_back();
    return;
  }
  const PodCounts last = samples_.empty() ? PodCounts{} : samples_.back().counts;
  if (last != counts_) samples_.push_back(CountSample{now, counts_});
}

void History::Added(const api::PodPtr& pod) {
  Apply(*pod, +1);
  if (OnNode(*pod)) Charge(*pod, +1);
  if (const api::GangRef gang = api::GangOf(*pod); !gang.empty()) {
    GroupTimeline& group = Group(pod->metadata.namespace_, gang.name);
    // A Workload's gang with a replica key is an instance of the pod group defining it.
    if (const api::Symbol definition = api::GangDefinitionName(gang);
        definition != gang.name && !group.created) {
      const GroupTimeline& defined = Group(pod->metadata.namespace_, definition);
      group.min_count = defined.min_count;
      group.created = defined.created;
    }
    if (!group.first_member) group.first_member = Now();
    Reached(group);
  }
  Sample();
}

void History::Updated(const api::PodPtr& old_ptr, const api::PodPtr& new_ptr) {
  const api::Pod& old_pod = *old_ptr;
  const api::Pod& new_pod = *new_ptr;
  Apply(old_pod, -1);
  Apply(new_pod, +1);
  // Most updates (conditions, nominations) leave the node's requests as they were.
  if (OnNode(old_pod) != OnNode(new_pod) || old_pod.spec.node_name != new_pod.spec.node_name) {
    if (OnNode(old_pod)) Charge(old_pod, -1);
    if (OnNode(new_pod)) Charge(new_pod, +1);
  }
  const api::GangRef gang = api::GangOf(new_pod);
  if (!gang.empty()) Reached(Group(new_pod.metadata.namespace_, gang.name));
  Sample();
}

void History::Deleted(const api::PodPtr& pod) {
  Apply(*pod, -1);
  if (OnNode(*pod)) Charge(*pod, -1);
  // The members left may now all have succeeded.
  const api::GangRef gang = api::GangOf(*pod);
  if (!gang.empty()) Reached(Group(pod->metadata.namespace_, gang.name));
  Sample();
}

void History::GangDefined(api::Symbol ns, const api::GangDefinition& gang) {
  GroupTimeline& group = Group(ns, gang.name);
  group.min_count = gang.min_count;
  // A group removed and defined again keeps its first milestones.
  if (!group.created) group.created = Now();
  group.deleted.reset();
  Reached(group);
}

void History::GangRemoved(api::Symbol ns, api::Symbol name) { Group(ns, name).deleted = Now(); }

}  // namespace muster::sim
