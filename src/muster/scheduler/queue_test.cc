#include "muster/scheduler/queue.h"

#include <algorithm>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/metrics.h"
#include "muster/framework/testing/fake_clock.h"
#include "muster/framework/virtual_clock.h"

namespace muster::scheduler {
namespace {

using framework::ClusterEvent;
using framework::EventObjects;
using framework::EventResource;
using framework::QueuedPodInfo;
using testing::MakePod;

// Orders by priority, then queue timestamp (and says so, unless `keyed` is false: the heap then
// asks Compare); gates block; plugin "Fit" registered for node adds, with a hint that queues
// only for nodes labelled big=true.
class FakeProfiles : public QueueProfiles {
 public:
  bool keyed = true;
  bool OrdersByPriorityThenTimestamp() const override { return keyed; }
  int Compare(const QueuedPodInfo& a, const QueuedPodInfo& b) const override {
    if (const int c = framework::ThreeWay(b.pod().Priority(), a.pod().Priority()); c != 0) {
      return c;
    }
    return framework::ThreeWay(a.timestamp, b.timestamp);
  }
  framework::Status PreEnqueue(const api::Pod& pod) const override {
    if (pod.spec.scheduling_gates.empty()) return framework::Status::OK();
    return framework::Status::Unresolvable("gated").WithPlugin("SchedulingGates");
  }
  bool Interested(const std::string& plugin, const ClusterEvent& event) const override {
    if (plugin == "Fit") {
      return event.resource == EventResource::kNode && (event.actions & framework::kAdd);
    }
    return plugin == "SchedulingGates" && event.resource == EventResource::kPod &&
           (event.actions & framework::kUpdatePodSchedulingGatesEliminated);
  }
  void ForEachHint(const api::Pod&, const std::string& plugin, const ClusterEvent& event,
                   const std::function<void(const framework::QueueingHintFn&)>& fn) const override {
    if (plugin == "Fit" && event.resource == EventResource::kNode &&
        (event.actions & framework::kAdd)) {
      fn([](const api::Pod&, const EventObjects& o, framework::Status*) {
        const api::Symbol* big = o.new_node->metadata.labels.Get(api::Symbol("big"));
        return big != nullptr && big->str() == "true" ? framework::QueueingHint::kQueue
                                                      : framework::QueueingHint::kSkip;
      });
    }
    if (plugin == "SchedulingGates" && event.resource == EventResource::kPod &&
        (event.actions & framework::kUpdatePodSchedulingGatesEliminated)) {
      fn(nullptr);
    }
  }
};

class QueueTest : public ::testing::Test {
 protected:
  QueueTest() : clock_(testing::TestEpoch()), queue_(QueueOptions{}, profiles_, clock_) {}

  void Add(const api::Pod& pod) { queue_.Add(framework::PodInfo::Make(pod)); }
  std::string PopName() {
    auto p = queue_.Pop();
    return p ? p->pod().metadata.name : "";
  }
  // Pops the pod and fails it, rejected by `plugin` ("" for an error).
  void Fail(const std::string& name, const std::string& plugin) {
    auto p = queue_.Pop();
    ASSERT_TRUE(p.has_value());
    ASSERT_EQ(p->pod().metadata.name, name);
    if (!plugin.empty()) p->unschedulable_plugins = {plugin};
    queue_.AddUnschedulableIfNotPresent(*p);
    queue_.Done(p->info->Key());
  }
  void NodeAdded(bool big) {
    api::Node node =
        testing::MakeNode().Name(big ? "big" : "small").Label("big", big ? "true" : "false").Obj();
    EventObjects o;
    o.new_node = &node;
    queue_.MoveAllToActiveOrBackoffQueue(
        ClusterEvent{EventResource::kNode, framework::kAdd, "NodeAdd"}, o);
  }
  void Advance(std::chrono::milliseconds d) {
    clock_.AdvanceTo(clock_.Now() + d);
    clock_.RunDue();
  }

  FakeProfiles profiles_;
  framework::VirtualClock clock_;
  SchedulingQueue queue_;
};

TEST_F(QueueTest, PopsByPriorityThenArrival) {
  Add(MakePod().Name("low").Priority(1).Obj());
  Advance(std::chrono::milliseconds(1));
  Add(MakePod().Name("high").Priority(10).Obj());
  Advance(std::chrono::milliseconds(1));
  Add(MakePod().Name("low2").Priority(1).Obj());
  EXPECT_EQ(PopName(), "high");
  EXPECT_EQ(PopName(), "low");
  EXPECT_EQ(PopName(), "low2");
  EXPECT_EQ(PopName(), "");
}

// Many pods, some deleted from the middle of the heap: the rest still pop in order.
TEST_F(QueueTest, PopsInOrderAfterDeletesFromTheMiddle) {
  std::mt19937 rng(7);
  std::vector<std::pair<int32_t, int>> kept;  // (priority, arrival) of the pods not deleted
  std::vector<api::Pod> deleted;
  for (int i = 0; i < 300; ++i) {
    const auto priority = static_cast<int32_t>(rng() % 5);
    api::Pod pod = MakePod().Name(fmt::format("p{}", i)).Priority(priority).Obj();
    Add(pod);
    Advance(std::chrono::milliseconds(1));
    if (rng() % 3 == 0) {
      deleted.push_back(pod);
    } else {
      kept.emplace_back(priority, i);
    }
  }
  for (const api::Pod& pod : deleted) queue_.Delete(pod);
  std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  for (const auto& [priority, arrival] : kept) {
    ASSERT_EQ(PopName(), fmt::format("p{}", arrival)) << "priority " << priority;
  }
  EXPECT_EQ(PopName(), "");
}

// The heap's order is the same whether it keeps each pod's priority and timestamp beside it or
// asks the QueueSort: pods added, their priority changed in place, some deleted, some popped and
// failed back through backoff.
TEST(Queue, KeptKeysOrderAsTheComparisonDoes) {
  auto run = [](bool keyed) {
    FakeProfiles profiles;
    profiles.keyed = keyed;
    framework::VirtualClock clock(testing::TestEpoch());
    SchedulingQueue queue(QueueOptions{}, profiles, clock);
    std::mt19937 rng(11);
    std::vector<api::Pod> pods;
    for (int i = 0; i < 200; ++i) {
      pods.push_back(
          MakePod().Name(fmt::format("p{}", i)).Priority(static_cast<int32_t>(rng() % 4)).Obj());
      queue.Add(framework::PodInfo::Make(pods.back()));
      clock.AdvanceTo(clock.Now() + std::chrono::milliseconds(rng() % 2));
    }
    for (int i = 0; i < 200; i += 7) {
      api::Pod raised = pods[static_cast<size_t>(i)];
      raised.spec.priority = static_cast<int32_t>(rng() % 6);
      queue.Update(pods[static_cast<size_t>(i)], framework::PodInfo::Make(raised));
    }
    for (int i = 3; i < 200; i += 11) queue.Delete(pods[static_cast<size_t>(i)]);
    std::vector<std::string> order;
    for (int i = 0; i < 20; ++i) {
      std::optional<QueuedPodInfo> p = queue.Pop();
      if (!p) break;
      order.push_back(p->pod().metadata.name);
      if (i % 2 == 0) {
        queue.AddUnschedulableIfNotPresent(*p);  // an error: back after backoff
      }
      queue.Done(p->info->Key());
    }
    clock.AdvanceTo(clock.Now() + std::chrono::minutes(1));
    clock.RunDue();
    while (std::optional<QueuedPodInfo> p = queue.Pop()) {
      order.push_back(p->pod().metadata.name);
      queue.Done(p->info->Key());
    }
    return order;
  };
  const std::vector<std::string> kept = run(true);
  // 200 added, 18 deleted (3, 14, ..., 190), 10 of the first 20 popped twice.
  EXPECT_EQ(kept.size(), 200u - 18u + 10u);
  EXPECT_EQ(kept, run(false));
}

TEST_F(QueueTest, GatedPodsWaitAsideUntilUngated) {
  api::Pod gated = MakePod().Name("g").SchedulingGate("example.com/quota").Obj();
  Add(gated);
  EXPECT_EQ(queue_.NumActive(), 0u);
  EXPECT_TRUE(queue_.IsGated("default/g"));
  api::Pod ungated = gated;
  ungated.spec.scheduling_gates.clear();
  queue_.Update(gated, framework::PodInfo::Make(ungated));
  EXPECT_FALSE(queue_.IsGated("default/g"));
  EXPECT_EQ(PopName(), "g");
}

// The gate observer hears of a PreEnqueue verdict once per message, however often PreEnqueue
// runs again; the queue keeps the verdict, and since when it holds, until the pod is let
// through: what the observer writes is bounded per pod.
TEST_F(QueueTest, TheGateObserverHearsEachVerdictOnce) {
  std::vector<std::string> heard;
  queue_.SetGateObserver(
      [&](const QueuedPodInfo& info, const framework::Status& s) {
        heard.push_back(info.pod().metadata.name + ": " + s.Message());
      },
      "NotThisPlugin");
  auto held = [&] {
    std::vector<std::string> out;
    queue_.ForEachHeld([&](const QueuedPodInfo& info, const std::string& message, api::Time since) {
      out.push_back(fmt::format("{}: {} since {}", info.pod().metadata.name, message,
                                api::FormatDuration(since - testing::TestEpoch())));
    });
    return out;
  };
  api::Pod gated = MakePod().Name("g").SchedulingGate("example.com/quota").Obj();
  Add(gated);
  Advance(std::chrono::milliseconds(1500));
  queue_.Activate({"default/g"});  // PreEnqueue runs again, with the same verdict
  queue_.Activate({"default/g"});
  EXPECT_EQ(heard, std::vector<std::string>{"g: gated"});
  EXPECT_EQ(held(), std::vector<std::string>{"g: gated since 0s"});
  std::string message;
  ASSERT_NE(queue_.Held("default/g", &message), nullptr);
  EXPECT_EQ(message, "gated");
  api::Pod ungated = gated;
  ungated.spec.scheduling_gates.clear();
  queue_.Update(gated, framework::PodInfo::Make(ungated));
  EXPECT_EQ(queue_.Held("default/g"), nullptr);
  EXPECT_TRUE(held().empty());
  Add(MakePod().Name("free").Obj());
  EXPECT_EQ(heard.size(), 1u) << "a pod never held is never told of";
  // The plugin the observer is not told of is not kept either.
  queue_.SetGateObserver([&](const QueuedPodInfo&, const framework::Status&) { FAIL(); },
                         "SchedulingGates");
  Add(MakePod().Name("gated-too").SchedulingGate("example.com/quota").Obj());
  EXPECT_TRUE(queue_.IsGated("default/gated-too"));
  message = "unset";
  ASSERT_NE(queue_.Held("default/gated-too", &message), nullptr);
  EXPECT_EQ(message, "");
  EXPECT_TRUE(held().empty());
}

TEST_F(QueueTest, RejectedPodWaitsForAnEventItsPluginCaresAbout) {
  Add(MakePod().Name("p").Obj());
  Fail("p", "Fit");
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kUnschedulable);
  NodeAdded(/*big=*/false);  // the hint says this node cannot help
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kUnschedulable);
  NodeAdded(/*big=*/true);
  // Attempted once: 1s backoff from the failure, ending in the window [1s, 2s), which is
  // flushed whole when it is over (SchedulerPopFromBackoffQ).
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kBackoff);
  Advance(std::chrono::milliseconds(1999));
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kBackoff);
  Advance(std::chrono::milliseconds(1));
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kActive);
}

TEST_F(QueueTest, BackoffDoublesUpToTheMaximum) {
  Add(MakePod().Name("p").Obj());
  // Errors (no rejecting plugin) always go to backoff: 1s, 2s, 4s, 8s, then capped at 10s;
  // each ends in a window of a second that is over a second later.
  const int expected_ms[] = {1000, 2000, 4000, 8000, 10000, 10000};
  for (int want : expected_ms) {
    Fail("p", "");
    ASSERT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kBackoff);
    Advance(std::chrono::milliseconds(want + 999));
    EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kBackoff) << want;
    Advance(std::chrono::milliseconds(1));
    EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kActive) << want;
  }
}

TEST_F(QueueTest, WithoutPopFromBackoffQBackoffEndsWhenItEnds) {
  SchedulingQueue queue(QueueOptions{.pop_from_backoff = false}, profiles_, clock_);
  queue.Add(framework::PodInfo::Make(MakePod().Name("p").Obj()));
  const int expected_ms[] = {1000, 2000, 4000};
  for (int want : expected_ms) {
    auto p = queue.Pop();
    ASSERT_TRUE(p.has_value());
    p->unschedulable_plugins = {"Fit"};
    queue.Activate({"default/p"});  // activated while in flight: back after its backoff
    queue.AddUnschedulableIfNotPresent(*p);
    queue.Done(p->info->Key());
    ASSERT_EQ(queue.Location("default/p"), SchedulingQueue::Where::kBackoff);
    EXPECT_FALSE(queue.Pop().has_value()) << "an idle scheduler waits the backoff out";
    Advance(std::chrono::milliseconds(want - 1));
    EXPECT_EQ(queue.Location("default/p"), SchedulingQueue::Where::kBackoff) << want;
    Advance(std::chrono::milliseconds(1));
    EXPECT_EQ(queue.Location("default/p"), SchedulingQueue::Where::kActive) << want;
  }
}

// KEP-5142: with activeQ empty, the next pod plugins rejected is taken from backoffQ.
TEST_F(QueueTest, IdleSchedulerTakesARejectedPodFromBackoff) {
  framework::Metrics metrics;
  queue_.SetMetrics(&metrics);
  Add(MakePod().Name("p").Obj());
  Fail("p", "Fit");
  NodeAdded(/*big=*/true);
  ASSERT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kBackoff);
  EXPECT_EQ(PopName(), "p") << "not after its backoff";
  EXPECT_NE(metrics.Text().find(
                R"(scheduler_queue_incoming_pods_total{event="PopFromBackoffQ",queue="active"} 1)"),
            std::string::npos)
      << metrics.Text();
}

TEST_F(QueueTest, PodsBackingOffAfterAnErrorWaitItOut) {
  Add(MakePod().Name("p").Obj());
  Fail("p", "");
  ASSERT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kBackoff);
  EXPECT_EQ(PopName(), "");
  EXPECT_EQ(queue_.NumBackoff(), 1u);
}

TEST_F(QueueTest, BackoffsEndingInOneWindowGoInActiveQOrder) {
  // low fails first, high 200ms later: both backoffs end in the same second, so high, of the
  // higher priority, comes out of backoffQ first.
  Add(MakePod().Name("low").Priority(1).Obj());
  Fail("low", "Fit");
  Advance(std::chrono::milliseconds(200));
  Add(MakePod().Name("high").Priority(10).Obj());
  Fail("high", "Fit");
  NodeAdded(/*big=*/true);
  EXPECT_EQ(queue_.NumBackoff(), 2u);
  EXPECT_EQ(PopName(), "high");
}

TEST_F(QueueTest, EventDuringTheCycleRequeuesTheFailedPod) {
  Add(MakePod().Name("p").Obj());
  auto p = queue_.Pop();
  ASSERT_TRUE(p.has_value());
  NodeAdded(/*big=*/true);  // arrives while p is being scheduled
  p->unschedulable_plugins = {"Fit"};
  queue_.AddUnschedulableIfNotPresent(*p);
  queue_.Done(p->info->Key());
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kBackoff);
}

TEST_F(QueueTest, UnschedulablePodsAreFlushedAfterFiveMinutes) {
  Add(MakePod().Name("p").Obj());
  Fail("p", "Fit");
  Advance(std::chrono::minutes(5));
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kUnschedulable);
  Advance(std::chrono::seconds(30));
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kActive);
}

TEST_F(QueueTest, EventsOnlyVisitPodsWhoseRejectorsCare) {
  // A gated pod is not touched by a node event; a Fit-rejected pod is.
  Add(MakePod().Name("gated").SchedulingGate("example.com/later").Obj());
  Add(MakePod().Name("p").Obj());
  Fail("p", "Fit");
  NodeAdded(/*big=*/true);
  EXPECT_TRUE(queue_.IsGated("default/gated"));
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kBackoff);
  // A pod rejected by a plugin that registered nothing for node events stays.
  Add(MakePod().Name("q").Obj());
  Fail("q", "Other");
  NodeAdded(/*big=*/true);
  EXPECT_EQ(queue_.Location("default/q"), SchedulingQueue::Where::kUnschedulable);
}

TEST_F(QueueTest, ActivateMovesWaitingPods) {
  Add(MakePod().Name("p").Obj());
  Fail("p", "Fit");
  queue_.Activate({"default/p"});
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kActive);
}

TEST_F(QueueTest, SettledOnceEveryPodWasTriedSinceTheClusterLastChanged) {
  Add(MakePod().Name("p").Obj());
  EXPECT_FALSE(queue_.Settled()) << "a pod never tried";
  auto p = queue_.Pop();
  EXPECT_FALSE(queue_.Settled()) << "a pod in flight";
  p->unschedulable_plugins = {"Fit"};
  queue_.AddUnschedulableIfNotPresent(*p);
  queue_.Done(p->info->Key());
  EXPECT_TRUE(queue_.Settled()) << "tried since the last change: a retry repeats the answer";

  Add(MakePod().Name("error").Obj());
  Fail("error", "");  // an error: backs off
  EXPECT_TRUE(queue_.Settled());
  queue_.ClusterChanged();
  EXPECT_FALSE(queue_.Settled()) << "neither pod was tried since the change";
  Advance(std::chrono::seconds(2));  // its 1s backoff's window is over
  Fail("error", "");
  EXPECT_FALSE(queue_.Settled()) << "p, parked, still needs its retry";
  NodeAdded(/*big=*/false);  // an event Fit's hint skips: p stays parked
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kUnschedulable);
  Advance(std::chrono::minutes(5) + std::chrono::seconds(30));  // the flush brings p back
  Fail("p", "Fit");
  EXPECT_FALSE(queue_.Settled()) << "error is back from its backoff, active";
  Advance(std::chrono::seconds(2));
  Fail("error", "");
  EXPECT_TRUE(queue_.Settled());

  Add(MakePod().Name("gated").SchedulingGate("example.com/later").Obj());
  EXPECT_TRUE(queue_.IsGated("default/gated"));
  EXPECT_TRUE(queue_.Settled()) << "a gated pod waits for its update, itself a change";
}

TEST_F(QueueTest, DeleteRemovesFromEveryQueue) {
  api::Pod a = MakePod().Name("a").Obj();
  api::Pod b = MakePod().Name("b").Obj();
  Add(a);
  Add(b);
  Fail("a", "Fit");
  queue_.Delete(a);
  queue_.Delete(b);
  EXPECT_FALSE(queue_.Contains("default/a"));
  EXPECT_FALSE(queue_.Contains("default/b"));
  EXPECT_EQ(queue_.NumActive() + queue_.NumBackoff() + queue_.NumUnschedulable(), 0u);
}

TEST_F(QueueTest, StatusOnlyUpdatesDoNotRequeue) {
  api::Pod p = MakePod().Name("p").Obj();
  Add(p);
  Fail("p", "Fit");
  api::Pod with_condition = p;
  with_condition.status.conditions.push_back(
      api::Condition{api::Symbol("PodScheduled"), api::Symbol("False"), "", "", {}});
  queue_.Update(p, framework::PodInfo::Make(with_condition), /*status_only=*/true);
  EXPECT_EQ(queue_.Location("default/p"), SchedulingQueue::Where::kUnschedulable);
}

TEST_F(QueueTest, NominatedPodsByNode) {
  framework::PodInfoPtr p = framework::PodInfo::Make(MakePod().Name("p").Obj());
  queue_.AddNominatedPod(p, api::Symbol("n1"));
  EXPECT_EQ(queue_.NominatedPodsForNode(api::Symbol("n1")).size(), 1u);
  queue_.AddNominatedPod(p, api::Symbol("n2"));
  EXPECT_TRUE(queue_.NominatedPodsForNode(api::Symbol("n1")).empty());
  queue_.DeleteNominatedPodIfExists(p->pod);
  EXPECT_FALSE(queue_.HasNominatedPods());
}

}  // namespace
}  // namespace muster::scheduler
