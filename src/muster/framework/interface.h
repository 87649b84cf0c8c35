#pragma once

// The plugin interfaces, one per extension point (upstream pkg/scheduler/framework/interface.go).
// A plugin implements Plugin and any number of the point interfaces; the profile's configuration
// says at which points it runs. Contracts shared by all:
//   - A plugin never throws; failures are Statuses. The runtime stamps the plugin's name on a
//     returned Status and turns a code the point may not return into an Error.
//   - Filter and Score (and their PreFilterExtensions) run concurrently over nodes: they must not
//     write plugin members or CycleState; they are const.
//   - Everything else runs on the scheduling thread, one pod at a time.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "muster/api/intern.h"
#include "muster/api/time.h"
#include "muster/framework/client.h"
#include "muster/framework/cycle_state.h"
#include "muster/framework/events.h"
#include "muster/framework/node_info.h"
#include "muster/framework/status.h"

namespace muster::framework {

inline constexpr int64_t kMinNodeScore = 0;
inline constexpr int64_t kMaxNodeScore = 100;
inline constexpr int64_t kMaxTotalScore = INT64_MAX;
// The longest a pod may wait at Permit, whatever a plugin asks (upstream maxTimeout).
inline constexpr api::Duration kMaxPermitTimeout = std::chrono::minutes(15);

// A pod in the scheduling queue (upstream QueuedPodInfo).
struct QueuedPodInfo {
  PodInfoPtr info;
  api::Time timestamp{};                  // when it was last added to the queue
  api::Time initial_attempt_timestamp{};  // first time it was popped (or added, before that)
  bool attempted = false;
  int attempts = 0;
  // Plugins that rejected it in its last attempt (Unschedulable) or left it Pending.
  std::vector<std::string> unschedulable_plugins;
  std::vector<std::string> pending_plugins;
  bool gated = false;  // rejected by a PreEnqueue plugin
  std::string gating_plugin;
  // The earliest it may be retried, beyond its own backoff: a pod group's backoff, which its
  // members wait out together.
  api::Time backoff_until{};

  const api::Pod& pod() const { return info->pod; }
};

class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual std::string_view Name() const = 0;
};

// Runs when a pod is added to the queue; a non-success status holds it aside (gated, shown as
// SchedulingGated when the plugin is SchedulingGates) until an event re-runs it.
class PreEnqueuePlugin : public virtual Plugin {
 public:
  virtual Status PreEnqueue(const api::Pod& pod) = 0;
};

// Orders the activeQ. Exactly one per profile, and all profiles must agree.
// -1 when a < b, 1 when b < a, 0 when neither: a step of a three-way Compare.
template <typename T>
int ThreeWay(const T& a, const T& b) {
  return a < b ? -1 : b < a ? 1 : 0;
}

class QueueSortPlugin : public virtual Plugin {
 public:
  virtual bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const = 0;
  // Less as one three-way comparison: negative when a sorts before b, positive when b sorts
  // before a, 0 when neither. The queue orders through it, once per pair where Less would be
  // asked both ways; a plugin whose Less looks things up overrides it to look them up once.
  virtual int Compare(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
    if (Less(a, b)) return -1;
    return Less(b, a) ? 1 : 0;
  }
  // Whether the order is PrioritySort's: the higher priority (PodInfo::priority) first, then
  // the earlier QueuedPodInfo::timestamp. The queue then keeps both beside each pod in its heap
  // and compares them there, without reaching the pods.
  virtual bool OrdersByPriorityThenTimestamp() const { return false; }
};

// Which cluster events may make a pod this plugin rejected schedulable.
class EnqueueExtensions : public virtual Plugin {
 public:
  virtual std::vector<ClusterEventWithHint> EventsToRegister() const = 0;
};

// PreFilter may narrow the nodes to consider; absent node_names means all nodes.
struct PreFilterResult {
  std::optional<std::vector<api::Symbol>> node_names;
  // Set by the framework on the merged result: the plugins whose results narrowed it, sorted by
  // name (upstream's pluginsWithNodes). The nodes they left out are rejected in their name.
  std::vector<std::string> narrowed_by;

  bool AllNodes() const { return !node_names.has_value(); }
  // Intersection (upstream PreFilterResult.Merge).
  void Merge(const PreFilterResult& other);
};

// Incremental updates of PreFilter state, used when the filter is evaluated as if a pod were
// added to or removed from a node (nominated pods, preemption what-ifs).
class PreFilterExtensions {
 public:
  virtual ~PreFilterExtensions() = default;
  virtual Status AddPod(CycleState& state, const PodInfo& pod_to_schedule,
                        const PodInfo& pod_to_add, const NodeInfo& node) const = 0;
  virtual Status RemovePod(CycleState& state, const PodInfo& pod_to_schedule,
                           const PodInfo& pod_to_remove, const NodeInfo& node) const = 0;
};

class PreFilterPlugin : public virtual Plugin {
 public:
  // `nodes` is the snapshot's node list. Skip means this plugin's Filter has nothing to do.
  virtual Status PreFilter(CycleState& state, const PodInfo& pod, std::span<NodeInfo* const> nodes,
                           PreFilterResult* result) = 0;
  virtual const PreFilterExtensions* Extensions() const { return nullptr; }
};

class FilterPlugin : public virtual Plugin {
 public:
  virtual Status Filter(const CycleState& state, const PodInfo& pod,
                        const NodeInfo& node) const = 0;
  // Filter over many nodes at once: statuses[i], Success on entry, is set to nodes[i]'s status
  // where that is not Success; returns how many it set. The default calls Filter on each node.
  // The framework filters thousands of nodes per pod through this; a plugin overrides it to read
  // its cycle state once and keep the per-node loop tight, and then may implement Filter with
  // FilterOneNode.
  virtual size_t FilterNodes(const CycleState& state, const PodInfo& pod,
                             std::span<const NodeInfo* const> nodes,
                             std::span<Status> statuses) const;
};

// For plugins that override FilterNodes: their Filter, as FilterNodes over the one node.
Status FilterOneNode(const FilterPlugin& plugin, const CycleState& state, const PodInfo& pod,
                     const NodeInfo& node);

// The loop of a FilterNodes: statuses[i] = verdict(*nodes[i]) where that is not Success.
// Returns how many it set.
template <typename VerdictFn>
size_t FilterEachNode(std::span<const NodeInfo* const> nodes, std::span<Status> statuses,
                      VerdictFn&& verdict) {
  size_t rejected = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    Status s = verdict(*nodes[i]);
    if (s.IsSuccess()) continue;
    statuses[i] = std::move(s);
    ++rejected;
  }
  return rejected;
}

// The per-node statuses of a failed Filter pass; nodes not listed all have `absent`. A flat table:
// a failed cycle records a status for thousands of nodes, and an allocation per node cost more
// than the filtering itself.
class NodeToStatus {
 public:
  Status absent{Code::kUnschedulableAndUnresolvable};

  const Status& Get(api::Symbol node) const;
  // Records `status` for `node`, replacing an earlier one.
  void Set(api::Symbol node, Status status);
  // Room for `n` nodes without growing.
  void Reserve(size_t n);
  size_t size() const { return entries_.size(); }
  // (node, status) in the order first set.
  const std::vector<std::pair<api::Symbol, Status>>& entries() const { return entries_; }
  // Upstream FitError's histogram over `num_all_nodes` nodes, those without a status counting
  // with `absent`'s reasons: "<count> <reason>" per distinct reason, sorted as strings.
  std::vector<std::string> ReasonCounts(int32_t num_all_nodes) const;

 private:
  // The slot `node` has or would take in index_ (a power of two in size, never full).
  size_t Slot(api::Symbol node) const;
  void Rehash(size_t slots);

  // Open addressing on the node's symbol id: position in entries_ plus one, 0 when free.
  std::vector<uint32_t> index_;
  std::vector<std::pair<api::Symbol, Status>> entries_;
};

enum class NominatingMode { kNoop, kOverride };

struct PostFilterResult {
  api::Symbol nominated_node_name;
  NominatingMode mode = NominatingMode::kNoop;
};

class PostFilterPlugin : public virtual Plugin {
 public:
  virtual Status PostFilter(CycleState& state, const PodInfo& pod, const NodeToStatus& statuses,
                            PostFilterResult* result) = 0;
};

class PreScorePlugin : public virtual Plugin {
 public:
  virtual Status PreScore(CycleState& state, const PodInfo& pod,
                          std::span<NodeInfo* const> feasible) = 0;
};

struct NodeScore {
  api::Symbol name;
  int64_t score = 0;
};

class ScorePlugin : public virtual Plugin {
 public:
  virtual Status Score(const CycleState& state, const PodInfo& pod, const NodeInfo& node,
                       int64_t* score) const = 0;
  // Scores nodes[i] into scores[i] (name and score) for a range of the feasible nodes; the
  // framework scores through this. The default calls Score per node; a plugin overrides it to
  // do its per-cycle work (reading its cycle state) once per range instead of once per node.
  // Stops at, and returns, the first failure.
  virtual Status ScoreNodes(const CycleState& state, const PodInfo& pod,
                            std::span<NodeInfo* const> nodes, std::span<NodeScore> scores) const;
  // The (raw, normalized) score every node would get when this plugin's PreScore returned Skip
  // as a shortcut for "every node scores the same", where upstream scores them all: the
  // framework adds it to every total, so totals equal upstream's. nullopt: a skip means the
  // plugin does not score this pod at all (upstream skips it too).
  virtual std::optional<std::pair<int64_t, int64_t>> UniformScoreWhenSkipped() const {
    return std::nullopt;
  }
  // Maps the raw scores into [0, 100]; plugins whose Score is already in range return false.
  virtual bool HasNormalizeScore() const { return false; }
  virtual Status NormalizeScore(const CycleState& state, const PodInfo& pod,
                                std::span<NodeScore> scores) const {
    (void)state, (void)pod, (void)scores;
    return Status::OK();
  }
};

// For plugins that override ScoreNodes: their Score, as ScoreNodes over the one node.
Status ScoreOneNode(const ScorePlugin& plugin, const CycleState& state, const PodInfo& pod,
                    const NodeInfo& node, int64_t* score);

// Fills scores[i] with nodes[i]'s name and score(*nodes[i]): the loop of a ScoreNodes whose
// per-node part cannot fail.
template <typename ScoreFn>
void ScoreEachNode(std::span<NodeInfo* const> nodes, std::span<NodeScore> scores, ScoreFn&& score) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    scores[i] = NodeScore{nodes[i]->name(), score(*nodes[i])};
  }
}

class ReservePlugin : public virtual Plugin {
 public:
  virtual Status Reserve(CycleState& state, const PodInfo& pod, api::Symbol node) = 0;
  // Must be idempotent and must not fail: it may run for a Reserve that never ran.
  virtual void Unreserve(CycleState& state, const PodInfo& pod, api::Symbol node) = 0;
};

class PermitPlugin : public virtual Plugin {
 public:
  // Wait with *timeout: the pod waits until every waiting plugin allows it.
  virtual Status Permit(CycleState& state, const PodInfo& pod, api::Symbol node,
                        api::Duration* timeout) = 0;
};

class PreBindPlugin : public virtual Plugin {
 public:
  // Runs where `muster run` runs its binds: on a binder thread, touching only the cluster client
  // and the pod's own cycle state. Wait: the plugin's writes are made and the binding must wait
  // for the cluster to act on them (VolumeBinding waits for its claims to be bound); PreBindWait
  // then says when it may go on. The plugins after it run only then.
  virtual Status PreBind(CycleState& state, const PodInfo& pod, api::Symbol node) = 0;
  // Whether PreBind will act for the pod (upstream PreBindPreFlight, KEP-5278): Success when it
  // will write something, Skip when it will not. Asked on the scheduler's thread as the binding
  // begins; reads the cycle state, writes nothing.
  virtual Status PreBindPreFlight(const CycleState& state, const PodInfo& pod,
                                  api::Symbol node) const = 0;
  // Asked on the scheduler's thread once the cluster has taken in what happened at the instant
  // PreBind returned Wait, then whenever the cluster changes and every kPreBindPollPeriod, with
  // how long the pod has waited so far (upstream polls each second from the first second on:
  // the answers are the same, the pod is bound sooner). Success lets the binding go on, Wait
  // keeps it waiting, anything else fails it (Unreserve, backoff) as a failed PreBind does. The
  // plugin keeps its own timeout. Reads the listers; never writes to the cluster.
  virtual Status PreBindWait(CycleState& /*state*/, const PodInfo& /*pod*/, api::Symbol /*node*/,
                             api::Duration /*waited*/) {
    return Status::OK();
  }
};

// How often a binding waiting after PreBind asks again: upstream's volume binder polls each
// second.
inline constexpr api::Duration kPreBindPollPeriod = std::chrono::seconds(1);

class BindPlugin : public virtual Plugin {
 public:
  // Skip: not this plugin's pod; the next bind plugin is asked.
  virtual Status Bind(CycleState& state, const PodInfo& pod, api::Symbol node) = 0;
};

class PostBindPlugin : public virtual Plugin {
 public:
  virtual void PostBind(CycleState& state, const PodInfo& pod, api::Symbol node) = 0;
};

// muster's own extension point, the whole-group cycle: a plugin implementing it (Coscheduling,
// in its Group mode) names the gang a pod must be placed with. The scheduler then takes the
// gang's pending members out of the queue together and places them one after another against
// one snapshot, each seeing those placed before it, and keeps the placements only when at least
// min_count of the gang are placed (scheduler/group_cycle.cc).
//
// A Gang is what the cycle knows of a group, whatever API defines it: the plugin derives it from
// its own (scheduler-plugins' PodGroup for Coscheduling), and the cycle reads nothing else.
struct Gang {
  api::Symbol namespace_;
  api::Symbol name;
  // The members that must be placed together for any to be: PodGroup's minMember.
  int32_t min_count = 0;
  // What the gang needs of the cluster's free capacity before any member is placed; empty: no
  // such check (PodGroup's minResources).
  api::ResourceList min_resources;
  // Every live member (not terminal, not being deleted), placed or not.
  std::vector<const api::Pod*> members;
  // How long a gang that could not be placed waits at least before its next cycle; zero: its
  // members' own backoffs.
  api::Duration backoff{};
  // How long members wait at Permit for the rest (PodGroup's scheduleTimeoutSeconds); unset: the
  // plugin's default.
  std::optional<api::Duration> timeout;
  // The object the gang's status and events go to (its Scheduled condition, FailedScheduling),
  // and that object's conditions now, so that a condition is written only when it changes.
  ObjectReference object;
  std::vector<api::Condition> conditions;
  // The type of the condition the cycle keeps on `object` ("Scheduled" for scheduler-plugins'
  // PodGroup, "PodGroupScheduled" or "PodGroupInitiallyScheduled" for Kubernetes' own); empty:
  // the object has no status (a v1alpha1 Workload).
  std::string_view condition_type = "Scheduled";
  // Whether a True condition stays True when a later cycle fails (Kubernetes' PodGroup: the
  // scheduler never writes it back to False).
  bool condition_stays_true = false;
  // The quorum's name in the API, for messages: "minMember" or "minCount".
  std::string_view quorum_name = "minMember";
  // The node label whose one domain (a zone, a rack) all members must share (KEP-5732's
  // schedulingConstraints.topology); empty: none. The domain is chosen for the gang as a whole.
  api::Symbol topology_key;
  // A composite group's tree (KEP-6012: a CompositePodGroup and what names it as its parent):
  // its children in the order they are placed, each a group of members or a composite of its
  // own, of which min_count must be placed for any to be (a group placed when its own min_count
  // is). Empty for a group. A composite's `members` are every member of its tree.
  std::vector<Gang> children;

  bool composite() const { return !children.empty(); }
  // Calls fn on each group of members of the tree, in order (on this gang, when it is one).
  template <typename Fn>
  void ForEachGroup(const Fn& fn) const {
    if (!composite()) {
      fn(*this);
      return;
    }
    for (const Gang& child : children) child.ForEachGroup(fn);
  }
  // namespace/name, for logs.
  std::string Key() const { return namespace_.string() + "/" + name.string(); }
};

class GroupPlugin : public virtual Plugin {
 public:
  // Whether the plugin places the gangs of `gang`'s kind (its API), whatever their names.
  virtual bool Handles(const api::GangRef& gang) const = 0;
  // The gang `pod` is placed with, or nullopt: the pod is placed on its own.
  virtual std::optional<Gang> GroupOf(const PodInfo& pod) = 0;
  // Checks the gang as a whole before its members are placed (enough members without gates,
  // minResources against `nodes`); a rejection's message says why the gang cannot be placed.
  // Called only while fewer than min_count members are placed.
  virtual Status PreFilterGroup(const Gang& gang, std::span<NodeInfo* const> nodes) = 0;
  // The cycle's decision: the gang placed (min_count of it or more), or not.
  virtual void GroupCycleDone(const Gang& gang, bool placed) { (void)gang, (void)placed; }
};

}  // namespace muster::framework
