#pragma once

// What the scheduler talks to (DESIGN.md layer 5): object events in, writes out. `memory` is the
// in-memory cluster of simulate, bench and tests; `kube` (to come) a real API server. Both deliver
// the same events to a ClusterObserver, the scheduler's informer handlers.

#include "muster/api/types.h"
#include "muster/framework/client.h"

namespace muster::cluster {

// An observer overrides the events it watches; the others do nothing (client-go's handler
// funcs, where a nil func skips its event). Pods come as the cluster's own shared objects, as an
// informer's cache hands them out, so that an observer may keep one without copying it.
class ClusterObserver {
 public:
  virtual ~ClusterObserver() = default;
  virtual void OnPodAdd(const api::PodPtr& /*pod*/) {}
  virtual void OnPodUpdate(const api::PodPtr& /*old_pod*/, const api::PodPtr& /*new_pod*/) {}
  virtual void OnPodDelete(const api::PodPtr& /*pod*/) {}
  virtual void OnNodeAdd(const api::Node& /*node*/) {}
  virtual void OnNodeUpdate(const api::Node& /*old_node*/, const api::Node& /*new_node*/) {}
  virtual void OnNodeDelete(const api::Node& /*node*/) {}
  virtual void OnPodGroupAdd(const api::PodGroup& /*group*/) {}
  virtual void OnPodGroupUpdate(const api::PodGroup& /*old_group*/,
                                const api::PodGroup& /*new_group*/) {}
  virtual void OnPodGroupDelete(const api::PodGroup& /*group*/) {}
  virtual void OnNamespaceAdd(const api::Namespace& /*ns*/) {}
  virtual void OnPodDisruptionBudgetAdd(const api::PodDisruptionBudget& /*pdb*/) {}
};

// The condition preemption sets on a victim before deleting it, as upstream's preemption
// executor sets it; `scheduler` names the scheduler that preempts.
inline api::PodCondition PreemptionCondition(std::string_view scheduler, api::Time now) {
  return api::PodCondition{
      "DisruptionTarget", "True", "PreemptionByScheduler",
      std::string(scheduler) + ": preempting to accommodate a higher priority pod", now};
}

// A cluster: the scheduler's writes (ClusterClient) plus a stream of object events.
class Cluster : public framework::ClusterClient {
 public:
  // Observers are told of every change after it is made, in order.
  virtual void AddObserver(ClusterObserver* observer) = 0;
};

}  // namespace muster::cluster
