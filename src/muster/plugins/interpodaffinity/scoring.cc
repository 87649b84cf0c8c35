// InterPodAffinity's PreScore, Score and NormalizeScore (upstream scoring.go).

#include <fmt/format.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "muster/plugins/interpodaffinity/inter_pod_affinity.h"
#include "muster/plugins/interpodaffinity/parallel.h"
#include "muster/plugins/interpodaffinity/state.h"

namespace muster::plugins::interpodaffinity {
namespace {

using framework::Code;
using framework::Status;

// One weight that PreScore's per-node pass found.
struct Weight {
  api::Symbol key;
  api::Symbol value;
  int64_t weight;
};

// Upstream scoreMap.processTerm: the term's weight under the node's value of its topology key,
// when the term selects `target`.
template <typename NamespaceLabels>
void ProcessTerm(std::vector<Weight>& out, const api::PodAffinityTerm& term, int32_t weight,
                 int32_t multiplier, const PodRef& owner, const PodRef& target,
                 NamespaceLabels&& ns_labels, const api::LabelSet& node_labels) {
  if (!TermMatches(term, owner, target, ns_labels)) return;
  if (const api::Symbol* value = node_labels.Get(term.topology_key)) {
    out.push_back({term.topology_key, *value, static_cast<int64_t>(weight * multiplier)});
  }
}

template <typename NamespaceLabels>
void ProcessTerms(std::vector<Weight>& out, std::span<const api::WeightedPodAffinityTerm> terms,
                  int32_t multiplier, const PodRef& owner, const PodRef& target,
                  NamespaceLabels&& ns_labels, const api::LabelSet& node_labels) {
  for (const api::WeightedPodAffinityTerm& w : terms) {
    ProcessTerm(out, w.term, w.weight, multiplier, owner, target, ns_labels, node_labels);
  }
}

Status MissingState(std::string_view key) {
  return Status::Error(fmt::format("failed to read \"{}\" from cycleState: not found", key));
}

}  // namespace

Status InterPodAffinity::PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                                  std::span<framework::NodeInfo* const> feasible) {
  if (feasible.empty()) return Status(Code::kSkip);
  const bool has_constraints =
      !PreferredAffinityTerms(pod.pod).empty() || !PreferredAntiAffinityTerms(pod.pod).empty();
  if (args_.ignore_preferred_terms_of_existing_pods && !has_constraints) {
    return Status(Code::kSkip);
  }
  if (std::optional<std::string> error = PodTermsParseError(pod.pod)) {
    return Status::Error("failed to parse pod: " + *error);
  }
  // Without preferred terms of its own, the pod is scored only by existing pods' terms: only the
  // pods that have some need looking at.
  const framework::Snapshot& snapshot = handle_.snapshot();
  const std::vector<framework::NodeInfo*>& nodes =
      has_constraints ? snapshot.List() : snapshot.HavePodsWithAffinity();
  const framework::ObjectLister& lister = handle_.lister();
  std::shared_ptr<const IncomingPod> in =
      MakeIncomingPod(pod.pod, TermKinds::kPreferred, nodes, lister);
  const PodRef incoming = in->ref();
  auto incoming_namespace = [&](api::Symbol) { return &in->namespace_labels; };
  auto own_selectors = [&](api::Symbol ns) { return in->NamespaceLabels(ns, lister); };
  const int32_t hard_weight =
      args_.hard_pod_affinity_weight.value_or(kDefaultHardPodAffinityWeight);

  auto s = std::make_unique<PreScoreState>();
  bool any = false;
  CollectOverNodes<Weight>(
      nodes.size(),
      [&](size_t i, std::vector<Weight>& out) {
        const framework::NodeInfo& node = *nodes[i];
        if (node.node() == nullptr) return;
        const api::LabelSet& labels = node.node()->metadata.labels;
        // No label, no topology value to credit.
        if (labels.empty()) return;
        const framework::PodList& pods =
            has_constraints ? node.pods() : node.pods_with_affinity();
        for (const framework::PodInfoPtr& existing : pods) {
          const PodRef other = PodRef::Of(existing->pod);
          ProcessTerms(out, in->preferred_affinity, 1, incoming, other, own_selectors, labels);
          ProcessTerms(out, in->preferred_anti_affinity, -1, incoming, other, own_selectors,
                       labels);
          if (hard_weight > 0) {
            const auto required = RequiredAffinityTerms(existing->pod);
            if (existing->required_affinity_parses) {
              for (const api::PodAffinityTerm& t : required) {
                ProcessTerm(out, t, hard_weight, 1, other, incoming, incoming_namespace, labels);
              }
            }
          }
          const auto preferred = PreferredAffinityTerms(existing->pod);
          if (existing->preferred_affinity_parses) {
            ProcessTerms(out, preferred, 1, other, incoming, incoming_namespace, labels);
          }
          const auto preferred_anti = PreferredAntiAffinityTerms(existing->pod);
          if (existing->preferred_anti_affinity_parses) {
            ProcessTerms(out, preferred_anti, -1, other, incoming, incoming_namespace, labels);
          }
        }
      },
      [&](const Weight& w) {
        any = true;
        s->topology_score.Add(w.key, w.value, w.weight, /*erase_zero=*/false);
      });
  // No term matched anywhere: every node would score the same.
  if (!any) return Status(Code::kSkip);
  state.Write(kPreScoreStateKey, std::move(s));
  return Status::OK();
}

Status InterPodAffinity::Score(const framework::CycleState& state,
                               const framework::PodInfo& /*pod*/, const framework::NodeInfo& node,
                               int64_t* score) const {
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return MissingState(kPreScoreStateKey);
  if (node.node() == nullptr) return Status::Error("node not found");
  *score = s->topology_score.SumFor(node.node()->metadata.labels);
  return Status::OK();
}

Status InterPodAffinity::NormalizeScore(const framework::CycleState& state,
                                        const framework::PodInfo& /*pod*/,
                                        std::span<framework::NodeScore> scores) const {
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  if (s == nullptr) return MissingState(kPreScoreStateKey);
  if (s->topology_score.empty()) return Status::OK();
  int64_t min_count = INT64_MAX;
  int64_t max_count = INT64_MIN;
  for (const framework::NodeScore& ns : scores) {
    max_count = std::max(max_count, ns.score);
    min_count = std::min(min_count, ns.score);
  }
  const int64_t diff = max_count - min_count;
  for (framework::NodeScore& ns : scores) {
    double f = 0;
    if (diff > 0) {
      f = static_cast<double>(framework::kMaxNodeScore) *
          (static_cast<double>(ns.score - min_count) / static_cast<double>(diff));
    }
    ns.score = static_cast<int64_t>(f);
  }
  return Status::OK();
}

}  // namespace muster::plugins::interpodaffinity
