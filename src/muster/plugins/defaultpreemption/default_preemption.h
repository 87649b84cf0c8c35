#pragma once

// DefaultPreemption (upstream pkg/scheduler/framework/plugins/defaultpreemption, with the evaluator
// of pkg/scheduler/framework/preemption): when a pod fits no node, it looks for nodes where
// evicting pods of lower priority would make room, picks the node whose evictions cost least,
// evicts them and nominates that node for the pod, which is retried once the room is free.
//
// Preemption runs synchronously in the scheduling cycle, as upstream does without the
// SchedulerAsyncPreemption feature. Nothing here is per-node hot path: the what-if evaluation of a
// node copies its NodeInfo and clones the CycleState, as upstream does.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "muster/api/gang.h"
#include "muster/api/time.h"
#include "muster/api/types.h"
#include "muster/framework/group_preemption.h"
#include "muster/framework/handle.h"
#include "muster/framework/interface.h"
#include "muster/framework/parallel.h"
#include "muster/framework/registry.h"
#include "muster/plugins/defaultpreemption/args.h"

namespace muster::plugins::defaultpreemption {

// Upstream's messages; PostFilter prefixes those it returns with "preemption: ".
inline constexpr std::string_view kNotEligiblePreemptNever =
    "not eligible due to preemptionPolicy=Never.";
inline constexpr std::string_view kNotEligibleTerminating =
    "not eligible due to a terminating pod on the nominated node.";
inline constexpr std::string_view kNoVictims = "No preemption victims found for incoming pod";
inline constexpr std::string_view kNotHelpful = "Preemption is not helpful for scheduling";
inline constexpr std::string_view kNoCandidate = "no candidate node for preemption";

// A node where the pod fits once `victims` are evicted (upstream Candidate with its Victims).
struct Candidate {
  api::Symbol node;
  // Most important first (see MoreImportantPod): victims[0] has the highest priority.
  std::vector<framework::PodInfoPtr> victims;
  // How many victims evicting would take a PodDisruptionBudget below its allowance.
  int64_t num_pdb_violations = 0;
};

// What preemption evicts as one (upstream's Victim): a pod, or a running gang that is evicted
// whole or not at all (api::EvictionUnit): every scheduler-plugins PodGroup (Coscheduling) that
// exists, a scheduling.k8s.io PodGroup whose disruptionMode is PodGroup (v1alpha2) or all
// (v1beta1), and a CompositePodGroup whose disruptionMode is all, with its whole tree. A gang's
// victim is its members on every node, bound or assumed.
struct Victim {
  // A view: of the pod alone, or of its WholeGangs entry.
  std::span<const framework::PodInfoPtr> pods;
  // The gang's: the priority of the highest group of its tree that sets one, else the highest
  // of its members'.
  int32_t priority = 0;
  bool gang = false;
  bool composite = false;  // a CompositePodGroup's tree
};

// Whether `pod` belongs to a gang evicted whole (see Victim), with the unit it is evicted with
// (its gang, or a CompositePodGroup above it) when it does.
bool EvictedWhole(const api::Pod& pod, const framework::ObjectLister& lister,
                  api::GangRef* gang = nullptr);

// The running gangs evicted whole among the pods of priority below `priority` on `nodes`: each
// with its members found on every node of `snapshot`, and the gang of each member by pod key.
// Empty at once (two table sizes looked at) when the cluster has no PodGroup of either kind.
struct WholeGangs {
  std::vector<Victim> gangs;
  // Each gang's members, which gangs[i].pods views.
  std::vector<std::vector<framework::PodInfoPtr>> members;
  std::unordered_map<std::string, size_t> of_pod;

  const Victim* Of(const api::Pod& pod) const;
};
WholeGangs FindWholeGangs(int32_t priority, std::span<framework::NodeInfo* const> nodes,
                          const framework::Snapshot& snapshot,
                          const framework::ObjectLister& lister);

// Upstream MoreImportantVictim: the higher priority; at equal priority a gang before a pod, a
// composite group's tree before a group, the larger gang before the smaller, then the earlier
// start (two pods compare with `more_important_pod`).
bool MoreImportantVictim(
    const Victim& a, const Victim& b, api::Time now,
    const std::function<bool(const api::Pod&, const api::Pod&)>& more_important_pod);

// Upstream util.MoreImportantPod: the higher priority; at equal priority the pod that started
// first. A pod without a start time counts as starting `now`.
bool MoreImportantPod(const api::Pod& a, const api::Pod& b, api::Time now);

// Upstream filterPodsWithPDBViolation: splits `pods` (order kept) into those whose eviction would
// exceed a matching budget's disruptionsAllowed, counted down pod by pod, and the rest. A budget
// matches pods of its namespace selected by a non-empty, well-formed selector.
void FilterPodsWithPDBViolation(std::span<const framework::PodInfoPtr> pods,
                                std::span<const api::PodDisruptionBudget* const> pdbs,
                                std::vector<framework::PodInfoPtr>* violating,
                                std::vector<framework::PodInfoPtr>* non_violating);

// Upstream pickOneNodeForPreemption with its default criteria, each breaking the ties of the one
// before: fewest PDB violations, lowest highest-victim priority, lowest sum of victim priorities,
// fewest victims, latest start among the highest-priority victims, then the first candidate.
// nullptr when there are none.
const Candidate* PickOneNodeForPreemption(std::span<const Candidate> candidates, api::Time now);

class DefaultPreemption final : public framework::PostFilterPlugin,
                                public framework::GroupPostFilterPlugin {
 public:
  // Whether `victim` on `node` may be evicted for `preemptor`, beyond having lower priority
  // (upstream IsEligiblePodFunc). Called concurrently over nodes.
  using IsEligiblePodFn =
      std::function<bool(const framework::NodeInfo& node, const framework::PodInfo& victim,
                         const api::Pod& preemptor)>;
  // Whether `a` is more important than `b`: reprieve tries the more important first (upstream
  // MoreImportantPodFunc). Called concurrently over nodes.
  using MoreImportantPodFn = std::function<bool(const api::Pod& a, const api::Pod& b)>;

  // Upstream New: validates `args` and builds the plugin; nullptr with *error (one error per
  // line) when they are invalid.
  static std::unique_ptr<DefaultPreemption> Create(const DefaultPreemptionArgs& args,
                                                   framework::Handle& handle, std::string* error);
  // The registry factory: decodes, defaults and validates the YAML args.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  // The default policy captures `this`.
  DefaultPreemption(const DefaultPreemption&) = delete;
  DefaultPreemption& operator=(const DefaultPreemption&) = delete;

  std::string_view Name() const override { return kName; }

  // Upstream Evaluator.Preempt. Success with {node, kOverride} once the victims are evicted.
  // Unschedulable with {"", kOverride} (clearing a stale nomination) when no node would do, with
  // message "preemption: 0/N nodes are available: <reasons>."; Unschedulable with kNoop when the
  // pod may not preempt; Error (kNoop) when evaluating a node or evicting a victim failed.
  framework::Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& statuses,
                               framework::PostFilterResult* result) override;

  // Gang-aware preemption (upstream PodGroupPostFilter with its PodGroupEvaluator): every pod
  // (or gang evicted whole) of lower priority than the gang, on any node, is taken out of the
  // trial; unless the gang's quorum then fits, nothing is evicted. Otherwise the victims are
  // given back one by one, the most important first (those whose eviction would exceed a
  // PodDisruptionBudget before the others), each kept when every member still fits where it was
  // placed; those left are evicted and each placed member is nominated to its node. The gang's
  // priority is its PodGroup's when set, else the lowest of its pending members'. Refused for a
  // gang with a topology constraint (as upstream), or when the gang or a member has
  // preemptionPolicy Never, or a member's nominated node still has a pod terminating from an
  // earlier preemption. Messages start "pod group preemption: ".
  framework::Status PostFilterGroup(const framework::Gang& gang,
                                    std::span<const framework::PodInfo* const> pending,
                                    framework::GroupTrial& trial, framework::AttemptTrace* trace,
                                    framework::GroupPostFilterResult* result) override;

  // ---- PostFilter's steps, public as upstream exports them (tests and derived policies) ----

  // False with *reason when the pod may not preempt: its preemptionPolicy is Never, or its
  // nominated node (unless Filter found it UnschedulableAndUnresolvable) still has a pod of lower
  // priority terminating because of an earlier preemption.
  bool PodEligibleToPreemptOthers(const api::Pod& pod,
                                  const framework::Status& nominated_node_status,
                                  std::string* reason) const;

  // How many candidates the dry run should find among `num_nodes` nodes: max(num_nodes *
  // percentage / 100, absolute), capped at num_nodes.
  int32_t CalculateNumCandidates(int32_t num_nodes) const;
  // Where the dry run starts in the node list. Upstream draws it from math/rand; here it is a hash
  // of the pod's namespace/name, so runs are reproducible while different pods start at
  // different nodes. 0 when num_nodes <= 0.
  static int32_t Offset(const api::Pod& pod, int32_t num_nodes);

  // Upstream SelectVictimsOnNode, on a copy of the node and a clone of the cycle state (both
  // modified): removes every pod the preemptor may evict, checks the preemptor then fits (with
  // the node's nominated pods of higher or equal priority), then adds back as many as still
  // allow it to fit, most important first, PDB-violating ones before the others. Success with the
  // victims (most important first) and how many violate a PDB; UnschedulableAndUnresolvable
  // kNoVictims when there is nothing to evict; the Filter status when evicting everything is not
  // enough; Error when a PreFilter extension fails.
  //
  // A pod of a gang in `gangs` is not evicted alone: its gang is, with its members on other
  // nodes (their NodeInfos are not changed; the PreFilter extensions hear of their removal), and
  // only when every member may be evicted.
  framework::Status SelectVictimsOnNode(framework::CycleState& state, const framework::PodInfo& pod,
                                        framework::NodeInfo& node,
                                        std::span<const api::PodDisruptionBudget* const> pdbs,
                                        std::vector<framework::PodInfoPtr>* victims,
                                        int64_t* num_pdb_violations,
                                        const WholeGangs* gangs = nullptr) const;

  // Upstream DryRunPreemption: evaluates `nodes` from `offset` round the list, in parallel
  // batches taken in order, until at least one candidate violating no PDB is found and
  // num_candidates candidates in all (each kind capped at num_candidates); those that violate none
  // come first. Each node found unsuitable gets its status in *statuses; the messages of Error
  // statuses are appended to *errors. The result is the one a sequential run would give.
  std::vector<Candidate> DryRunPreemption(const framework::CycleState& state,
                                          const framework::PodInfo& pod,
                                          std::span<framework::NodeInfo* const> nodes,
                                          std::span<const api::PodDisruptionBudget* const> pdbs,
                                          int32_t offset, int32_t num_candidates,
                                          framework::NodeToStatus* statuses,
                                          std::vector<std::string>* errors,
                                          const WholeGangs* gangs = nullptr) const;

  // Upstream callExtenders: each extender that supports preemption and is interested in the
  // pod trims `candidates` in turn, keeping the nodes it answers for with the victims it names.
  // The candidates keep the dry run's order and each node's victims are sorted most important
  // first (upstream rebuilds them from a map, in no order). A failure of an ignorable extender
  // passes it over; of another, it is the error returned (and the pod's nomination stays).
  framework::Status CallExtenders(const framework::PodInfo& pod,
                                  std::vector<Candidate>* candidates) const;

  // Upstream SelectCandidate: the only candidate, or PickOneNodeForPreemption's choice.
  const Candidate* SelectCandidate(std::span<const Candidate> candidates) const;

  // Upstream prepareCandidate: evicts the victims (deletes them, or rejects those waiting at
  // Permit; victims already being deleted are left alone), records a Preempted event for each,
  // and clears the nomination of lower-priority pods nominated to the node, which may no longer
  // fit there. Error when an eviction fails; clearing a nomination may fail without effect.
  framework::Status PrepareCandidate(const Candidate& candidate, const framework::PodInfo& pod);
  // The evictions of PrepareCandidate: `victims` deleted (or rejected at Permit), each with a
  // Preempted event naming `preemptor` (the pod, or the gang's object).
  framework::Status Evict(std::span<const framework::PodInfoPtr> victims,
                          const framework::ObjectReference& preemptor,
                          std::string_view preemptor_name);

  // Replace the default policies (upstream's exported IsEligiblePod and MoreImportantPod fields).
  // Scheduling thread only, not while PostFilter runs.
  void SetIsEligiblePod(IsEligiblePodFn fn) { is_eligible_pod_ = std::move(fn); }
  void SetMoreImportantPod(MoreImportantPodFn fn) { more_important_pod_ = std::move(fn); }

  const DefaultPreemptionArgs& args() const { return args_; }

 private:
  DefaultPreemption(const DefaultPreemptionArgs& args, framework::Handle& handle);

  bool IsPreemptionAllowed(const framework::NodeInfo& node, const framework::PodInfo& victim,
                           const api::Pod& preemptor) const;
  // Whether `node` has a pod that `preemptor` may evict.
  bool HasPossibleVictim(const framework::NodeInfo& node, const api::Pod& preemptor) const;
  // Pods nominated to `node` that `pod` must leave room for: higher or equal priority, not itself.
  std::vector<framework::PodInfoPtr> NominatedPodsToRespect(const framework::PodInfo& pod,
                                                            api::Symbol node) const;
  // The budgets of the namespaces of the pods below `priority` on `nodes`.
  std::vector<const api::PodDisruptionBudget*> RelevantPDBs(
      int32_t priority, std::span<framework::NodeInfo* const> nodes) const;

  // A victim being deleted: the DisruptionTarget condition and the deletion the scheduler sets
  // (upstream podTerminatingByPreemption), or a deletion this plugin asked for that the informer
  // does not show yet (see evicted_).
  bool TerminatingByPreemption(const api::Pod& pod) const;
  // Drops from evicted_ the victims the snapshot shows being deleted or gone, and those whose
  // deletion has not shown for kEvictionShowsWithin (a deletion that failed: they may be
  // preempted again).
  void ForgetEvictionsSeen();

  // Constant after construction (the policies change only through the setters above).
  DefaultPreemptionArgs args_;
  framework::Handle& handle_;
  framework::BusyCount* busy_ = nullptr;  // scheduler_goroutines of its per-node loops
  IsEligiblePodFn is_eligible_pod_;
  MoreImportantPodFn more_important_pod_;
  // kNoVictims and kNotHelpful, the verdicts on the nodes where preemption cannot help: built
  // once and shared.
  framework::Status no_victims_;
  framework::Status not_helpful_;

  // The victims this plugin deleted whose deletion the snapshot does not show yet, by uid (or
  // namespace/name). `muster run` writes through a queue and learns of its writes from the
  // informer: until then a retry of the preemptor would find the same victims running, delete
  // them again and record a second Preempted event for each (upstream's asynchronous preemption
  // holds the preemptor at PreEnqueue until its last victim is seen deleted, for the same
  // reason). Scheduling thread only; a handful of entries, each dropped once its deletion shows.
  struct Evicted {
    std::string key;
    api::Symbol node;
    api::Time at;
  };
  std::vector<Evicted> evicted_;
};

}  // namespace muster::plugins::defaultpreemption
