#include "muster/plugins/interpodaffinity/args.h"

#include <string>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

// Upstream's defaults (v1/defaults_test.go) and validation (validation_pluginargs_test.go:
// TestValidateInterPodAffinityArgs) of InterPodAffinityArgs.

namespace muster::plugins::interpodaffinity {
namespace {

bool Load(std::string_view yaml, InterPodAffinityArgs* out, std::string* error) {
  framework::PluginArgs args;
  args.args = yaml.empty() ? YAML::Node() : YAML::Load(std::string(yaml));
  args.error_prefix = "args";
  return LoadInterPodAffinityArgs(args, out, error);
}

TEST(InterPodAffinityArgs, Defaults) {
  InterPodAffinityArgs got;
  std::string error;
  ASSERT_TRUE(Load("", &got, &error)) << error;
  EXPECT_EQ(got, (InterPodAffinityArgs{1, false}));
}

TEST(InterPodAffinityArgs, ExplicitValuesAreKept) {
  InterPodAffinityArgs got;
  std::string error;
  ASSERT_TRUE(
      Load("hardPodAffinityWeight: 0\nignorePreferredTermsOfExistingPods: true", &got, &error))
      << error;
  EXPECT_EQ(got, (InterPodAffinityArgs{0, true}));
  ASSERT_TRUE(
      Load("apiVersion: kubescheduler.config.k8s.io/v1\nkind: InterPodAffinityArgs\n"
           "hardPodAffinityWeight: 100",
           &got, &error))
      << error;
  EXPECT_EQ(got.hard_pod_affinity_weight, 100);
}

TEST(InterPodAffinityArgs, ValidationMessages) {
  struct Case {
    std::string yaml;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"hardPodAffinityWeight: -1",
       "args.hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]"},
      {"hardPodAffinityWeight: 101",
       "args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"},
      {"hardPodAffinityWeight: \"5\"",
       "args.hardPodAffinityWeight: expected an integer, got string \"5\""},
      {"ignorePreferredTermsOfExistingPods: \"true\"",
       "args.ignorePreferredTermsOfExistingPods: expected a boolean, got string \"true\""},
      {"hardPodAffinityWeigth: 1",
       "args.hardPodAffinityWeigth: unknown field \"hardPodAffinityWeigth\""},
      {"kind: NodeAffinityArgs",
       "args: args for plugin InterPodAffinity were not of type "
       "InterPodAffinityArgs.kubescheduler.config.k8s.io, got "
       "NodeAffinityArgs.kubescheduler.config.k8s.io"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    InterPodAffinityArgs got;
    std::string error;
    EXPECT_FALSE(Load(c.yaml, &got, &error));
    EXPECT_EQ(error, c.want);
  }
}

TEST(InterPodAffinityArgs, ValidateRange) {
  EXPECT_TRUE(Validate(InterPodAffinityArgs{0, false}).empty());
  EXPECT_TRUE(Validate(InterPodAffinityArgs{100, false}).empty());
  const std::vector<api::FieldError> errors = Validate(InterPodAffinityArgs{-1, false});
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].ToString(),
            "hardPodAffinityWeight: Invalid value: -1: not in valid range [0, 100]");
}

}  // namespace
}  // namespace muster::plugins::interpodaffinity
