#include "muster/scheduler/object_store.h"

namespace muster::scheduler {

void ObjectStore::IndexLabels(const Stored& stored, bool add) {
  const api::ObjectMeta& meta = stored.info->pod.metadata;
  for (const auto& [k, v] : meta.labels) {
    auto index = std::make_tuple(meta.namespace_.id(), k.id(), v.id());
    if (add) {
      label_index_[index].insert(&stored);
    } else if (auto it = label_index_.find(index); it != label_index_.end()) {
      it->second.erase(&stored);
      if (it->second.empty()) label_index_.erase(it);
    }
  }
}

void ObjectStore::IndexGang(const Stored& stored, bool add) {
  const api::GangRef& gang = stored.info->gang;
  if (gang.empty()) return;
  auto index =
      std::make_tuple(stored.info->pod.metadata.namespace_.id(), gang.kind, gang.name.id());
  if (add) {
    gang_index_[index].insert(&stored);
  } else if (auto it = gang_index_.find(index); it != gang_index_.end()) {
    it->second.erase(&stored);
    if (it->second.empty()) gang_index_.erase(it);
  }
}

const framework::PodInfoPtr& ObjectStore::StorePod(const api::PodPtr& object) {
  framework::PodInfoPtr info = framework::PodInfo::Make(object);
  const api::Pod& pod = *object;
  const api::HashedPodName name = api::HashedPodName::Of(pod);
  auto it = pods_.find(name);
  if (it == pods_.end()) {
    it = pods_.insert(Stored(std::move(info), name)).first;
    if (!unstored_attempts_.empty()) {
      if (auto u = unstored_attempts_.find(pod.metadata.Key()); u != unstored_attempts_.end()) {
        it->attempts = u->second;
        unstored_attempts_.erase(u);
      }
    }
    IndexLabels(*it, true);
    IndexGang(*it, true);
  } else if (it->info->pod.metadata.labels == pod.metadata.labels && it->info->gang == info->gang) {
    it->info = std::move(info);  // same labels and gang, same slot: the indexes stand
  } else {
    IndexLabels(*it, false);
    IndexGang(*it, false);
    it->info = std::move(info);
    IndexLabels(*it, true);
    IndexGang(*it, true);
  }
  return it->info;
}

void ObjectStore::ForgetPod(const api::Pod& pod) {
  auto it = pods_.find(api::HashedPodName::Of(pod));
  if (it == pods_.end()) return;
  IndexLabels(*it, false);
  IndexGang(*it, false);
  if (it->attempts != 0) unstored_attempts_[pod.metadata.Key()] = it->attempts;
  pods_.erase(it);
}

void ObjectStore::CountAttempt(api::PodName name) {
  auto it = pods_.find(api::HashedPodName(name));
  if (it != pods_.end()) {
    ++it->attempts;
  } else {
    ++unstored_attempts_[name.Key()];
  }
}

int ObjectStore::Attempts(api::PodName name) const {
  if (auto it = pods_.find(api::HashedPodName(name)); it != pods_.end()) return it->attempts;
  if (unstored_attempts_.empty()) return 0;
  auto it = unstored_attempts_.find(name.Key());
  return it == unstored_attempts_.end() ? 0 : it->second;
}

std::vector<const api::Pod*> ObjectStore::PodsWithLabel(api::Symbol ns, api::Symbol key,
                                                        api::Symbol value) const {
  std::vector<const api::Pod*> out;
  auto it = label_index_.find(std::make_tuple(ns.id(), key.id(), value.id()));
  if (it == label_index_.end()) return out;
  out.reserve(it->second.size());
  for (const Stored* stored : it->second) out.push_back(&stored->info->pod);
  return out;
}

std::vector<const api::Pod*> ObjectStore::PodsInGang(api::Symbol ns,
                                                     const api::GangRef& gang) const {
  std::vector<const api::Pod*> out;
  auto it = gang_index_.find(std::make_tuple(ns.id(), gang.kind, gang.name.id()));
  if (it == gang_index_.end()) return out;
  out.reserve(it->second.size());
  for (const Stored* stored : it->second) out.push_back(&stored->info->pod);
  return out;
}

const framework::PodInfoPtr* ObjectStore::FindPod(api::PodName name) const {
  auto it = pods_.find(api::HashedPodName(name));
  return it == pods_.end() ? nullptr : &it->info;
}

}  // namespace muster::scheduler
