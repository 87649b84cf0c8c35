#include "muster/plugins/args.h"

#include <algorithm>

#include <fmt/format.h>

#include "muster/api/yaml_int.h"

namespace muster::plugins {
namespace {

constexpr std::string_view kConfigGroup = "kubescheduler.config.k8s.io";

// yaml-cpp gives a quoted scalar the non-specific tag "!" (a plain one gets "?"): in YAML and in
// JSON a quoted scalar is a string whatever it looks like.
bool IsQuoted(const YAML::Node& node) { return node.Tag() == "!"; }

}  // namespace

void ArgsErrors::Add(std::string_view field, std::string_view message) {
  if (field.empty()) {
    errors_.push_back(fmt::format("{}: {}", prefix_, message));
  } else {
    errors_.push_back(fmt::format("{}.{}: {}", prefix_, field, message));
  }
}

std::string ArgsErrors::Joined() const {
  std::string out;
  for (const std::string& e : errors_) {
    if (!out.empty()) out += '\n';
    out += e;
  }
  return out;
}

std::string JoinFieldErrors(const std::vector<api::FieldError>& errors) {
  std::string out;
  for (const api::FieldError& e : errors) {
    if (!out.empty()) out += '\n';
    out += e.ToString();
  }
  return out;
}

std::string DescribeYaml(const YAML::Node& node) {
  if (!IsPresent(node)) return "null";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "an object";
  return fmt::format("{}\"{}\"", IsQuoted(node) ? "string " : "", node.Scalar());
}

ArgsObject::ArgsObject(ArgsErrors& errors, const YAML::Node& node, std::string path,
                       std::initializer_list<std::string_view> fields)
    : errors_(errors), node_(node), path_(std::move(path)) {
  if (!IsPresent(node_)) return;
  if (!node_.IsMap()) {
    errors_.Add(path_, fmt::format("expected an object, got {}", DescribeYaml(node_)));
    valid_ = false;
    return;
  }
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string& key = it->first.Scalar();
    if (std::find(fields.begin(), fields.end(), key) == fields.end()) {
      errors_.Add(FieldPath(key), fmt::format("unknown field \"{}\"", key));
    }
  }
}

YAML::Node ArgsObject::Get(std::string_view field) const {
  if (!valid_ || !IsPresent(node_)) return YAML::Node();
  // A const node's operator[] looks up without inserting the key.
  const YAML::Node& node = node_;
  return node[std::string(field)];
}

std::optional<std::string> ArgsObject::String(std::string_view field) const {
  const YAML::Node node = Get(field);
  if (!IsPresent(node)) return std::nullopt;
  return ReadArgsString(errors_, node, FieldPath(field));
}

std::optional<int64_t> ArgsObject::Int(std::string_view field, int64_t min, int64_t max) const {
  const YAML::Node node = Get(field);
  if (!IsPresent(node)) return std::nullopt;
  return ReadArgsInt(errors_, node, FieldPath(field), min, max);
}

std::optional<std::vector<std::string>> ArgsObject::StringList(std::string_view field) const {
  std::vector<std::string> out;
  bool ok = true;
  const bool present = List(field, [&](const YAML::Node& item, const std::string& path) {
    if (auto s = ReadArgsString(errors_, item, path)) {
      out.push_back(std::move(*s));
    } else {
      ok = false;
    }
  });
  if (!present || !ok) return std::nullopt;
  return out;
}

bool ArgsObject::List(
    std::string_view field,
    const std::function<void(const YAML::Node&, const std::string&)>& item) const {
  const YAML::Node node = Get(field);
  if (!IsPresent(node)) return false;
  const std::string path = FieldPath(field);
  if (!node.IsSequence()) {
    errors_.Add(path, fmt::format("expected a list, got {}", DescribeYaml(node)));
    return false;
  }
  for (size_t i = 0; i < node.size(); ++i) item(node[i], api::IndexPath(path, i));
  return true;
}

std::optional<std::string> ReadArgsString(ArgsErrors& errors, const YAML::Node& node,
                                          const std::string& path) {
  if (!node || !node.IsScalar()) {
    errors.Add(path, fmt::format("expected a string, got {}", DescribeYaml(node)));
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<int64_t> ReadArgsInt(ArgsErrors& errors, const YAML::Node& node,
                                   const std::string& path, int64_t min, int64_t max) {
  std::string error;
  std::optional<int64_t> value =
      api::ReadYamlInt(node, min, max, api::IntOverflow::kOutOfRange, &DescribeYaml, &error);
  if (!value) errors.Add(path, error);
  return value;
}

void CheckArgsKind(const ArgsObject& root, std::string_view plugin) {
  const std::string expected_kind = fmt::format("{}Args", plugin);
  const std::optional<std::string> api_version = root.String("apiVersion");
  const std::optional<std::string> kind = root.String("kind");
  if (!api_version && !kind) return;
  // "group/version"; a bare version is the core group, which holds no args kinds.
  std::string_view group = kConfigGroup;
  if (api_version) {
    const std::string_view v = *api_version;
    const size_t slash = v.find('/');
    group = slash == std::string_view::npos ? std::string_view() : v.substr(0, slash);
  }
  const std::string_view got_kind = kind ? std::string_view(*kind) : expected_kind;
  if (group == kConfigGroup && got_kind == expected_kind) return;
  root.errors().Add("", fmt::format("args for plugin {} were not of type {}.{}, got {}.{}", plugin,
                                    expected_kind, kConfigGroup, got_kind, group));
}

}  // namespace muster::plugins
