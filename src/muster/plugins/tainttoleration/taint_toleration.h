#pragma once

// TaintToleration (upstream pkg/scheduler/framework/plugins/tainttoleration): a node's NoSchedule
// and NoExecute taints keep out pods that do not tolerate them; each PreferNoSchedule taint a pod
// does not tolerate lowers the node's score.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::tainttoleration {

inline constexpr std::string_view kName = "TaintToleration";
// Filter's reason (upstream ErrReasonNotMatch since kubernetes#134740): the taint is not named.
inline constexpr std::string_view kErrReasonNotMatch = "node(s) had untolerated taint(s)";

class TaintToleration final : public framework::FilterPlugin,
                              public framework::PreScorePlugin,
                              public framework::ScorePlugin,
                              public framework::EnqueueExtensions {
 public:
  // The CycleState key of the pod's PreferNoSchedule tolerations (PreScore).
  static constexpr std::string_view kPreScoreStateKey = "PreScoreTaintToleration";

  // The plugin has no args; any given are ignored, as upstream ignores args of plugins that have
  // no args type.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  // With a handle, PreScore first asks its snapshot whether any node at all has a
  // PreferNoSchedule taint.
  explicit TaintToleration(const framework::Handle* handle = nullptr) : handle_(handle) {}

  std::string_view Name() const override { return kName; }

  // UnschedulableAndUnresolvable naming the first NoSchedule or NoExecute taint (in node order)
  // the pod does not tolerate: evicting pods does not remove a taint.
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  size_t FilterNodes(const framework::CycleState& state, const framework::PodInfo& pod,
                     std::span<const framework::NodeInfo* const> nodes,
                     std::span<framework::Status> statuses) const override;

  // Keeps the pod's tolerations that can tolerate a PreferNoSchedule taint (that effect, or any).
  // Skip when no feasible node has a PreferNoSchedule taint: then all would score alike, 0 raw
  // and 100 normalized (UniformScoreWhenSkipped), as upstream, which scores them anyway.
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<framework::NodeInfo* const> feasible) override;
  // The number of the node's PreferNoSchedule taints the pod does not tolerate; an Error when
  // PreScore did not run.
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  framework::Status ScoreNodes(const framework::CycleState& state, const framework::PodInfo& pod,
                               std::span<framework::NodeInfo* const> nodes,
                               std::span<framework::NodeScore> scores) const override;
  // Fewer intolerable taints score higher: the counts are scaled to [0, 100] and reversed.
  std::optional<std::pair<int64_t, int64_t>> UniformScoreWhenSkipped() const override {
    return std::pair<int64_t, int64_t>{0, framework::kMaxNodeScore};
  }
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   std::span<framework::NodeScore> scores) const override;

  // Nodes added or re-tainted, and the pod gaining a toleration, each with a hint. The hints call
  // into this plugin: they are valid while it lives.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  // Queue when the node's blocking taints were not all tolerated before (or the node is new) and
  // now are.
  framework::QueueingHint IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                       const framework::EventObjects& event,
                                                       framework::Status* error) const;
  // Queue when the updated pod is the rejected pod itself.
  framework::QueueingHint IsSchedulableAfterPodTolerationChange(
      const api::Pod& pod, const framework::EventObjects& event, framework::Status* error) const;

 private:
  const framework::Handle* handle_;
};

}  // namespace muster::plugins::tainttoleration
