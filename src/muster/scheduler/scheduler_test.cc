#include "muster/scheduler/scheduler.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "muster/cluster/memory.h"
#include "muster/cluster/scheduler_observer.h"
#include "muster/plugins/registry.h"
#include "muster/sim/virtual_clock.h"
#include "muster/testing/builders.h"

namespace muster::scheduler {
namespace {

using testing::MakeNode;
using testing::MakePod;

// The default profile over a MemoryCluster of `count` nodes "n000", "n001", ... (no zones, so
// the scheduler lists them in that order), of which those `feasible` rejects are cordoned.
class SchedulerOverNodes {
 public:
  SchedulerOverNodes(int count, const std::function<bool(int)>& feasible) {
    std::vector<std::string> errors;
    scheduler_ = Scheduler::Create(nullptr, plugins::InTreeRegistry(), plugins::DefaultPlugins(),
                                   clock_, cluster_, /*seed=*/1, &errors);
    EXPECT_TRUE(errors.empty());
    observer_ = std::make_unique<cluster::SchedulerObserver>(*scheduler_);
    cluster_.AddObserver(observer_.get());
    for (int i = 0; i < count; ++i) {
      EXPECT_TRUE(cluster_
                      .CreateNode(MakeNode()
                                      .Name(fmt::format("n{:03}", i))
                                      .Capacity({{"cpu", "4"}, {"memory", "32Gi"}, {"pods", "110"}})
                                      .Unschedulable(!feasible(i))
                                      .Obj())
                      .IsSuccess());
    }
    clock_.RunDue();
  }

  // Schedules one pod to its end; returns the node's number, or -1.
  int Place(const std::string& name) {
    EXPECT_TRUE(cluster_.CreatePod(MakePod().Name(name).Req({{"cpu", "100m"}}).Obj()).IsSuccess());
    clock_.RunDue();
    while (scheduler_->ScheduleOne()) clock_.RunDue();
    const api::Pod* pod = cluster_.GetPod("default/" + name);
    if (pod == nullptr || pod->spec.node_name.empty()) return -1;
    return std::stoi(std::string(pod->spec.node_name.str().substr(1)));
  }

 private:
  sim::VirtualClock clock_{api::Time{}};
  cluster::MemoryCluster cluster_{clock_};
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<cluster::SchedulerObserver> observer_;
};

// Upstream's findNodesThatFitPod on a large cluster: from where the last cycle stopped, the
// first numFeasibleNodesToFind feasible nodes in order (here 42% of 1000, 420), and the next
// cycle starts after the last node that decided it. Only those nodes are scored, so each pod
// lands among them.
void ExpectRoundRobinWindows(const std::function<bool(int)>& feasible) {
  constexpr int kNodes = 1000;
  constexpr int kToFind = 420;  // max(50 - 1000/125, 5)% of 1000 nodes
  SchedulerOverNodes s(kNodes, feasible);
  int start = 0;
  for (int pod = 0; pod < 10; ++pod) {
    std::set<int> window;
    int processed = 0;
    for (; processed < kNodes && static_cast<int>(window.size()) < kToFind; ++processed) {
      const int node = (start + processed) % kNodes;
      if (feasible(node)) window.insert(node);
    }
    const int placed = s.Place(fmt::format("p{}", pod));
    EXPECT_TRUE(window.contains(placed))
        << "pod " << pod << " on n" << placed << ", outside the " << window.size()
        << " nodes from n" << start;
    start = (start + processed) % kNodes;
  }
}

TEST(FindNodesThatFitPod, ScoresTheFirstFeasibleNodesFromWhereTheLastCycleStopped) {
  ExpectRoundRobinWindows([](int) { return true; });
}

TEST(FindNodesThatFitPod, SkipsRejectedNodesInTheWindow) {
  // Cordoned nodes in runs that straddle the 64-node blocks the filter works in.
  ExpectRoundRobinWindows([](int i) { return i % 3 != 0 && (i / 50) % 4 != 1; });
}

TEST(FindNodesThatFitPod, FewFeasibleNodesAreAllFound) {
  // Fewer feasible nodes than the window wants: every node is examined in several rounds, and
  // the pod lands on one of the feasible ones.
  SchedulerOverNodes s(1000, [](int i) { return i % 97 == 5; });
  for (int pod = 0; pod < 3; ++pod) {
    const int placed = s.Place(fmt::format("p{}", pod));
    EXPECT_EQ(placed % 97, 5) << placed;
  }
}

TEST(FindNodesThatFitPod, NoFeasibleNodeLeavesThePodPending) {
  SchedulerOverNodes s(300, [](int) { return false; });
  EXPECT_EQ(s.Place("p"), -1);
}

}  // namespace
}  // namespace muster::scheduler
