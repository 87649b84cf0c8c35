#pragma once

// kube-controller-manager's resource claim controller (pkg/controller/resourceclaim), for
// simulate (a real cluster runs its own):
//  - for each pod's resourceClaims entry that names a ResourceClaimTemplate, a claim made from
//    the template, named "<pod>-<claim>-<5 characters>" (generateName, the two parts shortened
//    alike when long), owned by the pod, annotated with the entry's name, and recorded in the
//    pod's status.resourceClaimStatuses; a missing template is a FailedResourceClaimCreation
//    event, retried when templates come;
//  - when a pod is done (Succeeded, Failed, or deleted), its reservations in claims go; a claim
//    the scheduler allocated (its finalizer) whose last reservation went is deallocated, and the
//    finalizer removed; a claim made for the pod is deleted with it (the scheduler's claim for
//    its extended resources too, named in its status.extendedResourceClaimStatus).
// Like the other controllers it acts at the instant it hears of a change, after the scheduler.

#include <random>
#include <set>
#include <string>
#include <vector>

#include "muster/cluster/cluster.h"
#include "muster/cluster/memory.h"
#include "muster/sim/controllers/controller.h"

namespace muster::sim::controllers {

class ClaimController final : public cluster::TypedObserver<ClaimController> {
 public:
  explicit ClaimController(const Context& context)
      : cluster_(context.cluster), pass_(context.clock, [this] { Sync(); }), rng_(context.seed) {}

  void Added(const api::PodPtr& pod) { Touch(*pod); }
  void Updated(const api::PodPtr&, const api::PodPtr& pod) { Touch(*pod); }
  void Deleted(const api::PodPtr& pod);
  void Added(const api::Shared<api::ResourceClaimTemplate>&);

 private:
  void Touch(const api::Pod& pod);
  void Sync();
  // Makes the pod's claims from templates (and records them in its status).
  void MakeClaims(const api::Pod& pod);
  // The pod is done: its reservations go, and the claims made for it.
  void Release(const api::Pod& pod, bool deleted);

  cluster::MemoryCluster& cluster_;
  // One pass (Sync) at the current instant, however many changes asked for it.
  PassNow pass_;
  std::mt19937_64 rng_;
  std::set<std::string> pending_;           // pods to look at, by key
  std::vector<api::PodPtr> deleted_;        // pods deleted since the last pass
  std::set<std::string> waiting_template_;  // pods whose template did not exist
  std::set<std::string> released_;          // done pods already released, by uid
};

}  // namespace muster::sim::controllers
