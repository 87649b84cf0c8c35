// InterPodAffinity's construction and queueing hints (upstream plugin.go).

#include "muster/plugins/interpodaffinity/inter_pod_affinity.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "muster/framework/metrics.h"
#include "muster/plugins/interpodaffinity/terms.h"

namespace muster::plugins::interpodaffinity {
namespace {

using framework::ClusterEvent;
using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;

QueueingHint QueueWithError(Status* error, std::string message) {
  if (error != nullptr) *error = Status::Error(std::move(message));
  return QueueingHint::kQueue;
}

// The pod's required terms of one kind, or nullopt with *error set when they do not parse
// (upstream GetAffinityTerms failing).
std::optional<std::span<const api::PodAffinityTerm>> ParsedTerms(
    std::span<const api::PodAffinityTerm> terms, std::string* error) {
  if (std::optional<std::string> e = TermsParseError(terms)) {
    *error = *e;
    return std::nullopt;
  }
  return terms;
}

// Hints match terms as upstream's podMatchesAllAffinityTerms does, without namespace labels: a
// namespaceSelector sees an empty label set.
bool MatchesAll(std::span<const api::PodAffinityTerm> terms, const api::Pod& owner,
                const api::Pod& target) {
  static const api::LabelSet kNoLabels;
  return MatchesAllTerms(terms, PodRef::Of(owner), PodRef::Of(target),
                         [](api::Symbol) { return &kNoLabels; });
}

}  // namespace

InterPodAffinity::InterPodAffinity(const InterPodAffinityArgs& args, framework::Handle& handle)
    : args_(args), handle_(handle) {
  if (framework::Metrics* m = handle.metrics()) busy_ = m->Goroutines(Name()).get();
}

std::unique_ptr<framework::Plugin> InterPodAffinity::New(const framework::PluginArgs& args,
                                                         framework::Handle& handle,
                                                         std::string* error) {
  InterPodAffinityArgs decoded;
  if (!LoadInterPodAffinityArgs(args, &decoded, error)) return nullptr;
  return std::make_unique<InterPodAffinity>(decoded, handle);
}

std::vector<framework::ClusterEventWithHint> InterPodAffinity::EventsToRegister() const {
  auto pod_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterPodChange(pod, e, error);
  };
  auto node_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterNodeChange(pod, e, error);
  };
  // A scheduled pod that arrives may satisfy the pod's affinity; one that leaves, or loses the
  // labels its anti-affinity selects, may lift a conflict; the pod's own relabelling may make it
  // match its own affinity. A node that is added or relabelled may bring the topology a term
  // needs. Upstream drops node taint updates once queueing hints are on, as here.
  return {
      {ClusterEvent{framework::EventResource::kAssignedPod,
                    framework::kAdd | framework::kUpdatePodLabel | framework::kDelete,
                    "AssignedPodAdd|UpdatePodLabel|Delete"},
       pod_hint},
      {ClusterEvent{framework::EventResource::kPod, framework::kUpdatePodLabel,
                    "PodUpdatePodLabel"},
       pod_hint},
      {ClusterEvent{framework::EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel,
                    "NodeAdd|UpdateNodeLabel"},
       node_hint},
  };
}

QueueingHint InterPodAffinity::IsSchedulableAfterPodChange(const api::Pod& pod,
                                                           const EventObjects& event,
                                                           Status* error) const {
  const api::Pod* original = event.old_pod;
  const api::Pod* modified = event.new_pod;
  if (original == nullptr && modified == nullptr) {
    return QueueWithError(error, "InterPodAffinity: pod event without a pod");
  }
  // The pod's own labels changed: it may now match its own affinity (the first pod of a group).
  if (modified != nullptr && modified->metadata.uid == pod.metadata.uid) {
    return QueueingHint::kQueue;
  }
  // An unscheduled pod occupies no topology.
  if ((modified != nullptr && modified->spec.node_name.empty()) ||
      (original != nullptr && original->spec.node_name.empty())) {
    return QueueingHint::kSkip;
  }
  std::string parse_error;
  const auto terms = ParsedTerms(RequiredAffinityTerms(pod), &parse_error);
  if (!terms) return QueueWithError(error, parse_error);
  const auto anti = ParsedTerms(RequiredAntiAffinityTerms(pod), &parse_error);
  if (!anti) return QueueWithError(error, parse_error);

  // Affinity needs a single pod matching every term, so "all terms" is the test throughout.
  if (original != nullptr && modified != nullptr) {
    if (!MatchesAll(*terms, pod, *original) && MatchesAll(*terms, pod, *modified)) {
      return QueueingHint::kQueue;
    }
    if (MatchesAll(*anti, pod, *original) && !MatchesAll(*anti, pod, *modified)) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }
  if (modified != nullptr) {
    return MatchesAll(*terms, pod, *modified) ? QueueingHint::kQueue : QueueingHint::kSkip;
  }
  if (MatchesAll(*anti, pod, *original)) return QueueingHint::kQueue;
  // The deleted pod's own anti-affinity may have been what kept the pod away.
  const auto existing_anti = RequiredAntiAffinityTerms(*original);
  if (!TermsParse(existing_anti)) return QueueingHint::kSkip;
  for (const api::PodAffinityTerm& t : existing_anti) {
    if (MatchesAll(std::span(&t, 1), *original, pod)) return QueueingHint::kQueue;
  }
  return QueueingHint::kSkip;
}

QueueingHint InterPodAffinity::IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                            const EventObjects& event,
                                                            Status* error) const {
  const api::Node* original = event.old_node;
  const api::Node* modified = event.new_node;
  if (modified == nullptr)
    return QueueWithError(error, "InterPodAffinity: node event without the new node");
  std::string parse_error;
  const auto terms = ParsedTerms(RequiredAffinityTerms(pod), &parse_error);
  if (!terms) return QueueWithError(error, parse_error);
  const api::LabelSet& now = modified->metadata.labels;
  // Affinity: a node that gains a term's topology key, or moves to another value of it.
  for (const api::PodAffinityTerm& t : *terms) {
    const api::Symbol* after = now.Get(t.topology_key);
    if (original == nullptr) {
      if (after != nullptr) return QueueingHint::kQueue;
      continue;
    }
    const api::Symbol* before = original->metadata.labels.Get(t.topology_key);
    if (after != nullptr && (before == nullptr || *before != *after)) return QueueingHint::kQueue;
  }
  const auto anti = ParsedTerms(RequiredAntiAffinityTerms(pod), &parse_error);
  if (!anti) return QueueWithError(error, parse_error);
  // Anti-affinity: any new node, or a node that leaves a term's topology value.
  for (const api::PodAffinityTerm& t : *anti) {
    if (original == nullptr) return QueueingHint::kQueue;
    const api::Symbol* before = original->metadata.labels.Get(t.topology_key);
    const api::Symbol* after = now.Get(t.topology_key);
    if (before != nullptr && (after == nullptr || *before != *after)) return QueueingHint::kQueue;
  }
  return QueueingHint::kSkip;
}

}  // namespace muster::plugins::interpodaffinity
