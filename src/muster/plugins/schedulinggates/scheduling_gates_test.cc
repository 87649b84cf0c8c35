#include "muster/plugins/schedulinggates/scheduling_gates.h"

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

// Cases from upstream scheduling_gates_test.go (TestPreEnqueue,
// TestIsSchedulableAfterUpdateTargetPodSchedulingGatesEliminated).

namespace muster::plugins::schedulinggates {
namespace {

using framework::QueueingHint;
using framework::Status;
using testing::MakePod;

TEST(SchedulingGatesPreEnqueue, UpstreamCases) {
  SchedulingGates plugin;
  EXPECT_EQ(plugin.PreEnqueue(MakePod().Name("p").Obj()), Status());
  EXPECT_EQ(
      plugin.PreEnqueue(MakePod().Name("p").SchedulingGate("foo").SchedulingGate("bar").Obj()),
      Status(framework::Code::kUnschedulableAndUnresolvable,
             "waiting for scheduling gates: [foo bar]"));
}

TEST(SchedulingGatesEvents, GatesEliminatedHint) {
  SchedulingGates plugin;
  const api::Pod pod = MakePod().Name("p").SchedulingGate("foo").Obj();
  const api::Pod old_pod = MakePod().Name("p").SchedulingGate("foo").Obj();
  const api::Pod new_pod = MakePod().Name("p").Obj();
  const api::Pod other = MakePod().Name("q").Obj();
  framework::EventObjects e;
  e.old_pod = &old_pod;
  e.new_pod = &new_pod;
  EXPECT_EQ(plugin.IsSchedulableAfterGatesEliminated(pod, e, nullptr), QueueingHint::kQueue);
  e.new_pod = &other;
  EXPECT_EQ(plugin.IsSchedulableAfterGatesEliminated(pod, e, nullptr), QueueingHint::kSkip);
  Status error;
  EXPECT_EQ(plugin.IsSchedulableAfterGatesEliminated(pod, {}, &error), QueueingHint::kQueue);
  EXPECT_TRUE(error.IsError());

  const std::vector<framework::ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[0].event.actions, framework::kUpdatePodSchedulingGatesEliminated);
  ASSERT_TRUE(static_cast<bool>(events[0].hint));
  e.new_pod = &new_pod;
  EXPECT_EQ(events[0].hint(pod, e, nullptr), QueueingHint::kQueue);
}

}  // namespace
}  // namespace muster::plugins::schedulinggates
