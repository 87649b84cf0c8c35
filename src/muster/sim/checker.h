#pragma once

// The simulation's invariant checker (`muster simulate --check`, and every simulation in the
// tests). It watches the in-memory cluster as one more observer and looks into the scheduler
// after every turn of the host's loop, and stops the run at the first broken invariant, naming
// the event after which it was seen:
//
//   at each binding    the node has room for the pod: for every resource the pod requests, and
//                      for its pod count, the requests of the pods bound there (tallied here from
//                      the cluster, not from the scheduler's cache) stay within allocatable;
//                      and the pod passes its profile's PreFilter and Filter plugins (taints,
//                      affinity, ports, spread's DoNotSchedule skew, ...) on the cluster as it is
//                      at that moment, through a cache and profiles of the checker's own;
//                      a pod is bound once: its node never changes; every claim it uses is
//                      bound (volumeName and bind-completed), when its profile runs
//                      VolumeBinding, whose PreBind waits for that;
//   after each turn    every pending pod of the scheduler's is in exactly one place: the queue
//                      (active, backoff, unschedulable or gated), waiting at Permit, or assumed
//                      and binding; every bound pod is in the scheduler's cache on its node and
//                      nowhere else; the queue holds no pod that is gone or bound, and the cache
//                      no pod beyond these;
//                      every nomination is that of a pending pod of the scheduler's (a pod that
//                      was bound, finished or deleted holds no room);
//   at the end         when the run ended because nothing more could happen: no pending pod of
//                      the scheduler's (gated pods and gang members aside) passes PreFilter and
//                      Filter on some node of the final cluster, counting the pods nominated
//                      there, as the scheduler would (its last rejection no longer holds, and
//                      nothing retried it);
//   after each instant a PodGroup whose first members bound at that instant has at least
//                      minMember of them bound (for pods of a profile with a group plugin:
//                      without Coscheduling a PodGroup promises nothing); a gang evicted
//                      whole (a scheduler-plugins PodGroup, a scheduling.k8s.io PodGroup with
//                      disruptionMode PodGroup/all) that lost a member to preemption has lost
//                      every member that ran with it: none is left running below its quorum.
//
// Cost: the bind checks are one Filter pass on one node; the turn checks walk every pod, so a
// run with --check takes time proportional to pods times scheduling cycles.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "muster/api/gang.h"
#include "muster/api/scheduler_config.h"
#include "muster/cluster/memory.h"
#include "muster/framework/framework.h"
#include "muster/framework/registry.h"
#include "muster/framework/snapshot.h"
#include "muster/scheduler/cache.h"
#include "muster/scheduler/scheduler.h"

namespace muster::sim {

// A broken invariant.
struct Violation {
  api::Duration at;     // simulated time
  std::string event;    // the event after which it was seen: "bind default/web-1 to node-2"
  std::string message;  // what is broken
  // "at 12s, after bind default/web-1 to node-2: <message>"
  std::string String() const;
};

class Checker final : public cluster::TypedObserver<Checker>, private framework::SchedulerServices {
 public:
  // Checks `scheduler` serving `cluster`. Its own profiles are built from the same configuration
  // and registry as the scheduler's (which were valid, so this cannot fail).
  Checker(const cluster::MemoryCluster& cluster, scheduler::Scheduler& scheduler,
          framework::Clock& clock, api::Time epoch, const api::SchedulerConfiguration* config,
          const framework::Registry& registry, const api::Plugins& default_plugins);
  ~Checker() override;

  // The first violation seen; the run stops at it.
  const std::optional<Violation>& violation() const { return violation_; }

  // After a turn of the host's loop (timers fired, a scheduling cycle run).
  void AfterTurn();
  // After the scheduling cycle of `pod_key`: names the event for what AfterTurn finds.
  void Attempted(std::string_view pod_key);
  // Before the clock moves on from the current instant, and when the run ends.
  void EndOfInstant();
  // When the run ended because nothing more could happen (not at --until).
  void EndOfRun();

  // ---- ClusterObserver ----
  void Added(const api::PodPtr& pod);
  void Updated(const api::PodPtr& old_pod, const api::PodPtr& new_pod);
  void Deleted(const api::PodPtr& pod);
  void Added(const api::Shared<api::Node>& node);
  void Updated(const api::Shared<api::Node>& old_node, const api::Shared<api::Node>& new_node);
  void Deleted(const api::Shared<api::Node>& node);
  void GangDefined(api::Symbol ns, const api::GangDefinition& gang);
  void GangRemoved(api::Symbol ns, api::Symbol name);

 private:
  // ---- SchedulerServices, for the checker's own profiles ----
  const framework::Snapshot& snapshot() const override { return snapshot_; }
  framework::Clock& clock() override { return clock_; }
  framework::WaitingPods& waiting_pods() override { return scheduler_.waiting_pods(); }
  framework::ClusterClient& client() override { return scheduler_.client(); }
  const framework::ObjectLister& lister() const override { return scheduler_.lister(); }
  void ActivatePods(std::span<const std::string>) override {}
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(api::Symbol) const override { return {}; }
  int parallelism() const override { return 1; }

  void Event(std::string what);
  void Fail(std::string message);
  // The checks of a binding of `pod` (as it was before) to `node`.
  void CheckBinding(const api::Pod& pod, api::Symbol node);
  void CheckRoom(const api::Pod& pod, api::Symbol node);
  void CheckFilters(const api::Pod& pod, api::Symbol node);
  void CheckClaims(const api::Pod& pod, api::Symbol node);
  // Each of the pod's ResourceClaims allocated, reserved for it and reaching the node; no
  // device allocated twice.
  void CheckResourceClaims(const api::Pod& pod, api::Symbol node);
  void CheckPlaces();
  void CheckNominations();
  // The checker's own profile for the pod, or nullptr (another scheduler's pod).
  const framework::Framework* Profile(const api::Pod& pod) const;
  // A node of the snapshot where the pod passes PreFilter and Filter, if any.
  std::optional<std::string> FitsSomewhere(const framework::Framework& fwk, const api::Pod& pod);
  // What a preemption evicts `pod` with (api::EvictionUnit, from the cluster's objects, apart
  // from DefaultPreemption's lister); empty: the pod alone.
  api::GangRef EvictionUnit(const api::Pod& pod) const;
  // The root of the composite group's tree the PodGroup `group_key` is in, or nullptr (none, or
  // a parent missing, or the parents loop).
  const api::CompositePodGroup* RootOf(const std::string& group_key) const;
  // Whether minGroupCount of `composite`'s children are whole (a PodGroup: minCount of its
  // members bound; a composite: by this rule), with their numbers.
  // `depth`: how far below the root (deeper than kMaxGroupParents counts nothing).
  bool TreeWhole(const api::CompositePodGroup& composite, int depth, int32_t* whole,
                 int32_t* children) const;
  // The tally of the pods bound to each node, from the cluster's events.
  void Tally(const api::Pod& pod, int sign);

  const cluster::MemoryCluster& cluster_;
  scheduler::Scheduler& scheduler_;
  framework::Clock& clock_;
  const api::Time epoch_;
  std::vector<std::unique_ptr<framework::Framework>> profiles_;
  scheduler::Cache cache_;
  framework::Snapshot snapshot_;
  // The cluster as its events have told it so far (the cluster itself may be ahead: its events
  // arrive on the clock): node -> allocatable, node -> requests of its pods, gang
  // ("namespace/name") -> minCount.
  std::map<std::string, api::Resource, std::less<>> allocatable_;
  std::map<std::string, api::Resource, std::less<>> bound_requests_;
  std::map<std::string, int32_t, std::less<>> min_count_;
  // gang -> members bound while it was defined; groups whose first binding was this instant.
  std::map<std::string, int, std::less<>> group_bound_;
  // Each bound gang's minCount, from its definition (min_count_) when it was bound.
  std::map<std::string, int32_t, std::less<>> group_min_count_;
  std::set<std::string, std::less<>> groups_first_bound_now_;
  // Pods that ran beside a member of their gang when the scheduler preempted it, this instant,
  // for a gang evicted whole: each must be gone (or going) by the end of the instant, with the
  // gang for the message.
  std::map<std::string, std::string, std::less<>> must_go_with_gang_;
  std::string last_event_ = "the start";
  std::optional<Violation> violation_;
};

}  // namespace muster::sim
