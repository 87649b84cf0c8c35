#pragma once

// The scheduler (upstream pkg/scheduler Scheduler): informer handlers feeding the object store,
// the cache and the queue (informer_handlers.cc), and scheduleOne, the scheduling cycle followed
// by the binding cycle (schedule_one.cc). One instance serves every profile. Driven from one
// thread: the host calls the On* handlers and ScheduleOne; timers (backoff, Permit timeouts)
// arrive through the Clock on the same thread.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "muster/api/scheduler_config.h"
#include "muster/framework/extender.h"
#include "muster/framework/framework.h"
#include "muster/framework/group_preemption.h"
#include "muster/framework/loop_pool.h"
#include "muster/framework/trace.h"
#include "muster/scheduler/cache.h"
#include "muster/scheduler/object_store.h"
#include "muster/scheduler/profiles.h"
#include "muster/scheduler/queue.h"
#include "muster/scheduler/waiting_pods.h"

namespace muster::scheduler {

struct SchedulerOptions {
  QueueOptions queue;
  int parallelism = 16;
  std::optional<int32_t> percentage_of_nodes_to_score;  // global; a profile's own wins
  uint64_t seed = 0;  // ties between equally scored nodes are broken with this
  // The NominatedNodeNameForExpectation feature gate (KEP-5278, beta and on since 1.35): a pod
  // held at Permit, or whose PreBind will act, is nominated to its node as its binding begins.
  bool nominate_expected_node = true;
};

// Counters for reports and benchmarks.
struct SchedulerStats {
  uint64_t attempts = 0;
  uint64_t scheduled = 0;
  uint64_t unschedulable = 0;
  uint64_t errors = 0;
};

class Scheduler final : public framework::SchedulerServices {
 public:
  // Builds the profiles of `config` (nullptr: the default profile) from `registry`. Returns
  // nullptr with *errors filled when the configuration is invalid.
  static std::unique_ptr<Scheduler> Create(const api::SchedulerConfiguration* config,
                                           const framework::Registry& registry,
                                           const api::Plugins& default_plugins,
                                           framework::Clock& clock,
                                           framework::ClusterClient& client, uint64_t seed,
                                           std::vector<std::string>* errors);
  ~Scheduler() override;

  // ---- informer handlers (informer_handlers.cc), for every kind of api::ClusterKinds ----
  // Pods go to the queue or the cache, nodes to the cache; an object of any other kind is kept
  // for the lister, and its event requeues the pods a plugin registered it for (upstream adds
  // a kind's handlers only when a plugin registered for it). PodGroup updates that touch only
  // status are told apart, as Coscheduling asks.
  template <typename T>
  void OnAdd(const api::Shared<T>& object);
  template <typename T>
  void OnUpdate(const api::Shared<T>& old_object, const api::Shared<T>& new_object);
  template <typename T>
  void OnDelete(const api::Shared<T>& object);

  // Runs one scheduling cycle when the queue has a pod to pop; false when it had none
  // (schedule_one.cc).
  bool ScheduleOne();
  // Whether the queue has a pod to pop: in activeQ, or in backoffQ for an idle scheduler to take
  // (SchedulerPopFromBackoffQ).
  bool HasActivePods() const { return queue_.CanPop(); }
  // The pod the last ScheduleOne attempted (namespace/name).
  const std::string& last_attempted() const { return last_attempted_; }
  // Whether another cycle could change anything before the cluster changes: false while a pod
  // is active, waiting at Permit or binding, or backing off without having been tried since the
  // cluster last changed. Pods parked unschedulable wait for an event; a time-driven front end
  // (the simulation) stops once this holds and it has nothing left to do itself. A pod held at
  // PreEnqueue whose report is due (gate_report.cc) keeps it unsettled until the report is made.
  bool Settled() const { return queue_.Settled() && !gate_sweep_; }

  const SchedulingQueue& queue() const { return queue_; }
  // The cache of nodes and their pods, assumed ones included (read by the invariant checker).
  const Cache& cache() const { return cache_; }
  const SchedulerStats& stats() const { return stats_; }
  // Scheduling attempts of a pod so far (namespace/name).
  int Attempts(const std::string& pod_key) const;
  // Whether `pod` is one this scheduler's profiles schedule.
  bool Responsible(const api::Pod& pod) const { return profiles_.For(pod) != nullptr; }
  const framework::Framework* ProfileFor(const api::Pod& pod) const { return profiles_.For(pod); }
  std::vector<std::string> scheduler_names() const { return profiles_.SchedulerNames(); }

  // ---- SchedulerServices ----
  const framework::Snapshot& snapshot() const override { return snapshot_; }
  framework::Clock& clock() override { return clock_; }
  framework::WaitingPods& waiting_pods() override { return waiting_; }
  framework::ClusterClient& client() override { return client_; }
  const framework::ObjectLister& lister() const override { return store_; }
  void ActivatePods(std::span<const std::string> pod_keys) override;
  void RetryAt(const std::string& pod_key, api::Time at, uint64_t version) override {
    queue_.RetryAt(pod_key, at, version);
  }
  uint64_t ClusterVersion() const override { return queue_.change_seq(); }
  void QueueOrderChanged(std::span<const std::string> pod_keys) override {
    queue_.Reorder(pod_keys);
  }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(api::Symbol node) const override {
    return queue_.NominatedPodsForNode(node);
  }
  api::Symbol NominatedNodeOf(const api::Pod& pod) const override {
    return queue_.NominatedNodeOf(pod);
  }
  int parallelism() const override { return options_.parallelism; }
  api::Duration pod_initial_backoff() const override { return options_.queue.initial_backoff; }
  framework::Metrics* metrics() override { return &metrics_; }
  const framework::Metrics& metrics() const { return metrics_; }
  std::span<framework::Extender* const> extenders() const override { return extenders_; }

  // The configuration's extenders (see framework/extender.h), called in this order with the
  // ignorable ones moved last, as upstream orders them.
  void SetExtenders(std::vector<std::shared_ptr<framework::Extender>> extenders);

  // Sets the gauges that mirror the queue and the cache (pending pods, cache size). The host
  // calls it after each turn of its loop: a handful of stores.
  void PublishGauges();

  // How the binding cycle's PreBind and Bind plugins run. By default, at once on the
  // scheduler's thread (simulate and bench, deterministic). `muster run` gives a runner that
  // calls `work` on a binder thread, several binds in flight as upstream's goroutines, and
  // `done` with its status back on the scheduler's thread. `work` touches only the cluster
  // client and the pod's own cycle state.
  using BindRunner = std::function<void(std::function<framework::Status()> work,
                                        std::function<void(framework::Status)> done)>;
  void SetBindRunner(BindRunner runner) { bind_runner_ = std::move(runner); }

  // Records the attempts of the pods `traced` selects (see framework/trace.h), for `muster
  // explain`. Without it, no attempt is recorded.
  void TracePods(std::function<bool(const api::Pod&)> traced) { traced_ = std::move(traced); }
  // The last recorded attempt of each traced pod, by namespace/name.
  const std::map<std::string, std::shared_ptr<framework::AttemptTrace>>& traces() const {
    return traces_;
  }

 private:
  struct Diagnosis;
  struct BindingContext;
  struct GroupMember;
  class GangTrial;
  class TreePlacer;

  Scheduler(SchedulerOptions options, framework::Clock& clock, framework::ClusterClient& client);

  // ---- the scheduling and binding cycles (schedule_one.cc) ----
  // A new attempt's cycle state: timed when `sample`, recorded when the pod is traced.
  std::unique_ptr<framework::CycleState> NewCycleState(const framework::Framework& fwk,
                                                       const framework::PodInfo& pod, bool sample);
  framework::Status SchedulePod(const framework::Framework& fwk, framework::CycleState& state,
                                const framework::PodInfo& pod, api::Symbol* host,
                                Diagnosis* diagnosis);
  std::vector<framework::NodeInfo*> FindNodesThatFitPod(const framework::Framework& fwk,
                                                        framework::CycleState& state,
                                                        const framework::PodInfo& pod,
                                                        Diagnosis* diagnosis,
                                                        framework::Status* error);
  // Filters `nodes` from the round-robin start until `to_find` fit; see schedule_one.cc.
  std::vector<framework::NodeInfo*> FilterNodes(const framework::Framework& fwk,
                                                framework::CycleState& state,
                                                const framework::PodInfo& pod,
                                                const std::vector<framework::NodeInfo*>& nodes,
                                                size_t to_find, bool keep_rejections,
                                                Diagnosis* diagnosis, framework::Status* error);
  int32_t NumFeasibleNodesToFind(const framework::Framework& fwk, int32_t num_nodes) const;
  // Whether an extender filters nodes for `pod`: then Filter keeps every rejection, as the
  // extenders may turn the remaining nodes away too.
  bool ExtendersFilter(const api::Pod& pod) const;
  // Upstream findNodesThatPassExtenders: the extenders that filter, in order, each on the nodes
  // the one before kept; their rejections go to `diagnosis`. An error from an extender that is
  // not ignorable ends the attempt (*error).
  std::vector<framework::NodeInfo*> FindNodesThatPassExtenders(
      const framework::PodInfo& pod, std::vector<framework::NodeInfo*> feasible,
      framework::CycleState& state, Diagnosis* diagnosis, framework::Status* error);
  // Upstream prioritizeNodes' extender half: each interested prioritizer's scores, scaled to
  // the plugins' range and weighted, added to `totals`. A failed call adds nothing. False when
  // no extender was asked (totals unchanged).
  bool AddExtenderScores(const framework::PodInfo& pod, std::span<framework::NodeInfo* const> nodes,
                         framework::CycleState& state, std::vector<int64_t>& totals);
  // Upstream extendersBinding: the first binder extender interested in the pod binds it
  // (*bound); an ignorable one that fails is passed over.
  framework::Status ExtendersBinding(const api::Pod& pod, api::Symbol node, bool* bound);
  // A pod that fits no node (or failed): PostFilter (preemption) for a fit failure, then back to
  // the queue with its diagnosis (HandleSchedulingFailure), and out of flight.
  void FailAttempt(const framework::Framework& fwk, framework::CycleState& state,
                   const framework::Stopwatch& started, framework::QueuedPodInfo queued,
                   framework::Status status, Diagnosis& diagnosis);
  // Assumes the pod on `host` in the cache; nullptr when the cache refused it (the pod is then
  // back in the queue).
  std::shared_ptr<BindingContext> Assume(const framework::Framework& fwk,
                                         std::unique_ptr<framework::CycleState> state,
                                         framework::QueuedPodInfo queued, api::Symbol host,
                                         const framework::Stopwatch& started);
  // Runs Reserve; on a rejection the pod leaves through Unassume and this returns false.
  bool Reserve(const BindingContext& ctx);
  // Runs Permit: on to the binding cycle, to wait at Permit, or out through Unassume.
  void Permit(std::shared_ptr<BindingContext> ctx);
  // The pod passed Permit and goes on to bind (see schedule_one.cc).
  void Commit(BindingContext& ctx);

  // ---- the whole-group cycle (group_cycle.cc) ----
  // Places `popped` and its group's pending members, taken from the queue, against one
  // snapshot; keeps the placements when minMember of the group are placed, else undoes them
  // all and requeues every member with one explanation.
  void ScheduleGroup(const framework::Framework& fwk, framework::GroupPlugin& plugin,
                     framework::QueuedPodInfo popped, const framework::Gang& gang);
  // Topology-aware placement: restricts the gang's members to one domain of its topology key,
  // the one where its quorum fits leaving the least of the domain free (a tight fit keeps the
  // roomier domains whole for larger gangs), or the one where most fit when none has room for
  // the quorum (*note then says so, for the group's message). Members on a node already fix
  // the domain. Each domain is tried with the members placed one after another, as the cycle
  // places them, and undone.
  framework::Status ChooseDomain(const framework::Framework& fwk, const framework::Gang& gang,
                                 const std::vector<framework::QueuedPodInfo>& pending,
                                 int32_t assigned, std::string* note);
  // Places `members` one after another as the group cycle does, each assumed in the cache for
  // those after it, calls `while_placed` (with the snapshot showing them), then forgets them and
  // returns where each went. With `fixed` (an earlier result), its members are placed in its
  // order, each only on the node it had there, and a member it does not list stays out. No
  // trace or metric records a trial.
  std::vector<framework::TrialPlacement> TrialPlace(
      const framework::Framework& fwk, std::span<const framework::PodInfo* const> members,
      std::span<const framework::TrialPlacement> fixed, const std::function<void()>& while_placed);
  // Gang-aware preemption (group_preemption.cc): `plugin` (the profile's GroupPostFilterPlugin),
  // given a trial of the gang's `members` (in the cycle's order) on the cluster as it is now.
  // Its status, with *nominations its choice of node for each member.
  framework::Status PreemptForGroup(framework::GroupPostFilterPlugin& plugin,
                                    const framework::Framework& fwk, const framework::Gang& gang,
                                    std::span<const framework::PodInfo* const> members,
                                    int32_t assigned, framework::AttemptTrace* trace,
                                    std::vector<framework::TrialPlacement>* nominations);
  // The scheduler's one write of a gang's status: the gang's condition (Gang::condition_type),
  // True once placed, False with the reason it is not (SchedulerError when `error`); written
  // only when it changes.
  void SetGroupCondition(const framework::Gang& gang, bool scheduled, const std::string& message,
                         bool error = false);
  // Writes the gang's condition (status "True" or "False", with reason and message) when it
  // differs from the one the gang has. A condition that stays True (Kubernetes' PodGroup) is not
  // written back to False.
  void WriteGroupCondition(const framework::Gang& gang, bool scheduled, std::string_view reason,
                           const std::string& message);

  // PreEnqueue's verdicts, reflected in the cluster (gate_report.cc, KEP-5501): a pod held
  // with the same message for kGateReportDelay gets PodScheduled=False, NotReadyForScheduling;
  // a gang held for want of members says so once on its own object.
  void OnGated(const framework::QueuedPodInfo& info, const framework::Status& status);
  void SweepGated();
  void ReportGated(const std::string& key, const std::string& message);
  void ReportGangWaiting(const framework::Gang& gang, const std::string& scheduler_name);

  // A pod that was not placed goes back to the queue with `status`, and the cluster hears why
  // (FailedScheduling event, PodScheduled condition, nomination).
  void HandleSchedulingFailure(const framework::Framework& fwk, const framework::Stopwatch& started,
                               framework::QueuedPodInfo info, const framework::Status& status,
                               const Diagnosis* diagnosis,
                               const framework::PostFilterResult* nomination,
                               bool nominated_at_binding = false);
  // The one way out for an assumed pod that does not bind: its reservations undone, its room
  // in the cache given back, the pod requeued with `status`. With `room_freed`, pods that wait
  // for room hear of it (failures once the binding cycle has started, as upstream's).
  // A failure after the choice of node, worded as upstream words it.
  static framework::Status OnChosenNode(const framework::Status& status);
  void Unassume(const BindingContext& ctx, const framework::Status& status, bool room_freed);
  void StartBindingCycle(std::shared_ptr<BindingContext> ctx);
  void RunBindingCycle(std::shared_ptr<BindingContext> ctx);
  // PreBind from ctx->pre_bind_next on, then Bind, through the bind runner.
  void ContinueBinding(std::shared_ptr<BindingContext> ctx);
  // A PreBind plugin waits: asks it after `delay`, then every poll period until it lets the pod
  // go on.
  void AwaitPreBind(std::shared_ptr<BindingContext> ctx, api::Time since, api::Duration delay);
  void PollPreBind(const std::shared_ptr<BindingContext>& ctx, api::Time since);
  // True, with the pod let go (unreserved, forgotten, out of flight), when it was deleted.
  bool DroppedWhileBinding(const BindingContext& ctx);
  // A deleted pod whose bind waits after PreBind is let go at once, not at the next poll.
  void DropAwaitingPreBind(const std::string& pod_key);
  // The cluster changed: the binds that wait after PreBind ask again now, not at their next
  // poll (what they wait for may have come).
  void AskAwaitingPreBindNow();
  void FinishBindingCycle(const std::shared_ptr<BindingContext>& ctx, const framework::Status& s);
  void MoveAll(const framework::ClusterEvent& event, const framework::EventObjects& objects,
               const std::string& exclude_key = "");
  // An event of a kind other than pods and nodes: requeues the pods it may help, when a plugin
  // registered for it.
  template <typename T>
  void Raise(framework::ActionType action, const api::Shared<T>& old_object,
             const api::Shared<T>& new_object);

  SchedulerOptions options_;
  // Pods whose bind waits after PreBind, by namespace/name: the context, the next poll, and
  // since when it waits.
  struct AwaitingPreBind {
    std::shared_ptr<BindingContext> ctx;
    framework::Clock::TimerId timer = 0;
    api::Time since;
  };
  std::map<std::string, AwaitingPreBind> awaiting_pre_bind_;
  BindRunner bind_runner_;
  framework::Clock& clock_;
  framework::ClusterClient& client_;
  // Before the profiles, which hold its series.
  framework::Metrics metrics_;
  // scheduler_goroutines{operation="binding"}, shared with the bindings under way.
  std::shared_ptr<framework::BusyCount> binding_busy_;
  Profiles profiles_;
  ObjectStore store_;
  Cache cache_;
  framework::Snapshot snapshot_;
  SchedulingQueue queue_;
  WaitingPodsMap waiting_;
  std::mt19937_64 rng_;
  // The threads of the cycle's parallel loops (Filter, Score, and the plugins' own): `parallelism`
  // at most, and no more than the machine's cores.
  framework::LoopPool pool_;
  size_t next_start_node_index_ = 0;
  // Filter's verdicts, one per node, reused from cycle to cycle.
  std::vector<framework::Status> filter_statuses_;
  // FilterNodes' count of each Filter plugin's nodes, a row per thread of the pool.
  std::vector<framework::FilterEvaluations> filter_evaluations_;
  SchedulerStats stats_;
  // The sweep of the reports due (SweepGated), while one is due; and when the last one ran.
  std::optional<framework::Clock::TimerId> gate_sweep_;
  api::Time last_gate_sweep_{};
  // The gangs (namespace/name) whose wait for members has been announced by an event, with what
  // their condition last said, until their next group cycle.
  std::unordered_map<std::string, std::string> gangs_waiting_;
  std::string last_attempted_;
  std::function<bool(const api::Pod&)> traced_;
  std::map<std::string, std::shared_ptr<framework::AttemptTrace>> traces_;
  std::vector<std::shared_ptr<framework::Extender>> owned_extenders_;
  std::vector<framework::Extender*> extenders_;
  // While a gang with a topology constraint is placed: the ids of the names of the nodes of its
  // domain, the only nodes its members see, and "key=value"; empty otherwise (every node).
  std::unordered_set<uint32_t> placement_;
  std::string placement_name_;
};

// Pods, nodes and PodGroup updates have handlers of their own (informer_handlers.cc).
template <>
void Scheduler::OnAdd<api::Pod>(const api::PodPtr& pod);
template <>
void Scheduler::OnUpdate<api::Pod>(const api::PodPtr& old_pod, const api::PodPtr& new_pod);
template <>
void Scheduler::OnDelete<api::Pod>(const api::PodPtr& pod);
template <>
void Scheduler::OnAdd<api::Node>(const api::Shared<api::Node>& node);
template <>
void Scheduler::OnUpdate<api::Node>(const api::Shared<api::Node>& old_node,
                                    const api::Shared<api::Node>& new_node);
template <>
void Scheduler::OnDelete<api::Node>(const api::Shared<api::Node>& node);
template <>
void Scheduler::OnUpdate<api::PodGroup>(const api::Shared<api::PodGroup>& old_group,
                                        const api::Shared<api::PodGroup>& new_group);

}  // namespace muster::scheduler
