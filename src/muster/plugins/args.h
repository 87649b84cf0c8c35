#pragma once

// Strict decoding of plugin args (a profile's pluginConfig[].args), shared by every plugin that has
// args. kube-scheduler decodes args strictly: an unknown field, or a value of the wrong type, is an
// error, and field names are case-sensitive. Errors read "<error_prefix>.<field path>: <message>"
// (see framework::PluginArgs), so a user can find the offending field in their file.
//
// A plugin's decoder is then a short function:
//
//   ArgsErrors errors(args.error_prefix);
//   ArgsObject root(errors, args.args, "", {"apiVersion", "kind", "ignoredResources"});
//   CheckArgsKind(root, "NodeResourcesFit");
//   if (auto list = root.StringList("ignoredResources")) out.ignored = *list;

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "muster/api/labels.h"
#include "muster/framework/registry.h"

namespace muster::plugins {

// The errors of one plugin's args, each prefixed with the args' location in the config file.
class ArgsErrors {
 public:
  explicit ArgsErrors(std::string prefix) : prefix_(std::move(prefix)) {}

  // `field` is relative to the args ("scoringStrategy.type", "ignoredResources[0]"); empty for
  // the args object itself.
  void Add(std::string_view field, std::string_view message);
  // A validation error; its path is relative to the args.
  void Add(const api::FieldError& error) { Add(error.path, error.message); }

  bool empty() const { return errors_.empty(); }
  const std::vector<std::string>& list() const { return errors_; }
  // Every error, one per line: what a PluginFactory reports through its `error` out-parameter.
  std::string Joined() const;

 private:
  std::string prefix_;
  std::vector<std::string> errors_;
};

// Validation errors as "<path>: <message>", one per line (for errors outside a config file).
std::string JoinFieldErrors(const std::vector<api::FieldError>& errors);

// "a list", "an object", "\"text\"", "null": how a decoding error names what it found.
std::string DescribeYaml(const YAML::Node& node);

// Whether the node holds a value: absent and explicit null both mean "not given", as in JSON.
inline bool IsPresent(const YAML::Node& node) { return node && !node.IsNull(); }

// One YAML mapping read strictly. The constructor reports every key that is not in `fields` (and
// a node that is not a mapping); the accessors then read known fields, reporting type errors.
// An absent object (null node) is valid and has no fields.
class ArgsObject {
 public:
  ArgsObject(ArgsErrors& errors, const YAML::Node& node, std::string path,
             std::initializer_list<std::string_view> fields);

  // False when the node is present but not a mapping (already reported).
  bool valid() const { return valid_; }
  bool Has(std::string_view field) const { return IsPresent(Get(field)); }
  // The field's node; an invalid node when the field is absent.
  YAML::Node Get(std::string_view field) const;
  std::string FieldPath(std::string_view field) const { return api::ChildPath(path_, field); }
  ArgsErrors& errors() const { return errors_; }

  // nullopt when the field is absent or has the wrong type (reported).
  std::optional<std::string> String(std::string_view field) const;
  std::optional<int64_t> Int(std::string_view field, int64_t min, int64_t max) const;
  std::optional<std::vector<std::string>> StringList(std::string_view field) const;
  // Calls `item` for each element of a list field with the element's node and path. Returns false
  // when the field is absent or not a list (reported).
  bool List(std::string_view field,
            const std::function<void(const YAML::Node&, const std::string&)>& item) const;

 private:
  ArgsErrors& errors_;
  YAML::Node node_;
  std::string path_;
  bool valid_ = true;
};

// Element readers for list items and other nodes outside an ArgsObject.
std::optional<std::string> ReadArgsString(ArgsErrors& errors, const YAML::Node& node,
                                          const std::string& path);
// An integer in [min, max]; a quoted scalar is a string, not an integer, as in JSON.
std::optional<int64_t> ReadArgsInt(ArgsErrors& errors, const YAML::Node& node,
                                   const std::string& path, int64_t min, int64_t max);

// Checks the type fields any args object may carry: `kind`, when given, must be
// "<plugin>Args" (the group is taken from `apiVersion`), with upstream's message otherwise.
// The object must list "apiVersion" and "kind" among its fields.
void CheckArgsKind(const ArgsObject& root, std::string_view plugin);

// Decode, default and validate a plugin's args: what its factory runs. `decode` reports into the
// errors; SetDefaults and Validate, found in the args type's namespace, run only on args that
// decoded, as a type error leaves values that would give misleading follow-up errors. False
// with *error set (one error per line) when the args are bad.
template <typename Args>
bool LoadArgs(const framework::PluginArgs& args, Args* out, std::string* error,
              bool (*decode)(const YAML::Node&, Args*, ArgsErrors&)) {
  ArgsErrors errors(args.error_prefix);
  if (decode(args.args, out, errors)) {
    SetDefaults(*out);
    for (const api::FieldError& e : Validate(*out)) errors.Add(e);
  }
  if (errors.empty()) return true;
  *error = errors.Joined();
  return false;
}

}  // namespace muster::plugins
