#pragma once

// What the scheduler writes to a cluster (binding, the PodScheduled condition, preemption's
// deletions, PodGroup status, events): the interface the cluster layer implements, for the
// memory cluster and for a real API server alike, and that plugins reach through their Handle.

#include <optional>
#include <string>

#include "muster/api/types.h"
#include "muster/framework/status.h"

namespace muster::framework {

// A Kubernetes Event the scheduler posts (Scheduled, FailedScheduling, Preempted...).
struct EventRecord {
  std::string kind = "Pod";
  std::string namespace_;
  std::string name;
  std::string type;  // Normal, Warning
  std::string reason;
  std::string action;
  std::string message;
};

// The scheduler's writes to the cluster (the `cluster` layer implements it for memory and a real
// API server). A failed write returns an Error status and changes nothing.
class ClusterClient {
 public:
  virtual ~ClusterClient() = default;
  // POST pods/binding.
  virtual Status Bind(const api::Pod& pod, api::Symbol node) = 0;
  // Sets the PodScheduled condition (status "False", reason, message) and, when
  // `nominated_node` is set, status.nominatedNodeName ("" clears it).
  virtual Status UpdatePodCondition(const api::Pod& pod, const api::PodCondition& condition,
                                    const std::optional<std::string>& nominated_node) = 0;
  // Deletes a pod (preemption victims).
  virtual Status DeletePod(const api::Pod& pod) = 0;
  virtual Status UpdatePodGroupStatus(const api::PodGroup& group,
                                      const api::PodGroup::Status& status) = 0;
  // Sets one condition of the PodGroup's status (replacing the one of its type), leaving the
  // phase and counters, which the PodGroup controller writes, as they are. By default through
  // UpdatePodGroupStatus with `group`'s status; a real API server patches the conditions alone.
  virtual Status UpdatePodGroupCondition(const api::PodGroup& group,
                                         const api::PodCondition& condition) {
    api::PodGroup::Status status = group.status;
    api::SetCondition(status.conditions, condition);
    return UpdatePodGroupStatus(group, status);
  }
  virtual void RecordEvent(EventRecord event) = 0;
};

}  // namespace muster::framework
