#include "muster/host/host.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/cluster/memory.h"
#include "muster/framework/virtual_clock.h"

namespace muster::host {
namespace {

using testing::MakeNode;
using testing::MakePod;

// Schedules until no pod is ready, jumping from timer to timer while none is, and counts what
// the host reports.
class UntilSettled final : public RunPolicy {
 public:
  UntilSettled(framework::VirtualClock& clock, const Host& host) : clock_(clock), host_(host) {}
  bool Done() override { return host_.scheduler().Settled(); }
  void Attempted(std::string_view pod_key, std::chrono::nanoseconds took) override {
    attempted.emplace_back(pod_key);
    EXPECT_GE(took.count(), 0);
  }
  bool Idle() override { return clock_.AdvanceToNext(); }

  std::vector<std::string> attempted;

 private:
  framework::VirtualClock& clock_;
  const Host& host_;
};

TEST(Host, SchedulesTheClustersPodsUntilTheSchedulerSettles) {
  framework::VirtualClock clock{api::Time{}};
  cluster::MemoryCluster cluster{clock};
  std::vector<std::string> errors;
  std::unique_ptr<Host> host = Host::Create(cluster, clock, nullptr, /*seed=*/1, &errors);
  ASSERT_NE(host, nullptr) << errors.front();
  ASSERT_TRUE(cluster.Create(MakeNode().Name("n1").Capacity({{"cpu", "2"}, {"pods", "110"}}).Obj())
                  .IsSuccess());
  for (const char* name : {"a", "b", "c"}) {
    ASSERT_TRUE(cluster.Create(MakePod().Name(name).Req({{"cpu", "1"}}).Obj()).IsSuccess());
  }
  UntilSettled policy(clock, *host);
  host->Run(policy);
  // Two fit; the third is tried, and tried again once the cluster has changed (the others'
  // bindings came after its first attempt), then the scheduler has settled.
  EXPECT_EQ(cluster.Get<api::Pod>("default/a")->spec.node_name.str(), "n1");
  EXPECT_EQ(cluster.Get<api::Pod>("default/b")->spec.node_name.str(), "n1");
  EXPECT_TRUE(cluster.Get<api::Pod>("default/c")->spec.node_name.empty());
  EXPECT_GE(std::count(policy.attempted.begin(), policy.attempted.end(), "default/c"), 1);
  EXPECT_EQ(std::count(policy.attempted.begin(), policy.attempted.end(), "default/a"), 1);
  EXPECT_TRUE(host->scheduler().Settled());
}

// An object of a kind the scheduler neither schedules nor caches reaches the lister plugins
// read, and leaves it when deleted, with no code for the kind in between.
TEST(Host, EveryOtherKindReachesTheListerAndLeavesIt) {
  framework::VirtualClock clock{api::Time{}};
  cluster::MemoryCluster cluster{clock};
  std::vector<std::string> errors;
  std::unique_ptr<Host> host = Host::Create(cluster, clock, nullptr, /*seed=*/1, &errors);
  ASSERT_NE(host, nullptr) << errors.front();
  api::PodDisruptionBudget pdb;
  pdb.metadata.namespace_ = api::Symbol("prod");
  pdb.metadata.name = "web";
  api::Namespace ns;
  ns.metadata.name = "prod";
  ASSERT_TRUE(cluster.Create(pdb).IsSuccess());
  ASSERT_TRUE(cluster.Create(ns).IsSuccess());
  const framework::ObjectLister& lister = host->scheduler().lister();
  EXPECT_TRUE(lister.List<api::PodDisruptionBudget>(api::Symbol("prod")).empty())
      << "told through the clock, as an informer's watch";
  clock.RunDue();
  ASSERT_EQ(lister.List<api::PodDisruptionBudget>(api::Symbol("prod")).size(), 1u);
  EXPECT_NE(lister.Get<api::Namespace>(api::Symbol("prod")), nullptr);
  const uint64_t version = host->scheduler().ClusterVersion();
  pdb.min_available = api::IntOrString{.int_value = 2};
  ASSERT_TRUE(cluster.Update(pdb).IsSuccess());
  clock.RunDue();
  EXPECT_EQ(lister.Get<api::PodDisruptionBudget>(api::Symbol("prod"), api::Symbol("web"))
                ->min_available->int_value,
            2);
  EXPECT_GT(host->scheduler().ClusterVersion(), version) << "a change the scheduler may read";
  ASSERT_TRUE(cluster.Delete<api::PodDisruptionBudget>("prod/web").IsSuccess());
  clock.RunDue();
  EXPECT_TRUE(lister.List<api::PodDisruptionBudget>(api::Symbol("prod")).empty());
}

TEST(Host, ABadConfigurationBuildsNoHost) {
  framework::VirtualClock clock{api::Time{}};
  cluster::MemoryCluster cluster{clock};
  api::SchedulerConfiguration config;
  api::SchedulerProfile profile;
  profile.plugins.emplace().filter.enabled.push_back({"NoSuchPlugin", std::nullopt});
  config.profiles.push_back(profile);
  std::vector<std::string> errors;
  EXPECT_EQ(Host::Create(cluster, clock, &config, 0, &errors), nullptr);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors.front().find("NoSuchPlugin"), std::string::npos) << errors.front();
}

}  // namespace
}  // namespace muster::host
