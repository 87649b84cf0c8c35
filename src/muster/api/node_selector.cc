#include "muster/api/node_selector.h"

#include <algorithm>
#include <iterator>
#include <string>

namespace muster::api {
namespace {

// Interned at load time so that matching neither interns nor checks a function-local guard.
const Symbol kNodeNameFieldSymbol(kNodeNameField);

// nodeSelectorRequirementsAsFieldSelector accepts In and NotIn with exactly one value, whatever
// the key.
bool IsWellFormedFieldRequirement(const SelectorRequirement& r) {
  return (r.op == SelectorOperator::kIn || r.op == SelectorOperator::kNotIn) &&
         r.values.size() == 1;
}

// Upstream builds fields.OneTerm(Not)EqualSelector(key, value) over a field set that holds only
// metadata.name, and an absent field reads as "".
bool FieldRequirementMatches(const SelectorRequirement& r, Symbol node_name) {
  const Symbol field = r.key == kNodeNameFieldSymbol ? node_name : Symbol();
  return r.op == SelectorOperator::kIn ? field == r.values[0] : field != r.values[0];
}

bool TermParses(const NodeSelectorTerm& term) {
  return std::all_of(
             term.match_expressions.begin(), term.match_expressions.end(),
             [](const SelectorRequirement& r) { return IsWellFormedRequirement(r, nullptr); }) &&
         std::all_of(term.match_fields.begin(), term.match_fields.end(),
                     IsWellFormedFieldRequirement);
}

}  // namespace

bool NodeSelectorTerm::Matches(const LabelSet& node_labels, Symbol node_name) const {
  if (match_expressions.empty() && match_fields.empty()) return false;
  switch (prepared) {
    case Prepared::kInvalid:
      return false;
    case Prepared::kValid:
      for (const SelectorRequirement& r : match_expressions) {
        if (!RequirementMatches(r, node_labels, r.bound)) return false;
      }
      break;
    case Prepared::kNo:
      for (const SelectorRequirement& r : match_expressions) {
        int64_t bound = 0;
        if (!IsWellFormedRequirement(r, &bound) || !RequirementMatches(r, node_labels, bound)) {
          return false;
        }
      }
      // A malformed field fails the term even when the fields themselves are skipped below.
      if (!std::all_of(match_fields.begin(), match_fields.end(), IsWellFormedFieldRequirement)) {
        return false;
      }
      break;
  }
  // Upstream's field set for a nameless node is empty, and it skips matchFields on an empty set.
  if (node_name.empty()) return true;
  for (const SelectorRequirement& r : match_fields) {
    if (!FieldRequirementMatches(r, node_name)) return false;
  }
  return true;
}

bool NodeSelector::Matches(const LabelSet& node_labels, Symbol node_name) const {
  return std::any_of(terms.begin(), terms.end(), [&](const NodeSelectorTerm& term) {
    return term.Matches(node_labels, node_name);
  });
}

void PrepareNodeSelectorTerm(NodeSelectorTerm& term) {
  bool parses = true;
  for (SelectorRequirement& r : term.match_expressions) {
    int64_t bound = 0;
    if (IsWellFormedRequirement(r, &bound)) {
      r.bound = bound;
    } else {
      parses = false;
    }
  }
  if (!std::all_of(term.match_fields.begin(), term.match_fields.end(),
                   IsWellFormedFieldRequirement)) {
    parses = false;
  }
  term.prepared = parses ? Prepared::kValid : Prepared::kInvalid;
}

void PrepareNodeSelector(NodeSelector& selector) {
  for (NodeSelectorTerm& term : selector.terms) PrepareNodeSelectorTerm(term);
}

void PreparePreferredSchedulingTerms(std::span<PreferredSchedulingTerm> terms) {
  for (PreferredSchedulingTerm& term : terms) PrepareNodeSelectorTerm(term.preference);
}

bool IsWellFormed(const NodeSelectorTerm& term) {
  switch (term.prepared) {
    case Prepared::kValid:
      return true;
    case Prepared::kInvalid:
      return false;
    case Prepared::kNo:
      break;
  }
  return TermParses(term);
}

std::vector<FieldError> ValidateNodeSelectorRequirement(const SelectorRequirement& requirement,
                                                        std::string_view path) {
  std::vector<FieldError> errors;
  AppendRequirementErrors(requirement, path, /*node=*/true, errors);
  return errors;
}

std::vector<FieldError> ValidateNodeFieldSelectorRequirement(const SelectorRequirement& requirement,
                                                             std::string_view path) {
  std::vector<FieldError> errors;
  const std::string values_path = ChildPath(path, "values");
  if (requirement.op == SelectorOperator::kIn || requirement.op == SelectorOperator::kNotIn) {
    if (requirement.values.size() != 1) {
      errors.push_back(FieldError::Required(
          values_path,
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    errors.push_back(FieldError::Invalid(ChildPath(path, "operator"),
                                         SelectorOperatorName(requirement.op),
                                         "not a valid selector operator"));
  }
  const std::string_view key = requirement.key.str();
  if (key != kNodeNameField) {
    errors.push_back(
        FieldError::Invalid(ChildPath(path, "key"), key, "not a valid field selector key"));
    return errors;
  }
  // metadata.name values are node names, which are DNS-1123 subdomains.
  for (size_t i = 0; i < requirement.values.size(); ++i) {
    const std::string_view value = requirement.values[i].str();
    for (const std::string& message : Dns1123SubdomainErrors(value)) {
      errors.push_back(FieldError::Invalid(IndexPath(values_path, i), value, message));
    }
  }
  return errors;
}

std::vector<FieldError> ValidateNodeSelectorTerm(const NodeSelectorTerm& term,
                                                 std::string_view path) {
  std::vector<FieldError> errors;
  const std::string expressions_path = ChildPath(path, "matchExpressions");
  for (size_t i = 0; i < term.match_expressions.size(); ++i) {
    std::vector<FieldError> more =
        ValidateNodeSelectorRequirement(term.match_expressions[i], IndexPath(expressions_path, i));
    errors.insert(errors.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
  }
  const std::string fields_path = ChildPath(path, "matchFields");
  for (size_t i = 0; i < term.match_fields.size(); ++i) {
    std::vector<FieldError> more =
        ValidateNodeFieldSelectorRequirement(term.match_fields[i], IndexPath(fields_path, i));
    errors.insert(errors.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
  }
  return errors;
}

std::vector<FieldError> ValidateNodeSelector(const NodeSelector& selector, std::string_view path) {
  const std::string terms_path = ChildPath(path, "nodeSelectorTerms");
  if (selector.terms.empty()) {
    return {FieldError::Required(terms_path, "must have at least one node selector term")};
  }
  std::vector<FieldError> errors;
  for (size_t i = 0; i < selector.terms.size(); ++i) {
    std::vector<FieldError> more =
        ValidateNodeSelectorTerm(selector.terms[i], IndexPath(terms_path, i));
    errors.insert(errors.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
  }
  return errors;
}

std::vector<FieldError> ValidatePreferredSchedulingTerms(
    std::span<const PreferredSchedulingTerm> terms, std::string_view path) {
  std::vector<FieldError> errors;
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string term_path = IndexPath(path, i);
    if (terms[i].weight <= 0 || terms[i].weight > 100) {
      errors.push_back(FieldError::InvalidRendered(ChildPath(term_path, "weight"),
                                                   std::to_string(terms[i].weight),
                                                   "must be in the range 1-100"));
    }
    std::vector<FieldError> more =
        ValidateNodeSelectorTerm(terms[i].preference, ChildPath(term_path, "preference"));
    errors.insert(errors.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
  }
  return errors;
}

}  // namespace muster::api
