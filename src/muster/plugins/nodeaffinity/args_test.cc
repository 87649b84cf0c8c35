#include "muster/plugins/nodeaffinity/args.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "muster/plugins/nodeaffinity/parse_errors.h"

// Validation cases from upstream validation_pluginargs_test.go (TestValidateNodeAffinityArgs) and
// the parse errors of component-helpers nodeaffinity_test.go (TestNodeSelectorMatch,
// TestPreferredSchedulingTermsScore), whose messages come from labels.NewRequirement.

namespace muster::plugins::nodeaffinity {
namespace {

constexpr std::string_view kPrefix = "cfg.yaml: document 1 (KubeSchedulerConfiguration): args";

std::vector<std::string> Paths(const std::vector<api::FieldError>& errors) {
  std::vector<std::string> out;
  for (const api::FieldError& e : errors) out.push_back(e.path);
  return out;
}

bool Load(std::string_view yaml, NodeAffinityArgs* out, std::string* error) {
  return LoadNodeAffinityArgs({YAML::Load(std::string(yaml)), std::string(kPrefix)}, out, error);
}

api::SelectorRequirement Req(std::string_view key, api::SelectorOperator op,
                             const std::vector<std::string>& values) {
  api::SelectorRequirement r;
  r.key = api::Symbol(key);
  r.op = op;
  for (const std::string& v : values) r.values.emplace_back(v);
  return r;
}

TEST(NodeAffinityArgsDecode, NullArgsAddNothing) {
  NodeAffinityArgs args;
  std::string error;
  ASSERT_TRUE(LoadNodeAffinityArgs({YAML::Node(), std::string(kPrefix)}, &args, &error));
  EXPECT_FALSE(args.added_affinity.has_value());
  EXPECT_TRUE(Validate(args).empty());
}

TEST(NodeAffinityArgsDecode, ValidAddedAffinity) {
  NodeAffinityArgs args;
  std::string error;
  ASSERT_TRUE(Load(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: NodeAffinityArgs
addedAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions:
      - key: label-1
        operator: In
        values: [label-1-val]
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 1
    preference:
      matchFields:
      - key: metadata.name
        operator: In
        values: [node-1]
)",
                   &args, &error))
      << error;
  ASSERT_TRUE(args.added_affinity.has_value());
  const api::NodeAffinity& a = *args.added_affinity;
  ASSERT_TRUE(a.required.has_value());
  ASSERT_EQ(a.required->terms.size(), 1u);
  ASSERT_EQ(a.required->terms[0].match_expressions.size(), 1u);
  const api::SelectorRequirement& r = a.required->terms[0].match_expressions[0];
  EXPECT_EQ(r.key.str(), "label-1");
  EXPECT_EQ(r.op, api::SelectorOperator::kIn);
  ASSERT_EQ(r.values.size(), 1u);
  EXPECT_EQ(r.values[0].str(), "label-1-val");
  ASSERT_EQ(a.preferred.size(), 1u);
  EXPECT_EQ(a.preferred[0].weight, 1);
  ASSERT_EQ(a.preferred[0].preference.match_fields.size(), 1u);
  EXPECT_EQ(a.preferred[0].preference.match_fields[0].key.str(), "metadata.name");
}

TEST(NodeAffinityArgsValidate, InvalidAddedAffinity) {
  NodeAffinityArgs args;
  args.added_affinity.emplace();
  args.added_affinity->required = api::NodeSelector{{api::NodeSelectorTerm{
      {Req("invalid/label/key", api::SelectorOperator::kIn, {"label-1-val"})}, {}}}};
  args.added_affinity->preferred.push_back(api::PreferredSchedulingTerm{
      1, api::NodeSelectorTerm{
             {}, {Req("metadata.name", api::SelectorOperator::kIn, {"node-1", "node-2"})}}});
  const std::vector<api::FieldError> errors = Validate(args);
  EXPECT_EQ(Paths(errors),
            (std::vector<std::string>{
                "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]."
                "matchExpressions[0].key",
                "addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].matchFields[0]."
                "values"}));
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[1].message,
            "Invalid value: []string{\"node-1\", \"node-2\"}: must have one element");
  EXPECT_TRUE(errors[0].message.starts_with("Invalid value: \"invalid/label/key\": "))
      << errors[0].message;
}

TEST(NodeAffinityArgsDecode, ErrorsCarryThePrefix) {
  NodeAffinityArgs args;
  std::string error;
  EXPECT_FALSE(Load(R"(
addedAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 1
    preference:
      matchFields:
      - key: metadata.name
        operator: Exists
)",
                    &args, &error));
  EXPECT_EQ(error, std::string(kPrefix) +
                       ".addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
                       "matchFields[0].operator: Unsupported value: \"Exists\": supported values: "
                       "\"In\", \"NotIn\"");
}

TEST(NodeAffinityArgsDecode, UnknownOperatorReportedAtTheValidationPath) {
  NodeAffinityArgs args;
  std::string error;
  EXPECT_FALSE(Load(R"(
addedAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions:
      - key: a
        operator: Foo
        values: [x]
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 1
    preference:
      matchExpressions:
      - {key: a, operator: In, values: [x]}
      - {key: a, operator: Bar}
)",
                    &args, &error));
  const std::string p(kPrefix);
  EXPECT_EQ(error,
            p +
                ".addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
                ".matchExpressions[0].operator: Unsupported value: \"Foo\": supported values: "
                "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"\n" +
                p +
                ".addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"
                ".matchExpressions[1].operator: Unsupported value: \"Bar\": supported values: "
                "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\"");
}

TEST(NodeAffinityArgsDecode, Strict) {
  NodeAffinityArgs args;
  std::string error;
  EXPECT_FALSE(Load(R"(
addedAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerm: []
)",
                    &args, &error));
  EXPECT_EQ(error, std::string(kPrefix) +
                       ".addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                       "nodeSelectorTerm: unknown field \"nodeSelectorTerm\"");
  EXPECT_FALSE(Load("kind: NodeResourcesFitArgs\n", &args, &error));
  EXPECT_EQ(error, std::string(kPrefix) +
                       ": args for plugin NodeAffinity were not of type "
                       "NodeAffinityArgs.kubescheduler.config.k8s.io, got "
                       "NodeResourcesFitArgs.kubescheduler.config.k8s.io");
}

TEST(NodeAffinityArgsValidate, SkipsTermsThatCannotMatchOrEarn) {
  NodeAffinityArgs args;
  args.added_affinity.emplace();
  args.added_affinity->required = api::NodeSelector{{api::NodeSelectorTerm{}}};
  args.added_affinity->preferred.push_back(api::PreferredSchedulingTerm{
      0, api::NodeSelectorTerm{{Req("bad key", api::SelectorOperator::kIn, {"v"})}, {}}});
  EXPECT_TRUE(Validate(args).empty());
}

// labels.NewRequirement's messages, term by term.
TEST(NodeAffinityParseErrors, RequirementMessages) {
  using Op = api::SelectorOperator;
  struct Case {
    std::string name;
    api::NodeSelectorTerm term;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"valid",
       api::NodeSelectorTerm{{Req("a", Op::kIn, {"x"}), Req("b", Op::kGt, {"5"})}, {}},
       {}},
      {"In without values",
       api::NodeSelectorTerm{{Req("a", Op::kIn, {})}, {}},
       {"t.matchExpressions[0].values: Invalid value: []string(nil): for 'in', 'notin' operators, "
        "values set can't be empty"}},
      {"Exists with values",
       api::NodeSelectorTerm{{Req("a", Op::kExists, {"x"})}, {}},
       {"t.matchExpressions[0].values: Invalid value: []string{\"x\"}: values set must be empty "
        "for exists and does not exist"}},
      {"Gt with two values, one not an integer",
       api::NodeSelectorTerm{{Req("a", Op::kGt, {"1", "x"})}, {}},
       {"t.matchExpressions[0].values: Invalid value: []string{\"1\", \"x\"}: for 'Gt', 'Lt' "
        "operators, exactly one value is required",
        "t.matchExpressions[0].values[1]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the "
        "value must be an integer"}},
      {"bad value",
       api::NodeSelectorTerm{{Req("a", Op::kNotIn, {"x y"})}, {}},
       {"t.matchExpressions[0].values[0][a]: Invalid value: \"x y\": a valid label must be an "
        "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
        "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"}},
      {"field with two values and any key",
       api::NodeSelectorTerm{{}, {Req("spec.foo", Op::kNotIn, {"a", "b"})}},
       {"t.matchFields[0].values: Invalid value: []string{\"a\", \"b\"}: must have one element"}},
      {"field with Gt",
       api::NodeSelectorTerm{{}, {Req("metadata.name", Op::kGt, {"1"})}},
       {"t.matchFields[0].operator: Unsupported value: \"Gt\": supported values: \"In\", "
        "\"NotIn\""}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::string> got;
    for (const api::FieldError& e : TermParseErrors(c.term, "t")) got.push_back(e.ToString());
    EXPECT_EQ(got, c.want);
    // The verdict agrees with the matcher's own parse check.
    EXPECT_EQ(got.empty(), api::IsWellFormed(c.term));
  }
}

TEST(NodeAffinityParseErrors, AggregateMessage) {
  const api::FieldError a = api::FieldError::Required("a", "x");
  const api::FieldError b = api::FieldError::Required("b", "y");
  EXPECT_EQ(AggregateMessage({}), "");
  EXPECT_EQ(AggregateMessage({a}), "a: Required value: x");
  EXPECT_EQ(AggregateMessage({a, a}), "a: Required value: x");
  EXPECT_EQ(AggregateMessage({a, b, a}), "[a: Required value: x, b: Required value: y]");
}

}  // namespace
}  // namespace muster::plugins::nodeaffinity
