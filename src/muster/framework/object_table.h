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
#include <utility>
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
  // A number that one Set or Erase adds one to: what a plugin keys an index it derives from the
  // table on.
  uint64_t version() const { return version_; }

  // The table's changes, for an index kept up to date by them (one look at each change rather
  // than at every object each time the table changes). Kept only once some reader has asked,
  // and at least the last kKeptChanges of them: a reader further behind rebuilds from List().
  static constexpr size_t kKeptChanges = 1024;
  // From now on, keep the changes.
  void KeepChanges() const { keep_changes_ = true; }
  // Calls `f(before, after)` (either may be null: added, deleted) for each change made after
  // `version`, oldest first, and returns true; or calls nothing and returns false when they
  // were not all kept.
  template <typename F>
  bool ChangesSince(uint64_t version, F&& f) const {
    if (version > version_) return false;
    const uint64_t count = version_ - version;
    if (count > changes_.size()) return false;
    for (size_t i = changes_.size() - count; i < changes_.size(); ++i) {
      f(changes_[i].before.get(), changes_[i].after.get());
    }
    return true;
  }

  // Stores `object` in place of the one with its namespace and name, if any.
  void Set(api::Shared<T> object) {
    const T* raw = object.get();
    by_key_[raw->metadata.Key()] = raw;
    api::Shared<T>& slot = by_id_[Id(raw->metadata)];
    api::Shared<T> before = std::exchange(slot, std::move(object));
    Changed(std::move(before), slot);
  }
  void Erase(const api::ObjectMeta& meta) {
    by_key_.erase(meta.Key());
    api::Shared<T> before;
    if (auto it = by_id_.find(Id(meta)); it != by_id_.end()) {
      before = std::move(it->second);
      by_id_.erase(it);
    }
    Changed(std::move(before), nullptr);
  }

 private:
  static uint64_t Id(const api::ObjectMeta& meta) {
    return api::PairId(meta.namespace_, api::Symbol(meta.name));
  }
  void Changed(api::Shared<T> before, api::Shared<T> after) {
    ++version_;
    if (!keep_changes_) return;
    if (changes_.size() == 2 * kKeptChanges) {
      changes_.erase(changes_.begin(), changes_.begin() + kKeptChanges);
    }
    changes_.push_back(Change{std::move(before), std::move(after)});
  }

  struct Change {
    api::Shared<T> before;
    api::Shared<T> after;
  };

  // By PairId(namespace, name): a PodGroup is looked up on every queue comparison.
  std::unordered_map<uint64_t, api::Shared<T>> by_id_;
  std::map<std::string, const T*> by_key_;  // the same objects by namespace/name
  uint64_t version_ = 0;
  mutable bool keep_changes_ = false;
  std::vector<Change> changes_;  // the last changes, the newest last (see KeepChanges)
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
