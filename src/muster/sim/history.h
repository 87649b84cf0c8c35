#pragma once

// What a simulation went through, for the HTML report (report/html.h): how many pods were in
// each state over virtual time, each gang's milestones, and the most each node had requested
// at once. It is one more observer of the in-memory cluster, always on, so it must cost nothing
// a large run would notice: each pod event is O(1) (a few counters, one hash lookup for its
// group, and the pod's requests when it lands on or leaves a node), and a sample is kept only
// when the counts change, at most one per virtual instant: later changes at the same instant
// overwrite it, so a pod bound and started at once is never seen pending-then-running there.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "muster/api/resources.h"
#include "muster/api/types.h"
#include "muster/cluster/cluster.h"
#include "muster/framework/clock.h"

namespace muster::sim {

// Pods by state, as the report's STATUS column names them.
struct PodCounts {
  int32_t pending = 0;  // Pending and not gated (bound but not started yet counts here)
  int32_t gated = 0;    // SchedulingGated: unbound with scheduling gates
  int32_t running = 0;
  int32_t succeeded = 0;
  int32_t failed = 0;

  int32_t Total() const { return pending + gated + running + succeeded + failed; }
  friend bool operator==(const PodCounts&, const PodCounts&) = default;
};

struct CountSample {
  api::Duration at;  // since the simulation's start
  PodCounts counts;  // from `at` until the next sample
};

// What a gang is doing, by its members: short of minCount bound, bound but short of minCount
// running, running (minCount running or succeeded), finished (every member succeeded, minCount
// at least; a group stays finished).
enum class GroupState { kWaiting, kQuorum, kRunning, kFinished };

struct GroupStateChange {
  api::Duration from;  // since the simulation's start
  GroupState state;    // from `from` until the next change
};

// One gang's milestones, each the first time it was reached, as times since the
// simulation's start (nullopt: never). A milestone needs the group to exist: members that run
// before their gang is defined (its PodGroup created) reach it when the group is.
struct GroupTimeline {
  std::string namespace_;
  std::string name;
  int32_t min_count = 0;
  std::optional<api::Duration> created;
  std::optional<api::Duration> first_member;  // its first member pod was created
  std::optional<api::Duration> quorum;        // minCount members bound
  std::optional<api::Duration> running;       // minCount members running or succeeded
  std::optional<api::Duration> finished;      // every member succeeded, minCount at least
  std::optional<api::Duration> deleted;
  // Its state from its creation on, one entry per change (at most one per instant): unlike the
  // milestones, it goes back, as when preemption takes members of a running group.
  std::vector<GroupStateChange> states;
  // Its member pods now (those that exist), and how many of them are bound, running, succeeded.
  int32_t members = 0;
  int32_t bound = 0;
  int32_t running_now = 0;
  int32_t succeeded_now = 0;
};

// What the pods bound to a node request (PodFitRequests: allowed_pod_number counts pods).
struct NodeUsage {
  api::Resource requested;  // now: the pods bound there that have not finished
  api::Resource peak;       // each resource's largest `requested` during the run
};

class History final : public cluster::TypedObserver<History> {
 public:
  History(const framework::Clock& clock, api::Time epoch) : clock_(clock), epoch_(epoch) {}

  // Time order, one per instant at which the counts changed.
  const std::vector<CountSample>& samples() const { return samples_; }
  const PodCounts& counts() const { return counts_; }
  // By namespace/name: every group that existed or that a pod named.
  const std::map<std::string, GroupTimeline>& groups() const { return groups_; }
  // The node's usage, nullptr when no pod was ever bound to it.
  const NodeUsage* node(api::Symbol name) const;
  // Every node's together (its peak is the cluster's, not the sum of the nodes' peaks).
  const NodeUsage& total() const { return total_; }

  // ---- ClusterObserver ----
  void Added(const api::PodPtr& pod);
  void Updated(const api::PodPtr& old_pod, const api::PodPtr& new_pod);
  void Deleted(const api::PodPtr& pod);
  void GangDefined(api::Symbol ns, const api::GangDefinition& gang);
  void GangRemoved(api::Symbol ns, api::Symbol name);

 private:
  // A pod's part in the counts, its node's usage and its group's members: +1 adds it, -1
  // takes it away.
  void Apply(const api::Pod& pod, int sign);
  // Adds the requests of a pod that lands on its node (+1) or takes them away (-1).
  void Charge(const api::Pod& pod, int sign);
  GroupTimeline& Group(api::Symbol namespace_, api::Symbol name);
  // Sets the milestones `group` has reached now, and its state.
  void Reached(GroupTimeline& group);
  void Sample();
  api::Duration Now() const { return clock_.Now() - epoch_; }

  const framework::Clock& clock_;
  const api::Time epoch_;
  PodCounts counts_;
  std::vector<CountSample> samples_;
  std::map<std::string, GroupTimeline> groups_;
  // PairId(namespace, name) -> groups_' entry (std::map nodes do not move).
  std::unordered_map<uint64_t, GroupTimeline*> group_index_;
  std::unordered_map<api::Symbol, NodeUsage> nodes_;
  NodeUsage total_;
};

}  // namespace muster::sim
