#include "muster/plugins/tainttoleration/taint_toleration.h"

#include <algorithm>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "muster/api/taints.h"
#include "muster/framework/log.h"
#include "muster/framework/snapshot.h"
#include "muster/plugins/helper/normalize_score.h"

namespace muster::plugins::tainttoleration {
namespace {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;

// The pod's tolerations that may tolerate a PreferNoSchedule taint, kept once per pod so that
// Score does not re-filter them for every node.
struct PreScoreState final : framework::StateData {
  std::vector<api::Toleration> tolerations;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

// The first blocking taint among a node's `taints` the pod does not tolerate; nullptr when there
// is none.
const api::Taint* UntoleratedTaint(std::span<const api::Taint> taints, const api::Pod& pod) {
  return api::FindMatchingUntoleratedTaint(taints, pod.spec.tolerations, api::BlocksScheduling);
}

// The rejection. The taint stays out of the pod's status: its key and value can be the cluster
// operators' secrets (kubernetes#134740, 1.35). The log names it at -v=4, and `muster explain`
// for whoever runs it. Out of line, so that the filter's loop stays small enough to inline.
[[gnu::noinline]] Status Untolerated(const framework::NodeInfo& node, const api::Pod& pod,
                                     const api::Taint& taint) {
  static const Status kUntolerated = framework::SharedFailure(
      framework::Code::kUnschedulableAndUnresolvable, kErrReasonNotMatch, kName);
  if (log::V(4)) {
    log::Info(4, "node had untolerated taints",
              {{"node", node.name().str()},
               {"pod", pod.metadata.Key()},
               {"untoleratedTaint", api::FormatTaint(taint)}});
  }
  return kUntolerated;
}

QueueingHint Misdelivered(Status* error, std::string_view what) {
  if (error != nullptr) *error = Status::Error(fmt::format("{}: {}", kName, what));
  return QueueingHint::kQueue;
}

}  // namespace

std::unique_ptr<framework::Plugin> TaintToleration::New(const framework::PluginArgs& /*args*/,
                                                        framework::Handle& handle,
                                                        std::string* /*error*/) {
  return std::make_unique<TaintToleration>(&handle);
}

Status TaintToleration::Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeInfo& node) const {
  return framework::FilterOneNode(*this, state, pod, node);
}

size_t TaintToleration::FilterNodes(const framework::CycleState& /*state*/,
                                    const framework::PodInfo& pod,
                                    std::span<const framework::NodeInfo* const> nodes,
                                    std::span<Status> statuses) const {
  return framework::FilterEachNode(nodes, statuses, [&](const framework::NodeInfo& node) {
    if (node.node() == nullptr) return Status::Error("node not found");
    const api::Taint* taint =
        node.taints().empty() ? nullptr : UntoleratedTaint(node.taints(), pod.pod);
    return taint == nullptr ? Status::OK() : Untolerated(node, pod.pod, *taint);
  });
}

Status TaintToleration::PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                                 std::span<framework::NodeInfo* const> feasible) {
  auto s = std::make_unique<PreScoreState>();
  for (const api::Toleration& t : pod.pod.spec.tolerations) {
    // An empty effect tolerates every effect, PreferNoSchedule included.
    if (!t.effect || *t.effect == api::TaintEffect::kPreferNoSchedule) s->tolerations.push_back(t);
  }
  state.Write(kPreScoreStateKey, std::move(s));
  // Without a PreferNoSchedule taint on any of the nodes, every node scores the same (0, and 100
  // once normalized), which cannot change the choice: Skip spares scoring them all. The feasible
  // nodes are the snapshot's: when it counts no such node, none of them has one.
  if (handle_ != nullptr && handle_->snapshot().NumNodesPreferringNoSchedule() == 0) {
    return Status(framework::Code::kSkip);
  }
  const bool any_preference = std::any_of(feasible.begin(), feasible.end(), [](const auto* node) {
    return api::AnyPrefersNoSchedule(node->taints());
  });
  return any_preference ? Status::OK() : Status(framework::Code::kSkip);
}

Status TaintToleration::Score(const framework::CycleState& state, const framework::PodInfo& pod,
                              const framework::NodeInfo& node, int64_t* score) const {
  return framework::ScoreOneNode(*this, state, pod, node, score);
}

Status TaintToleration::ScoreNodes(const framework::CycleState& state,
                                   const framework::PodInfo& /*pod*/,
                                   std::span<framework::NodeInfo* const> nodes,
                                   std::span<framework::NodeScore> scores) const {
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) {
    return Status::Error(
        fmt::format("failed to read \"{}\" from cycleState: not found", kPreScoreStateKey));
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    const framework::NodeInfo& node = *nodes[i];
    if (node.node() == nullptr) return Status::Error("node not found");
    int64_t intolerable = 0;
    for (const api::Taint& taint : node.taints()) {
      if (taint.effect != api::TaintEffect::kPreferNoSchedule) continue;
      if (!api::TolerationsTolerateTaint(s->tolerations, taint)) ++intolerable;
    }
    scores[i] = framework::NodeScore{node.name(), intolerable};
  }
  return Status::OK();
}

Status TaintToleration::NormalizeScore(const framework::CycleState& /*state*/,
                                       const framework::PodInfo& /*pod*/,
                                       std::span<framework::NodeScore> scores) const {
  helper::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/true, scores);
  return Status::OK();
}

std::vector<ClusterEventWithHint> TaintToleration::EventsToRegister() const {
  auto node_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterNodeChange(pod, e, error);
  };
  auto toleration_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterPodTolerationChange(pod, e, error);
  };
  // Label updates are what upstream adds when it pre-checks nodes before queueing; the hint turns
  // them away (labels never change this plugin's verdict), so they cost a taint scan each.
  return {
      {ClusterEvent{framework::EventResource::kNode,
                    framework::kAdd | framework::kUpdateNodeTaint | framework::kUpdateNodeLabel,
                    "NodeAdd|UpdateNodeTaint|UpdateNodeLabel"},
       node_hint},
      {ClusterEvent{framework::EventResource::kPod, framework::kUpdatePodToleration,
                    "PodUpdatePodToleration"},
       toleration_hint},
  };
}

QueueingHint TaintToleration::IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                           const EventObjects& event,
                                                           Status* error) const {
  if (event.new_node == nullptr) return Misdelivered(error, "node event without the new node");
  const bool was_untolerated =
      event.old_node == nullptr || UntoleratedTaint(event.old_node->spec.taints, pod) != nullptr;
  const bool is_untolerated = UntoleratedTaint(event.new_node->spec.taints, pod) != nullptr;
  return was_untolerated && !is_untolerated ? QueueingHint::kQueue : QueueingHint::kSkip;
}

QueueingHint TaintToleration::IsSchedulableAfterPodTolerationChange(const api::Pod& pod,
                                                                    const EventObjects& event,
                                                                    Status* error) const {
  if (event.new_pod == nullptr) return Misdelivered(error, "pod event without the new pod");
  // Tolerations can only be added, so any new one on the rejected pod may be the one it lacked.
  return event.new_pod->metadata.uid == pod.metadata.uid ? QueueingHint::kQueue
                                                         : QueueingHint::kSkip;
}

}  // namespace muster::plugins::tainttoleration
