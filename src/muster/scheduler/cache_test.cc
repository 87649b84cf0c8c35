#include "muster/scheduler/cache.h"

#include <limits>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::scheduler {
namespace {

using testing::MakeNode;
using testing::MakePod;

api::Node Node(std::string name, std::string zone = "") {
  auto b = MakeNode().Name(name).Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}});
  if (!zone.empty()) b.Label("topology.kubernetes.io/zone", zone);
  return b.Obj();
}

const framework::NodeInfo* Info(const framework::Snapshot& s, std::string_view name) {
  return s.Get(api::Symbol(name));
}

TEST(CacheTest, AssumeCountsThenForgetReleases) {
  Cache cache;
  cache.AddNode(Node("n1"));
  framework::Snapshot snap;
  api::Pod pod = MakePod().Name("p").Req({{"cpu", "1"}}).NodeName("n1").Obj();
  ASSERT_TRUE(cache.AssumePod(framework::PodInfo::Make(pod)).IsSuccess());
  EXPECT_TRUE(cache.IsAssumedPod(pod));
  EXPECT_EQ(cache.AssumedPodCount(), 1u);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Info(snap, "n1")->requested().milli_cpu, 1000);
  EXPECT_EQ(Info(snap, "n1")->pods().size(), 1u);
  ASSERT_TRUE(cache.ForgetPod(pod).IsSuccess());
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Info(snap, "n1")->requested().milli_cpu, 0);
  EXPECT_FALSE(cache.IsAssumedPod(pod));
  EXPECT_EQ(cache.AssumedPodCount(), 0u);
}

// The cache keys a pod by the name the pod it holds carries, not by a copy: when the bound pod
// replaces the assumed one (whose PodInfo nothing else keeps), the key follows the new pod.
// Under AddressSanitizer a key left viewing the freed pod would be a use after free.
TEST(CacheTest, FindsAPodByTheNameOfThePodItHoldsNow) {
  Cache cache;
  cache.AddNode(Node("n1"));
  api::Pod assumed = MakePod().Name("p").Namespace("ns").Req({{"cpu", "1"}}).NodeName("n1").Obj();
  ASSERT_TRUE(cache.AssumePod(framework::PodInfo::Make(assumed)).IsSuccess());
  api::Pod bound = assumed;
  bound.metadata.resource_version = "2";
  framework::PodInfoPtr bound_info = framework::PodInfo::Make(bound);
  ASSERT_TRUE(cache.AddPod(bound_info).IsSuccess());
  const std::string key = "ns/p";
  EXPECT_EQ(cache.GetPod(api::PodName::Parse(key)), bound_info.get());
  EXPECT_EQ(cache.GetPod(api::PodName::Of(bound)), bound_info.get());
  EXPECT_EQ(cache.GetPod(api::PodName::Parse("p")), nullptr);  // no namespace
  EXPECT_EQ(cache.GetPod(api::PodName::Parse("other/p")), nullptr);
  // Taken out and put back, it is found again.
  std::optional<Cache::TakenOut> taken = cache.TakeOut(bound);
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(cache.GetPod(api::PodName::Of(bound)), nullptr);
  cache.PutBack(std::move(*taken));
  EXPECT_EQ(cache.GetPod(api::PodName::Of(bound)), bound_info.get());
  ASSERT_TRUE(cache.RemovePod(bound).IsSuccess());
  EXPECT_EQ(cache.PodCount(), 0u);
}

TEST(CacheTest, AddConfirmsAssumedPodEvenOnAnotherNode) {
  Cache cache;
  cache.AddNode(Node("n1"));
  cache.AddNode(Node("n2"));
  api::Pod assumed = MakePod().Name("p").Req({{"cpu", "1"}}).NodeName("n1").Obj();
  ASSERT_TRUE(cache.AssumePod(framework::PodInfo::Make(assumed)).IsSuccess());
  api::Pod bound = assumed;
  bound.spec.node_name = api::Symbol("n2");
  ASSERT_TRUE(cache.AddPod(bound).IsSuccess());
  EXPECT_FALSE(cache.IsAssumedPod(bound));
  EXPECT_EQ(cache.AssumedPodCount(), 0u);  // confirmed: counted as a pod, no longer assumed
  EXPECT_EQ(cache.PodCount(), 1u);
  framework::Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Info(snap, "n1")->requested().milli_cpu, 0);
  EXPECT_EQ(Info(snap, "n2")->requested().milli_cpu, 1000);
}

TEST(CacheTest, AssumingTwiceIsAnError) {
  Cache cache;
  cache.AddNode(Node("n1"));
  api::Pod pod = MakePod().Name("p").NodeName("n1").Obj();
  ASSERT_TRUE(cache.AssumePod(framework::PodInfo::Make(pod)).IsSuccess());
  EXPECT_TRUE(cache.AssumePod(framework::PodInfo::Make(pod)).IsError());
}

TEST(CacheTest, ForgettingAnAddedPodIsAnError) {
  Cache cache;
  cache.AddNode(Node("n1"));
  api::Pod pod = MakePod().Name("p").NodeName("n1").Obj();
  ASSERT_TRUE(cache.AddPod(pod).IsSuccess());
  EXPECT_TRUE(cache.ForgetPod(pod).IsError());
}

TEST(CacheTest, RemovePodFreesAndUpdateMoves) {
  Cache cache;
  cache.AddNode(Node("n1"));
  api::Pod pod = MakePod().Name("p").Req({{"cpu", "2"}}).NodeName("n1").Obj();
  cache.AddPod(pod);
  api::Pod bigger = MakePod().Name("p").Req({{"cpu", "3"}}).NodeName("n1").Obj();
  cache.UpdatePod(pod, bigger);
  framework::Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Info(snap, "n1")->requested().milli_cpu, 3000);
  cache.RemovePod(bigger);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Info(snap, "n1")->requested().milli_cpu, 0);
  EXPECT_EQ(cache.PodCount(), 0u);
}

TEST(CacheTest, SnapshotCopiesOnlyChangedNodes) {
  Cache cache;
  cache.AddNode(Node("n1"));
  cache.AddNode(Node("n2"));
  framework::Snapshot snap;
  cache.UpdateSnapshot(snap);
  const framework::NodeInfo* n1_before = Info(snap, "n1");
  const uint64_t n2_generation = Info(snap, "n2")->generation();
  cache.AddPod(MakePod().Name("p").Req({{"cpu", "1"}}).NodeName("n1").Obj());
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(Info(snap, "n1"), n1_before) << "updated in place, same slot";
  EXPECT_EQ(Info(snap, "n1")->requested().milli_cpu, 1000);
  EXPECT_EQ(Info(snap, "n2")->generation(), n2_generation) << "untouched node not recopied";
  EXPECT_GT(snap.generation(), n2_generation);
}

// The snapshot's nodes in order, brought up to date first.
std::vector<std::string> Order(Cache& cache, framework::Snapshot& snap) {
  cache.UpdateSnapshot(snap);
  std::vector<std::string> names;
  for (const framework::NodeInfo* n : snap.List()) names.push_back(n->name().string());
  return names;
}

TEST(CacheTest, NodeOrderInterleavesZones) {
  Cache cache;
  cache.AddNode(Node("a1", "a"));
  cache.AddNode(Node("a2", "a"));
  cache.AddNode(Node("a3", "a"));
  cache.AddNode(Node("b1", "b"));
  cache.AddNode(Node("c1", "c"));
  cache.AddNode(Node("b2", "b"));
  framework::Snapshot snap;
  EXPECT_EQ(Order(cache, snap), (std::vector<std::string>{"a1", "b1", "c1", "a2", "b2", "a3"}));
}

// A node added again is an update (listed once, moved when its zone changed); a removed node
// leaves its zone, and a removal of a node not listed changes nothing.
TEST(CacheTest, NodeOrderFollowsNodesAddedAgainAndRemoved) {
  Cache cache;
  cache.AddNode(Node("a1", "a"));
  cache.AddNode(Node("b1", "b"));
  cache.AddNode(Node("a2", "a"));
  cache.AddNode(Node("a1", "a"));
  framework::Snapshot snap;
  auto order = [&] { return Order(cache, snap); };
  EXPECT_EQ(order(), (std::vector<std::string>{"a1", "b1", "a2"}));
  cache.AddNode(Node("a1", "b"));
  EXPECT_EQ(order(), (std::vector<std::string>{"a2", "b1", "a1"}));
  cache.RemoveNode(Node("b1", "b"));
  cache.RemoveNode(Node("b1", "b"));
  cache.RemoveNode(Node("zz", "a"));
  EXPECT_EQ(order(), (std::vector<std::string>{"a2", "a1"}));
}

TEST(CacheTest, SnapshotFollowsTheLowestPodPriority) {
  Cache cache;
  api::Node n1 = Node("n1");
  cache.AddNode(n1);
  cache.AddNode(Node("n2"));
  framework::Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.MinPodPriority(), std::numeric_limits<int32_t>::max()) << "no pods";
  const api::Pod low = MakePod().Name("low").Priority(-5).NodeName("n1").Obj();
  const api::Pod mid = MakePod().Name("mid").Priority(10).NodeName("n1").Obj();
  const api::Pod high = MakePod().Name("high").Priority(100).NodeName("n2").Obj();
  cache.AddPod(mid);
  cache.AddPod(high);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.MinPodPriority(), 10);
  cache.AddPod(low);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.MinPodPriority(), -5);
  cache.RemovePod(low);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.MinPodPriority(), 10) << "back up when the lowest pod leaves";
  cache.RemovePod(mid);
  cache.RemoveNode(n1);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.MinPodPriority(), 100) << "a removed node no longer counts";
}

TEST(CacheTest, SnapshotCountsNodesPreferringNoSchedule) {
  Cache cache;
  framework::Snapshot snap;
  cache.AddNode(Node("plain"));
  cache.AddNode(MakeNode().Name("hard").Taint("gpu", "", api::TaintEffect::kNoSchedule).Obj());
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.NumNodesPreferringNoSchedule(), 0) << "NoSchedule is not a preference";
  const api::Node soft =
      MakeNode().Name("soft").Taint("spot", "", api::TaintEffect::kPreferNoSchedule).Obj();
  cache.AddNode(soft);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.NumNodesPreferringNoSchedule(), 1);
  cache.AddPod(MakePod().Name("p").NodeName("soft").Obj());
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.NumNodesPreferringNoSchedule(), 1) << "a node changed by its pods counts once";
  cache.UpdateNode(Node("soft"));
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.NumNodesPreferringNoSchedule(), 0) << "the taint removed";
  cache.UpdateNode(soft);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.NumNodesPreferringNoSchedule(), 1);
  cache.RemoveNode(soft);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.NumNodesPreferringNoSchedule(), 0) << "a removed node no longer counts";
}

TEST(CacheTest, RemovedNodeLeavesSnapshotButPodsKeepItsInfo) {
  Cache cache;
  api::Node n1 = Node("n1");
  cache.AddNode(n1);
  cache.AddNode(Node("n2"));
  cache.AddPod(MakePod().Name("p").NodeName("n1").Obj());
  framework::Snapshot snap;
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.NumNodes(), 2u);
  cache.RemoveNode(n1);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(snap.NumNodes(), 1u);
  EXPECT_EQ(Info(snap, "n1"), nullptr);
}

}  // namespace
}  // namespace muster::scheduler

namespace muster::scheduler {
namespace {

// Upstream's NodeInfo.Snapshot counts an image's nodes when it copies a node: a node that did
// not change since keeps the counts of its last copy.
TEST(CacheTest, ImageStatesCountNodesWithTheImageWhenTheNodeIsCopied) {
  Cache cache;
  cache.AddNode(testing::MakeNode().Name("n1").Image("nginx:1.25", 100).Obj());
  framework::Snapshot snap;
  cache.UpdateSnapshot(snap);
  auto image = [&](const char* node) {
    const framework::NodeInfo* info = snap.Get(api::Symbol(node));
    EXPECT_NE(info, nullptr);
    EXPECT_FALSE(info->image_states().empty());
    return info->image_states()[0];
  };
  EXPECT_EQ(image("n1").num_nodes, 1);
  // The same image at another size, and listed twice: n2 counts once, at its own size (as
  // upstream's snapshot of the node has it).
  api::Node n2 = testing::MakeNode().Name("n2").Image("nginx:1.25", 300).Obj();
  n2.status.images.push_back(n2.status.images[0]);
  cache.AddNode(n2);
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(image("n2").num_nodes, 2);
  EXPECT_EQ(image("n2").size_bytes, 300);
  EXPECT_EQ(image("n1").num_nodes, 1) << "n1 did not change";
  // A pod on n1 changes it: its copy counts again.
  cache.AddPod(MakePod().Name("p").NodeName("n1").Obj());
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(image("n1").num_nodes, 2);
  cache.RemoveNode(n2);
  cache.AddPod(MakePod().Name("q").NodeName("n1").Obj());
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(image("n1").num_nodes, 1);
  // Added again, a known node is an update: it counts once still.
  cache.AddNode(testing::MakeNode().Name("n1").Image("nginx:1.25", 100).Obj());
  cache.UpdateSnapshot(snap);
  EXPECT_EQ(image("n1").num_nodes, 1);
  EXPECT_EQ(snap.NumNodes(), 1u);
}

}  // namespace
}  // namespace muster::scheduler
