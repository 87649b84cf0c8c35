#include "muster/api/semver.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace muster::api {
namespace {

struct ParseCase {
  std::string input;
  std::string printed;  // String() of the result; empty when parsing fails
  std::string error;    // the error when parsing fails, as blang/semver words it
};

class SemVerParseTest : public testing::TestWithParam<ParseCase> {};

TEST_P(SemVerParseTest, Parses) {
  const ParseCase& c = GetParam();
  std::string error;
  const std::optional<SemVer> v = SemVer::Parse(c.input, &error);
  if (c.printed.empty()) {
    EXPECT_FALSE(v.has_value()) << c.input;
    EXPECT_EQ(error, c.error) << c.input;
    EXPECT_FALSE(SemVer::Parse(c.input).has_value());
  } else {
    ASSERT_TRUE(v.has_value()) << c.input << ": " << error;
    EXPECT_EQ(v->String(), c.printed);
  }
}

INSTANTIATE_TEST_SUITE_P(
    SemVer, SemVerParseTest,
    testing::Values(
        ParseCase{"1.2.3", "1.2.3", ""}, ParseCase{"0.0.0", "0.0.0", ""},
        ParseCase{"1.0.0-alpha", "1.0.0-alpha", ""},
        ParseCase{"1.0.0-alpha.1", "1.0.0-alpha.1", ""},
        ParseCase{"1.0.0-0.3.7", "1.0.0-0.3.7", ""},
        ParseCase{"1.0.0-x.7.z.92", "1.0.0-x.7.z.92", ""},
        ParseCase{"1.0.0-rc-1", "1.0.0-rc-1", ""},
        ParseCase{"1.0.0+20130313144700", "1.0.0+20130313144700", ""},
        ParseCase{"1.0.0-beta+exp.sha.5114f85", "1.0.0-beta+exp.sha.5114f85", ""},
        ParseCase{"1.0.0+build-1.x", "1.0.0+build-1.x", ""},
        ParseCase{"18446744073709551615.0.0", "18446744073709551615.0.0", ""},
        ParseCase{"", "", "Version string empty"},
        ParseCase{"1.2", "", "No Major.Minor.Patch elements found"},
        ParseCase{"v1.2.3", "", "Invalid character(s) found in major number \"v1\""},
        ParseCase{"01.2.3", "", "Major number must not contain leading zeroes \"01\""},
        ParseCase{"1.02.3", "", "Minor number must not contain leading zeroes \"02\""},
        ParseCase{"1.2.03", "", "Patch number must not contain leading zeroes \"03\""},
        ParseCase{"1.x.3", "", "Invalid character(s) found in minor number \"x\""},
        ParseCase{"1.2.3.4", "", "Invalid character(s) found in patch number \"3.4\""},
        ParseCase{".2.3", "", "strconv.ParseUint: parsing \"\": invalid syntax"},
        ParseCase{"18446744073709551616.0.0", "",
                  "strconv.ParseUint: parsing \"18446744073709551616\": value out of range"},
        ParseCase{"1.2.3-", "", "Prerelease is empty"},
        ParseCase{"1.2.3-a..b", "", "Prerelease is empty"},
        ParseCase{"1.2.3-01", "",
                  "Numeric PreRelease version must not contain leading zeroes \"01\""},
        ParseCase{"1.2.3-a_b", "", "Invalid character(s) found in prerelease \"a_b\""},
        ParseCase{"1.2.3+", "", "Build meta data is empty"},
        ParseCase{"1.2.3+a..b", "", "Build meta data is empty"},
        ParseCase{"1.2.3+a_b", "", "Invalid character(s) found in build meta data \"a_b\""},
        ParseCase{" 1.2.3", "", "Invalid character(s) found in major number \" 1\""}));

struct NormalizeCase {
  std::string input;
  std::string printed;
  std::string error;
};

class SemVerNormalizeTest : public testing::TestWithParam<NormalizeCase> {};

TEST_P(SemVerNormalizeTest, Parses) {
  const NormalizeCase& c = GetParam();
  std::string error;
  const std::optional<SemVer> v = SemVer::ParseNormalized(c.input, &error);
  if (c.printed.empty()) {
    EXPECT_FALSE(v.has_value()) << c.input;
    EXPECT_EQ(error, c.error) << c.input;
  } else {
    ASSERT_TRUE(v.has_value()) << c.input << ": " << error;
    EXPECT_EQ(v->String(), c.printed);
  }
}

INSTANTIATE_TEST_SUITE_P(
    SemVer, SemVerNormalizeTest,
    testing::Values(
        NormalizeCase{"v1.2.3", "1.2.3", ""}, NormalizeCase{"1.2.3", "1.2.3", ""},
        NormalizeCase{"v1", "1.0.0", ""}, NormalizeCase{"v1.2", "1.2.0", ""},
        NormalizeCase{"01.002.0003", "1.2.3", ""}, NormalizeCase{"00.0.0", "0.0.0", ""},
        NormalizeCase{"1.2.03-rc.1", "1.2.3-rc.1", ""}, NormalizeCase{"1.2.0-rc", "1.2.0-rc", ""},
        NormalizeCase{"v1.2-rc", "", "short version cannot contain PreRelease/Build meta data"},
        NormalizeCase{"1+b", "", "short version cannot contain PreRelease/Build meta data"},
        NormalizeCase{"vv1.2.3", "", "Invalid character(s) found in major number \"0v1\""},
        NormalizeCase{"", "", "strconv.ParseUint: parsing \"\": invalid syntax"},
        // Only the leading zeros of digits go: "0a" keeps a zero in front.
        NormalizeCase{"1.2.0a", "", "Invalid character(s) found in patch number \"0a\""}));

TEST(SemVerTest, OrdersByPrecedence) {
  // semver.org's example, lowest first.
  const std::vector<std::string> ordered = {"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta",
                                            "1.0.0-beta",  "1.0.0-beta.2",  "1.0.0-beta.11",
                                            "1.0.0-rc.1",  "1.0.0",         "1.0.1",
                                            "1.1.0",       "2.0.0",         "10.0.0"};
  for (size_t i = 0; i < ordered.size(); ++i) {
    for (size_t j = 0; j < ordered.size(); ++j) {
      const SemVer a = SemVer::Parse(ordered[i]).value();
      const SemVer b = SemVer::Parse(ordered[j]).value();
      EXPECT_EQ(a < b, i < j) << ordered[i] << " vs " << ordered[j];
      EXPECT_EQ(a == b, i == j) << ordered[i] << " vs " << ordered[j];
    }
  }
}

TEST(SemVerTest, BuildMetadataIsIgnoredInComparisons) {
  EXPECT_EQ(SemVer::Parse("1.2.3+a").value(), SemVer::Parse("1.2.3+b").value());
  EXPECT_EQ(SemVer::Parse("1.2.3+a").value(), SemVer::Parse("1.2.3").value());
  EXPECT_LT(SemVer::Parse("1.2.3-1+z").value(), SemVer::Parse("1.2.3-a+a").value());
}

TEST(SemVerTest, NumericIdentifiersCompareAsNumbers) {
  EXPECT_LT(SemVer::Parse("1.0.0-9").value(), SemVer::Parse("1.0.0-10").value());
  EXPECT_LT(SemVer::Parse("1.0.0-10").value(), SemVer::Parse("1.0.0-9a").value());
  EXPECT_LT(SemVer::Parse("1.0.0-a").value(), SemVer::Parse("1.0.0-b").value());
  EXPECT_LT(SemVer::Parse("1.0.0-Z").value(), SemVer::Parse("1.0.0-a").value());
}

TEST(SemVerTest, ErrorIsOptional) {
  EXPECT_FALSE(SemVer::Parse("x").has_value());
  EXPECT_FALSE(SemVer::ParseNormalized("x").has_value());
  const SemVer v = SemVer::Parse("1.2.3-rc.1+build.5").value();
  EXPECT_EQ(v.major, 1u);
  EXPECT_EQ(v.minor, 2u);
  EXPECT_EQ(v.patch, 3u);
  EXPECT_EQ(v.pre_release, (std::vector<std::string>{"rc", "1"}));
  EXPECT_EQ(v.build, "build.5");
}

}  // namespace
}  // namespace muster::api
