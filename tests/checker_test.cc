// The invariant checker (sim/checker.h) catches what it promises to: each test breaks one
// invariant behind the scheduler's back (a binding it never made, a pod its informer never saw)
// and expects the violation, named with the event that broke it.

#include "muster/sim/checker.h"

#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/cli/config_file.h"
#include "muster/cluster/memory.h"
#include "muster/framework/virtual_clock.h"
#include "muster/host/host.h"
#include "muster/plugins/registry.h"
#include "muster/sim/testing/random_workload.h"

namespace muster::sim {
namespace {

using ::testing::HasSubstr;
using testing::MakeNode;
using testing::MakePod;

const api::Time kEpoch = api::Time{} + std::chrono::hours(1);

class CheckerTest : public ::testing::Test {
 protected:
  // Builds the scheduler and the checker; objects created before this, the scheduler never saw.
  // With `coscheduling`, the profile has Coscheduling (Group mode).
  void Start(bool coscheduling = false) {
    std::vector<std::string> errors;
    std::istringstream text(testing::CoschedulingConfig("mode: Group"));
    if (coscheduling) config_ = cli::LoadConfigFile("-", text, &errors);
    const api::SchedulerConfiguration* config = config_ ? &*config_ : nullptr;
    host_ = host::Host::Create(cluster_, clock_, config, 0, plugins::InTreeRegistry(),
                               plugins::DefaultPlugins(), &errors);
    ASSERT_NE(host_, nullptr) << errors.front();
    checker_ = std::make_unique<Checker>(cluster_, host_->scheduler(), clock_, kEpoch, config,
                                         plugins::InTreeRegistry(), plugins::DefaultPlugins());
    cluster_.AddObserver(checker_.get());
  }
  void CreateGroup(const char* name, int32_t min_member) {
    cluster_.Create(testing::MakePodGroup(name, min_member));
    clock_.RunDue();
  }
  // The pod as the cluster holds it now.
  const api::Pod& Pod(const std::string& key) { return *cluster_.Get<api::Pod>(key); }
  std::string Violated() {
    return checker_->violation() ? checker_->violation()->String() : "no violation";
  }

  std::optional<api::SchedulerConfiguration> config_;
  framework::VirtualClock clock_{kEpoch};
  cluster::MemoryCluster cluster_{clock_};
  std::unique_ptr<host::Host> host_;
  std::unique_ptr<Checker> checker_;
};

TEST_F(CheckerTest, ABindingThatOvercommitsTheNode) {
  Start();
  cluster_.Create(MakeNode().Name("n1").Capacity({{"cpu", "1"}, {"pods", "10"}}).Obj());
  clock_.RunDue();
  cluster_.Create(MakePod().Name("big").Req({{"cpu", "2"}}).Obj());
  clock_.RunDue();
  EXPECT_FALSE(checker_->violation());
  clock_.AdvanceTo(kEpoch + std::chrono::seconds(5));
  cluster_.Bind(Pod("default/big"), api::Symbol("n1"));
  clock_.RunDue();
  EXPECT_EQ(Violated(),
            "at 5s, after bind default/big to n1: binding pod default/big to node n1 puts cpu "
            "(millicores) requests at 2000, over allocatable 1000");
}

TEST_F(CheckerTest, ABindingAgainstTheFilters) {
  Start();
  cluster_.Create(MakeNode()
                      .Name("n1")
                      .Capacity({{"cpu", "4"}, {"pods", "10"}})
                      .Taint("dedicated", "gpu", api::TaintEffect::kNoSchedule)
                      .Obj());
  cluster_.Create(MakePod().Name("web").Req({{"cpu", "1"}}).Obj());
  clock_.RunDue();
  cluster_.Bind(Pod("default/web"), api::Symbol("n1"));
  clock_.RunDue();
  EXPECT_THAT(Violated(), HasSubstr("pod default/web was bound to node n1, which fails its "
                                    "filters: TaintToleration: node(s) had untolerated taint"));
}

TEST_F(CheckerTest, APodTheSchedulerNeverQueued) {
  cluster_.Create(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  clock_.RunDue();
  cluster_.Create(MakePod().Name("lost").Obj());
  clock_.RunDue();  // its event reaches no one: the scheduler is not subscribed yet
  Start();
  checker_->AfterTurn();
  EXPECT_THAT(Violated(), HasSubstr("pod default/lost is pending but the scheduler has dropped "
                                    "it"));
}

TEST_F(CheckerTest, APodBoundTwice) {
  Start();
  for (const char* name : {"n1", "n2"}) {
    cluster_.Create(MakeNode().Name(name).Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
    clock_.RunDue();
  }
  cluster_.Create(MakePod().Name("web").Obj());
  clock_.RunDue();
  cluster_.Bind(Pod("default/web"), api::Symbol("n1"));
  clock_.RunDue();
  checker_->AfterTurn();
  EXPECT_FALSE(checker_->violation()) << Violated();
  api::Pod moved = Pod("default/web");
  moved.spec.node_name = api::Symbol("n2");
  cluster_.Update(moved);
  clock_.RunDue();
  EXPECT_THAT(Violated(), HasSubstr("pod default/web was bound to n1 and is now bound to n2"));
}

TEST_F(CheckerTest, AGangBoundBelowMinMember) {
  Start(/*coscheduling=*/true);
  cluster_.Create(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  clock_.RunDue();
  CreateGroup("g", 3);
  for (const char* name : {"a", "b", "c"}) {
    cluster_.Create(MakePod().Name(name).PodGroup("g").Obj());
    clock_.RunDue();
  }
  cluster_.Bind(Pod("default/a"), api::Symbol("n1"));
  clock_.RunDue();
  cluster_.Bind(Pod("default/b"), api::Symbol("n1"));
  clock_.RunDue();
  EXPECT_FALSE(checker_->violation()) << Violated();  // the instant is not over yet
  checker_->EndOfInstant();
  EXPECT_THAT(Violated(), HasSubstr("gang default/g bound 2 member(s), fewer than its minCount 3"));
}

TEST_F(CheckerTest, WithoutAGroupPluginAPodGroupPromisesNothing) {
  Start();
  cluster_.Create(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  clock_.RunDue();
  CreateGroup("g", 3);
  cluster_.Create(MakePod().Name("a").PodGroup("g").Obj());
  clock_.RunDue();
  cluster_.Bind(Pod("default/a"), api::Symbol("n1"));
  clock_.RunDue();
  checker_->EndOfInstant();
  EXPECT_FALSE(checker_->violation()) << Violated();
}

// A composite group's tree (KEP-6012) binds only with its root's quorum: job (minGroupCount 2)
// of two PodGroups of one member each, g1 (a gang of minCount 1) and g2 (basic).
class CheckerTreeTest : public CheckerTest {
 protected:
  void SetUp() override {
    Start();
    cluster_.Create(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
    clock_.RunDue();
    api::CompositePodGroup job;
    job.metadata.name = "job";
    job.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
    job.spec.policy.min_count = 2;
    cluster_.Create(job);
    for (const char* name : {"g1", "g2"}) {
      api::SchedulingPodGroup group;
      group.metadata.name = name;
      group.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
      group.spec.parent = api::Symbol("job");
      // g2 is basic: whole with one member bound, as the scheduler counts it.
      if (std::string_view(name) == "g1") group.spec.policy.min_count = 1;
      cluster_.Create(group);
      api::Pod pod = MakePod().Name(std::string(name) + "-0").Obj();
      pod.spec.scheduling_group = api::Symbol(name);
      cluster_.Create(pod);
      clock_.RunDue();
    }
  }
};

TEST_F(CheckerTreeTest, ATreeBoundWithItsRootsQuorum) {
  cluster_.Bind(Pod("default/g1-0"), api::Symbol("n1"));
  cluster_.Bind(Pod("default/g2-0"), api::Symbol("n1"));
  clock_.RunDue();
  checker_->EndOfInstant();
  EXPECT_FALSE(checker_->violation()) << Violated();
}

TEST_F(CheckerTreeTest, ATreeBoundBelowItsRootsQuorum) {
  cluster_.Bind(Pod("default/g1-0"), api::Symbol("n1"));
  clock_.RunDue();
  checker_->EndOfInstant();
  EXPECT_THAT(Violated(), HasSubstr("composite pod group default/job bound members with 1 of its "
                                    "2 groups whole, fewer than its minGroupCount 2"));
}

// A gang bound whole (Coscheduling, Group mode): g of two on n1, which is no violation. It is also
// a gang evicted whole (any Coscheduling PodGroup): the tests below delete its members the way
// the scheduler's preemption takes pods (DeletePod, with DisruptionTarget).
class CheckerGangPreemptionTest : public CheckerTest {
 protected:
  void SetUp() override {
    Start(/*coscheduling=*/true);
    cluster_.Create(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
    clock_.RunDue();
    CreateGroup("g", 2);
    for (const char* name : {"a", "b"}) {
      cluster_.Create(MakePod().Name(name).PodGroup("g").Req({{"cpu", "2"}}).Obj());
      clock_.RunDue();
      cluster_.Bind(Pod(std::string("default/") + name), api::Symbol("n1"));
      clock_.RunDue();
    }
    checker_->EndOfInstant();
    ASSERT_FALSE(checker_->violation()) << Violated();
  }
};

TEST_F(CheckerGangPreemptionTest, AWholeGangAndAFittingPodAreNoViolation) {
  checker_->AfterTurn();
  EXPECT_FALSE(checker_->violation()) << Violated();
}

TEST_F(CheckerGangPreemptionTest, PreemptionTakingPartOfTheGang) {
  ASSERT_TRUE(cluster_.DeletePod(Pod("default/a")).IsSuccess());
  clock_.RunDue();
  checker_->EndOfInstant();
  EXPECT_THAT(Violated(), HasSubstr("preemption took part of gang default/g, which is evicted "
                                    "whole: default/b still runs on n1"));
}

TEST_F(CheckerGangPreemptionTest, PreemptionTakingTheWholeGang) {
  ASSERT_TRUE(cluster_.DeletePod(Pod("default/a")).IsSuccess());
  ASSERT_TRUE(cluster_.DeletePod(Pod("default/b")).IsSuccess());
  clock_.RunDue();
  checker_->EndOfInstant();
  EXPECT_FALSE(checker_->violation()) << Violated();
}

TEST_F(CheckerTest, ANominationOfAPodThatIsGone) {
  Start();
  cluster_.Create(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  clock_.RunDue();
  // The scheduler hears of a nominated pod the cluster never had (a nomination outliving its
  // pod looks the same).
  api::Pod ghost = MakePod().Name("ghost").Obj();
  ghost.status.nominated_node_name = api::Symbol("n1");
  host_->scheduler().OnAdd(std::make_shared<const api::Pod>(ghost));
  checker_->AfterTurn();
  EXPECT_THAT(Violated(), HasSubstr("pod default/ghost is nominated to n1 but no longer exists"));
}

TEST_F(CheckerTest, APendingPodThatFitsAtTheEnd) {
  Start();
  cluster_.Create(MakeNode().Name("n1").Capacity({{"cpu", "1"}, {"pods", "10"}}).Obj());
  clock_.RunDue();
  cluster_.Create(MakePod().Name("web").Req({{"cpu", "2"}}).Obj());
  clock_.RunDue();
  checker_->EndOfRun();
  EXPECT_FALSE(checker_->violation()) << Violated();  // it fits nowhere
  // Room appears behind the scheduler's back: nothing retries the pod.
  cluster_.Update(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  checker_->Updated(std::make_shared<const api::Node>(),
                    std::make_shared<const api::Node>(*cluster_.Get<api::Node>("n1")));
  checker_->EndOfRun();
  EXPECT_THAT(Violated(), HasSubstr("pod default/web is left pending, but it passes PreFilter "
                                    "and Filter on node n1"));
}

}  // namespace
}  // namespace muster::sim
