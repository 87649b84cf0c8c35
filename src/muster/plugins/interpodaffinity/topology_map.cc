#include "muster/plugins/interpodaffinity/topology_map.h"

#include <algorithm>

namespace muster::plugins::interpodaffinity {

int64_t TopologyMap::Get(uint64_t packed) const {
  if (size_ == 0) return 0;
  const size_t mask = slots_.size() - 1;
  for (size_t i = Home(packed);; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.key == packed) return s.value;
    if (s.key == kEmpty) return 0;
  }
}

void TopologyMap::Add(api::Symbol key, api::Symbol value, int64_t delta, bool erase_zero) {
  // Keep at least half the slots empty so that probe runs stay short.
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  const uint64_t packed = Pack(key, value);
  const size_t mask = slots_.size() - 1;
  size_t i = Home(packed);
  while (slots_[i].key != kEmpty && slots_[i].key != packed) i = (i + 1) & mask;
  Slot& s = slots_[i];
  if (s.key == kEmpty) {
    s.key = packed;
    s.value = 0;
    ++size_;
    if (std::find(topology_keys_.begin(), topology_keys_.end(), key) == topology_keys_.end()) {
      topology_keys_.push_back(key);
    }
  }
  s.value += delta;
  if (erase_zero && s.value == 0) Erase(i);
}

void TopologyMap::AddForNode(const api::LabelSet& node_labels, api::Symbol key, int64_t delta,
                             bool erase_zero) {
  if (const api::Symbol* value = node_labels.Get(key)) Add(key, *value, delta, erase_zero);
}

void TopologyMap::Grow() {
  std::vector<Slot> old = std::move(slots_);
  const size_t capacity = old.empty() ? 16 : old.size() * 2;
  slots_.assign(capacity, Slot{});
  shift_ = 64 - static_cast<unsigned>(__builtin_ctzll(capacity));
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.key == kEmpty) continue;
    size_t i = Home(s.key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

// Backward-shift deletion: later entries of the probe run move up so that no lookup stops early at
// the hole, and no tombstones accumulate under AddPod/RemovePod churn.
void TopologyMap::Erase(size_t index) {
  const size_t mask = slots_.size() - 1;
  size_t hole = index;
  slots_[hole] = Slot{};
  --size_;
  for (size_t j = (hole + 1) & mask; slots_[j].key != kEmpty; j = (j + 1) & mask) {
    const size_t home = Home(slots_[j].key);
    // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
    const bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (stays) continue;
    slots_[hole] = slots_[j];
    slots_[j] = Slot{};
    hole = j;
  }
}

std::vector<std::pair<uint64_t, int64_t>> TopologyMap::Entries() const {
  std::vector<std::pair<uint64_t, int64_t>> out;
  out.reserve(size_);
  for (const Slot& s : slots_) {
    if (s.key != kEmpty) out.emplace_back(s.key, s.value);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool TopologyMap::AnyPositive(const api::LabelSet& node_labels) const {
  if (size_ == 0) return false;
  for (api::Symbol key : topology_keys_) {
    const api::Symbol* value = node_labels.Get(key);
    if (value != nullptr && Get(key, *value) > 0) return true;
  }
  return false;
}

int64_t TopologyMap::SumFor(const api::LabelSet& node_labels) const {
  int64_t sum = 0;
  for (api::Symbol key : topology_keys_) {
    if (const api::Symbol* value = node_labels.Get(key)) sum += Get(key, *value);
  }
  return sum;
}

}  // namespace muster::plugins::interpodaffinity
