#include "muster/scheduler/cache.h"

#include <algorithm>

#include <fmt/format.h>

namespace muster::scheduler {

using framework::Status;

Status Cache::AssumePod(framework::PodInfoPtr pod) {
  const std::string key = pod->Key();
  if (pod_states_.contains(key)) {
    return Status::Error(fmt::format("pod {} is in the cache, so can't be assumed", key));
  }
  const api::Symbol node = pod->pod.spec.node_name;
  nodes_.AddPod(pod, node);
  pod_states_.emplace(key, PodState{std::move(pod), node, /*assumed=*/true, false});
  ++assumed_;
  return Status::OK();
}

Status Cache::FinishBinding(const api::Pod& pod) {
  auto it = pod_states_.find(pod.metadata.Key());
  if (it != pod_states_.end() && it->second.assumed) it->second.binding_finished = true;
  return Status::OK();
}

Status Cache::ForgetPod(const api::Pod& pod) {
  const std::string key = pod.metadata.Key();
  auto it = pod_states_.find(key);
  if (it == pod_states_.end()) return Status::OK();
  if (!it->second.assumed) {
    return Status::Error(fmt::format("pod {} wasn't assumed so cannot be forgotten", key));
  }
  if (it->second.node != pod.spec.node_name) {
    return Status::Error(fmt::format("pod {} was assumed on {} but assigned to {}", key,
                                     it->second.node.str(), pod.spec.node_name.str()));
  }
  nodes_.RemovePod(*it->second.info, it->second.node);
  Erase(it);
  return Status::OK();
}

void Cache::Erase(std::unordered_map<std::string, PodState>::iterator it) {
  if (it->second.assumed) --assumed_;
  pod_states_.erase(it);
}

Status Cache::AddPod(framework::PodInfoPtr info) {
  const api::Pod& pod = info->pod;
  const std::string key = pod.metadata.Key();
  auto it = pod_states_.find(key);
  if (it != pod_states_.end()) {
    if (!it->second.assumed) return Status::Error(fmt::format("pod {} was already in added state", key));
    // The binding is confirmed. The pod may have been bound elsewhere than assumed.
    nodes_.RemovePod(*it->second.info, it->second.node);
    Erase(it);
  }
  const api::Symbol node = pod.spec.node_name;
  nodes_.AddPod(info, node);
  pod_states_.emplace(key, PodState{std::move(info), node, false, false});
  return Status::OK();
}

Status Cache::UpdatePod(const api::Pod& old_pod, framework::PodInfoPtr new_info) {
  const std::string key = old_pod.metadata.Key();
  auto it = pod_states_.find(key);
  if (it != pod_states_.end() && !it->second.assumed) {
    nodes_.RemovePod(*it->second.info, it->second.node);
    Erase(it);
  }
  // Not cached yet, or assumed (an update before the add: the confirmation), or re-added.
  return AddPod(std::move(new_info));
}

Status Cache::RemovePod(const api::Pod& pod) {
  auto it = pod_states_.find(pod.metadata.Key());
  if (it == pod_states_.end()) return Status::OK();
  nodes_.RemovePod(*it->second.info, it->second.node);
  Erase(it);
  return Status::OK();
}

bool Cache::IsAssumedPod(const api::Pod& pod) const {
  auto it = pod_states_.find(pod.metadata.Key());
  return it != pod_states_.end() && it->second.assumed;
}

const framework::PodInfo* Cache::GetPod(const std::string& key) const {
  auto it = pod_states_.find(key);
  return it == pod_states_.end() ? nullptr : it->second.info.get();
}

std::optional<Cache::TakenOut> Cache::TakeOut(const api::Pod& pod) {
  auto it = pod_states_.find(pod.metadata.Key());
  if (it == pod_states_.end()) return std::nullopt;
  TakenOut taken;
  taken.key_ = it->first;
  taken.info_ = it->second.info;
  taken.node_ = it->second.node;
  taken.assumed_ = it->second.assumed;
  taken.binding_finished_ = it->second.binding_finished;
  nodes_.RemovePod(*it->second.info, it->second.node);
  Erase(it);
  return taken;
}

void Cache::PutBack(TakenOut taken) {
  nodes_.AddPod(taken.info_, taken.node_);
  if (taken.assumed_) ++assumed_;
  pod_states_.emplace(std::move(taken.key_), PodState{std::move(taken.info_), taken.node_,
                                                      taken.assumed_, taken.binding_finished_});
}

void Cache::AddNode(const api::Node& node) { nodes_.AddNode(node); }

void Cache::UpdateNode(const api::Node& node) { nodes_.UpdateNode(node); }

void Cache::RemoveNode(const api::Node& node) { nodes_.RemoveNode(node); }

void Cache::UpdateSnapshot(framework::Snapshot& snapshot) { nodes_.UpdateSnapshot(snapshot); }

}  // namespace muster::scheduler
