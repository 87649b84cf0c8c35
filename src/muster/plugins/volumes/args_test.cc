#include "muster/plugins/volumes/args.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

// Validation cases from upstream validation_pluginargs_test.go (TestValidateVolumeBindingArgs)
// and the v1 defaults of defaults_test.go. Shape is checked as with StorageCapacityScoring on
// (see args.h); upstream's gate-off case that refuses any shape is the one muster does not
// reproduce.

namespace muster::plugins::volumes {
namespace {

constexpr std::string_view kPrefix = "cfg.yaml: document 1 (KubeSchedulerConfiguration): args";

std::vector<std::string> Messages(const std::vector<api::FieldError>& errors) {
  std::vector<std::string> out;
  for (const api::FieldError& e : errors) out.push_back(e.ToString());
  return out;
}

VolumeBindingArgs With(int64_t timeout, std::optional<std::vector<UtilizationShapePoint>> shape) {
  return VolumeBindingArgs{timeout, std::move(shape)};
}

TEST(VolumeBindingArgsValidate, UpstreamCases) {
  struct Case {
    std::string name;
    VolumeBindingArgs args;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"zero is a valid config", With(0, std::nullopt), {}},
      {"positive value is valid config", With(10, std::nullopt), {}},
      {"negative value is invalid config ",
       With(-10, std::nullopt),
       {"bindTimeoutSeconds: Invalid value: -10: invalid BindTimeoutSeconds, should not be a "
        "negative value"}},
      {"shape should be nil when the feature is off", With(10, std::nullopt), {}},
      // Upstream with the gate off refuses this shape; with it on, accepts it.
      {"a valid shape is accepted",
       With(10, std::vector<UtilizationShapePoint>{{1, 1}, {3, 3}}),
       {}},
      // Upstream with the gate on defaults an empty shape before validating it.
      {"an empty shape is accepted", With(10, std::vector<UtilizationShapePoint>{}), {}},
      {"shape points must be sorted in increasing order",
       With(10, std::vector<UtilizationShapePoint>{{3, 3}, {1, 1}}),
       {"shape[1].utilization: Invalid value: 1: values must be sorted in increasing order"}},
      {"shape point: invalid utilization and score",
       With(10, std::vector<UtilizationShapePoint>{{-1, 1}, {10, -1}, {20, 11}, {101, 1}}),
       {"shape[0].utilization: Invalid value: -1: not in valid range [0, 100]",
        "shape[1].score: Invalid value: -1: not in valid range [0, 10]",
        "shape[2].score: Invalid value: 11: not in valid range [0, 10]",
        "shape[3].utilization: Invalid value: 101: not in valid range [0, 100]"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Messages(Validate(c.args)), c.want);
  }
}

TEST(VolumeBindingArgsDecode, AllFieldsAndDefaults) {
  const YAML::Node yaml = YAML::Load(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: VolumeBindingArgs
bindTimeoutSeconds: 300
shape:
- utilization: 0
  score: 0
- utilization: 100
  score: 10
)");
  VolumeBindingArgs got;
  ArgsErrors errors{std::string(kPrefix)};
  ASSERT_TRUE(DecodeVolumeBindingArgs(yaml, &got, errors)) << errors.Joined();
  EXPECT_EQ(got, With(300, std::vector<UtilizationShapePoint>{{0, 0}, {100, 10}}));

  VolumeBindingArgs defaults;
  std::string error;
  ASSERT_TRUE(LoadVolumeBindingArgs({YAML::Node(), std::string(kPrefix)}, &defaults, &error));
  // StorageCapacityScoring's default shape (on by default since 1.37), also for an empty one.
  const std::vector<UtilizationShapePoint> least_full{{0, 10}, {100, 0}};
  EXPECT_EQ(defaults, With(600, least_full));
  VolumeBindingArgs empty;
  ASSERT_TRUE(
      LoadVolumeBindingArgs({YAML::Load("shape: []"), std::string(kPrefix)}, &empty, &error));
  EXPECT_EQ(empty.shape, least_full);

  // An explicit 0 is kept: only an absent timeout takes the default.
  VolumeBindingArgs zero;
  ASSERT_TRUE(LoadVolumeBindingArgs({YAML::Load("bindTimeoutSeconds: 0"), std::string(kPrefix)},
                                    &zero, &error));
  EXPECT_EQ(zero.bind_timeout_seconds, 0);
}

TEST(VolumeBindingArgsDecode, ErrorsCarryThePrefix) {
  VolumeBindingArgs args;
  std::string error;
  EXPECT_FALSE(LoadVolumeBindingArgs(
      {YAML::Load("bindTimeoutSeconds: -1\nshape: [{utilization: 0, score: 20}]"),
       std::string(kPrefix)},
      &args, &error));
  const std::string p(kPrefix);
  EXPECT_EQ(error, p +
                       ".bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should "
                       "not be a negative value\n" +
                       p + ".shape[0].score: Invalid value: 20: not in valid range [0, 10]");
}

TEST(VolumeBindingArgsDecode, Strict) {
  VolumeBindingArgs args;
  std::string error;
  EXPECT_FALSE(LoadVolumeBindingArgs({YAML::Load("bindTimeoutSecond: 5"), std::string(kPrefix)},
                                     &args, &error));
  EXPECT_EQ(error,
            std::string(kPrefix) + ".bindTimeoutSecond: unknown field \"bindTimeoutSecond\"");
  EXPECT_FALSE(LoadVolumeBindingArgs(
      {YAML::Load("bindTimeoutSeconds: \"5\""), std::string(kPrefix)}, &args, &error));
  EXPECT_EQ(error,
            std::string(kPrefix) + ".bindTimeoutSeconds: expected an integer, got string \"5\"");
  EXPECT_FALSE(LoadVolumeBindingArgs(
      {YAML::Load("shape: [{utilization: 0, score: 1, weight: 2}]"), std::string(kPrefix)}, &args,
      &error));
  EXPECT_EQ(error, std::string(kPrefix) + ".shape[0].weight: unknown field \"weight\"");
}

}  // namespace
}  // namespace muster::plugins::volumes
