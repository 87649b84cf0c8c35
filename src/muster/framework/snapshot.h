#pragma once

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

 private:
  friend class SnapshotBuilder;

  std::unordered_map<api::Symbol, std::unique_ptr<NodeInfo>> infos_;
  std::vector<NodeInfo*> list_;
  std::vector<NodeInfo*> have_pods_with_affinity_;
  std::vector<NodeInfo*> have_pods_with_required_anti_affinity_;
  uint64_t generation_ = 0;
};

// The cache's write access to a Snapshot.
class SnapshotBuilder {
 public:
  explicit SnapshotBuilder(Snapshot& s) : s_(s) {}
  // Replaces (or inserts) the copy of `info`.
  void Put(const NodeInfo& info) {
    auto& slot = s_.infos_[info.name()];
    if (slot) {
      *slot = info;
    } else {
      slot = std::make_unique<NodeInfo>(info);
    }
  }
  void Erase(api::Symbol name) { s_.infos_.erase(name); }
  // Rebuilds the ordered lists from `order` (names of the nodes present, in order).
  void SetOrder(const std::vector<api::Symbol>& order);
  // Rebuilds only the affinity lists (pods moved, node set unchanged).
  void RefreshAffinityLists();
  void set_generation(uint64_t g) { s_.generation_ = g; }

 private:
  Snapshot& s_;
};

}  // namespace muster::framework
