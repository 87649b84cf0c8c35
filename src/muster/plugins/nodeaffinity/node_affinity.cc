#include "muster/plugins/nodeaffinity/node_affinity.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "muster/plugins/helper/normalize_score.h"
#include "muster/plugins/nodeaffinity/parse_errors.h"

namespace muster::plugins::nodeaffinity {
namespace {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;

const api::NodeAffinity* PodNodeAffinity(const api::Pod& pod) {
  if (!pod.spec.affinity || !pod.spec.affinity->node_affinity) return nullptr;
  return &*pod.spec.affinity->node_affinity;
}

const api::NodeSelector* PodRequired(const api::Pod& pod) {
  const api::NodeAffinity* a = PodNodeAffinity(pod);
  return a != nullptr && a->required ? &*a->required : nullptr;
}

// spec.nodeSelector: every pair must be among the node's labels.
bool NodeSelectorMatches(const api::LabelSet& selector, const api::LabelSet& labels) {
  for (const auto& [key, value] : selector) {
    const api::Symbol* got = labels.Get(key);
    if (got == nullptr || *got != value) return false;
  }
  return true;
}

// Upstream RequiredNodeAffinity.Match, ignoring parse errors (a term that does not parse matches
// no node).
bool RequiredMatches(const api::LabelSet& node_selector, const api::NodeSelector* affinity,
                     const api::LabelSet& labels, api::Symbol node_name) {
  if (!NodeSelectorMatches(node_selector, labels)) return false;
  return affinity == nullptr || affinity->Matches(labels, node_name);
}

// The summed weights of the terms that match; terms that cannot earn anything are passed over.
int64_t PreferredScore(std::span<const api::PreferredSchedulingTerm> terms,
                       const api::LabelSet& labels, api::Symbol node_name) {
  int64_t score = 0;
  for (const api::PreferredSchedulingTerm& t : terms) {
    if (t.weight != 0 && t.preference.Matches(labels, node_name)) score += t.weight;
  }
  return score;
}

// Upstream NewPreferredSchedulingTerms' errors for the pod's terms, paths "[i]...".
std::vector<api::FieldError> PreferredParseErrors(
    std::span<const api::PreferredSchedulingTerm> terms) {
  std::vector<api::FieldError> errors;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (terms[i].weight == 0 || IsEmptyTerm(terms[i].preference)) continue;
    if (api::IsWellFormed(terms[i].preference)) continue;
    std::vector<api::FieldError> e = TermParseErrors(terms[i].preference, api::IndexPath("", i));
    errors.insert(errors.end(), e.begin(), e.end());
  }
  return errors;
}

// The pod's required selector, copied and prepared once per cycle so that Filter's matches skip
// re-checking syntax. Shared, immutable, by the state and its clones.
struct RequiredAffinity {
  api::LabelSet node_selector;
  std::optional<api::NodeSelector> affinity;
};

struct PreFilterState final : framework::StateData {
  std::shared_ptr<const RequiredAffinity> required;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

// The pod's preferred terms that can earn something, prepared; shared by clones.
struct PreScoreState final : framework::StateData {
  std::shared_ptr<const std::vector<api::PreferredSchedulingTerm>> preferred;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

// Upstream LazyErrorNodeSelector.Match over the pod's required selector for one node (hints run
// rarely, so the node's name is interned here). Parse errors are reported only when no term
// matches; nullopt then, with *error set.
std::optional<bool> RequiredMatchesReportingErrors(const api::Pod& pod, const api::Node& node,
                                                   std::string* error) {
  const api::LabelSet& labels = node.metadata.labels;
  if (!NodeSelectorMatches(pod.spec.node_selector, labels)) return false;
  const api::NodeSelector* required = PodRequired(pod);
  if (required == nullptr) return true;
  const api::Symbol name(node.metadata.name);
  std::vector<api::FieldError> errors;
  for (size_t i = 0; i < required->terms.size(); ++i) {
    const api::NodeSelectorTerm& term = required->terms[i];
    if (IsEmptyTerm(term)) continue;
    if (!api::IsWellFormed(term)) {
      std::vector<api::FieldError> e =
          TermParseErrors(term, api::IndexPath("nodeSelectorTerms", i));
      errors.insert(errors.end(), e.begin(), e.end());
      continue;
    }
    if (term.Matches(labels, name)) return true;
  }
  if (errors.empty()) return false;
  *error = AggregateMessage(errors);
  return std::nullopt;
}

}  // namespace

std::unique_ptr<NodeAffinity> NodeAffinity::Create(const NodeAffinityArgs& args,
                                                   std::string* error) {
  const std::vector<api::FieldError> errors = Validate(args);
  if (!errors.empty()) {
    *error = JoinFieldErrors(errors);
    return nullptr;
  }
  return std::unique_ptr<NodeAffinity>(new NodeAffinity(args));
}

std::unique_ptr<framework::Plugin> NodeAffinity::New(const framework::PluginArgs& args,
                                                     framework::Handle& /*handle*/,
                                                     std::string* error) {
  NodeAffinityArgs decoded;
  if (!LoadNodeAffinityArgs(args, &decoded, error)) return nullptr;
  return std::unique_ptr<NodeAffinity>(new NodeAffinity(decoded));
}

NodeAffinity::NodeAffinity(const NodeAffinityArgs& args) {
  if (!args.added_affinity) return;
  if (args.added_affinity->required) {
    added_node_selector_ = args.added_affinity->required;
    api::PrepareNodeSelector(*added_node_selector_);
  }
  has_added_preferred_ = !args.added_affinity->preferred.empty();
  for (const api::PreferredSchedulingTerm& t : args.added_affinity->preferred) {
    if (t.weight != 0 && !IsEmptyTerm(t.preference)) added_preferred_.push_back(t);
  }
  api::PreparePreferredSchedulingTerms(added_preferred_);
}

Status NodeAffinity::PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               std::span<framework::NodeInfo* const> /*nodes*/,
                               framework::PreFilterResult* result) {
  const api::NodeSelector* required = PodRequired(pod.pod);
  if (required == nullptr && !added_node_selector_ && pod.pod.spec.node_selector.empty()) {
    return Status(framework::Code::kSkip);
  }
  auto affinity = std::make_shared<RequiredAffinity>();
  affinity->node_selector = pod.pod.spec.node_selector;
  if (required != nullptr) {
    affinity->affinity = *required;
    api::PrepareNodeSelector(*affinity->affinity);
  }
  auto s = std::make_unique<PreFilterState>();
  s->required = std::move(affinity);
  state.Write(kPreFilterStateKey, std::move(s));

  if (required == nullptr || required->terms.empty()) return Status::OK();
  static const api::Symbol kNodeName(api::kNodeNameField);
  // Terms are ORed: the union of what each term allows, and a term with no name requirement
  // allows every node. Within a term the requirements are ANDed: the intersection.
  std::vector<api::Symbol> union_names;
  for (const api::NodeSelectorTerm& term : required->terms) {
    std::optional<std::vector<api::Symbol>> term_names;
    for (const api::SelectorRequirement& r : term.match_fields) {
      if (r.key != kNodeName || r.op != api::SelectorOperator::kIn) continue;
      if (!term_names) {
        term_names.emplace();
        for (api::Symbol v : r.values) {
          if (std::find(term_names->begin(), term_names->end(), v) == term_names->end()) {
            term_names->push_back(v);
          }
        }
      } else {
        std::erase_if(*term_names, [&](api::Symbol n) {
          return std::find(r.values.begin(), r.values.end(), n) == r.values.end();
        });
      }
    }
    if (!term_names) return Status::OK();
    for (api::Symbol n : *term_names) {
      if (std::find(union_names.begin(), union_names.end(), n) == union_names.end()) {
        union_names.push_back(n);
      }
    }
  }
  if (union_names.empty()) return Status::Unresolvable(std::string(kErrReasonConflict));
  result->node_names = std::move(union_names);
  return Status::OK();
}

Status NodeAffinity::Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                            const framework::NodeInfo& node) const {
  if (node.node() == nullptr) return Status::Error("node not found");
  const api::LabelSet& labels = node.node()->metadata.labels;
  if (added_node_selector_ && !added_node_selector_->Matches(labels, node.name())) {
    return Status::Unresolvable(std::string(kErrReasonEnforced));
  }
  bool match = false;
  if (const auto* s = state.Read<PreFilterState>(kPreFilterStateKey)) {
    const RequiredAffinity& r = *s->required;
    match =
        RequiredMatches(r.node_selector, r.affinity ? &*r.affinity : nullptr, labels, node.name());
  } else {
    match = RequiredMatches(pod.pod.spec.node_selector, PodRequired(pod.pod), labels, node.name());
  }
  if (match) return Status::OK();
  static const Status kNotMatch = framework::SharedFailure(
      framework::Code::kUnschedulableAndUnresolvable, kErrReasonPod, kName);
  return kNotMatch;
}

Status NodeAffinity::PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> /*feasible*/) {
  const api::NodeAffinity* affinity = PodNodeAffinity(pod.pod);
  const bool pod_has_preferred = affinity != nullptr && !affinity->preferred.empty();
  if (!pod_has_preferred && !has_added_preferred_) return Status(framework::Code::kSkip);
  auto s = std::make_unique<PreScoreState>();
  if (pod_has_preferred) {
    const std::vector<api::FieldError> errors = PreferredParseErrors(affinity->preferred);
    if (!errors.empty()) return Status::Error(AggregateMessage(errors));
    auto terms = std::make_shared<std::vector<api::PreferredSchedulingTerm>>();
    for (const api::PreferredSchedulingTerm& t : affinity->preferred) {
      if (t.weight != 0 && !IsEmptyTerm(t.preference)) terms->push_back(t);
    }
    api::PreparePreferredSchedulingTerms(*terms);
    s->preferred = std::move(terms);
  }
  state.Write(kPreScoreStateKey, std::move(s));
  return Status::OK();
}

Status NodeAffinity::Score(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node, int64_t* score) const {
  *score = 0;
  if (node.node() == nullptr) return Status::Error("node not found");
  const api::LabelSet& labels = node.node()->metadata.labels;
  int64_t sum = PreferredScore(added_preferred_, labels, node.name());
  if (const auto* s = state.Read<PreScoreState>(kPreScoreStateKey)) {
    if (s->preferred) sum += PreferredScore(*s->preferred, labels, node.name());
  } else if (const api::NodeAffinity* affinity = PodNodeAffinity(pod.pod)) {
    // PreScore did not run: read the pod's terms as they are.
    const std::vector<api::FieldError> errors = PreferredParseErrors(affinity->preferred);
    if (!errors.empty()) return Status::Error(AggregateMessage(errors));
    sum += PreferredScore(affinity->preferred, labels, node.name());
  }
  *score = sum;
  return Status::OK();
}

Status NodeAffinity::NormalizeScore(const framework::CycleState& /*state*/,
                                    const framework::PodInfo& /*pod*/,
                                    std::span<framework::NodeScore> scores) const {
  helper::DefaultNormalizeScore(framework::kMaxNodeScore, /*reverse=*/false, scores);
  return Status::OK();
}

std::vector<ClusterEventWithHint> NodeAffinity::EventsToRegister() const {
  auto node_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterNodeChange(pod, e, error);
  };
  // Taint updates are what upstream adds when it pre-checks nodes before queueing; the hint turns
  // them away (taints never change this plugin's verdict).
  return {
      {ClusterEvent{framework::EventResource::kNode,
                    framework::kAdd | framework::kUpdateNodeLabel | framework::kUpdateNodeTaint,
                    "NodeAdd|UpdateNodeLabel|UpdateNodeTaint"},
       node_hint},
  };
}

QueueingHint NodeAffinity::IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                        const EventObjects& event,
                                                        Status* error) const {
  auto fail = [&](std::string message) {
    if (error != nullptr) *error = Status::Error(std::move(message));
    return QueueingHint::kQueue;
  };
  if (event.new_node == nullptr) return fail("NodeAffinity: node event without the new node");
  const api::Node& modified = *event.new_node;
  if (added_node_selector_ && !added_node_selector_->Matches(modified.metadata.labels,
                                                             api::Symbol(modified.metadata.name))) {
    return QueueingHint::kSkip;
  }
  std::string message;
  const std::optional<bool> matches = RequiredMatchesReportingErrors(pod, modified, &message);
  if (!matches) return fail(std::move(message));
  if (!*matches) return QueueingHint::kSkip;
  if (event.old_node == nullptr) return QueueingHint::kQueue;
  const std::optional<bool> matched =
      RequiredMatchesReportingErrors(pod, *event.old_node, &message);
  if (!matched) return fail(std::move(message));
  // Only a change from not matching to matching can help.
  return *matched ? QueueingHint::kSkip : QueueingHint::kQueue;
}

}  // namespace muster::plugins::nodeaffinity
