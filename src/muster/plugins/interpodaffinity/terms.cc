#include "muster/plugins/interpodaffinity/terms.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

namespace muster::plugins::interpodaffinity {
namespace {

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

// utilerrors.Aggregate.Error(): one message as is, several (deduplicated) in brackets.
std::string Aggregate(const std::vector<std::string>& messages) {
  std::vector<std::string> unique;
  for (const std::string& m : messages) {
    if (std::find(unique.begin(), unique.end(), m) == unique.end()) unique.push_back(m);
  }
  if (unique.size() == 1) return unique[0];
  // Appended rather than "[" + ... + "]", which sets off GCC 12's false -Wrestrict warning.
  std::string out = "[";
  out += Join(unique, ", ");
  out += ']';
  return out;
}

// Go's %#v of the []string a requirement was built with (nil when it had no values).
std::string GoStringSlice(const std::vector<api::Symbol>& values) {
  if (values.empty()) return "[]string(nil)";
  std::vector<std::string> quoted;
  for (api::Symbol v : values) quoted.push_back(api::GoQuote(v.str()));
  return "[]string{" + Join(quoted, ", ") + "}";
}

// labels.NewRequirement's errors, in its order: key, value count for the operator, each value.
std::vector<std::string> RequirementErrors(api::Symbol key, api::SelectorOperator op,
                                           const std::vector<api::Symbol>& values, bool equals) {
  std::vector<std::string> errors;
  const std::vector<std::string> key_errors = api::LabelKeyErrors(key.str());
  if (!key_errors.empty()) {
    errors.push_back(api::FieldError::Invalid("key", key.str(), Join(key_errors, "; ")).ToString());
  }
  if (!equals) {
    if ((op == api::SelectorOperator::kIn || op == api::SelectorOperator::kNotIn) &&
        values.empty()) {
      errors.push_back(
          api::FieldError::InvalidRendered("values", GoStringSlice(values),
                                           "for 'in', 'notin' operators, values set can't be empty")
              .ToString());
    }
    if ((op == api::SelectorOperator::kExists || op == api::SelectorOperator::kDoesNotExist) &&
        !values.empty()) {
      errors.push_back(
          api::FieldError::InvalidRendered("values", GoStringSlice(values),
                                           "values set must be empty for exists and does not exist")
              .ToString());
    }
  }
  for (size_t i = 0; i < values.size(); ++i) {
    const std::vector<std::string> value_errors = api::LabelValueErrors(values[i].str());
    if (value_errors.empty()) continue;
    const std::string path = fmt::format("values[{}][{}]", i, key.str());
    errors.push_back(
        api::FieldError::Invalid(path, values[i].str(), Join(value_errors, "; ")).ToString());
  }
  return errors;
}

template <typename Term>
const api::PodAffinityTerm& TermOf(const Term& t) {
  if constexpr (std::is_same_v<Term, api::WeightedPodAffinityTerm>) {
    return t.term;
  } else {
    return t;
  }
}

// upstream getAffinityTerms / getWeightedAffinityTerms: the first term that fails decides.
template <typename Term>
std::optional<std::string> ListParseError(std::span<const Term> terms) {
  for (const Term& item : terms) {
    const api::PodAffinityTerm& t = TermOf(item);
    if (t.label_selector) {
      if (auto e = SelectorParseError(*t.label_selector)) return e;
    }
    if (t.namespace_selector) {
      if (auto e = SelectorParseError(*t.namespace_selector)) return e;
    }
  }
  return std::nullopt;
}

// Whether a term has a non-empty namespaceSelector: one that needs namespace labels to decide.
template <typename Term>
bool NeedsLabels(std::span<const Term> terms) {
  return std::any_of(terms.begin(), terms.end(), [](const Term& item) {
    const api::PodAffinityTerm& t = TermOf(item);
    return t.namespace_selector && !t.namespace_selector->Empty();
  });
}

}  // namespace

bool TermSelectsLabels(const api::PodAffinityTerm& term, const api::LabelSet& owner_labels,
                       const api::LabelSet& target_labels) {
  if (!term.label_selector || !term.label_selector->Matches(target_labels)) return false;
  for (api::Symbol key : term.match_label_keys) {
    const api::Symbol* want = owner_labels.Get(key);
    if (want == nullptr) continue;
    const api::Symbol* got = target_labels.Get(key);
    if (got == nullptr || *got != *want) return false;
  }
  for (api::Symbol key : term.mismatch_label_keys) {
    const api::Symbol* avoid = owner_labels.Get(key);
    if (avoid == nullptr) continue;
    const api::Symbol* got = target_labels.Get(key);
    if (got != nullptr && *got == *avoid) return false;
  }
  return true;
}

uint32_t AllTermsCountKey(std::span<const api::PodAffinityTerm> terms, const PodRef& owner) {
  std::string text = "interpodaffinity all:";
  text += std::to_string(owner.namespace_.id());
  text += '|';
  bool owner_labels = false;
  for (const api::PodAffinityTerm& t : terms) {
    if (t.namespace_selector && !t.namespace_selector->Empty()) return 0;
    for (api::Symbol ns : t.namespaces) text += std::to_string(ns.id()) + ',';
    // An empty namespaceSelector selects every namespace.
    text += t.namespace_selector ? "*|" : "|";
    if (t.label_selector) {
      api::AppendSelectorIds(*t.label_selector, &text);
    } else {
      text += "none|";
    }
    for (api::Symbol key : t.match_label_keys) text += std::to_string(key.id()) + '+';
    for (api::Symbol key : t.mismatch_label_keys) text += std::to_string(key.id()) + '-';
    text += ';';
    owner_labels = owner_labels || !t.match_label_keys.empty() || !t.mismatch_label_keys.empty();
  }
  // matchLabelKeys and mismatchLabelKeys compare with the owner's values.
  if (owner_labels) api::AppendLabelIds(*owner.labels, &text);
  return api::Symbol(text).id();
}

ExistingTermKeys::ExistingTermKeys(std::string_view what, const IncomingPod& in)
    : signature_("interpodaffinity existing:") {
  signature_ += what;
  signature_ += '|';
  signature_ += std::to_string(in.namespace_.id());
  signature_ += '|';
  api::AppendLabelIds(in.labels, &signature_);
  api::AppendLabelIds(in.namespace_labels, &signature_);
}

uint32_t ExistingTermKeys::Get(api::Symbol topology_key) const {
  for (std::atomic<uint64_t>& slot : slots_) {
    uint64_t word = slot.load(std::memory_order_acquire);
    if (word == 0) {
      // Free: claim it. A thread that loses the race finds the winner's entry in `word`.
      const uint32_t key = api::Symbol(signature_ + std::to_string(topology_key.id())).id();
      const uint64_t mine = uint64_t{topology_key.id()} << 32 | key;
      if (slot.compare_exchange_strong(word, mine, std::memory_order_acq_rel)) return key;
    }
    if (word >> 32 == topology_key.id()) return static_cast<uint32_t>(word);
  }
  return 0;
}

std::optional<std::string> TermsParseError(std::span<const api::PodAffinityTerm> terms) {
  return ListParseError(terms);
}

const api::LabelSet* IncomingPod::NamespaceLabels(api::Symbol ns,
                                                  const framework::ObjectLister& lister) const {
  auto it = known_namespaces.find(ns);
  if (it != known_namespaces.end()) return it->second ? &*it->second : nullptr;
  const api::Namespace* found = lister.Get<api::Namespace>(ns);
  return found == nullptr ? nullptr : &found->metadata.labels;
}

std::optional<std::string> SelectorParseError(const api::LabelSelector& selector) {
  if (api::IsWellFormed(selector)) return std::nullopt;
  for (const auto& [key, value] : selector.match_labels) {
    std::vector<std::string> errors =
        RequirementErrors(key, api::SelectorOperator::kIn, {value}, /*equals=*/true);
    if (!errors.empty()) return Aggregate(errors);
  }
  for (const api::SelectorRequirement& r : selector.match_expressions) {
    if (r.op == api::SelectorOperator::kGt || r.op == api::SelectorOperator::kLt) {
      return fmt::format("{} is not a valid label selector operator",
                         api::GoQuote(api::SelectorOperatorName(r.op)));
    }
    std::vector<std::string> errors = RequirementErrors(r.key, r.op, r.values, /*equals=*/false);
    if (!errors.empty()) return Aggregate(errors);
  }
  return "invalid label selector";
}

std::optional<std::string> PodTermsParseError(const api::Pod& pod) {
  std::vector<std::string> errors;
  auto add = [&](std::string_view list, std::optional<std::string> error) {
    if (error) errors.push_back(fmt::format("{}: {}", list, *error));
  };
  add("requiredAffinityTerms", ListParseError(RequiredAffinityTerms(pod)));
  add("requiredAntiAffinityTerms", ListParseError(RequiredAntiAffinityTerms(pod)));
  add("preferredAffinityTerms", ListParseError(PreferredAffinityTerms(pod)));
  add("preferredAntiAffinityTerms", ListParseError(PreferredAntiAffinityTerms(pod)));
  if (errors.empty()) return std::nullopt;
  return Aggregate(errors);
}

std::span<const api::PodAffinityTerm> RequiredAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_affinity) return {};
  return a->pod_affinity->required;
}

std::span<const api::PodAffinityTerm> RequiredAntiAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_anti_affinity) return {};
  return a->pod_anti_affinity->required;
}

std::span<const api::WeightedPodAffinityTerm> PreferredAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_affinity) return {};
  return a->pod_affinity->preferred;
}

std::span<const api::WeightedPodAffinityTerm> PreferredAntiAffinityTerms(const api::Pod& pod) {
  const auto& a = pod.spec.affinity;
  if (!a || !a->pod_anti_affinity) return {};
  return a->pod_anti_affinity->preferred;
}

std::shared_ptr<IncomingPod> MakeIncomingPod(const api::Pod& pod, TermKinds kinds,
                                             std::span<framework::NodeInfo* const> nodes,
                                             const framework::ObjectLister& lister) {
  auto in = std::make_shared<IncomingPod>();
  in->namespace_ = pod.metadata.namespace_;
  in->labels = pod.metadata.labels;
  bool needs_labels = false;
  if (kinds == TermKinds::kRequired) {
    const auto affinity = RequiredAffinityTerms(pod);
    const auto anti = RequiredAntiAffinityTerms(pod);
    in->required_affinity.assign(affinity.begin(), affinity.end());
    in->required_anti_affinity.assign(anti.begin(), anti.end());
    needs_labels = NeedsLabels(affinity) || NeedsLabels(anti);
  } else {
    const auto affinity = PreferredAffinityTerms(pod);
    const auto anti = PreferredAntiAffinityTerms(pod);
    in->preferred_affinity.assign(affinity.begin(), affinity.end());
    in->preferred_anti_affinity.assign(anti.begin(), anti.end());
    needs_labels = NeedsLabels(affinity) || NeedsLabels(anti);
  }
  auto lookup = [&](api::Symbol ns) -> std::optional<api::LabelSet> {
    const api::Namespace* found = lister.Get<api::Namespace>(ns);
    if (found == nullptr) return std::nullopt;
    return found->metadata.labels;
  };
  if (std::optional<api::LabelSet> own = lookup(in->namespace_)) {
    in->namespace_labels = std::move(*own);
    in->namespace_exists = true;
  }
  if (needs_labels) {
    // Matching then runs over worker threads: every namespace it can meet is looked up here.
    auto remember = [&](api::Symbol ns) {
      if (!in->known_namespaces.contains(ns)) in->known_namespaces.emplace(ns, lookup(ns));
    };
    remember(in->namespace_);
    for (const framework::NodeInfo* node : nodes) {
      for (const framework::PodInfoPtr& p : node->pods()) remember(p->pod.metadata.namespace_);
    }
  }
  return in;
}

}  // namespace muster::plugins::interpodaffinity
