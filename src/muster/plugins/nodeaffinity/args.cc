#include "muster/plugins/nodeaffinity/args.h"

#include <utility>

#include "muster/plugins/nodeaffinity/parse_errors.h"

namespace muster::plugins::nodeaffinity {
namespace {

constexpr std::string_view kAddedAffinity = "addedAffinity";
constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
constexpr std::string_view kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";

// Where validation reports errors: upstream validates the decoded object, so a preferred term's
// errors name the term (".preferred...[i].matchFields[0]"), not the YAML's ".preference".
std::string RequiredTermsPath() {
  return api::ChildPath(api::ChildPath(kAddedAffinity, kRequired), "nodeSelectorTerms");
}
std::string PreferredPath() { return api::ChildPath(kAddedAffinity, kPreferred); }

// One requirement at YAML path `path`; an unknown operator is reported at `validation_path`.
api::SelectorRequirement ReadRequirement(ArgsErrors& errors, const YAML::Node& node,
                                         const std::string& path,
                                         const std::string& validation_path, bool field) {
  ArgsObject r(errors, node, path, {"key", "operator", "values"});
  api::SelectorRequirement req;
  if (std::optional<std::string> key = r.String("key")) req.key = api::Symbol(*key);
  const std::string op = r.String("operator").value_or("");
  if (std::optional<api::SelectorOperator> parsed = api::ParseSelectorOperator(op)) {
    req.op = *parsed;
  } else {
    errors.Add(UnsupportedOperator(api::ChildPath(validation_path, "operator"), op, field));
  }
  if (std::optional<std::vector<std::string>> values = r.StringList("values")) {
    for (const std::string& v : *values) req.values.emplace_back(v);
  }
  return req;
}

api::NodeSelectorTerm ReadTerm(ArgsErrors& errors, const YAML::Node& node, const std::string& path,
                               const std::string& validation_path) {
  ArgsObject t(errors, node, path, {"matchExpressions", "matchFields"});
  api::NodeSelectorTerm term;
  auto read = [&](std::string_view list, bool field, std::vector<api::SelectorRequirement>& out) {
    const std::string list_validation_path = api::ChildPath(validation_path, list);
    t.List(list, [&](const YAML::Node& item, const std::string& item_path) {
      const std::string v = api::IndexPath(list_validation_path, out.size());
      out.push_back(ReadRequirement(errors, item, item_path, v, field));
    });
  };
  read("matchExpressions", false, term.match_expressions);
  read("matchFields", true, term.match_fields);
  return term;
}

}  // namespace

bool DecodeNodeAffinityArgs(const YAML::Node& args, NodeAffinityArgs* out, ArgsErrors& errors) {
  const size_t before = errors.list().size();
  ArgsObject root(errors, args, "", {"apiVersion", "kind", kAddedAffinity});
  CheckArgsKind(root, kName);
  if (root.Has(kAddedAffinity)) {
    ArgsObject a(errors, root.Get(kAddedAffinity), root.FieldPath(kAddedAffinity),
                 {kRequired, kPreferred});
    api::NodeAffinity affinity;
    if (a.Has(kRequired)) {
      ArgsObject selector(errors, a.Get(kRequired), a.FieldPath(kRequired), {"nodeSelectorTerms"});
      api::NodeSelector required;
      selector.List("nodeSelectorTerms", [&](const YAML::Node& item, const std::string& path) {
        const std::string v = api::IndexPath(RequiredTermsPath(), required.terms.size());
        required.terms.push_back(ReadTerm(errors, item, path, v));
      });
      affinity.required = std::move(required);
    }
    a.List(kPreferred, [&](const YAML::Node& item, const std::string& path) {
      ArgsObject w(errors, item, path, {"weight", "preference"});
      api::PreferredSchedulingTerm term;
      if (std::optional<int64_t> weight = w.Int("weight", INT32_MIN, INT32_MAX)) {
        term.weight = static_cast<int32_t>(*weight);
      }
      const std::string v = api::IndexPath(PreferredPath(), affinity.preferred.size());
      if (w.Has("preference")) {
        term.preference = ReadTerm(errors, w.Get("preference"), w.FieldPath("preference"), v);
      }
      affinity.preferred.push_back(std::move(term));
    });
    out->added_affinity = std::move(affinity);
  }
  return errors.list().size() == before;
}

std::vector<api::FieldError> Validate(const NodeAffinityArgs& args) {
  std::vector<api::FieldError> errors;
  if (!args.added_affinity) return errors;
  auto append = [&](const api::NodeSelectorTerm& term, const std::string& path) {
    std::vector<api::FieldError> term_errors = TermParseErrors(term, path);
    errors.insert(errors.end(), term_errors.begin(), term_errors.end());
  };
  if (const std::optional<api::NodeSelector>& required = args.added_affinity->required) {
    for (size_t i = 0; i < required->terms.size(); ++i) {
      if (IsEmptyTerm(required->terms[i])) continue;
      append(required->terms[i], api::IndexPath(RequiredTermsPath(), i));
    }
  }
  const std::vector<api::PreferredSchedulingTerm>& preferred = args.added_affinity->preferred;
  for (size_t i = 0; i < preferred.size(); ++i) {
    // Terms that can earn nothing are not parsed, as upstream.
    if (preferred[i].weight == 0 || IsEmptyTerm(preferred[i].preference)) continue;
    append(preferred[i].preference, api::IndexPath(PreferredPath(), i));
  }
  return errors;
}

bool LoadNodeAffinityArgs(const framework::PluginArgs& args, NodeAffinityArgs* out,
                          std::string* error) {
  ArgsErrors errors(args.error_prefix);
  // Validation runs only on args that decoded: an operator that did not decode would otherwise
  // be reported twice.
  if (DecodeNodeAffinityArgs(args.args, out, errors)) {
    for (const api::FieldError& e : Validate(*out)) errors.Add(e);
  }
  if (errors.empty()) return true;
  *error = errors.Joined();
  return false;
}

}  // namespace muster::plugins::nodeaffinity
