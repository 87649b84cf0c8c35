#include "muster/framework/testing/fake_services.h"

#include <fmt/format.h>

namespace muster::testing {

FakeServices::FakeServices(framework::Metrics* metrics)
    : metrics_(metrics),
      clock_(TestEpoch()),
      framework_(std::make_unique<framework::Framework>("default-scheduler", std::nullopt, *this)) {
}

void FakeServices::AddNode(const api::Node& node) {
  ++version_;
  nodes_.AddNode(node);
  Refresh();
}

void FakeServices::AddPod(const api::Pod& pod) {
  ++version_;
  RemovePod(pod);  // a pod added again replaces itself
  pods_[pod.metadata.Key()] = pod;
  if (!pod.spec.node_name.empty()) {
    framework::PodInfoPtr info = framework::PodInfo::Make(pod);
    nodes_.AddPod(info, pod.spec.node_name);
    bound_[pod.metadata.Key()] = std::move(info);
    Refresh();
  }
}

framework::Status FakeServices::RemovePod(const api::Pod& pod) {
  ++version_;
  const std::string key = pod.metadata.Key();
  if (pods_.erase(key) == 0) return framework::Status::Error(fmt::format("no pod {}", key));
  auto it = bound_.find(key);
  if (it == bound_.end()) return framework::Status::OK();
  nodes_.RemovePod(*it->second, it->second->pod.spec.node_name);
  bound_.erase(it);
  Refresh();
  return framework::Status::OK();
}

void FakeServices::UpdateNode(const api::Node& node) {
  ++version_;
  nodes_.UpdateNode(node);
  Refresh();
}

void FakeServices::RemoveNode(const api::Node& node) {
  ++version_;
  nodes_.RemoveNode(node);
  Refresh();
}

std::vector<framework::PodInfoPtr> FakeServices::NominatedPodsForNode(api::Symbol node) const {
  std::vector<framework::PodInfoPtr> out;
  for (const auto& [pod, n] : nominated_) {
    if (n == node) out.push_back(pod);
  }
  return out;
}

api::Symbol FakeServices::NominatedNodeOf(const api::Pod& pod) const {
  const std::string key = pod.metadata.Key();
  for (const auto& [nominated, node] : nominated_) {
    if (nominated->Key() == key) return node;
  }
  return pod.status.nominated_node_name;
}

framework::Status FakeServices::Bind(const api::Pod& pod, api::Symbol node) {
  bindings.emplace_back(pod.metadata.Key(), node.string());
  return framework::Status::OK();
}

framework::Status FakeServices::UpdatePodCondition(const api::Pod& pod,
                                                   const api::Condition& condition,
                                                   const std::optional<std::string>& nominated) {
  condition_updates.emplace_back(pod.metadata.Key(), condition);
  if (nominated) nominations.emplace_back(pod.metadata.Key(), *nominated);
  return framework::Status::OK();
}

framework::Status FakeServices::NominatePod(const api::Pod& pod, api::Symbol node) {
  nominations.emplace_back(pod.metadata.Key(), node.string());
  return framework::Status::OK();
}

framework::Status FakeServices::BindVolume(const api::PersistentVolume& pv) {
  const std::string claim =
      pv.spec.claim_ref ? pv.spec.claim_ref->namespace_ + "/" + pv.spec.claim_ref->name : "";
  volume_bindings.push_back(pv.metadata.name + " -> " + claim);
  return framework::Status::OK();
}

framework::Status FakeServices::SelectNode(const api::PersistentVolumeClaim& pvc,
                                           api::Symbol node) {
  selected_nodes.push_back(pvc.metadata.Key() + " -> " + node.string());
  return framework::Status::OK();
}

framework::Status FakeServices::UpdateClaimStatus(const api::ResourceClaim& claim) {
  claim_updates.push_back(claim);
  objects_.Of<api::ResourceClaim>().Set(std::make_shared<const api::ResourceClaim>(claim));
  return framework::Status::OK();
}

framework::Status FakeServices::CreateClaim(const api::ResourceClaim& claim,
                                            api::ResourceClaim* created) {
  api::ResourceClaim stored = claim;
  stored.metadata.name = fmt::format("{}{}", claim.metadata.generate_name, claims_created.size());
  stored.metadata.uid = fmt::format("claim-uid-{}", claims_created.size());
  stored.metadata.resource_version = "1";
  claims_created.push_back(stored);
  objects_.Of<api::ResourceClaim>().Set(std::make_shared<const api::ResourceClaim>(stored));
  *created = std::move(stored);
  return framework::Status::OK();
}

framework::Status FakeServices::DeleteClaim(const api::ResourceClaim& claim) {
  claims_deleted.push_back(claim.metadata.Key());
  objects_.Of<api::ResourceClaim>().Erase(claim.metadata);
  return framework::Status::OK();
}

framework::Status FakeServices::SetExtendedResourceClaimStatus(
    const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) {
  extended_claim_statuses.emplace_back(pod.metadata.Key(), status);
  return framework::Status::OK();
}

framework::Status FakeServices::DeletePod(const api::Pod& pod) {
  deleted.push_back(pod.metadata.Key());
  return framework::Status::OK();
}

framework::Status FakeServices::UpdatePodGroupStatus(const api::PodGroup& group,
                                                     const api::PodGroup::Status& status) {
  group_status_updates.emplace_back(group.metadata.Key(), status);
  framework::ObjectTable<api::PodGroup>& groups = objects_.Of<api::PodGroup>();
  const api::PodGroup* stored =
      groups.Get(group.metadata.namespace_, api::Symbol(group.metadata.name));
  api::PodGroup updated = stored != nullptr ? *stored : group;
  updated.status = status;
  groups.Set(std::make_shared<const api::PodGroup>(std::move(updated)));
  return framework::Status::OK();
}

std::vector<const api::Pod*> FakeServices::PodsWithLabel(api::Symbol ns, api::Symbol key,
                                                         api::Symbol value) const {
  std::vector<const api::Pod*> out;
  for (const auto& [k, pod] : pods_) {
    if (pod.metadata.namespace_ != ns) continue;
    const api::Symbol* v = pod.metadata.labels.Get(key);
    if (v != nullptr && *v == value) out.push_back(&pod);
  }
  return out;
}

std::vector<const api::Pod*> FakeServices::PodsInGang(api::Symbol ns,
                                                      const api::GangRef& gang) const {
  std::vector<const api::Pod*> out;
  for (const auto& [k, pod] : pods_) {
    if (pod.metadata.namespace_ == ns && api::GangOf(pod) == gang) out.push_back(&pod);
  }
  return out;
}

FakeServices::FakeWaitingPod& FakeServices::AddWaitingPod(const api::Pod& pod, api::Symbol node,
                                                          std::vector<std::string> pending) {
  auto w = std::make_unique<FakeWaitingPod>();
  w->pod_ = pod;
  w->node_ = node;
  w->pending = std::move(pending);
  waiting_.push_back(std::move(w));
  return *waiting_.back();
}

void FakeServices::Iterate(const std::function<void(framework::WaitingPod&)>& fn) {
  for (auto& w : waiting_) fn(*w);
}

framework::WaitingPod* FakeServices::Get(std::string_view uid) {
  for (auto& w : waiting_) {
    if (w->pod_.metadata.uid == uid) return w.get();
  }
  return nullptr;
}

}  // namespace muster::testing
