#include "muster/api/taints.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/feature_gates.h"

namespace muster::api {
namespace {

constexpr auto kNoSchedule = TaintEffect::kNoSchedule;
constexpr auto kPreferNoSchedule = TaintEffect::kPreferNoSchedule;
constexpr auto kNoExecute = TaintEffect::kNoExecute;
constexpr auto kEqual = TolerationOperator::kEqual;
constexpr auto kExists = TolerationOperator::kExists;

Taint MakeTaint(std::string_view key, std::string_view value, TaintEffect effect) {
  return Taint{Symbol(key), Symbol(value), effect};
}

Toleration MakeToleration(std::string_view key, TolerationOperator op, std::string_view value,
                          std::optional<TaintEffect> effect,
                          std::optional<int64_t> seconds = std::nullopt) {
  return Toleration{Symbol(key), op, Symbol(value), effect, seconds};
}

TEST(TaintEffectTest, NamesRoundTrip) {
  for (TaintEffect e : {kNoSchedule, kPreferNoSchedule, kNoExecute}) {
    EXPECT_EQ(ParseTaintEffect(TaintEffectName(e)), e);
  }
  EXPECT_EQ(TaintEffectName(kPreferNoSchedule), "PreferNoSchedule");
  EXPECT_EQ(ParseTaintEffect(""), std::nullopt);
  EXPECT_EQ(ParseTaintEffect("noschedule"), std::nullopt);
  EXPECT_EQ(ParseTaintEffect("NoScheduleNoAdmit"), std::nullopt);
}

TEST(TolerationOperatorTest, NamesRoundTrip) {
  EXPECT_EQ(ParseTolerationOperator(""), kEqual);
  EXPECT_EQ(ParseTolerationOperator("Equal"), kEqual);
  EXPECT_EQ(ParseTolerationOperator("Exists"), kExists);
  EXPECT_EQ(ParseTolerationOperator("exists"), std::nullopt);
  EXPECT_EQ(ParseTolerationOperator("Gt"), TolerationOperator::kGt);
  EXPECT_EQ(ParseTolerationOperator("Lt"), TolerationOperator::kLt);
  EXPECT_EQ(ParseTolerationOperator("gt"), std::nullopt);
  EXPECT_EQ(TolerationOperatorName(kEqual), "Equal");
  EXPECT_EQ(TolerationOperatorName(kExists), "Exists");
  EXPECT_EQ(TolerationOperatorName(TolerationOperator::kGt), "Gt");
  EXPECT_EQ(TolerationOperatorName(TolerationOperator::kLt), "Lt");
}

TEST(TolerationTest, ToleratesTaintLikeUpstream) {
  struct Case {
    std::string name;
    Toleration toleration;
    Taint taint;
    bool want;
  };
  const std::vector<Case> cases = {
      // toleration_test.go TestTolerationToleratesTaint.
      {"same key and effect, Exists, taint without value",
       MakeToleration("foo", kExists, "", kNoSchedule), MakeTaint("foo", "", kNoSchedule), true},
      {"same key and effect, Exists, taint with value",
       MakeToleration("foo", kExists, "", kNoSchedule), MakeTaint("foo", "bar", kNoSchedule), true},
      {"empty key with Exists matches every key", MakeToleration("", kExists, "", kNoSchedule),
       MakeTaint("foo", "bar", kNoSchedule), true},
      {"same key, effect and value, Equal", MakeToleration("foo", kEqual, "bar", kNoSchedule),
       MakeTaint("foo", "bar", kNoSchedule), true},
      {"different values, Equal", MakeToleration("foo", kEqual, "value1", kNoSchedule),
       MakeTaint("foo", "value2", kNoSchedule), false},
      {"different effects", MakeToleration("foo", kEqual, "bar", kNoSchedule),
       MakeTaint("foo", "bar", kNoExecute), false},
      // The remaining rules of ToleratesTaint.
      {"empty effect matches every effect", MakeToleration("foo", kExists, "", std::nullopt),
       MakeTaint("foo", "bar", kNoExecute), true},
      {"empty effect with Equal still needs the value",
       MakeToleration("foo", kEqual, "bar", std::nullopt), MakeTaint("foo", "baz", kNoExecute),
       false},
      {"different keys", MakeToleration("foo", kExists, "", kNoSchedule),
       MakeTaint("bar", "", kNoSchedule), false},
      {"empty key with Equal matches any key with that value",
       MakeToleration("", kEqual, "bar", std::nullopt), MakeTaint("anything", "bar", kNoSchedule),
       true},
      {"empty key with Equal and another value", MakeToleration("", kEqual, "bar", std::nullopt),
       MakeTaint("anything", "baz", kNoSchedule), false},
      {"Equal with empty values on both sides", MakeToleration("foo", kEqual, "", kNoSchedule),
       MakeTaint("foo", "", kNoSchedule), true},
      {"match everything", MakeToleration("", kExists, "", std::nullopt),
       MakeTaint("node.kubernetes.io/unreachable", "", kNoExecute), true},
  };
  for (const Case& c : cases) EXPECT_EQ(c.toleration.Tolerates(c.taint), c.want) << c.name;
}

TEST(TolerationTest, TolerationsTolerateTaint) {
  const Taint taint = MakeTaint("dedicated", "gpu", kNoSchedule);
  EXPECT_FALSE(TolerationsTolerateTaint({}, taint));
  const std::vector<Toleration> tolerations = {
      MakeToleration("other", kExists, "", std::nullopt),
      MakeToleration("dedicated", kEqual, "gpu", kNoSchedule),
  };
  EXPECT_TRUE(TolerationsTolerateTaint(tolerations, taint));
  EXPECT_FALSE(TolerationsTolerateTaint(tolerations, MakeTaint("dedicated", "cpu", kNoSchedule)));
}

// KEP-5471: upstream's TestTolerationToleratesTaint and TestCompareNumericValues cases. The
// taint's value is compared with the toleration's: Gt tolerates a greater one, Lt a smaller.
TEST(TolerationTest, ComparisonOperatorsLikeUpstream) {
  FeatureGates gates;
  gates.Set(Feature::kTaintTolerationComparisonOperators, true);
  ScopedFeatures scoped(gates);
  constexpr auto kGt = TolerationOperator::kGt;
  constexpr auto kLt = TolerationOperator::kLt;
  struct Case {
    TolerationOperator op;
    std::string toleration;
    std::string taint;
    bool want;
  };
  const std::vector<Case> cases = {
      {kGt, "950", "800", false},
      {kGt, "750", "950", true},
      {kLt, "800", "950", false},
      {kLt, "950", "800", true},
      {kGt, "950", "950", false},
      {kLt, "950", "950", false},
      {kGt, "950", "high", false},
      {kGt, "-100", "-200", false},
      {kGt, "9223372036854775806", "100", false},
      {kGt, "100", "200", true},
      {kGt, "-100", "-50", true},
      {kGt, "0", "1", true},
      {kGt, "9223372036854775806", "9223372036854775807", true},
      {kLt, "200", "100", true},
      {kLt, "0", "-1", true},
      {kLt, "0", "-9223372036854775808", true},
      {kGt, "0", "0", false},
      {kLt, "0", "0", false},
      // Values that are not canonical integers tolerate nothing, on either side.
      {kGt, "abc", "200", false},
      {kGt, "", "200", false},
      {kGt, "0100", "200", false},
      {kGt, "+100", "200", false},
      {kLt, "100.5", "1", false},
      {kGt, "-", "200", false},
      {kGt, "100", "xyz", false},
      {kGt, "100", "", false},
      {kGt, "100", "0200", false},
      {kGt, "100", "+200", false},
      {kGt, "100", " 200 ", false},
      {kGt, "100", "9223372036854775808", false},
      {kLt, "0", "-0", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MakeToleration("sla", c.op, c.toleration, kNoSchedule)
                  .Tolerates(MakeTaint("sla", c.taint, kNoSchedule)),
              c.want)
        << TolerationOperatorName(c.op) << " " << c.toleration << " / taint " << c.taint;
  }
  // Key and effect rules are Equal's.
  EXPECT_FALSE(
      MakeToleration("sla", kGt, "1", kNoSchedule).Tolerates(MakeTaint("other", "5", kNoSchedule)));
  EXPECT_FALSE(
      MakeToleration("sla", kGt, "1", kNoSchedule).Tolerates(MakeTaint("sla", "5", kNoExecute)));
  EXPECT_TRUE(
      MakeToleration("sla", kGt, "1", std::nullopt).Tolerates(MakeTaint("sla", "5", kNoExecute)));
}

TEST(TolerationTest, ComparisonOperatorsTolerateNothingWithTheirGateOff) {
  ASSERT_FALSE(Features().Enabled(Feature::kTaintTolerationComparisonOperators));
  EXPECT_FALSE(MakeToleration("sla", TolerationOperator::kGt, "1", kNoSchedule)
                   .Tolerates(MakeTaint("sla", "5", kNoSchedule)));
  EXPECT_FALSE(MakeToleration("sla", TolerationOperator::kLt, "9", kNoSchedule)
                   .Tolerates(MakeTaint("sla", "5", kNoSchedule)));
}

TEST(TolerationValidationTest, ComparisonOperators) {
  auto validate = [](TolerationOperator op, std::string_view value) {
    std::vector<std::string> got;
    const std::vector<Toleration> one = {MakeToleration("sla", op, value, kNoSchedule)};
    for (const FieldError& e : ValidateTolerations(one, "t")) got.push_back(e.ToString());
    return got;
  };
  // With the gate off (1.37's default) the API server refuses them as an operator, naming all
  // four.
  EXPECT_EQ(validate(TolerationOperator::kGt, "5"),
            std::vector<std::string>{"t[0].operator: Unsupported value: \"Gt\": supported values: "
                                     "\"Equal\", \"Exists\", \"Lt\", \"Gt\""});
  FeatureGates gates;
  gates.Set(Feature::kTaintTolerationComparisonOperators, true);
  ScopedFeatures scoped(gates);
  EXPECT_TRUE(validate(TolerationOperator::kGt, "5").empty());
  EXPECT_TRUE(validate(TolerationOperator::kLt, "-9223372036854775808").empty());
  EXPECT_EQ(validate(TolerationOperator::kGt, "0100"),
            std::vector<std::string>{
                "t[0].value: Invalid value: \"0100\": must be a valid decimal integer in "
                "canonical form"});
  EXPECT_EQ(validate(TolerationOperator::kLt, "abc"),
            (std::vector<std::string>{
                "t[0].value: Invalid value: \"abc\": must be a valid decimal integer in "
                "canonical form",
                "t[0].value: Invalid value: \"abc\": strconv.ParseInt: parsing \"abc\": invalid "
                "syntax"}));
  EXPECT_EQ(
      validate(TolerationOperator::kLt, ""),
      (std::vector<std::string>{
          "t[0].value: Invalid value: \"\": must be non-empty",
          "t[0].value: Invalid value: \"\": strconv.ParseInt: parsing \"\": invalid syntax"}));
  EXPECT_EQ(validate(TolerationOperator::kGt, "99999999999999999999"),
            std::vector<std::string>{
                "t[0].value: Invalid value: \"99999999999999999999\": strconv.ParseInt: parsing "
                "\"99999999999999999999\": value out of range"});
}

bool KeepAll(const Taint&) { return true; }
bool KeepNone(const Taint&) { return false; }
bool KeepNoExecute(const Taint& t) { return t.effect == kNoExecute; }

TEST(TolerationTest, FindMatchingUntoleratedTaintLikeUpstream) {
  struct Case {
    std::string name;
    std::vector<Toleration> tolerations;
    std::vector<Taint> taints;
    bool (*filter)(const Taint&);  // nullptr: every taint, as upstream's nil filter
    bool want_tolerated;
  };
  const Toleration foo_no_schedule = MakeToleration("foo", kExists, "", kNoSchedule);
  // helpers_test.go TestFindMatchingUntoleratedTaint.
  const std::vector<Case> cases = {
      {"empty tolerations tolerate empty taints", {}, {}, KeepAll, true},
      {"non-empty tolerations tolerate empty taints", {foo_no_schedule}, {}, KeepAll, true},
      {"tolerations match all taints",
       {foo_no_schedule},
       {MakeTaint("foo", "", kNoSchedule)},
       KeepAll,
       true},
      {"tolerations don't match taints, but no taints apply to the filter",
       {foo_no_schedule},
       {MakeTaint("bar", "", kNoSchedule)},
       KeepNone,
       true},
      {"no filter, tolerations don't match taints",
       {foo_no_schedule},
       {MakeTaint("bar", "", kNoSchedule)},
       nullptr,
       false},
      {"tolerations match the filtered taints",
       {MakeToleration("foo", kExists, "", kNoExecute)},
       {MakeTaint("foo", "", kNoExecute), MakeTaint("bar", "", kNoSchedule)},
       KeepNoExecute,
       true},
  };
  for (const Case& c : cases) {
    const Taint* got = c.filter == nullptr
                           ? FindMatchingUntoleratedTaint(c.taints, c.tolerations)
                           : FindMatchingUntoleratedTaint(c.taints, c.tolerations, c.filter);
    EXPECT_EQ(got == nullptr, c.want_tolerated) << c.name;
  }
}

TEST(TolerationTest, FindMatchingUntoleratedTaintReturnsTheFirstOne) {
  const std::vector<Taint> taints = {
      MakeTaint("soft", "", kPreferNoSchedule),
      MakeTaint("tolerated", "", kNoSchedule),
      MakeTaint("first", "x", kNoExecute),
      MakeTaint("second", "y", kNoSchedule),
  };
  const std::vector<Toleration> tolerations = {
      MakeToleration("tolerated", kExists, "", kNoSchedule)};
  const Taint* got = FindMatchingUntoleratedTaint(taints, tolerations, BlocksScheduling);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got, &taints[2]);  // points into the node's taints, no copy

  // Without a filter the PreferNoSchedule taint comes first.
  EXPECT_EQ(FindMatchingUntoleratedTaint(taints, tolerations), &taints[0]);

  // A lambda works as a filter too.
  const Taint* second = FindMatchingUntoleratedTaint(
      taints, tolerations, [](const Taint& t) { return t.key == Symbol("second"); });
  EXPECT_EQ(second, &taints[3]);
}

TEST(TolerationTest, BlocksScheduling) {
  EXPECT_TRUE(BlocksScheduling(MakeTaint("a", "", kNoSchedule)));
  EXPECT_TRUE(BlocksScheduling(MakeTaint("a", "", kNoExecute)));
  EXPECT_FALSE(BlocksScheduling(MakeTaint("a", "", kPreferNoSchedule)));
}

// ---- Validation ----

constexpr std::string_view kLabelValueRegexError =
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
    "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
constexpr std::string_view kNamePartRegexError =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

TEST(TolerationValidationTest, UpstreamMessages) {
  struct Case {
    std::string name;
    Toleration toleration;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"Equal with key and value", MakeToleration("foo", kEqual, "bar", kNoSchedule), {}},
      {"Exists with key", MakeToleration("foo", kExists, "", std::nullopt), {}},
      {"match everything", MakeToleration("", kExists, "", std::nullopt), {}},
      {"tolerationSeconds with NoExecute", MakeToleration("foo", kExists, "", kNoExecute, 300), {}},
      {"Equal with an empty value", MakeToleration("foo", kEqual, "", kNoSchedule), {}},
      {"bad key",
       MakeToleration("invalid key", kExists, "", std::nullopt),
       {"t[0].key: Invalid value: \"invalid key\": " + std::string(kNamePartRegexError)}},
      {"empty key with Equal",
       MakeToleration("", kEqual, "", kNoSchedule),
       {"t[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, "
        "which means \"match all values and all keys\""}},
      {"tolerationSeconds with NoSchedule",
       MakeToleration("foo", kExists, "", kNoSchedule, 60),
       {"t[0].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when "
        "`tolerationSeconds` is set"}},
      {"tolerationSeconds with every effect",
       MakeToleration("foo", kExists, "", std::nullopt, 60),
       {"t[0].effect: Invalid value: \"\": effect must be 'NoExecute' when `tolerationSeconds` is "
        "set"}},
      {"Equal with a bad value",
       MakeToleration("foo", kEqual, "-bar", kNoSchedule),
       {"t[0].operator: Invalid value: \"-bar\": " + std::string(kLabelValueRegexError)}},
      {"Equal with a value that is too long and bad",
       MakeToleration("foo", kEqual, std::string(63, 'v') + "-", kNoSchedule),
       {"t[0].operator: Invalid value: \"" + std::string(63, 'v') +
        "-\": must be no more than 63 bytes;" + std::string(kLabelValueRegexError)}},
      {"Exists with a value",
       MakeToleration("foo", kExists, "bar", kNoSchedule),
       {"t[0].operator: Invalid value: core.Toleration{Key:\"foo\", Operator:\"Exists\", "
        "Value:\"bar\", Effect:\"NoSchedule\", TolerationSeconds:(*int64)(nil)}: value must be "
        "empty when `operator` is 'Exists'"}},
      {"every rule broken at once, in upstream's order",
       MakeToleration("", kEqual, "-x", kPreferNoSchedule, 5),
       {"t[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, "
        "which means \"match all values and all keys\"",
        "t[0].effect: Invalid value: \"PreferNoSchedule\": effect must be 'NoExecute' when "
        "`tolerationSeconds` is set",
        "t[0].operator: Invalid value: \"-x\": " + std::string(kLabelValueRegexError)}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> got;
    const std::vector<Toleration> one = {c.toleration};
    for (const FieldError& e : ValidateTolerations(one, "t")) got.push_back(e.ToString());
    EXPECT_EQ(got, c.want) << c.name;
  }
}

TEST(TolerationValidationTest, IndexesEachToleration) {
  const std::vector<Toleration> tolerations = {
      MakeToleration("ok", kExists, "", std::nullopt),
      MakeToleration("", kEqual, "", std::nullopt),
  };
  const std::vector<FieldError> errors = ValidateTolerations(tolerations, "spec.tolerations");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "spec.tolerations[1].operator");
  EXPECT_EQ(errors[0].type, FieldError::Type::kInvalid);
  EXPECT_EQ(errors[0].message,
            "Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means "
            "\"match all values and all keys\"");
  // One toleration on its own, with paths relative to it.
  const std::vector<FieldError> single = ValidateToleration(tolerations[1]);
  ASSERT_EQ(single.size(), 1u);
  EXPECT_EQ(single[0].path, "operator");
}

}  // namespace
}  // namespace muster::api
