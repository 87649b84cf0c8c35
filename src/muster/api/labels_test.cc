#include "muster/api/labels.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace muster::api {
namespace {

SelectorRequirement Req(std::string_view key, SelectorOperator op,
                        std::vector<std::string_view> values = {}) {
  SelectorRequirement r;
  r.key = Symbol(key);
  r.op = op;
  for (std::string_view v : values) r.values.push_back(Symbol(v));
  return r;
}

LabelSelector Selector(std::vector<std::pair<std::string_view, std::string_view>> match_labels,
                       std::vector<SelectorRequirement> match_expressions = {}) {
  LabelSelector s;
  for (const auto& [k, v] : match_labels) s.match_labels.emplace_back(Symbol(k), Symbol(v));
  s.match_expressions = std::move(match_expressions);
  return s;
}

constexpr auto kIn = SelectorOperator::kIn;
constexpr auto kNotIn = SelectorOperator::kNotIn;
constexpr auto kExists = SelectorOperator::kExists;
constexpr auto kDoesNotExist = SelectorOperator::kDoesNotExist;
constexpr auto kGt = SelectorOperator::kGt;
constexpr auto kLt = SelectorOperator::kLt;

// The name-part message upstream's nodeaffinity_test expects for the key "invalid key".
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

// ---- LabelSet ----

TEST(LabelSetTest, GetHasAndSet) {
  LabelSet labels;
  EXPECT_TRUE(labels.empty());
  EXPECT_EQ(labels.Get(Symbol("zone")), nullptr);
  EXPECT_FALSE(labels.Has(Symbol("zone")));

  labels.Set(Symbol("zone"), Symbol("a"));
  labels.Set(Symbol("rack"), Symbol("r1"));
  ASSERT_NE(labels.Get(Symbol("zone")), nullptr);
  EXPECT_EQ(*labels.Get(Symbol("zone")), Symbol("a"));
  EXPECT_EQ(*labels.Get(Symbol("rack")), Symbol("r1"));
  EXPECT_EQ(labels.size(), 2u);

  labels.Set(Symbol("zone"), Symbol("b"));
  EXPECT_EQ(*labels.Get(Symbol("zone")), Symbol("b"));
  EXPECT_EQ(labels.size(), 2u);
}

TEST(LabelSetTest, EmptyValueIsPresent) {
  const LabelSet labels{{"gpu", ""}};
  EXPECT_TRUE(labels.Has(Symbol("gpu")));
  ASSERT_NE(labels.Get(Symbol("gpu")), nullptr);
  EXPECT_TRUE(labels.Get(Symbol("gpu"))->empty());
}

TEST(LabelSetTest, IteratesInKeyIdOrder) {
  // Intern in a known order so that ids are ascending c, a, b.
  const Symbol c("labels_test_order_c"), a("labels_test_order_a"), b("labels_test_order_b");
  LabelSet labels;
  labels.Set(b, Symbol("2"));
  labels.Set(a, Symbol("1"));
  labels.Set(c, Symbol("3"));
  std::vector<Symbol> keys;
  for (const auto& [key, value] : labels) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<Symbol>{c, a, b}));
}

TEST(LabelSetTest, EqualityIgnoresInsertionOrderAndLastValueWins) {
  const LabelSet one{{"a", "1"}, {"b", "2"}};
  const LabelSet two{{"b", "2"}, {"a", "0"}, {"a", "1"}};
  EXPECT_EQ(one, two);
  EXPECT_EQ(two.size(), 2u);
  EXPECT_NE(one, (LabelSet{{"a", "1"}}));
  EXPECT_NE(one, (LabelSet{{"a", "1"}, {"b", "3"}}));
}

// ---- Syntax ----

TEST(LabelSyntaxTest, LabelKeys) {
  struct Case {
    std::string key;
    bool valid;
  };
  const std::vector<Case> cases = {
      {"x", true},
      {"1foo", true},
      {"1234", true},
      {"a.b_c-d", true},
      {"this-is-a-dns.domain.com/key-with-dash", true},
      {"0.1.2.domain/99", true},
      {"kubernetes.io/hostname", true},
      {std::string(63, 'a'), true},
      {"example.com/" + std::string(63, 'a'), true},
      {"", false},
      {"invalid key", false},
      {"-a", false},
      {"a-", false},
      {"a/b/c", false},
      {"/a", false},
      {"a/", false},
      {"Example.com/a", false},
      {"ex_ample.com/a", false},
      {std::string(64, 'a'), false},
      {std::string(254, 'a'), false},  // upstream TestRequirementConstructor
      {std::string(254, 'a') + "/b", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(IsValidLabelKey(c.key), c.valid) << c.key;
    EXPECT_EQ(LabelKeyErrors(c.key).empty(), c.valid) << c.key;
  }
}

TEST(LabelSyntaxTest, LabelKeyMessages) {
  EXPECT_EQ(LabelKeyErrors("invalid key"),
            std::vector<std::string>{std::string(kNamePartRegexError)});
  EXPECT_EQ(LabelKeyErrors("a/b/c"),
            std::vector<std::string>{
                "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and "
                "must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  "
                "or '123-abc', regex used for validation is "
                "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix "
                "and '/' (e.g. 'example.com/MyName')"});
  EXPECT_EQ(LabelKeyErrors("/a"), std::vector<std::string>{"prefix part must be non-empty"});
  EXPECT_EQ(LabelKeyErrors("a/"), (std::vector<std::string>{"name part must be non-empty",
                                                            std::string(kNamePartRegexError)}));
  EXPECT_EQ(LabelKeyErrors("Example.com/a"),
            std::vector<std::string>{"prefix part " + std::string(kSubdomainRegexError)});
  EXPECT_EQ(LabelKeyErrors(std::string(64, 'a')),
            std::vector<std::string>{"name part must be no more than 63 bytes"});
}

TEST(LabelSyntaxTest, LabelValues) {
  struct Case {
    std::string value;
    bool valid;
  };
  const std::vector<Case> cases = {
      {"", true},
      {"MyValue", true},
      {"my_value", true},
      {"12345", true},
      {"a.b-c_d", true},
      {std::string(63, 'v'), true},
      {"-a", false},
      {"a-", false},
      {"a b", false},
      {"a/b", false},
      {"invalid value: ___@#$%^", false},
      {std::string(64, 'v'), false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(IsValidLabelValue(c.value), c.valid) << c.value;
    EXPECT_EQ(LabelValueErrors(c.value).empty(), c.valid) << c.value;
  }
  EXPECT_EQ(LabelValueErrors("-a"), std::vector<std::string>{std::string(kLabelValueRegexError)});
  EXPECT_EQ(LabelValueErrors(std::string(64, 'v')),
            std::vector<std::string>{"must be no more than 63 bytes"});
}

TEST(LabelSyntaxTest, Dns1123Subdomains) {
  EXPECT_TRUE(Dns1123SubdomainErrors("example.com").empty());
  EXPECT_TRUE(Dns1123SubdomainErrors("node-1").empty());
  EXPECT_EQ(Dns1123SubdomainErrors("host_1"),
            std::vector<std::string>{std::string(kSubdomainRegexError)});
  EXPECT_EQ(Dns1123SubdomainErrors("a..b"),
            std::vector<std::string>{std::string(kSubdomainRegexError)});
  EXPECT_EQ(Dns1123SubdomainErrors(""),
            std::vector<std::string>{std::string(kSubdomainRegexError)});
  EXPECT_EQ(Dns1123SubdomainErrors(std::string(254, 'a')),
            (std::vector<std::string>{"must be no more than 253 bytes"}));
}

TEST(LabelSyntaxTest, ParseLabelIntFollowsGoParseInt) {
  struct Case {
    std::string text;
    std::optional<int64_t> want;
  };
  const std::vector<Case> cases = {
      {"0", 0},
      {"7", 7},
      {"0204", 204},
      {"-5", -5},
      {"+5", 5},
      {"-0", 0},
      {"9223372036854775807", INT64_MAX},
      {"-9223372036854775808", INT64_MIN},
      {"9223372036854775808", std::nullopt},
      {"-9223372036854775809", std::nullopt},
      {"", std::nullopt},
      {"+", std::nullopt},
      {"-", std::nullopt},
      {"+-5", std::nullopt},
      {"--5", std::nullopt},
      {"1.5", std::nullopt},
      {" 1", std::nullopt},
      {"1 ", std::nullopt},
      {"0x10", std::nullopt},
      {"1_000", std::nullopt},
      {"v2", std::nullopt},
  };
  for (const Case& c : cases) EXPECT_EQ(ParseLabelInt(c.text), c.want) << c.text;
}

TEST(SelectorOperatorTest, NamesRoundTrip) {
  for (SelectorOperator op : {kIn, kNotIn, kExists, kDoesNotExist, kGt, kLt}) {
    EXPECT_EQ(ParseSelectorOperator(SelectorOperatorName(op)), op);
  }
  EXPECT_EQ(SelectorOperatorName(kDoesNotExist), "DoesNotExist");
  EXPECT_EQ(ParseSelectorOperator("in"), std::nullopt);
  EXPECT_EQ(ParseSelectorOperator(""), std::nullopt);
  EXPECT_EQ(ParseSelectorOperator("Equals"), std::nullopt);
}

// ---- Matching ----

struct MatchCase {
  std::string name;
  LabelSet labels;
  LabelSelector selector;
  bool want;
};

std::vector<MatchCase> MatchCases() {
  const LabelSet foo_baz{{"foo", "bar"}, {"baz", "blah"}};
  return {
      // labels_test TestEverything / TestSelectorMatches / TestSetMatches.
      {"empty selector matches everything", {{"x", "y"}}, {}, true},
      {"empty selector matches no labels", {}, {}, true},
      {"x=y", {{"x", "y"}}, Selector({{"x", "y"}}), true},
      {"x=y,z=w", {{"x", "y"}, {"z", "w"}}, Selector({{"x", "y"}, {"z", "w"}}), true},
      {"x!=y,z!=w",
       {{"x", "z"}, {"z", "a"}},
       Selector({}, {Req("x", kNotIn, {"y"}), Req("z", kNotIn, {"w"})}),
       true},
      {"notin=in", {{"notin", "in"}}, Selector({{"notin", "in"}}), true},
      {"x exists", {{"x", "z"}}, Selector({}, {Req("x", kExists)}), true},
      {"!x", {{"y", "z"}}, Selector({}, {Req("x", kDoesNotExist)}), true},
      {"x=z on no labels", {}, Selector({{"x", "z"}}), false},
      {"x=y on x=z", {{"x", "z"}}, Selector({{"x", "y"}}), false},
      {"x=y,z=w on x=w", {{"x", "w"}, {"z", "w"}}, Selector({{"x", "y"}, {"z", "w"}}), false},
      {"x!=y,z!=w on z=w",
       {{"x", "z"}, {"z", "w"}},
       Selector({}, {Req("x", kNotIn, {"y"}), Req("z", kNotIn, {"w"})}),
       false},
      {"x exists, absent", {{"y", "z"}}, Selector({}, {Req("x", kExists)}), false},
      {"!x, present", {{"x", "z"}}, Selector({}, {Req("x", kDoesNotExist)}), false},
      {"foo=bar", foo_baz, Selector({{"foo", "bar"}}), true},
      {"baz=blah", foo_baz, Selector({{"baz", "blah"}}), true},
      {"foo=bar,baz=blah", foo_baz, Selector({{"foo", "bar"}, {"baz", "blah"}}), true},
      {"foo=blah", foo_baz, Selector({{"foo", "blah"}}), false},
      {"baz=bar", foo_baz, Selector({{"baz", "bar"}}), false},
      {"foo=bar,foobar=bar,baz=blah", foo_baz,
       Selector({{"foo", "bar"}, {"foobar", "bar"}, {"baz", "blah"}}), false},
      // TestRequirementSelectorMatching.
      {"x in (foo), y notin (alpha)",
       {{"x", "foo"}, {"y", "baz"}},
       Selector({}, {Req("x", kIn, {"foo"}), Req("y", kNotIn, {"alpha"})}),
       true},
      {"x in (foo), y in (alpha)",
       {{"x", "foo"}, {"y", "baz"}},
       Selector({}, {Req("x", kIn, {"foo"}), Req("y", kIn, {"alpha"})}),
       false},
      {"x notin (), y exists",
       {{"y", ""}},
       Selector({}, {Req("x", kNotIn, {""}), Req("y", kExists)}),
       true},
      {"!x, y exists",
       {{"y", ""}},
       Selector({}, {Req("x", kDoesNotExist), Req("y", kExists)}),
       true},
      {"x notin (), !y",
       {{"y", ""}},
       Selector({}, {Req("x", kNotIn, {""}), Req("y", kDoesNotExist)}),
       false},
      {"x in () on absent x", {{"y", "baz"}}, Selector({}, {Req("x", kIn, {""})}), false},
      {"x in () on empty x", {{"x", ""}}, Selector({}, {Req("x", kIn, {""})}), true},
      {"in matches any listed value",
       {{"x", "b"}},
       Selector({}, {Req("x", kIn, {"a", "b"})}),
       true},
      {"matchLabels and expressions are ANDed",
       {{"app", "web"}, {"tier", "front"}},
       Selector({{"app", "web"}}, {Req("tier", kIn, {"back"})}),
       false},
      {"prefixed keys",
       {{"this-is-a-dns.domain.com/key-with-dash", "so"}},
       Selector({}, {Req("this-is-a-dns.domain.com/key-with-dash", kIn, {"so", "what"})}),
       true},
      // Selectors LabelSelectorAsSelector refuses, which therefore match nothing.
      {"Gt is not a label selector operator",
       {{"x", "2"}},
       Selector({}, {Req("x", kGt, {"1"})}),
       false},
      {"Lt is not a label selector operator",
       {{"x", "0"}},
       Selector({}, {Req("x", kLt, {"1"})}),
       false},
      {"In without values", {{"x", "a"}}, Selector({}, {Req("x", kIn)}), false},
      {"NotIn without values", {}, Selector({}, {Req("x", kNotIn)}), false},
      {"Exists with values", {{"x", "a"}}, Selector({}, {Req("x", kExists, {"a"})}), false},
      {"DoesNotExist with an invalid key",
       {},
       Selector({}, {Req("invalid key", kDoesNotExist)}),
       false},
      {"key longer than a DNS subdomain",
       {},
       Selector({}, {Req(std::string(254, 'a'), kDoesNotExist)}),
       false},
      {"NotIn with an invalid value",
       {{"foo", "bar"}},
       Selector({}, {Req("foo", kNotIn, {"invalid value: ___@#$%^"})}),
       false},
      {"matchLabels with an invalid key", {{"a b", "c"}}, Selector({{"a b", "c"}}), false},
      {"matchLabels with an invalid value", {{"a", "-c"}}, Selector({{"a", "-c"}}), false},
      {"one bad requirement spoils the selector",
       {{"x", "foo"}},
       Selector({{"x", "foo"}}, {Req("y", kDoesNotExist), Req("z", kIn)}),
       false},
  };
}

TEST(LabelSelectorTest, MatchesLikeUpstream) {
  for (const MatchCase& c : MatchCases()) {
    EXPECT_EQ(c.selector.Matches(c.labels), c.want) << c.name << " (unprepared)";
    LabelSelector prepared = c.selector;
    PrepareLabelSelector(prepared);
    EXPECT_NE(prepared.prepared, Prepared::kNo) << c.name;
    EXPECT_EQ(prepared.Matches(c.labels), c.want) << c.name << " (prepared)";
    EXPECT_EQ(IsWellFormed(prepared), IsWellFormed(c.selector)) << c.name;
  }
}

TEST(LabelSelectorTest, EmptyAndWellFormed) {
  EXPECT_TRUE(LabelSelector{}.Empty());
  EXPECT_FALSE(Selector({{"a", "b"}}).Empty());
  EXPECT_FALSE(Selector({}, {Req("a", kExists)}).Empty());

  EXPECT_TRUE(IsWellFormed(LabelSelector{}));
  EXPECT_TRUE(IsWellFormed(Selector({{"a", "b"}}, {Req("c", kNotIn, {"d", ""})})));
  EXPECT_FALSE(IsWellFormed(Selector({}, {Req("c", kGt, {"1"})})));

  LabelSelector bad = Selector({}, {Req("c", kIn)});
  PrepareLabelSelector(bad);
  EXPECT_EQ(bad.prepared, Prepared::kInvalid);
  LabelSelector good = Selector({}, {Req("c", kIn, {"d"})});
  PrepareLabelSelector(good);
  EXPECT_EQ(good.prepared, Prepared::kValid);
}

TEST(LabelSelectorTest, PreparedVerdictIsTrusted) {
  // The recorded verdict is what matching uses, which is why Prepare must follow the last edit.
  LabelSelector selector = Selector({{"a", "b"}});
  selector.prepared = Prepared::kInvalid;
  EXPECT_FALSE(selector.Matches(LabelSet{{"a", "b"}}));
}

// ---- Validation ----

TEST(FieldErrorTest, Rendering) {
  EXPECT_EQ(FieldError::Required("a.b", "must be set").ToString(),
            "a.b: Required value: must be set");
  EXPECT_EQ(FieldError::Forbidden("a", "no").ToString(), "a: Forbidden: no");
  EXPECT_EQ(FieldError::Invalid("a[0]", "x y", "bad").ToString(),
            "a[0]: Invalid value: \"x y\": bad");
  EXPECT_EQ(FieldError::InvalidRendered("w", "101", "too big").ToString(),
            "w: Invalid value: 101: too big");
  // Upstream leaves the ": detail" off when there is none.
  EXPECT_EQ(FieldError::Required("a", "").ToString(), "a: Required value");
  EXPECT_EQ(ChildPath("", "spec"), "spec");
  EXPECT_EQ(ChildPath("spec", "selector"), "spec.selector");
  EXPECT_EQ(IndexPath("terms", 3), "terms[3]");
  EXPECT_EQ(IndexPath("", 0), "[0]");
  EXPECT_EQ(GoQuote("plain"), "\"plain\"");
  EXPECT_EQ(GoQuote("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\x01\"");
}

struct ValidationCase {
  std::string name;
  LabelSelector selector;
  std::vector<std::string> want;  // FieldError::ToString() of each error, in order
};

TEST(LabelSelectorValidationTest, UpstreamMessages) {
  const std::string p = "spec.selector";
  const std::vector<ValidationCase> cases = {
      {"valid", Selector({{"app", "web"}}, {Req("tier", kIn, {"a", "b"}), Req("x", kExists)}), {}},
      {"empty", {}, {}},
      {"In without values",
       Selector({}, {Req("x", kIn)}),
       {"spec.selector.matchExpressions[0].values: Required value: must be specified when "
        "`operator` is 'In' or 'NotIn'"}},
      {"NotIn without values",
       Selector({}, {Req("x", kExists), Req("y", kNotIn)}),
       {"spec.selector.matchExpressions[1].values: Required value: must be specified when "
        "`operator` is 'In' or 'NotIn'"}},
      {"Exists with values",
       Selector({}, {Req("x", kExists, {"a"})}),
       {"spec.selector.matchExpressions[0].values: Forbidden: may not be specified when "
        "`operator` is 'Exists' or 'DoesNotExist'"}},
      {"DoesNotExist with values",
       Selector({}, {Req("x", kDoesNotExist, {"a"})}),
       {"spec.selector.matchExpressions[0].values: Forbidden: may not be specified when "
        "`operator` is 'Exists' or 'DoesNotExist'"}},
      {"Gt",
       Selector({}, {Req("x", kGt, {"1"})}),
       {"spec.selector.matchExpressions[0].operator: Invalid value: \"Gt\": not a valid selector "
        "operator"}},
      {"Lt",
       Selector({}, {Req("x", kLt, {"1"})}),
       {"spec.selector.matchExpressions[0].operator: Invalid value: \"Lt\": not a valid selector "
        "operator"}},
      {"bad key",
       Selector({}, {Req("invalid key", kExists)}),
       {"spec.selector.matchExpressions[0].key: Invalid value: \"invalid key\": " +
        std::string(kNamePartRegexError)}},
      {"bad value",
       Selector({}, {Req("x", kIn, {"ok", "-bad"})}),
       {"spec.selector.matchExpressions[0].values[1]: Invalid value: \"-bad\": " +
        std::string(kLabelValueRegexError)}},
      {"operator, then key, then values",
       Selector({}, {Req("/k", kExists, {"-v"})}),
       {"spec.selector.matchExpressions[0].values: Forbidden: may not be specified when "
        "`operator` is 'Exists' or 'DoesNotExist'",
        "spec.selector.matchExpressions[0].key: Invalid value: \"/k\": prefix part must be "
        "non-empty",
        "spec.selector.matchExpressions[0].values[0]: Invalid value: \"-v\": " +
            std::string(kLabelValueRegexError)}},
      {"matchLabels errors sit on the map",
       Selector({{"a b", "-c"}}),
       {"spec.selector.matchLabels: Invalid value: \"a b\": " + std::string(kNamePartRegexError),
        "spec.selector.matchLabels: Invalid value: \"-c\": " + std::string(kLabelValueRegexError)}},
  };
  for (const ValidationCase& c : cases) {
    std::vector<std::string> got;
    for (const FieldError& e : ValidateLabelSelector(c.selector, p)) got.push_back(e.ToString());
    EXPECT_EQ(got, c.want) << c.name;
  }
}

TEST(LabelSelectorValidationTest, ErrorKindsAndRootPath) {
  const std::vector<FieldError> errors = ValidateLabelSelector(Selector({}, {Req("x", kIn)}), "");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].type, FieldError::Type::kRequired);
  EXPECT_EQ(errors[0].path, "matchExpressions[0].values");
  EXPECT_EQ(errors[0].message,
            "Required value: must be specified when `operator` is 'In' or 'NotIn'");
  // The path argument defaults to empty, giving paths relative to the selector.
  EXPECT_EQ(ValidateLabelSelector(Selector({}, {Req("x", kIn)})), errors);
}

}  // namespace
}  // namespace muster::api
