#include "muster/plugins/nodeaffinity/parse_errors.h"

#include <algorithm>

#include <fmt/format.h>

namespace muster::plugins::nodeaffinity {
namespace {

using api::FieldError;
using api::SelectorOperator;

std::string JoinMessages(const std::vector<std::string>& messages) {
  std::string out;
  for (const std::string& m : messages) {
    if (!out.empty()) out += "; ";
    out += m;
  }
  return out;
}

// labels.NewRequirement's checks, in its order: the key, the value count the operator needs (and
// Gt/Lt operands that are integers), then each value's syntax.
void AppendExpressionErrors(const api::SelectorRequirement& r, const std::string& path,
                            std::vector<FieldError>& errors) {
  const std::string_view key = r.key.str();
  if (std::vector<std::string> msgs = api::LabelKeyErrors(key); !msgs.empty()) {
    errors.push_back(FieldError::Invalid(api::ChildPath(path, "key"), key, JoinMessages(msgs)));
  }
  const std::string values_path = api::ChildPath(path, "values");
  switch (r.op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      if (r.values.empty()) {
        errors.push_back(
            FieldError::InvalidRendered(values_path, GoStringSlice(r.values),
                                        "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      if (!r.values.empty()) {
        errors.push_back(
            FieldError::InvalidRendered(values_path, GoStringSlice(r.values),
                                        "values set must be empty for exists and does not exist"));
      }
      break;
    case SelectorOperator::kGt:
    case SelectorOperator::kLt:
      if (r.values.size() != 1) {
        errors.push_back(
            FieldError::InvalidRendered(values_path, GoStringSlice(r.values),
                                        "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      for (size_t i = 0; i < r.values.size(); ++i) {
        if (!api::ParseLabelInt(r.values[i].str())) {
          errors.push_back(FieldError::Invalid(api::IndexPath(values_path, i), r.values[i].str(),
                                               "for 'Gt', 'Lt' operators, the value must be an "
                                               "integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < r.values.size(); ++i) {
    const std::string_view value = r.values[i].str();
    if (std::vector<std::string> msgs = api::LabelValueErrors(value); !msgs.empty()) {
      // field.Path.Key: the label key in brackets after the value's index.
      errors.push_back(FieldError::Invalid(
          fmt::format("{}[{}]", api::IndexPath(values_path, i), key), value, JoinMessages(msgs)));
    }
  }
}

// nodeSelectorRequirementsAsFieldSelector's checks: In or NotIn, with exactly one value. The key
// is not checked: a field other than metadata.name reads as empty when matched.
void AppendFieldErrors(const api::SelectorRequirement& r, const std::string& path,
                       std::vector<FieldError>& errors) {
  if (r.op != SelectorOperator::kIn && r.op != SelectorOperator::kNotIn) {
    errors.push_back(
        UnsupportedOperator(api::ChildPath(path, "operator"), SelectorOperatorName(r.op), true));
    return;
  }
  if (r.values.size() != 1) {
    errors.push_back(FieldError::InvalidRendered(api::ChildPath(path, "values"),
                                                 GoStringSlice(r.values), "must have one element"));
  }
}

}  // namespace

std::vector<FieldError> TermParseErrors(const api::NodeSelectorTerm& term, std::string_view path) {
  std::vector<FieldError> errors;
  const std::string expressions = api::ChildPath(path, "matchExpressions");
  for (size_t i = 0; i < term.match_expressions.size(); ++i) {
    AppendExpressionErrors(term.match_expressions[i], api::IndexPath(expressions, i), errors);
  }
  const std::string fields = api::ChildPath(path, "matchFields");
  for (size_t i = 0; i < term.match_fields.size(); ++i) {
    AppendFieldErrors(term.match_fields[i], api::IndexPath(fields, i), errors);
  }
  return errors;
}

FieldError UnsupportedOperator(std::string_view path, std::string_view op, bool field) {
  const std::string_view supported =
      field ? R"("In", "NotIn")" : R"("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")";
  return FieldError{
      FieldError::Type::kInvalid, std::string(path),
      fmt::format("Unsupported value: {}: supported values: {}", api::GoQuote(op), supported)};
}

std::string AggregateMessage(const std::vector<FieldError>& errors) {
  std::vector<std::string> seen;
  for (const FieldError& e : errors) {
    std::string msg = e.ToString();
    if (std::find(seen.begin(), seen.end(), msg) == seen.end()) seen.push_back(std::move(msg));
  }
  if (seen.size() <= 1) return seen.empty() ? std::string() : seen[0];
  std::string out = "[";
  for (size_t i = 0; i < seen.size(); ++i) {
    if (i > 0) out += ", ";
    out += seen[i];
  }
  return out + "]";
}

std::string GoStringSlice(std::span<const api::Symbol> values) {
  if (values.empty()) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += api::GoQuote(values[i].str());
  }
  out += "}";
  return out;
}

}  // namespace muster::plugins::nodeaffinity
