#include "muster/scheduler/object_store.h"

namespace muster::scheduler {

void ObjectStore::IndexLabels(const framework::PodInfoPtr& stored, bool add) {
  const api::ObjectMeta& meta = stored->pod.metadata;
  const std::string key = meta.Key();
  for (const auto& [k, v] : meta.labels) {
    auto index = std::make_tuple(meta.namespace_.id(), k.id(), v.id());
    if (add) {
      label_index_[index].emplace(key, &stored);
    } else if (auto it = label_index_.find(index); it != label_index_.end()) {
      it->second.erase(key);
      if (it->second.empty()) label_index_.erase(it);
    }
  }
}

void ObjectStore::IndexGang(const framework::PodInfoPtr& stored, bool add) {
  const api::GangRef& gang = stored->gang;
  if (gang.empty()) return;
  const api::ObjectMeta& meta = stored->pod.metadata;
  auto index = std::make_tuple(meta.namespace_.id(), gang.kind, gang.name.id());
  if (add) {
    gang_index_[index].emplace(meta.Key(), &stored);
  } else if (auto it = gang_index_.find(index); it != gang_index_.end()) {
    it->second.erase(meta.Key());
    if (it->second.empty()) gang_index_.erase(it);
  }
}

const framework::PodInfoPtr& ObjectStore::StorePod(const api::PodPtr& object) {
  framework::PodInfoPtr info = framework::PodInfo::Make(object);
  const api::Pod& pod = *object;
  const std::string key = pod.metadata.Key();
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    it = pods_.emplace(key, Stored{std::move(info)}).first;
    if (auto u = unstored_attempts_.find(key); u != unstored_attempts_.end()) {
      it->second.attempts = u->second;
      unstored_attempts_.erase(u);
    }
    IndexLabels(it->second.info, true);
    IndexGang(it->second.info, true);
  } else if (it->second.info->pod.metadata.labels == pod.metadata.labels &&
             it->second.info->gang == info->gang) {
    it->second.info = std::move(info);  // same labels and gang, same slot: the indexes stand
  } else {
    IndexLabels(it->second.info, false);
    IndexGang(it->second.info, false);
    it->second.info = std::move(info);
    IndexLabels(it->second.info, true);
    IndexGang(it->second.info, true);
  }
  return it->second.info;
}

void ObjectStore::ForgetPod(const api::Pod& pod) {
  auto it = pods_.find(pod.metadata.Key());
  if (it == pods_.end()) return;
  IndexLabels(it->second.info, false);
  IndexGang(it->second.info, false);
  if (it->second.attempts != 0) unstored_attempts_[it->first] = it->second.attempts;
  pods_.erase(it);
}

void ObjectStore::CountAttempt(const std::string& key) {
  auto it = pods_.find(key);
  if (it != pods_.end()) {
    ++it->second.attempts;
  } else {
    ++unstored_attempts_[key];
  }
}

int ObjectStore::Attempts(const std::string& key) const {
  if (auto it = pods_.find(key); it != pods_.end()) return it->second.attempts;
  auto it = unstored_attempts_.find(key);
  return it == unstored_attempts_.end() ? 0 : it->second;
}

std::vector<const api::Pod*> ObjectStore::PodsWithLabel(api::Symbol ns, api::Symbol key,
                                                      api::Symbol value) const {
  std::vector<const api::Pod*> out;
  auto it = label_index_.find(std::make_tuple(ns.id(), key.id(), value.id()));
  if (it == label_index_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [name, stored] : it->second) out.push_back(&(*stored)->pod);
  return out;
}

std::vector<const api::Pod*> ObjectStore::PodsInGang(api::Symbol ns,
                                                     const api::GangRef& gang) const {
  std::vector<const api::Pod*> out;
  auto it = gang_index_.find(std::make_tuple(ns.id(), gang.kind, gang.name.id()));
  if (it == gang_index_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [name, stored] : it->second) out.push_back(&(*stored)->pod);
  return out;
}

const framework::PodInfoPtr* ObjectStore::FindPod(const std::string& key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : &it->second.info;
}

}  // namespace muster::scheduler
