#pragma once

// PodTopologySpread (upstream pkg/scheduler/framework/plugins/podtopologyspread): spreads pods
// matching a selector across topology domains (zones, nodes...). DoNotSchedule constraints filter
// out nodes where placing the pod would make a domain exceed the global minimum by more than
// maxSkew; ScheduleAnyway constraints score nodes in emptier domains higher. Pods without
// constraints of their own get the configured default constraints.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "muster/api/intern.h"
#include "muster/framework/handle.h"
#include "muster/framework/interface.h"
#include "muster/framework/parallel.h"
#include "muster/framework/registry.h"
#include "muster/plugins/podtopologyspread/args.h"
#include "muster/plugins/podtopologyspread/common.h"
#include "muster/plugins/podtopologyspread/kept_counts.h"

namespace muster::plugins::podtopologyspread {

inline constexpr std::string_view kErrReasonConstraintsNotMatch =
    "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view kErrReasonNodeLabelNotMatch =
    "node(s) didn't match pod topology spread constraints (missing required label)";

// Matching pods per domain (topology value) of one constraint.
using DomainCounts = std::unordered_map<api::Symbol, int64_t>;

// The two domains with the fewest matching pods of one constraint (upstream criticalPaths).
// paths[0] always holds the minimum; paths[1] is at least as large but not necessarily the second
// minimum. Two suffice because preemption's what-if passes move pods on one node at a time.
struct CriticalPaths {
  struct Path {
    api::Symbol value;
    int64_t match_num = INT32_MAX;
    friend bool operator==(const Path&, const Path&) = default;
  };
  std::array<Path, 2> paths;

  // Records that domain `value` now has `num` matching pods.
  void Update(api::Symbol value, int64_t num);
};

// What PreFilter computes for Filter, per DoNotSchedule constraint (upstream preFilterState).
// AddPod/RemovePod update a clone of it in preemption's what-if passes.
struct PreFilterState final : framework::StateData {
  // Shared by clones: constraints never change within a cycle.
  std::shared_ptr<const std::vector<Constraint>> constraints;
  std::vector<CriticalPaths> critical_paths;
  // Every eligible domain has an entry, zero included: the entry count is the number of domains
  // minDomains compares with.
  std::vector<DomainCounts> counts;

  // The global minimum of constraint i, 0 while it has fewer than minDomains domains.
  int64_t MinMatchNum(size_t i) const;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

// What PreScore computes for Score and NormalizeScore, per ScheduleAnyway constraint (upstream
// preScoreState). Immutable once written, so clones share it.
struct PreScoreState final : framework::StateData {
  struct Data {
    std::vector<Constraint> constraints;
    // Feasible nodes missing a topology key: scored 0.
    std::unordered_set<api::Symbol> ignored_nodes;
    // Matching pods per domain; no entries for hostname constraints, counted per node in Score.
    std::vector<DomainCounts> counts;
    // log(domains + 2) per constraint, so that pod counts of small topologies are not watered
    // down by large ones.
    std::vector<double> weights;
  };
  std::shared_ptr<const Data> data;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

class PodTopologySpread final : public framework::PreFilterPlugin,
                                public framework::PreFilterExtensions,
                                public framework::FilterPlugin,
                                public framework::PreScorePlugin,
                                public framework::ScorePlugin,
                                public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kPreFilterStateKey = "PreFilterPodTopologySpread";
  static constexpr std::string_view kPreScoreStateKey = "PreScorePodTopologySpread";

  // Upstream New: validates `args` as given (no defaults applied) and builds the plugin; nullptr
  // with *error (one error per line) when they are invalid.
  static std::unique_ptr<PodTopologySpread> Create(const PodTopologySpreadArgs& args,
                                                   framework::Handle& handle, std::string* error);
  // The registry factory: decodes, defaults and validates the YAML args.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  // The pod's DoNotSchedule (or ScheduleAnyway) constraints, or the default ones when it has
  // none (upstream getConstraints / buildDefaultConstraints). False with *error when a selector
  // does not parse.
  bool GetConstraints(const api::Pod& pod, api::UnsatisfiableConstraintAction action,
                      std::vector<Constraint>* out, std::string* error) const;

  // ---- Filter (filtering.cc) ----
  // Counts matching pods per domain of each DoNotSchedule constraint over `nodes`; Skip when the
  // pod has none.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  const framework::PreFilterExtensions* Extensions() const override { return this; }
  // Count `pod_to_add` / `pod_to_remove` on `node` in the state's copy.
  framework::Status AddPod(framework::CycleState& state, const framework::PodInfo& pod_to_schedule,
                           const framework::PodInfo& pod_to_add,
                           const framework::NodeInfo& node) const override;
  framework::Status RemovePod(framework::CycleState& state,
                              const framework::PodInfo& pod_to_schedule,
                              const framework::PodInfo& pod_to_remove,
                              const framework::NodeInfo& node) const override;
  // UnschedulableAndUnresolvable when the node lacks a topology key; Unschedulable when placing
  // the pod there would exceed a constraint's maxSkew.
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  // ---- Score (scoring.cc) ----
  // Counts matching pods per domain of each ScheduleAnyway constraint over all nodes; Skip when
  // the pod has none or the cluster has no nodes.
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<framework::NodeInfo* const> feasible) override;
  // The weighted number of matching pods in the node's domains: fewer is better, NormalizeScore
  // inverts it.
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   std::span<framework::NodeScore> scores) const override;

  // ---- Events ----
  // Pods added, deleted or relabelled (and the pod's own tolerations changing), nodes added,
  // deleted, relabelled or retainted, each with a hint. The hints call into this plugin: they are
  // valid while it lives.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  framework::QueueingHint IsSchedulableAfterPodChange(const api::Pod& pod,
                                                      const framework::EventObjects& event,
                                                      framework::Status* error) const;
  framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                       const framework::EventObjects& event,
                                                       framework::Status* error) const;

 private:
  // `args` have passed Validate.
  PodTopologySpread(const PodTopologySpreadArgs& args, framework::Handle& handle);

  // Counts `pod` (+1 or -1) on `node` into `s` (upstream updateWithPod).
  void UpdateWithPod(PreFilterState& s, const api::Pod& pod, const api::Pod& preemptor,
                     const framework::NodeInfo& node, int64_t delta) const;

  // Constant after construction.
  framework::Handle& handle_;
  framework::BusyCount* busy_ = nullptr;  // scheduler_goroutines of its per-node loops
  std::vector<api::TopologySpreadConstraint> default_constraints_;
  // The system defaults are in use: nodes missing the zone label still get hostname spreading.
  bool system_defaulted_ = false;

  // Domain counts over the snapshot, kept across cycles by PreFilter and PreScore (which run on
  // the scheduling thread only).
  KeptDomainCounts kept_;
};

}  // namespace muster::plugins::podtopologyspread
