#pragma once

// Pod affinity terms as upstream's scheduler sees them (framework.AffinityTerm, NewPodInfo and
// AffinityTerm.Matches), computed from the api::Pod without copying its terms:
//   - namespaces: the term's list, or the owning pod's namespace when the term has neither a list
//     nor a namespaceSelector; a namespaceSelector adds the namespaces whose labels it matches.
//   - labels: labelSelector (absent selects nothing), ANDed with what the API server merges in on
//     pod creation from matchLabelKeys (key In (owner's value)) and mismatchLabelKeys (key NotIn
//     (owner's value)); keys the owner does not carry are ignored. muster's objects do not pass
//     through the API server's mutation, so the merge happens here, from the owner's labels.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "muster/api/types.h"
#include "muster/framework/handle.h"
#include "muster/framework/node_info.h"

namespace muster::plugins::interpodaffinity {

// What matching looks at of a pod: the namespace and labels of a term's owner (its namespace
// defaults the term's namespaces, its labels fill matchLabelKeys/mismatchLabelKeys) or of the pod
// a term is matched against.
struct PodRef {
  api::Symbol namespace_;
  const api::LabelSet* labels = nullptr;

  static PodRef Of(const api::Pod& pod) { return {pod.metadata.namespace_, &pod.metadata.labels}; }
};

// The label half of a term's match against `target` labels.
bool TermSelectsLabels(const api::PodAffinityTerm& term, const api::LabelSet& owner_labels,
                       const api::LabelSet& target_labels);

// The namespace half. `ns_labels(ns)` returns the labels of namespace `ns`, or nullptr when
// a namespaceSelector cannot match it; it is called only when the selector decides.
template <typename NamespaceLabels>
bool TermSelectsNamespace(const api::PodAffinityTerm& term, api::Symbol owner_namespace,
                          api::Symbol target_namespace, NamespaceLabels&& ns_labels) {
  if (term.namespaces.empty() && !term.namespace_selector) {
    return target_namespace == owner_namespace;
  }
  if (std::find(term.namespaces.begin(), term.namespaces.end(), target_namespace) !=
      term.namespaces.end()) {
    return true;
  }
  if (!term.namespace_selector) return false;
  // An empty selector selects every namespace, existing or not (upstream labels.Everything()).
  if (term.namespace_selector->Empty()) return true;
  const api::LabelSet* labels = ns_labels(target_namespace);
  return labels != nullptr && term.namespace_selector->Matches(*labels);
}

// Upstream AffinityTerm.Matches: whether `term` of `owner` selects `target`.
template <typename NamespaceLabels>
bool TermMatches(const api::PodAffinityTerm& term, const PodRef& owner, const PodRef& target,
                 NamespaceLabels&& ns_labels) {
  return TermSelectsNamespace(term, owner.namespace_, target.namespace_, ns_labels) &&
         TermSelectsLabels(term, *owner.labels, *target.labels);
}

// Upstream podMatchesAllAffinityTerms: false for no terms.
template <typename NamespaceLabels>
bool MatchesAllTerms(std::span<const api::PodAffinityTerm> terms, const PodRef& owner,
                     const PodRef& target, NamespaceLabels&& ns_labels) {
  if (terms.empty()) return false;
  for (const api::PodAffinityTerm& t : terms) {
    if (!TermMatches(t, owner, target, ns_labels)) return false;
  }
  return true;
}

// The memo key (framework::CountPods) of "pods that all of `terms`, owned by `owner`, select", or 0
// when the answer also depends on namespaces' labels (a non-empty namespaceSelector), which a
// count over a node's pods cannot notice changing.
uint32_t AllTermsCountKey(std::span<const api::PodAffinityTerm> terms, const PodRef& owner);

using api::TermsParse;

// The error upstream's getAffinityTerms reports for a list: its first term that does not parse.
std::optional<std::string> TermsParseError(std::span<const api::PodAffinityTerm> terms);

// The error upstream's NewPodInfo reports for the pod's terms ("requiredAffinityTerms: ..." per
// failing list, aggregated), or nullopt when they all parse.
std::optional<std::string> PodTermsParseError(const api::Pod& pod);

// The error metav1.LabelSelectorAsSelector returns for `selector`, or nullopt when it converts.
std::optional<std::string> SelectorParseError(const api::LabelSelector& selector);

// The four term lists of a pod's spec (empty when absent).
std::span<const api::PodAffinityTerm> RequiredAffinityTerms(const api::Pod& pod);
std::span<const api::PodAffinityTerm> RequiredAntiAffinityTerms(const api::Pod& pod);
std::span<const api::WeightedPodAffinityTerm> PreferredAffinityTerms(const api::Pod& pod);
std::span<const api::WeightedPodAffinityTerm> PreferredAntiAffinityTerms(const api::Pod& pod);

// A copy of the incoming pod's terms and of what matching them needs, taken once per cycle and
// shared, read-only, by a cycle state and its clones (upstream keeps the pod's PodInfo there).
struct IncomingPod {
  api::Symbol namespace_;
  api::LabelSet labels;
  std::vector<api::PodAffinityTerm> required_affinity;
  std::vector<api::PodAffinityTerm> required_anti_affinity;
  std::vector<api::WeightedPodAffinityTerm> preferred_affinity;
  std::vector<api::WeightedPodAffinityTerm> preferred_anti_affinity;
  // The labels of the pod's own namespace (empty when it does not exist), against which existing
  // pods' namespaceSelectors are matched (upstream GetNamespaceLabelsSnapshot).
  api::LabelSet namespace_labels;
  bool namespace_exists = false;
  // The labels of the namespaces of the pods seen when the state was built, for the pod's own
  // namespaceSelectors (nullopt: no such namespace). Filled only when a selector needs it.
  std::unordered_map<api::Symbol, std::optional<api::LabelSet>> known_namespaces;

  PodRef ref() const { return {namespace_, &labels}; }
  // The labels of namespace `ns` for the pod's own namespaceSelectors: nullptr when it does not
  // exist. Looks in known_namespaces, then asks `lister`.
  const api::LabelSet* NamespaceLabels(api::Symbol ns, const framework::ObjectLister& lister) const;
};

// Memo keys (framework::CountPods' memo) for what existing pods' terms give the incoming pod,
// per topology key: `what` names the sum (which terms, what each counts), and the incoming pod is
// named as those terms see it: its namespace, labels and namespace's labels. Keys are made on
// first use, from the threads of a parallel loop: a cycle meets only a few topology keys, and
// listing them up front would take a pass over every node.
class ExistingTermKeys {
 public:
  ExistingTermKeys(std::string_view what, const IncomingPod& in);
  // The key for `topology_key`; 0 (no memo) past the first kSlots distinct topology keys.
  uint32_t Get(api::Symbol topology_key) const;

 private:
  static constexpr size_t kSlots = 16;
  std::string signature_;
  // (topology key id << 32) | memo key, filled in order; 0 while free.
  mutable std::array<std::atomic<uint64_t>, kSlots> slots_{};
};

// What existing pods' terms on one node credit, per topology key of node.affinity_term_keys():
// the summed amounts, and whether anything was credited (an amount of 0 still counts).
inline constexpr size_t kMaxTermKeys = 8;
struct TermKeySums {
  std::array<int64_t, kMaxTermKeys> sums{};
  std::array<bool, kMaxTermKeys> credited{};
};

// Fills *out from the node's memo, or by walk(credit), where walk calls credit(term, amount) for
// each existing term that selects the incoming pod, and remembers it. False, with nothing
// filled, when the node's terms use more than kMaxTermKeys topology keys.
template <typename Walk>
bool SumPerTermKey(const framework::NodeInfo& node, const ExistingTermKeys& keys, Walk&& walk,
                   TermKeySums* out) {
  const std::vector<api::Symbol>& node_keys = node.affinity_term_keys();
  if (node_keys.size() > kMaxTermKeys) return false;
  // A memo count holds the sum in its high 31 bits and "credited" in the low one.
  constexpr int64_t kMaxSum = (int64_t{1} << 30) - 1;
  bool remembered = true;
  for (size_t j = 0; j < node_keys.size() && remembered; ++j) {
    uint32_t packed = 0;
    remembered = node.pod_count_memo().Find(keys.Get(node_keys[j]), &packed);
    out->sums[j] = static_cast<int32_t>(packed) >> 1;
    out->credited[j] = (packed & 1) != 0;
  }
  if (remembered) return true;
  *out = TermKeySums{};
  walk([&](const api::PodAffinityTerm& t, int64_t amount) {
    const size_t j = static_cast<size_t>(
        std::find(node_keys.begin(), node_keys.end(), t.topology_key) - node_keys.begin());
    out->sums[j] += amount;
    out->credited[j] = true;
  });
  for (size_t j = 0; j < node_keys.size(); ++j) {
    if (out->sums[j] > kMaxSum || out->sums[j] < -kMaxSum) continue;
    const uint32_t packed = (static_cast<uint32_t>(static_cast<int32_t>(out->sums[j])) << 1) |
                            (out->credited[j] ? 1u : 0u);
    node.pod_count_memo().Record(keys.Get(node_keys[j]), packed);
  }
  return true;
}

enum class TermKinds { kRequired, kPreferred };

// Copies the pod's required (for PreFilter) or preferred (for PreScore) terms and its namespace's
// labels; when those terms have non-empty namespaceSelectors, also the labels of the namespaces of
// the pod itself and of every pod on `nodes`.
std::shared_ptr<IncomingPod> MakeIncomingPod(const api::Pod& pod, TermKinds kinds,
                                             std::span<framework::NodeInfo* const> nodes,
                                             const framework::ObjectLister& lister);

}  // namespace muster::plugins::interpodaffinity
