#include "muster/framework/snapshot.h"

#include <cstddef>

#include "muster/api/taints.h"

namespace muster::framework {

NodeInfo* Snapshot::Get(api::Symbol name) const {
  auto it = infos_.find(name);
  return it == infos_.end() ? nullptr : it->second.get();
}

bool Snapshot::ChangedSince(uint64_t since, std::vector<api::Symbol>* names) const {
  names->clear();
  if (since < change_base_ || since > change_count()) return false;
  names->assign(changes_.begin() + static_cast<std::ptrdiff_t>(since - change_base_),
                changes_.end());
  return true;
}

void Snapshot::RecordChange(api::Symbol name) {
  // Remembers at least the last two rounds of changes to every node: anyone further behind
  // starts over, which costs about as much as reading that many changes.
  const size_t keep = 2 * infos_.size() + 1024;
  if (changes_.size() >= 2 * keep) {
    const size_t drop = changes_.size() - keep;
    changes_.erase(changes_.begin(), changes_.begin() + static_cast<std::ptrdiff_t>(drop));
    change_base_ += drop;
  }
  changes_.push_back(name);
}

void Snapshot::Count(const NodeInfo& info, int32_t delta) {
  const auto it = nodes_by_min_priority_.emplace(info.min_pod_priority(), 0).first;
  it->second += delta;
  if (it->second == 0) nodes_by_min_priority_.erase(it);
  if (api::AnyPrefersNoSchedule(info.taints())) nodes_preferring_no_schedule_ += delta;
}

void SnapshotBuilder::Put(const NodeInfo& info) {
  std::unique_ptr<NodeInfo>& slot = s_.infos_[info.name()];
  if (slot) {
    s_.Count(*slot, -1);
    *slot = info;
  } else {
    slot = std::make_unique<NodeInfo>(info);
  }
  s_.Count(*slot, +1);
  s_.RecordChange(info.name());
}

void SnapshotBuilder::Erase(api::Symbol name) {
  if (auto it = s_.infos_.find(name); it != s_.infos_.end()) {
    s_.Count(*it->second, -1);
    s_.infos_.erase(it);
  }
  s_.RecordChange(name);
}

void SnapshotBuilder::SetOrder(const std::vector<api::Symbol>& order) {
  s_.list_.clear();
  s_.list_.reserve(order.size());
  for (api::Symbol name : order) {
    if (NodeInfo* info = s_.Get(name)) s_.list_.push_back(info);
  }
  RefreshAffinityLists();
}

void SnapshotBuilder::RefreshAffinityLists() {
  s_.have_pods_with_affinity_.clear();
  s_.have_pods_with_required_anti_affinity_.clear();
  for (NodeInfo* info : s_.list_) {
    if (info->has_pods_with_affinity()) s_.have_pods_with_affinity_.push_back(info);
    if (info->has_pods_with_required_anti_affinity()) {
      s_.have_pods_with_required_anti_affinity_.push_back(info);
    }
  }
}

}  // namespace muster::framework
