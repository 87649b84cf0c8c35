#include "muster/sim/controllers/claim.h"

#include <algorithm>

#include <fmt/format.h>

#include "muster/api/generated_name.h"
#include "muster/api/pod_claims.h"

namespace muster::sim::controllers {
namespace {

// The longest generateName the controller asks for: 63 less the API server's 5 characters and
// a margin, as upstream's.
constexpr size_t kMaxGenerateName = 57;

bool Done(const api::Pod& pod) {
  return pod.IsTerminal() || (pod.metadata.deletion_timestamp && pod.spec.node_name.empty());
}

// "<pod>-<claim>-", or both parts shortened alike when that is too long (upstream's
// generateName for a claim).
std::string GenerateName(std::string_view pod, std::string_view claim) {
  const size_t length = pod.size() + claim.size() + 2;
  if (length <= kMaxGenerateName) return fmt::format("{}-{}-", pod, claim);
  return fmt::format("{}-{}", pod.substr(0, pod.size() * kMaxGenerateName / length),
                     claim.substr(0, claim.size() * kMaxGenerateName / length));
}

// Whether the pod uses claims: its own, or the one the scheduler made for its extended
// resources.
bool UsesClaims(const api::Pod& pod) {
  return !pod.spec.resource_claims.empty() || pod.status.extended_resource_claim != nullptr;
}

}  // namespace

void ClaimController::Touch(const api::Pod& pod) {
  if (!UsesClaims(pod)) return;
  pending_.insert(pod.metadata.Key());
  pass_.Schedule();
}

void ClaimController::Deleted(const api::PodPtr& pod) {
  if (!UsesClaims(*pod)) return;
  deleted_.push_back(pod);
  pass_.Schedule();
}

void ClaimController::Added(const api::Shared<api::ResourceClaimTemplate>&) {
  if (waiting_template_.empty()) return;
  pending_.insert(waiting_template_.begin(), waiting_template_.end());
  waiting_template_.clear();
  pass_.Schedule();
}

void ClaimController::Sync() {
  std::vector<api::PodPtr> deleted;
  deleted.swap(deleted_);
  for (const api::PodPtr& pod : deleted) Release(*pod, true);
  std::set<std::string> pending;
  pending.swap(pending_);
  for (const std::string& key : pending) {
    const api::Pod* pod = cluster_.Get<api::Pod>(key);
    if (pod == nullptr) continue;
    if (Done(*pod)) {
      Release(*pod, false);
    } else if (!pod->metadata.deletion_timestamp) {
      MakeClaims(*pod);
    }
  }
}

void ClaimController::MakeClaims(const api::Pod& pod) {
  std::vector<api::PodResourceClaimStatus> statuses = pod.status.resource_claim_statuses;
  bool changed = false;
  for (const api::PodResourceClaim& pc : pod.spec.resource_claims) {
    if (pc.resource_claim_template_name.empty()) continue;
    if (std::any_of(statuses.begin(), statuses.end(),
                    [&](const api::PodResourceClaimStatus& s) { return s.name == pc.name; })) {
      continue;
    }
    const std::string ns(pod.metadata.namespace_.str());
    const api::ResourceClaimTemplate* t = cluster_.Get<api::ResourceClaimTemplate>(
        fmt::format("{}/{}", ns, pc.resource_claim_template_name.str()));
    if (t == nullptr) {
      waiting_template_.insert(pod.metadata.Key());
      cluster_.RecordEvent(framework::EventRecord{
          framework::ReferenceTo(pod), "Warning", "FailedResourceClaimCreation", "Create",
          fmt::format("PodResourceClaim {}: resource claim template \"{}\": "
                      "resourceclaimtemplate.resource.k8s.io \"{}\" not found",
                      pc.name.str(), pc.resource_claim_template_name.str(),
                      pc.resource_claim_template_name.str())});
      continue;
    }
    api::ResourceClaim claim;
    claim.metadata.namespace_ = pod.metadata.namespace_;
    claim.metadata.labels = t->spec.metadata.labels;
    claim.metadata.annotations = t->spec.metadata.annotations;
    claim.metadata.annotations[std::string(api::kPodClaimNameAnnotation)] = pc.name.string();
    claim.metadata.owner_references.push_back(
        api::OwnerReference{"v1", "Pod", pod.metadata.name, pod.metadata.uid, true, true});
    claim.spec = t->spec.spec;
    const std::string prefix = GenerateName(pod.metadata.name, pc.name.str());
    do {
      claim.metadata.name = prefix + api::GeneratedNameSuffix(rng_);
    } while (cluster_.Get<api::ResourceClaim>(fmt::format("{}/{}", ns, claim.metadata.name)));
    statuses.push_back(api::PodResourceClaimStatus{pc.name, api::Symbol(claim.metadata.name)});
    cluster_.Create(std::move(claim));
    changed = true;
  }
  if (!changed) return;
  api::Pod updated = pod;
  updated.status.resource_claim_statuses = std::move(statuses);
  cluster_.Update(std::move(updated));
}

void ClaimController::Release(const api::Pod& pod, bool deleted) {
  if (!released_.insert(pod.metadata.uid).second && !deleted) return;
  for (const auto& [entry, name] : api::PodClaimEntries(pod)) {
    if (!name || name->empty()) continue;
    const std::string key = fmt::format("{}/{}", pod.metadata.namespace_.str(), name->str());
    const api::ResourceClaim* claim = cluster_.Get<api::ResourceClaim>(key);
    if (claim == nullptr) continue;
    api::ResourceClaim updated = *claim;
    std::erase_if(updated.status.reserved_for, [&](const api::ResourceClaimConsumerReference& r) {
      return r.resource == "pods" && r.api_group.empty() && r.uid == pod.metadata.uid;
    });
    if (updated.status.reserved_for.empty() && api::HasClaimFinalizer(updated)) {
      // The scheduler allocated it and nobody uses it now: deallocated, the finalizer gone.
      updated.status.allocation.reset();
      updated.status.devices.clear();
      std::erase(updated.metadata.finalizers, std::string(api::kClaimFinalizer));
    }
    const api::OwnerReference* owner = claim->metadata.ControllerRef();
    const bool owned = owner != nullptr && owner->kind == "Pod" && owner->uid == pod.metadata.uid;
    const bool unused = updated.status.reserved_for.empty();
    if (updated.status.reserved_for.size() != claim->status.reserved_for.size() ||
        updated.metadata.finalizers.size() != claim->metadata.finalizers.size()) {
      cluster_.Update(std::move(updated));
    }
    if (owned && unused) cluster_.Delete<api::ResourceClaim>(key);
  }
  if (deleted) released_.erase(pod.metadata.uid);
}

}  // namespace muster::sim::controllers
