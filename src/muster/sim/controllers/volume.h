#pragma once

// What a cluster's controllers do to volumes, for simulate (a real cluster has its own): the
// ephemeral volume controller (a claim `<pod>-<volume>` for each generic ephemeral volume,
// owned by the pod and deleted with it), kube-controller-manager's PersistentVolume controller
// (binds a claim to the volume the scheduler chose or, for an Immediate claim, to the smallest
// available volume that matches) and a provisioner (makes a volume for a claim of a class with
// a provisioner: at once for an Immediate class, on the node the scheduler selected for a
// WaitForFirstConsumer one, in that node's topology; a claim whose selected node is gone is
// handed back, its annotation removed, as external-provisioner does). Each acts at the instant
// it hears of a change, after the scheduler.

#include <set>
#include <string>

#include "muster/cluster/cluster.h"
#include "muster/cluster/memory.h"
#include "muster/sim/controllers/controller.h"

namespace muster::sim::controllers {

class VolumeController final : public cluster::TypedObserver<VolumeController> {
 public:
  explicit VolumeController(const Context& context)
      : cluster_(context.cluster), pass_(context.clock, [this] { Sync(); }) {}

  // Creates `claim` as a controller would (the default class admitted when it names none),
  // unless a claim of its name exists.
  void CreateClaim(api::PersistentVolumeClaim claim);

  void Added(const api::PodPtr& pod);
  void Deleted(const api::PodPtr& pod);
  void Added(const api::Shared<api::PersistentVolumeClaim>&) { pass_.Schedule(); }
  void Updated(const api::Shared<api::PersistentVolumeClaim>&,
               const api::Shared<api::PersistentVolumeClaim>&) {
    pass_.Schedule();
  }
  void Added(const api::Shared<api::PersistentVolume>&) { pass_.Schedule(); }
  void Updated(const api::Shared<api::PersistentVolume>&,
               const api::Shared<api::PersistentVolume>&) {
    pass_.Schedule();
  }
  void Deleted(const api::Shared<api::PersistentVolume>&) { pass_.Schedule(); }

 private:
  void Sync();
  void Bind(const api::PersistentVolumeClaim& claim, const api::PersistentVolume& pv);
  void Provision(const api::PersistentVolumeClaim& claim, const api::StorageClass& sc,
                 const api::Node* node);

  cluster::MemoryCluster& cluster_;
  // One pass over the claims (Sync) at the current instant, however many changes asked for it.
  PassNow pass_;
};

}  // namespace muster::sim::controllers
