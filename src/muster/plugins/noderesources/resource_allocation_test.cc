#include "muster/plugins/noderesources/resource_allocation.h"

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/plugins/noderesources/fit.h"

// Cases and numbers from upstream least_allocated_test.go, most_allocated_test.go and
// requested_to_capacity_ratio_test.go, run through NodeResourcesFit's PreScore and Score.

namespace muster::plugins::noderesources {
namespace {

using framework::Code;
using testing::MakeNode;
using testing::MakePod;

constexpr std::string_view kExtendedRes = "abc.com/xyz";

std::vector<ResourceSpec> Defaults() { return {{"cpu", 1}, {"memory", 1}}; }
std::vector<ResourceSpec> WithExtended() { return {{"cpu", 1}, {"memory", 1}, {"abc.com/xyz", 1}}; }

struct ScoreCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing;  // placed by spec.nodeName
  std::vector<ResourceSpec> resources;
  std::vector<int64_t> want;
  Code want_code = Code::kSuccess;
  std::string want_error;  // from Fit::Create
};

// Runs each case with the given strategy, as upstream's test loops do: the args as given (no
// defaults), PreScore once, then Score per node.
void RunScoreCases(std::string_view type, std::optional<std::vector<UtilizationShapePoint>> shape,
                   const std::vector<ScoreCase>& cases) {
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    NodeResourcesFitArgs args;
    args.scoring_strategy = ScoringStrategy{std::string(type), c.resources, {}};
    if (shape) {
      args.scoring_strategy->requested_to_capacity_ratio = RequestedToCapacityRatioParam{*shape};
    }
    std::string error;
    std::unique_ptr<Fit> fit = Fit::Create(args, &error);
    EXPECT_EQ(error, c.want_error);
    if (fit == nullptr) continue;

    const framework::PodInfoPtr pod = framework::PodInfo::Make(c.pod);
    framework::CycleState state;
    EXPECT_TRUE(fit->PreScore(state, *pod, {}).IsSuccess());
    std::vector<int64_t> got;
    for (const api::Node& n : c.nodes) {
      framework::NodeInfo info(std::make_shared<api::Node>(n));
      for (const api::Pod& p : c.existing) {
        if (p.spec.node_name.str() == n.metadata.name) info.AddPod(framework::PodInfo::Make(p));
      }
      int64_t score = -1;
      EXPECT_EQ(fit->Score(state, *pod, info, &score).code(), c.want_code);
      got.push_back(score);
    }
    EXPECT_EQ(got, c.want);
  }
}

api::Node Node(std::string_view name, testing::ResourcePairs capacity) {
  return MakeNode().Name(name).Capacity(capacity).Obj();
}

api::Pod On(std::string_view node, testing::ResourcePairs requests) {
  return MakePod().NodeName(node).Req(requests).Obj();
}

api::Pod EmptyOn(std::string_view node) { return MakePod().NodeName(node).Obj(); }

const api::Pod& TwoContainerPod() {
  static const api::Pod pod = MakePod()
                                  .Req({{"cpu", "1000"}, {"memory", "2000"}})
                                  .Req({{"cpu", "2000"}, {"memory", "3000"}})
                                  .Obj();
  return pod;
}

std::string WeightError(size_t index, std::string_view name, int64_t weight) {
  return "scoringStrategy.resources[" + std::to_string(index) +
         "].weight: Invalid value: " + std::to_string(weight) + ": resource weight of " +
         std::string(name) + " not in valid range (0, 100]";
}

TEST(LeastAllocatedScoringStrategy, UpstreamCases) {
  const api::Node n4_10 = Node("node1", {{"cpu", "4000"}, {"memory", "10000"}});
  const api::Node n4_10b = Node("node2", {{"cpu", "4000"}, {"memory", "10000"}});
  const api::Node n6_10b = Node("node2", {{"cpu", "6000"}, {"memory", "10000"}});
  const api::Node n10_20 = Node("node1", {{"cpu", "10000"}, {"memory", "20000"}});
  const api::Node n10_20b = Node("node2", {{"cpu", "10000"}, {"memory", "20000"}});
  const api::Node n10_50b = Node("node2", {{"cpu", "10000"}, {"memory", "50000"}});
  const api::Node n6_10 = Node("node1", {{"cpu", "6000"}, {"memory", "10000"}});
  const api::Node n6_10x4b =
      Node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "4"}});
  const api::Node n6_10x4 =
      Node("node1", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "4"}});
  const api::Node n6_10x10b =
      Node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "10"}});
  const std::vector<ScoreCase> cases = {
      {"nothing scheduled, nothing requested",
       api::Pod{},
       {n4_10, n4_10b},
       {},
       Defaults(),
       {100, 100}},
      {"nothing scheduled, resources requested, differently sized nodes",
       TwoContainerPod(),
       {n4_10, n6_10b},
       {},
       Defaults(),
       {37, 50}},
      {"Resources not set, pods scheduled with error",
       TwoContainerPod(),
       {n4_10, n6_10b},
       {},
       {},
       {0, 0},
       Code::kError},
      {"no resources requested, pods scheduled",
       api::Pod{},
       {n4_10, n4_10b},
       {EmptyOn("node1"), EmptyOn("node1"), EmptyOn("node2"), EmptyOn("node2")},
       Defaults(),
       {100, 100}},
      {"no resources requested, pods scheduled with resources",
       api::Pod{},
       {n10_20, n10_20b},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       Defaults(),
       {70, 57}},
      {"resources requested, pods scheduled with resources",
       TwoContainerPod(),
       {n10_20, n10_20b},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       Defaults(),
       {57, 45}},
      {"resources requested, pods scheduled with resources, differently sized nodes",
       TwoContainerPod(),
       {n10_20, n10_50b},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       Defaults(),
       {57, 60}},
      {"requested resources exceed node capacity",
       MakePod().Req({{"cpu", "3000"}, {"memory", "0"}}).Obj(),
       {n4_10, n4_10b},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       Defaults(),
       {50, 25}},
      {"zero node resources, pods scheduled with resources",
       api::Pod{},
       {MakeNode().Name("node1").Obj(), MakeNode().Name("node2").Obj()},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       Defaults(),
       {0, 0}},
      {"nothing scheduled, resources requested with different weight on CPU and memory, "
       "differently sized nodes",
       TwoContainerPod(),
       {n4_10, n6_10b},
       {},
       {{"memory", 2}, {"cpu", 1}},
       {41, 50}},
      {"resource with negative weight",
       TwoContainerPod(),
       {n4_10},
       {},
       {{"memory", -1}, {"cpu", 1}},
       {},
       Code::kSuccess,
       WeightError(0, "memory", -1)},
      {"resource with zero weight",
       TwoContainerPod(),
       {n4_10},
       {},
       {{"memory", 1}, {"cpu", 0}},
       {},
       Code::kSuccess,
       WeightError(1, "cpu", 0)},
      {"resource weight larger than MaxNodeScore",
       TwoContainerPod(),
       {n4_10},
       {},
       {{"memory", 1}, {"cpu", 101}},
       {},
       Code::kSuccess,
       WeightError(1, "cpu", 101)},
      {"bypass extended resource if the pod does not request",
       TwoContainerPod(),
       {n6_10, n6_10x4b},
       {},
       WithExtended(),
       {50, 50}},
      {"honor extended resource if the pod requests",
       MakePod().Req({{"cpu", "3000"}, {"memory", "5000"}, {kExtendedRes, "2"}}).Obj(),
       {n6_10x4, n6_10x10b},
       {},
       WithExtended(),
       {50, 60}},
      {"if the node doesn't have a resource",
       MakePod().Req({{"cpu", "3000"}, {"memory", "4000"}}).Obj(),
       {n6_10, n6_10x4b},
       {},
       {{"abc.com/xyz", 2}, {"cpu", 1}, {"memory", 1}},
       {55, 55}},
  };
  RunScoreCases(kLeastAllocated, std::nullopt, cases);
}

TEST(MostAllocatedScoringStrategy, UpstreamCases) {
  const api::Node n4_10 = Node("node1", {{"cpu", "4000"}, {"memory", "10000"}});
  const api::Node n4_10b = Node("node2", {{"cpu", "4000"}, {"memory", "10000"}});
  const api::Node n6_10b = Node("node2", {{"cpu", "6000"}, {"memory", "10000"}});
  const api::Node n10_20 = Node("node1", {{"cpu", "10000"}, {"memory", "20000"}});
  const api::Node n10_20b = Node("node2", {{"cpu", "10000"}, {"memory", "20000"}});
  const api::Node n6_10 = Node("node1", {{"cpu", "6000"}, {"memory", "10000"}});
  const api::Node n6_10x4 =
      Node("node1", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "4"}});
  const api::Node n6_10x4b =
      Node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "4"}});
  const api::Node n6_10x10b =
      Node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExtendedRes, "10"}});
  const std::vector<ScoreCase> cases = {
      {"nothing scheduled, nothing requested", api::Pod{}, {n4_10, n4_10b}, {}, Defaults(), {0, 0}},
      {"nothing scheduled, resources requested, differently sized nodes",
       TwoContainerPod(),
       {n4_10, n6_10b},
       {},
       Defaults(),
       {62, 50}},
      {"Resources not set, pods scheduled with error",
       TwoContainerPod(),
       {n4_10, n6_10b},
       {},
       {},
       {0, 0},
       Code::kError},
      {"no resources requested, pods scheduled with resources",
       api::Pod{},
       {n10_20, n10_20b},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       Defaults(),
       {30, 42}},
      {"resources requested, pods scheduled with resources",
       TwoContainerPod(),
       {n10_20, n10_20b},
       {On("node1", {{"cpu", "3000"}, {"memory", "0"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       Defaults(),
       {42, 55}},
      {"resources requested equal node capacity",
       MakePod()
           .Req({{"cpu", "2000"}, {"memory", "4000"}})
           .Req({{"cpu", "3000"}, {"memory", "5000"}})
           .Obj(),
       {Node("node1", {{"cpu", "5000"}, {"memory", "10000"}}),
        Node("node2", {{"cpu", "10000"}, {"memory", "9000"}})},
       {},
       Defaults(),
       {95, 75}},
      {"nothing scheduled, resources requested, differently sized nodes, weighted",
       TwoContainerPod(),
       {n4_10, n6_10b},
       {},
       {{"memory", 2}, {"cpu", 1}},
       {58, 50}},
      {"no resources requested, pods scheduled, nonzero request for resource",
       MakePod().Req({}).Obj(),
       {Node("node1", {{"cpu", "250m"}, {"memory", "1000Mi"}}),
        Node("node2", {{"cpu", "250m"}, {"memory", "1000Mi"}})},
       {MakePod().NodeName("node1").Req({}).Obj(), MakePod().NodeName("node1").Req({}).Obj()},
       Defaults(),
       {80, 30}},
      {"resource with negative weight",
       TwoContainerPod(),
       {n4_10b},
       {},
       {{"memory", -1}, {"cpu", 1}},
       {},
       Code::kSuccess,
       WeightError(0, "memory", -1)},
      {"resource with zero weight",
       TwoContainerPod(),
       {n4_10b},
       {},
       {{"memory", 1}, {"cpu", 0}},
       {},
       Code::kSuccess,
       WeightError(1, "cpu", 0)},
      {"resource weight larger than MaxNodeScore",
       TwoContainerPod(),
       {n4_10b},
       {},
       {{"memory", 101}},
       {},
       Code::kSuccess,
       WeightError(0, "memory", 101)},
      {"bypass extended resource if the pod does not request",
       TwoContainerPod(),
       {n6_10, n6_10x4b},
       {},
       WithExtended(),
       {50, 50}},
      {"honor extended resource if the pod request",
       MakePod().Req({{"cpu", "3000"}, {"memory", "5000"}, {kExtendedRes, "2"}}).Obj(),
       {n6_10x4, n6_10x10b},
       {},
       WithExtended(),
       {50, 40}},
      {"if the node doesn't have a resource",
       MakePod().Req({{"cpu", "3000"}, {"memory", "4000"}}).Obj(),
       {n6_10, n6_10x4b},
       {},
       {{"abc.com/xyz", 2}, {"cpu", 1}, {"memory", 1}},
       {45, 45}},
  };
  RunScoreCases(kMostAllocated, std::nullopt, cases);
}

TEST(RequestedToCapacityRatioScoringStrategy, UpstreamCases) {
  const std::vector<UtilizationShapePoint> shape = {{0, 10}, {100, 0}};
  const api::Node n4_10 = Node("node1", {{"cpu", "4000"}, {"memory", "10000"}});
  const api::Node n4_10b = Node("node2", {{"cpu", "4000"}, {"memory", "10000"}});
  const api::Node n6_10b = Node("node2", {{"cpu", "6000"}, {"memory", "10000"}});
  const std::vector<ScoreCase> cases = {
      {"nothing scheduled, nothing requested (default - least requested nodes have priority)",
       api::Pod{},
       {n4_10, n4_10b},
       {EmptyOn("node1"), EmptyOn("node1")},
       Defaults(),
       {100, 100}},
      {"nothing scheduled, resources requested, differently sized nodes (default - least "
       "requested nodes have priority)",
       TwoContainerPod(),
       {n4_10, n6_10b},
       {EmptyOn("node1"), EmptyOn("node1")},
       Defaults(),
       {38, 50}},
      {"no resources requested, pods scheduled with resources (default - least requested nodes "
       "have priority)",
       api::Pod{},
       {n4_10, n6_10b},
       {On("node1", {{"cpu", "3000"}, {"memory", "5000"}}),
        On("node2", {{"cpu", "3000"}, {"memory", "5000"}})},
       Defaults(),
       {38, 50}},
  };
  RunScoreCases(kRequestedToCapacityRatio, shape, cases);
}

TEST(BrokenLinearFunction, UpstreamCases) {
  struct Case {
    std::vector<FunctionShapePoint> points;
    std::vector<std::pair<int64_t, int64_t>> assertions;  // utilization, expected
  };
  const std::vector<Case> cases = {
      {{{10, 1}, {90, 9}},
       {{-10, 1},
        {0, 1},
        {9, 1},
        {10, 1},
        {15, 1},
        {19, 1},
        {20, 2},
        {89, 8},
        {90, 9},
        {99, 9},
        {100, 9},
        {110, 9}}},
      {{{0, 2}, {40, 10}, {100, 0}},
       {{-10, 2}, {0, 2}, {20, 6}, {30, 8}, {40, 10}, {70, 5}, {100, 0}, {110, 0}}},
      {{{0, 2}, {40, 2}, {100, 2}},
       {{-10, 2}, {0, 2}, {20, 2}, {30, 2}, {40, 2}, {70, 2}, {100, 2}, {110, 2}}},
  };
  for (const Case& c : cases) {
    for (const auto& [p, expected] : c.assertions) {
      EXPECT_EQ(BrokenLinear(c.points, p), expected) << "p=" << p;
    }
  }
}

// Upstream makeNode(name, milliCPU, memory, extendedResource).
api::Node ExtendedNode(std::string_view name, testing::ResourcePairs extended) {
  api::Node node = MakeNode().Name(name).Capacity(extended).Obj();
  node.status.capacity.Set(api::kResourceCPU,
                           api::Quantity::FromMilli(4000, api::QuantityFormat::kDecimalSI));
  node.status.capacity.Set(
      api::kResourceMemory,
      api::Quantity::FromValue(int64_t{10000} * 1024 * 1024, api::QuantityFormat::kBinarySI));
  node.status.allocatable = node.status.capacity;
  return node;
}

TEST(ResourceBinPacking, SingleExtended) {
  const std::vector<api::Node> nodes = {ExtendedNode("node1", {{"intel.com/foo", "8"}}),
                                        ExtendedNode("node2", {{"intel.com/foo", "4"}})};
  const api::Pod requests2 = MakePod().Req({{"intel.com/foo", "2"}}).Obj();
  const std::vector<ScoreCase> cases = {
      {"nothing scheduled, nothing requested",
       api::Pod{},
       nodes,
       {},
       {{"intel.com/foo", 1}},
       {0, 0}},
      {"resources requested, pods scheduled with less resources",
       requests2,
       nodes,
       {api::Pod{}},
       {{"intel.com/foo", 1}},
       {2, 5}},
      {"resources requested, pods scheduled with resources, on node with existing pod running",
       requests2,
       nodes,
       {On("node2", {{"intel.com/foo", "2"}})},
       {{"intel.com/foo", 1}},
       {2, 10}},
      {"resources requested, pods scheduled with more resources",
       MakePod().Req({{"intel.com/foo", "4"}}).Obj(),
       nodes,
       {api::Pod{}},
       {{"intel.com/foo", 1}},
       {5, 10}},
  };
  RunScoreCases(kRequestedToCapacityRatio, std::vector<UtilizationShapePoint>{{0, 0}, {100, 1}},
                cases);
}

TEST(ResourceBinPacking, MultipleExtended) {
  const std::vector<api::Node> nodes = {
      ExtendedNode("node1", {{"intel.com/foo", "8"}, {"intel.com/bar", "4"}}),
      ExtendedNode("node2", {{"intel.com/foo", "4"}, {"intel.com/bar", "8"}})};
  const std::vector<ResourceSpec> resources = {{"intel.com/foo", 3}, {"intel.com/bar", 5}};
  const api::Pod pod1 = MakePod().Req({{"intel.com/foo", "2"}, {"intel.com/bar", "2"}}).Obj();
  const api::Pod pod2 = MakePod().Req({{"intel.com/foo", "4"}, {"intel.com/bar", "2"}}).Obj();
  const std::vector<ScoreCase> cases = {
      {"nothing scheduled, nothing requested", api::Pod{}, nodes, {}, resources, {0, 0}},
      {"resources requested, pods scheduled with less resources",
       pod1,
       nodes,
       {api::Pod{}},
       resources,
       {4, 3}},
      {"resources requested, pods scheduled with resources, on node with existing pod running",
       pod1,
       nodes,
       {On("node2", {{"intel.com/foo", "4"}, {"intel.com/bar", "2"}})},
       resources,
       {4, 7}},
      {"resources requested, pods scheduled with more resources",
       pod2,
       nodes,
       {api::Pod{}},
       resources,
       {5, 5}},
  };
  RunScoreCases(kRequestedToCapacityRatio, std::vector<UtilizationShapePoint>{{0, 0}, {100, 1}},
                cases);
}

TEST(ScoredResources, UntrackedAndScalarResourcesScoreNothing) {
  // "pods" and "storage" are not slots the scheduler scores: upstream's lookup finds neither.
  const ScoredResources resources({{"pods", 1}, {"storage", 1}, {"example.com/gpu", 1}}, false);
  const framework::PodInfoPtr pod = framework::PodInfo::Make(MakePod().Req({{"cpu", "1"}}).Obj());
  const framework::NodeInfo node(std::make_shared<api::Node>(
      MakeNode().Name("n").Capacity({{"pods", "10"}, {"example.com/gpu", "4"}}).Obj()));
  for (size_t i = 0; i < resources.size(); ++i) {
    const ScoredResources::Usage u = resources.NodeUsage(node, i, resources.PodRequest(*pod, i));
    EXPECT_EQ(u.allocatable, 0) << i;
    EXPECT_EQ(u.requested, 0) << i;
  }
}

TEST(ScoredResources, LargeQuantitiesDoNotOverflow) {
  // 2^62 bytes of storage: (capacity - requested) * 100 passes int64.
  const int64_t capacity = int64_t{1} << 62;
  EXPECT_EQ(LeastRequestedScore(capacity / 4, capacity), 75);
  EXPECT_EQ(MostRequestedScore(capacity / 4, capacity), 25);
}

TEST(ScoreNodes, CpuThenMemoryAgreesWithTheGeneralPath) {
  // The default resources (cpu then memory) have a path of their own; the same two listed the
  // other way round take the general one, and each scorer's arithmetic is symmetric in them.
  // (The own path divides by the weights' sum through its reciprocal: many weight pairs.)
  std::mt19937 rng(7);
  auto draw = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  std::vector<std::unique_ptr<framework::NodeInfo>> infos;
  std::vector<framework::NodeInfo*> nodes;
  for (int i = 0; i < 60; ++i) {
    // Some nodes without cpu or memory; some pods without requests (charged the defaults).
    auto info = std::make_unique<framework::NodeInfo>(std::make_shared<api::Node>(Node(
        fmt::format("n{}", i), {{"cpu", fmt::format("{}m", draw(0, 3) * draw(0, 4000))},
                                {"memory", fmt::format("{}Mi", draw(0, 3) * draw(0, 20000))}})));
    for (int64_t p = draw(0, 4); p > 0; --p) {
      if (draw(0, 2) == 0) {
        info->AddPod(framework::PodInfo::Make(EmptyOn(info->name().str())));
      } else {
        info->AddPod(framework::PodInfo::Make(
            On(info->name().str(), {{"cpu", fmt::format("{}m", draw(0, 3000))},
                                    {"memory", fmt::format("{}Mi", draw(0, 15000))}})));
      }
    }
    nodes.push_back(info.get());
    infos.push_back(std::move(info));
  }
  for (int round = 0; round < 200; ++round) {
    SCOPED_TRACE(round);
    const int64_t cpu_weight = draw(1, 100), memory_weight = draw(1, 100);
    const framework::PodInfoPtr pod = framework::PodInfo::Make(
        draw(0, 3) == 0 ? api::Pod{}
                        : MakePod()
                              .Req({{"cpu", fmt::format("{}m", draw(0, 2000))},
                                    {"memory", fmt::format("{}Mi", draw(0, 8000))}})
                              .Obj());
    for (bool use_requested : {false, true}) {
      const ScoredResources fast({{"cpu", cpu_weight}, {"memory", memory_weight}}, use_requested);
      const ScoredResources general({{"memory", memory_weight}, {"cpu", cpu_weight}},
                                    use_requested);
      ASSERT_TRUE(fast.cpu_then_memory());
      ASSERT_FALSE(general.cpu_then_memory());
      for (ResourceScorer scorer : {ResourceScorer::kLeastAllocated, ResourceScorer::kMostAllocated,
                                    ResourceScorer::kBalancedAllocation}) {
        std::vector<framework::NodeScore> want(nodes.size()), got(nodes.size());
        ScoreNodes(scorer, general, PodRequestSource(general, *pod, nullptr), nodes, want);
        ScoreNodes(scorer, fast, PodRequestSource(fast, *pod, nullptr), nodes, got);
        for (size_t i = 0; i < nodes.size(); ++i) {
          EXPECT_EQ(got[i].name, want[i].name);
          EXPECT_EQ(got[i].score, want[i].score)
              << "scorer " << static_cast<int>(scorer) << ", use_requested " << use_requested
              << ", node " << nodes[i]->name().str();
        }
      }
    }
  }
}

TEST(ScoreNodes, ScoresRememberedOnANodeAreForgottenWhenItChanges) {
  // The default resources' scores are remembered on each node: pods of a few shapes score the
  // same nodes round after round while pods land on them, leave them, and nodes change size.
  // Each round the scores must be the ones worked out afresh (the general path, which remembers
  // nothing), whatever scorer, configuration and shape the node's memo held before.
  std::mt19937 rng(11);
  auto draw = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto sized = [&](const std::string& name) {
    return std::make_shared<api::Node>(Node(name, {{"cpu", fmt::format("{}m", draw(1, 8) * 1000)},
                                                   {"memory", fmt::format("{}Gi", draw(1, 32))}}));
  };
  std::vector<std::unique_ptr<framework::NodeInfo>> infos;
  std::vector<framework::NodeInfo*> nodes;
  for (int i = 0; i < 16; ++i) {
    infos.push_back(std::make_unique<framework::NodeInfo>(sized(fmt::format("n{}", i))));
    nodes.push_back(infos.back().get());
  }
  std::vector<framework::PodInfoPtr> shapes;
  for (const char* cpu : {"100m", "500m", "2"}) {
    for (const char* memory : {"128Mi", "1Gi"}) {
      shapes.push_back(
          framework::PodInfo::Make(MakePod().Req({{"cpu", cpu}, {"memory", memory}}).Obj()));
    }
  }
  shapes.push_back(framework::PodInfo::Make(api::Pod{}));  // no requests: the defaults
  // A scorer as a plugin holds it: its configuration, the same resources the other way round
  // (the general path), and its memo keys.
  struct Scorer {
    ResourceScorer kind;
    ScoredResources fast;
    ScoredResources general;
    ShapeMemoKeys keys;
  };
  std::vector<std::unique_ptr<Scorer>> scorers;
  for (ResourceScorer kind : {ResourceScorer::kLeastAllocated, ResourceScorer::kMostAllocated,
                              ResourceScorer::kBalancedAllocation}) {
    for (bool use_requested : {false, true}) {
      for (int64_t memory_weight : {1, 3}) {
        scorers.push_back(std::make_unique<Scorer>(
            Scorer{kind, ScoredResources({{"cpu", 1}, {"memory", memory_weight}}, use_requested),
                   ScoredResources({{"memory", memory_weight}, {"cpu", 1}}, use_requested),
                   ShapeMemoKeys()}));
      }
    }
  }
  int remembered = 0;
  for (int round = 0; round < 600; ++round) {
    SCOPED_TRACE(round);
    // A few nodes change: a pod lands, a pod leaves, the node is resized.
    for (int64_t k = draw(0, 3); k > 0; --k) {
      framework::NodeInfo& node = *nodes[draw(0, 15)];
      switch (draw(0, 2)) {
        case 0:
          node.AddPod(framework::PodInfo::Make(
              On(node.name().str(), {{"cpu", fmt::format("{}m", draw(0, 1500))},
                                     {"memory", fmt::format("{}Mi", draw(0, 4000))}})));
          break;
        case 1:
          if (node.pods().size() > 0) node.RemovePodInfo(node.pods()[0].get());
          break;
        default:
          node.SetNode(sized(std::string(node.name().str())));
          break;
      }
    }
    Scorer& scorer = *scorers[draw(0, scorers.size() - 1)];
    const framework::PodInfo& pod = *shapes[draw(0, shapes.size() - 1)];
    const uint64_t key = scorer.keys.KeyFor(scorer.fast, scorer.fast.PodRequests(pod));
    const size_t slot = (scorer.kind == ResourceScorer::kBalancedAllocation ? 2 : 0) + (key & 1);
    if (key != 0) {
      for (const framework::NodeInfo* node : nodes) {
        remembered += node->score_memo(slot) >> 8 == key;
      }
    }
    std::vector<framework::NodeScore> want(nodes.size()), got(nodes.size());
    ScoreNodes(scorer.kind, scorer.general, PodRequestSource(scorer.general, pod, nullptr), nodes,
               want);
    ScoreNodes(scorer.kind, scorer.fast, PodRequestSource(scorer.fast, pod, nullptr), nodes, got,
               key);
    for (size_t i = 0; i < nodes.size(); ++i) {
      EXPECT_EQ(got[i].name, want[i].name);
      EXPECT_EQ(got[i].score, want[i].score)
          << "scorer " << static_cast<int>(scorer.kind) << ", node " << nodes[i]->name().str();
      if (key != 0) EXPECT_EQ(nodes[i]->score_memo(slot) >> 8, key);
    }
  }
  // Some scores came from the memo: 12 scorers and 7 shapes share each node's 4 entries, so most
  // rounds find another's entry there.
  EXPECT_GT(remembered, 200);
}

TEST(ScoreNodes, ARememberedScoreIsReadBackUntilThePodsOnTheNodeChange) {
  const ScoredResources resources({{"cpu", 1}, {"memory", 1}}, false);
  framework::NodeInfo info(
      std::make_shared<api::Node>(Node("n", {{"cpu", "4"}, {"memory", "8Gi"}})));
  std::vector<framework::NodeInfo*> nodes{&info};
  const framework::PodInfoPtr pod =
      framework::PodInfo::Make(MakePod().Req({{"cpu", "1"}, {"memory", "2Gi"}}).Obj());
  const PodRequestSource requests(resources, *pod, nullptr);
  ShapeMemoKeys keys;
  keys.KeyFor(resources, resources.PodRequests(*pod));
  const uint64_t key = keys.KeyFor(resources, resources.PodRequests(*pod));
  std::vector<framework::NodeScore> scores(1);
  ScoreNodes(ResourceScorer::kLeastAllocated, resources, requests, nodes, scores, key);
  EXPECT_EQ(scores[0].score, 75);  // (3/4 + 6/8) / 2 of 100
  // The entry the scorer keeps to is read back as it stands: a planted score shows.
  ASSERT_EQ(info.score_memo(key & 1), key << 8 | 75);
  info.set_score_memo(key & 1, key << 8 | 42);
  ScoreNodes(ResourceScorer::kLeastAllocated, resources, requests, nodes, scores, key);
  EXPECT_EQ(scores[0].score, 42);
  // A pod lands: every entry is forgotten and the score worked out again.
  info.AddPod(framework::PodInfo::Make(On("n", {{"cpu", "1"}, {"memory", "2Gi"}})));
  EXPECT_EQ(info.score_memo(key & 1), 0u);
  ScoreNodes(ResourceScorer::kLeastAllocated, resources, requests, nodes, scores, key);
  EXPECT_EQ(scores[0].score, 50);
  // Without a key the memo is neither read nor written.
  info.set_score_memo(key & 1, key << 8 | 42);
  ScoreNodes(ResourceScorer::kLeastAllocated, resources, requests, nodes, scores, 0);
  EXPECT_EQ(scores[0].score, 50);
  EXPECT_EQ(info.score_memo(key & 1), key << 8 | 42);
}

TEST(ShapeMemoKeys, AShapeIsRememberedFromItsSecondPod) {
  const ScoredResources resources({{"cpu", 1}, {"memory", 1}}, false);
  ShapeMemoKeys keys;
  EXPECT_EQ(keys.KeyFor(resources, {100, 200}), 0u);
  const uint64_t key = keys.KeyFor(resources, {100, 200});
  EXPECT_NE(key, 0u);
  EXPECT_EQ(keys.KeyFor(resources, {100, 200}), key);
  EXPECT_EQ(keys.KeyFor(resources, {100, 201}), 0u);
  EXPECT_NE(keys.KeyFor(resources, {100, 201}), key);
  // Another scorer's keys are its own; resources other than cpu then memory are not remembered.
  ShapeMemoKeys others;
  others.KeyFor(resources, {100, 200});
  EXPECT_NE(others.KeyFor(resources, {100, 200}), key);
  const ScoredResources general({{"memory", 1}, {"cpu", 1}}, false);
  ShapeMemoKeys none;
  none.KeyFor(general, {100, 200});
  EXPECT_EQ(none.KeyFor(general, {100, 200}), 0u);
}

}  // namespace
}  // namespace muster::plugins::noderesources
