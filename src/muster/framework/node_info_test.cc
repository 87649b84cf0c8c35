#include "muster/framework/node_info.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::framework {
namespace {

using testing::MakePod;

PodInfoPtr Pod(const std::string& name, std::string_view cpu = "100m") {
  return PodInfo::Make(MakePod().Name(name).Req({{"cpu", cpu}}).Obj());
}

std::vector<std::string> Names(const PodList& list) {
  std::vector<std::string> names;
  for (const PodInfoPtr& p : list) names.push_back(p->pod.metadata.name);
  return names;
}

TEST(PodListTest, RemovalMovesTheLastEntryIntoTheHole) {
  PodList list;
  std::vector<PodInfoPtr> pods = {Pod("a"), Pod("b"), Pod("c"), Pod("d")};
  for (const PodInfoPtr& p : pods) list.PushBack(p);
  list.SwapRemove(1);
  EXPECT_EQ(Names(list), (std::vector<std::string>{"a", "d", "c"}));
  list.SwapRemove(2);
  EXPECT_EQ(Names(list), (std::vector<std::string>{"a", "d"}));
  EXPECT_EQ(list.Find(pods[3].get()), 1u);
  EXPECT_EQ(list.Find(pods[1].get()), list.size());
}

TEST(PodListTest, CopiesAreIndependentAcrossChunks) {
  PodList original;
  std::vector<PodInfoPtr> pods;
  const size_t n = 3 * PodList::kChunkSize + 5;
  for (size_t i = 0; i < n; ++i) {
    pods.push_back(Pod("p" + std::to_string(i)));
    original.PushBack(pods.back());
  }
  const PodList copy = original;
  // Edits in the first chunk, the last chunk, and emptying the last chunk entirely.
  original.SwapRemove(0);
  original.PushBack(Pod("new"));
  for (int i = 0; i < 7; ++i) original.SwapRemove(original.size() - 1);

  ASSERT_EQ(copy.size(), n);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(copy[i], pods[i]) << i;
  ASSERT_EQ(original.size(), n - 6 - 1);
  EXPECT_EQ(original[0]->pod.metadata.name, "p" + std::to_string(n - 1));
  for (size_t i = 1; i < original.size(); ++i) EXPECT_EQ(original[i], pods[i]) << i;
}

// A snapshot assigns a node's list over its older copy after every change: the copy is then
// the source, entry for entry, as the list grows past its first chunk and shrinks again; it
// holds the source's pods (the first chunk's its own references, the rest through the chunks
// the two share) and none that the source no longer has.
TEST(PodListTest, AssignedOverAnOlderCopyItIsTheSource) {
  PodList source;
  PodList copy;
  std::vector<PodInfoPtr> pods;
  auto expect_same = [&](const char* step) {
    ASSERT_EQ(copy.size(), source.size()) << step;
    for (size_t i = 0; i < source.size(); ++i) EXPECT_EQ(copy[i], source[i]) << step << " " << i;
    // Each pod: the test's vector, and when the source has it, the source and the copy (in the
    // first chunk) or the chunk they share.
    for (const PodInfoPtr& p : pods) {
      const size_t at = source.Find(p.get());
      const long expected = at == source.size() ? 1 : at < PodList::kChunkSize ? 3 : 2;
      EXPECT_EQ(p.use_count(), expected) << step << " " << p->pod.metadata.name;
    }
  };
  const size_t n = PodList::kChunkSize + 40;
  for (size_t i = 0; i < n; ++i) {
    pods.push_back(Pod("p" + std::to_string(i)));
    source.PushBack(pods.back());
    copy = source;
    expect_same("growing");
  }
  for (size_t i = 0; i < n; i += 3) {
    source.SwapRemove(source.Find(pods[i].get()));
    copy = source;
    expect_same("shrinking");
  }
  const PodList& same = copy;
  copy = same;
  expect_same("assigned to itself");
  copy = PodList();
  EXPECT_EQ(copy.size(), 0u);
}

TEST(NodeInfoTest, RemovePodInfoReleasesItsAccounting) {
  NodeInfo node;
  PodInfoPtr a = Pod("a", "1");
  PodInfoPtr b = Pod("b", "2");
  node.AddPod(a);
  node.AddPod(b);
  const NodeInfo before = node;
  ASSERT_TRUE(node.RemovePodInfo(a.get()));
  EXPECT_FALSE(node.RemovePodInfo(a.get()));
  EXPECT_EQ(node.requested().milli_cpu, 2000);
  EXPECT_EQ(Names(node.pods()), std::vector<std::string>{"b"});
  // The copy taken before is untouched.
  EXPECT_EQ(before.requested().milli_cpu, 3000);
  EXPECT_EQ(Names(before.pods()), (std::vector<std::string>{"a", "b"}));
}

TEST(NodeInfoTest, RemovePodMatchesByName) {
  NodeInfo node;
  node.AddPod(Pod("a", "1"));
  node.AddPod(Pod("b", "2"));
  EXPECT_TRUE(node.RemovePod(MakePod().Name("a").Obj()));
  EXPECT_FALSE(node.RemovePod(MakePod().Name("zzz").Obj()));
  EXPECT_EQ(node.requested().milli_cpu, 2000);
  EXPECT_EQ(node.pods().size(), 1u);
}

TEST(NodeInfoTest, KeepsTheNodesHotFieldsBesideItsAccounting) {
  NodeInfo node(
      std::make_shared<const api::Node>(testing::MakeNode()
                                            .Name("n1")
                                            .Unschedulable()
                                            .Taint("gpu", "true", api::TaintEffect::kNoSchedule)
                                            .Obj()));
  EXPECT_EQ(node.name().str(), "n1");
  EXPECT_TRUE(node.unschedulable());
  ASSERT_EQ(node.taints().size(), 1u);
  EXPECT_EQ(node.taints()[0].key.str(), "gpu");
  EXPECT_EQ(node.min_pod_priority(), std::numeric_limits<int32_t>::max());

  PodInfoPtr low = PodInfo::Make(MakePod().Name("low").Priority(-5).Obj());
  PodInfoPtr mid = PodInfo::Make(MakePod().Name("mid").Priority(10).Obj());
  PodInfoPtr also_low = PodInfo::Make(MakePod().Name("also-low").Priority(-5).Obj());
  node.AddPod(mid);
  node.AddPod(low);
  node.AddPod(also_low);
  EXPECT_EQ(node.num_pods(), 3);
  EXPECT_EQ(node.min_pod_priority(), -5);
  // The lowest goes only when the last pod at it does.
  ASSERT_TRUE(node.RemovePodInfo(low.get()));
  EXPECT_EQ(node.min_pod_priority(), -5);
  ASSERT_TRUE(node.RemovePodInfo(also_low.get()));
  EXPECT_EQ(node.min_pod_priority(), 10);
  EXPECT_EQ(node.num_pods(), 1);
  EXPECT_EQ(node.num_pods(), static_cast<int64_t>(node.pods().size()));

  // A copy's taints still point into the node both share.
  const NodeInfo copy = node;
  node.RemoveNode();
  EXPECT_FALSE(node.unschedulable());
  EXPECT_TRUE(node.taints().empty());
  ASSERT_EQ(copy.taints().size(), 1u);
  EXPECT_EQ(copy.taints()[0].key.str(), "gpu");
}

TEST(NodeInfoTest, NonZeroRequestsChargeDefaultsToContainersWithoutRequests) {
  NodeInfo node;
  node.AddPod(PodInfo::Make(MakePod().Name("empty").Req({}).Obj()));  // one container
  node.AddPod(Pod("cpu-only", "1"));
  // Upstream's defaults: 100m cpu and 200MB memory for a container that requests none.
  EXPECT_EQ(node.non_zero_milli_cpu(), 100 + 1000);
  EXPECT_EQ(node.non_zero_memory(), 2 * 200 * 1024 * 1024);
  EXPECT_EQ(node.requested().milli_cpu, 1000);
  ASSERT_TRUE(node.RemovePod(MakePod().Name("empty").Obj()));
  EXPECT_EQ(node.non_zero_milli_cpu(), 1000);
  EXPECT_EQ(node.non_zero_memory(), 200 * 1024 * 1024);
}

// The summary against the fields it copies.
void ExpectSummarized(const NodeInfo& node) {
  const ResourceSummary& r = node.summary();
  EXPECT_EQ(r.allocatable_milli_cpu, node.allocatable().milli_cpu);
  EXPECT_EQ(r.allocatable_memory, node.allocatable().memory);
  EXPECT_EQ(r.requested_milli_cpu, node.requested().milli_cpu);
  EXPECT_EQ(r.requested_memory, node.requested().memory);
  EXPECT_EQ(r.free_ephemeral_storage,
            node.allocatable().ephemeral_storage - node.requested().ephemeral_storage);
  EXPECT_EQ(r.free_pods, node.allocatable().allowed_pod_number - node.num_pods());
}

TEST(NodeInfoTest, ResourceSummaryFollowsPodsAndNode) {
  NodeInfo node(std::make_shared<api::Node>(
      testing::MakeNode()
          .Name("n")
          .Capacity({{"cpu", "4"}, {"memory", "8Gi"}, {"ephemeral-storage", "10Gi"}, {"pods", "5"}})
          .Obj()));
  ExpectSummarized(node);
  EXPECT_EQ(node.summary().free_pods, 5);
  const PodInfoPtr big =
      PodInfo::Make(MakePod()
                        .Name("big")
                        .Req({{"cpu", "1500m"}, {"memory", "1Gi"}, {"ephemeral-storage", "1Gi"}})
                        .Obj());
  node.AddPod(big);
  node.AddPod(Pod("small"));
  ExpectSummarized(node);
  EXPECT_EQ(node.summary().requested_milli_cpu, 1600);
  EXPECT_EQ(node.summary().free_pods, 3);
  EXPECT_EQ(node.summary().free_ephemeral_storage, int64_t{9} << 30);
  ASSERT_TRUE(node.RemovePodInfo(big.get()));
  ExpectSummarized(node);
  EXPECT_EQ(node.summary().requested_milli_cpu, 100);
  node.SetNode(std::make_shared<api::Node>(
      testing::MakeNode().Name("n").Capacity({{"cpu", "2"}, {"pods", "10"}}).Obj()));
  ExpectSummarized(node);
  EXPECT_EQ(node.summary().allocatable_milli_cpu, 2000);
  EXPECT_EQ(node.summary().free_pods, 9);
}

// A NodeInfo is its two hot lines and the rest behind a pointer: a copy and an assignment carry
// the rest too, and a copy changes apart from the node it came from.
TEST(NodeInfoTest, CopiesCarryEverythingAndChangeApart) {
  static_assert(sizeof(NodeInfo) == 128, "two cache lines");
  NodeInfo node(std::make_shared<const api::Node>(
      testing::MakeNode().Name("n1").Capacity({{"cpu", "4"}, {"pods", "10"}}).Obj()));
  node.SetImageStates({ImageState{"nginx", 100, 2}});
  node.AddPod(PodInfo::Make(MakePod().Name("web").Req({{"cpu", "1"}}).HostPort(80).Obj()));
  node.set_generation(7);

  auto expect_as_node = [](const NodeInfo& n) {
    EXPECT_EQ(n.name().str(), "n1");
    EXPECT_EQ(n.node_ptr()->metadata.name, "n1");
    EXPECT_EQ(n.generation(), 7u);
    EXPECT_EQ(Names(n.pods()), std::vector<std::string>{"web"});
    EXPECT_EQ(n.requested().milli_cpu, 1000);
    EXPECT_EQ(n.allocatable().milli_cpu, 4000);
    EXPECT_EQ(n.used_ports().size(), 1u);
    ASSERT_EQ(n.image_states().size(), 1u);
    EXPECT_EQ(n.image_states()[0].name, "nginx");
    ExpectSummarized(n);
  };
  NodeInfo copy = node;
  expect_as_node(copy);

  // Assigned over an older copy of another node, and over one moved from.
  NodeInfo older(std::make_shared<const api::Node>(testing::MakeNode().Name("n2").Obj()));
  older.AddPod(Pod("old"));
  older = node;
  expect_as_node(older);
  NodeInfo moved = std::move(older);
  expect_as_node(moved);
  older = node;  // NOLINT(bugprone-use-after-move): assignment is what a moved-from allows
  expect_as_node(older);
  const NodeInfo& same = older;
  older = same;
  expect_as_node(older);

  // The copy changes apart from the original.
  copy.AddPod(Pod("batch", "2"));
  copy.SetImageStates({});
  copy.set_generation(8);
  expect_as_node(node);
  EXPECT_EQ(copy.requested().milli_cpu, 3000);
  EXPECT_EQ(copy.pods().size(), 2u);
  EXPECT_TRUE(copy.image_states().empty());
  ExpectSummarized(copy);
}

// The snapshot lists the nodes with pods with affinity from two bits of the second line, which
// follow the lists.
TEST(NodeInfoTest, FlagsWhetherItHasPodsWithAffinity) {
  auto with = [](const std::string& name, bool required_anti) {
    api::Pod pod = MakePod().Name(name).Obj();
    api::PodAffinityTerm term;
    term.topology_key = api::Symbol("kubernetes.io/hostname");
    api::PodAffinity terms;
    if (required_anti) {
      terms.required.push_back(term);
    } else {
      terms.preferred.push_back(api::WeightedPodAffinityTerm{1, term});
    }
    pod.spec.affinity.emplace().pod_anti_affinity = terms;
    return PodInfo::Make(std::move(pod));
  };
  NodeInfo node(
      std::make_shared<const api::Node>(testing::MakeNode().Name("n1").Unschedulable().Obj()));
  const PodInfoPtr preferred = with("preferred", false);
  const PodInfoPtr required = with("required", true);
  node.AddPod(Pod("plain"));
  EXPECT_FALSE(node.has_pods_with_affinity());
  node.AddPod(preferred);
  EXPECT_TRUE(node.has_pods_with_affinity());
  EXPECT_FALSE(node.has_pods_with_required_anti_affinity());
  node.AddPod(required);
  EXPECT_TRUE(node.has_pods_with_required_anti_affinity());
  EXPECT_TRUE(node.unschedulable()) << "the node's own bit is kept";
  const NodeInfo copy = node;
  ASSERT_TRUE(node.RemovePodInfo(preferred.get()));
  EXPECT_TRUE(node.has_pods_with_affinity()) << "the required one has affinity too";
  ASSERT_TRUE(node.RemovePodInfo(required.get()));
  EXPECT_FALSE(node.has_pods_with_affinity());
  EXPECT_FALSE(node.has_pods_with_required_anti_affinity());
  EXPECT_TRUE(node.unschedulable());
  EXPECT_TRUE(copy.has_pods_with_required_anti_affinity());
}

TEST(PodCountMemoTest, ChangesToThePodsForgetCountsAndCopiesKeepThem) {
  NodeInfo node;
  node.AddPod(Pod("a"));
  node.pod_count_memo().Record(7, 1);
  uint32_t count = 0;
  ASSERT_TRUE(node.pod_count_memo().Find(7, &count));
  EXPECT_EQ(count, 1u);
  // Key 3 shares no slot with 7; key 7 + kSlots shares 7's and evicts it.
  EXPECT_FALSE(node.pod_count_memo().Find(3, &count));
  const NodeInfo copy = node;
  ASSERT_TRUE(copy.pod_count_memo().Find(7, &count));

  node.AddPod(Pod("b"));
  EXPECT_FALSE(node.pod_count_memo().Find(7, &count));
  EXPECT_TRUE(copy.pod_count_memo().Find(7, &count));
  node.pod_count_memo().Record(7, 2);
  ASSERT_TRUE(node.RemovePod(MakePod().Name("a").Obj()));
  EXPECT_FALSE(node.pod_count_memo().Find(7, &count));

  node.pod_count_memo().Record(7, 1);
  constexpr uint32_t kSameSlot = 7 + PodCountMemo::kSlots;
  node.pod_count_memo().Record(kSameSlot, 5);
  EXPECT_FALSE(node.pod_count_memo().Find(7, &count));
  ASSERT_TRUE(node.pod_count_memo().Find(kSameSlot, &count));
  EXPECT_EQ(count, 5u);
}

}  // namespace
}  // namespace muster::framework
