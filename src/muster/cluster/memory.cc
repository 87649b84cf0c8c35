#include "muster/cluster/memory.h"

#include <fmt/format.h>

#include <memory>
#include <utility>

namespace muster::cluster {

using framework::Status;

namespace {

Status NotFound(std::string_view kind, std::string_view key) {
  return Status::Error(fmt::format("{} \"{}\" not found", kind, key));
}

Status AlreadyExists(std::string_view kind, std::string_view key) {
  return Status::Error(fmt::format("{} \"{}\" already exists", kind, key));
}

}  // namespace

void MemoryCluster::Stamp(api::ObjectMeta& meta) {
  if (meta.uid.empty()) meta.uid = fmt::format("uid-{:06}", next_uid_++);
  if (!meta.creation_timestamp) meta.creation_timestamp = clock_.Now();
  meta.resource_version = std::to_string(++revision_);
}

void MemoryCluster::Notify(std::function<void(ClusterObserver&)> fn) {
  clock_.AddTimer(clock_.Now(), [this, fn = std::move(fn)] {
    for (ClusterObserver* o : observers_) fn(*o);
  });
}

MemoryCluster::PodMap::iterator MemoryCluster::FindPod(std::string_view key) {
  auto it = pod_index_.find(key);
  return it == pod_index_.end() ? pods_.end() : it->second;
}

Status MemoryCluster::CreatePod(api::Pod pod) {
  std::string key = pod.metadata.Key();
  if (pod_index_.contains(key)) return AlreadyExists("pods", key);
  Stamp(pod.metadata);
  auto added = std::make_shared<const api::Pod>(std::move(pod));
  auto it = pods_.emplace(std::move(key), added).first;
  pod_index_.emplace(it->first, it);
  Notify([added](ClusterObserver& o) { o.OnPodAdd(added); });
  return Status::OK();
}

Status MemoryCluster::UpdatePod(api::Pod pod) {
  auto it = FindPod(pod.metadata.Key());
  if (it == pods_.end()) return NotFound("pods", pod.metadata.Key());
  return ReplacePod(it, std::move(pod));
}

Status MemoryCluster::ReplacePod(PodMap::iterator it, api::Pod pod) {
  pod.metadata.resource_version = std::to_string(++revision_);
  api::PodPtr old = std::move(it->second);
  auto updated = std::make_shared<const api::Pod>(std::move(pod));
  it->second = updated;
  Notify([old, updated](ClusterObserver& o) { o.OnPodUpdate(old, updated); });
  return Status::OK();
}

Status MemoryCluster::DeletePodByKey(const std::string& key) {
  auto it = FindPod(key);
  if (it == pods_.end()) return NotFound("pods", key);
  api::PodPtr old = std::move(it->second);
  pod_index_.erase(it->first);
  pods_.erase(it);
  ++revision_;
  Notify([old](ClusterObserver& o) { o.OnPodDelete(old); });
  return Status::OK();
}

Status MemoryCluster::CreateNode(api::Node node) {
  const std::string key = node.metadata.name;
  if (nodes_.contains(key)) return AlreadyExists("nodes", key);
  Stamp(node.metadata);
  nodes_.emplace(key, node);
  node_names_.insert(api::Symbol(key));
  Notify([node](ClusterObserver& o) { o.OnNodeAdd(node); });
  return Status::OK();
}

Status MemoryCluster::UpdateNode(const api::Node& node) {
  auto it = nodes_.find(node.metadata.name);
  if (it == nodes_.end()) return NotFound("nodes", node.metadata.name);
  api::Node old = it->second;
  it->second = node;
  it->second.metadata.resource_version = std::to_string(++revision_);
  api::Node updated = it->second;
  Notify([old, updated](ClusterObserver& o) { o.OnNodeUpdate(old, updated); });
  return Status::OK();
}

Status MemoryCluster::DeleteNode(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return NotFound("nodes", name);
  api::Node old = std::move(it->second);
  nodes_.erase(it);
  node_names_.erase(api::Symbol(name));
  ++revision_;
  Notify([old](ClusterObserver& o) { o.OnNodeDelete(old); });
  return Status::OK();
}

Status MemoryCluster::CreatePodGroup(api::PodGroup group) {
  const std::string key = group.metadata.Key();
  if (pod_groups_.contains(key)) return AlreadyExists("podgroups", key);
  Stamp(group.metadata);
  pod_groups_.emplace(key, group);
  Notify([group](ClusterObserver& o) { o.OnPodGroupAdd(group); });
  return Status::OK();
}

Status MemoryCluster::UpdatePodGroup(const api::PodGroup& group) {
  auto it = pod_groups_.find(group.metadata.Key());
  if (it == pod_groups_.end()) return NotFound("podgroups", group.metadata.Key());
  api::PodGroup old = it->second;
  it->second = group;
  it->second.metadata.resource_version = std::to_string(++revision_);
  api::PodGroup updated = it->second;
  Notify([old, updated](ClusterObserver& o) { o.OnPodGroupUpdate(old, updated); });
  return Status::OK();
}

Status MemoryCluster::DeletePodGroup(const std::string& key) {
  auto it = pod_groups_.find(key);
  if (it == pod_groups_.end()) return NotFound("podgroups", key);
  api::PodGroup old = std::move(it->second);
  pod_groups_.erase(it);
  ++revision_;
  Notify([old](ClusterObserver& o) { o.OnPodGroupDelete(old); });
  return Status::OK();
}

Status MemoryCluster::CreateNamespace(api::Namespace ns) {
  const std::string key = ns.metadata.name;
  if (namespaces_.contains(key)) return AlreadyExists("namespaces", key);
  Stamp(ns.metadata);
  namespaces_.emplace(key, ns);
  Notify([ns](ClusterObserver& o) { o.OnNamespaceAdd(ns); });
  return Status::OK();
}

Status MemoryCluster::CreatePodDisruptionBudget(api::PodDisruptionBudget pdb) {
  const std::string key = pdb.metadata.Key();
  if (pdbs_.contains(key)) return AlreadyExists("poddisruptionbudgets", key);
  Stamp(pdb.metadata);
  pdbs_.emplace(key, pdb);
  Notify([pdb](ClusterObserver& o) { o.OnPodDisruptionBudgetAdd(pdb); });
  return Status::OK();
}

const api::Pod* MemoryCluster::GetPod(const std::string& key) const {
  auto it = pod_index_.find(key);
  return it == pod_index_.end() ? nullptr : it->second->second.get();
}

const api::Node* MemoryCluster::GetNode(const std::string& name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}

const api::PodGroup* MemoryCluster::GetPodGroup(const std::string& key) const {
  auto it = pod_groups_.find(key);
  return it == pod_groups_.end() ? nullptr : &it->second;
}

Status MemoryCluster::Bind(const api::Pod& pod, api::Symbol node) {
  const std::string key = pod.metadata.Key();
  auto it = FindPod(key);
  if (it == pods_.end()) return NotFound("pods", key);
  if (!it->second->spec.node_name.empty()) {
    return Status::Error(fmt::format("pod {} is already assigned to node \"{}\"", key,
                                     it->second->spec.node_name.str()));
  }
  if (!node_names_.contains(node)) return NotFound("nodes", node.str());
  api::Pod bound = *it->second;
  bound.spec.node_name = node;
  bound.status.nominated_node_name = api::Symbol();
  std::erase_if(bound.status.conditions,
                [](const api::PodCondition& c) { return c.type == "PodScheduled"; });
  bound.status.conditions.push_back(
      api::PodCondition{"PodScheduled", "True", "", "", clock_.Now()});
  return ReplacePod(it, std::move(bound));
}

Status MemoryCluster::UpdatePodCondition(const api::Pod& pod, const api::PodCondition& condition,
                                         const std::optional<std::string>& nominated_node) {
  auto it = FindPod(pod.metadata.Key());
  if (it == pods_.end()) return NotFound("pods", pod.metadata.Key());
  api::Pod updated = *it->second;
  bool replaced = false;
  for (api::PodCondition& c : updated.status.conditions) {
    if (c.type == condition.type) {
      c = condition;
      replaced = true;
    }
  }
  if (!replaced) updated.status.conditions.push_back(condition);
  if (nominated_node) updated.status.nominated_node_name = api::Symbol(*nominated_node);
  return ReplacePod(it, std::move(updated));
}

Status MemoryCluster::DeletePod(const api::Pod& pod) {
  auto it = FindPod(pod.metadata.Key());
  if (it == pods_.end()) return NotFound("pods", pod.metadata.Key());
  // A preemption victim gets the DisruptionTarget condition (naming the victim's scheduler: the
  // call does not say which one preempts), then is deleted. Its grace period passes at once
  // here: the kubelet stops it and it ends Failed with that condition, which a Job's pod
  // failure policy reads, before it is removed.
  api::Pod victim = *it->second;
  api::SetCondition(victim.status.conditions,
                    PreemptionCondition(victim.spec.scheduler_name, clock_.Now()));
  if (!victim.IsTerminal()) victim.status.phase = api::PodPhase::kFailed;
  ReplacePod(it, std::move(victim));
  return DeletePodByKey(pod.metadata.Key());
}

Status MemoryCluster::UpdatePodGroupStatus(const api::PodGroup& group,
                                           const api::PodGroup::Status& status) {
  auto it = pod_groups_.find(group.metadata.Key());
  if (it == pod_groups_.end()) return NotFound("podgroups", group.metadata.Key());
  api::PodGroup updated = it->second;
  updated.status = status;
  return UpdatePodGroup(updated);
}

namespace {

// Events are aggregated by these fields, as Kubernetes' event correlator does (not by action).
bool SameAggregate(const framework::EventRecord& a, const framework::EventRecord& b) {
  return a.regarding.kind == b.regarding.kind &&
         a.regarding.namespace_ == b.regarding.namespace_ &&
         a.regarding.name == b.regarding.name && a.type == b.type && a.reason == b.reason &&
         a.message == b.message;
}

uint64_t AggregateHash(const framework::EventRecord& e) {
  uint64_t h = 0;
  for (const std::string* field : {&e.regarding.kind, &e.regarding.namespace_,
                                   &e.regarding.name, &e.type, &e.reason, &e.message}) {
    h = (h ^ std::hash<std::string>{}(*field)) * 0x9E3779B97F4A7C15ULL;
  }
  return h;
}

}  // namespace

void MemoryCluster::RecordEvent(framework::EventRecord event) {
  // Repeats of an event (same object, type, reason and message) are counted on the first.
  const uint64_t hash = AggregateHash(event);
  for (auto [it, end] = event_index_.equal_range(hash); it != end; ++it) {
    StoredEvent& e = events_[it->second];
    if (!SameAggregate(e.record, event)) continue;
    ++e.count;
    e.last_time = clock_.Now();
    return;
  }
  event_index_.emplace(hash, events_.size());
  events_.push_back(StoredEvent{clock_.Now(), clock_.Now(), 1, std::move(event)});
}

}  // namespace muster::cluster
