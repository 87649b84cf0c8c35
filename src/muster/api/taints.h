#pragma once

// Taints and tolerations, with upstream Kubernetes semantics:
//   k8s.io/api/core/v1 (Toleration.ToleratesTaint),
//   k8s.io/component-helpers/scheduling/corev1 (TolerationsTolerateTaint,
//   FindMatchingUntoleratedTaint),
//   pkg/apis/core/validation (ValidateTolerations).
//
// Matching runs per node per pod: it never allocates and compares Symbols as integers.

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/intern.h"
#include "muster/api/labels.h"

namespace muster::api {

enum class TaintEffect : uint8_t { kNoSchedule, kPreferNoSchedule, kNoExecute };

// "NoSchedule", "PreferNoSchedule", "NoExecute".
std::string_view TaintEffectName(TaintEffect effect);
// The inverse of TaintEffectName (case-sensitive); nullopt for anything else, "" included. A
// toleration's empty effect means "every effect": decoders map it to an empty optional.
std::optional<TaintEffect> ParseTaintEffect(std::string_view name);

struct Taint {
  Symbol key;
  Symbol value;
  TaintEffect effect = TaintEffect::kNoSchedule;

  friend bool operator==(const Taint&, const Taint&) = default;
};

// As kubectl and upstream's Taint.ToString print it: "key=value:effect", "key:effect" without a
// value.
std::string FormatTaint(const Taint& taint);

// The API's empty operator means Equal; ParseTolerationOperator maps it so. Lt and Gt
// (KEP-5471, the TaintTolerationComparisonOperators gate: alpha and off in 1.35 to 1.37) compare
// the taint's value, as an integer, with the toleration's.
enum class TolerationOperator : uint8_t { kEqual, kExists, kLt, kGt };

// "Equal", "Exists", "Lt", "Gt".
std::string_view TolerationOperatorName(TolerationOperator op);
// "" and "Equal" give kEqual, and each other name its operator; nullopt for anything else.
std::optional<TolerationOperator> ParseTolerationOperator(std::string_view name);

// Upstream's content.IsDecimalInteger then strconv.ParseInt(s, 10, 64): "0", or an optional '-'
// and a digit 1-9 then digits, within int64. nullopt for anything else ("0100", "+5", " 5").
std::optional<int64_t> ParseCanonicalInt(std::string_view s);

struct Toleration {
  Symbol key;  // empty: every key (needs kExists to pass validation)
  TolerationOperator op = TolerationOperator::kEqual;
  Symbol value;
  std::optional<TaintEffect> effect;  // nullopt: every effect
  // How long a NoExecute taint is tolerated before eviction; nullopt: forever.
  std::optional<int64_t> toleration_seconds;

  // Upstream ToleratesTaint: the effect must match unless the toleration's is empty, the key must
  // match unless the toleration's is empty, and then Exists accepts any value while Equal needs
  // the same value. An empty key with Equal therefore tolerates every key carrying that value;
  // validation rejects such tolerations, matching does not. Gt tolerates a taint whose value is
  // greater than the toleration's, Lt one whose value is less, both values canonical integers
  // (ParseCanonicalInt), and only with TaintTolerationComparisonOperators on.
  bool Tolerates(const Taint& taint) const;
};

// Whether any toleration tolerates `taint`.
bool TolerationsTolerateTaint(std::span<const Toleration> tolerations, const Taint& taint);

// The taints the TaintToleration filter enforces: NoSchedule and NoExecute (PreferNoSchedule only
// lowers a node's score). Pass it to FindMatchingUntoleratedTaint.
inline bool BlocksScheduling(const Taint& taint) {
  return taint.effect == TaintEffect::kNoSchedule || taint.effect == TaintEffect::kNoExecute;
}

// Whether any of `taints` has the PreferNoSchedule effect: one that lowers a node's score.
inline bool AnyPrefersNoSchedule(std::span<const Taint> taints) {
  for (const Taint& t : taints) {
    if (t.effect == TaintEffect::kPreferNoSchedule) return true;
  }
  return false;
}

// The first taint, in node order, that `include` keeps and no toleration tolerates; nullptr when
// there is none. The pointer points into `taints`. `include` is any cheap predicate (a function,
// a lambda): it is called inline, never wrapped in std::function.
template <std::predicate<const Taint&> Filter>
const Taint* FindMatchingUntoleratedTaint(std::span<const Taint> taints,
                                          std::span<const Toleration> tolerations,
                                          Filter&& include) {
  for (const Taint& taint : taints) {
    if (include(taint) && !TolerationsTolerateTaint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

// As above with every taint included (upstream's nil filter).
inline const Taint* FindMatchingUntoleratedTaint(std::span<const Taint> taints,
                                                 std::span<const Toleration> tolerations) {
  return FindMatchingUntoleratedTaint(taints, tolerations, [](const Taint&) { return true; });
}

// Upstream ValidateTolerations for one toleration at field path `path` (the toleration itself):
// every error, in upstream's order (key syntax, empty key without Exists, tolerationSeconds
// without NoExecute, the operator's value rule). Lt and Gt with their gate off are an
// unsupported operator, as the API server refuses them for a new pod.
std::vector<FieldError> ValidateToleration(const Toleration& toleration,
                                           std::string_view path = {});
// The same for a list at `path`; errors land under path[i].
std::vector<FieldError> ValidateTolerations(std::span<const Toleration> tolerations,
                                            std::string_view path = {});

}  // namespace muster::api
