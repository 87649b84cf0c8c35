// GangScheduling's verdicts and messages, after upstream's gangscheduling_test.go (PreEnqueue
// and the queueing hints), for each version of the gang API.

#include "muster/plugins/gangscheduling/gang_scheduling.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/gang.h"
#include "muster/api/testing/builders.h"
#include "muster/framework/testing/fake_services.h"

namespace muster::plugins::gangscheduling {
namespace {

using framework::Code;
using framework::QueueingHint;
using framework::Status;
using testing::MakePod;
using ::testing::SizeIs;

api::SchedulingPodGroup Group(std::string_view name, std::optional<int32_t> min_count,
                              std::string api_version = "scheduling.k8s.io/v1beta1") {
  api::SchedulingPodGroup g;
  g.metadata.name = std::string(name);
  g.metadata.namespace_ = api::Symbol("default");
  g.api_version = std::move(api_version);
  g.spec.policy.min_count = min_count;
  return g;
}

api::Workload V1alpha1Workload(std::string_view name) {
  api::Workload w;
  w.metadata.name = std::string(name);
  w.metadata.namespace_ = api::Symbol("default");
  w.api_version = "scheduling.k8s.io/v1alpha1";
  w.pod_groups.push_back({"workers", {.min_count = 2}});
  w.pod_groups.push_back({"driver", {}});
  return w;
}

api::Pod InGroup(std::string name, std::string_view group) {
  api::Pod p = MakePod().Name(name).Obj();
  p.spec.scheduling_group = api::Symbol(group);
  return p;
}

api::Pod InWorkload(std::string name, std::string_view workload, std::string_view group,
                    std::string_view replica = "") {
  api::Pod p = MakePod().Name(name).Obj();
  p.spec.workload_ref = {api::Symbol(workload), api::Symbol(group), api::Symbol(replica)};
  return p;
}

class GangSchedulingTest : public ::testing::Test {
 protected:
  testing::FakeServices fake_;
  GangScheduling plugin_{fake_.handle()};
};

const Status kWaitingForMinCount(Code::kUnschedulableAndUnresolvable,
                                 "waiting for minCount pods from a gang to appear in scheduling "
                                 "queue");

TEST_F(GangSchedulingTest, PreEnqueueWaitsForThePodGroupThenForMinCountPods) {
  const api::Pod a = InGroup("a", "g");
  EXPECT_EQ(plugin_.PreEnqueue(MakePod().Name("plain").Obj()), Status());
  EXPECT_EQ(plugin_.PreEnqueue(a),
            Status(Code::kUnschedulableAndUnresolvable,
                   "waiting for pod's pod group \"g\" to appear in scheduling queue"));
  fake_.AddObject(Group("g", 3));
  fake_.AddPod(a);
  EXPECT_EQ(plugin_.PreEnqueue(a), kWaitingForMinCount);
  const api::Pod b = InGroup("b", "g");
  fake_.AddPod(b);
  EXPECT_EQ(plugin_.PreEnqueue(b), kWaitingForMinCount);
  // The third pod counts itself before the lister holds it.
  EXPECT_EQ(plugin_.PreEnqueue(InGroup("c", "g")), Status());
}

TEST_F(GangSchedulingTest, BasicGroupsAreNotHeld) {
  fake_.AddObject(Group("g", std::nullopt));
  const api::Pod a = InGroup("a", "g");
  EXPECT_EQ(plugin_.PreEnqueue(a), Status());
  EXPECT_FALSE(plugin_.GroupOf(*framework::PodInfo::Make(a)).has_value())
      << "a basic group's pods are placed one by one";
}

TEST_F(GangSchedulingTest, PreEnqueueOfAV1alpha1Workload) {
  const api::Pod a = InWorkload("a", "job", "workers");
  EXPECT_EQ(plugin_.PreEnqueue(a),
            Status(Code::kUnschedulableAndUnresolvable,
                   "waiting for pod's workload \"job\" to appear in scheduling queue"));
  fake_.AddObject(V1alpha1Workload("job"));
  EXPECT_EQ(plugin_.PreEnqueue(InWorkload("x", "job", "ps")),
            Status(Code::kUnschedulableAndUnresolvable,
                   "pod group \"ps\" doesn't exist for a workload \"job\""));
  EXPECT_EQ(plugin_.PreEnqueue(InWorkload("d", "job", "driver")), Status()) << "basic";
  EXPECT_EQ(plugin_.PreEnqueue(a), kWaitingForMinCount);
  fake_.AddPod(a);
  // Another replica key is another gang: it does not complete a's.
  fake_.AddPod(InWorkload("r1", "job", "workers", "1"));
  EXPECT_EQ(plugin_.PreEnqueue(a), kWaitingForMinCount);
  fake_.AddPod(InWorkload("b", "job", "workers"));
  EXPECT_EQ(plugin_.PreEnqueue(a), Status());
}

TEST_F(GangSchedulingTest, GroupOfNamesTheGangAndItsCondition) {
  fake_.AddObject(Group("g", 2, "scheduling.k8s.io/v1alpha2"));
  const api::Pod a = InGroup("a", "g");
  fake_.AddPod(a);
  fake_.AddPod(InGroup("b", "g"));
  api::Pod done = InGroup("done", "g");
  done.status.phase = api::PodPhase::kSucceeded;
  fake_.AddPod(done);
  const std::optional<framework::Gang> gang = plugin_.GroupOf(*framework::PodInfo::Make(a));
  ASSERT_TRUE(gang.has_value());
  EXPECT_EQ(gang->min_count, 2);
  EXPECT_THAT(gang->members, SizeIs(2)) << "terminal pods are no members";
  EXPECT_EQ(gang->object.kind, "PodGroup");
  EXPECT_EQ(gang->object.api_version, "scheduling.k8s.io/v1alpha2");
  EXPECT_EQ(gang->condition_type, "PodGroupScheduled");
  EXPECT_TRUE(gang->condition_stays_true);
  EXPECT_EQ(gang->quorum_name, "minCount");

  fake_.AddObject(V1alpha1Workload("job"));
  const api::Pod w = InWorkload("w", "job", "workers", "0");
  const std::optional<framework::Gang> workload_gang =
      plugin_.GroupOf(*framework::PodInfo::Make(w));
  ASSERT_TRUE(workload_gang.has_value());
  EXPECT_EQ(workload_gang->name, api::Symbol("job/workers/0"));
  EXPECT_EQ(workload_gang->object.kind, "Workload");
  EXPECT_TRUE(workload_gang->condition_type.empty()) << "a v1alpha1 Workload has no status";
}

TEST_F(GangSchedulingTest, HandlesOnlyItsOwnApi) {
  EXPECT_TRUE(plugin_.Handles(api::GangOf(InGroup("a", "g"))));
  EXPECT_TRUE(plugin_.Handles(api::GangOf(InWorkload("a", "w", "g"))));
  EXPECT_FALSE(plugin_.Handles(api::GangOf(MakePod().Name("a").PodGroup("g").Obj())))
      << "scheduler-plugins' PodGroup is Coscheduling's";
}

TEST_F(GangSchedulingTest, PreFilterGroupCountsMembersWithoutGates) {
  framework::Gang gang;
  gang.min_count = 2;
  const api::Pod a = InGroup("a", "g");
  api::Pod gated = InGroup("b", "g");
  gated.spec.scheduling_gates = {"wait"};
  gang.members = {&a, &gated};
  EXPECT_EQ(plugin_.PreFilterGroup(gang, {}),
            Status(Code::kUnschedulableAndUnresolvable,
                   "1/2 members have scheduling gates; 1 can be scheduled (minCount 2)"));
  gang.members = {&a};
  EXPECT_EQ(plugin_.PreFilterGroup(gang, {}), kWaitingForMinCount);
}

TEST_F(GangSchedulingTest, HintsQueueForTheirOwnGroupOnly) {
  const std::vector<framework::ClusterEventWithHint> events = plugin_.EventsToRegister();
  ASSERT_EQ(events.size(), 4u);
  const api::Pod pod = InGroup("a", "g");
  const api::Pod sibling = InGroup("b", "g");
  const api::Pod stranger = InGroup("c", "h");
  framework::EventObjects added;
  added.new_pod = &sibling;
  EXPECT_EQ(events[0].hint(pod, added, nullptr), QueueingHint::kQueue);
  added.new_pod = &stranger;
  EXPECT_EQ(events[0].hint(pod, added, nullptr), QueueingHint::kSkip);

  framework::EventObjects group;
  group.new_object = std::make_shared<const api::SchedulingPodGroup>(Group("g", 2));
  EXPECT_EQ(events[1].hint(pod, group, nullptr), QueueingHint::kQueue);
  group.new_object = std::make_shared<const api::SchedulingPodGroup>(Group("h", 2));
  EXPECT_EQ(events[1].hint(pod, group, nullptr), QueueingHint::kSkip);

  // Updates: only a lower minCount helps (the scheduler's own condition writes do not).
  framework::EventObjects update;
  api::SchedulingPodGroup before = Group("g", 3);
  api::SchedulingPodGroup after = before;
  after.status.conditions.push_back(
      {api::Symbol("PodGroupInitiallyScheduled"), api::Symbol("False"), "Unschedulable", "m"});
  update.old_object = std::make_shared<const api::SchedulingPodGroup>(before);
  update.new_object = std::make_shared<const api::SchedulingPodGroup>(after);
  EXPECT_EQ(events[1].hint(pod, update, nullptr), QueueingHint::kSkip);
  after.spec.policy.min_count = 2;
  update.new_object = std::make_shared<const api::SchedulingPodGroup>(after);
  EXPECT_EQ(events[1].hint(pod, update, nullptr), QueueingHint::kQueue);

  framework::EventObjects workload;
  workload.new_object = std::make_shared<const api::Workload>(V1alpha1Workload("job"));
  EXPECT_EQ(events[2].hint(InWorkload("w", "job", "workers"), workload, nullptr),
            QueueingHint::kQueue);
  EXPECT_EQ(events[2].hint(pod, workload, nullptr), QueueingHint::kSkip);
}

// ---- Composite groups (KEP-6012, 1.37): upstream's hierarchy PreEnqueue and cycle input ----

api::CompositePodGroup Composite(std::string_view name, std::optional<int32_t> min_groups,
                                 std::string_view parent = "") {
  api::CompositePodGroup c;
  c.metadata.name = std::string(name);
  c.metadata.namespace_ = api::Symbol("default");
  c.api_version = "scheduling.k8s.io/v1alpha3";
  c.spec.policy.min_count = min_groups;
  c.spec.parent = api::Symbol(parent);
  return c;
}

api::SchedulingPodGroup Child(std::string_view name, std::optional<int32_t> min_count,
                              std::string_view parent, int created) {
  api::SchedulingPodGroup g = Group(name, min_count);
  g.spec.parent = api::Symbol(parent);
  g.metadata.creation_timestamp = api::Time() + std::chrono::seconds(created);
  return g;
}

TEST_F(GangSchedulingTest, AMemberOfATreeWaitsForTheWholeTreeFromItsRoot) {
  // root (gang of 2 groups) -> mid (basic composite) -> {a (2 pods), b (1 pod)}; root -> c.
  fake_.AddObject(Child("a", 2, "mid", 1));
  const api::Pod a0 = InGroup("a0", "a");
  EXPECT_EQ(plugin_.PreEnqueue(a0),
            Status(Code::kUnschedulableAndUnresolvable,
                   "failed to build hierarchy snapshot: composite pod group object not found in "
                   "state for compositepodgroup/default/mid"));
  fake_.AddObject(Composite("mid", std::nullopt, "root"));
  EXPECT_EQ(plugin_.PreEnqueue(a0),
            Status(Code::kUnschedulableAndUnresolvable,
                   "failed to build hierarchy snapshot: composite pod group object not found in "
                   "state for compositepodgroup/default/root"));
  fake_.AddObject(Composite("root", 2));
  fake_.AddObject(Child("b", 1, "mid", 2));
  fake_.AddObject(Child("c", std::nullopt, "root", 3));
  const Status waiting(Code::kUnschedulableAndUnresolvable,
                       "waiting for composite pod group \"root\" tree to meet quorum");
  EXPECT_EQ(plugin_.PreEnqueue(a0), waiting);
  fake_.AddPod(a0);
  // a0 alone: a is short of minCount, b has no pod, c (basic) none: 0 of root's 2 children.
  EXPECT_EQ(plugin_.PreEnqueue(a0), waiting);
  // b's one pod readies b, so mid (basic: one child) is ready; still one of root's two.
  const api::Pod b0 = InGroup("b0", "b");
  fake_.AddPod(b0);
  EXPECT_EQ(plugin_.PreEnqueue(a0), waiting);
  // A pod of c, counting itself before the lister holds it, readies the tree, for every member.
  const api::Pod c0 = InGroup("c0", "c");
  EXPECT_EQ(plugin_.PreEnqueue(c0), Status());
  fake_.AddPod(c0);
  EXPECT_EQ(plugin_.PreEnqueue(a0), Status()) << "a is short, but the tree is not";
  EXPECT_EQ(plugin_.PreEnqueue(b0), Status());
}

TEST_F(GangSchedulingTest, GroupOfATreeMemberIsItsRootsWholeTree) {
  fake_.AddObject(Composite("root", 2));
  // Children in order of creation, whatever their kind or name.
  fake_.AddObject(Child("z", 2, "root", 1));
  fake_.AddObject(Child("a", 1, "mid", 5));
  api::CompositePodGroup mid = Composite("mid", 1, "root");
  mid.metadata.creation_timestamp = api::Time() + std::chrono::seconds(2);
  fake_.AddObject(mid);
  fake_.AddObject(Child("b", std::nullopt, "mid", 4));
  for (const char* name : {"z0", "z1"}) fake_.AddPod(InGroup(name, "z"));
  fake_.AddPod(InGroup("a0", "a"));
  fake_.AddPod(InGroup("b0", "b"));
  const std::optional<framework::Gang> gang =
      plugin_.GroupOf(*framework::PodInfo::Make(InGroup("a0", "a")));
  ASSERT_TRUE(gang.has_value());
  EXPECT_EQ(gang->name, api::Symbol("root"));
  EXPECT_EQ(gang->min_count, 2);
  EXPECT_EQ(gang->quorum_name, "minGroupCount");
  EXPECT_EQ(gang->object.kind, "CompositePodGroup");
  EXPECT_TRUE(gang->condition_type.empty()) << "1.37 writes no condition on a composite group";
  EXPECT_THAT(gang->members, SizeIs(4));
  ASSERT_THAT(gang->children, SizeIs(2));
  EXPECT_EQ(gang->children[0].name, api::Symbol("z"));
  EXPECT_FALSE(gang->children[0].composite());
  EXPECT_EQ(gang->children[0].min_count, 2);
  EXPECT_EQ(gang->children[0].condition_type, "PodGroupInitiallyScheduled");
  const framework::Gang& m = gang->children[1];
  EXPECT_EQ(m.name, api::Symbol("mid"));
  ASSERT_THAT(m.children, SizeIs(2));
  EXPECT_EQ(m.children[0].name, api::Symbol("b")) << "created before a";
  EXPECT_EQ(m.children[0].min_count, 1) << "a basic group is placed with one pod";
  EXPECT_EQ(m.children[1].name, api::Symbol("a"));
  // A member of any group of the tree is placed with the same tree.
  EXPECT_EQ(plugin_.GroupOf(*framework::PodInfo::Make(InGroup("z0", "z")))->name,
            api::Symbol("root"));
}

TEST_F(GangSchedulingTest, HintsQueueForAnotherGroupOfTheSameTree) {
  const std::vector<framework::ClusterEventWithHint> events = plugin_.EventsToRegister();
  fake_.AddObject(Composite("root", 2));
  fake_.AddObject(Child("a", 1, "root", 1));
  fake_.AddObject(Child("b", 1, "root", 2));
  fake_.AddObject(Group("flat", 1));
  const api::Pod a0 = InGroup("a0", "a");
  fake_.AddPod(a0);
  framework::EventObjects added;
  const api::Pod stranger = InGroup("f0", "flat");
  added.new_pod = &stranger;
  EXPECT_EQ(events[0].hint(a0, added, nullptr), QueueingHint::kSkip);
  const api::Pod b0 = InGroup("b0", "b");
  fake_.AddPod(b0);
  added.new_pod = &b0;
  EXPECT_EQ(events[0].hint(a0, added, nullptr), QueueingHint::kQueue) << "the tree is ready";

  // A composite group added: one of the pod's tree (or its missing parent) helps.
  framework::EventObjects composite;
  composite.new_object = std::make_shared<const api::CompositePodGroup>(Composite("root", 2));
  EXPECT_EQ(events[3].hint(a0, composite, nullptr), QueueingHint::kQueue);
  composite.new_object = std::make_shared<const api::CompositePodGroup>(Composite("other", 2));
  EXPECT_EQ(events[3].hint(a0, composite, nullptr), QueueingHint::kSkip);
  EXPECT_EQ(events[3].hint(stranger, composite, nullptr), QueueingHint::kSkip);
  // A group added to the tree.
  framework::EventObjects group;
  group.new_object = std::make_shared<const api::SchedulingPodGroup>(Child("c", 1, "root", 3));
  EXPECT_EQ(events[1].hint(a0, group, nullptr), QueueingHint::kQueue);
  group.new_object = std::make_shared<const api::SchedulingPodGroup>(Group("c", 1));
  EXPECT_EQ(events[1].hint(a0, group, nullptr), QueueingHint::kSkip);
}

}  // namespace
}  // namespace muster::plugins::gangscheduling
