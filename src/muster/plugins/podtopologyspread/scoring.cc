// PodTopologySpread's Score side (upstream podtopologyspread/scoring.go).

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "muster/framework/parallel.h"
#include "muster/plugins/podtopologyspread/kept_counts.h"
#include "muster/plugins/podtopologyspread/pod_topology_spread.h"

namespace muster::plugins::podtopologyspread {
namespace {

using framework::Status;

// Upstream's weight of a topology with `size` domains: log(size + 2), in [1.09, 8.52] for 1 to
// 5000 domains.
double TopologyNormalizingWeight(size_t size) { return std::log(static_cast<double>(size + 2)); }

// `maxSkew - 1` is added so that larger skews tolerated make domain differences count less.
double ScoreForCount(int64_t count, int32_t max_skew, double weight) {
  return static_cast<double>(count) * weight + static_cast<double>(max_skew - 1);
}

Status ScoreStateNotFound() {
  return Status::Error(fmt::format("error reading \"{}\" from cycleState: not found",
                                   PodTopologySpread::kPreScoreStateKey));
}

}  // namespace

Status PodTopologySpread::PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                                   std::span<framework::NodeInfo* const> feasible) {
  const std::vector<framework::NodeInfo*>& all_nodes = handle_.snapshot().List();
  if (all_nodes.empty()) return Status(framework::Code::kSkip);

  auto data = std::make_shared<PreScoreState::Data>();
  std::string error;
  if (!GetConstraints(pod.pod, api::UnsatisfiableConstraintAction::kScheduleAnyway,
                      &data->constraints, &error)) {
    return Status::Error(fmt::format("calculating preScoreState: {}", error));
  }
  if (data->constraints.empty()) return Status(framework::Code::kSkip);
  SetCountKeys(data->constraints, pod.pod.metadata.namespace_);
  const std::vector<Constraint>& constraints = data->constraints;
  const size_t n = constraints.size();
  const api::Symbol hostname = HostnameKey();

  // Only the pod's own constraints need every topology key on a node: with the system defaults a
  // node without a zone label still gets hostname spreading (its zone value reads as "").
  const bool require_all_keys =
      !pod.pod.spec.topology_spread_constraints.empty() || !system_defaulted_;

  // The domains of the feasible nodes; hostname domains are counted per node in Score.
  data->counts.resize(n);
  std::vector<size_t> domains(n, 0);
  for (const framework::NodeInfo* info : feasible) {
    const api::Node* node = info->node();
    if (node == nullptr) continue;
    const api::LabelSet& labels = node->metadata.labels;
    if (require_all_keys && !NodeHasAllTopologyKeys(labels, constraints)) {
      data->ignored_nodes.insert(info->name());
      continue;
    }
    for (size_t i = 0; i < n; ++i) {
      if (constraints[i].topology_key == hostname) continue;
      const api::Symbol* value = labels.Get(constraints[i].topology_key);
      if (data->counts[i].try_emplace(value != nullptr ? *value : api::Symbol(), 0).second) {
        ++domains[i];
      }
    }
  }
  data->weights.resize(n);
  for (size_t i = 0; i < n; ++i) {
    size_t size = domains[i];
    if (constraints[i].topology_key == hostname) {
      size = feasible.size() - data->ignored_nodes.size();
    }
    data->weights[i] = TopologyNormalizingWeight(size);
  }

  // Matching pods of every node (feasible or not) in those domains: from the counts kept from
  // earlier cycles, or else counted in parallel into per-node slots, then added up.
  if (const std::vector<KeptDomainCounts::Domains>* kept =
          kept_.Get(handle_.snapshot(), pod.pod, constraints, require_all_keys)) {
    for (size_t i = 0; i < n; ++i) {
      for (auto& [value, count] : data->counts[i]) {
        const auto it = (*kept)[i].find(value);
        if (it != (*kept)[i].end()) count = it->second.pods;
      }
    }
  } else {
    std::vector<NodeCount> per_node(all_nodes.size() * n);
    framework::ForEachNode(
        all_nodes.size(),
        [&](size_t k) {
          CountNode(*all_nodes[k], constraints, pod.pod, require_all_keys, &per_node[k * n]);
        },
        busy_);
    for (size_t k = 0; k < per_node.size(); ++k) {
      const NodeCount& nc = per_node[k];
      if (!nc.counted) continue;
      const auto it = data->counts[k % n].find(nc.value);
      if (it != data->counts[k % n].end()) it->second += nc.pods;
    }
  }

  auto s = std::make_unique<PreScoreState>();
  s->data = std::move(data);
  state.Write(kPreScoreStateKey, std::move(s));
  return Status::OK();
}

Status PodTopologySpread::Score(const framework::CycleState& state, const framework::PodInfo& pod,
                                const framework::NodeInfo& info, int64_t* score) const {
  *score = 0;
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return ScoreStateNotFound();
  const PreScoreState::Data& data = *s->data;
  const api::Node* node = info.node();
  if (node == nullptr) return Status::Error("node not found");
  if (data.ignored_nodes.contains(info.name())) return Status::OK();

  const api::Symbol hostname = HostnameKey();
  double total = 0;
  for (size_t i = 0; i < data.constraints.size(); ++i) {
    const Constraint& c = data.constraints[i];
    const api::Symbol* value = node->metadata.labels.Get(c.topology_key);
    if (value == nullptr) continue;
    int64_t count = 0;
    if (c.topology_key == hostname) {
      count = CountMatchingPods(info, c, pod.pod.metadata.namespace_);
    } else if (const auto it = data.counts[i].find(*value); it != data.counts[i].end()) {
      count = it->second;
    }
    total += ScoreForCount(count, c.max_skew, data.weights[i]);
  }
  // Go's math.Round: halves away from zero, as std::llround.
  *score = std::llround(total);
  return Status::OK();
}

Status PodTopologySpread::NormalizeScore(const framework::CycleState& state,
                                         const framework::PodInfo& /*pod*/,
                                         std::span<framework::NodeScore> scores) const {
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return ScoreStateNotFound();
  const PreScoreState::Data& data = *s->data;

  int64_t min_score = std::numeric_limits<int64_t>::max();
  int64_t max_score = 0;
  for (const framework::NodeScore& ns : scores) {
    if (data.ignored_nodes.contains(ns.name)) continue;
    min_score = std::min(min_score, ns.score);
    max_score = std::max(max_score, ns.score);
  }
  for (framework::NodeScore& ns : scores) {
    if (data.ignored_nodes.contains(ns.name)) {
      ns.score = 0;
    } else if (max_score == 0) {
      ns.score = framework::kMaxNodeScore;
    } else {
      // Fewer matching pods is better: invert within [min, max].
      ns.score = framework::kMaxNodeScore * (max_score + min_score - ns.score) / max_score;
    }
  }
  return Status::OK();
}

}  // namespace muster::plugins::podtopologyspread
