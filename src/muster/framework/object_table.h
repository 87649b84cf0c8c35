#pragma once

// The objects of the kinds a cluster delivers, as the scheduler's informers last heard of them
// (upstream's listers), one table per kind: looked up by namespace and name, listed in
// namespace/name order. Pods and nodes are not kept here: the scheduler keeps them as PodInfos
// and NodeInfos (ObjectLister::PodsWithLabel, the snapshot).

#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "muster/api/intern.h"
#include "muster/api/kinds.h"

namespace muster::framework {

template <typename T>
class ObjectTable {
 public:
  // The object named `name` in namespace `ns` (empty for a cluster-scoped kind), or nullptr.
  const T* Get(api::Symbol ns, api::Symbol name) const {
    auto it = by_id_.find(api::PairId(ns, name));
    return it == by_id_.end() ? nullptr : it->second.get();
  }
  // The objects in namespace `ns`, by name.
  std::vector<const T*> List(api::Symbol ns) const {
    std::vector<const T*> out;
    const std::string prefix = ns.empty() ? std::string() : ns.string() + "/";
    for (auto it = by_key_.lower_bound(prefix); it != by_key_.end(); ++it) {
      if (it->first.compare(0, prefix.size(), prefix) != 0) break;
      if (it->second->metadata.namespace_ == ns) out.push_back(it->second);
    }
    return out;
  }
  // Every object, by namespace/name.
  std::vector<const T*> List() const {
    std::vector<const T*> out;
    out.reserve(by_key_.size());
    for (const auto& [key, object] : by_key_) out.push_back(object);
    return out;
  }
  size_t size() const { return by_id_.size(); }
  // A number that changes whenever the table does (Set, Erase): what a plugin keys an index it
  // derives from the table on.
  uint64_t version() const { return version_; }

  // Stores `object` in place of the one with its namespace and name, if any.
  void Set(api::Shared<T> object) {
    const T* raw = object.get();
    by_key_[raw->metadata.Key()] = raw;
    by_id_[Id(raw->metadata)] = std::move(object);
    ++version_;
  }
  void Erase(const api::ObjectMeta& meta) {
    by_key_.erase(meta.Key());
    by_id_.erase(Id(meta));
    ++version_;
  }

 private:
  static uint64_t Id(const api::ObjectMeta& meta) {
    return api::PairId(meta.namespace_, api::Symbol(meta.name));
  }

  // By PairId(namespace, name): a PodGroup is looked up on every queue comparison.
  std::unordered_map<uint64_t, api::Shared<T>> by_id_;
  std::map<std::string, const T*> by_key_;  // the same objects by namespace/name
  uint64_t version_ = 0;
};

namespace internal {
template <typename List>
struct TablesOf;
template <typename... T>
struct TablesOf<api::KindList<T...>> {
  template <typename U>
  using TableIfListed =
      std::conditional_t<std::is_same_v<U, api::Pod> || std::is_same_v<U, api::Node>, std::tuple<>,
                         std::tuple<ObjectTable<U>>>;
  using type = decltype(std::tuple_cat(std::declval<TableIfListed<T>>()...));
};
}  // namespace internal

// A table for each kind of api::ClusterKinds but Pod and Node.
class ObjectTables {
 public:
  template <typename T>
  ObjectTable<T>& Of() {
    return std::get<ObjectTable<T>>(tables_);
  }
  template <typename T>
  const ObjectTable<T>& Of() const {
    return std::get<ObjectTable<T>>(tables_);
  }
  // Whether the scheduler keeps T here (every cluster kind but Pod and Node).
  template <typename T>
  static constexpr bool kListed =
      api::kIsClusterKind<T> && !std::is_same_v<T, api::Pod> && !std::is_same_v<T, api::Node>;

 private:
  internal::TablesOf<api::ClusterKinds>::type tables_;
};

}  // namespace muster::framework
