#include "muster/plugins/noderesources/balanced_allocation.h"

#include <algorithm>
#include <vector>

namespace muster::plugins::noderesources {
namespace {

using framework::Status;

// The pod's request of each scored resource, computed once per pod by PreScore.
struct PreScoreState final : framework::StateData {
  std::vector<int64_t> pod_requests;
  uint64_t memo_key = 0;  // ShapeMemoKeys'

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

}  // namespace

std::unique_ptr<BalancedAllocation> BalancedAllocation::Create(
    const NodeResourcesBalancedAllocationArgs& args, std::string* error) {
  const std::vector<api::FieldError> errors = Validate(args);
  if (!errors.empty()) {
    *error = JoinFieldErrors(errors);
    return nullptr;
  }
  return std::unique_ptr<BalancedAllocation>(new BalancedAllocation(args));
}

std::unique_ptr<framework::Plugin> BalancedAllocation::New(const framework::PluginArgs& args,
                                                           framework::Handle& /*handle*/,
                                                           std::string* error) {
  NodeResourcesBalancedAllocationArgs decoded;
  if (!LoadNodeResourcesBalancedAllocationArgs(args, &decoded, error)) return nullptr;
  return std::unique_ptr<BalancedAllocation>(new BalancedAllocation(decoded));
}

Status BalancedAllocation::PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                                    std::span<framework::NodeInfo* const> /*feasible*/) {
  auto s = std::make_unique<PreScoreState>();
  s->pod_requests = scored_.PodRequests(pod);
  if (std::all_of(s->pod_requests.begin(), s->pod_requests.end(),
                  [](int64_t r) { return r == 0; })) {
    return Status(framework::Code::kSkip);
  }
  s->memo_key = memo_keys_.KeyFor(scored_, s->pod_requests);
  state.Write(kPreScoreStateKey, std::move(s));
  return Status::OK();
}

Status BalancedAllocation::Score(const framework::CycleState& state, const framework::PodInfo& pod,
                                 const framework::NodeInfo& node, int64_t* score) const {
  return framework::ScoreOneNode(*this, state, pod, node, score);
}

Status BalancedAllocation::ScoreNodes(const framework::CycleState& state,
                                      const framework::PodInfo& pod,
                                      std::span<framework::NodeInfo* const> nodes,
                                      std::span<framework::NodeScore> scores) const {
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  const PodRequestSource requests(scored_, pod, s != nullptr ? &s->pod_requests : nullptr);
  if (s == nullptr) {
    // PreScore did not run: the best-effort check it would have made.
    bool best_effort = true;
    for (size_t i = 0; i < scored_.size() && best_effort; ++i) best_effort = requests[i] == 0;
    if (best_effort) {
      framework::ScoreEachNode(nodes, scores, [](const framework::NodeInfo&) { return 0; });
      return Status::OK();
    }
  }
  noderesources::ScoreNodes(ResourceScorer::kBalancedAllocation, scored_, requests, nodes, scores,
                            s != nullptr ? s->memo_key : 0);
  return Status::OK();
}

}  // namespace muster::plugins::noderesources
