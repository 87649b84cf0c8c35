#pragma once

// The PodGroup status controller (scheduler-plugins pkg/controllers/podgroup_controller.go),
// for simulate and run alike: it keeps each PodGroup's phase and counters in step with its pods,
// which it follows as an observer of the cluster, and writes the status through the cluster's
// client (the status subresource on a real server).
//   Pending     fewer pods than minMember exist;
//   Scheduling  enough pods exist (occupiedBy records their owners);
//   Scheduled   minMember of them are bound;
//   Running     running + succeeded reach minMember;
//   Failed      some failed and failed + running + succeeded reach minMember;
//   Finished    succeeded reach minMember.

#include <functional>
#include <map>
#include <set>
#include <string>

#include "muster/cluster/cluster.h"

namespace muster::host {

class PodGroupController final : public cluster::TypedObserver<PodGroupController> {
 public:
  // `defer` runs a reconcile later, on the same thread, at the same time (the simulation's
  // own timers, or the real clock's loop).
  PodGroupController(framework::ClusterClient& client,
                     std::function<void(std::function<void()>)> defer)
      : client_(client), defer_(std::move(defer)) {}

  // The status the controller's rules give `group` with these pods (its group's pods).
  static api::PodGroup::Status Compute(const api::PodGroup& group,
                                       const std::vector<const api::Pod*>& pods);

  void Added(const api::PodPtr& pod);
  void Updated(const api::PodPtr& old_pod, const api::PodPtr& new_pod);
  void Deleted(const api::PodPtr& pod);
  void Added(const api::Shared<api::PodGroup>& group);
  void Updated(const api::Shared<api::PodGroup>& old_group,
               const api::Shared<api::PodGroup>& group);
  void Deleted(const api::Shared<api::PodGroup>& group);

 private:
  void Enqueue(const std::string& group_key);
  void Reconcile(const std::string& group_key);

  framework::ClusterClient& client_;
  std::function<void(std::function<void()>)> defer_;
  std::set<std::string> queued_;
  // The groups by namespace/name, and each group's pods by namespace/name (a pod is listed
  // under the group its label names, whether or not the group exists yet).
  std::map<std::string, api::PodGroup> groups_;
  std::map<std::string, std::map<std::string, api::PodPtr>> members_;
};

}  // namespace muster::host
