#pragma once

// Labels and label selectors, with upstream Kubernetes semantics:
//   k8s.io/apimachinery/pkg/labels (Requirement.Matches),
//   k8s.io/apimachinery/pkg/apis/meta/v1 (LabelSelectorAsSelector),
//   k8s.io/apimachinery/pkg/apis/meta/v1/validation (ValidateLabelSelector).
//
// Matching runs per node per pod, so it never allocates and compares Symbols as integers. Label
// text is looked at only to parse Gt/Lt integers and, for selectors not yet prepared, to check
// key and value syntax the way upstream's parser does (see Prepared).

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "muster/api/intern.h"

namespace muster::api {

// ---- Labels ----

// The labels of one pod or node: unique keys, kept sorted by key id (intern order, not text order)
// so that a lookup is a binary search over integers. Iteration follows that order; sort by str()
// where output must be lexical.
//
// A LabelSet holds whatever it is given: it does not check key or value syntax (the API server
// does that for real objects; ValidateLabelSelector and friends report bad selector text).
class LabelSet {
 public:
  using value_type = std::pair<Symbol, Symbol>;
  using const_iterator = std::vector<value_type>::const_iterator;

  LabelSet() = default;
  // Interns each key and value. A repeated key keeps its last value, as Set does.
  LabelSet(std::initializer_list<std::pair<std::string_view, std::string_view>> labels);

  // The value of `key`, or nullptr when absent. An empty value is present: it is Symbol{}.
  // The pointer is invalidated by the next Set.
  const Symbol* Get(Symbol key) const;
  bool Has(Symbol key) const { return Get(key) != nullptr; }
  // Adds the label, or replaces the value of an existing key.
  void Set(Symbol key, Symbol value);
  void reserve(size_t n) { labels_.reserve(n); }

  size_t size() const { return labels_.size(); }
  bool empty() const { return labels_.empty(); }
  const_iterator begin() const { return labels_.begin(); }
  const_iterator end() const { return labels_.end(); }

  // Same keys with the same values; independent of the order labels were added in.
  friend bool operator==(const LabelSet&, const LabelSet&) = default;

 private:
  std::vector<value_type> labels_;  // sorted by key.id(), keys unique
};

// ---- Label selectors ----

// The operators of LabelSelectorRequirement and NodeSelectorRequirement. Gt and Lt exist only in
// node selectors: a LabelSelector that uses them matches nothing and fails validation.
enum class SelectorOperator : uint8_t { kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt };

// "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt".
std::string_view SelectorOperatorName(SelectorOperator op);
// The inverse of SelectorOperatorName (case-sensitive, as the API is); nullopt for anything else.
std::optional<SelectorOperator> ParseSelectorOperator(std::string_view name);

struct SelectorRequirement {
  Symbol key;
  SelectorOperator op = SelectorOperator::kIn;
  std::vector<Symbol> values;
  // The Gt/Lt operand parsed from values[0]. Written by PrepareNodeSelectorTerm and read only
  // while the term that holds this requirement is Prepared::kValid; anything else parses
  // values[0] at match time instead. Not set by hand.
  int64_t bound = 0;
};

// Whether a selector has been checked against the rules upstream's parser applies before it
// matches anything (labels.NewRequirement: key syntax, value syntax, value count per operator,
// Gt/Lt operands that are integers). Upstream parses a selector once per pod and a selector that
// fails to parse selects nothing; here the Prepare* functions do that parse once and record the
// outcome. A selector left at kNo is checked on every match instead: same answer, slower.
// Prepare after the last edit: editing a prepared selector leaves a stale verdict.
enum class Prepared : uint8_t { kNo, kValid, kInvalid };

// metav1.LabelSelector. A nil selector (which matches nothing) is modelled by the caller as
// std::optional<LabelSelector> holding nothing; an empty LabelSelector matches every label set.
// match_labels and match_expressions are ANDed.
struct LabelSelector {
  std::vector<std::pair<Symbol, Symbol>> match_labels;
  std::vector<SelectorRequirement> match_expressions;
  Prepared prepared = Prepared::kNo;

  // Upstream's LabelSelectorAsSelector(...).Matches(labels). A selector that upstream refuses to
  // convert (see IsWellFormed) matches nothing here; upstream returns an error instead, which
  // callers that must report it get from IsWellFormed and ValidateLabelSelector. Allocation-free.
  bool Matches(const LabelSet& labels) const;
  // True when the selector places no restriction (and so matches everything).
  bool Empty() const { return match_labels.empty() && match_expressions.empty(); }
};

// Appends a spelling of `selector` in interned-symbol ids: equal for copies of one selector,
// different for selectors that differ (in content or in the order written). Names what was
// computed with a selector, for memos keyed by it.
void AppendSelectorIds(const LabelSelector& selector, std::string* out);
// The same for a label set, in its order: equal sets spell alike.
void AppendLabelIds(const LabelSet& labels, std::string* out);

// Records in selector.prepared whether upstream's LabelSelectorAsSelector accepts it.
void PrepareLabelSelector(LabelSelector& selector);
// Whether LabelSelectorAsSelector accepts the selector; uses the recorded verdict when prepared.
bool IsWellFormed(const LabelSelector& selector);

// The per-requirement halves of matching, shared with node selectors.
//
// Whether labels.NewRequirement accepts `r` (any operator, Gt/Lt included). On success for Gt/Lt,
// stores the operand in *bound when bound is non-null.
bool IsWellFormedRequirement(const SelectorRequirement& r, int64_t* bound);
// labels.Requirement.Matches for a requirement IsWellFormedRequirement accepted; `bound` is the
// Gt/Lt operand. NotIn and DoesNotExist match when the key is absent; Gt and Lt need the key
// present with a value that parses as an integer.
bool RequirementMatches(const SelectorRequirement& r, const LabelSet& labels, int64_t bound);

// ---- Label syntax (k8s.io/apimachinery/pkg/api/validate/content) ----

// A label key: an optional DNS-1123 subdomain prefix and '/', then a name of at most 63 bytes of
// [-A-Za-z0-9_.] that starts and ends alphanumeric. Same rule as upstream IsQualifiedName.
bool IsValidLabelKey(std::string_view key);
// A label value: empty, or at most 63 bytes of [-A-Za-z0-9_.] starting and ending alphanumeric.
bool IsValidLabelValue(std::string_view value);
// The messages upstream's IsQualifiedName / IsValidLabelValue / IsDNS1123Subdomain return, in
// their order; empty when valid.
std::vector<std::string> LabelKeyErrors(std::string_view key);
std::vector<std::string> LabelValueErrors(std::string_view value);
std::vector<std::string> Dns1123SubdomainErrors(std::string_view value);
// IsDNS1123Label: namespace names.
std::vector<std::string> Dns1123LabelErrors(std::string_view value);
// Go's strconv.ParseInt(text, 10, 64): an optional '+' or '-', then decimal digits, within
// int64. nullopt for anything else (spaces, underscores, overflow, empty).
std::optional<int64_t> ParseLabelInt(std::string_view text);

// ---- Validation errors ----

// One validation failure, as upstream's field.Error prints it.
struct FieldError {
  enum class Type : uint8_t { kRequired, kForbidden, kInvalid };

  Type type = Type::kInvalid;
  // The field: the validator's `path` argument followed by the sub-path, e.g.
  // "spec.selector.matchExpressions[0].values"; relative when the validator got an empty path.
  std::string path;
  // Upstream's ErrorBody(): "Required value: <detail>", "Forbidden: <detail>", or
  // "Invalid value: <value as Go prints it>: <detail>".
  std::string message;

  static FieldError Required(std::string path, std::string_view detail);
  static FieldError Forbidden(std::string path, std::string_view detail);
  // A string value; it is quoted as Go's %q quotes it.
  static FieldError Invalid(std::string path, std::string_view value, std::string_view detail);
  // A value already rendered (numbers, structs).
  static FieldError InvalidRendered(std::string path, std::string_view rendered,
                                    std::string_view detail);

  // "<path>: <message>", as the API server prints a field error.
  std::string ToString() const;

  friend bool operator==(const FieldError&, const FieldError&) = default;
};

// field.Path rendering: ChildPath("spec", "selector") is "spec.selector" (or "selector" when
// the parent is empty); IndexPath("terms", 2) is "terms[2]".
std::string ChildPath(std::string_view parent, std::string_view child);
std::string IndexPath(std::string_view parent, size_t index);
// Go's %q: double-quoted with backslash escapes for quotes, backslashes and control bytes.
std::string GoQuote(std::string_view text);

// Upstream ValidateLabelSelector (strict label values, as for new objects) at field path `path`:
// every error, in upstream's order (matchLabels first, then each expression's operator/values,
// key, then values). A nil selector is valid; callers skip it.
// Upstream's checks of one requirement at `path`, shared by label and node selectors: the value
// count its operator needs, then key and value syntax. Gt and Lt are valid only in node selectors
// (`node`), with exactly one value.
void AppendRequirementErrors(const SelectorRequirement& r, std::string_view path, bool node,
                             std::vector<FieldError>& errors);
std::vector<FieldError> ValidateLabelSelector(const LabelSelector& selector,
                                              std::string_view path = {});

}  // namespace muster::api
