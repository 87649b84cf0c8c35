#include "muster/plugins/registry.h"

#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "muster/framework/handle.h"

namespace muster::plugins {
namespace {

// The in-tree factories keep a Handle (DefaultBinder) but use none of it while constructing.
class UnusedHandle final : public framework::Handle {
 public:
  const framework::Snapshot& snapshot() const override { std::abort(); }
  framework::Clock& clock() override { std::abort(); }
  framework::WaitingPods& waiting_pods() override { std::abort(); }
  framework::ClusterClient& client() override { std::abort(); }
  const framework::ObjectLister& lister() const override { std::abort(); }
  void ActivatePods(std::span<const std::string>) override { std::abort(); }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(api::Symbol) const override {
    std::abort();
  }
  const framework::Framework& framework() const override { std::abort(); }
  int parallelism() const override { return 1; }
};

TEST(InTreeRegistry, RegistersEveryPluginUnderItsUpstreamName) {
  const framework::Registry registry = InTreeRegistry();
  EXPECT_EQ(registry.Names(),
            (std::vector<std::string>{
                "Coscheduling",      "DefaultBinder",     "DefaultPreemption",
                "DynamicResources",  "GangScheduling",    "ImageLocality",
                "InterPodAffinity",  "NodeAffinity",      "NodeDeclaredFeatures",
                "NodeName",          "NodePorts",         "NodeResourcesBalancedAllocation",
                "NodeResourcesFit",  "NodeUnschedulable", "NodeVolumeLimits",
                "PodTopologySpread", "PrioritySort",      "SchedulingGates",
                "TaintToleration",   "VolumeBinding",     "VolumeRestrictions",
                "VolumeZone"}));
  UnusedHandle handle;
  for (const std::string& name : registry.Names()) {
    SCOPED_TRACE(name);
    std::string error;
    std::unique_ptr<framework::Plugin> plugin = (*registry.Find(name))({}, handle, &error);
    ASSERT_NE(plugin, nullptr) << error;
    EXPECT_EQ(plugin->Name(), name);
  }
}

TEST(InTreeRegistry, BadArgsGiveNullptrAndTheError) {
  const framework::Registry registry = InTreeRegistry();
  UnusedHandle handle;
  const framework::PluginArgs args{YAML::Load("scoringStrategy: {type: Nope}"),
                                   "c.yaml: profiles[0].pluginConfig[0].args"};
  std::string error;
  EXPECT_EQ((*registry.Find("NodeResourcesFit"))(args, handle, &error), nullptr);
  EXPECT_EQ(error,
            "c.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "
            "\"Nope\": supported values: \"LeastAllocated\", \"MostAllocated\", "
            "\"RequestedToCapacityRatio\"");

  const framework::PluginArgs balanced{YAML::Load("resources: [{name: cpu, weight: 3}]"), "c"};
  error.clear();
  EXPECT_EQ((*registry.Find("NodeResourcesBalancedAllocation"))(balanced, handle, &error), nullptr);
  EXPECT_EQ(error, "c.resources[0].weight: Invalid value: 3: must be 1");
}

TEST(DefaultPlugins, UpstreamMultiPointOrderAndWeights) {
  const api::Plugins plugins = DefaultPlugins();
  std::vector<std::pair<std::string, std::optional<int32_t>>> got;
  for (const api::PluginRef& p : plugins.multi_point.enabled) got.emplace_back(p.name, p.weight);
  const std::vector<std::pair<std::string, std::optional<int32_t>>> want = {
      {"SchedulingGates", std::nullopt},
      {"PrioritySort", std::nullopt},
      {"NodeUnschedulable", std::nullopt},
      {"NodeName", std::nullopt},
      {"TaintToleration", 3},
      {"NodeAffinity", 2},
      {"NodePorts", std::nullopt},
      {"NodeResourcesFit", 1},
      {"VolumeRestrictions", std::nullopt},
      {"NodeVolumeLimits", std::nullopt},
      {"VolumeBinding", std::nullopt},
      {"VolumeZone", std::nullopt},
      {"PodTopologySpread", 2},
      {"InterPodAffinity", 2},
      // GA in 1.34, before DefaultPreemption as upstream's applyFeatureGates inserts it.
      {"DynamicResources", std::nullopt},
      {"DefaultPreemption", std::nullopt},
      {"NodeResourcesBalancedAllocation", 1},
      {"ImageLocality", 1},
      {"DefaultBinder", std::nullopt},
      // Appended by upstream's applyFeatureGates, NodeDeclaredFeatures (GA, locked on in 1.37)
      // first, then GangScheduling when its gate is on.
      {"NodeDeclaredFeatures", std::nullopt},
      {"GangScheduling", std::nullopt}};
  EXPECT_EQ(got, want);
  EXPECT_TRUE(plugins.multi_point.disabled.empty());
  EXPECT_TRUE(plugins.filter.enabled.empty());
  EXPECT_TRUE(plugins.score.enabled.empty());

  const framework::Registry registry = InTreeRegistry();
  for (const api::PluginRef& p : plugins.multi_point.enabled) {
    EXPECT_NE(registry.Find(p.name), nullptr) << p.name;
  }
}

}  // namespace
}  // namespace muster::plugins
