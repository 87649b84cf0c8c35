#pragma once

// The errors upstream's node-affinity parser reports for a node selector term it refuses
// (k8s.io/component-helpers/scheduling/corev1/nodeaffinity newNodeSelectorTerm, which runs
// labels.NewRequirement on each matchExpression and its own checks on each matchField), with
// upstream's paths and messages. They surface in three places: NodeAffinityArgs validation, the
// PreScore error for a pod whose preferred terms do not parse, and the queueing hint's error.
//
// These are parser errors, not API validation (api::ValidateNodeSelectorTerm): the parser accepts
// any matchFields key, and it rejects a Gt/Lt operand that is not an integer.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/labels.h"
#include "muster/api/node_selector.h"

namespace muster::plugins::nodeaffinity {

// A term with neither expressions nor fields (upstream isEmptyNodeSelectorTerm): it matches no
// node, and the parser skips it without checking anything.
inline bool IsEmptyTerm(const api::NodeSelectorTerm& term) {
  return term.match_expressions.empty() && term.match_fields.empty();
}

// Every parse error of `term`, at `path` (the term itself: errors land under
// path.matchExpressions[i] and path.matchFields[i]). Empty when the term parses.
std::vector<api::FieldError> TermParseErrors(const api::NodeSelectorTerm& term,
                                             std::string_view path);

// The "Unsupported value" error for an operator the parser does not know (or, in matchFields,
// does not accept), at `path` (the requirement's operator field).
api::FieldError UnsupportedOperator(std::string_view path, std::string_view op, bool field);

// What upstream's errors.Flatten(errors.NewAggregate(errs)).Error() prints: a single error as
// is; several, with duplicates dropped, joined by ", " inside brackets.
std::string AggregateMessage(const std::vector<api::FieldError>& errors);

// Go's %#v of a []string, as field errors print a list value: []string{"a", "b"}. An empty list
// prints as the nil slice an omitted field decodes to: []string(nil).
std::string GoStringSlice(std::span<const api::Symbol> values);

}  // namespace muster::plugins::nodeaffinity
