#include "muster/plugins/defaultpreemption/args.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

// Validation cases from upstream validation_pluginargs_test.go (TestValidateDefaultPreemptionArgs)
// and the v1 defaults of defaults_test.go (SetDefaults_DefaultPreemptionArgs).

namespace muster::plugins::defaultpreemption {
namespace {

constexpr std::string_view kPrefix = "cfg.yaml: document 1 (KubeSchedulerConfiguration): args";

std::vector<std::string> Messages(const std::vector<api::FieldError>& errors) {
  std::vector<std::string> out;
  for (const api::FieldError& e : errors) out.push_back(e.ToString());
  return out;
}

TEST(DefaultPreemptionArgsValidate, Upstream) {
  struct Case {
    std::string name;
    DefaultPreemptionArgs args;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"valid args (default)", {10, 100}, {}},
      {"negative minCandidateNodesPercentage",
       {-1, 100},
       {"minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]"}},
      {"minCandidateNodesPercentage over 100",
       {900, 100},
       {"minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]"}},
      {"negative minCandidateNodesAbsolute",
       {20, -1},
       {"minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"}},
      {"all zero",
       {0, 0},
       {"minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
        "minCandidateNodesAbsolute",
        "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as "
        "minCandidateNodesPercentage"}},
      {"both out-of-range",
       {-1, -1},
       {"minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]",
        "minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)"}},
      {"percentage zero alone is valid", {0, 5}, {}},
      {"absolute zero alone is valid", {100, 0}, {}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Messages(Validate(c.args)), c.want) << c.name;
  }
}

TEST(DefaultPreemptionArgsDecode, DefaultsWhenAbsent) {
  DefaultPreemptionArgs got;
  ArgsErrors errors{std::string(kPrefix)};
  ASSERT_TRUE(DecodeDefaultPreemptionArgs(YAML::Node(), &got, errors)) << errors.Joined();
  EXPECT_EQ(got, (DefaultPreemptionArgs{10, 100}));

  DefaultPreemptionArgs partial;
  ASSERT_TRUE(
      DecodeDefaultPreemptionArgs(YAML::Load("minCandidateNodesPercentage: 50"), &partial, errors));
  EXPECT_EQ(partial, (DefaultPreemptionArgs{50, 100}));
}

TEST(DefaultPreemptionArgsDecode, ExplicitZeroIsKept) {
  DefaultPreemptionArgs got;
  ArgsErrors errors{std::string(kPrefix)};
  ASSERT_TRUE(DecodeDefaultPreemptionArgs(YAML::Load(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: DefaultPreemptionArgs
minCandidateNodesPercentage: 0
minCandidateNodesAbsolute: 500
)"),
                                          &got, errors))
      << errors.Joined();
  EXPECT_EQ(got, (DefaultPreemptionArgs{0, 500}));
}

TEST(DefaultPreemptionArgsDecode, StrictErrors) {
  DefaultPreemptionArgs got;
  ArgsErrors errors{std::string(kPrefix)};
  EXPECT_FALSE(DecodeDefaultPreemptionArgs(YAML::Load(R"(
kind: NodeResourcesFitArgs
minCandidateNodesPercentage: "10"
minCandidateNodesAbsolute: 3000000000
minCandidateNodes: 1
)"),
                                           &got, errors));
  const std::string p(kPrefix);
  EXPECT_EQ(errors.list(),
            (std::vector<std::string>{
                p + ".minCandidateNodes: unknown field \"minCandidateNodes\"",
                p + ": args for plugin DefaultPreemption were not of type "
                    "DefaultPreemptionArgs.kubescheduler.config.k8s.io, got "
                    "NodeResourcesFitArgs.kubescheduler.config.k8s.io",
                p + ".minCandidateNodesPercentage: expected an integer, got string \"10\"",
                p + ".minCandidateNodesAbsolute: integer 3000000000 out of range [-2147483648, "
                    "2147483647]",
            }));
}

TEST(LoadDefaultPreemptionArgs, ValidatesAfterDefaults) {
  DefaultPreemptionArgs got;
  std::string error;
  EXPECT_TRUE(LoadDefaultPreemptionArgs(framework::PluginArgs{YAML::Node(), std::string(kPrefix)},
                                        &got, &error));
  EXPECT_EQ(got, (DefaultPreemptionArgs{10, 100}));

  EXPECT_FALSE(LoadDefaultPreemptionArgs(
      framework::PluginArgs{YAML::Load("minCandidateNodesPercentage: 101"), std::string(kPrefix)},
      &got, &error));
  EXPECT_EQ(error, std::string(kPrefix) +
                       ".minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, "
                       "100]");
}

}  // namespace
}  // namespace muster::plugins::defaultpreemption
