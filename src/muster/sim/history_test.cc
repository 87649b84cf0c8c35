#include "muster/sim/history.h"

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/cluster/memory.h"
#include "muster/framework/virtual_clock.h"

namespace muster::sim {
namespace {

using std::chrono::seconds;
using testing::MakeNode;
using testing::MakePod;

const api::Time kEpoch = api::Time{} + std::chrono::hours(1);

// The cluster's events reach the history through the clock, as in a simulation.
class HistoryTest : public ::testing::Test {
 protected:
  HistoryTest() {
    cluster_.AddObserver(&history_);
    cluster_.Create(MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj());
  }

  // Moves the clock to `t`, makes the changes of `fn` and delivers their events.
  void At(seconds t, const std::function<void()>& fn) {
    clock_.AdvanceTo(kEpoch + t);
    fn();
    clock_.RunDue();
  }
  void CreateGroup(const char* name, int32_t min_member) {
    cluster_.Create(testing::MakePodGroup(name, min_member));
  }
  const api::Pod& Pod(const std::string& name) {
    return *cluster_.Get<api::Pod>("default/" + name);
  }
  void SetPhase(const std::string& name, api::PodPhase phase) {
    api::Pod pod = Pod(name);
    pod.status.phase = phase;
    cluster_.Update(pod);
  }
  // "at: pending/gated/running/succeeded/failed" per sample.
  std::vector<std::string> Samples() const {
    std::vector<std::string> out;
    for (const CountSample& s : history_.samples()) {
      out.push_back(api::FormatDuration(s.at) + ": " + std::to_string(s.counts.pending) + "/" +
                    std::to_string(s.counts.gated) + "/" + std::to_string(s.counts.running) + "/" +
                    std::to_string(s.counts.succeeded) + "/" + std::to_string(s.counts.failed));
    }
    return out;
  }

  framework::VirtualClock clock_{kEpoch};
  cluster::MemoryCluster cluster_{clock_};
  History history_{clock_, kEpoch};
};

TEST_F(HistoryTest, KeepsOneSamplePerInstantAndOnlyChanges) {
  At(seconds(0), [&] {
    cluster_.Create(MakePod().Name("a").Req({{"cpu", "1"}}).Obj());
    cluster_.Create(MakePod().Name("b").Req({{"cpu", "1"}}).Obj());
  });
  // Bound and started at the same instant: never seen pending then running at 5s.
  At(seconds(5), [&] { cluster_.Bind(Pod("a"), api::Symbol("n1")); });
  At(seconds(5), [&] { SetPhase("a", api::PodPhase::kRunning); });
  // A change that leaves the counts as they were is no sample.
  At(seconds(7), [&] {
    cluster_.UpdatePodCondition(Pod("b"),
                                api::Condition{api::Symbol("PodScheduled"), api::Symbol("False"),
                                               "Unschedulable", "no", clock_.Now()},
                                std::nullopt);
  });
  At(seconds(30), [&] { SetPhase("a", api::PodPhase::kSucceeded); });
  At(seconds(40), [&] { cluster_.Delete<api::Pod>("default/b"); });
  EXPECT_EQ(Samples(), (std::vector<std::string>{"0s: 2/0/0/0/0", "5s: 1/0/1/0/0", "30s: 1/0/0/1/0",
                                                 "40s: 0/0/0/1/0"}));
  EXPECT_EQ(history_.counts(), (PodCounts{.succeeded = 1}));
}

TEST_F(HistoryTest, AnInstantThatEndsWhereItStartedLeavesNoSample) {
  At(seconds(0), [&] { cluster_.Create(MakePod().Name("a").Obj()); });
  At(seconds(3), [&] {
    cluster_.Create(MakePod().Name("b").Obj());
    cluster_.Delete<api::Pod>("default/b");
  });
  EXPECT_EQ(Samples(), std::vector<std::string>{"0s: 1/0/0/0/0"});
}

TEST_F(HistoryTest, CountsGatedPodsApartUntilUngated) {
  At(seconds(0), [&] { cluster_.Create(MakePod().Name("a").SchedulingGate("wait").Obj()); });
  At(seconds(10), [&] {
    api::Pod ungated = Pod("a");
    ungated.spec.scheduling_gates.clear();
    cluster_.Update(ungated);
  });
  EXPECT_EQ(Samples(), (std::vector<std::string>{"0s: 0/1/0/0/0", "10s: 1/0/0/0/0"}));
}

TEST_F(HistoryTest, RecordsEachGroupMilestoneOnce) {
  At(seconds(0), [&] { CreateGroup("g", 2); });
  At(seconds(5), [&] {
    for (const char* name : {"g-0", "g-1", "g-2"}) {
      cluster_.Create(MakePod().Name(name).PodGroup("g").Req({{"cpu", "1"}}).Obj());
    }
  });
  At(seconds(7), [&] { cluster_.Bind(Pod("g-0"), api::Symbol("n1")); });
  EXPECT_FALSE(history_.groups().at("default/g").quorum) << "one bound, minMember 2";
  At(seconds(8), [&] {
    cluster_.Bind(Pod("g-1"), api::Symbol("n1"));
    SetPhase("g-0", api::PodPhase::kRunning);
  });
  At(seconds(9), [&] { SetPhase("g-1", api::PodPhase::kRunning); });
  At(seconds(30), [&] {
    SetPhase("g-0", api::PodPhase::kSucceeded);
    SetPhase("g-1", api::PodPhase::kSucceeded);
  });
  EXPECT_FALSE(history_.groups().at("default/g").finished) << "g-2 is still pending";
  // Once g-2 is gone, every member left has succeeded.
  At(seconds(35), [&] { cluster_.Delete<api::Pod>("default/g-2"); });
  At(seconds(40), [&] { cluster_.Delete<api::PodGroup>("default/g"); });

  const GroupTimeline& g = history_.groups().at("default/g");
  EXPECT_EQ(g.min_count, 2);
  EXPECT_EQ(g.created, api::Duration(seconds(0)));
  EXPECT_EQ(g.first_member, api::Duration(seconds(5)));
  EXPECT_EQ(g.quorum, api::Duration(seconds(8)));
  EXPECT_EQ(g.running, api::Duration(seconds(9)));
  EXPECT_EQ(g.finished, api::Duration(seconds(35)));
  EXPECT_EQ(g.deleted, api::Duration(seconds(40)));
  EXPECT_EQ(g.members, 2);
  EXPECT_EQ(g.succeeded_now, 2);
}

std::vector<std::string> States(const GroupTimeline& g) {
  static constexpr const char* kNames[] = {"waiting", "quorum", "running", "finished"};
  std::vector<std::string> out;
  for (const GroupStateChange& c : g.states) {
    out.push_back(api::FormatDuration(c.from) + " " + kNames[static_cast<int>(c.state)]);
  }
  return out;
}

// A running group that loses a member (preempted) waits again, and runs again once the member
// is replaced; its milestones stay the first times.
TEST_F(HistoryTest, AGroupThatLosesAMemberWaitsAndRunsAgain) {
  At(seconds(0), [&] {
    CreateGroup("g", 2);
    for (const char* name : {"g-0", "g-1"}) {
      cluster_.Create(MakePod().Name(name).PodGroup("g").Req({{"cpu", "1"}}).Obj());
    }
  });
  At(seconds(1), [&] {
    cluster_.Bind(Pod("g-0"), api::Symbol("n1"));
    cluster_.Bind(Pod("g-1"), api::Symbol("n1"));
  });
  At(seconds(1), [&] {
    SetPhase("g-0", api::PodPhase::kRunning);
    SetPhase("g-1", api::PodPhase::kRunning);
  });
  At(seconds(5), [&] { cluster_.DeletePod(Pod("g-1")); });
  At(seconds(6), [&] {
    cluster_.Create(MakePod().Name("g-2").PodGroup("g").Req({{"cpu", "1"}}).Obj());
  });
  At(seconds(8), [&] { cluster_.Bind(Pod("g-2"), api::Symbol("n1")); });
  At(seconds(9), [&] { SetPhase("g-2", api::PodPhase::kRunning); });

  const GroupTimeline& g = history_.groups().at("default/g");
  EXPECT_EQ(States(g), (std::vector<std::string>{"0s waiting", "1s running", "5s waiting",
                                                 "8s quorum", "9s running"}));
  EXPECT_EQ(g.running, api::Duration(seconds(1)));
  EXPECT_EQ(g.quorum, api::Duration(seconds(1)));
}

TEST_F(HistoryTest, MembersBeforeTheirGroupReachMilestonesWhenItIsCreated) {
  At(seconds(0), [&] { cluster_.Create(MakePod().Name("early").PodGroup("late").Obj()); });
  At(seconds(0), [&] { cluster_.Bind(Pod("early"), api::Symbol("n1")); });
  EXPECT_FALSE(history_.groups().at("default/late").quorum);
  At(seconds(9), [&] { CreateGroup("late", 1); });
  EXPECT_EQ(history_.groups().at("default/late").first_member, api::Duration(seconds(0)));
  EXPECT_EQ(history_.groups().at("default/late").quorum, api::Duration(seconds(9)));
}

TEST_F(HistoryTest, KeepsEachNodesRequestsAndTheirPeak) {
  At(seconds(0), [&] {
    cluster_.Create(MakePod().Name("a").Req({{"cpu", "1"}, {"example.com/gpu", "2"}}).Obj());
    cluster_.Create(MakePod().Name("b").Req({{"cpu", "2"}}).Obj());
  });
  EXPECT_EQ(history_.node(api::Symbol("n1")), nullptr);
  At(seconds(0), [&] {
    cluster_.Bind(Pod("a"), api::Symbol("n1"));
    cluster_.Bind(Pod("b"), api::Symbol("n1"));
  });
  At(seconds(5), [&] { SetPhase("a", api::PodPhase::kSucceeded); });
  const NodeUsage* usage = history_.node(api::Symbol("n1"));
  ASSERT_NE(usage, nullptr);
  EXPECT_EQ(usage->requested.milli_cpu, 2000);
  EXPECT_EQ(usage->requested.allowed_pod_number, 1);
  EXPECT_EQ(usage->requested.Scalar(api::Symbol("example.com/gpu")), 0);
  EXPECT_EQ(usage->peak.milli_cpu, 3000);
  EXPECT_EQ(usage->peak.allowed_pod_number, 2);
  EXPECT_EQ(usage->peak.Scalar(api::Symbol("example.com/gpu")), 2);
  EXPECT_EQ(history_.total().requested.milli_cpu, 2000);
  EXPECT_EQ(history_.total().peak.milli_cpu, 3000);
}

}  // namespace
}  // namespace muster::sim
