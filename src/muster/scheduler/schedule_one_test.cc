// scheduleOne (schedule_one.cc): the scheduling cycle of one pod, through the scheduler's own
// plugins harness (scheduler/testing/harness.h).

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/scheduler/testing/harness.h"

namespace muster::scheduler {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::SchedulerHarness;

TEST(ScheduleOne, BindsAPodToANodeWithRoom) {
  SchedulerHarness h;
  h.AddNode(MakeNode().Name("full").Capacity({{"pods", "0"}}).Obj());
  h.AddNode(MakeNode().Name("roomy").Capacity({{"pods", "10"}}).Obj());
  h.AddPod(MakePod().Name("web").Obj());
  EXPECT_EQ(h.RunCycles(), 1);
  EXPECT_EQ(h.Bindings(), std::vector<std::string>{"default/web -> roomy"});
  EXPECT_EQ(h.scheduler().stats().scheduled, 1u);
}

// A pod that fits nowhere: upstream's FitError message, counted by reason, as the PodScheduled
// condition and a FailedScheduling event; the pod waits for an event that may help.
TEST(ScheduleOne, APodThatFitsNowhereSaysWhyEachNodeRefused) {
  SchedulerHarness h;
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "0"}}).Obj());
  h.AddNode(MakeNode().Name("n2").Capacity({{"pods", "10"}}).Unschedulable(true).Obj());
  h.AddNode(MakeNode().Name("n3").Capacity({{"pods", "0"}}).Obj());
  h.AddPod(MakePod().Name("web").Obj());
  h.RunCycles();
  EXPECT_TRUE(h.Bindings().empty());
  const std::string want =
      "0/3 nodes are available: 1 node(s) were unschedulable, 2 Too many pods.";
  ASSERT_EQ(h.client().condition_updates.size(), 1u);
  EXPECT_EQ(h.client().condition_updates[0].second.reason, "Unschedulable");
  EXPECT_EQ(h.client().condition_updates[0].second.message, want);
  ASSERT_EQ(h.client().events.size(), 1u);
  EXPECT_EQ(h.client().events[0].reason, "FailedScheduling");
  EXPECT_EQ(h.client().events[0].message, want);
  EXPECT_EQ(h.scheduler().queue().NumUnschedulable(), 1u);
  EXPECT_FALSE(h.scheduler().HasActivePods());
}

bool HasLine(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

// kube-scheduler's scheduler_plugin_evaluation_total, scheduler_event_handling_duration_seconds,
// scheduler_queueing_hint_execution_duration_seconds and scheduler_goroutines, from a pod that
// fits, one that fits nowhere, and the node that comes for it.
TEST(ScheduleOne, MetricsCountEvaluationsEventsHintsAndBindings) {
  SchedulerHarness h;
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "0"}}).Obj());
  h.AddNode(MakeNode().Name("n2").Capacity({{"pods", "10"}}).Unschedulable(true).Obj());
  h.AddNode(MakeNode().Name("n3").Capacity({{"pods", "1"}}).Obj());
  h.AddPod(MakePod().Name("web").Obj());
  h.RunCycles();
  ASSERT_EQ(h.Bindings(), std::vector<std::string>{"default/web -> n3"});
  h.AddPod(MakePod().Name("late").Obj());  // n3 is full now
  h.RunCycles();
  h.AddNode(MakeNode().Name("n4").Capacity({{"pods", "10"}}).Obj());
  const std::string text = h.scheduler().metrics()->Text();
  // Cordoned, first, ran on every node twice; PodSlots on the two it passed each time.
  EXPECT_TRUE(HasLine(
      text,
      R"(scheduler_plugin_evaluation_total{extension_point="Filter",plugin="Cordoned",profile="default-scheduler"} 6)"))
      << text;
  EXPECT_TRUE(HasLine(
      text,
      R"(scheduler_plugin_evaluation_total{extension_point="Filter",plugin="PodSlots",profile="default-scheduler"} 4)"));
  EXPECT_TRUE(
      HasLine(text, R"(scheduler_event_handling_duration_seconds_count{event="NodeAdd"} 4)"));
  EXPECT_TRUE(HasLine(
      text, R"(scheduler_event_handling_duration_seconds_count{event="UnscheduledPodAdd"} 2)"));
  // The new node asked both plugins that turned "late" away; neither has a hint of its own, so
  // upstream's default answers Queue.
  EXPECT_TRUE(HasLine(
      text,
      R"(scheduler_queueing_hint_execution_duration_seconds_count{event="NodeAdd",hint="Queue",plugin="Cordoned"} 1)"));
  EXPECT_TRUE(HasLine(
      text,
      R"(scheduler_queueing_hint_execution_duration_seconds_count{event="NodeAdd",hint="Queue",plugin="PodSlots"} 1)"));
  // web's binding is over.
  EXPECT_TRUE(HasLine(text, R"(scheduler_goroutines{operation="binding"} 0)"));
}

// Upstream's skipPodSchedule: a pending pod being deleted (a finalizer holds it) is not placed;
// a Warning says so, and nothing else is written.
TEST(ScheduleOne, APodBeingDeletedIsSkipped) {
  SchedulerHarness h;
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "10"}}).Obj());
  api::Pod pod = MakePod().Name("leaving").Obj();
  pod.metadata.deletion_timestamp = h.clock().Now();
  h.AddPod(pod);
  h.RunCycles();
  EXPECT_TRUE(h.Bindings().empty());
  EXPECT_TRUE(h.client().condition_updates.empty());
  ASSERT_EQ(h.client().events.size(), 1u);
  EXPECT_EQ(h.client().events[0].type, "Warning");
  EXPECT_EQ(h.client().events[0].reason, "FailedScheduling");
  EXPECT_EQ(h.client().events[0].message, "skip schedule deleting pod: default/leaving");
  EXPECT_EQ(h.scheduler().stats().attempts, 0u);
  EXPECT_FALSE(h.scheduler().HasActivePods());
}

// Upstream's truncateMessage: an Event's note holds 1024 bytes; FailedScheduling keeps 1020 and
// says " ..." (the pod's condition keeps the whole message).
TEST(ScheduleOne, AFailedSchedulingNoteIsCutAsUpstreamCutsIt) {
  EXPECT_EQ(framework::TruncateEventNote("short"), "short");
  const std::string exact(1024, 'x');
  EXPECT_EQ(framework::TruncateEventNote(exact), exact);
  const std::string cut = framework::TruncateEventNote(std::string(1020, 'a') + "bcdef");
  EXPECT_EQ(cut.size(), 1024u);
  EXPECT_EQ(cut, std::string(1020, 'a') + " ...");
}

// A PreBind plugin that waits (VolumeBinding while claims are being bound) holds its pod's bind
// without holding the scheduler: it is asked again each second, the pod keeps its room on the
// node meanwhile, and other pods are scheduled.
TEST(BindingCycle, APreBindThatWaitsHoldsTheBindUntilItLetsGo) {
  SchedulerHarness h;
  const api::Time start = h.clock().Now();
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "2"}}).Obj());
  h.AddPod(MakePod().Name("db").Annotation(testing::kReadyAfter, "3").Obj());
  h.RunCycles();
  EXPECT_TRUE(h.Bindings().empty());
  h.AddPod(MakePod().Name("web").Obj());
  h.AddPod(MakePod().Name("late").Obj());
  h.RunCycles();
  EXPECT_EQ(h.Bindings(), std::vector<std::string>{"default/web -> n1"})
      << "db keeps its room while it waits";
  // KEP-5278: db, whose PreBind acts, is nominated to its node as its binding begins; web, bound
  // at once, is not.
  using Nomination = std::pair<std::string, std::string>;
  EXPECT_EQ(h.client().nominations, (std::vector<Nomination>{{"default/db", "n1"}}));
  // The nomination coming back through the informer leaves db the cache's alone: it is not
  // counted again among n1's nominated pods.
  api::Pod db = MakePod().Name("db").Annotation(testing::kReadyAfter, "3").Obj();
  api::Pod db_nominated = db;
  db_nominated.status.nominated_node_name = api::Symbol("n1");
  h.UpdatePod(db, db_nominated);
  EXPECT_TRUE(h.scheduler().queue().NominatedPods().empty());
  for (int second = 1; second <= 2; ++second) {
    h.clock().AdvanceTo(start + std::chrono::seconds(second));
    h.RunCycles();
    EXPECT_EQ(h.Bindings().size(), 1u) << "at " << second << "s";
  }
  h.clock().AdvanceTo(start + std::chrono::seconds(3));
  h.RunCycles();
  EXPECT_EQ(h.Bindings(), (std::vector<std::string>{"default/web -> n1", "default/db -> n1"}));
  EXPECT_EQ(h.scheduler().stats().scheduled, 2u);
}

// A wait that ends in an error fails the binding as a failed PreBind does: the pod's room is
// given back and the pod is retried after backoff, with the error as its condition.
TEST(BindingCycle, APreBindWaitThatFailsGivesTheRoomBack) {
  SchedulerHarness h;
  const api::Time start = h.clock().Now();
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "1"}}).Obj());
  h.AddPod(MakePod().Name("db").Annotation(testing::kGiveUpAfter, "2").Obj());
  h.AddPod(MakePod().Name("web").Priority(-1).Obj());
  h.RunCycles();
  EXPECT_TRUE(h.Bindings().empty());
  h.clock().AdvanceTo(start + std::chrono::seconds(2));
  h.RunCycles();
  EXPECT_EQ(h.Bindings(), std::vector<std::string>{"default/web -> n1"});
  ASSERT_FALSE(h.client().condition_updates.empty());
  const auto& [pod, condition] = h.client().condition_updates.back();
  EXPECT_EQ(pod, "default/db");
  EXPECT_EQ(condition.reason, "SchedulerError");
  EXPECT_EQ(condition.message, "running PreBind plugin \"Awaiting\": gave up waiting");
  // Nominated as its binding began, and the nomination cleared with the failure.
  using Nomination = std::pair<std::string, std::string>;
  EXPECT_EQ(h.client().nominations,
            (std::vector<Nomination>{{"default/db", "n1"}, {"default/db", ""}}));
}

// A pod deleted while its bind waits is let go at once: unreserved, its room free for the pods
// that were turned away for want of it, no more polls.
TEST(BindingCycle, APodDeletedWhileItsBindWaitsIsLetGo) {
  SchedulerHarness h;
  const api::Time start = h.clock().Now();
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "1"}}).Obj());
  const api::Pod db = MakePod().Name("db").Annotation(testing::kReadyAfter, "5").Obj();
  h.AddPod(db);
  h.RunCycles();
  EXPECT_EQ(h.scheduler().cache().PodCount(), 1u) << "db assumed while it waits";
  h.AddPod(MakePod().Name("web").Obj());
  h.RunCycles();
  EXPECT_EQ(h.scheduler().queue().NumUnschedulable(), 1u) << "web: Too many pods";
  h.DeletePod(db);
  EXPECT_EQ(h.scheduler().cache().PodCount(), 0u);
  h.clock().AdvanceTo(start + std::chrono::seconds(1));  // web's backoff
  h.RunCycles();
  EXPECT_EQ(h.Bindings(), std::vector<std::string>{"default/web -> n1"});
  h.clock().AdvanceTo(start + std::chrono::seconds(5));
  h.RunCycles();
  EXPECT_EQ(h.Bindings(), std::vector<std::string>{"default/web -> n1"});
  EXPECT_EQ(h.clock().PendingKeepAlive(), 0u) << "nothing polls on";
}

// The default profile over `count` nodes "n000", "n001", ... (listed in that order: no zones),
// of which those `feasible` rejects are cordoned.
class Nodes {
 public:
  Nodes(int count, const std::function<bool(int)>& feasible) {
    for (int i = 0; i < count; ++i) {
      h_.AddNode(MakeNode()
                     .Name(fmt::format("n{:03}", i))
                     .Capacity({{"pods", "110"}})
                     .Unschedulable(!feasible(i))
                     .Obj());
    }
  }

  // Schedules one pod; returns the node's number, or -1.
  int Place(const std::string& name) {
    const size_t before = h_.client().bindings.size();
    h_.AddPod(MakePod().Name(name).Obj());
    h_.RunCycles();
    if (h_.client().bindings.size() == before) return -1;
    return std::stoi(h_.client().bindings.back().second.substr(1));
  }

 private:
  SchedulerHarness h_;
};

// Upstream's findNodesThatFitPod on a large cluster: from where the last cycle stopped, the
// first numFeasibleNodesToFind feasible nodes in order (here 42% of 1000, 420), and the next
// cycle starts after the last node that decided it. Only those nodes are scored, so each pod
// lands among them.
void ExpectRoundRobinWindows(const std::function<bool(int)>& feasible) {
  constexpr int kNodes = 1000;
  constexpr int kToFind = 420;  // max(50 - 1000/125, 5)% of 1000 nodes
  Nodes s(kNodes, feasible);
  int start = 0;
  for (int pod = 0; pod < 10; ++pod) {
    std::set<int> window;
    int processed = 0;
    for (; processed < kNodes && static_cast<int>(window.size()) < kToFind; ++processed) {
      const int node = (start + processed) % kNodes;
      if (feasible(node)) window.insert(node);
    }
    const int placed = s.Place(fmt::format("p{}", pod));
    EXPECT_TRUE(window.contains(placed)) << "pod " << pod << " on n" << placed << ", outside the "
                                         << window.size() << " nodes from n" << start;
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
  Nodes s(1000, [](int i) { return i % 97 == 5; });
  for (int pod = 0; pod < 3; ++pod) {
    const int placed = s.Place(fmt::format("p{}", pod));
    EXPECT_EQ(placed % 97, 5) << placed;
  }
}

TEST(FindNodesThatFitPod, NoFeasibleNodeLeavesThePodPending) {
  Nodes s(300, [](int) { return false; });
  EXPECT_EQ(s.Place("p"), -1);
}

}  // namespace
}  // namespace muster::scheduler
