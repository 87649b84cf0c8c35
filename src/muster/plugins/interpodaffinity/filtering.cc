// InterPodAffinity's PreFilter, PreFilterExtensions and Filter (upstream filtering.go).

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

enum class Counts : uint8_t { kExistingAntiAffinity, kAffinity, kAntiAffinity };

// Pods that PreFilter's per-node pass found, under one topology pair.
struct Match {
  Counts counts;
  api::Symbol key;
  api::Symbol value;
  int64_t count = 1;
};

TopologyMap& CountsOf(PreFilterState& s, Counts counts) {
  switch (counts) {
    case Counts::kExistingAntiAffinity:
      return s.existing_anti_affinity_counts;
    case Counts::kAffinity:
      return s.affinity_counts;
    case Counts::kAntiAffinity:
      break;
  }
  return s.anti_affinity_counts;
}

const api::LabelSet* NodeLabels(const framework::NodeInfo& node) {
  return node.node() == nullptr ? nullptr : &node.node()->metadata.labels;
}

// Appends `count` matches under the node's value of `key`, when the node has the key.
void AppendIfLabelled(std::vector<Match>& out, Counts counts, const api::LabelSet& labels,
                      api::Symbol key, int64_t count = 1) {
  if (const api::Symbol* value = labels.Get(key)) out.push_back({counts, key, *value, count});
}

bool HasAnyKey(const api::LabelSet& labels, std::span<const api::PodAffinityTerm> terms) {
  for (const api::PodAffinityTerm& t : terms) {
    if (labels.Has(t.topology_key)) return true;
  }
  return false;
}

Status MissingState(std::string_view key) {
  return Status::Error(fmt::format("error reading \"{}\" from cycleState: not found", key));
}

// Upstream satisfyPodAffinity.
bool SatisfiesPodAffinity(const PreFilterState& s, const api::LabelSet& labels) {
  bool pods_exist = true;
  for (const api::PodAffinityTerm& t : s.pod->required_affinity) {
    const api::Symbol* value = labels.Get(t.topology_key);
    // Every topology key must be on the node, even for the first pod of a group.
    if (value == nullptr) return false;
    if (s.affinity_counts.Get(t.topology_key, *value) <= 0) pods_exist = false;
  }
  if (pods_exist) return true;
  // No pod anywhere matches: the pod may start its group where its terms would select itself.
  return s.affinity_counts.empty() && s.matches_own_affinity;
}

// Upstream satisfyPodAntiAffinity.
bool SatisfiesPodAntiAffinity(const PreFilterState& s, const api::LabelSet& labels) {
  if (s.anti_affinity_counts.empty()) return true;
  for (const api::PodAffinityTerm& t : s.pod->required_anti_affinity) {
    const api::Symbol* value = labels.Get(t.topology_key);
    if (value != nullptr && s.anti_affinity_counts.Get(t.topology_key, *value) > 0) return false;
  }
  return true;
}

}  // namespace

Status InterPodAffinity::PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                                   std::span<framework::NodeInfo* const> nodes,
                                   framework::PreFilterResult* /*result*/) {
  if (std::optional<std::string> error = PodTermsParseError(pod.pod)) {
    return Status(Code::kUnschedulableAndUnresolvable, "parsing pod: " + *error);
  }
  const std::vector<framework::NodeInfo*>& anti_nodes =
      handle_.snapshot().HavePodsWithRequiredAntiAffinity();
  const bool has_required =
      !RequiredAffinityTerms(pod.pod).empty() || !RequiredAntiAffinityTerms(pod.pod).empty();
  // Nothing could be counted: no need to look the namespace up or copy anything.
  if (!has_required && anti_nodes.empty()) return Status(Code::kSkip);

  const framework::ObjectLister& lister = handle_.lister();
  std::shared_ptr<const IncomingPod> in =
      MakeIncomingPod(pod.pod, TermKinds::kRequired, nodes, lister);
  const PodRef incoming = in->ref();
  // Existing pods' namespaceSelectors see the incoming pod's namespace labels, empty when the
  // namespace does not exist (upstream GetNamespaceLabelsSnapshot).
  auto incoming_namespace = [&](api::Symbol) { return &in->namespace_labels; };
  auto own_selectors = [&](api::Symbol ns) { return in->NamespaceLabels(ns, lister); };

  auto s = std::make_unique<PreFilterState>();
  auto merge = [&](const Match& m) {
    CountsOf(*s, m.counts).Add(m.key, m.value, m.count, /*erase_zero=*/false);
  };

  // Symmetry: existing pods whose required anti-affinity selects the incoming pod, counted per
  // topology key and remembered with each node's pods between cycles.
  const ExistingTermKeys anti_keys("required anti-affinity", *in);
  CollectOverNodes<Match>(
      anti_nodes.size(),
      [&](size_t i, std::vector<Match>& out) {
        const framework::NodeInfo& node = *anti_nodes[i];
        const api::LabelSet* labels = NodeLabels(node);
        if (labels == nullptr) return;
        auto walk = [&](auto&& credit) {
          for (const framework::PodInfoPtr& existing : node.pods_with_required_anti_affinity()) {
            if (!existing->required_anti_affinity_parses) continue;
            const PodRef owner = PodRef::Of(existing->pod);
            for (const api::PodAffinityTerm& t : RequiredAntiAffinityTerms(existing->pod)) {
              if (TermMatches(t, owner, incoming, incoming_namespace)) credit(t, 1);
            }
          }
        };
        TermKeySums sums;
        if (!SumPerTermKey(node, anti_keys, walk, &sums)) {
          walk([&](const api::PodAffinityTerm& t, int64_t) {
            AppendIfLabelled(out, Counts::kExistingAntiAffinity, *labels, t.topology_key);
          });
          return;
        }
        const std::vector<api::Symbol>& keys = node.affinity_term_keys();
        for (size_t j = 0; j < keys.size(); ++j) {
          if (sums.sums[j] > 0) {
            AppendIfLabelled(out, Counts::kExistingAntiAffinity, *labels, keys[j], sums.sums[j]);
          }
        }
      },
      merge, busy_);

  // The incoming pod's own terms, against every existing pod.
  const std::span<const api::PodAffinityTerm> affinity = in->required_affinity;
  const std::span<const api::PodAffinityTerm> anti = in->required_anti_affinity;
  if (has_required) {
    // Counted per node and remembered with the node's pods between cycles.
    const uint32_t affinity_key = AllTermsCountKey(affinity, incoming);
    std::vector<uint32_t> anti_key(anti.size());
    for (size_t j = 0; j < anti.size(); ++j) {
      anti_key[j] = AllTermsCountKey(anti.subspan(j, 1), incoming);
    }
    CollectOverNodes<Match>(
        nodes.size(),
        [&](size_t i, std::vector<Match>& out) {
          const api::LabelSet* labels = NodeLabels(*nodes[i]);
          if (labels == nullptr) return;
          // A pod counts only under the node's values: a node without any of the keys adds nothing.
          if (HasAnyKey(*labels, affinity)) {
            const uint32_t n = framework::CountPods(
                *nodes[i], affinity_key, [&](const framework::PodInfo& existing) {
                  return MatchesAllTerms(affinity, incoming, PodRef::Of(existing.pod),
                                         own_selectors);
                });
            if (n > 0) {
              for (const api::PodAffinityTerm& t : affinity) {
                AppendIfLabelled(out, Counts::kAffinity, *labels, t.topology_key, n);
              }
            }
          }
          if (!HasAnyKey(*labels, anti)) return;
          for (size_t j = 0; j < anti.size(); ++j) {
            const api::PodAffinityTerm& t = anti[j];
            const uint32_t n = framework::CountPods(
                *nodes[i], anti_key[j], [&](const framework::PodInfo& existing) {
                  return TermMatches(t, incoming, PodRef::Of(existing.pod), own_selectors);
                });
            if (n > 0) AppendIfLabelled(out, Counts::kAntiAffinity, *labels, t.topology_key, n);
          }
        },
        merge, busy_);
  }

  if (s->existing_anti_affinity_counts.empty() && !has_required) return Status(Code::kSkip);
  s->matches_own_affinity = MatchesAllTerms(affinity, incoming, incoming, own_selectors);
  s->pod = std::move(in);
  state.Write(kPreFilterStateKey, std::move(s));
  return Status::OK();
}

Status InterPodAffinity::UpdateWithPod(framework::CycleState& state, const framework::PodInfo& pod,
                                       const framework::NodeInfo& node, int64_t multiplier) const {
  auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return MissingState(kPreFilterStateKey);
  const api::LabelSet* labels = NodeLabels(node);
  if (labels == nullptr) return Status::Error("node not found");
  const IncomingPod& in = *s->pod;
  const PodRef incoming = in.ref();
  const PodRef updated = PodRef::Of(pod.pod);
  const framework::ObjectLister& lister = handle_.lister();
  auto incoming_namespace = [&](api::Symbol) { return &in.namespace_labels; };
  auto own_selectors = [&](api::Symbol ns) { return in.NamespaceLabels(ns, lister); };

  const auto existing_anti = RequiredAntiAffinityTerms(pod.pod);
  if (TermsParse(existing_anti)) {
    for (const api::PodAffinityTerm& t : existing_anti) {
      if (TermMatches(t, updated, incoming, incoming_namespace)) {
        s->existing_anti_affinity_counts.AddForNode(*labels, t.topology_key, multiplier, true);
      }
    }
  }
  if (MatchesAllTerms(in.required_affinity, incoming, updated, own_selectors)) {
    for (const api::PodAffinityTerm& t : in.required_affinity) {
      s->affinity_counts.AddForNode(*labels, t.topology_key, multiplier, true);
    }
  }
  for (const api::PodAffinityTerm& t : in.required_anti_affinity) {
    if (TermMatches(t, incoming, updated, own_selectors)) {
      s->anti_affinity_counts.AddForNode(*labels, t.topology_key, multiplier, true);
    }
  }
  return Status::OK();
}

Status InterPodAffinity::AddPod(framework::CycleState& state,
                                const framework::PodInfo& /*pod_to_schedule*/,
                                const framework::PodInfo& pod_to_add,
                                const framework::NodeInfo& node) const {
  return UpdateWithPod(state, pod_to_add, node, 1);
}

Status InterPodAffinity::RemovePod(framework::CycleState& state,
                                   const framework::PodInfo& /*pod_to_schedule*/,
                                   const framework::PodInfo& pod_to_remove,
                                   const framework::NodeInfo& node) const {
  return UpdateWithPod(state, pod_to_remove, node, -1);
}

Status InterPodAffinity::Filter(const framework::CycleState& state,
                                const framework::PodInfo& /*pod*/,
                                const framework::NodeInfo& node) const {
  const auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) return MissingState(kPreFilterStateKey);
  const api::LabelSet* labels = NodeLabels(node);
  if (labels == nullptr) return Status::Error("node not found");
  if (!SatisfiesPodAffinity(*s, *labels)) {
    static const Status kAffinity = framework::SharedFailure(
        Code::kUnschedulableAndUnresolvable, kErrReasonAffinityRulesNotMatch, kName);
    return kAffinity;
  }
  if (!SatisfiesPodAntiAffinity(*s, *labels)) {
    static const Status kAntiAffinity =
        framework::SharedFailure(Code::kUnschedulable, kErrReasonAntiAffinityRulesNotMatch, kName);
    return kAntiAffinity;
  }
  if (s->existing_anti_affinity_counts.AnyPositive(*labels)) {
    static const Status kExisting = framework::SharedFailure(
        Code::kUnschedulable, kErrReasonExistingAntiAffinityRulesNotMatch, kName);
    return kExisting;
  }
  return Status::OK();
}

}  // namespace muster::plugins::interpodaffinity
