#pragma once

// kube-controller-manager's StatefulSet controller (pkg/controller/statefulset), for simulate:
// its pods are named `<set>-<ordinal>` and labelled with that name; each mounts its own claim of
// each volumeClaimTemplate, `<template>-<pod>`, which the controller creates first (and keeps:
// the default retention policy). OrderedReady makes the next ordinal only once every earlier
// one runs, Parallel makes them all at once. A failed pod is deleted, and a deleted pod made
// again under its ordinal.

#include <memory>
#include <vector>

#include "muster/api/types.h"
#include "muster/sim/controllers/controller.h"
#include "muster/sim/controllers/volume.h"
#include "muster/sim/controllers/workload.h"

namespace muster::sim::controllers {

class StatefulSetController {
 public:
  // Its pods' claims are created through `volumes` (as the API server admits a claim).
  StatefulSetController(const Context& context, VolumeController& volumes)
      : context_(context), volumes_(volumes) {}

  // The StatefulSet `s`, as the controller keeps it from now on; it makes its pods once created
  // (Workload::Create).
  Workload& Add(const api::StatefulSet& s);

 private:
  const Context& context_;
  VolumeController& volumes_;
  std::vector<std::unique_ptr<Workload>> stateful_sets_;
};

}  // namespace muster::sim::controllers
