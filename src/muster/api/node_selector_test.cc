#include "muster/api/node_selector.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace muster::api {
namespace {

constexpr auto kIn = SelectorOperator::kIn;
constexpr auto kNotIn = SelectorOperator::kNotIn;
constexpr auto kExists = SelectorOperator::kExists;
constexpr auto kDoesNotExist = SelectorOperator::kDoesNotExist;
constexpr auto kGt = SelectorOperator::kGt;
constexpr auto kLt = SelectorOperator::kLt;

SelectorRequirement Req(std::string_view key, SelectorOperator op,
                        std::vector<std::string_view> values = {}) {
  SelectorRequirement r;
  r.key = Symbol(key);
  r.op = op;
  for (std::string_view v : values) r.values.push_back(Symbol(v));
  return r;
}

SelectorRequirement NameIs(std::string_view name) { return Req(kNodeNameField, kIn, {name}); }

NodeSelectorTerm Term(std::vector<SelectorRequirement> expressions,
                      std::vector<SelectorRequirement> fields = {}) {
  NodeSelectorTerm term;
  term.match_expressions = std::move(expressions);
  term.match_fields = std::move(fields);
  return term;
}

struct MatchCase {
  std::string name;
  NodeSelector selector;
  LabelSet labels;
  std::string node_name;
  bool want;
};

std::vector<MatchCase> MatchCases() {
  const SelectorRequirement label_1 = Req("label_1", kIn, {"label_1_val"});
  const LabelSet with_label_1{{"label_1", "label_1_val"}};
  return {
      // nodeaffinity_test TestNodeSelectorMatch. Upstream's eager NewNodeSelector rejects the
      // first selector outright; the scheduler's lazy selector still lets its good term match.
      {"bad terms do not stop a good one, which fails on labels",
       {{Term({}, {Req(kNodeNameField, kIn, {"host_1", "host_2"})}),
         Term({label_1}, {NameIs("host_1")}), Term({Req("invalid key", kIn, {"label_value"})})}},
       {},
       "host_1",
       false},
      {"bad terms do not stop a good one, which matches",
       {{Term({}, {Req(kNodeNameField, kIn, {"host_1", "host_2"})}),
         Term({label_1}, {NameIs("host_1")}), Term({Req("invalid key", kIn, {"label_value"})})}},
       with_label_1,
       "host_1",
       true},
      {"node matches field selector, but not labels",
       {{Term({label_1}, {NameIs("host_1")})}},
       {},
       "host_1",
       false},
      {"node matches field selector and label selector",
       {{Term({label_1}, {NameIs("host_1")})}},
       with_label_1,
       "host_1",
       true},
      {"second term matches",
       {{Term({label_1}), Term({}, {NameIs("host_1")})}},
       {},
       "host_1",
       true},
      // helpers_test TestMatchNodeSelectorTerms.
      {"nil terms", {}, {}, "", false},
      {"node label matches matchExpressions terms", {{Term({label_1})}}, with_label_1, "", true},
      {"node field matches matchFields terms",
       {{Term({}, {NameIs("host_1")})}},
       {},
       "host_1",
       true},
      {"invalid node field requirement",
       {{Term({}, {Req(kNodeNameField, kIn, {"host_1", "host_2"})})}},
       {},
       "host_1",
       false},
      {"fieldSelectorTerm with node labels",
       {{Term({}, {NameIs("host_1")})}},
       {{"metadata.name", "host_1"}},
       "not_host_1",
       false},
      {"labelSelectorTerm with node fields",
       {{Term({Req("metadata.name", kIn, {"host_1"})})}},
       {},
       "host_1",
       false},
      {"labelSelectorTerm and fieldSelectorTerm, only node fields",
       {{Term({label_1}, {NameIs("host_1")})}},
       {},
       "host_1",
       false},
      {"labelSelectorTerm and fieldSelectorTerm, both matched",
       {{Term({label_1}, {NameIs("host_1")})}},
       with_label_1,
       "host_1",
       true},
      {"labelSelectorTerm and fieldSelectorTerm, one mismatched",
       {{Term({label_1}, {NameIs("host_1")})}},
       {{"label_1", "label_1_val-failed"}},
       "host_1",
       false},
      {"multi-selector, one term mismatched",
       {{Term({label_1}), Term({}, {NameIs("host_1")})}},
       {{"label_1", "label_1_val-failed"}},
       "host_1",
       true},
      // nodeaffinity_test TestPodMatchesNodeSelectorAndAffinityTerms.
      {"In matches", {{Term({Req("foo", kIn, {"bar", "value2"})})}}, {{"foo", "bar"}}, "", true},
      {"Gt matches",
       {{Term({Req("kernel-version", kGt, {"0204"})})}},
       {{"kernel-version", "0206"}},
       "",
       true},
      {"NotIn matches",
       {{Term({Req("mem-type", kNotIn, {"DDR", "DDR2"})})}},
       {{"mem-type", "DDR3"}},
       "",
       true},
      {"Exists matches", {{Term({Req("GPU", kExists)})}}, {{"GPU", "NVIDIA-GRID-K1"}}, "", true},
      {"In does not match",
       {{Term({Req("foo", kIn, {"value1", "value2"})})}},
       {{"foo", "bar"}},
       "",
       false},
      {"empty term list", {{}}, {{"foo", "bar"}}, "", false},
      {"term with empty matchExpressions", {{Term({})}}, {{"foo", "bar"}}, "", false},
      {"expressions ANDed, match",
       {{Term({Req("GPU", kExists), Req("GPU", kNotIn, {"AMD", "INTER"})})}},
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       true},
      {"expressions ANDed, no match",
       {{Term({Req("GPU", kExists), Req("GPU", kIn, {"AMD", "INTER"})})}},
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       false},
      {"terms ORed",
       {{Term({Req("foo", kIn, {"bar", "value2"})}),
         Term({Req("diffkey", kIn, {"wrong", "value2"})})}},
       {{"foo", "bar"}},
       "",
       true},
      {"invalid value in NotIn matches nothing",
       {{Term({Req("foo", kNotIn, {"invalid value: ___@#$%^"})})}},
       {{"foo", "bar"}},
       "",
       false},
      {"matchFields In, same node", {{Term({}, {NameIs("node_1")})}}, {}, "node_1", true},
      {"matchFields In, other node", {{Term({}, {NameIs("node_1")})}}, {}, "node_2", false},
      {"two terms: fields do not match, expressions do",
       {{Term({}, {NameIs("node_1")}), Term({Req("foo", kIn, {"bar"})})}},
       {{"foo", "bar"}},
       "node_2",
       true},
      {"one term: fields do not match, expressions do",
       {{Term({Req("foo", kIn, {"bar"})}, {NameIs("node_1")})}},
       {{"foo", "bar"}},
       "node_2",
       false},
      {"one term: both match",
       {{Term({Req("foo", kIn, {"bar"})}, {NameIs("node_1")})}},
       {{"foo", "bar"}},
       "node_1",
       true},
      {"two terms: neither matches",
       {{Term({}, {NameIs("node_1")}), Term({Req("foo", kIn, {"not-match-to-bar"})})}},
       {{"foo", "bar"}},
       "node_2",
       false},
      // TestNodeSelectorRequirementsAsSelector and TestRequirementConstructor.
      {"Exists with values does not parse",
       {{Term({Req("foo", kExists, {"bar", "baz"})})}},
       {{"foo", "bar"}},
       "",
       false},
      {"foo>1 on 2", {{Term({Req("foo", kGt, {"1"})})}}, {{"foo", "2"}}, "", true},
      {"foo>1 on 1", {{Term({Req("foo", kGt, {"1"})})}}, {{"foo", "1"}}, "", false},
      {"bar<7 on 6", {{Term({Req("bar", kLt, {"7"})})}}, {{"bar", "6"}}, "", true},
      {"bar<7 on 7", {{Term({Req("bar", kLt, {"7"})})}}, {{"bar", "7"}}, "", false},
      {"Gt operand that is not an integer",
       {{Term({Req("foo", kGt, {"bar"})})}},
       {{"foo", "2"}},
       "",
       false},
      {"Lt operand that is not an integer",
       {{Term({Req("barz", kLt, {"blah"})})}},
       {{"barz", "2"}},
       "",
       false},
      {"Gt with two operands", {{Term({Req("foo", kGt, {"1", "2"})})}}, {{"foo", "5"}}, "", false},
      {"Gt without operand", {{Term({Req("foo", kGt)})}}, {{"foo", "5"}}, "", false},
      {"negative operand is not a valid label value",
       {{Term({Req("foo", kGt, {"-1"})})}},
       {{"foo", "5"}},
       "",
       false},
      {"Gt on an absent label", {{Term({Req("foo", kGt, {"1"})})}}, {}, "", false},
      {"Gt on a label that is not an integer",
       {{Term({Req("z", kGt, {"1"})})}},
       {{"z", "v2"}},
       "",
       false},
      {"label values parse as Go's ParseInt does",
       {{Term({Req("z", kLt, {"1"})})}},
       {{"z", "-3"}},
       "",
       true},
      {"label beyond int64",
       {{Term({Req("z", kGt, {"1"})})}},
       {{"z", "99999999999999999999"}},
       "",
       false},
      {"largest operand",
       {{Term({Req("z", kGt, {"9223372036854775806"})})}},
       {{"z", "9223372036854775807"}},
       "",
       true},
      {"DoesNotExist on an absent label",
       {{Term({Req("taint", kDoesNotExist)})}},
       {{"a", "b"}},
       "",
       true},
      // How upstream treats node fields.
      {"fields are skipped for a node without a name",
       {{Term({}, {NameIs("node_1")})}},
       {},
       "",
       true},
      {"a malformed field still fails a node without a name",
       {{Term({}, {Req(kNodeNameField, kExists)})}},
       {},
       "",
       false},
      {"NotIn on the node name, other node",
       {{Term({}, {Req(kNodeNameField, kNotIn, {"node_1"})})}},
       {},
       "node_2",
       true},
      {"NotIn on the node name, same node",
       {{Term({}, {Req(kNodeNameField, kNotIn, {"node_1"})})}},
       {},
       "node_1",
       false},
      {"an unknown field reads as empty",
       {{Term({}, {Req("metadata.namespace", kIn, {""})})}},
       {},
       "node_1",
       true},
      {"an unknown field matches no value",
       {{Term({}, {Req("metadata.namespace", kIn, {"x"})})}},
       {},
       "node_1",
       false},
      {"an unknown field is not any value",
       {{Term({}, {Req("metadata.namespace", kNotIn, {"x"})})}},
       {},
       "node_1",
       true},
  };
}

TEST(NodeSelectorTest, MatchesLikeUpstream) {
  for (const MatchCase& c : MatchCases()) {
    const Symbol node_name(c.node_name);
    EXPECT_EQ(c.selector.Matches(c.labels, node_name), c.want) << c.name << " (unprepared)";
    NodeSelector prepared = c.selector;
    PrepareNodeSelector(prepared);
    EXPECT_EQ(prepared.Matches(c.labels, node_name), c.want) << c.name << " (prepared)";
    for (size_t i = 0; i < prepared.terms.size(); ++i) {
      EXPECT_NE(prepared.terms[i].prepared, Prepared::kNo) << c.name;
      EXPECT_EQ(IsWellFormed(prepared.terms[i]), IsWellFormed(c.selector.terms[i])) << c.name;
    }
  }
}

TEST(NodeSelectorTest, PrepareRecordsVerdictAndOperands) {
  NodeSelector selector{{Term({Req("kernel-version", kGt, {"0204"}), Req("x", kLt, {"7"})}),
                         Term({Req("x", kLt, {"abc"})}),
                         Term({}, {Req(kNodeNameField, kIn, {"a", "b"})})}};
  PrepareNodeSelector(selector);
  EXPECT_EQ(selector.terms[0].prepared, Prepared::kValid);
  EXPECT_EQ(selector.terms[0].match_expressions[0].bound, 204);
  EXPECT_EQ(selector.terms[0].match_expressions[1].bound, 7);
  EXPECT_EQ(selector.terms[1].prepared, Prepared::kInvalid);
  EXPECT_EQ(selector.terms[2].prepared, Prepared::kInvalid);
  // "+7" parses as an integer but is not a valid label value, so upstream refuses it.
  EXPECT_FALSE(IsWellFormed(Term({Req("x", kLt, {"+7"})})));

  // Matching a prepared term trusts the stored operand rather than re-parsing values[0].
  NodeSelectorTerm term = Term({Req("v", kGt, {"10"})});
  PrepareNodeSelectorTerm(term);
  term.match_expressions[0].bound = 100;
  EXPECT_FALSE(term.Matches(LabelSet{{"v", "50"}}, Symbol()));
}

TEST(NodeSelectorTest, PreferredTermsScoreLikeUpstream) {
  // TestPreferredSchedulingTermsScore "first and third term match".
  std::vector<PreferredSchedulingTerm> terms = {
      {5, Term({}, {NameIs("host_1")})},
      {7, Term({Req("unknown_label", kIn, {"unknown_label_val"})})},
      {11, Term({Req("label_1", kIn, {"label_1_val"})})},
  };
  PreparePreferredSchedulingTerms(terms);
  const LabelSet labels{{"label_1", "label_1_val"}};
  int64_t score = 0;
  for (const PreferredSchedulingTerm& t : terms) {
    if (t.preference.Matches(labels, Symbol("host_1"))) score += t.weight;
  }
  EXPECT_EQ(score, 16);
}

// ---- Validation ----

std::vector<std::string> Strings(const std::vector<FieldError>& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors) out.push_back(e.ToString());
  return out;
}

constexpr std::string_view kNamePartRegexError =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
constexpr std::string_view kLabelValueRegexError =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
    "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
constexpr std::string_view kSubdomainRegexError =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

TEST(NodeSelectorValidationTest, Requirements) {
  struct Case {
    std::string name;
    SelectorRequirement requirement;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"valid In", Req("zone", kIn, {"a", "b"}), {}},
      {"valid Gt", Req("cores", kGt, {"4"}), {}},
      {"In without values",
       Req("zone", kIn),
       {"r.values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
      {"NotIn without values",
       Req("zone", kNotIn),
       {"r.values: Required value: must be specified when `operator` is 'In' or 'NotIn'"}},
      {"Exists with values",
       Req("zone", kExists, {"a"}),
       {"r.values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"}},
      {"DoesNotExist with values",
       Req("zone", kDoesNotExist, {"a"}),
       {"r.values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"}},
      {"Gt with two values",
       Req("cores", kGt, {"1", "2"}),
       {"r.values: Required value: must be specified single value when `operator` is 'Lt' or "
        "'Gt'"}},
      {"Lt without values",
       Req("cores", kLt),
       {"r.values: Required value: must be specified single value when `operator` is 'Lt' or "
        "'Gt'"}},
      // The API server does not check that the operand is an integer; matching refuses it.
      {"Gt with a word", Req("cores", kGt, {"abc"}), {}},
      {"Gt with a negative number",
       Req("cores", kGt, {"-1"}),
       {"r.values[0]: Invalid value: \"-1\": " + std::string(kLabelValueRegexError)}},
      {"bad key",
       Req("invalid key", kExists),
       {"r.key: Invalid value: \"invalid key\": " + std::string(kNamePartRegexError)}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Strings(ValidateNodeSelectorRequirement(c.requirement, "r")), c.want) << c.name;
  }
}

TEST(NodeSelectorValidationTest, FieldRequirements) {
  struct Case {
    std::string name;
    SelectorRequirement requirement;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"valid In", NameIs("node-1"), {}},
      {"valid NotIn", Req(kNodeNameField, kNotIn, {"node-1"}), {}},
      {"two values",
       Req(kNodeNameField, kIn, {"a", "b"}),
       {"f.values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for "
        "node field selector"}},
      {"Exists",
       Req(kNodeNameField, kExists),
       {"f.operator: Invalid value: \"Exists\": not a valid selector operator"}},
      {"Gt",
       Req(kNodeNameField, kGt, {"1"}),
       {"f.operator: Invalid value: \"Gt\": not a valid selector operator"}},
      {"unknown field, values unchecked",
       Req("metadata.namespace", kIn, {"Bad_Name"}),
       {"f.key: Invalid value: \"metadata.namespace\": not a valid field selector key"}},
      {"node name that is not a DNS subdomain",
       NameIs("host_1"),
       {"f.values[0]: Invalid value: \"host_1\": " + std::string(kSubdomainRegexError)}},
      {"several errors, in upstream's order",
       Req("spec.nodeName", kNotIn),
       {"f.values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for "
        "node field selector",
        "f.key: Invalid value: \"spec.nodeName\": not a valid field selector key"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Strings(ValidateNodeFieldSelectorRequirement(c.requirement, "f")), c.want) << c.name;
  }
}

TEST(NodeSelectorValidationTest, SelectorsAndTerms) {
  const std::string p = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
  EXPECT_EQ(Strings(ValidateNodeSelector(NodeSelector{}, p)),
            std::vector<std::string>{p + ".nodeSelectorTerms: Required value: must have at least "
                                         "one node selector term"});
  const NodeSelector selector{
      {Term({Req("zone", kIn, {"a"})}),
       Term({Req("zone", kIn), Req("x", kExists)}, {Req(kNodeNameField, kExists)})}};
  EXPECT_EQ(Strings(ValidateNodeSelector(selector, p)),
            (std::vector<std::string>{
                p + ".nodeSelectorTerms[1].matchExpressions[0].values: Required value: must be "
                    "specified when `operator` is 'In' or 'NotIn'",
                p + ".nodeSelectorTerms[1].matchFields[0].operator: Invalid value: \"Exists\": not "
                    "a valid selector operator"}));
  // API validation accepts an empty term, which simply matches no node.
  EXPECT_TRUE(ValidateNodeSelector(NodeSelector{{Term({})}}, p).empty());
}

TEST(NodeSelectorValidationTest, PreferredSchedulingTerms) {
  const std::vector<PreferredSchedulingTerm> terms = {
      {0, Term({Req("a", kExists)})},   {1, Term({Req("a", kExists, {"x"})})},
      {100, Term({Req("a", kExists)})}, {101, Term({Req("a", kExists)})},
      {-3, Term({Req("a", kExists)})},
  };
  EXPECT_EQ(Strings(ValidatePreferredSchedulingTerms(terms, "pref")),
            (std::vector<std::string>{
                "pref[0].weight: Invalid value: 0: must be in the range 1-100",
                "pref[1].preference.matchExpressions[0].values: Forbidden: may not be specified "
                "when `operator` is 'Exists' or 'DoesNotExist'",
                "pref[3].weight: Invalid value: 101: must be in the range 1-100",
                "pref[4].weight: Invalid value: -3: must be in the range 1-100"}));
}

}  // namespace
}  // namespace muster::api
