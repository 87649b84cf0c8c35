#pragma once

// An in-memory API server: object stores, uids and resource versions, the pod binding
// subresource, and watchers. Changes are delivered to observers through the clock (as timers due
// now), like an informer's watch: never from inside the call that made them, so a scheduler
// writing to the cluster is not re-entered.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "muster/cluster/cluster.h"
#include "muster/framework/clock.h"

namespace muster::cluster {

// An Event as the cluster stored it, with the time it was recorded.
struct StoredEvent {
  api::Time time;       // first occurrence
  api::Time last_time;  // latest occurrence
  int32_t count = 1;    // occurrences, aggregated as Kubernetes' event correlator does
  framework::EventRecord record;
};

// The key of an object in the cluster's tables, hashed for lookups by a view.
struct KeyHash {
  using is_transparent = void;
  // Not noexcept: std::unordered_map then keeps each key's hash in its node, and a lookup walks
  // a bucket without reading the keys of the nodes it passes.
  size_t operator()(std::string_view key) const { return std::hash<std::string_view>{}(key); }
};

// The cluster's pods by key, hashed: creating one of a million pods costs a lookup, where an
// ordered tree compares keys down twenty levels (two cache misses a level). PodsInOrder gives
// the key order the reports read.
using PodMap = std::unordered_map<std::string, api::PodPtr, KeyHash, std::equal_to<>>;

// The pods of a PodMap in key order, as a std::map would walk them. The order is sorted when
// first read; after that, the pods created since are sorted and merged in when it is read again,
// and a deletion has it sorted afresh. The reports read it at the end of a run, the invariant
// checker (--check) once a turn; a bench never. Nothing that walks it changes the cluster's pods
// on the way.
class PodsInOrder {
 public:
  using value_type = PodMap::value_type;
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = PodMap::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;

    const_iterator() = default;
    explicit const_iterator(std::vector<const value_type*>::const_iterator it) : it_(it) {}
    reference operator*() const { return **it_; }
    pointer operator->() const { return *it_; }
    const_iterator& operator++() {
      ++it_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++it_;
      return old;
    }
    friend bool operator==(const const_iterator&, const const_iterator&) = default;

   private:
    std::vector<const value_type*>::const_iterator it_;
  };

  explicit PodsInOrder(const PodMap& pods) : pods_(pods) {}
  PodsInOrder(const PodsInOrder&) = delete;
  PodsInOrder& operator=(const PodsInOrder&) = delete;

  const_iterator begin() const {
    Sort();
    return const_iterator(sorted_.begin());
  }
  const_iterator end() const {
    Sort();
    return const_iterator(sorted_.end());
  }
  size_t size() const { return pods_.size(); }
  bool empty() const { return pods_.empty(); }

 private:
  friend class MemoryCluster;

  // Told of every pod created and deleted (not of replacements: they keep their key).
  void Created(const value_type& entry) {
    if (sorted_once_) created_.push_back(&entry);
  }
  void Deleted() { stale_ = true; }
  void Sort() const;

  const PodMap& pods_;
  mutable std::vector<const value_type*> sorted_;
  mutable std::vector<const value_type*> created_;  // since the last sort, once sorted
  mutable bool sorted_once_ = false;
  mutable bool stale_ = false;  // a pod deleted since the last sort
};

class MemoryCluster final : public Cluster {
 public:
  explicit MemoryCluster(framework::Clock& clock) : clock_(clock) {}

  void AddObserver(ClusterObserver* observer) override { observers_.push_back(observer); }

  // Objects of a kind, by key (namespace/name, or name for a cluster-scoped kind). Each is
  // immutable once stored: a change stores a new one, and the observers are told with the
  // stored objects themselves.
  // (Pods: PodMap, hashed; pods() walks them in key order.)
  template <typename T>
  using ObjectMap = std::conditional_t<std::is_same_v<T, api::Pod>, PodMap,
                                       std::map<std::string, api::Shared<T>>>;

  // ---- writes by users and controllers, for any kind of api::ClusterKinds ----
  // Create fills uid and creationTimestamp when unset, and fails (returns an error status) when
  // the object exists; Update and Delete fail when it does not. Each sets the resourceVersion.
  template <typename T>
  framework::Status Create(T object);
  template <typename T>
  framework::Status Update(T object);
  template <typename T>
  framework::Status Delete(const std::string& key);

  // ---- reads ----
  template <typename T>
  const T* Get(const std::string& key) const {
    const ObjectMap<T>& objects = Objects<T>();
    auto it = objects.find(key);
    return it == objects.end() ? nullptr : it->second.get();
  }
  // Ordered by key, for the report; but for pods, which pods() orders.
  template <typename T>
  const ObjectMap<T>& Objects() const {
    return std::get<ObjectMap<T>>(objects_);
  }
  const PodsInOrder& pods() const { return pods_in_order_; }
  const std::vector<StoredEvent>& events() const { return events_; }
  // Whether Events are kept (the default): a simulation reports them. `muster bench` keeps
  // none: nothing reads them there, and they are an API server's store, not the scheduler's
  // memory (kube-scheduler sends its Events away; its benchmark does not count them).
  void KeepEvents(bool keep) { keep_events_ = keep; }
  // Seeds the random suffixes of the names the API server would generate for the scheduler's
  // writes (CreateClaim): a simulation's seed, so that its names repeat.
  void SeedNames(uint64_t seed) { names_.seed(seed); }
  // Increases with every object change (not with Events).
  uint64_t revision() const { return revision_; }
  // When an object last changed (created, written, deleted; not an Event repeated): the time
  // the cluster a simulation reports is as of.
  api::Time last_change() const { return last_change_; }

  // ---- framework::ClusterClient (the scheduler's writes) ----
  framework::Status Bind(const api::Pod& pod, api::Symbol node) override;
  // No extender can reach this cluster: the binding its write would have made.
  framework::Status ExtenderBound(const api::Pod& pod, api::Symbol node) override {
    return Bind(pod, node);
  }
  framework::Status UpdatePodCondition(const api::Pod& pod, const api::Condition& condition,
                                       const std::optional<std::string>& nominated_node) override;
  framework::Status NominatePod(const api::Pod& pod, api::Symbol node) override;
  framework::Status DeletePod(const api::Pod& pod) override;
  framework::Status UpdatePodGroupStatus(const api::PodGroup& group,
                                         const api::PodGroup::Status& status) override;
  framework::Status BindVolume(const api::PersistentVolume& pv) override;
  framework::Status SelectNode(const api::PersistentVolumeClaim& pvc, api::Symbol node) override;
  framework::Status UpdateClaimStatus(const api::ResourceClaim& claim) override;
  framework::Status CreateClaim(const api::ResourceClaim& claim,
                                api::ResourceClaim* created) override;
  framework::Status DeleteClaim(const api::ResourceClaim& claim) override;
  framework::Status SetExtendedResourceClaimStatus(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) override;
  framework::Status UpdateGroupCondition(const framework::ObjectReference& object,
                                         const std::vector<api::Condition>& current,
                                         const api::Condition& condition) override;
  void RecordEvent(framework::EventRecord event) override;
  bool RecordsEvents() const override { return keep_events_; }

 private:
  template <typename T>
  ObjectMap<T>& MutableObjects() {
    return std::get<ObjectMap<T>>(objects_);
  }
  void Stamp(api::ObjectMeta& meta);
  void Notify(std::function<void(ClusterObserver&)> fn);
  template <typename T>
  typename ObjectMap<T>::iterator Find(const std::string& key);
  // The pod by key: every bind looks its pod up.
  PodMap::iterator FindPod(std::string_view key) { return MutableObjects<api::Pod>().find(key); }
  // Stores `pod` in place of *it with the next resource version, and tells the observers.
  framework::Status ReplacePod(PodMap::iterator it, api::Pod pod);

  template <typename List>
  struct MapsOf;
  template <typename... T>
  struct MapsOf<api::KindList<T...>> {
    using type = std::tuple<ObjectMap<T>...>;
  };

  framework::Clock& clock_;
  std::vector<ClusterObserver*> observers_;
  MapsOf<api::ClusterKinds>::type objects_;
  PodsInOrder pods_in_order_{Objects<api::Pod>()};
  std::unordered_set<api::Symbol> node_names_;  // the nodes' keys, for the check of every bind
  std::vector<StoredEvent> events_;
  bool keep_events_ = true;
  std::mt19937_64 names_{0};
  // A hash of (object, type, reason, message) -> the indices in events_ of the events with it,
  // for aggregation.
  std::unordered_multimap<uint64_t, size_t> event_index_;
  // Every object change: the next revision, stamped with the time.
  uint64_t NextRevision() {
    last_change_ = clock_.Now();
    return ++revision_;
  }
  uint64_t revision_ = 0;
  api::Time last_change_{};
  uint64_t next_uid_ = 1;
};

}  // namespace muster::cluster
