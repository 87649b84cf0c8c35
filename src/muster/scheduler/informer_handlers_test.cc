// The informer handlers (informer_handlers.cc): what each cluster event does to the store, the
// cache, the queue and the cluster version.

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/scheduler/testing/harness.h"

namespace muster::scheduler {
namespace {

using testing::kGangLabel;
using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;
using testing::SchedulerHarness;

TEST(InformerHandlers, AnAddedPendingPodIsQueuedAndABoundOneCached) {
  SchedulerHarness h;
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "10"}}).Obj());
  h.AddPod(MakePod().Name("pending").Obj());
  h.AddPod(MakePod().Name("running").NodeName("n1").Obj());
  EXPECT_TRUE(h.scheduler().HasActivePods());
  EXPECT_EQ(h.scheduler().queue().NumActive(), 1u);
  EXPECT_EQ(h.scheduler().cache().PodCount(), 1u);
  EXPECT_EQ(h.scheduler().cache().NodeCount(), 1u);
}

// A pod's binding that confirms where it was assumed changes nothing an attempt read, so the
// cluster version stays; a binding the scheduler did not make changes it.
TEST(InformerHandlers, TheBindingOfAnAssumedPodIsNoClusterChange) {
  SchedulerHarness h;
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "10"}}).Obj());
  const api::Pod pod = MakePod().Name("web").Obj();
  h.AddPod(pod);
  h.RunCycles();
  ASSERT_EQ(h.Bindings(), std::vector<std::string>{"default/web -> n1"});
  const uint64_t version = h.scheduler().ClusterVersion();
  ASSERT_TRUE(h.scheduler().cache().IsAssumedPod(pod));
  // The API server's update: the pod as the informer had it (the harness gave it a uid), bound.
  api::Pod old_pod = pod;
  old_pod.metadata.uid = "uid-default/web";
  api::Pod bound = old_pod;
  bound.spec.node_name = api::Symbol("n1");
  h.UpdatePod(old_pod, bound);
  EXPECT_EQ(h.scheduler().ClusterVersion(), version);
  EXPECT_FALSE(h.scheduler().cache().IsAssumedPod(bound)) << "confirmed";

  const api::Pod other = MakePod().Name("other").NodeName("n1").Obj();
  h.AddPod(other);
  EXPECT_GT(h.scheduler().ClusterVersion(), version);
}

// The group cycle's own condition writes come back as updates; they are no reason to retry
// anything. A change of minMember is.
TEST(InformerHandlers, APodGroupsConditionsAloneAreNoClusterChange) {
  SchedulerHarness h(testing::HarnessOptions{.gang = true});
  const api::PodGroup group = MakePodGroup("g", 2);
  h.AddPodGroup(group);
  const uint64_t version = h.scheduler().ClusterVersion();
  api::PodGroup conditioned = group;
  conditioned.status.conditions.push_back(api::Condition{
      api::Symbol("Scheduled"), api::Symbol("False"), "Unschedulable", "1/2 members fit", {}});
  h.UpdatePodGroup(group, conditioned);
  EXPECT_EQ(h.scheduler().ClusterVersion(), version);
  EXPECT_EQ(h.scheduler()
                .lister()
                .Get<api::PodGroup>(api::Symbol("default"), api::Symbol("g"))
                ->status.conditions.size(),
            1u)
      << "stored all the same";
  api::PodGroup smaller = conditioned;
  smaller.spec.min_member = 1;
  h.UpdatePodGroup(conditioned, smaller);
  EXPECT_GT(h.scheduler().ClusterVersion(), version);
}

// Upstream handles a kind's events only when a plugin registered for that kind: a registration
// for any event (WildCard) does not make the scheduler watch PodGroups. A pod turned away by a
// plugin registered so is retried on a node's event, but not on a PodGroup's.
TEST(InformerHandlers, AKindsEventIsHandledOnlyWhenAPluginRegisteredForIt) {
  SchedulerHarness h(testing::HarnessOptions{.reject_all = true});
  h.AddNode(MakeNode().Name("n0").Capacity({{"pods", "1"}}).Obj());
  h.AddPod(MakePod().Name("web").Obj());
  h.RunCycles();
  ASSERT_EQ(h.scheduler().queue().NumUnschedulable(), 1u);
  h.AddPodGroup(MakePodGroup("g", 1));
  EXPECT_EQ(h.scheduler().queue().NumUnschedulable(), 1u);
  EXPECT_NE(h.scheduler().lister().Get<api::PodGroup>(api::Symbol("default"), api::Symbol("g")),
            nullptr)
      << "stored all the same";
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "1"}}).Obj());
  EXPECT_EQ(h.scheduler().queue().NumUnschedulable(), 0u);
}

// Under a gang plugin that registered for PodGroup adds, the creation of a member's missing
// group retries it.
TEST(InformerHandlers, APodGroupsCreationRetriesTheMembersWaitingForIt) {
  SchedulerHarness h(testing::HarnessOptions{.gang = true});
  h.AddNode(MakeNode().Name("n1").Capacity({{"pods", "1"}}).Obj());
  h.AddPod(MakePod().Name("m0").Label(kGangLabel, "late").Obj());
  h.RunCycles();
  ASSERT_EQ(h.scheduler().queue().NumUnschedulable(), 1u);
  ASSERT_FALSE(h.client().condition_updates.empty());
  EXPECT_EQ(h.client().condition_updates.back().second.message,
            "0/1 nodes are available: PodGroup not found.");
  h.AddPodGroup(MakePodGroup("late", 1));
  EXPECT_EQ(h.scheduler().queue().NumUnschedulable(), 0u);
  h.clock().AdvanceTo(h.clock().Now() + std::chrono::seconds(10));  // past its backoff
  h.RunCycles();
  EXPECT_EQ(h.Bindings(), std::vector<std::string>{"default/m0 -> n1"});
}

}  // namespace
}  // namespace muster::scheduler
