#pragma once

// What the scheduler talks to (DESIGN.md layer 5): object events in, writes out. `memory` is the
// in-memory cluster of simulate, bench and tests; `kube` (to come) a real API server. Both deliver
// the same events to a ClusterObserver, the scheduler's informer handlers.

#include "muster/api/types.h"
#include "muster/framework/handle.h"

namespace muster::cluster {

class ClusterObserver {
 public:
  virtual ~ClusterObserver() = default;
  virtual void OnPodAdd(const api::Pod& pod) = 0;
  virtual void OnPodUpdate(const api::Pod& old_pod, const api::Pod& new_pod) = 0;
  virtual void OnPodDelete(const api::Pod& pod) = 0;
  virtual void OnNodeAdd(const api::Node& node) = 0;
  virtual void OnNodeUpdate(const api::Node& old_node, const api::Node& new_node) = 0;
  virtual void OnNodeDelete(const api::Node& node) = 0;
  virtual void OnPodGroupAdd(const api::PodGroup& group) = 0;
  virtual void OnPodGroupUpdate(const api::PodGroup& old_group, const api::PodGroup& new_group) = 0;
  virtual void OnPodGroupDelete(const api::PodGroup& group) = 0;
  virtual void OnNamespaceAdd(const api::Namespace& ns) = 0;
  virtual void OnPodDisruptionBudgetAdd(const api::PodDisruptionBudget& pdb) = 0;
};

// A cluster: the scheduler's writes (ClusterClient) plus a stream of object events.
class Cluster : public framework::ClusterClient {
 public:
  // Observers are told of every change after it is made, in order.
  virtual void AddObserver(ClusterObserver* observer) = 0;
};

}  // namespace muster::cluster
