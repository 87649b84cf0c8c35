#pragma once

// The api layer's decoding toolkit, shared by its decoders (manifests.cc for the object kinds,
// scheduler_config.cc for the KubeSchedulerConfiguration) and by nothing else: a Decoder that
// collects errors with their object's context, a Map that reads an object's fields and reports
// the unknown and duplicate ones, and readers for scalars, lists and maps that name the field
// they fail on. Errors read "<file>: document <n> (<Kind> <ns/name>): <field path>: <message>".

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/intern.h"
#include "muster/api/manifests.h"
#include "muster/api/nearest.h"
#include "muster/api/quantity.h"
#include "muster/api/scheduler_config.h"
#include "muster/api/time.h"
#include "muster/api/yaml_int.h"

namespace muster::api::decoding {
// The simulation annotations of DESIGN.md: each holds a duration.
constexpr std::string_view kSimulationAnnotations[] = {
    "muster.dev/create-after", "muster.dev/delete-after",  "muster.dev/run-for",
    "muster.dev/ungate-after", "muster.dev/binding-after", "muster.dev/binding-fails-after"};

inline std::string Join(const std::string& path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return path + "." + std::string(key);
}

inline std::string Index(const std::string& path, size_t i) {
  return fmt::format("{}[{}]", path, i);
}

// Files a field finding (an unknown or duplicate field, a misspelt kind) as --validate says: an
// error, a warning or nothing; an error whatever it says when `always`. True when it is an error.
inline bool ReportFieldProblem(LoadResult& result, std::string line, bool always) {
  if (always || result.field_validation == FieldValidation::kStrict) {
    result.errors.push_back(std::move(line));
    return true;
  }
  if (result.field_validation == FieldValidation::kWarn) result.warnings.push_back(std::move(line));
  return false;
}

// Decodes one object, collecting every error with the object's context. Errors read
// "<file>: document <n> (<Kind> <ns/name>): <field path>: <message>".
class Decoder {
 public:
  Decoder(LoadResult& result, Source source, std::string kind)
      : result_(result), source_(std::move(source)), kind_(std::move(kind)) {}

  void SetObjectName(std::string key) { object_ = std::move(key); }
  const std::string& kind() const { return kind_; }
  const Source& source() const { return source_; }
  size_t error_count() const { return result_.errors.size(); }

  std::string Context() const {
    std::string object = object_.empty() ? kind_ : kind_ + " " + object_;
    return fmt::format("{} ({})", source_.ToString(), object);
  }

  void Error(const std::string& path, const std::string& message) {
    // A field that could not be read has said so; what is checked of it after is noise.
    if (!unreadable_.empty() && unreadable_.contains(path)) return;
    if (path.empty()) {
      result_.errors.push_back(fmt::format("{}: {}", Context(), message));
    } else {
      result_.errors.push_back(fmt::format("{}: {}: {}", Context(), path, message));
    }
  }

  // A field of the wrong type (a number where a string belongs): an error, and later errors on
  // the same field are not added.
  void Unreadable(const std::string& path, const std::string& message) {
    Error(path, message);
    unreadable_.insert(path);
  }

  // What the API server accepts and muster reads without acting on it yet: said, not dropped.
  void Warn(const std::string& path, const std::string& message) {
    result_.warnings.push_back(fmt::format("{}: {}: {}", Context(), path, message));
  }

  // An unknown or duplicate field: an error, a warning or nothing, as --validate says, or an
  // error whatever it says (`always`: the KubeSchedulerConfiguration).
  void FieldProblem(const std::string& message, bool always) {
    ReportFieldProblem(result_, fmt::format("{}: {}", Context(), message), always);
  }
  bool ChecksFields() const { return result_.field_validation != FieldValidation::kIgnore; }
  bool Served() const { return result_.served; }

 private:
  LoadResult& result_;
  Source source_;
  std::string kind_;
  std::string object_;
  std::set<std::string> unreadable_;
};

inline std::string Describe(const YAML::Node& n) {
  if (n.IsScalar()) return fmt::format("\"{}\"", n.Scalar());
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "an object";
  return "null";
}

// Reports each of a name validator's messages as the API server does:
// `<path>: Invalid value: "<value>": <message>`.
inline void ReportInvalid(Decoder& d, const std::string& path, std::string_view value,
                          const std::vector<std::string>& messages) {
  for (const std::string& message : messages) {
    d.Error(path, FieldError::Invalid(path, value, message).message);
  }
}

// Reads the fields of a mapping. Lenient readers ignore unknown fields, as the API server does by
// default; strict ones (KubeSchedulerConfiguration) report each unknown field when destroyed.
// How a Map checks its object's fields: as --validate says (kAsInput), always strictly (the
// KubeSchedulerConfiguration, as kube-scheduler decodes it), or never (status, which the API
// server's field validation does not check either).
enum class Fields { kAsInput, kStrict, kUnchecked };

// An object's fields, read by name. On destruction it reports the fields nobody read and that
// were not declared Known (unknown fields, kubectl's `unknown field "spec.nodeSelectr"`), and
// fields given twice.
class Map {
 public:
  Map(Decoder& d, const YAML::Node& node, std::string path, Fields fields = Fields::kAsInput)
      : d_(d),
        node_(node),
        path_(std::move(path)),
        check_(fields == Fields::kStrict || (fields == Fields::kAsInput && d.ChecksFields())),
        always_(fields == Fields::kStrict) {
    if (node_ && !node_.IsNull() && !node_.IsMap()) {
      d_.Error(path_, fmt::format("expected an object, got {}", Describe(node_)));
      valid_ = false;
    }
  }
  Map(const Map&) = delete;
  Map& operator=(const Map&) = delete;
  ~Map() {
    if (!check_ || !valid_ || !node_ || !node_.IsMap()) return;
    std::set<std::string> keys;
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (!keys.insert(key).second) {
        d_.FieldProblem(fmt::format("duplicate field \"{}\"", Join(path_, key)), always_);
      } else if (!seen_.contains(key)) {
        const std::optional<std::string> near =
            Nearest(key, std::vector<std::string>(seen_.begin(), seen_.end()));
        d_.FieldProblem(
            fmt::format("unknown field \"{}\"{}", Join(path_, key),
                        near ? fmt::format("; did you mean \"{}\"?", Join(path_, *near)) : ""),
            always_);
      }
    }
  }

  // Fields of the API that muster accepts without reading them (an image, a probe...).
  void Known(std::span<const std::string_view> keys) {
    if (!check_) return;
    for (std::string_view k : keys) seen_.insert(std::string(k));
  }
  void Known(std::initializer_list<std::string_view> keys) {
    Known(std::span<const std::string_view>(keys.begin(), keys.size()));
  }

  // The field's value; a null node when it is absent (not yaml-cpp's absent-key node, which
  // throws InvalidNode when assigned to another node).
  YAML::Node Get(std::string_view key) {
    seen_.insert(std::string(key));
    if (!valid_ || !node_ || !node_.IsMap()) return YAML::Node();
    const YAML::Node& n = node_;
    YAML::Node value = n[std::string(key)];
    return value.IsDefined() ? value : YAML::Node();
  }
  std::string Path(std::string_view key) const { return Join(path_, key); }
  const std::string& path() const { return path_; }
  Decoder& decoder() { return d_; }

 private:
  Decoder& d_;
  YAML::Node node_;
  std::string path_;
  bool check_;
  bool always_;
  bool valid_ = true;
  std::set<std::string> seen_;
};

inline bool Present(const YAML::Node& n) { return n && !n.IsNull(); }

// What a plain (unquoted) scalar is when kubectl's YAML reader (go-yaml v2, YAML 1.1) reads it
// into JSON, when it is not a string: "number" or "boolean"; null for a string.
const char* PlainScalarType(std::string_view text);

inline std::optional<std::string> ReadString(Decoder& d, const YAML::Node& n,
                                             const std::string& path) {
  if (!Present(n)) return std::nullopt;
  if (!n.IsScalar()) {
    d.Error(path, fmt::format("expected a string, got {}", Describe(n)));
    return std::nullopt;
  }
  // An unquoted 1, 1.5 or yes is a number or a boolean in the JSON kubectl sends, which the API
  // server refuses for a string field ("cannot unmarshal number into Go struct field ... of
  // type string").
  if (n.Tag() == "?") {
    if (const char* type = PlainScalarType(n.Scalar())) {
      d.Unreadable(path, fmt::format("expected a string, got {} {} (quote it: \"{}\")", type,
                                     n.Scalar(), n.Scalar()));
      return std::nullopt;
    }
  }
  return n.Scalar();
}

inline std::optional<int64_t> ReadInt(Decoder& d, const YAML::Node& n, const std::string& path,
                                      int64_t min = INT32_MIN, int64_t max = INT32_MAX) {
  if (!Present(n)) return std::nullopt;
  // What was found, with "string" before a quoted scalar, which the API server refuses for an
  // integer (and before a list or object explicitly tagged "!").
  std::string (*describe)(const YAML::Node&) = [](const YAML::Node& node) {
    return fmt::format("{}{}", node.Tag() == "!" ? "string " : "", Describe(node));
  };
  std::string error;
  std::optional<int64_t> value =
      ReadYamlInt(n, min, max, IntOverflow::kNotAnInteger, describe, &error);
  if (!value) d.Error(path, error);
  return value;
}

inline std::optional<double> ReadNumber(Decoder& d, const YAML::Node& n, const std::string& path) {
  if (!Present(n)) return std::nullopt;
  if (n.IsScalar() && n.Tag() != "!") {
    try {
      size_t used = 0;
      const double v = std::stod(n.Scalar(), &used);
      if (used == n.Scalar().size()) return v;
    } catch (const std::exception&) {
    }
  }
  d.Error(path, fmt::format("expected a number, got {}", Describe(n)));
  return std::nullopt;
}

inline std::optional<bool> ReadBool(Decoder& d, const YAML::Node& n, const std::string& path) {
  if (!Present(n)) return std::nullopt;
  if (n.IsScalar() && n.Tag() != "!") {
    const std::string& s = n.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  d.Error(path, fmt::format("expected a boolean, got {}", Describe(n)));
  return std::nullopt;
}

inline std::optional<Quantity> ReadQuantity(Decoder& d, const YAML::Node& n,
                                            const std::string& path) {
  if (!Present(n)) return std::nullopt;
  if (!n.IsScalar()) {
    d.Error(path,
            fmt::format("invalid quantity: expected a string or number, got {}", Describe(n)));
    return std::nullopt;
  }
  std::optional<Quantity> q = Quantity::Parse(n.Scalar());
  if (!q) d.Error(path, fmt::format("invalid quantity \"{}\"", n.Scalar()));
  return q;
}

inline std::optional<Duration> ReadDuration(Decoder& d, const YAML::Node& n,
                                            const std::string& path) {
  auto s = ReadString(d, n, path);
  if (!s) return std::nullopt;
  auto dur = ParseDuration(*s);
  if (!dur) d.Error(path, fmt::format("invalid duration \"{}\"", *s));
  return dur;
}

inline std::optional<Time> ReadTime(Decoder& d, const YAML::Node& n, const std::string& path) {
  auto s = ReadString(d, n, path);
  if (!s) return std::nullopt;
  auto t = ParseTime(*s);
  if (!t) d.Error(path, fmt::format("invalid RFC 3339 time \"{}\"", *s));
  return t;
}

template <typename Fn>
void ReadList(Decoder& d, const YAML::Node& n, const std::string& path, Fn&& fn) {
  if (!Present(n)) return;
  if (!n.IsSequence()) {
    d.Error(path, fmt::format("expected a list, got {}", Describe(n)));
    return;
  }
  for (size_t i = 0; i < n.size(); ++i) fn(n[i], Index(path, i));
}

template <typename Fn>
void ReadMapEntries(Decoder& d, const YAML::Node& n, const std::string& path, Fn&& fn) {
  if (!Present(n)) return;
  if (!n.IsMap()) {
    d.Error(path, fmt::format("expected an object, got {}", Describe(n)));
    return;
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string key = it->first.Scalar();
    fn(key, it->second, Join(path, key));
  }
}

inline std::vector<std::string> ReadStringList(Decoder& d, const YAML::Node& n,
                                               const std::string& path) {
  std::vector<std::string> out;
  ReadList(d, n, path, [&](const YAML::Node& item, const std::string& p) {
    if (auto s = ReadString(d, item, p)) out.push_back(*s);
  });
  return out;
}

inline std::vector<Symbol> ReadSymbolList(Decoder& d, const YAML::Node& n,
                                          const std::string& path) {
  std::vector<Symbol> out;
  for (const std::string& s : ReadStringList(d, n, path)) out.emplace_back(s);
  return out;
}

}  // namespace muster::api::decoding
