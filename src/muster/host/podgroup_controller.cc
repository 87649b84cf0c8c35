#include "muster/host/podgroup_controller.h"

#include <algorithm>

#include <fmt/format.h>

namespace muster::host {

using api::PodGroupPhase;

api::PodGroup::Status PodGroupController::Compute(const api::PodGroup& group,
                                                  const std::vector<const api::Pod*>& pods) {
  api::PodGroup::Status s = group.status;
  const int32_t min_member = group.spec.min_member;
  const int32_t count = static_cast<int32_t>(pods.size());
  // Upstream moves one phase per reconcile, requeueing; this applies the rules to a fixpoint.
  for (int step = 0; step < 4; ++step) {
    const api::PodGroup::Status before = s;
    if (s.phase == PodGroupPhase::kPending) {
      if (count >= min_member && count > 0) {
        s.phase = PodGroupPhase::kScheduling;
        std::vector<std::string> owners;
        for (const api::OwnerReference& ref : pods.front()->metadata.owner_references) {
          owners.push_back(fmt::format("{}/{}", pods.front()->metadata.namespace_.str(), ref.name));
        }
        std::sort(owners.begin(), owners.end());
        if (!owners.empty()) s.occupied_by = fmt::format("{}", fmt::join(owners, ","));
      }
    } else {
      s.running = s.succeeded = s.failed = s.scheduled = 0;
      for (const api::Pod* p : pods) {
        if (p->status.phase == api::PodPhase::kRunning) ++s.running;
        if (p->status.phase == api::PodPhase::kSucceeded) ++s.succeeded;
        if (p->status.phase == api::PodPhase::kFailed) ++s.failed;
        if (!p->spec.node_name.empty()) ++s.scheduled;
      }
      if (count < min_member) {
        s.phase = PodGroupPhase::kPending;
      } else {
        if (s.scheduled >= min_member) s.phase = PodGroupPhase::kScheduled;
        if (s.succeeded + s.running >= min_member) s.phase = PodGroupPhase::kRunning;
        if (s.failed != 0 && s.failed + s.running + s.succeeded >= min_member) {
          s.phase = PodGroupPhase::kFailed;
        }
        if (s.succeeded >= min_member) s.phase = PodGroupPhase::kFinished;
      }
    }
    if (s == before) break;
  }
  return s;
}

namespace {

// The namespace/name of the group `pod` belongs to, or "".
std::string GroupKey(const api::Pod& pod) {
  const std::string_view group = api::PodGroupName(pod).str();
  if (group.empty()) return "";
  return fmt::format("{}/{}", pod.metadata.namespace_.str(), group);
}

}  // namespace

void PodGroupController::Added(const api::PodPtr& pod) {
  const std::string group = GroupKey(*pod);
  if (group.empty()) return;
  members_[group][pod->metadata.Key()] = pod;
  Enqueue(group);
}

void PodGroupController::Updated(const api::PodPtr& old_pod, const api::PodPtr& new_pod) {
  const std::string old_group = GroupKey(*old_pod);
  const std::string group = GroupKey(*new_pod);
  if (old_group != group && !old_group.empty()) Deleted(old_pod);
  if (group.empty()) return;
  members_[group][new_pod->metadata.Key()] = new_pod;
  Enqueue(group);
}

void PodGroupController::Deleted(const api::PodPtr& pod) {
  const std::string group = GroupKey(*pod);
  if (group.empty()) return;
  auto it = members_.find(group);
  if (it != members_.end()) {
    it->second.erase(pod->metadata.Key());
    if (it->second.empty()) members_.erase(it);
  }
  Enqueue(group);
}

void PodGroupController::Added(const api::Shared<api::PodGroup>& group_ptr) {
  const api::PodGroup& group = *group_ptr;
  groups_[group.metadata.Key()] = group;
  Enqueue(group.metadata.Key());
}

void PodGroupController::Updated(const api::Shared<api::PodGroup>&,
                                 const api::Shared<api::PodGroup>& group_ptr) {
  const api::PodGroup& group = *group_ptr;
  groups_[group.metadata.Key()] = group;
  Enqueue(group.metadata.Key());
}

void PodGroupController::Deleted(const api::Shared<api::PodGroup>& group_ptr) {
  const api::PodGroup& group = *group_ptr;
  groups_.erase(group.metadata.Key());
}

void PodGroupController::Enqueue(const std::string& group_key) {
  if (!queued_.insert(group_key).second) return;
  defer_([this, group_key] {
    queued_.erase(group_key);
    Reconcile(group_key);
  });
}

void PodGroupController::Reconcile(const std::string& group_key) {
  auto g = groups_.find(group_key);
  if (g == groups_.end()) return;
  const api::PodGroup& group = g->second;
  std::vector<const api::Pod*> pods;
  if (auto m = members_.find(group_key); m != members_.end()) {
    for (const auto& [key, pod] : m->second) pods.push_back(pod.get());
  }
  const api::PodGroup::Status next = Compute(group, pods);
  // Compute changes neither the start time nor the conditions (the scheduler's).
  if (next == group.status) return;
  client_.UpdatePodGroupStatus(group, next);
}

}  // namespace muster::host
