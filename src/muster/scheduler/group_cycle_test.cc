// The whole-group cycle (group_cycle.cc): a group's pending members placed together against one
// snapshot, then kept only when minMember of the group are placed.

#include <algorithm>
#include <string>
#include <vector>

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

class GroupCycleTest : public ::testing::Test {
 protected:
  // One node with room for `slots` pods, group g of minMember `min_member` with `members`
  // members m0, m1, ...
  void Setup(int slots, int32_t min_member, int members) {
    h_.AddNode(MakeNode().Name("n1").Capacity({{"pods", std::to_string(slots)}}).Obj());
    group_ = MakePodGroup("g", min_member);
    h_.AddPodGroup(group_);
    for (int i = 0; i < members; ++i) {
      h_.AddPod(MakePod().Name("m" + std::to_string(i)).Label(kGangLabel, "g").Obj());
    }
  }
  std::vector<std::string> BoundPods() const {
    std::vector<std::string> out;
    for (const auto& [pod, node] : h_.client().bindings) out.push_back(pod);
    std::sort(out.begin(), out.end());
    return out;
  }
  // The last Scheduled condition written to the group ("True: message").
  std::string GroupCondition() const {
    for (auto it = h_.client().group_condition_updates.rbegin();
         it != h_.client().group_condition_updates.rend(); ++it) {
      EXPECT_EQ(it->first, "PodGroup default/g");
      if (it->second.type.str() == "Scheduled") {
        return it->second.status.string() + ": " + it->second.message;
      }
    }
    return "";
  }

  SchedulerHarness h_{testing::HarnessOptions{.gang = true}};
  api::PodGroup group_;
};

TEST_F(GroupCycleTest, AGroupThatFitsIsPlacedInOneCycle) {
  Setup(/*slots=*/3, /*min_member=*/3, /*members=*/3);
  EXPECT_EQ(h_.RunCycles(), 1) << "one cycle takes the whole group";
  EXPECT_EQ(BoundPods(), (std::vector<std::string>{"default/m0", "default/m1", "default/m2"}));
  EXPECT_EQ(GroupCondition(), "True: 3/3 members placed (minMember 3)");
}

TEST_F(GroupCycleTest, AGroupShortOfMinMemberHoldsNothing) {
  Setup(/*slots=*/2, /*min_member=*/3, /*members=*/3);
  h_.RunCycles();
  EXPECT_TRUE(BoundPods().empty());
  EXPECT_EQ(h_.scheduler().cache().AssumedPodCount(), 0u) << "every placement undone";
  EXPECT_EQ(h_.scheduler().queue().NumUnschedulable(), 3u) << "every member requeued";
  const std::string message =
      "2/3 members fit (minMember 3); 1 member does not: 0/1 nodes are available: 1 Too many pods";
  EXPECT_EQ(GroupCondition(), "False: " + message);
  // One FailedScheduling event on the group, and one on each member.
  int on_group = 0, on_pods = 0;
  for (const framework::EventRecord& e : h_.client().events) {
    if (e.reason != "FailedScheduling") continue;
    (e.regarding.kind == "PodGroup" ? on_group : on_pods)++;
    EXPECT_EQ(e.message, message);
  }
  EXPECT_EQ(on_group, 1);
  EXPECT_EQ(on_pods, 3);
}

TEST_F(GroupCycleTest, AShortGroupKeepsTheNominationsOfItsMembers) {
  // m0 holds n1 from an earlier preemption made for the gang. The cycle places it there (which
  // releases the nomination, as a placement does), falls short and undoes it: the room must
  // still be kept for m0, or a pod of lower priority could take what was preempted for the gang.
  h_.AddNode(MakeNode().Name("n1").Capacity({{"pods", "2"}}).Obj());
  h_.AddPodGroup(MakePodGroup("g", 3));
  api::Pod nominated = MakePod().Name("m0").Label(kGangLabel, "g").Obj();
  nominated.status.nominated_node_name = api::Symbol("n1");
  h_.AddPod(nominated);
  for (const char* name : {"m1", "m2"})
    h_.AddPod(MakePod().Name(name).Label(kGangLabel, "g").Obj());
  ASSERT_EQ(h_.scheduler().queue().NominatedPods(),
            (std::vector<std::pair<std::string, std::string>>{{"default/m0", "n1"}}));
  h_.RunCycles();
  EXPECT_TRUE(BoundPods().empty());
  EXPECT_EQ(h_.scheduler().queue().NominatedPods(),
            (std::vector<std::pair<std::string, std::string>>{{"default/m0", "n1"}}));
}

TEST_F(GroupCycleTest, MembersBeyondTheQuorumThatDoNotFitFailAlone) {
  Setup(/*slots=*/2, /*min_member=*/2, /*members=*/3);
  h_.RunCycles();
  EXPECT_EQ(BoundPods().size(), 2u);
  EXPECT_EQ(GroupCondition(), "True: 2/3 members placed (minMember 2)");
  EXPECT_EQ(h_.scheduler().queue().NumUnschedulable(), 1u);
  // The one left over has the message a pod on its own would have.
  ASSERT_FALSE(h_.client().condition_updates.empty());
  EXPECT_EQ(h_.client().condition_updates.back().second.message,
            "0/1 nodes are available: 1 Too many pods.");
}

TEST_F(GroupCycleTest, AMemberBoundBeforeCountsTowardsTheQuorum) {
  h_.AddNode(MakeNode().Name("n1").Capacity({{"pods", "1"}}).Obj());
  h_.AddNode(MakeNode().Name("n2").Capacity({{"pods", "1"}}).Obj());
  h_.AddPodGroup(MakePodGroup("g", 2));
  h_.AddPod(MakePod().Name("m0").Label(kGangLabel, "g").NodeName("n1").Obj());
  h_.AddPod(MakePod().Name("m1").Label(kGangLabel, "g").Obj());
  h_.RunCycles();
  EXPECT_EQ(h_.Bindings(), std::vector<std::string>{"default/m1 -> n2"});
  EXPECT_EQ(GroupCondition(), "True: 2/2 members placed (minMember 2)");
}

}  // namespace
}  // namespace muster::scheduler
