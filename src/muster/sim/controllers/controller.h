#pragma once

// The controllers a cluster runs (kube-controller-manager's), simulated: one file each in this
// folder; the simulation (simulation.cc) wires them, as kube-controller-manager runs its own.
//  - What a controller writes, it writes through its Context (below).
//  - What it watches, it is registered for, and it hears of nothing else:
//    . a controller of workloads, the objects that own pods (ReplicaSet; Deployment, through the
//      ReplicaSet it makes; StatefulSet; Job), hears of the pods it made as they change phase or
//      go (Workload::PodPhaseChanged and PodDeleted, workload.h). The simulation finds a pod's
//      workload by its controller reference, once a pod event whatever the number of
//      controllers (upstream, each controller looks at each pod);
//    . a controller of kinds (the volume and resource claim controllers) hears of the objects
//      whose Added, Updated and Deleted it declares, as a cluster observer
//      (cluster::TypedObserver) that the simulation registers with the cluster, after the
//      scheduler.
//  - How it starts: a controller of workloads is handed each of its objects as the manifests
//    are read (its Add), and the simulation creates the object when it is due (its
//    muster.dev/create-after: Workload::Create); a controller of kinds starts with the
//    cluster's events, and acts on them in one pass at the instant it hears of them (a timer
//    due now).

#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "muster/api/time.h"
#include "muster/api/types.h"
#include "muster/cluster/memory.h"
#include "muster/framework/clock.h"

namespace muster::sim::controllers {

// Runs `fn` `after` from now.
using At = std::function<void(api::Duration after, std::function<void()> fn)>;

// What the simulation gives each controller, as kube-controller-manager gives its controllers a
// ControllerContext (informers and clients): what it reads, and the one way it writes. It
// outlives the controllers.
struct Context {
  // What controllers read, and where they write objects and Events.
  cluster::MemoryCluster& cluster;
  // Now; and a controller's pass over what changed, as a timer due now (it fires before the run
  // can end, as every timer due now does).
  framework::Clock& clock;
  // A timer of the simulation's own, which the run waits for: what a controller does later (a
  // Job's pod failure backoff).
  At at;
  // Creates a pod as the API server does: after priority admission (a pod of a PriorityClass
  // that does not exist is refused), and with the simulation's annotations honoured (the pod is
  // ungated or deleted when they say). Returns admission's refusal; empty when the pod was
  // admitted.
  std::function<std::string(api::Pod pod)> create_pod;
  // The run's seed: the names a controller generates repeat with it.
  uint64_t seed = 0;
};

// A controller of kinds' one pass over what changed, at the instant it hears of a change: the
// first change asks for it (a timer due now), and those heard before the timer fires join that
// pass, however many they are.
class PassNow {
 public:
  PassNow(framework::Clock& clock, std::function<void()> pass)
      : clock_(clock), pass_(std::move(pass)) {}
  // Its timer points to it: it is neither copied nor moved.
  PassNow(const PassNow&) = delete;
  PassNow& operator=(const PassNow&) = delete;

  // Asks for the pass, unless it is asked for already.
  void Schedule() {
    if (scheduled_) return;
    scheduled_ = true;
    clock_.AddTimer(clock_.Now(), [this] {
      scheduled_ = false;
      pass_();
    });
  }

 private:
  framework::Clock& clock_;
  std::function<void()> pass_;
  bool scheduled_ = false;
};

}  // namespace muster::sim::controllers
