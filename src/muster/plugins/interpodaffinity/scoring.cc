// InterPodAffinity's PreScore, Score and NormalizeScore (upstream scoring.go).

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

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

// The incoming pod's own preferred term, with its signed weight and its count memo key.
struct OwnTerm {
  const api::PodAffinityTerm* term;
  int64_t weight;
  uint32_t key;
};

// Calls credit(term, weight) for every term of an existing pod on the node that selects the
// incoming pod (upstream processExistingPod's half about the existing pod's terms): required
// affinity at `hard_weight`, preferred affinity at +weight, preferred anti-affinity at -weight.
template <typename NamespaceLabels, typename Credit>
void ExistingTermsSelecting(const framework::NodeInfo& node, const PodRef& incoming,
                            int32_t hard_weight, NamespaceLabels&& incoming_namespace,
                            Credit&& credit) {
  for (const framework::PodInfoPtr& existing : node.pods_with_affinity()) {
    const PodRef other = PodRef::Of(existing->pod);
    auto process = [&](const api::PodAffinityTerm& t, int64_t weight) {
      if (TermMatches(t, other, incoming, incoming_namespace)) credit(t, weight);
    };
    if (hard_weight > 0 && existing->required_affinity_parses) {
      for (const api::PodAffinityTerm& t : RequiredAffinityTerms(existing->pod)) {
        process(t, hard_weight);
      }
    }
    if (existing->preferred_affinity_parses) {
      for (const api::WeightedPodAffinityTerm& w : PreferredAffinityTerms(existing->pod)) {
        process(w.term, w.weight);
      }
    }
    if (existing->preferred_anti_affinity_parses) {
      for (const api::WeightedPodAffinityTerm& w : PreferredAntiAffinityTerms(existing->pod)) {
        process(w.term, -int64_t{w.weight});
      }
    }
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

  // Both halves are remembered per node between cycles (framework::CountPods' memo). The
  // incoming pod's terms are counted as PreFilter counts them. The existing pods' terms are
  // summed per topology key, under a key naming the incoming pod as those terms see it: its
  // namespace, its labels and its namespace's labels.
  std::vector<OwnTerm> own;
  for (const api::WeightedPodAffinityTerm& w : in->preferred_affinity) {
    own.push_back({&w.term, w.weight, AllTermsCountKey({&w.term, 1}, incoming)});
  }
  for (const api::WeightedPodAffinityTerm& w : in->preferred_anti_affinity) {
    own.push_back({&w.term, -int64_t{w.weight}, AllTermsCountKey({&w.term, 1}, incoming)});
  }
  const ExistingTermKeys existing_keys(fmt::format("score hard={}", hard_weight), *in);

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
        if (has_constraints) {
          for (const OwnTerm& t : own) {
            const api::Symbol* value = labels.Get(t.term->topology_key);
            if (value == nullptr) continue;
            const uint32_t n =
                framework::CountPods(node, t.key, [&](const framework::PodInfo& existing) {
                  return TermMatches(*t.term, incoming, PodRef::Of(existing.pod), own_selectors);
                });
            if (n > 0) out.push_back({t.term->topology_key, *value, t.weight * n});
          }
        }

        auto walk = [&](auto&& credit) {
          ExistingTermsSelecting(node, incoming, hard_weight, incoming_namespace, credit);
        };
        TermKeySums sums;
        if (!SumPerTermKey(node, existing_keys, walk, &sums)) {
          // Unusual: credited term by term, without the memo.
          walk([&](const api::PodAffinityTerm& t, int64_t weight) {
            if (const api::Symbol* value = labels.Get(t.topology_key)) {
              out.push_back({t.topology_key, *value, weight});
            }
          });
          return;
        }
        const std::vector<api::Symbol>& keys = node.affinity_term_keys();
        for (size_t j = 0; j < keys.size(); ++j) {
          if (!sums.credited[j]) continue;
          if (const api::Symbol* value = labels.Get(keys[j])) {
            out.push_back({keys[j], *value, sums.sums[j]});
          }
        }
      },
      [&](const Weight& w) {
        any = true;
        s->topology_score.Add(w.key, w.value, w.weight, /*erase_zero=*/false);
      },
      busy_);
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
