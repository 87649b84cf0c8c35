#pragma once

// kube-controller-manager's Deployment controller (pkg/controller/deployment), for simulate:
// a Deployment's pods belong to a ReplicaSet it makes, named after the Deployment and the pod
// template's hash (10 characters, drawn from the run's seed and the Deployment's key), whose
// template carries that hash as its pod-template-hash label. The ReplicaSet controller runs it.
// Rollouts are not simulated: a Deployment has one template, hence one ReplicaSet.

#include "muster/api/types.h"
#include "muster/sim/controllers/controller.h"
#include "muster/sim/controllers/replicaset.h"
#include "muster/sim/controllers/workload.h"

namespace muster::sim::controllers {

class DeploymentController {
 public:
  DeploymentController(const Context& context, ReplicaSetController& replica_sets)
      : context_(context), replica_sets_(replica_sets) {}

  // The ReplicaSet of the Deployment `d`, which the ReplicaSet controller keeps from now on;
  // it makes its pods once created (Workload::Create).
  Workload& Add(const api::Deployment& d);

 private:
  const Context& context_;
  ReplicaSetController& replica_sets_;
};

}  // namespace muster::sim::controllers
