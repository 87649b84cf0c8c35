#pragma once

// InterPodAffinity (upstream pkg/scheduler/framework/plugins/interpodaffinity): required pod
// affinity and anti-affinity as a filter, preferred ones (and the symmetry of existing pods'
// terms) as a score.
//
// Filter (upstream filtering.go). PreFilter counts, per (topology key, value) pair:
//   - existing anti-affinity: existing pods whose required anti-affinity terms select the pod;
//   - affinity: existing pods that match all of the pod's required affinity terms, once per term;
//   - anti-affinity: existing pods matched by each of the pod's required anti-affinity terms.
// A node then fails when it lacks a required affinity term's topology key or no matching pod
// shares its value (UnschedulableAndUnresolvable: evicting pods cannot create a match), unless no
// pod anywhere matches and the pod matches its own terms (the first pod of a group); or when a
// matched anti-affinity pod or an existing pod's anti-affinity shares one of its topology values
// (Unschedulable: preemption may evict the pod in the way).
//
// Score (upstream scoring.go). PreScore sums, per (topology key, value): the weights of the pod's
// preferred affinity terms (minus its preferred anti-affinity terms) that existing pods match,
// hardPodAffinityWeight for each existing pod's required affinity term that selects the pod, and
// the weights of existing pods' preferred (anti-)affinity terms that select it. A node scores the
// sum over its labels; NormalizeScore maps the scores min-max onto [0, 100].

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/framework/handle.h"
#include "muster/framework/interface.h"
#include "muster/framework/parallel.h"
#include "muster/framework/registry.h"
#include "muster/plugins/interpodaffinity/args.h"

namespace muster::plugins::interpodaffinity {

inline constexpr std::string_view kName = "InterPodAffinity";

inline constexpr std::string_view kErrReasonExistingAntiAffinityRulesNotMatch =
    "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr std::string_view kErrReasonAffinityRulesNotMatch =
    "node(s) didn't match pod affinity rules";
inline constexpr std::string_view kErrReasonAntiAffinityRulesNotMatch =
    "node(s) didn't match pod anti-affinity rules";

class InterPodAffinity final : public framework::PreFilterPlugin,
                               public framework::PreFilterExtensions,
                               public framework::FilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ScorePlugin,
                               public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kPreFilterStateKey = "PreFilterInterPodAffinity";
  static constexpr std::string_view kPreScoreStateKey = "PreScoreInterPodAffinity";

  // `args` must have passed Validate. The handle must outlive the plugin.
  InterPodAffinity(const InterPodAffinityArgs& args, framework::Handle& handle);

  // The registry factory: decodes, defaults and validates the YAML args.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  // Writes the three counts; Skip when the pod has no required (anti-)affinity and no existing
  // pod's required anti-affinity selects it. UnschedulableAndUnresolvable "parsing pod: ..." when
  // one of the pod's selectors does not parse.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  const framework::PreFilterExtensions* Extensions() const override { return this; }
  // Update the counts as if the pod were added to or removed from `node`. Thread-safe over
  // distinct states; they read the namespace lister (read-only) for a namespace PreFilter did not
  // see when the pod's own terms have namespaceSelectors.
  framework::Status AddPod(framework::CycleState& state, const framework::PodInfo& pod_to_schedule,
                           const framework::PodInfo& pod_to_add,
                           const framework::NodeInfo& node) const override;
  framework::Status RemovePod(framework::CycleState& state,
                              const framework::PodInfo& pod_to_schedule,
                              const framework::PodInfo& pod_to_remove,
                              const framework::NodeInfo& node) const override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  // Skip when there is nothing to score: ignorePreferredTermsOfExistingPods and the pod has no
  // preferred terms, no nodes, or no term matched anywhere.
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<framework::NodeInfo* const> feasible) override;
  // The raw sum, positive for affinity and negative for anti-affinity.
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   std::span<framework::NodeScore> scores) const override;

  // Assigned pods added, relabelled or deleted, the pod's own relabelling, and nodes added or
  // relabelled, each with upstream's queueing hint. The hints call into this plugin: they are
  // valid while it lives.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  framework::QueueingHint IsSchedulableAfterPodChange(const api::Pod& pod,
                                                      const framework::EventObjects& event,
                                                      framework::Status* error) const;
  framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                       const framework::EventObjects& event,
                                                       framework::Status* error) const;

  const InterPodAffinityArgs& args() const { return args_; }

 private:
  framework::Status UpdateWithPod(framework::CycleState& state, const framework::PodInfo& pod,
                                  const framework::NodeInfo& node, int64_t multiplier) const;

  // Constant after construction.
  InterPodAffinityArgs args_;
  framework::Handle& handle_;
  framework::BusyCount* busy_ = nullptr;  // scheduler_goroutines of its per-node loops
};

}  // namespace muster::plugins::interpodaffinity
