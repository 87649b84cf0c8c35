#include "muster/api/feature_gates.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace muster::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(FeatureGatesTest, DefaultsAreKubernetes137s) {
  const FeatureGates gates;
  EXPECT_TRUE(gates.Enabled(Feature::kPodLevelResources));
  EXPECT_TRUE(gates.Enabled(Feature::kInPlacePodVerticalScaling));
  EXPECT_TRUE(gates.Enabled(Feature::kInPlacePodLevelResourcesVerticalScaling));
  EXPECT_TRUE(gates.Enabled(Feature::kSchedulerPopFromBackoffQ));
  EXPECT_TRUE(gates.Enabled(Feature::kNominatedNodeNameForExpectation));
  EXPECT_EQ(SpecOf(Feature::kInPlacePodVerticalScaling).stage, FeatureStage::kGA);
  EXPECT_FALSE(gates.Enabled(Feature::kTopologyAwareWorkloadScheduling));
  EXPECT_FALSE(gates.Enabled(Feature::kCompositePodGroup));
}

TEST(FeatureGatesTest, CompositePodGroupsComeWithTopologyAwareScheduling) {
  FeatureGates gates;
  std::string error;
  ASSERT_TRUE(
      gates.Apply("CompositePodGroup=true,TopologyAwareWorkloadScheduling=true", &error, nullptr))
      << error;
  EXPECT_TRUE(gates.Enabled(Feature::kCompositePodGroup));
  EXPECT_TRUE(gates.Enabled(Feature::kTopologyAwareWorkloadScheduling));
  // Turning the dependency off again while the dependent stays on is refused as well.
  EXPECT_FALSE(gates.Apply("TopologyAwareWorkloadScheduling=false", &error, nullptr));
  EXPECT_TRUE(gates.Enabled(Feature::kTopologyAwareWorkloadScheduling));
}

TEST(FeatureGatesTest, SetsTheModelledGates) {
  FeatureGates gates;
  std::string error;
  std::vector<std::string> warnings;
  ASSERT_TRUE(gates.Apply("SchedulerPopFromBackoffQ=false, PodLevelResources=F", &error, &warnings))
      << error;
  EXPECT_FALSE(gates.Enabled(Feature::kSchedulerPopFromBackoffQ));
  EXPECT_FALSE(gates.Enabled(Feature::kPodLevelResources));
  EXPECT_TRUE(gates.Enabled(Feature::kNominatedNodeNameForExpectation));
  EXPECT_THAT(warnings, IsEmpty());
}

// kube-scheduler's messages (k8s.io/component-base/featuregate); a refused value changes nothing,
// even the gates set before it in the same flag.
TEST(FeatureGatesTest, RefusesAsKubeSchedulerRefuses) {
  auto refused = [](std::string_view spec) {
    FeatureGates gates;
    std::string error;
    EXPECT_FALSE(gates.Apply(spec, &error, nullptr)) << spec;
    EXPECT_TRUE(gates.Enabled(Feature::kSchedulerPopFromBackoffQ)) << spec;
    return error;
  };
  EXPECT_EQ(refused("SchedulerPopFromBackoffQ=false,NoSuchGate=true"),
            "unrecognized feature gate: NoSuchGate");
  EXPECT_EQ(refused("SchedulerPopFromBackoffQ=maybe"),
            "invalid value of SchedulerPopFromBackoffQ=maybe, err: strconv.ParseBool: parsing "
            "\"maybe\": invalid syntax");
  EXPECT_EQ(refused("SchedulerPopFromBackoffQ"), "missing bool value for SchedulerPopFromBackoffQ");
  EXPECT_EQ(
      refused("InPlacePodVerticalScaling=false"),
      "cannot set feature gate InPlacePodVerticalScaling to false, feature is locked to true");
  // A gate whose behaviour muster does not switch, set against what muster does.
  EXPECT_THAT(refused("DRAWorkloadResourceClaims=true"),
              HasSubstr("muster decides as kube-scheduler does with "
                        "DRAWorkloadResourceClaims=false and cannot change it"));
  // A gate whose dependency is off.
  EXPECT_THAT(refused("CompositePodGroup=true"),
              HasSubstr("requires TopologyAwareWorkloadScheduling=true"));
  // GA in 1.37.
  EXPECT_EQ(refused("DRAExtendedResource=false"),
            "cannot set feature gate DRAExtendedResource to false, feature is locked to true");
  EXPECT_EQ(refused("NodeDeclaredFeatures=false"),
            "cannot set feature gate NodeDeclaredFeatures to false, feature is locked to true");
  EXPECT_THAT(refused("StorageCapacityScoring=false"),
              HasSubstr("StorageCapacityScoring=true and cannot change it"));
}

TEST(FeatureGatesTest, GatesOfHowNotWhatAreAcceptedAndSaidToChangeNothing) {
  FeatureGates gates;
  std::string error;
  std::vector<std::string> warnings;
  ASSERT_TRUE(
      gates.Apply("SchedulerAsyncAPICalls=true,StorageCapacityScoring=true", &error, &warnings))
      << error;
  EXPECT_THAT(warnings,
              ElementsAre("--feature-gates: SchedulerAsyncAPICalls changes how kube-scheduler "
                          "works, not what it decides: muster accepts it and decides the same"));
}

TEST(FeatureGatesTest, ScopedFeaturesRestoreTheProcessGates) {
  FeatureGates off;
  off.Set(Feature::kSchedulerPopFromBackoffQ, false);
  {
    const ScopedFeatures scoped(off);
    EXPECT_FALSE(Features().Enabled(Feature::kSchedulerPopFromBackoffQ));
  }
  EXPECT_TRUE(Features().Enabled(Feature::kSchedulerPopFromBackoffQ));
}

}  // namespace
}  // namespace muster::api
