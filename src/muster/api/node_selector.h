#pragma once

// Node selectors (node affinity), with the semantics the upstream scheduler uses:
//   k8s.io/component-helpers/scheduling/corev1/nodeaffinity (LazyErrorNodeSelector),
//   pkg/apis/core/validation (ValidateNodeSelector and friends).
//
// Matching takes the node as its labels and its name, never allocates, and compares Symbols as
// integers. Prepare each selector once (PrepareNodeSelector) after decoding it; see Prepared.

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "muster/api/intern.h"
#include "muster/api/labels.h"

namespace muster::api {

// The only field a matchFields requirement may name.
inline constexpr std::string_view kNodeNameField = "metadata.name";

// v1.NodeSelectorTerm: match_expressions select on node labels (all six operators), match_fields
// on node fields (only metadata.name, only In/NotIn with one value). Everything is ANDed.
struct NodeSelectorTerm {
  std::vector<SelectorRequirement> match_expressions;
  std::vector<SelectorRequirement> match_fields;
  Prepared prepared = Prepared::kNo;

  // Whether the node satisfies this term, as upstream's scheduler decides it:
  //  - a term with neither expressions nor fields matches no node;
  //  - a term upstream fails to parse (see IsWellFormed) matches no node;
  //  - Gt/Lt need the label present and parseable as an integer, compared with the operand;
  //  - match_fields are skipped when node_name is empty (upstream ignores them for a node without
  //    a name), and a field other than metadata.name reads as "".
  bool Matches(const LabelSet& node_labels, Symbol node_name) const;
};

// v1.NodeSelector (requiredDuringSchedulingIgnoredDuringExecution). Terms are ORed; no terms
// matches no node. A term that fails to parse does not stop the others from matching: this is
// upstream's LazyErrorNodeSelector, which the scheduler uses, not the eager NewNodeSelector.
struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;

  bool Matches(const LabelSet& node_labels, Symbol node_name) const;
};

// v1.PreferredSchedulingTerm. A node that matches `preference` earns `weight` (1..100). Upstream
// skips terms of weight 0, which earn nothing either way.
struct PreferredSchedulingTerm {
  int32_t weight = 0;
  NodeSelectorTerm preference;
};

// Records whether upstream's parser accepts the term (labels.NewRequirement for each expression,
// the field-selector rules for each field) and stores each Gt/Lt operand in its bound.
void PrepareNodeSelectorTerm(NodeSelectorTerm& term);
void PrepareNodeSelector(NodeSelector& selector);
void PreparePreferredSchedulingTerms(std::span<PreferredSchedulingTerm> terms);
// Whether upstream's parser accepts the term; uses the recorded verdict when prepared.
bool IsWellFormed(const NodeSelectorTerm& term);

// Upstream API validation, every error in upstream's order, at field path `path`. Strict label
// values, as for new objects. These check what the API server checks, which is less than what
// matching needs: a Gt/Lt operand such as "abc" passes validation (it is a valid label value)
// but its term never matches.
std::vector<FieldError> ValidateNodeSelectorRequirement(const SelectorRequirement& requirement,
                                                        std::string_view path = {});
std::vector<FieldError> ValidateNodeFieldSelectorRequirement(const SelectorRequirement& requirement,
                                                             std::string_view path = {});
std::vector<FieldError> ValidateNodeSelectorTerm(const NodeSelectorTerm& term,
                                                 std::string_view path = {});
// `path` names the selector itself; errors land under path.nodeSelectorTerms.
std::vector<FieldError> ValidateNodeSelector(const NodeSelector& selector,
                                             std::string_view path = {});
// `path` names the list; errors land under path[i].weight and path[i].preference.
std::vector<FieldError> ValidatePreferredSchedulingTerms(
    std::span<const PreferredSchedulingTerm> terms, std::string_view path = {});

}  // namespace muster::api
