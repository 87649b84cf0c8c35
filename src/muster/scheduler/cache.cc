#include "muster/scheduler/cache.h"

#include <algorithm>

#include <fmt/format.h>

namespace muster::scheduler {

using framework::Status;

Status Cache::AssumePod(framework::PodInfoPtr pod) {
  const api::HashedPodName name = api::HashedPodName::Of(pod->pod);
  if (pod_states_.contains(name)) {
    return Status::Error(fmt::format("pod {} is in the cache, so can't be assumed", pod->Key()));
  }
  nodes_.AddPod(pod, pod->pod.spec.node_name);
  auto it = pod_states_.insert(PodState(std::move(pod), name, /*assumed=*/true, false)).first;
  assumed_.insert(it->name());
  return Status::OK();
}

Status Cache::FinishBinding(const api::Pod& pod) {
  auto it = pod_states_.find(api::HashedPodName::Of(pod));
  if (it != pod_states_.end() && it->assumed) it->binding_finished = true;
  return Status::OK();
}

Status Cache::ForgetPod(const api::Pod& pod) {
  auto it = pod_states_.find(api::HashedPodName::Of(pod));
  if (it == pod_states_.end()) return Status::OK();
  if (!it->assumed) {
    return Status::Error(
        fmt::format("pod {} wasn't assumed so cannot be forgotten", pod.metadata.Key()));
  }
  if (it->node() != pod.spec.node_name) {
    return Status::Error(fmt::format("pod {} was assumed on {} but assigned to {}",
                                     pod.metadata.Key(), it->node().str(),
                                     pod.spec.node_name.str()));
  }
  nodes_.RemovePod(*it->info, it->node());
  Erase(it);
  return Status::OK();
}

void Cache::Erase(PodStates::iterator it) {
  if (it->assumed) assumed_.erase(it->name());
  pod_states_.erase(it);
}

Status Cache::AddPod(framework::PodInfoPtr info) {
  const api::Pod& pod = info->pod;
  const api::HashedPodName name = api::HashedPodName::Of(pod);
  auto it = pod_states_.find(name);
  if (it != pod_states_.end()) {
    if (!it->assumed) {
      return Status::Error(fmt::format("pod {} was already in added state", pod.metadata.Key()));
    }
    // The binding is confirmed. The pod may have been bound elsewhere than assumed.
    nodes_.RemovePod(*it->info, it->node());
    Erase(it);
  }
  nodes_.AddPod(info, pod.spec.node_name);
  pod_states_.insert(PodState(std::move(info), name, false, false));
  return Status::OK();
}

Status Cache::UpdatePod(const api::Pod& old_pod, framework::PodInfoPtr new_info) {
  auto it = pod_states_.find(api::HashedPodName::Of(old_pod));
  if (it != pod_states_.end() && !it->assumed) {
    nodes_.RemovePod(*it->info, it->node());
    Erase(it);
  }
  // Not cached yet, or assumed (an update before the add: the confirmation), or re-added.
  return AddPod(std::move(new_info));
}

Status Cache::RemovePod(const api::Pod& pod) {
  auto it = pod_states_.find(api::HashedPodName::Of(pod));
  if (it == pod_states_.end()) return Status::OK();
  nodes_.RemovePod(*it->info, it->node());
  Erase(it);
  return Status::OK();
}

bool Cache::IsAssumedPod(const api::Pod& pod) const {
  return assumed_.contains(api::PodName::Of(pod));
}

const framework::PodInfo* Cache::GetPod(api::PodName name) const {
  auto it = pod_states_.find(api::HashedPodName(name));
  return it == pod_states_.end() ? nullptr : it->info.get();
}

std::optional<Cache::TakenOut> Cache::TakeOut(const api::Pod& pod) {
  auto it = pod_states_.find(api::HashedPodName::Of(pod));
  if (it == pod_states_.end()) return std::nullopt;
  TakenOut taken;
  taken.info_ = it->info;
  taken.assumed_ = it->assumed;
  taken.binding_finished_ = it->binding_finished;
  nodes_.RemovePod(*it->info, it->node());
  Erase(it);
  return taken;
}

void Cache::PutBack(TakenOut taken) {
  nodes_.AddPod(taken.info_, taken.info_->pod.spec.node_name);
  const api::HashedPodName name = api::HashedPodName::Of(taken.info_->pod);
  auto it =
      pod_states_
          .insert(PodState(std::move(taken.info_), name, taken.assumed_, taken.binding_finished_))
          .first;
  if (it->assumed) assumed_.insert(it->name());
}

void Cache::AddNode(const api::Node& node) { nodes_.AddNode(node); }

void Cache::UpdateNode(const api::Node& node) { nodes_.UpdateNode(node); }

void Cache::RemoveNode(const api::Node& node) { nodes_.RemoveNode(node); }

void Cache::UpdateSnapshot(framework::Snapshot& snapshot) { nodes_.UpdateSnapshot(snapshot); }

}  // namespace muster::scheduler
