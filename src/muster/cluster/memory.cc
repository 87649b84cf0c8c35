#include "muster/cluster/memory.h"

#include <algorithm>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "muster/api/generated_name.h"

namespace muster::cluster {

using framework::Status;

namespace {

// The API server's words name the object, not its namespace: `pods "web-0" not found`.
Status NotFound(std::string_view kind, std::string_view key) {
  return Status::Error(fmt::format("{} \"{}\" not found", kind, key.substr(key.rfind('/') + 1)));
}

Status AlreadyExists(std::string_view kind, std::string_view key) {
  return Status::Error(fmt::format("{} \"{}\" already exists", kind, key));
}

// The API server's answer to a write made on an old version of the object.
Status Conflict(std::string_view kind, std::string_view key) {
  return Status::Error(
      fmt::format("Operation cannot be fulfilled on {} \"{}\": the object has "
                  "been modified; please apply your changes to the latest "
                  "version and try again",
                  kind, key));
}

}  // namespace

void MemoryCluster::Stamp(api::ObjectMeta& meta) {
  if (meta.uid.empty()) meta.uid = fmt::format("uid-{:06}", next_uid_++);
  if (!meta.creation_timestamp) meta.creation_timestamp = clock_.Now();
  meta.resource_version = std::to_string(NextRevision());
}

void MemoryCluster::Notify(std::function<void(ClusterObserver&)> fn) {
  clock_.AddTimer(clock_.Now(), [this, fn = std::move(fn)] {
    for (ClusterObserver* o : observers_) fn(*o);
  });
}

void PodsInOrder::Sort() const {
  auto by_key = [](const value_type* a, const value_type* b) { return a->first < b->first; };
  if (!sorted_once_ || stale_) {
    sorted_.clear();
    sorted_.reserve(pods_.size());
    for (const value_type& entry : pods_) sorted_.push_back(&entry);
    std::sort(sorted_.begin(), sorted_.end(), by_key);
    created_.clear();
    sorted_once_ = true;
    stale_ = false;
    return;
  }
  if (created_.empty()) return;
  std::sort(created_.begin(), created_.end(), by_key);
  const size_t before = sorted_.size();
  sorted_.insert(sorted_.end(), created_.begin(), created_.end());
  std::inplace_merge(sorted_.begin(), sorted_.begin() + static_cast<std::ptrdiff_t>(before),
                     sorted_.end(), by_key);
  created_.clear();
}

template <typename T>
typename MemoryCluster::ObjectMap<T>::iterator MemoryCluster::Find(const std::string& key) {
  return MutableObjects<T>().find(key);
}

template <typename T>
Status MemoryCluster::Create(T object) {
  ObjectMap<T>& objects = MutableObjects<T>();
  // One search finds the place or the object already there (try_emplace leaves its key alone
  // when it inserts nothing).
  auto [it, inserted] = objects.try_emplace(object.metadata.Key());
  if (!inserted) return AlreadyExists(api::KindOf<T>().resource, it->first);
  Stamp(object.metadata);
  api::Shared<T> added = std::make_shared<const T>(std::move(object));
  it->second = added;
  if constexpr (std::is_same_v<T, api::Pod>) pods_in_order_.Created(*it);
  if constexpr (std::is_same_v<T, api::Node>) node_names_.insert(api::Symbol(it->first));
  Notify([added = api::AnyObject(std::move(added))](ClusterObserver& o) { o.OnAdd(added); });
  return Status::OK();
}

template <typename T>
Status MemoryCluster::Update(T object) {
  ObjectMap<T>& objects = MutableObjects<T>();
  const std::string key = object.metadata.Key();
  auto it = Find<T>(key);
  if (it == objects.end()) return NotFound(api::KindOf<T>().resource, key);
  if constexpr (std::is_same_v<T, api::Pod>) {
    return ReplacePod(it, std::move(object));
  } else {
    object.metadata.resource_version = std::to_string(NextRevision());
    api::Shared<T> old = std::exchange(it->second, std::make_shared<const T>(std::move(object)));
    Notify([old = api::AnyObject(std::move(old)), updated = api::AnyObject(it->second)](
               ClusterObserver& o) { o.OnUpdate(old, updated); });
    return Status::OK();
  }
}

Status MemoryCluster::ReplacePod(PodMap::iterator it, api::Pod pod) {
  pod.metadata.resource_version = std::to_string(NextRevision());
  api::PodPtr old = std::exchange(it->second, std::make_shared<const api::Pod>(std::move(pod)));
  Notify([old = api::AnyObject(std::move(old)),
          updated = api::AnyObject(it->second)](ClusterObserver& o) { o.OnUpdate(old, updated); });
  return Status::OK();
}

template <typename T>
Status MemoryCluster::Delete(const std::string& key) {
  ObjectMap<T>& objects = MutableObjects<T>();
  auto it = Find<T>(key);
  if (it == objects.end()) return NotFound(api::KindOf<T>().resource, key);
  api::Shared<T> old = std::move(it->second);
  if constexpr (std::is_same_v<T, api::Pod>) pods_in_order_.Deleted();
  if constexpr (std::is_same_v<T, api::Node>) node_names_.erase(api::Symbol(it->first));
  objects.erase(it);
  NextRevision();
  Notify([old = api::AnyObject(std::move(old))](ClusterObserver& o) { o.OnDelete(old); });
  return Status::OK();
}

// The writers of every cluster kind, compiled here: an external table of their addresses makes
// the compiler emit each.
template <typename... T>
constexpr auto Writers(api::KindList<T...>) {
  return std::tuple{std::tuple{&MemoryCluster::Create<T>, &MemoryCluster::Update<T>,
                               &MemoryCluster::Delete<T>}...};
}
extern const auto kWriters = Writers(api::ClusterKinds{});

Status MemoryCluster::Bind(const api::Pod& pod, api::Symbol node) {
  const std::string key = pod.metadata.Key();
  auto it = FindPod(key);
  if (it == MutableObjects<api::Pod>().end()) return NotFound("pods", key);
  if (!it->second->spec.node_name.empty()) {
    return Status::Error(fmt::format("pod {} is already assigned to node \"{}\"", pod.metadata.name,
                                     it->second->spec.node_name.str()));
  }
  if (!node_names_.contains(node)) return NotFound("nodes", node.str());
  api::Pod bound = *it->second;
  bound.spec.node_name = node;
  bound.status.nominated_node_name = api::Symbol();
  std::erase_if(bound.status.conditions,
                [](const api::Condition& c) { return c.type.str() == "PodScheduled"; });
  bound.status.conditions.push_back(
      api::Condition{api::Symbol("PodScheduled"), api::Symbol("True"), "", "", clock_.Now()});
  return ReplacePod(it, std::move(bound));
}

Status MemoryCluster::UpdatePodCondition(const api::Pod& pod, const api::Condition& condition,
                                         const std::optional<std::string>& nominated_node) {
  auto it = FindPod(pod.metadata.Key());
  if (it == MutableObjects<api::Pod>().end()) return NotFound("pods", pod.metadata.Key());
  api::Pod updated = *it->second;
  bool replaced = false;
  for (api::Condition& c : updated.status.conditions) {
    if (c.type == condition.type) {
      c = condition;
      replaced = true;
    }
  }
  if (!replaced) updated.status.conditions.push_back(condition);
  if (nominated_node) updated.status.nominated_node_name = api::Symbol(*nominated_node);
  return ReplacePod(it, std::move(updated));
}

Status MemoryCluster::NominatePod(const api::Pod& pod, api::Symbol node) {
  auto it = FindPod(pod.metadata.Key());
  if (it == MutableObjects<api::Pod>().end()) return NotFound("pods", pod.metadata.Key());
  api::Pod updated = *it->second;
  updated.status.nominated_node_name = node;
  return ReplacePod(it, std::move(updated));
}

Status MemoryCluster::DeletePod(const api::Pod& pod) {
  auto it = FindPod(pod.metadata.Key());
  if (it == MutableObjects<api::Pod>().end()) return NotFound("pods", pod.metadata.Key());
  // A preemption victim gets the DisruptionTarget condition (naming the victim's scheduler: the
  // call does not say which one preempts), then is deleted. Its grace period passes at once
  // here: the kubelet stops it and it ends Failed with that condition, which a Job's pod
  // failure policy reads, before it is removed.
  api::Pod victim = *it->second;
  api::SetCondition(victim.status.conditions,
                    PreemptionCondition(victim.spec.scheduler_name.str(), clock_.Now()));
  if (!victim.IsTerminal()) victim.status.phase = api::PodPhase::kFailed;
  ReplacePod(it, std::move(victim));
  return Delete<api::Pod>(pod.metadata.Key());
}

Status MemoryCluster::UpdatePodGroupStatus(const api::PodGroup& group,
                                           const api::PodGroup::Status& status) {
  const api::PodGroup* stored = Get<api::PodGroup>(group.metadata.Key());
  if (stored == nullptr) return NotFound("podgroups", group.metadata.Key());
  api::PodGroup updated = *stored;
  updated.status = status;
  return Update(std::move(updated));
}

Status MemoryCluster::UpdateGroupCondition(const framework::ObjectReference& object,
                                           const std::vector<api::Condition>& /*current*/,
                                           const api::Condition& condition) {
  // The stored object's conditions, not the caller's copy: the rest of its status is the
  // controller's, and may be newer.
  Status status =
      Status::Error(fmt::format("{} {}: a kind without conditions", object.kind, object.Key()));
  api::ForEachClusterKind([&]<typename T>(std::type_identity<T>) {
    const api::Kind<T>& kind = api::KindOf<T>();
    // By name and apiVersion: two kinds are called PodGroup.
    if (kind.name != object.kind || kind.conditions == nullptr ||
        std::find(kind.api_versions.begin(), kind.api_versions.end(), object.api_version) ==
            kind.api_versions.end()) {
      return;
    }
    const T* stored = Get<T>(object.Key());
    if (stored == nullptr) {
      status = NotFound(kind.resource, object.Key());
      return;
    }
    T updated = *stored;
    api::SetCondition(*kind.conditions(updated), condition);
    status = Update(std::move(updated));
  });
  return status;
}

Status MemoryCluster::BindVolume(const api::PersistentVolume& pv) {
  const api::PersistentVolume* stored = Get<api::PersistentVolume>(pv.metadata.name);
  if (stored == nullptr) return NotFound("persistentvolumes", pv.metadata.name);
  if (stored->metadata.resource_version != pv.metadata.resource_version) {
    return Conflict("persistentvolumes", pv.metadata.name);
  }
  api::PersistentVolume updated = *stored;
  updated.spec.claim_ref = pv.spec.claim_ref;
  const std::string bound_by(api::kBoundByControllerAnnotation);
  if (auto it = pv.metadata.annotations.find(bound_by); it != pv.metadata.annotations.end()) {
    updated.metadata.annotations[bound_by] = it->second;
  }
  return Update(std::move(updated));
}

Status MemoryCluster::SelectNode(const api::PersistentVolumeClaim& pvc, api::Symbol node) {
  const std::string key = pvc.metadata.Key();
  const api::PersistentVolumeClaim* stored = Get<api::PersistentVolumeClaim>(key);
  if (stored == nullptr) return NotFound("persistentvolumeclaims", key);
  if (stored->metadata.resource_version != pvc.metadata.resource_version) {
    return Conflict("persistentvolumeclaims", key);
  }
  api::PersistentVolumeClaim updated = *stored;
  updated.metadata.annotations[std::string(api::kSelectedNodeAnnotation)] = node.string();
  return Update(std::move(updated));
}

Status MemoryCluster::UpdateClaimStatus(const api::ResourceClaim& claim) {
  const std::string key = claim.metadata.Key();
  const api::ResourceClaim* stored = Get<api::ResourceClaim>(key);
  if (stored == nullptr) return NotFound("resourceclaims", key);
  if (stored->metadata.resource_version != claim.metadata.resource_version) {
    return Conflict("resourceclaims", key);
  }
  api::ResourceClaim updated = *stored;
  updated.metadata.finalizers = claim.metadata.finalizers;
  updated.status = claim.status;
  return Update(std::move(updated));
}

framework::Status MemoryCluster::CreateClaim(const api::ResourceClaim& claim,
                                             api::ResourceClaim* created) {
  api::ResourceClaim stored = claim;
  const std::string ns = claim.metadata.namespace_.string();
  do {
    stored.metadata.name = api::GenerateName(claim.metadata.generate_name, names_);
  } while (Get<api::ResourceClaim>(fmt::format("{}/{}", ns, stored.metadata.name)) != nullptr);
  stored.metadata.uid.clear();
  stored.status = {};
  const std::string key = stored.metadata.Key();
  if (Status s = Create(std::move(stored)); !s.IsSuccess()) return s;
  *created = *Get<api::ResourceClaim>(key);
  return Status::OK();
}

framework::Status MemoryCluster::DeleteClaim(const api::ResourceClaim& claim) {
  const std::string key = claim.metadata.Key();
  const api::ResourceClaim* stored = Get<api::ResourceClaim>(key);
  if (stored == nullptr) return NotFound("resourceclaims", key);
  if (!claim.metadata.uid.empty() && stored->metadata.uid != claim.metadata.uid) {
    return Conflict("resourceclaims", key);
  }
  return Delete<api::ResourceClaim>(key);
}

framework::Status MemoryCluster::SetExtendedResourceClaimStatus(
    const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) {
  auto it = FindPod(pod.metadata.Key());
  if (it == MutableObjects<api::Pod>().end()) return NotFound("pods", pod.metadata.Key());
  api::Pod updated = *it->second;
  updated.status.extended_resource_claim =
      std::make_shared<const api::PodExtendedResourceClaimStatus>(status);
  return ReplacePod(it, std::move(updated));
}

namespace {

// Events are aggregated by these fields, as Kubernetes' event correlator does (not by action).
bool SameAggregate(const framework::EventRecord& a, const framework::EventRecord& b) {
  return a.regarding.kind == b.regarding.kind && a.regarding.namespace_ == b.regarding.namespace_ &&
         a.regarding.name == b.regarding.name && a.type == b.type && a.reason == b.reason &&
         a.message == b.message;
}

uint64_t AggregateHash(const framework::EventRecord& e) {
  uint64_t h = 0;
  for (const std::string* field : {&e.regarding.kind, &e.regarding.namespace_, &e.regarding.name,
                                   &e.type, &e.reason, &e.message}) {
    h = (h ^ std::hash<std::string>{}(*field)) * 0x9E3779B97F4A7C15ULL;
  }
  return h;
}

}  // namespace

void MemoryCluster::RecordEvent(framework::EventRecord event) {
  if (!keep_events_) return;
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
