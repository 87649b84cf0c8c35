#include "muster/api/taints.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <string>

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

std::string_view TolerationOperatorName(TolerationOperator op) {
  return op == TolerationOperator::kExists ? "Exists" : "Equal";
}

std::optional<TolerationOperator> ParseTolerationOperator(std::string_view name) {
  if (name.empty() || name == "Equal") return TolerationOperator::kEqual;
  if (name == "Exists") return TolerationOperator::kExists;
  return std::nullopt;
}

bool Toleration::Tolerates(const Taint& taint) const {
  if (effect && *effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  return op == TolerationOperator::kExists || value == taint.value;
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
