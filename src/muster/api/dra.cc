#include "muster/api/dra.h"

#include <algorithm>

#include <fmt/format.h>

#include "muster/api/pod_claims.h"

namespace muster::api {

std::string_view DeviceTaintEffectName(DeviceTaintEffect e) {
  switch (e) {
    case DeviceTaintEffect::kNoSchedule:
      return "NoSchedule";
    case DeviceTaintEffect::kNoExecute:
      return "NoExecute";
    case DeviceTaintEffect::kNone:
      return "None";
  }
  return "";
}

std::string_view DeviceAllocationModeName(DeviceAllocationMode m) {
  return m == DeviceAllocationMode::kAll ? "All" : "ExactCount";
}

std::string DeviceName(std::string_view driver, std::string_view pool, std::string_view device) {
  return fmt::format("{}/{}/{}", driver, pool, device);
}

std::string DeviceRequestAllocationResult::DeviceName() const {
  return api::DeviceName(driver.str(), pool.str(), device.str());
}

// As upstream's DeviceToleration.ToleratesTaint: an empty key matches every key (operator
// Exists), an unset effect every effect.
bool DeviceToleration::Tolerates(const DeviceTaint& taint) const {
  if (!key.empty() && key != taint.key) return false;
  if (effect && *effect != taint.effect) return false;
  return op == DeviceTolerationOperator::kExists || value == taint.value;
}

std::optional<Symbol> ClaimNameOf(const Pod& pod, const PodResourceClaim& entry) {
  if (!entry.resource_claim_name.empty()) return entry.resource_claim_name;
  for (const PodResourceClaimStatus& s : pod.status.resource_claim_statuses) {
    if (s.name == entry.name) return s.resource_claim_name;
  }
  return std::nullopt;
}

std::vector<PodClaimEntry> PodClaimEntries(const Pod& pod) {
  std::vector<PodClaimEntry> out;
  for (const PodResourceClaim& pc : pod.spec.resource_claims) {
    out.push_back(PodClaimEntry{pc.name, ClaimNameOf(pod, pc)});
  }
  if (pod.status.extended_resource_claim != nullptr) {
    out.push_back(PodClaimEntry{Symbol(kExtendedClaimInMemoryName),
                                pod.status.extended_resource_claim->resource_claim_name});
  }
  return out;
}

bool HasClaimFinalizer(const ResourceClaim& claim) {
  const std::vector<std::string>& f = claim.metadata.finalizers;
  return std::find(f.begin(), f.end(), kClaimFinalizer) != f.end();
}

bool ResourceClaim::ReservedFor(std::string_view pod_uid) const {
  return std::any_of(status.reserved_for.begin(), status.reserved_for.end(),
                     [&](const ResourceClaimConsumerReference& r) {
                       return r.resource == "pods" && r.api_group.empty() && r.uid == pod_uid;
                     });
}

}  // namespace muster::api
