#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "muster/api/intern.h"
#include "muster/framework/node_info.h"

namespace muster::framework {

// A consistent view of the cluster for one scheduling cycle (upstream cache.Snapshot): node infos
// in the cache's node order, looked up by name. Plugins read it; only the cache writes it.
class Snapshot {
 public:
  Snapshot() : id_(next_id_.fetch_add(1, std::memory_order_relaxed)) {}
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // Node infos in scheduling order (zones interleaved, as upstream's node tree).
  const std::vector<NodeInfo*>& List() const { return list_; }
  const std::vector<NodeInfo*>& HavePodsWithAffinity() const { return have_pods_with_affinity_; }
  const std::vector<NodeInfo*>& HavePodsWithRequiredAntiAffinity() const {
    return have_pods_with_required_anti_affinity_;
  }
  // nullptr when no such node.
  NodeInfo* Get(api::Symbol name) const;
  size_t NumNodes() const { return list_.size(); }
  uint64_t generation() const { return generation_; }

  // Tells this snapshot from any other, alive or gone, for plugins that keep results across
  // cycles.
  uint64_t id() const { return id_; }
  // Node changes (a node added, replaced or removed) so far; increases with every one.
  uint64_t change_count() const { return change_base_ + changes_.size(); }
  // The names of the nodes changed since change_count() was `since` (with repeats), into
  // *names; false when the snapshot no longer remembers back that far.
  bool ChangedSince(uint64_t since, std::vector<api::Symbol>* names) const;
  // The lowest priority of any pod on any node (the largest int32 when there are no pods):
  // below it, no node has a pod that a pod of some priority could preempt.
  int32_t MinPodPriority() const {
    return nodes_by_min_priority_.empty() ? std::numeric_limits<int32_t>::max()
                                          : nodes_by_min_priority_.begin()->first;
  }
  // How many nodes have a PreferNoSchedule taint: with none, no node's score is lowered by one.
  int32_t NumNodesPreferringNoSchedule() const { return nodes_preferring_no_schedule_; }

 private:
  friend class SnapshotBuilder;

  std::unordered_map<api::Symbol, std::unique_ptr<NodeInfo>> infos_;
  std::vector<NodeInfo*> list_;
  std::vector<NodeInfo*> have_pods_with_affinity_;
  std::vector<NodeInfo*> have_pods_with_required_anti_affinity_;
  uint64_t generation_ = 0;

  static inline std::atomic<uint64_t> next_id_{1};
  const uint64_t id_;
  // The latest node changes: changes_[k] is change number change_base_ + k.
  std::vector<api::Symbol> changes_;
  uint64_t change_base_ = 0;
  void RecordChange(api::Symbol name);
  // How many nodes have each min_pod_priority().
  std::map<int32_t, int32_t> nodes_by_min_priority_;
  int32_t nodes_preferring_no_schedule_ = 0;
  // Counts `info` in (delta +1) or out of (-1) the counts above.
  void Count(const NodeInfo& info, int32_t delta);
};

// The cache's write access to a Snapshot.
class SnapshotBuilder {
 public:
  explicit SnapshotBuilder(Snapshot& s) : s_(s) {}
  // Replaces (or inserts) the copy of `info`.
  void Put(const NodeInfo& info);
  void Erase(api::Symbol name);
  // Rebuilds the ordered lists from `order` (names of the nodes present, in order).
  void SetOrder(const std::vector<api::Symbol>& order);
  // Rebuilds only the affinity lists (pods moved, node set unchanged).
  void RefreshAffinityLists();
  void set_generation(uint64_t g) { s_.generation_ = g; }

 private:
  Snapshot& s_;
};

}  // namespace muster::framework
