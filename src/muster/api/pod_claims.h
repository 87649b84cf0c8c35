#pragma once

// Which ResourceClaims a pod uses (Dynamic Resource Allocation, api/dra.h), as the scheduler,
// the claim controller and the reports all resolve them.

#include <optional>

#include "muster/api/dra.h"

namespace muster::api {

// The claim a pod's resourceClaims entry uses: its resourceClaimName, or for a template's entry
// the claim the resource claim controller recorded in the pod's status (an empty Symbol when it
// decided none is needed); nullopt while the controller has not made it yet.
std::optional<Symbol> ClaimNameOf(const Pod& pod, const PodResourceClaim& entry);

// Whether the scheduler allocated the claim: it holds the scheduler's finalizer.
bool HasClaimFinalizer(const ResourceClaim& claim);

}  // namespace muster::api
