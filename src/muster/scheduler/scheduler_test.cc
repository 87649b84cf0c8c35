// The scheduler's construction from a configuration and its services to plugins (scheduler.cc).

#include "muster/scheduler/scheduler.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/scheduler/testing/harness.h"

namespace muster::scheduler {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::SchedulerHarness;

api::Plugins Enable(std::vector<std::string> names) {
  api::Plugins plugins;
  for (std::string& name : names) plugins.multi_point.enabled.push_back({std::move(name), {}});
  return plugins;
}

// Every error names the configuration's file: the profiles' own, and an args error's full
// location is kept as it is.
TEST(SchedulerCreate, EveryErrorNamesTheConfigurationsFile) {
  testing::FakeServices client;
  api::SchedulerConfiguration config;
  config.source = "sched.yaml";
  api::SchedulerProfile profile;
  profile.plugins = Enable({"TestSort", "NoSuchPlugin"});
  config.profiles.push_back(profile);
  std::vector<std::string> errors;
  EXPECT_EQ(Scheduler::Create(&config, testing::HarnessRegistry(), Enable({"TestSort"}),
                              client.virtual_clock(), client, 0, &errors),
            nullptr);
  ASSERT_FALSE(errors.empty());
  for (const std::string& e : errors) {
    EXPECT_EQ(e.rfind("sched.yaml (KubeSchedulerConfiguration): ", 0), 0u) << e;
  }
  EXPECT_NE(errors.front().find("NoSuchPlugin"), std::string::npos) << errors.front();
}

TEST(SchedulerCreate, TheConfigurationsInitialBackoffIsTheOnePluginsSee) {
  testing::FakeServices client;
  api::SchedulerConfiguration config;
  config.pod_initial_backoff_seconds = 3;
  config.pod_max_backoff_seconds = 7;
  api::SchedulerProfile profile;
  profile.plugins = Enable({"TestSort", "TestBinder"});
  config.profiles.push_back(profile);
  std::vector<std::string> errors;
  auto s = Scheduler::Create(&config, testing::HarnessRegistry(), Enable({}),
                             client.virtual_clock(), client, 0, &errors);
  ASSERT_NE(s, nullptr) << errors.front();
  EXPECT_EQ(s->pod_initial_backoff(), std::chrono::seconds(3));
  EXPECT_EQ(s->scheduler_names(), std::vector<std::string>{"default-scheduler"});
}

// A plugin's ActivatePods brings a pod parked unschedulable back to activeQ at once.
TEST(SchedulerServices, ActivatePodsMovesAParkedPodToActive) {
  SchedulerHarness h;
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "0"}}).Obj());
  h.AddPod(MakePod().Name("web").Obj());
  h.RunCycles();
  ASSERT_EQ(h.scheduler().queue().NumUnschedulable(), 1u);
  const std::string key = "default/web";
  h.scheduler().ActivatePods(std::span<const std::string>(&key, 1));
  EXPECT_EQ(h.scheduler().queue().NumUnschedulable(), 0u);
  EXPECT_TRUE(h.scheduler().HasActivePods());
  EXPECT_EQ(h.scheduler().Attempts(key), 1);
}

// Attempts are counted per pod name: kept while the pod is deleted, and going on when a pod of
// that name comes back (explain and simulate's records read them after the run).
TEST(SchedulerServices, AttemptsOutliveTheDeletedPodByName) {
  SchedulerHarness h;
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "0"}}).Obj());
  const api::Pod pod = MakePod().Name("web").Obj();
  h.AddPod(pod);
  h.RunCycles();
  const std::string key = "default/web";
  ASSERT_EQ(h.scheduler().Attempts(key), 1);
  h.DeletePod(pod);
  h.RunCycles();
  EXPECT_EQ(h.scheduler().Attempts(key), 1);
  EXPECT_EQ(h.scheduler().Attempts("default/other"), 0);
  h.AddPod(MakePod().Name("web").Obj());
  h.RunCycles();
  EXPECT_EQ(h.scheduler().Attempts(key), 2);
}

}  // namespace
}  // namespace muster::scheduler
