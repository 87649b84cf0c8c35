#pragma once

// What a plugin may use besides its own state (upstream framework.Handle): the snapshot, the
// clock, the pods waiting at Permit, read access to cluster objects, and the cluster writes the
// scheduler makes. Everything here is used from the scheduling thread unless it says otherwise.

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/types.h"
#include "muster/framework/client.h"
#include "muster/framework/clock.h"
#include "muster/framework/object_table.h"
#include "muster/framework/snapshot.h"
#include "muster/framework/status.h"

namespace muster::framework {

class Framework;
class Extender;
class Metrics;

// A pod held at Permit (upstream framework.WaitingPod).
class WaitingPod {
 public:
  virtual ~WaitingPod() = default;
  virtual const api::Pod& pod() const = 0;
  virtual api::Symbol node() const = 0;
  // Plugins that returned Wait and have not allowed the pod yet.
  virtual std::vector<std::string> PendingPlugins() const = 0;
  // Once every pending plugin has allowed it, the pod's binding cycle goes on.
  virtual void Allow(std::string_view plugin) = 0;
  // The pod is unreserved and goes back to the queue as Unschedulable, with `message`.
  virtual void Reject(std::string_view plugin, std::string message) = 0;
};

class WaitingPods {
 public:
  virtual ~WaitingPods() = default;
  // Calls fn for each waiting pod, in the order they started waiting. fn may Allow or Reject.
  virtual void Iterate(const std::function<void(WaitingPod&)>& fn) = 0;
  // nullptr when the pod (by uid) is not waiting.
  virtual WaitingPod* Get(std::string_view uid) = 0;
};

// Read access to the objects the scheduler's informers hold. Pointers stay valid until the
// scheduling thread next handles a cluster event.
class ObjectLister {
 public:
  virtual ~ObjectLister() = default;
  // Every pod the scheduler knows (pending and assigned) in `ns` carrying label key=value.
  virtual std::vector<const api::Pod*> PodsWithLabel(api::Symbol ns, api::Symbol key,
                                                     api::Symbol value) const = 0;
  // Every pod the scheduler knows (pending and assigned, terminal too) in `ns` that
  // api::GangOf places in `gang`, by namespace/name.
  virtual std::vector<const api::Pod*> PodsInGang(api::Symbol ns,
                                                  const api::GangRef& gang) const = 0;
  // The objects of the other kinds a cluster delivers (but nodes: see the snapshot).
  virtual const ObjectTables& objects() const = 0;

  // An object by namespace and name, or by name for a cluster-scoped kind; nullptr if none.
  template <typename T>
  const T* Get(api::Symbol ns, api::Symbol name) const {
    return objects().Of<T>().Get(ns, name);
  }
  template <typename T>
  const T* Get(api::Symbol name) const {
    return objects().Of<T>().Get(api::Symbol(), name);
  }
  // The objects of a kind in namespace `ns`, by name.
  template <typename T>
  std::vector<const T*> List(api::Symbol ns) const {
    return objects().Of<T>().List(ns);
  }
};

class Handle {
 public:
  virtual ~Handle() = default;
  virtual const Snapshot& snapshot() const = 0;
  virtual Clock& clock() = 0;
  virtual WaitingPods& waiting_pods() = 0;
  virtual ClusterClient& client() = 0;
  virtual const ObjectLister& lister() const = 0;
  // Moves these pods (by namespace/name) from wherever they wait in the queue to activeQ.
  virtual void ActivatePods(std::span<const std::string> pod_keys) = 0;
  // The pod in its scheduling cycle is being turned away for a reason that lapses at `at` (its
  // group backing off), a reason decided when the cluster was at `version` (ClusterVersion): it
  // waits in backoffQ until then and is retried, whatever events come, rather than parked until
  // an event. (A simulation may end before the retry if the cluster is still at `version`: the
  // retry would meet the cluster that decided the reason, and repeat it.)
  virtual void RetryAt(const std::string& pod_key, api::Time at, uint64_t version) {
    (void)pod_key, (void)at, (void)version;
  }
  // A number that changes whenever the cluster changes in a way that may change an attempt's
  // answer (the queue's count of changes).
  virtual uint64_t ClusterVersion() const { return 0; }
  // The QueueSort order of these pods changed (their group's sort time): the queue re-sorts them.
  virtual void QueueOrderChanged(std::span<const std::string> pod_keys) { (void)pod_keys; }
  // Pods that preemption nominated to `node` (upstream PodNominator), in nomination order.
  virtual std::vector<PodInfoPtr> NominatedPodsForNode(api::Symbol node) const = 0;
  // The node `pod` is nominated to as the scheduler knows it: its own nomination, which the
  // informer's copy of the pod may not show yet (upstream syncs the pending status patch into
  // the pod it pops), else the pod's field.
  virtual api::Symbol NominatedNodeOf(const api::Pod& pod) const {
    return pod.status.nominated_node_name;
  }
  // The profile this plugin belongs to (for preemption's what-if Filter runs).
  virtual const Framework& framework() const = 0;
  virtual int parallelism() const = 0;
  // The scheduler's podInitialBackoffSeconds: how long a pod that failed waits before its retry.
  virtual api::Duration pod_initial_backoff() const { return std::chrono::seconds(1); }
  // The scheduler's metrics, where plugins may add series of their own; nullptr when nothing
  // records them (unit tests).
  virtual Metrics* metrics() { return nullptr; }
  // The scheduler's extenders, in the order it calls them (ignorable ones last).
  virtual std::span<Extender* const> extenders() const { return {}; }
};

}  // namespace muster::framework
