#include "muster/api/taints.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include "muster/api/feature_gates.h"

namespace muster::api {
namespace {

constexpr std::array<std::string_view, 3> kEffectNames = {"NoSchedule", "PreferNoSchedule",
                                                          "NoExecute"};

std::string_view EffectNameOrEmpty(const std::optional<TaintEffect>& effect) {
  return effect ? TaintEffectName(*effect) : std::string_view();
}

// The toleration as Go's %#v prints the internal core.Toleration, which upstream puts in the
// "value must be empty" error. Go would print a set TolerationSeconds as a pointer address; the
// value itself tells the reader more.
std::string RenderToleration(const Toleration& t) {
  std::string out = "core.Toleration{Key:" + GoQuote(t.key.str());
  out += ", Operator:" + GoQuote(TolerationOperatorName(t.op));
  out += ", Value:" + GoQuote(t.value.str());
  out += ", Effect:" + GoQuote(EffectNameOrEmpty(t.effect));
  out += ", TolerationSeconds:";
  out += t.toleration_seconds ? fmt::format("&{}", *t.toleration_seconds) : "(*int64)(nil)";
  out += "}";
  return out;
}

// content.IsDecimalInteger's form, its range aside: "0", or an optional '-' and a digit 1-9
// then digits.
bool LooksCanonical(std::string_view s) {
  const bool negative = !s.empty() && s.front() == '-';
  const std::string_view digits = negative ? s.substr(1) : s;
  if (digits.empty()) return false;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  return digits.front() != '0' || (digits.size() == 1 && !negative);
}

// Go's strconv.ParseInt(s, 10, 64): a sign, then digits (leading zeros allowed), within int64;
// it stops at the first digit past the range. nullopt with *why set when it fails.
std::optional<int64_t> GoParseInt(std::string_view s, std::string_view* why) {
  std::string_view digits = s;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
  *why = "invalid syntax";
  if (digits.empty()) return std::nullopt;
  const uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t magnitude = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (magnitude > (limit - digit) / 10) {
      *why = "value out of range";
      return std::nullopt;
    }
    magnitude = magnitude * 10 + digit;
  }
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

}  // namespace

std::string FormatTaint(const Taint& taint) {
  std::string out(taint.key.str());
  if (!taint.value.empty()) out.append("=").append(taint.value.str());
  out.append(":").append(TaintEffectName(taint.effect));
  return out;
}

std::string_view TaintEffectName(TaintEffect effect) {
  const auto index = static_cast<size_t>(effect);
  return index < kEffectNames.size() ? kEffectNames[index] : std::string_view("Unknown");
}

std::optional<TaintEffect> ParseTaintEffect(std::string_view name) {
  for (size_t i = 0; i < kEffectNames.size(); ++i) {
    if (kEffectNames[i] == name) return static_cast<TaintEffect>(i);
  }
  return std::nullopt;
}

constexpr std::array<std::string_view, 4> kOperatorNames = {"Equal", "Exists", "Lt", "Gt"};

std::string_view TolerationOperatorName(TolerationOperator op) {
  return kOperatorNames[static_cast<size_t>(op)];
}

std::optional<TolerationOperator> ParseTolerationOperator(std::string_view name) {
  if (name.empty()) return TolerationOperator::kEqual;
  for (size_t i = 0; i < kOperatorNames.size(); ++i) {
    if (kOperatorNames[i] == name) return static_cast<TolerationOperator>(i);
  }
  return std::nullopt;
}

std::optional<int64_t> ParseCanonicalInt(std::string_view s) {
  std::string_view why;
  return LooksCanonical(s) ? GoParseInt(s, &why) : std::nullopt;
}

namespace {

// Lt and Gt, kept out of line: Tolerates runs for every taint of every node a pod is filtered
// on, and the parsing would keep it (and the filters' loops around it) from being inlined.
[[gnu::noinline, gnu::cold]] bool ToleratesByComparison(TolerationOperator op, Symbol value,
                                                        Symbol taint_value) {
  if (!Features().Enabled(Feature::kTaintTolerationComparisonOperators)) return false;
  const std::optional<int64_t> mine = ParseCanonicalInt(value.str());
  const std::optional<int64_t> theirs = ParseCanonicalInt(taint_value.str());
  if (!mine || !theirs) return false;
  return op == TolerationOperator::kLt ? *theirs < *mine : *theirs > *mine;
}

}  // namespace

bool Toleration::Tolerates(const Taint& taint) const {
  if (effect && *effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  switch (op) {
    case TolerationOperator::kEqual:
      return value == taint.value;
    case TolerationOperator::kExists:
      return true;
    case TolerationOperator::kLt:
    case TolerationOperator::kGt:
      return ToleratesByComparison(op, value, taint.value);
  }
  return false;
}

bool TolerationsTolerateTaint(std::span<const Toleration> tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return t.Tolerates(taint); });
}

std::vector<FieldError> ValidateToleration(const Toleration& toleration, std::string_view path) {
  const Toleration& t = toleration;
  std::vector<FieldError> errors;
  const std::string operator_path = ChildPath(path, "operator");
  const std::string_view key = t.key.str();
  // An empty key is legal (it means every key); the operator rule below governs it.
  if (!key.empty()) {
    for (const std::string& message : LabelKeyErrors(key)) {
      errors.push_back(FieldError::Invalid(ChildPath(path, "key"), key, message));
    }
  }
  if (key.empty() && t.op != TolerationOperator::kExists) {
    errors.push_back(FieldError::Invalid(
        operator_path, TolerationOperatorName(t.op),
        "operator must be Exists when `key` is empty, which means \"match all values and all "
        "keys\""));
  }
  if (t.toleration_seconds && t.effect != TaintEffect::kNoExecute) {
    errors.push_back(FieldError::Invalid(ChildPath(path, "effect"), EffectNameOrEmpty(t.effect),
                                         "effect must be 'NoExecute' when `tolerationSeconds` "
                                         "is set"));
  }
  switch (t.op) {
    case TolerationOperator::kEqual: {
      // Upstream files value errors under "operator" and joins them with ";".
      const std::vector<std::string> messages = LabelValueErrors(t.value.str());
      if (!messages.empty()) {
        errors.push_back(FieldError::Invalid(operator_path, t.value.str(), Join(messages, ";")));
      }
      break;
    }
    case TolerationOperator::kExists:
      if (!t.value.empty()) {
        errors.push_back(FieldError::InvalidRendered(
            operator_path, RenderToleration(t), "value must be empty when `operator` is 'Exists'"));
      }
      break;
    case TolerationOperator::kLt:
    case TolerationOperator::kGt: {
      if (!Features().Enabled(Feature::kTaintTolerationComparisonOperators)) {
        // Upstream lists all four here, and only Equal and Exists for an unknown operator.
        errors.push_back(FieldError{
            FieldError::Type::kInvalid, operator_path,
            fmt::format("Unsupported value: \"{}\": supported values: \"Equal\", \"Exists\", "
                        "\"Lt\", \"Gt\"",
                        TolerationOperatorName(t.op))});
        break;
      }
      const std::string value_path = ChildPath(path, "value");
      const std::string_view v = t.value.str();
      if (v.empty()) {
        errors.push_back(FieldError::Invalid(value_path, v, "must be non-empty"));
      } else if (!LooksCanonical(v)) {
        errors.push_back(FieldError::Invalid(value_path, v,
                                             "must be a valid decimal integer in canonical form"));
      }
      if (std::string_view why; !GoParseInt(v, &why)) {
        errors.push_back(FieldError::Invalid(
            value_path, v, fmt::format("strconv.ParseInt: parsing {}: {}", GoQuote(v), why)));
      }
      break;
    }
  }
  return errors;
}

std::vector<FieldError> ValidateTolerations(std::span<const Toleration> tolerations,
                                            std::string_view path) {
  std::vector<FieldError> errors;
  for (size_t i = 0; i < tolerations.size(); ++i) {
    std::vector<FieldError> more = ValidateToleration(tolerations[i], IndexPath(path, i));
    errors.insert(errors.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
  }
  return errors;
}

}  // namespace muster::api
