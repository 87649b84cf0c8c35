#include "muster/plugins/coscheduling/coscheduling.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/testing/fake_services.h"

namespace muster::plugins::coscheduling {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::MakeNode;
using testing::MakePod;
using ::testing::UnorderedElementsAre;

api::PodGroup Group(std::string_view name, int32_t min_member, api::Time created = {}) {
  api::PodGroup g = testing::MakePodGroup(name, min_member);
  g.metadata.creation_timestamp = created;
  return g;
}

api::Pod Member(std::string name, std::string group, std::string node = "") {
  auto b = MakePod().Name(name).PodGroup(group).Req({{"cpu", "1"}});
  if (!node.empty()) b.NodeName(node);
  return b.Obj();
}

framework::PluginArgs Args(const std::string& yaml) {
  return framework::PluginArgs{YAML::Load(yaml), "cfg.yaml: profiles[0].pluginConfig[0].args"};
}

class CoschedulingTest : public ::testing::Test {
 protected:
  CoschedulingTest() {
    fake_.AddNode(
        MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj());
    fake_.AddNode(
        MakeNode().Name("n2").Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}).Obj());
  }
  // Most tests here are of the per-pod extension points, upstream's mode.
  static CoschedulingArgs PerPod() {
    CoschedulingArgs args;
    args.mode = Mode::kPerPod;
    return args;
  }
  Coscheduling& Plugin(CoschedulingArgs args = PerPod()) {
    plugin_ = std::make_unique<Coscheduling>(args, fake_.handle());
    return *plugin_;
  }
  framework::Status PreFilter(const api::Pod& pod) {
    framework::CycleState state;
    framework::PreFilterResult result;
    return plugin_->PreFilter(state, *framework::PodInfo::Make(pod), fake_.snapshot().List(),
                              &result);
  }
  framework::Status PostFilter(const api::Pod& pod) {
    framework::CycleState state;
    framework::PostFilterResult result;
    return plugin_->PostFilter(state, *framework::PodInfo::Make(pod), framework::NodeToStatus{},
                               &result);
  }
  framework::Status Permit(const api::Pod& pod, api::Duration* timeout) {
    framework::CycleState state;
    return plugin_->Permit(state, *framework::PodInfo::Make(pod), api::Symbol("n1"), timeout);
  }

  // The pod as the queue holds it.
  static framework::QueuedPodInfo Queued(const api::Pod& pod, api::Time initial = {}) {
    framework::QueuedPodInfo q;
    q.info = framework::PodInfo::Make(pod);
    q.initial_attempt_timestamp = initial;
    q.timestamp = initial;
    return q;
  }

  // PodGroup g (minMember 3) with pending members a, b and c.
  void AddGroupOfThree() {
    fake_.AddObject(Group("g", 3));
    for (const char* name : {"a", "b", "c"}) fake_.AddPod(Member(name, "g"));
  }
  static CoschedulingArgs GroupBackoff(int64_t seconds) {
    CoschedulingArgs args = PerPod();
    args.pod_group_backoff_seconds = seconds;
    return args;
  }
  void Advance(api::Duration d) {
    fake_.virtual_clock().AdvanceTo(fake_.virtual_clock().Now() + d);
  }

  testing::FakeServices fake_;
  std::unique_ptr<Coscheduling> plugin_;
};

TEST(CoschedulingArgsTest, DefaultsAndValidation) {
  std::string error;
  auto defaults = DecodeArgs(framework::PluginArgs{YAML::Node(), ""}, &error);
  ASSERT_TRUE(defaults.has_value()) << error;
  EXPECT_EQ(defaults->permit_waiting_time_seconds, 60);
  EXPECT_EQ(defaults->pod_group_backoff_seconds, 0);
  EXPECT_EQ(defaults->pod_group_reject_percentage, 10);

  auto set = DecodeArgs(Args("{permitWaitingTimeSeconds: 5, podGroupBackoffSeconds: 10, "
                             "podGroupRejectPercentage: 0}"),
                        &error);
  ASSERT_TRUE(set.has_value()) << error;
  EXPECT_EQ(set->permit_waiting_time_seconds, 5);
  EXPECT_EQ(set->pod_group_reject_percentage, 0);

  EXPECT_FALSE(DecodeArgs(Args("{permitWaitingTimeSeconds: -1}"), &error));
  EXPECT_THAT(error,
              HasSubstr("permitWaitingTimeSeconds: Invalid value: -1: must be greater than 0"));
  EXPECT_FALSE(DecodeArgs(Args("{podGroupBackoffSeconds: -3}"), &error));
  EXPECT_THAT(error,
              HasSubstr("podGroupBackoffSeconds: Invalid value: -3: must be greater than 0"));
  EXPECT_FALSE(DecodeArgs(Args("{podGroupRejectPercentage: 101}"), &error));
  EXPECT_THAT(error,
              HasSubstr("podGroupRejectPercentage: Invalid value: 101: must be between 0 and 100"));
  EXPECT_EQ(defaults->mode, Mode::kGroup);
  EXPECT_EQ(DecodeArgs(Args("{mode: PerPod}"), &error)->mode, Mode::kPerPod);
  EXPECT_EQ(DecodeArgs(Args("{mode: Group}"), &error)->mode, Mode::kGroup);
  EXPECT_FALSE(DecodeArgs(Args("{mode: Gang}"), &error));
  EXPECT_THAT(error, HasSubstr("args.mode: Unsupported value: \"Gang\": supported values: "
                               "\"Group\", \"PerPod\""));
  EXPECT_FALSE(DecodeArgs(Args("{permitWaitingTime: 5}"), &error));
  EXPECT_THAT(error, HasSubstr("unknown field \"permitWaitingTime\""));
}

TEST_F(CoschedulingTest, LessOrdersByPriorityThenGroupTimeThenName) {
  const api::Time t0 = testing::TestEpoch();
  fake_.AddObject(Group("old", 2, t0));
  fake_.AddObject(Group("new", 2, t0 + std::chrono::seconds(5)));
  Coscheduling& cs = Plugin();
  const auto old_z = Queued(Member("z", "old"), t0 + std::chrono::seconds(9));
  const auto new_a = Queued(Member("a", "new"), t0);
  EXPECT_TRUE(cs.Less(old_z, new_a)) << "the older group first, whatever the pods' names";
  EXPECT_FALSE(cs.Less(new_a, old_z));
  auto high = Queued(MakePod().Name("h").Priority(10).PodGroup("new").Obj(), t0);
  EXPECT_TRUE(cs.Less(high, old_z)) << "priority first";
  const auto old_a = Queued(Member("a", "old"), t0 + std::chrono::seconds(9));
  EXPECT_TRUE(cs.Less(old_a, old_z)) << "same group: by namespace/name";
  // A pod without a group sorts by its own initial attempt time.
  const auto lone = Queued(MakePod().Name("lone").Obj(), t0 + std::chrono::seconds(1));
  EXPECT_TRUE(cs.Less(old_z, lone));
  EXPECT_TRUE(cs.Less(lone, new_a));
  // Compare, which the queue uses, says the same in one call: its sign is Less both ways.
  const std::vector<const framework::QueuedPodInfo*> all = {&old_z, &new_a, &high, &old_a, &lone};
  for (const auto* x : all) {
    for (const auto* y : all) {
      const int c = cs.Compare(*x, *y);
      EXPECT_EQ(c < 0, cs.Less(*x, *y)) << x->pod().metadata.name << " " << y->pod().metadata.name;
      EXPECT_EQ(c > 0, cs.Less(*y, *x)) << x->pod().metadata.name << " " << y->pod().metadata.name;
    }
  }
  EXPECT_EQ(cs.Compare(old_a, old_a), 0);
}

TEST_F(CoschedulingTest, PreFilterNeedsEnoughSiblings) {
  fake_.AddObject(Group("g", 3));
  Plugin();
  const api::Pod p1 = Member("p1", "g");
  fake_.AddPod(p1);
  fake_.AddPod(Member("p2", "g"));
  framework::Status s = PreFilter(p1);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(),
            "pre-filter pod p1 cannot find enough sibling pods, current pods number: 2, minMember "
            "of group: 3");
  fake_.AddPod(Member("p3", "g"));
  EXPECT_TRUE(PreFilter(p1).IsSuccess());
}

TEST_F(CoschedulingTest, PreFilterIgnoresTerminalPodsAndCountsGatedOnesSeparately) {
  fake_.AddObject(Group("g", 3));
  Plugin();
  const api::Pod p1 = Member("p1", "g");
  fake_.AddPod(p1);
  fake_.AddPod(Member("p2", "g"));
  api::Pod done = Member("done", "g");
  done.status.phase = api::PodPhase::kSucceeded;
  fake_.AddPod(done);
  EXPECT_THAT(PreFilter(p1).Message(), HasSubstr("current pods number: 2"));
  api::Pod gated = Member("gated", "g");
  gated.spec.scheduling_gates.push_back("example.com/wait");
  fake_.AddPod(gated);
  framework::Status s = PreFilter(p1);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_THAT(s.Message(), HasSubstr("without scheduling gates, current ungated pods number: 2"));
}

TEST_F(CoschedulingTest, PreFilterChecksMinResourcesAgainstFreeCapacity) {
  api::PodGroup g = Group("g", 2);
  g.spec.min_resources = testing::MakeResourceList({{"cpu", "6"}});
  fake_.AddObject(g);
  // 2 CPU taken by another group, 1 CPU by a member of g (which counts as free for g).
  fake_.AddPod(MakePod().Name("other").Req({{"cpu", "2"}}).NodeName("n1").Obj());
  fake_.AddPod(Member("mine", "g", "n2"));
  const api::Pod p = Member("p", "g");
  fake_.AddPod(p);
  Plugin();
  EXPECT_TRUE(PreFilter(p).IsSuccess())
      << "8 - 2 taken by others = 6, its own pod counting as free";
  g.spec.min_resources = testing::MakeResourceList({{"cpu", "8"}});
  fake_.AddObject(g);
  Plugin();
  framework::Status s = PreFilter(p);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "resource gap: map[cpu:2]");
}

TEST_F(CoschedulingTest, PodWithoutGroupPasses) {
  Plugin();
  EXPECT_TRUE(PreFilter(MakePod().Name("solo").Obj()).IsSuccess());
  api::Duration timeout{};
  EXPECT_TRUE(Permit(MakePod().Name("solo").Obj(), &timeout).IsSuccess());
}

TEST_F(CoschedulingTest, TheGroupsFirstWaitingPodBringsItsSiblingsForward) {
  fake_.AddObject(Group("g", 3));
  Plugin();
  fake_.AddPod(Member("p1", "g"));
  fake_.AddPod(Member("p3", "g"));
  api::Duration timeout{};
  EXPECT_TRUE(Permit(Member("p2", "g"), &timeout).IsWait());
  EXPECT_THAT(fake_.activated, UnorderedElementsAre("default/p1", "default/p3"));
}

TEST_F(CoschedulingTest, PermitWaitsUntilMinMemberThenAllowsAll) {
  api::PodGroup g = Group("g", 3);
  g.spec.schedule_timeout_seconds = 10;
  fake_.AddObject(g);
  Plugin();
  // One sibling already assumed on a node, one waiting at Permit.
  fake_.AddPod(Member("p1", "g", "n1"));
  fake_.AddPod(Member("p3", "g"));
  auto& waiting = fake_.AddWaitingPod(Member("p1", "g", "n1"), api::Symbol("n1"), {"Coscheduling"});
  api::Duration timeout{};
  framework::Status s = Permit(Member("p2", "g"), &timeout);
  EXPECT_TRUE(s.IsWait());
  EXPECT_EQ(timeout, std::chrono::seconds(10)) << "the group's scheduleTimeoutSeconds";
  // Upstream (scheduler-plugins#682): only the group's first assigned pod activates siblings.
  EXPECT_THAT(fake_.activated, IsEmpty()) << "p1 waited first";
  // A second assigned sibling: this pod completes the quorum.
  fake_.AddPod(Member("p4", "g", "n2"));
  s = Permit(Member("p2", "g"), &timeout);
  EXPECT_TRUE(s.IsSuccess());
  EXPECT_THAT(waiting.allowed_by, ElementsAre("Coscheduling"));
}

TEST_F(CoschedulingTest, ReservedPodsCountAsAssignedUntilUnreserved) {
  fake_.AddObject(Group("g", 3));
  for (const char* name : {"a", "b", "c"}) fake_.AddPod(Member(name, "g"));
  Plugin();
  framework::CycleState state;
  const api::Pod a = Member("a", "g", "n1");
  const api::Pod b = Member("b", "g", "n2");
  plugin_->Reserve(state, *framework::PodInfo::Make(a), api::Symbol("n1"));
  EXPECT_EQ(plugin_->CountAssigned(api::Symbol("default"), api::Symbol("g")), 1);
  plugin_->Reserve(state, *framework::PodInfo::Make(b), api::Symbol("n2"));
  EXPECT_EQ(plugin_->CountAssigned(api::Symbol("default"), api::Symbol("g")), 2);
  // b's own Permit counts the other reserved pod and itself: 2 of 3, so it waits.
  api::Duration timeout{};
  EXPECT_TRUE(Permit(b, &timeout).IsWait());
  plugin_->Unreserve(state, *framework::PodInfo::Make(a), api::Symbol("n1"));
  EXPECT_EQ(plugin_->CountAssigned(api::Symbol("default"), api::Symbol("g")), 1);
  // Once bound (the lister shows it), a reserved pod is counted once, not twice.
  fake_.AddPod(b);
  EXPECT_EQ(plugin_->CountAssigned(api::Symbol("default"), api::Symbol("g")), 1);
}

TEST_F(CoschedulingTest, PermitTimeoutDefaultsToPermitWaitingTime) {
  fake_.AddObject(Group("g", 2));
  CoschedulingArgs args = PerPod();
  args.permit_waiting_time_seconds = 42;
  Plugin(args);
  api::Duration timeout{};
  EXPECT_TRUE(Permit(Member("p", "g"), &timeout).IsWait());
  EXPECT_EQ(timeout, std::chrono::seconds(42));
}

TEST_F(CoschedulingTest, PermitRejectsWhenThePodGroupIsMissing) {
  Plugin();
  api::Duration timeout{};
  framework::Status s = Permit(Member("p", "ghost"), &timeout);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "PodGroup not found");
}

TEST_F(CoschedulingTest, PostFilterKeepsAGroupThatReachedQuorum) {
  fake_.AddObject(Group("g", 2));
  fake_.AddPod(Member("a", "g", "n1"));
  fake_.AddPod(Member("b", "g", "n2"));
  Plugin();
  framework::Status s = PostFilter(Member("c", "g"));
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_TRUE(s.reasons().empty());
}

TEST_F(CoschedulingTest, PostFilterRejectsTheGroupWhenFarFromQuorum) {
  fake_.AddObject(Group("g", 4));
  fake_.AddPod(Member("a", "g", "n1"));
  auto& waiting = fake_.AddWaitingPod(Member("a", "g", "n1"), api::Symbol("n1"), {"Coscheduling"});
  auto& other = fake_.AddWaitingPod(Member("x", "h", "n1"), api::Symbol("n1"), {"Coscheduling"});
  Plugin();
  framework::Status s = PostFilter(Member("b", "g"));
  EXPECT_EQ(s.code(), framework::Code::kUnschedulable);
  EXPECT_EQ(s.Message(),
            "PodGroup default/g gets rejected due to Pod b is unschedulable even after PostFilter");
  ASSERT_EQ(waiting.rejected_by.size(), 1u);
  EXPECT_EQ(waiting.rejected_by[0].second, "optimistic rejection in PostFilter");
  EXPECT_TRUE(other.rejected_by.empty()) << "another group's pods stay";
}

TEST_F(CoschedulingTest, PostFilterSparesAGroupWithinTheRejectPercentage) {
  // 10 of minMember 11 assigned: 1/11 = 9% unassigned, within the default 10%.
  fake_.AddObject(Group("g", 11));
  for (int i = 0; i < 10; ++i) {
    fake_.AddPod(Member("m" + std::to_string(i), "g", i % 2 ? "n1" : "n2"));
  }
  auto& waiting = fake_.AddWaitingPod(Member("m0", "g", "n2"), api::Symbol("n2"), {"Coscheduling"});
  Plugin();
  EXPECT_TRUE(PostFilter(Member("last", "g")).reasons().empty());
  EXPECT_TRUE(waiting.rejected_by.empty());
  CoschedulingArgs strict = PerPod();
  strict.pod_group_reject_percentage = 0;
  Plugin(strict);
  EXPECT_FALSE(PostFilter(Member("last", "g")).reasons().empty()) << "0%: always reject";
  EXPECT_EQ(waiting.rejected_by.size(), 1u);
}

TEST_F(CoschedulingTest, PostFilterBacksTheGroupOff) {
  AddGroupOfThree();
  Plugin(GroupBackoff(10));
  PostFilter(Member("a", "g"));
  framework::Status s = PreFilter(Member("b", "g"));
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "podGroup default/g failed recently");
  Advance(std::chrono::seconds(10));
  EXPECT_TRUE(PreFilter(Member("b", "g")).IsSuccess()) << "the backoff has passed";
}

TEST_F(CoschedulingTest, ARejectionThatReleasesRoomBacksOffForThePodBackoffByDefault) {
  AddGroupOfThree();
  Plugin();  // podGroupBackoffSeconds 0
  PostFilter(Member("a", "g"));
  EXPECT_TRUE(PreFilter(Member("b", "g")).IsSuccess())
      << "nothing was waiting: the pods retry at once, as upstream's";
  fake_.AddWaitingPod(Member("c", "g", "n1"), api::Symbol("n1"), {"Coscheduling"});
  PostFilter(Member("a", "g"));  // releases c: now the group backs off, for 1s
  EXPECT_EQ(PreFilter(Member("b", "g")).Message(), "podGroup default/g failed recently");
  Advance(std::chrono::milliseconds(999));
  EXPECT_FALSE(PreFilter(Member("b", "g")).IsSuccess());
  Advance(std::chrono::milliseconds(1));
  EXPECT_TRUE(PreFilter(Member("b", "g")).IsSuccess());
}

TEST_F(CoschedulingTest, APodTurnedAwayWhileTheGroupBacksOffIsRetriedWhenItEnds) {
  AddGroupOfThree();
  Plugin(GroupBackoff(10));
  PostFilter(Member("a", "g"));
  Advance(std::chrono::seconds(4));
  ASSERT_FALSE(PreFilter(Member("b", "g")).IsSuccess());
  ASSERT_EQ(fake_.retried.size(), 1u);
  EXPECT_EQ(fake_.retried[0].first, "default/b");
  EXPECT_EQ(fake_.retried[0].second, testing::TestEpoch() + std::chrono::seconds(10));
}

TEST_F(CoschedulingTest, APodTurnedAwayWhileTheGroupBacksOffDoesNotRestartTheBackoff) {
  AddGroupOfThree();
  Plugin(GroupBackoff(10));
  PostFilter(Member("a", "g"));
  Advance(std::chrono::seconds(9));
  ASSERT_FALSE(PreFilter(Member("b", "g")).IsSuccess());
  PostFilter(Member("b", "g"));  // b's cycle ends in PostFilter too
  Advance(std::chrono::seconds(1));
  EXPECT_TRUE(PreFilter(Member("c", "g")).IsSuccess()) << "10s after the rejection, not 19s";
}

TEST_F(CoschedulingTest, AGroupWithTooFewPodsDoesNotBackOff) {
  // PreFilter turns its pods away as "cannot find enough sibling pods" already.
  fake_.AddObject(Group("g", 3));
  for (const char* name : {"a", "b"}) fake_.AddPod(Member(name, "g"));
  Plugin();
  PostFilter(Member("a", "g"));
  EXPECT_THAT(PreFilter(Member("b", "g")).Message(), HasSubstr("cannot find enough sibling pods"));
}

TEST_F(CoschedulingTest, UnreserveBacksTheGroupOff) {
  fake_.AddObject(Group("g", 2));
  for (const char* name : {"a", "b"}) fake_.AddPod(Member(name, "g"));
  Plugin();
  framework::CycleState state;
  plugin_->Unreserve(state, *framework::PodInfo::Make(Member("a", "g", "n1")), api::Symbol("n1"));
  EXPECT_EQ(PreFilter(Member("b", "g")).Message(), "podGroup default/g failed recently");
}

TEST_F(CoschedulingTest, AFailedGroupSortsByItsLastFailure) {
  const api::Time t0 = testing::TestEpoch();
  fake_.AddObject(Group("pg1", 2, t0));
  fake_.AddObject(Group("pg2", 2, t0 + std::chrono::seconds(5)));
  for (const char* name : {"p1", "q1"}) fake_.AddPod(Member(name, "pg1"));
  fake_.AddPod(Member("p2", "pg2"));
  Coscheduling& cs = Plugin();
  const auto p1 = Queued(Member("p1", "pg1"));
  const auto p2 = Queued(Member("p2", "pg2"));
  ASSERT_TRUE(cs.Less(p1, p2)) << "before any failure, the older group first";
  Advance(std::chrono::seconds(10));
  PostFilter(Member("q1", "pg1"));
  EXPECT_TRUE(cs.Less(p2, p1)) << "pg1 failed at 10s: it sorts after pg2, created at 5s";
  EXPECT_FALSE(cs.Less(p1, p2));
  EXPECT_THAT(fake_.reordered, UnorderedElementsAre("default/p1", "default/q1"))
      << "the queue is told to re-sort the failed group's pending pods";
  // pg1 reaches quorum: its creation time is its place again.
  fake_.AddPod(Member("r1", "pg1", "n1"));
  api::Duration timeout{};
  ASSERT_TRUE(Permit(Member("p1", "pg1"), &timeout).IsSuccess());
  EXPECT_TRUE(cs.Less(p1, p2));
}

TEST_F(CoschedulingTest, AFailureAtTheInstantOfCreationStillSortsAfter) {
  // On the virtual clock the groups are created and fail at one instant: failures go after
  // creations, and a later failure after an earlier one, as real time would order them.
  const api::Time t0 = testing::TestEpoch();
  for (const char* g : {"a", "b", "c"}) {
    fake_.AddObject(Group(g, 2, t0));
    fake_.AddPod(Member(std::string(g) + "-0", g));
  }
  Coscheduling& cs = Plugin();
  const auto a = Queued(Member("a-0", "a"));
  const auto b = Queued(Member("b-0", "b"));
  const auto c = Queued(Member("c-0", "c"));
  PostFilter(Member("b-0", "b"));
  PostFilter(Member("a-0", "a"));
  EXPECT_TRUE(cs.Less(c, b)) << "c has not failed";
  EXPECT_TRUE(cs.Less(b, a)) << "b failed before a";
  EXPECT_TRUE(cs.Less(c, a));
}

TEST_F(CoschedulingTest, UnreserveAndAFailedGroupCycleMarkTheGroupFailed) {
  const api::Time t0 = testing::TestEpoch();
  fake_.AddObject(Group("pg1", 2, t0));
  fake_.AddObject(Group("pg2", 2, t0 + std::chrono::seconds(5)));
  fake_.AddPod(Member("p1", "pg1"));
  fake_.AddPod(Member("p2", "pg2"));
  Coscheduling& cs = Plugin();
  const auto p1 = Queued(Member("p1", "pg1"));
  const auto p2 = Queued(Member("p2", "pg2"));
  Advance(std::chrono::seconds(10));
  framework::CycleState state;
  plugin_->Unreserve(state, *framework::PodInfo::Make(Member("p1", "pg1", "n1")),
                     api::Symbol("n1"));
  EXPECT_TRUE(cs.Less(p2, p1));
  // Group mode: a cycle that falls short marks the group; one that places it clears it.
  Coscheduling& group_mode = Plugin(CoschedulingArgs{});
  ASSERT_TRUE(group_mode.Less(p1, p2)) << "a new plugin: no failure yet";
  std::optional<framework::Gang> spec =
      group_mode.GroupOf(*framework::PodInfo::Make(Member("p1", "pg1")));
  ASSERT_TRUE(spec.has_value());
  group_mode.GroupCycleDone(*spec, /*placed=*/false);
  EXPECT_TRUE(group_mode.Less(p2, p1)) << "pg1 failed at 10s, after pg2's creation";
  group_mode.GroupCycleDone(*spec, /*placed=*/true);
  EXPECT_TRUE(group_mode.Less(p1, p2));
}

TEST_F(CoschedulingTest, UnreserveRejectsWaitingSiblings) {
  fake_.AddObject(Group("g", 3));
  auto& waiting = fake_.AddWaitingPod(Member("a", "g", "n1"), api::Symbol("n1"), {"Coscheduling"});
  Plugin();
  framework::CycleState state;
  plugin_->Unreserve(state, *framework::PodInfo::Make(Member("b", "g", "n2")), api::Symbol("n2"));
  ASSERT_EQ(waiting.rejected_by.size(), 1u);
  EXPECT_EQ(waiting.rejected_by[0].second, "rejection in Unreserve");
}

TEST_F(CoschedulingTest, PostBindLeavesThePodGroupStatusToItsController) {
  fake_.AddObject(Group("g", 2));
  Plugin();
  framework::CycleState state;
  plugin_->PostBind(state, *framework::PodInfo::Make(Member("a", "g", "n1")), api::Symbol("n1"));
  EXPECT_TRUE(fake_.group_status_updates.empty());
}

// ---- Group mode ----

TEST_F(CoschedulingTest, GroupOfMakesThePodGroupAGangWithItsLiveMembersInGroupModeOnly) {
  api::PodGroup g = Group("g", 3);
  g.api_version = "scheduling.sigs.k8s.io/v1alpha1";
  g.metadata.uid = "uid-g";
  g.spec.min_resources.Set("cpu", api::Quantity::Parse("2").value());
  g.spec.schedule_timeout_seconds = 30;
  g.status.conditions.push_back(
      api::Condition{api::Symbol("Scheduled"), api::Symbol("False"), "Unschedulable", "", {}});
  fake_.AddObject(g);
  for (const char* name : {"a", "b", "c"}) fake_.AddPod(Member(name, "g"));
  fake_.AddPod(MakePod().Name("done").PodGroup("g").Phase(api::PodPhase::kSucceeded).Obj());
  fake_.AddPod(MakePod().Name("alone").Obj());
  Plugin(PerPod());
  EXPECT_FALSE(plugin_->GroupOf(*framework::PodInfo::Make(Member("a", "g"))));
  CoschedulingArgs group;
  group.pod_group_backoff_seconds = 7;
  Plugin(group);
  std::optional<framework::Gang> spec =
      plugin_->GroupOf(*framework::PodInfo::Make(Member("a", "g")));
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->Key(), "default/g");
  EXPECT_EQ(spec->min_count, 3);
  EXPECT_EQ(spec->min_resources, g.spec.min_resources);
  EXPECT_EQ(spec->timeout, std::chrono::seconds(30));
  // Its status goes to the PodGroup, in the API group it came from.
  EXPECT_EQ(spec->object.api_version, "scheduling.sigs.k8s.io/v1alpha1");
  EXPECT_EQ(spec->object.kind, "PodGroup");
  EXPECT_EQ(spec->object.Key(), "default/g");
  EXPECT_EQ(spec->object.uid, "uid-g");
  EXPECT_EQ(spec->conditions, g.status.conditions);
  std::vector<std::string> names;
  for (const api::Pod* p : spec->members) names.push_back(p->metadata.name);
  EXPECT_THAT(names, UnorderedElementsAre("a", "b", "c")) << "the succeeded pod is not a member";
  EXPECT_EQ(spec->backoff, std::chrono::seconds(7));
  EXPECT_FALSE(plugin_->GroupOf(*framework::PodInfo::Make(MakePod().Name("alone").Obj())));
  EXPECT_FALSE(plugin_->GroupOf(*framework::PodInfo::Make(Member("x", "missing"))))
      << "a pod naming no existing PodGroup is placed alone";
}

TEST_F(CoschedulingTest, GroupModeLeavesPreFilterAndPostFilterToTheGroupCycle) {
  fake_.AddObject(Group("g", 3));
  fake_.AddPod(Member("a", "g"));  // one of three: PreFilter in PerPod mode turns it away
  Plugin(CoschedulingArgs{});
  EXPECT_TRUE(PreFilter(Member("a", "g")).IsSuccess());
  EXPECT_TRUE(PostFilter(Member("a", "g")).reasons().empty());
}

TEST_F(CoschedulingTest, PreFilterGroupExplainsForTheGroup) {
  fake_.AddObject(Group("g", 3));
  fake_.AddPod(Member("a", "g"));
  fake_.AddPod(Member("b", "g"));
  Plugin(CoschedulingArgs{});
  auto check = [&] {
    std::optional<framework::Gang> spec =
        plugin_->GroupOf(*framework::PodInfo::Make(Member("a", "g")));
    return plugin_->PreFilterGroup(*spec, fake_.snapshot().List());
  };
  framework::Status s = check();
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "2 member(s) exist (minMember 3)");

  fake_.AddPod(MakePod().Name("c").PodGroup("g").SchedulingGate("wait").Obj());
  EXPECT_EQ(check().Message(),
            "1/3 members have scheduling gates; 2 can be scheduled (minMember 3)");

  fake_.AddPod(Member("c", "g"));  // ungated
  EXPECT_TRUE(check().IsSuccess());

  // minResources beyond the two 4-CPU nodes' free capacity.
  api::PodGroup big = Group("g", 3);
  big.spec.min_resources = testing::MakeResourceList({{"cpu", "10"}});
  fake_.AddObject(big);
  EXPECT_EQ(check().Message(),
            "minResources do not fit the cluster's free capacity: short of map[cpu:2]");
}

// Group mode holds a member at PreEnqueue until its group has minMember pods that can be
// scheduled (bound, or without scheduling gates); the message does not count, so that the
// member's condition is written once.
TEST_F(CoschedulingTest, GroupModeHoldsMembersAtPreEnqueueUntilTheGroupIsWhole) {
  fake_.AddObject(Group("g", 3));
  Plugin(CoschedulingArgs{});
  const api::Pod a = Member("a", "g");
  fake_.AddPod(a);
  framework::Status s = plugin_->PreEnqueue(a);
  EXPECT_EQ(s.code(), framework::Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(),
            "waiting for PodGroup default/g to have minMember (3) pods that can be scheduled");
  fake_.AddPod(Member("b", "g", "n1"));  // bound: counts
  api::Pod done = Member("done", "g");
  done.status.phase = api::PodPhase::kSucceeded;  // terminal: does not
  fake_.AddPod(done);
  fake_.AddPod(MakePod().Name("c").PodGroup("g").SchedulingGate("wait").Obj());
  EXPECT_EQ(plugin_->PreEnqueue(a).Message(), s.Message()) << "c has a gate: 2 of 3 can be";
  fake_.AddPod(Member("c", "g"));  // its gate lifted
  EXPECT_TRUE(plugin_->PreEnqueue(a).IsSuccess());
  // Without a group, or without its PodGroup (Permit's to report), a pod passes.
  EXPECT_TRUE(plugin_->PreEnqueue(MakePod().Name("solo").Obj()).IsSuccess());
  EXPECT_TRUE(plugin_->PreEnqueue(Member("lost", "missing")).IsSuccess());
}

TEST_F(CoschedulingTest, PerPodModeLetsEveryPodIntoTheQueue) {
  fake_.AddObject(Group("g", 3));
  const api::Pod a = Member("a", "g");
  fake_.AddPod(a);
  Plugin();
  EXPECT_TRUE(plugin_->PreEnqueue(a).IsSuccess()) << "PreFilter rejects, as upstream";
}

// A pod joining the group is worth a retry for the held members only once the group is whole:
// asking every held member at every arrival would cost the square of the gang.
class CoschedulingHintTest : public CoschedulingTest, public ::testing::WithParamInterface<bool> {};

TEST_P(CoschedulingHintTest, AnArrivalRequeuesTheGroupOnlyWhenItIsWhole) {
  const bool group_mode = GetParam();
  fake_.AddObject(Group("g", 3));
  fake_.AddObject(Group("other", 1));
  Plugin(group_mode ? CoschedulingArgs{} : PerPod());
  const api::Pod a = Member("a", "g");
  fake_.AddPod(a);
  framework::QueueingHintFn hint;
  for (const framework::ClusterEventWithHint& e : plugin_->EventsToRegister()) {
    if (e.event.resource == framework::EventResource::kPod) hint = e.hint;
  }
  ASSERT_TRUE(hint);
  auto on_add = [&](const api::Pod& added) {
    fake_.AddPod(added);
    framework::EventObjects objects;
    objects.new_pod = &added;
    return hint(a, objects, nullptr);
  };
  EXPECT_EQ(on_add(Member("b", "g")), framework::QueueingHint::kSkip) << "2 of 3";
  EXPECT_EQ(on_add(Member("x", "other")), framework::QueueingHint::kSkip) << "another group";
  EXPECT_EQ(on_add(MakePod().Name("solo").Obj()), framework::QueueingHint::kSkip);
  EXPECT_EQ(on_add(Member("c", "g")), framework::QueueingHint::kQueue) << "whole";
}

INSTANTIATE_TEST_SUITE_P(Modes, CoschedulingHintTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Group" : "PerPod";
                         });

}  // namespace
}  // namespace muster::plugins::coscheduling
