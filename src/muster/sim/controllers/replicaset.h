#pragma once

// kube-controller-manager's ReplicaSet controller (pkg/controller/replicaset), for simulate: it
// keeps `replicas` pods of the template, each named after the ReplicaSet and 5 random
// characters; a pod that fails or is deleted before it succeeded is replaced, and one that
// succeeded counts toward the replicas (it is not replaced).

#include <memory>
#include <vector>

#include "muster/api/types.h"
#include "muster/sim/controllers/controller.h"
#include "muster/sim/controllers/workload.h"

namespace muster::sim::controllers {

class ReplicaSetController {
 public:
  explicit ReplicaSetController(const Context& context) : context_(context) {}

  // The ReplicaSet `rs`, as the controller keeps it from now on; it makes its pods once created
  // (Workload::Create).
  Workload& Add(const api::ReplicaSet& rs);

 private:
  const Context& context_;
  std::vector<std::unique_ptr<Workload>> replica_sets_;
};

}  // namespace muster::sim::controllers
