#include "muster/api/labels.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <system_error>

namespace muster::api {
namespace {

constexpr size_t kLabelNameMaxLength = 63;
constexpr size_t kLabelValueMaxLength = 63;
constexpr size_t kDns1123SubdomainMaxLength = 253;

// Regexes as upstream prints them in its messages; the checks below implement them by hand.
constexpr std::string_view kLabelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr std::string_view kLabelValueFmt = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr std::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

constexpr std::string_view kLabelKeyErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character";
constexpr std::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character";
constexpr std::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character";
constexpr std::string_view kEmptyError = "must be non-empty";

constexpr std::array<std::string_view, 6> kOperatorNames = {"In",           "NotIn", "Exists",
                                                            "DoesNotExist", "Gt",    "Lt"};

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool MatchesLabelNameRegex(std::string_view s) {
  if (s.empty() || !IsAsciiAlnum(s.front()) || !IsAsciiAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAsciiAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?, without a length limit: the subdomain regex has none per label.
bool MatchesDnsLabelRegex(std::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return IsLowerAlnum(c) || c == '-'; });
}

bool MatchesDns1123SubdomainRegex(std::string_view s) {
  while (true) {
    const size_t dot = s.find('.');
    if (!MatchesDnsLabelRegex(s.substr(0, dot))) return false;
    if (dot == std::string_view::npos) return true;
    s.remove_prefix(dot + 1);
  }
}

bool IsValidDns1123Subdomain(std::string_view s) {
  return s.size() <= kDns1123SubdomainMaxLength && MatchesDns1123SubdomainRegex(s);
}

// Upstream's RegexError: "msg (e.g. 'a',  or 'b', regex used for validation is 're')". The
// doubled space comes from upstream joining "'a', " and " or ".
std::string RegexError(std::string_view msg, std::string_view regex,
                       std::initializer_list<std::string_view> examples) {
  std::string out(msg);
  out += " (e.g. ";
  bool first = true;
  for (std::string_view example : examples) {
    if (!first) out += " or ";
    first = false;
    out += "'";
    out += example;
    out += "', ";
  }
  out += "regex used for validation is '";
  out += regex;
  out += "')";
  return out;
}

std::string MaxLenError(size_t length) {
  return "must be no more than " + std::to_string(length) + " bytes";
}

std::string LabelNameRegexError() {
  return RegexError(kLabelKeyErrMsg, kLabelKeyFmt, {"MyName", "my.name", "123-abc"});
}

bool KeyIdLess(const LabelSet::value_type& entry, Symbol key) {
  return entry.first.id() < key.id();
}

bool Contains(const std::vector<Symbol>& values, Symbol value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// What LabelSelectorAsSelector checks before it returns a selector.
bool LabelSelectorConverts(const LabelSelector& selector) {
  for (const auto& [key, value] : selector.match_labels) {
    if (!IsValidLabelKey(key.str()) || !IsValidLabelValue(value.str())) return false;
  }
  for (const SelectorRequirement& r : selector.match_expressions) {
    if (r.op == SelectorOperator::kGt || r.op == SelectorOperator::kLt) return false;
    if (!IsWellFormedRequirement(r, nullptr)) return false;
  }
  return true;
}

// Upstream appends ": detail" only when there is a detail.
std::string WithDetail(std::string body, std::string_view detail) {
  if (!detail.empty()) {
    body += ": ";
    body += detail;
  }
  return body;
}

void AppendInvalid(std::vector<FieldError>& errors, const std::string& field,
                   std::string_view value, const std::vector<std::string>& messages) {
  for (const std::string& message : messages) {
    errors.push_back(FieldError::Invalid(field, value, message));
  }
}

}  // namespace

// ---- LabelSet ----

LabelSet::LabelSet(std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  labels_.reserve(labels.size());
  for (const auto& [key, value] : labels) Set(Symbol(key), Symbol(value));
}

const Symbol* LabelSet::Get(Symbol key) const {
  const auto it = std::lower_bound(labels_.begin(), labels_.end(), key, KeyIdLess);
  if (it == labels_.end() || it->first != key) return nullptr;
  return &it->second;
}

void LabelSet::Set(Symbol key, Symbol value) {
  const auto it = std::lower_bound(labels_.begin(), labels_.end(), key, KeyIdLess);
  if (it != labels_.end() && it->first == key) {
    it->second = value;
  } else {
    labels_.insert(it, {key, value});
  }
}

// ---- Selectors ----

std::string_view SelectorOperatorName(SelectorOperator op) {
  const auto index = static_cast<size_t>(op);
  return index < kOperatorNames.size() ? kOperatorNames[index] : std::string_view("Unknown");
}

std::optional<SelectorOperator> ParseSelectorOperator(std::string_view name) {
  for (size_t i = 0; i < kOperatorNames.size(); ++i) {
    if (kOperatorNames[i] == name) return static_cast<SelectorOperator>(i);
  }
  return std::nullopt;
}

bool IsWellFormedRequirement(const SelectorRequirement& r, int64_t* bound) {
  if (!IsValidLabelKey(r.key.str())) return false;
  int64_t operand = 0;
  switch (r.op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      if (r.values.empty()) return false;
      break;
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      if (!r.values.empty()) return false;
      break;
    case SelectorOperator::kGt:
    case SelectorOperator::kLt: {
      if (r.values.size() != 1) return false;
      const std::optional<int64_t> parsed = ParseLabelInt(r.values[0].str());
      if (!parsed) return false;
      operand = *parsed;
      break;
    }
    default:
      return false;
  }
  for (Symbol value : r.values) {
    if (!IsValidLabelValue(value.str())) return false;
  }
  if (bound != nullptr) *bound = operand;
  return true;
}

bool RequirementMatches(const SelectorRequirement& r, const LabelSet& labels, int64_t bound) {
  switch (r.op) {
    case SelectorOperator::kIn: {
      const Symbol* value = labels.Get(r.key);
      return value != nullptr && Contains(r.values, *value);
    }
    case SelectorOperator::kNotIn: {
      const Symbol* value = labels.Get(r.key);
      return value == nullptr || !Contains(r.values, *value);
    }
    case SelectorOperator::kExists:
      return labels.Has(r.key);
    case SelectorOperator::kDoesNotExist:
      return !labels.Has(r.key);
    case SelectorOperator::kGt:
    case SelectorOperator::kLt: {
      const Symbol* value = labels.Get(r.key);
      if (value == nullptr) return false;
      const std::optional<int64_t> number = ParseLabelInt(value->str());
      if (!number) return false;
      return r.op == SelectorOperator::kGt ? *number > bound : *number < bound;
    }
  }
  return false;
}

void AppendSelectorIds(const LabelSelector& selector, std::string* out) {
  // Every field ends with a mark of its own, so no two selectors spell alike.
  for (const auto& [key, value] : selector.match_labels) {
    *out += std::to_string(key.id()) + '=' + std::to_string(value.id()) + ';';
  }
  for (const SelectorRequirement& r : selector.match_expressions) {
    *out += std::to_string(r.key.id()) + ':' + std::to_string(static_cast<int>(r.op));
    for (Symbol v : r.values) *out += ',' + std::to_string(v.id());
    *out += ';';
  }
  *out += '|';
}

void AppendLabelIds(const LabelSet& labels, std::string* out) {
  for (const auto& [key, value] : labels) {
    *out += std::to_string(key.id()) + '=' + std::to_string(value.id()) + ',';
  }
  *out += '|';
}

bool LabelSelector::Matches(const LabelSet& labels) const {
  if (!IsWellFormed(*this)) return false;
  for (const auto& [key, value] : match_labels) {
    const Symbol* got = labels.Get(key);
    if (got == nullptr || *got != value) return false;
  }
  for (const SelectorRequirement& r : match_expressions) {
    if (!RequirementMatches(r, labels, /*bound=*/0)) return false;
  }
  return true;
}

void PrepareLabelSelector(LabelSelector& selector) {
  selector.prepared = LabelSelectorConverts(selector) ? Prepared::kValid : Prepared::kInvalid;
}

bool IsWellFormed(const LabelSelector& selector) {
  switch (selector.prepared) {
    case Prepared::kValid:
      return true;
    case Prepared::kInvalid:
      return false;
    case Prepared::kNo:
      break;
  }
  return LabelSelectorConverts(selector);
}

// ---- Label syntax ----

bool IsValidLabelKey(std::string_view key) {
  std::string_view name = key;
  const size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) return false;
    const std::string_view prefix = key.substr(0, slash);
    if (prefix.empty() || !IsValidDns1123Subdomain(prefix)) return false;
    name = key.substr(slash + 1);
  }
  return name.size() <= kLabelNameMaxLength && MatchesLabelNameRegex(name);
}

bool IsValidLabelValue(std::string_view value) {
  return value.size() <= kLabelValueMaxLength && (value.empty() || MatchesLabelNameRegex(value));
}

std::vector<std::string> LabelKeyErrors(std::string_view key) {
  std::vector<std::string> errors;
  const size_t slashes = static_cast<size_t>(std::count(key.begin(), key.end(), '/'));
  if (slashes > 1) {
    errors.push_back("a valid label key " + LabelNameRegexError() +
                     " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
    return errors;
  }
  std::string_view name = key;
  if (slashes == 1) {
    const size_t slash = key.find('/');
    const std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (prefix.empty()) {
      errors.push_back("prefix part " + std::string(kEmptyError));
    } else {
      for (const std::string& message : Dns1123SubdomainErrors(prefix)) {
        errors.push_back("prefix part " + message);
      }
    }
  }
  if (name.empty()) {
    errors.push_back("name part " + std::string(kEmptyError));
  } else if (name.size() > kLabelNameMaxLength) {
    errors.push_back("name part " + MaxLenError(kLabelNameMaxLength));
  }
  if (!MatchesLabelNameRegex(name)) errors.push_back("name part " + LabelNameRegexError());
  return errors;
}

std::vector<std::string> LabelValueErrors(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > kLabelValueMaxLength) errors.push_back(MaxLenError(kLabelValueMaxLength));
  if (!value.empty() && !MatchesLabelNameRegex(value)) {
    errors.push_back(
        RegexError(kLabelValueErrMsg, kLabelValueFmt, {"MyValue", "my_value", "12345"}));
  }
  return errors;
}

std::vector<std::string> Dns1123SubdomainErrors(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > kDns1123SubdomainMaxLength) {
    errors.push_back(MaxLenError(kDns1123SubdomainMaxLength));
  }
  if (!MatchesDns1123SubdomainRegex(value)) {
    errors.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt, {"example.com"}));
  }
  return errors;
}

std::vector<std::string> Dns1123LabelErrors(std::string_view value) {
  std::vector<std::string> errors;
  if (value.size() > 63) errors.push_back(MaxLenError(63));
  if (!MatchesDnsLabelRegex(value)) {
    errors.push_back(RegexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
        "and must start and end with an alphanumeric character",
        "[a-z0-9]([-a-z0-9]*[a-z0-9])?", {"my-name", "123-abc"}));
  }
  return errors;
}

std::optional<int64_t> ParseLabelInt(std::string_view text) {
  std::string_view digits = text;
  // from_chars takes '-' but not '+'; Go takes either, but only one.
  if (!digits.empty() && digits.front() == '+') {
    digits.remove_prefix(1);
    if (!digits.empty() && digits.front() == '-') return std::nullopt;
  }
  if (digits.empty()) return std::nullopt;
  int64_t value = 0;
  const char* last = digits.data() + digits.size();
  const auto [end, error] = std::from_chars(digits.data(), last, value);
  if (error != std::errc() || end != last) return std::nullopt;
  return value;
}

// ---- Validation errors ----

FieldError FieldError::Required(std::string path, std::string_view detail) {
  return FieldError{Type::kRequired, std::move(path), WithDetail("Required value", detail)};
}

FieldError FieldError::Forbidden(std::string path, std::string_view detail) {
  return FieldError{Type::kForbidden, std::move(path), WithDetail("Forbidden", detail)};
}

FieldError FieldError::Invalid(std::string path, std::string_view value, std::string_view detail) {
  return InvalidRendered(std::move(path), GoQuote(value), detail);
}

FieldError FieldError::InvalidRendered(std::string path, std::string_view rendered,
                                       std::string_view detail) {
  std::string body = "Invalid value: ";
  body += rendered;
  return FieldError{Type::kInvalid, std::move(path), WithDetail(std::move(body), detail)};
}

std::string FieldError::ToString() const { return path + ": " + message; }

std::string ChildPath(std::string_view parent, std::string_view child) {
  std::string out(parent);
  if (!out.empty()) out += '.';
  out += child;
  return out;
}

std::string IndexPath(std::string_view parent, size_t index) {
  std::string out(parent);
  out += '[';
  out += std::to_string(index);
  out += ']';
  return out;
}

std::string GoQuote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      default: {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
          char escaped[5];
          std::snprintf(escaped, sizeof(escaped), "\\x%02x", byte);
          out += escaped;
        } else {
          out += c;
        }
      }
    }
  }
  out += '"';
  return out;
}

void AppendRequirementErrors(const SelectorRequirement& r, std::string_view path, bool node,
                             std::vector<FieldError>& errors) {
  const std::string values_path = ChildPath(path, "values");
  switch (r.op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      if (r.values.empty()) {
        errors.push_back(FieldError::Required(
            values_path, "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      if (!r.values.empty()) {
        errors.push_back(FieldError::Forbidden(
            values_path, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      break;
    case SelectorOperator::kGt:
    case SelectorOperator::kLt:
      if (!node) {
        errors.push_back(FieldError::Invalid(ChildPath(path, "operator"),
                                             SelectorOperatorName(r.op),
                                             "not a valid selector operator"));
      } else if (r.values.size() != 1) {
        errors.push_back(FieldError::Required(
            values_path, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      }
      break;
  }
  AppendInvalid(errors, ChildPath(path, "key"), r.key.str(), LabelKeyErrors(r.key.str()));
  for (size_t j = 0; j < r.values.size(); ++j) {
    const std::string_view value = r.values[j].str();
    AppendInvalid(errors, IndexPath(values_path, j), value, LabelValueErrors(value));
  }
}

std::vector<FieldError> ValidateLabelSelector(const LabelSelector& selector,
                                              std::string_view path) {
  std::vector<FieldError> errors;
  // Upstream reports both key and value errors of matchLabels at the map itself, not per key.
  const std::string labels_path = ChildPath(path, "matchLabels");
  for (const auto& [key, value] : selector.match_labels) {
    AppendInvalid(errors, labels_path, key.str(), LabelKeyErrors(key.str()));
    AppendInvalid(errors, labels_path, value.str(), LabelValueErrors(value.str()));
  }
  const std::string expressions_path = ChildPath(path, "matchExpressions");
  for (size_t i = 0; i < selector.match_expressions.size(); ++i) {
    AppendRequirementErrors(selector.match_expressions[i], IndexPath(expressions_path, i),
                            /*node=*/false, errors);
  }
  return errors;
}

}  // namespace muster::api
