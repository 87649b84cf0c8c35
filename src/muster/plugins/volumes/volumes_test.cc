#include "muster/plugins/volumes/volumes.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/profile.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/volumes/volume_binding.h"

// The volume plugins together: a profile places each at upstream's extension points (multiPoint
// expands a plugin to every point it implements, so the interfaces are what a user's
// configuration sees), and a pod without volumes passes all of them at no cost. Each plugin's
// own table is in its *_test.cc.

namespace muster::plugins::volumes {
namespace {

using framework::Code;
using framework::Status;
using testing::FakeServices;

// The queueSort and bind plugins a profile must have, and nothing else.
class StubSort final : public framework::QueueSortPlugin {
 public:
  std::string_view Name() const override { return "StubSort"; }
  bool Less(const framework::QueuedPodInfo&, const framework::QueuedPodInfo&) const override {
    return false;
  }
};

class StubBinder final : public framework::BindPlugin {
 public:
  std::string_view Name() const override { return "StubBinder"; }
  Status Bind(framework::CycleState&, const framework::PodInfo&, api::Symbol) override {
    return Status::OK();
  }
};

framework::Registry VolumeRegistry() {
  framework::Registry r;
  auto add = [&](std::string_view name, framework::PluginFactory f) {
    EXPECT_TRUE(r.Register(std::string(name), std::move(f)).IsSuccess());
  };
  add("StubSort", [](const framework::PluginArgs&, framework::Handle&, std::string*) {
    return std::make_unique<StubSort>();
  });
  add("StubBinder", [](const framework::PluginArgs&, framework::Handle&, std::string*) {
    return std::make_unique<StubBinder>();
  });
  add(kVolumeRestrictionsName, VolumeRestrictions::New);
  add(kNodeVolumeLimitsName, NodeVolumeLimits::New);
  add(kVolumeBindingName, VolumeBinding::New);
  add(kVolumeZoneName, VolumeZone::New);
  return r;
}

api::Plugins VolumeDefaults() {
  api::Plugins p;
  for (std::string_view name :
       {std::string_view("StubSort"), std::string_view("StubBinder"), kVolumeRestrictionsName,
        kNodeVolumeLimitsName, kVolumeBindingName, kVolumeZoneName}) {
    p.multi_point.enabled.push_back(api::PluginRef{std::string(name), std::nullopt});
  }
  return p;
}

template <typename T>
std::vector<std::string> Names(const std::vector<T*>& plugins) {
  std::vector<std::string> out;
  for (const T* p : plugins) out.emplace_back(p->Name());
  return out;
}

TEST(VolumePlugins, ProfilePlacesThemAtUpstreamsPoints) {
  FakeServices services;
  std::vector<std::string> errors;
  const auto profiles =
      framework::CreateProfiles(nullptr, VolumeRegistry(), VolumeDefaults(), services, &errors);
  ASSERT_TRUE(errors.empty()) << errors[0];
  ASSERT_EQ(profiles.size(), 1u);
  const framework::ProfilePlugins& p = profiles[0]->plugins();
  const std::vector<std::string> all = {"VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding",
                                        "VolumeZone"};
  EXPECT_EQ(Names(p.pre_filter), all);
  EXPECT_EQ(Names(p.filter), all);
  EXPECT_EQ(Names(p.pre_score), std::vector<std::string>{"VolumeBinding"});
  ASSERT_EQ(p.score.size(), 1u);
  EXPECT_EQ(p.score[0].first->Name(), "VolumeBinding");
  EXPECT_EQ(Names(p.reserve), std::vector<std::string>{"VolumeBinding"});
  EXPECT_EQ(Names(p.pre_bind), std::vector<std::string>{"VolumeBinding"});
  EXPECT_TRUE(p.post_filter.empty());
  EXPECT_TRUE(p.permit.empty());
  EXPECT_TRUE(p.pre_enqueue.empty());
  EXPECT_TRUE(p.post_bind.empty());
  // Only VolumeRestrictions keeps PreFilter state that pods on a node change, as upstream.
  for (const framework::PreFilterPlugin* pl : p.pre_filter) {
    EXPECT_EQ(pl->Extensions() != nullptr, pl->Name() == kVolumeRestrictionsName) << pl->Name();
  }
}

TEST(VolumePlugins, APodWithoutVolumesPassesEveryPoint) {
  FakeServices services;
  services.AddNode(testing::MakeNode().Name("n1").Obj());
  std::vector<std::string> errors;
  const auto profiles =
      framework::CreateProfiles(nullptr, VolumeRegistry(), VolumeDefaults(), services, &errors);
  ASSERT_TRUE(errors.empty()) << errors[0];
  const framework::Framework& f = *profiles[0];
  const framework::PodInfoPtr pod =
      framework::PodInfo::Make(testing::MakePod().Name("p").Req({{"cpu", "1"}}).Obj());
  const framework::NodeInfo& node = *services.snapshot().Get(api::Symbol("n1"));
  framework::CycleState state;

  for (framework::PreFilterPlugin* pl : f.plugins().pre_filter) {
    framework::PreFilterResult result;
    EXPECT_EQ(pl->PreFilter(state, *pod, services.snapshot().List(), &result).code(), Code::kSkip)
        << pl->Name();
    EXPECT_TRUE(result.AllNodes());
  }
  // (Their Filters are not run after a Skip: the runtime's pass below.)
  framework::PreScorePlugin* pre_score = f.plugins().pre_score[0];
  EXPECT_EQ(pre_score->PreScore(state, *pod, services.snapshot().List()).code(), Code::kSkip);
  int64_t score = -1;
  EXPECT_TRUE(f.plugins().score[0].first->Score(state, *pod, node, &score).IsSuccess());
  EXPECT_EQ(score, 0);
  EXPECT_FALSE(f.plugins().score[0].first->HasNormalizeScore());
  framework::ReservePlugin* reserve = f.plugins().reserve[0];
  EXPECT_TRUE(reserve->Reserve(state, *pod, node.name()).IsSuccess());
  reserve->Unreserve(state, *pod, node.name());
  EXPECT_EQ(f.plugins().pre_bind[0]->PreBind(state, *pod, node.name()).code(), Code::kSkip);

  // Through the runtime: the whole cycle passes, and the skipped Filters are recorded.
  framework::CycleState cycle;
  framework::PreFilterResult result;
  std::string rejector;
  EXPECT_TRUE(f.RunPreFilterPlugins(cycle, *pod, &result, &rejector).IsSuccess());
  EXPECT_EQ(cycle.skip_filter_plugins.size(), 4u);
  EXPECT_TRUE(f.RunFilterPlugins(cycle, *pod, node).IsSuccess());
  EXPECT_TRUE(f.RunPreScorePlugins(cycle, *pod, services.snapshot().List()).IsSuccess());
  std::vector<int64_t> totals;
  EXPECT_TRUE(f.RunScorePlugins(cycle, *pod, services.snapshot().List(), &totals).IsSuccess());
  EXPECT_EQ(totals, std::vector<int64_t>{0});
  EXPECT_TRUE(f.RunReservePluginsReserve(cycle, *pod, node.name()).IsSuccess());
  EXPECT_TRUE(f.RunPreBindPlugins(cycle, *pod, node.name()).IsSuccess());

  // The runtime skips the extensions after a skipped PreFilter; called anyway, they find no
  // state, as upstream's do.
  const framework::PreFilterExtensions* ext = f.plugins().pre_filter[0]->Extensions();
  ASSERT_NE(ext, nullptr);
  EXPECT_EQ(ext->AddPod(state, *pod, *pod, node).code(), Code::kError);
  EXPECT_EQ(ext->RemovePod(state, *pod, *pod, node).code(), Code::kError);
}

TEST(VolumePlugins, RegisterTheKindsTheyRead) {
  FakeServices services;
  auto resources = [](const framework::EnqueueExtensions& p) {
    std::vector<std::string> labels;
    for (const framework::ClusterEventWithHint& e : p.EventsToRegister()) {
      labels.push_back(e.event.label);
    }
    return labels;
  };
  EXPECT_EQ(resources(VolumeRestrictions(services.handle())),
            (std::vector<std::string>{"AssignedPodDelete", "NodeAdd", "PersistentVolumeClaimAdd"}));
  EXPECT_EQ(resources(NodeVolumeLimits(services.handle())),
            (std::vector<std::string>{"CSINodeAdd", "CSINodeUpdate", "AssignedPodDelete",
                                      "PersistentVolumeClaimAdd", "VolumeAttachmentDelete"}));
  EXPECT_EQ(
      resources(VolumeZone(services.handle())),
      (std::vector<std::string>{"StorageClassAdd", "NodeAdd|UpdateNodeLabel",
                                "PersistentVolumeClaimAdd|Update", "PersistentVolumeAdd|Update"}));
  EXPECT_EQ(resources(VolumeBinding(VolumeBindingArgs{}, services.handle())).size(), 6u);
}

TEST(VolumePlugins, VolumeBindingArgsReachTheFactory) {
  FakeServices services;
  std::string error;
  std::unique_ptr<framework::Plugin> plugin =
      VolumeBinding::New({YAML::Load("bindTimeoutSeconds: 30"), "args"}, services.handle(), &error);
  ASSERT_NE(plugin, nullptr) << error;
  EXPECT_EQ(dynamic_cast<const VolumeBinding&>(*plugin).args().bind_timeout_seconds, 30);

  plugin = VolumeBinding::New({YAML::Node(), "args"}, services.handle(), &error);
  ASSERT_NE(plugin, nullptr) << error;
  EXPECT_EQ(dynamic_cast<const VolumeBinding&>(*plugin).args().bind_timeout_seconds, 600);

  // A bad config fails the profile, naming the field.
  api::SchedulerConfiguration config;
  api::SchedulerProfile profile;
  profile.plugin_config.push_back(api::PluginConfig{
      std::string(kVolumeBindingName), YAML::Load("bindTimeoutSeconds: -10"),
      "cfg.yaml: document 1 (KubeSchedulerConfiguration): profiles[0].pluginConfig[0].args"});
  config.profiles.push_back(std::move(profile));
  std::vector<std::string> errors;
  const auto profiles =
      framework::CreateProfiles(&config, VolumeRegistry(), VolumeDefaults(), services, &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("cfg.yaml: document 1 (KubeSchedulerConfiguration): "
                           "profiles[0].pluginConfig[0].args.bindTimeoutSeconds: Invalid value: "
                           "-10: invalid BindTimeoutSeconds, should not be a negative value"),
            std::string::npos)
      << errors[0];
}

}  // namespace
}  // namespace muster::plugins::volumes
