#pragma once

// Pods and nodes as v1 JSON, the shape the API server serves them in: what a scheduler
// extender receives (k8s.io/kube-scheduler/extender/v1 carries full v1.Pod and v1.Node
// objects). Every field muster holds is written; fields muster does not model (a container's
// command, env, probes) are not, as muster never had them.

#include <nlohmann/json.hpp>

#include "muster/api/types.h"

namespace muster::cluster::kube {

nlohmann::json EncodePod(const api::Pod& pod);
nlohmann::json EncodeNode(const api::Node& node);

}  // namespace muster::cluster::kube
