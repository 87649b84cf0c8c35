#pragma once

// TopologyMap: (topology key, value) -> count, upstream's topologyToMatchedTermCount and scoreMap.
// Filter and Score look it up once or twice per node, concurrently: a flat open-addressing table
// keyed by the two interned ids packed into one integer keeps a lookup to a multiply, a shift and
// a probe or two, without allocating.

#include <cstdint>
#include <utility>
#include <vector>

#include "muster/api/intern.h"
#include "muster/api/labels.h"

namespace muster::plugins::interpodaffinity {

class TopologyMap {
 public:
  static uint64_t Pack(api::Symbol key, api::Symbol value) {
    return (uint64_t{key.id()} << 32) | value.id();
  }

  // 0 when absent.
  int64_t Get(uint64_t packed) const;
  int64_t Get(api::Symbol key, api::Symbol value) const { return Get(Pack(key, value)); }
  // Adds `delta` to the entry; when `erase_zero`, an entry brought to 0 is removed, as upstream's
  // update deletes it (its emptiness is what Filter checks). Scores keep zero entries.
  void Add(api::Symbol key, api::Symbol value, int64_t delta, bool erase_zero);
  // Adds `delta` under (key, the node's value for key) when the node has the key (upstream
  // topologyToMatchedTermCount.update).
  void AddForNode(const api::LabelSet& node_labels, api::Symbol key, int64_t delta,
                  bool erase_zero);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Every topology key an entry was ever added under, in first-seen order. Entries removed since
  // keep their key here; they read as 0.
  const std::vector<api::Symbol>& topology_keys() const { return topology_keys_; }
  // The entries sorted by packed key: for tests and debugging.
  std::vector<std::pair<uint64_t, int64_t>> Entries() const;

  // Whether, for one of topology_keys(), the node's value has an entry > 0 (upstream: any of the
  // node's labels has a positive count).
  bool AnyPositive(const api::LabelSet& node_labels) const;
  // The sum, over topology_keys(), of the entries under the node's values (upstream Score).
  int64_t SumFor(const api::LabelSet& node_labels) const;

  friend bool operator==(const TopologyMap& a, const TopologyMap& b) {
    return a.Entries() == b.Entries();
  }

 private:
  // No packed pair can be this: interned ids stay far below 2^32 - 1.
  static constexpr uint64_t kEmpty = ~uint64_t{0};

  struct Slot {
    uint64_t key = kEmpty;
    int64_t value = 0;
  };

  size_t Home(uint64_t packed) const {
    return static_cast<size_t>((packed * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void Grow();
  void Erase(size_t index);

  std::vector<Slot> slots_;  // size is a power of two, or 0
  unsigned shift_ = 64;      // 64 - log2(slots_.size())
  size_t size_ = 0;
  std::vector<api::Symbol> topology_keys_;
};

}  // namespace muster::plugins::interpodaffinity
