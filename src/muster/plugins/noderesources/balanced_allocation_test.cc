#include "muster/plugins/noderesources/balanced_allocation.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

// Cases and numbers from upstream balanced_allocation_test.go
// (TestNodeResourcesBalancedAllocation) as kubernetes#135573 (1.36) left them: the score is the
// change in balance the pod makes, 50 + (50 + with - without) / 2. Without the DRA cases.

namespace muster::plugins::noderesources {
namespace {

using framework::Code;
using testing::MakePod;

// Upstream makeNode(name, milliCPU, memory, extendedResource).
api::Node MakeScoredNode(std::string_view name, int64_t milli_cpu, int64_t memory,
                         testing::ResourcePairs extended = {}) {
  api::Node node = testing::MakeNode().Name(name).Capacity(extended).Obj();
  node.status.capacity.Set(api::kResourceCPU,
                           api::Quantity::FromMilli(milli_cpu, api::QuantityFormat::kDecimalSI));
  node.status.capacity.Set(api::kResourceMemory,
                           api::Quantity::FromValue(memory, api::QuantityFormat::kBinarySI));
  node.status.allocatable = node.status.capacity;
  return node;
}

api::Pod CpuAndMemory(std::string_view node) {
  return MakePod()
      .NodeName(node)
      .Req({{"cpu", "1000m"}, {"memory", "2000"}})
      .Req({{"cpu", "2000m"}, {"memory", "3000"}})
      .Obj();
}

api::Pod CpuOnly(std::string_view node) {
  return MakePod()
      .NodeName(node)
      .Req({{"cpu", "1000m"}, {"memory", "0"}})
      .Req({{"cpu", "2000m"}, {"memory", "0"}})
      .Obj();
}

api::Pod CpuAndMemoryAndGpu(std::string_view node) {
  return MakePod()
      .NodeName(node)
      .Req({{"cpu", "1000m"}, {"memory", "2000"}})
      .Req({{"cpu", "2000m"}, {"memory", "3000"}, {"nvidia.com/gpu", "3"}})
      .Obj();
}

struct Case {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> existing;  // placed by spec.nodeName
  std::vector<api::Node> nodes;
  std::vector<ResourceSpec> resources;
  bool run_pre_score = true;
  Code want_pre_score = Code::kSuccess;
  std::vector<int64_t> want;
};

TEST(NodeResourcesBalancedAllocation, UpstreamCases) {
  const std::vector<ResourceSpec> cpu_memory = {{"cpu", 1}, {"memory", 1}};
  const std::vector<ResourceSpec> with_gpu = {{"cpu", 1}, {"memory", 1}, {"nvidia.com/gpu", 1}};
  const std::vector<Case> cases = {
      {"nothing scheduled, nothing requested, skip in PreScore",
       api::Pod{},
       {},
       {MakeScoredNode("node1", 4000, 10000), MakeScoredNode("node2", 4000, 10000)},
       cpu_memory,
       true,
       Code::kSkip,
       {}},
      {"nothing scheduled, resources requested, differently sized nodes",
       CpuAndMemory(""),
       {},
       {MakeScoredNode("node1", 4000, 10000), MakeScoredNode("node2", 6000, 10000)},
       cpu_memory,
       true,
       Code::kSuccess,
       {68, 75}},  // with the pod 87 and 100, without 100 and 100
      {"resources requested, pods scheduled with resources",
       CpuAndMemory(""),
       {CpuOnly("node1"), CpuAndMemory("node2")},
       {MakeScoredNode("node1", 10000, 20000), MakeScoredNode("node2", 10000, 20000)},
       cpu_memory,
       true,
       Code::kSuccess,
       {73, 74}},  // with 82 and 95, without 85 and 97
      {"resources requested, pods scheduled with resources, differently sized nodes",
       CpuAndMemory(""),
       {CpuOnly("node1"), CpuAndMemory("node2")},
       {MakeScoredNode("node1", 10000, 20000), MakeScoredNode("node2", 10000, 50000)},
       cpu_memory,
       true,
       Code::kSuccess,
       {73, 70}},  // with 82 and 80, without 85 and 90
      {"requested resources at node capacity",
       CpuOnly(""),
       {CpuOnly("node1"), CpuAndMemory("node2")},
       {MakeScoredNode("node1", 6000, 10000), MakeScoredNode("node2", 6000, 10000)},
       cpu_memory,
       true,
       Code::kSuccess,
       {62, 62}},  // with 50 and 75, without 75 and 100
      {"min and max score: the pod balances one node and unbalances the other",
       MakePod().Req({{"memory", "5000"}}).Obj(),
       {MakePod().NodeName("node1").Req({{"cpu", "3000m"}}).Obj()},
       {MakeScoredNode("node1", 3000, 5000), MakeScoredNode("node2", 3000, 5000)},
       cpu_memory,
       true,
       Code::kSuccess,
       {100, 50}},
      {"include scalar resource on a node for balanced resource allocation",
       MakePod().Req({{"memory", "0"}, {"nvidia.com/gpu", "1"}}).Obj(),
       {CpuAndMemory("node2"), CpuAndMemoryAndGpu("node1")},
       {MakeScoredNode("node1", 3500, 40000, {{"nvidia.com/gpu", "8"}}),
        MakeScoredNode("node2", 3500, 40000, {{"nvidia.com/gpu", "8"}})},
       with_gpu,
       true,
       Code::kSuccess,
       {75, 76}},  // with 70 and 65, without 69 and 62
      {"node without the scalar resource should skip the scalar resource",
       CpuAndMemory(""),
       {},
       {MakeScoredNode("node1", 3500, 40000, {{"nvidia.com/gpu", "8"}}),
        MakeScoredNode("node2", 3500, 40000)},
       with_gpu,
       true,
       Code::kSuccess,
       {56, 56}},  // with 63, without 100
      {"resources requested, pods scheduled with resources if PreScore not called",
       CpuAndMemory(""),
       {CpuOnly("node1"), CpuAndMemory("node2")},
       {MakeScoredNode("node1", 10000, 20000), MakeScoredNode("node2", 10000, 20000)},
       cpu_memory,
       false,
       Code::kSuccess,
       {73, 74}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string error;
    std::unique_ptr<BalancedAllocation> plugin =
        BalancedAllocation::Create(NodeResourcesBalancedAllocationArgs{c.resources}, &error);
    ASSERT_NE(plugin, nullptr) << error;
    const framework::PodInfoPtr pod = framework::PodInfo::Make(c.pod);
    framework::CycleState state;
    if (c.run_pre_score) {
      EXPECT_EQ(plugin->PreScore(state, *pod, {}).code(), c.want_pre_score);
      if (c.want_pre_score == Code::kSkip) continue;
    }
    std::vector<int64_t> got;
    for (const api::Node& n : c.nodes) {
      framework::NodeInfo info(std::make_shared<api::Node>(n));
      for (const api::Pod& p : c.existing) {
        if (p.spec.node_name.str() == n.metadata.name) info.AddPod(framework::PodInfo::Make(p));
      }
      int64_t score = -1;
      EXPECT_TRUE(plugin->Score(state, *pod, info, &score).IsSuccess());
      got.push_back(score);
    }
    EXPECT_EQ(got, c.want);
  }
}

TEST(NodeResourcesBalancedAllocation, BestEffortPodScoresZeroWithoutPreScore) {
  std::string error;
  const std::unique_ptr<BalancedAllocation> plugin =
      BalancedAllocation::Create(NodeResourcesBalancedAllocationArgs{DefaultResources()}, &error);
  ASSERT_NE(plugin, nullptr);
  const framework::PodInfoPtr pod = framework::PodInfo::Make(MakePod().Req({}).Obj());
  framework::NodeInfo info(std::make_shared<api::Node>(MakeScoredNode("n", 4000, 10000)));
  info.AddPod(framework::PodInfo::Make(CpuOnly("n")));
  framework::CycleState state;
  int64_t score = -1;
  EXPECT_TRUE(plugin->Score(state, *pod, info, &score).IsSuccess());
  EXPECT_EQ(score, 0);
}

TEST(NodeResourcesBalancedAllocation, CreateRejectsInvalidArgs) {
  std::string error;
  EXPECT_EQ(BalancedAllocation::Create(
                NodeResourcesBalancedAllocationArgs{{{"cpu", 1}, {"cpu", 2}}}, &error),
            nullptr);
  EXPECT_EQ(error,
            "resources[1].name: Duplicate value: \"cpu\"\n"
            "resources[1].weight: Invalid value: 2: must be 1");
}

}  // namespace
}  // namespace muster::plugins::noderesources
