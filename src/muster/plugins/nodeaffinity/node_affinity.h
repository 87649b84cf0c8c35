#pragma once

// NodeAffinity (upstream pkg/scheduler/framework/plugins/nodeaffinity): a pod fits only nodes
// that match its spec.nodeSelector, its required node affinity and the profile's added required
// affinity; among those, nodes matching more of its preferred terms (and the added ones) by
// weight score higher.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/node_selector.h"
#include "muster/framework/interface.h"
#include "muster/framework/registry.h"
#include "muster/plugins/nodeaffinity/args.h"

namespace muster::plugins::nodeaffinity {

inline constexpr std::string_view kErrReasonPod =
    "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view kErrReasonEnforced =
    "node(s) didn't match scheduler-enforced node affinity";
inline constexpr std::string_view kErrReasonConflict = "pod affinity terms conflict";

class NodeAffinity final : public framework::PreFilterPlugin,
                           public framework::FilterPlugin,
                           public framework::PreScorePlugin,
                           public framework::ScorePlugin,
                           public framework::EnqueueExtensions {
 public:
  // The CycleState keys of the pod's required selector (PreFilter) and preferred terms
  // (PreScore).
  static constexpr std::string_view kPreFilterStateKey = "PreFilterNodeAffinity";
  static constexpr std::string_view kPreScoreStateKey = "PreScoreNodeAffinity";

  // Validates `args` and builds the plugin; nullptr with *error (one error per line) when they
  // are invalid.
  static std::unique_ptr<NodeAffinity> Create(const NodeAffinityArgs& args, std::string* error);
  // The registry factory: decodes and validates the YAML args.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  // Records the pod's required selector. Skip when there is nothing to check (no nodeSelector,
  // no required affinity, no added affinity). When every required term names nodes through
  // matchFields metadata.name In, narrows the nodes to the union of those names (each term's
  // own name requirements intersected); UnschedulableAndUnresolvable when that leaves none.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  // UnschedulableAndUnresolvable with kErrReasonEnforced when the node misses the added
  // affinity, with kErrReasonPod when it misses the pod's. Terms that do not parse match nothing.
  // Works without PreFilter, reading the pod directly, as upstream does.
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;

  // Records the pod's preferred terms; Skip when neither the pod nor the args have any. An Error
  // with upstream's parse errors when a preferred term of non-zero weight does not parse.
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<framework::NodeInfo* const> feasible) override;
  // The summed weights of the added and the pod's preferred terms the node matches. Works
  // without PreScore, as upstream does.
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  // Scales the sums to [0, 100] by the highest.
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   std::span<framework::NodeScore> scores) const override;

  // Nodes added or relabelled, with a hint. The hint calls into this plugin: it is valid while
  // the plugin lives.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  // Queue when the new node matches the added affinity and the pod's required selector, and
  // either is new or did not match before. A required selector whose terms do not parse (and
  // none of which match) queues with an error, as upstream.
  framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                       const framework::EventObjects& event,
                                                       framework::Status* error) const;

 private:
  // `args` have passed Validate.
  explicit NodeAffinity(const NodeAffinityArgs& args);

  // Constant after construction, prepared for matching.
  std::optional<api::NodeSelector> added_node_selector_;
  // The added preferred terms that can earn something (non-zero weight, not empty).
  std::vector<api::PreferredSchedulingTerm> added_preferred_;
  // Whether the args listed preferred terms at all: then PreScore never skips, as upstream.
  bool has_added_preferred_ = false;
};

}  // namespace muster::plugins::nodeaffinity
