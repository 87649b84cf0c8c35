#include "muster/framework/snapshot.h"

namespace muster::framework {

NodeInfo* Snapshot::Get(api::Symbol name) const {
  auto it = infos_.find(name);
  return it == infos_.end() ? nullptr : it->second.get();
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
    if (!info->pods_with_affinity().empty()) s_.have_pods_with_affinity_.push_back(info);
    if (!info->pods_with_required_anti_affinity().empty()) {
      s_.have_pods_with_required_anti_affinity_.push_back(info);
    }
  }
}

}  // namespace muster::framework
