#pragma once

// Matching pods per topology domain over every node of the snapshot, kept between scheduling
// cycles. Upstream's PreFilter and PreScore count every node every cycle; between two cycles
// only the nodes the snapshot changed (usually the one the last pod went to) can count
// differently, so only those are counted again.

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "muster/api/intern.h"
#include "muster/api/types.h"
#include "muster/framework/node_info.h"
#include "muster/framework/snapshot.h"
#include "muster/plugins/podtopologyspread/common.h"

namespace muster::plugins::podtopologyspread {

// What one node adds to each constraint's domain counts.
struct NodeCount {
  bool counted = false;  // the constraint counts this node
  api::Symbol value;     // its domain ("" is a domain too)
  int64_t pods = 0;      // matching pods on it
};

// The node's counts for `constraints` (count keys set) of `pod`, into out[0..constraints.size()).
// A node counts for no constraint when it lacks any constraint's topology key and
// `require_all_keys`; otherwise a missing key reads as the "" domain. A constraint counts it when
// its node inclusion policies do.
void CountNode(const framework::NodeInfo& info, std::span<const Constraint> constraints,
               const api::Pod& pod, bool require_all_keys, NodeCount* out);

class KeptDomainCounts {
 public:
  struct Domain {
    int64_t pods = 0;   // matching pods on its counted nodes
    int32_t nodes = 0;  // counted nodes; a domain without any has no entry
  };
  using Domains = std::unordered_map<api::Symbol, Domain>;

  // Per constraint, CountNode summed over the snapshot's nodes by domain, brought up to date
  // with the snapshot. nullptr when counts for `pod` cannot be kept: a constraint honours the
  // pod's required node affinity (and the pod has some) or node taints, which makes what counts
  // depend on more than the constraints.
  const std::vector<Domains>* Get(const framework::Snapshot& snapshot, const api::Pod& pod,
                                  std::span<const Constraint> constraints, bool require_all_keys);

 private:
  struct Entry {
    std::string key;
    uint64_t snapshot_id = 0;
    uint64_t synced = 0;  // the snapshot's change_count() counted up to
    uint64_t last_used = 0;
    std::vector<Domains> domains;
    // What each counted node added: constraints.size() entries per node.
    std::unordered_map<api::Symbol, std::vector<NodeCount>> by_node;
  };
  // Most pods of a workload share their constraints: a few sets are kept, the least recently
  // used one replaced.
  static constexpr size_t kMaxEntries = 8;

  void Recount(Entry& entry, api::Symbol node, const framework::Snapshot& snapshot,
               const api::Pod& pod, std::span<const Constraint> constraints, bool require_all_keys);

  std::vector<Entry> entries_;
  uint64_t uses_ = 0;
  std::vector<api::Symbol> changed_;  // scratch
};

}  // namespace muster::plugins::podtopologyspread
