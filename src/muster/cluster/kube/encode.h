#pragma once

// Pods and nodes as v1 JSON, the shape the API server serves them in: what a scheduler
// extender receives (k8s.io/kube-scheduler/extender/v1 carries full v1.Pod and v1.Node
// objects). Every field muster holds is written; fields muster does not model (a container's
// command, env, probes) are not, as muster never had them.

#include <nlohmann/json.hpp>

#include "muster/api/dra.h"
#include "muster/api/types.h"

namespace muster::cluster::kube {

nlohmann::json EncodePod(const api::Pod& pod);
nlohmann::json EncodeNode(const api::Node& node);
// A ResourceClaim's status (allocation and reservedFor) as a merge patch's "status": an
// absent allocation or an empty reservedFor is null, which removes it.
nlohmann::json EncodeClaimStatus(const api::ResourceClaim& claim);
// A claim to create (apiVersion resource.k8s.io/v1): its metadata and spec.devices, whose exact
// requests are what the scheduler makes (DynamicResources' claim for a pod's extended
// resources); firstAvailable requests, constraints and config are not its to write.
nlohmann::json EncodeClaim(const api::ResourceClaim& claim);
// status.extendedResourceClaimStatus.
nlohmann::json EncodeExtendedResourceClaimStatus(const api::PodExtendedResourceClaimStatus& s);

}  // namespace muster::cluster::kube
