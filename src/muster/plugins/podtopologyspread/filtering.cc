// PodTopologySpread's Filter side (upstream podtopologyspread/filtering.go).

#include <utility>
#include <vector>

#include <fmt/format.h>

#include "muster/framework/parallel.h"
#include "muster/plugins/podtopologyspread/kept_counts.h"
#include "muster/plugins/podtopologyspread/pod_topology_spread.h"

namespace muster::plugins::podtopologyspread {
namespace {

using framework::Status;

Status StateNotFound(std::string_view key) {
  return Status::Error(fmt::format("reading \"{}\" from cycleState: not found", key));
}

}  // namespace

void CriticalPaths::Update(api::Symbol value, int64_t num) {
  int i = -1;
  if (value == paths[0].value) {
    i = 0;
  } else if (value == paths[1].value) {
    i = 1;
  }
  if (i >= 0) {
    paths[i].match_num = num;
    if (paths[0].match_num > paths[1].match_num) std::swap(paths[0], paths[1]);
    return;
  }
  if (num < paths[0].match_num) {
    paths[1] = paths[0];
    paths[0] = Path{value, num};
  } else if (num < paths[1].match_num) {
    paths[1] = Path{value, num};
  }
}

int64_t PreFilterState::MinMatchNum(size_t i) const {
  // With fewer eligible domains than minDomains, the missing domains count as empty ones.
  if (static_cast<int64_t>(counts[i].size()) < (*constraints)[i].min_domains) return 0;
  return critical_paths[i].paths[0].match_num;
}

Status PodTopologySpread::PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                    std::span<framework::NodeInfo* const> nodes,
                                    framework::PreFilterResult* /*result*/) {
  auto constraints = std::make_shared<std::vector<Constraint>>();
  std::string error;
  if (!GetConstraints(pod.pod, api::UnsatisfiableConstraintAction::kDoNotSchedule,
                      constraints.get(), &error)) {
    return Status::Error(fmt::format("get constraints from pod: {}", error));
  }
  if (constraints->empty()) return Status(framework::Code::kSkip);
  SetCountKeys(*constraints, pod.pod.metadata.namespace_);

  auto s = std::make_unique<PreFilterState>();
  const size_t n = constraints->size();
  const std::vector<Constraint>& cs = *constraints;
  s->counts.resize(n);
  // Over the snapshot's nodes, the counts kept from earlier cycles serve.
  const framework::Snapshot& snapshot = handle_.snapshot();
  const bool all_nodes =
      nodes.data() == snapshot.List().data() && nodes.size() == snapshot.NumNodes();
  if (const std::vector<KeptDomainCounts::Domains>* kept =
          all_nodes ? kept_.Get(snapshot, pod.pod, cs, /*require_all_keys=*/true) : nullptr) {
    for (size_t i = 0; i < n; ++i) {
      s->counts[i].reserve((*kept)[i].size());
      for (const auto& [value, domain] : (*kept)[i]) s->counts[i].emplace(value, domain.pods);
    }
  } else {
    // Each node's domain and matching pods per constraint, found in parallel (upstream too
    // counts over nodes in parallel).
    std::vector<NodeCount> per_node(nodes.size() * n);
    framework::ForEachNode(
        nodes.size(),
        [&](size_t k) {
          CountNode(*nodes[k], cs, pod.pod, /*require_all_keys=*/true, &per_node[k * n]);
        },
        busy_);
    for (size_t k = 0; k < per_node.size(); ++k) {
      // Every counted node creates its domain's entry, empty or not.
      const NodeCount& nc = per_node[k];
      if (nc.counted) s->counts[k % n][nc.value] += nc.pods;
    }
  }
  s->critical_paths.resize(n);
  for (size_t i = 0; i < n; ++i) {
    for (const auto& [value, num] : s->counts[i]) s->critical_paths[i].Update(value, num);
  }
  s->constraints = std::move(constraints);
  state.Write(kPreFilterStateKey, std::move(s));
  return Status::OK();
}

void PodTopologySpread::UpdateWithPod(PreFilterState& s, const api::Pod& pod,
                                      const api::Pod& preemptor, const framework::NodeInfo& info,
                                      int64_t delta) const {
  const api::Node* node = info.node();
  if (node == nullptr || pod.metadata.namespace_ != preemptor.metadata.namespace_) return;
  const api::LabelSet& labels = node->metadata.labels;
  if (!NodeHasAllTopologyKeys(labels, *s.constraints)) return;
  for (size_t i = 0; i < s.constraints->size(); ++i) {
    const Constraint& c = (*s.constraints)[i];
    if (!c.Selects(pod.metadata.labels)) continue;
    if (!NodeIncluded(c, preemptor, *node, info.name())) continue;
    const api::Symbol value = *labels.Get(c.topology_key);
    int64_t& count = s.counts[i][value];
    count += delta;
    s.critical_paths[i].Update(value, count);
  }
}

Status PodTopologySpread::AddPod(framework::CycleState& state,
                                 const framework::PodInfo& pod_to_schedule,
                                 const framework::PodInfo& pod_to_add,
                                 const framework::NodeInfo& node) const {
  auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return StateNotFound(kPreFilterStateKey);
  UpdateWithPod(*s, pod_to_add.pod, pod_to_schedule.pod, node, 1);
  return Status::OK();
}

Status PodTopologySpread::RemovePod(framework::CycleState& state,
                                    const framework::PodInfo& pod_to_schedule,
                                    const framework::PodInfo& pod_to_remove,
                                    const framework::NodeInfo& node) const {
  auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return StateNotFound(kPreFilterStateKey);
  UpdateWithPod(*s, pod_to_remove.pod, pod_to_schedule.pod, node, -1);
  return Status::OK();
}

Status PodTopologySpread::Filter(const framework::CycleState& state,
                                 const framework::PodInfo& /*pod*/,
                                 const framework::NodeInfo& info) const {
  const auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return StateNotFound(kPreFilterStateKey);
  const api::Node* node = info.node();
  if (node == nullptr) return Status::Error("node not found");
  const api::LabelSet& labels = node->metadata.labels;
  for (size_t i = 0; i < s->constraints->size(); ++i) {
    const Constraint& c = (*s->constraints)[i];
    const api::Symbol* value = labels.Get(c.topology_key);
    if (value == nullptr) {
      static const Status kLabelNotMatch = framework::SharedFailure(
          framework::Code::kUnschedulableAndUnresolvable, kErrReasonNodeLabelNotMatch, kName);
      return kLabelNotMatch;
    }
    // Placing the pod here gives its domain matchNum + selfMatch pods; the skew is measured from
    // the emptiest domain.
    const auto it = s->counts[i].find(*value);
    const int64_t match_num = it == s->counts[i].end() ? 0 : it->second;
    const int64_t skew = match_num + (c.self_match ? 1 : 0) - s->MinMatchNum(i);
    if (skew > c.max_skew) {
      static const Status kNotMatch = framework::SharedFailure(
          framework::Code::kUnschedulable, kErrReasonConstraintsNotMatch, kName);
      return kNotMatch;
    }
  }
  return Status::OK();
}

}  // namespace muster::plugins::podtopologyspread
