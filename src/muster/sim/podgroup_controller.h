#pragma once

// The PodGroup status controller (scheduler-plugins pkg/controllers/podgroup_controller.go) for
// simulate: it keeps each PodGroup's phase and counters in step with its pods.
//   Pending     fewer pods than minMember exist;
//   Scheduling  enough pods exist (occupiedBy records their owners);
//   Scheduled   minMember of them are bound;
//   Running     running + succeeded reach minMember;
//   Failed      some failed and failed + running + succeeded reach minMember;
//   Finished    succeeded reach minMember.

#include <functional>
#include <set>
#include <string>

#include "muster/cluster/memory.h"

namespace muster::sim {

class PodGroupController final : public cluster::ClusterObserver {
 public:
  // `defer` runs a reconcile later at the same virtual time (the simulation's own timers).
  PodGroupController(cluster::MemoryCluster& cluster,
                     std::function<void(std::function<void()>)> defer)
      : cluster_(cluster), defer_(std::move(defer)) {}

  // The status the controller's rules give `group` with these pods (its group's pods).
  static api::PodGroup::Status Compute(const api::PodGroup& group,
                                       const std::vector<const api::Pod*>& pods);

  void OnPodAdd(const api::PodPtr& pod) override { Touch(*pod); }
  void OnPodUpdate(const api::PodPtr&, const api::PodPtr& pod) override { Touch(*pod); }
  void OnPodDelete(const api::PodPtr& pod) override { Touch(*pod); }
  void OnPodGroupAdd(const api::PodGroup& group) override { Enqueue(group.metadata.Key()); }
  void OnPodGroupUpdate(const api::PodGroup&, const api::PodGroup& group) override {
    Enqueue(group.metadata.Key());
  }

 private:
  void Touch(const api::Pod& pod);
  void Enqueue(const std::string& group_key);
  void Reconcile(const std::string& group_key);

  cluster::MemoryCluster& cluster_;
  std::function<void(std::function<void()>)> defer_;
  std::set<std::string> queued_;
};

}  // namespace muster::sim
