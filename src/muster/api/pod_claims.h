#pragma once

// Which ResourceClaims a pod uses (Dynamic Resource Allocation, api/dra.h), as the scheduler,
// the claim controller and the reports all resolve them.

#include <optional>
#include <vector>

#include "muster/api/dra.h"

namespace muster::api {

// The claim a pod's resourceClaims entry uses: its resourceClaimName, or for a template's entry
// the claim the resource claim controller recorded in the pod's status (an empty Symbol when it
// decided none is needed); nullopt while the controller has not made it yet.
std::optional<Symbol> ClaimNameOf(const Pod& pod, const PodResourceClaim& entry);

// Each claim a pod uses, by the name the pod knows it by: its resourceClaims entries (the claim
// as ClaimNameOf resolves it), then the claim the scheduler made for its extended resources
// (status.extendedResourceClaimStatus), named kExtendedClaimInMemoryName.
struct PodClaimEntry {
  Symbol entry;
  std::optional<Symbol> claim;
};
std::vector<PodClaimEntry> PodClaimEntries(const Pod& pod);

// Whether the scheduler allocated the claim: it holds the scheduler's finalizer.
bool HasClaimFinalizer(const ResourceClaim& claim);

}  // namespace muster::api
