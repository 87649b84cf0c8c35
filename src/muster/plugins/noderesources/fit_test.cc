#include "muster/plugins/noderesources/fit.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/pod_resources.h"
#include "muster/api/testing/builders.h"

// Cases and numbers from upstream fit_test.go (TestEnoughRequests, TestNotEnoughRequests,
// TestStorageRequests, TestRestartableInitContainers, TestFitScore, TestEventsToRegister,
// Test_isSchedulableAfterPodChange, Test_isSchedulableAfterNodeChange, TestIsFit,
// TestHaveAnyRequestedResourcesIncreased).

namespace muster::plugins::noderesources {
namespace {

using framework::Code;
using framework::QueueingHint;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;

constexpr std::string_view kExtendedA = "example.com/aaa";
constexpr std::string_view kExtendedB = "example.com/bbb";
constexpr std::string_view kKubernetesIOA = "kubernetes.io/something";
constexpr std::string_view kKubernetesIOB = "subdomain.kubernetes.io/something";
constexpr std::string_view kHugePageA = "hugepages-2Mi";

// One container's requests, as upstream's framework.Resource literals in newResourcePod.
struct Usage {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  std::vector<std::pair<std::string_view, int64_t>> scalar;
};

api::Container MakeContainer(const Usage& u) {
  api::Container c;
  c.resources.requests.Set(api::kResourceCPU,
                           api::Quantity::FromMilli(u.milli_cpu, api::QuantityFormat::kDecimalSI));
  c.resources.requests.Set(api::kResourceMemory,
                           api::Quantity::FromValue(u.memory, api::QuantityFormat::kBinarySI));
  c.resources.requests.Set(
      api::kResourceEphemeralStorage,
      api::Quantity::FromValue(u.ephemeral_storage, api::QuantityFormat::kBinarySI));
  for (const auto& [name, value] : u.scalar) {
    c.resources.requests.Set(name,
                             api::Quantity::FromValue(value, api::QuantityFormat::kDecimalSI));
  }
  return c;
}

// Upstream newResourcePod: one container per usage, each requesting every listed resource.
api::Pod ResourcePod(std::vector<Usage> usages) {
  api::Pod pod;
  for (const Usage& u : usages) pod.spec.containers.push_back(MakeContainer(u));
  return pod;
}

// Upstream newResourceInitPod.
api::Pod WithInit(api::Pod pod, std::vector<Usage> usages) {
  for (const Usage& u : usages) pod.spec.init_containers.push_back(MakeContainer(u));
  return pod;
}

// Upstream newPodLevelResourcesPod: the pod-level requests.
api::Pod PodLevel(api::Pod pod, testing::ResourcePairs requests) {
  auto level = std::make_shared<api::PodLevelResources>();
  level->requests = testing::MakeResourceList(requests);
  pod.spec.resources = std::move(level);
  return pod;
}

// Upstream makeResources / makeAllocatableResources: capacity and allocatable alike.
api::Node ResourceNode(int64_t milli_cpu, int64_t memory, int64_t pods, int64_t extended_a,
                       int64_t storage, int64_t huge_page_a) {
  api::Node node;
  node.metadata.name = "node";
  api::ResourceList& r = node.status.allocatable;
  r.Set(api::kResourceCPU, api::Quantity::FromMilli(milli_cpu, api::QuantityFormat::kDecimalSI));
  r.Set(api::kResourceMemory, api::Quantity::FromValue(memory, api::QuantityFormat::kBinarySI));
  r.Set(api::kResourcePods, api::Quantity::FromValue(pods, api::QuantityFormat::kDecimalSI));
  r.Set(kExtendedA, api::Quantity::FromValue(extended_a, api::QuantityFormat::kDecimalSI));
  r.Set(api::kResourceEphemeralStorage,
        api::Quantity::FromValue(storage, api::QuantityFormat::kBinarySI));
  r.Set(kHugePageA, api::Quantity::FromValue(huge_page_a, api::QuantityFormat::kBinarySI));
  node.status.capacity = r;
  return node;
}

// upstream st.MakeNode().Capacity(...): the given resources plus 32 pod slots unless given.
api::Node CapacityNode(testing::ResourcePairs resources) {
  api::Node node = MakeNode().Name("node").Obj();
  node.status.capacity.Set(api::kResourcePods, *api::Quantity::Parse("32"));
  for (const auto& [name, value] : resources) {
    node.status.capacity.Set(name, *api::Quantity::Parse(value));
  }
  node.status.allocatable = node.status.capacity;
  return node;
}

framework::NodeInfo MakeNodeInfo(const api::Node& node, const std::vector<api::Pod>& pods) {
  framework::NodeInfo info(std::make_shared<api::Node>(node));
  for (const api::Pod& p : pods) info.AddPod(framework::PodInfo::Make(p));
  return info;
}

std::unique_ptr<Fit> MakeFit(NodeResourcesFitArgs args = {}) {
  SetDefaults(args);
  std::string error;
  std::unique_ptr<Fit> fit = Fit::Create(args, &error);
  EXPECT_NE(fit, nullptr) << error;
  return fit;
}

Status RunFilter(Fit& fit, const api::Pod& pod, const framework::NodeInfo& node) {
  framework::CycleState state;
  const framework::PodInfoPtr info = framework::PodInfo::Make(pod);
  const Status pre = fit.PreFilter(state, *info, {}, nullptr);
  EXPECT_TRUE(pre.IsSuccess()) << framework::ToString(pre);
  return fit.Filter(state, *info, node);
}

std::string Insufficient(std::string_view resource) {
  return "Insufficient " + std::string(resource);
}

InsufficientResource Short(std::string_view name, int64_t requested, int64_t used, int64_t capacity,
                           bool unresolvable = false) {
  return InsufficientResource{std::string(name), Insufficient(name), requested, used,
                              capacity,          unresolvable};
}

struct EnoughCase {
  std::string name;
  api::Pod pod;
  api::Pod existing;
  NodeResourcesFitArgs args;
  Status want_status;
  std::vector<InsufficientResource> want_insufficient;
};

TEST(NodeResourcesFitFilter, EnoughRequests) {
  const std::vector<EnoughCase> cases = {
      {"no resources requested always fits", api::Pod{}, ResourcePod({{10, 20}}), {}, {}, {}},
      {"too many resources fails",
       ResourcePod({{1, 1}}),
       ResourcePod({{10, 20}}),
       {},
       Status(Code::kUnschedulable, {Insufficient("cpu"), Insufficient("memory")}),
       {Short("cpu", 1, 10, 10), Short("memory", 1, 20, 20)}},
      {"too many resources fails due to init container cpu",
       WithInit(ResourcePod({{1, 1}}), {{3, 1}}),
       ResourcePod({{8, 19}}),
       {},
       Status(Code::kUnschedulable, Insufficient("cpu")),
       {Short("cpu", 3, 8, 10)}},
      {"too many resources fails due to highest init container cpu",
       WithInit(ResourcePod({{1, 1}}), {{3, 1}, {2, 1}}),
       ResourcePod({{8, 19}}),
       {},
       Status(Code::kUnschedulable, Insufficient("cpu")),
       {Short("cpu", 3, 8, 10)}},
      {"too many resources fails due to init container memory",
       WithInit(ResourcePod({{1, 1}}), {{1, 3}}),
       ResourcePod({{9, 19}}),
       {},
       Status(Code::kUnschedulable, Insufficient("memory")),
       {Short("memory", 3, 19, 20)}},
      {"too many resources fails due to highest init container memory",
       WithInit(ResourcePod({{1, 1}}), {{1, 3}, {1, 2}}),
       ResourcePod({{9, 19}}),
       {},
       Status(Code::kUnschedulable, Insufficient("memory")),
       {Short("memory", 3, 19, 20)}},
      {"init container fits because it's the max, not sum, of containers and init containers",
       WithInit(ResourcePod({{1, 1}}), {{1, 1}}), ResourcePod({{9, 19}}), {}, {}, {}},
      {"multiple init containers fit because it's the max, not sum, of containers and init "
       "containers",
       WithInit(ResourcePod({{1, 1}}), {{1, 1}, {1, 1}}), ResourcePod({{9, 19}}), {}, {}, {}},
      {"both resources fit", ResourcePod({{1, 1}}), ResourcePod({{5, 5}}), {}, {}, {}},
      {"one resource memory fits",
       ResourcePod({{2, 1}}),
       ResourcePod({{9, 5}}),
       {},
       Status(Code::kUnschedulable, Insufficient("cpu")),
       {Short("cpu", 2, 9, 10)}},
      {"one resource cpu fits",
       ResourcePod({{1, 2}}),
       ResourcePod({{5, 19}}),
       {},
       Status(Code::kUnschedulable, Insufficient("memory")),
       {Short("memory", 2, 19, 20)}},
      {"equal edge case", ResourcePod({{5, 1}}), ResourcePod({{5, 19}}), {}, {}, {}},
      {"equal edge case for init container", WithInit(ResourcePod({{4, 1}}), {{5, 1}}),
       ResourcePod({{5, 19}}), {}, {}, {}},
      {"extended resource fits", ResourcePod({{0, 0, 0, {{kExtendedA, 1}}}}), ResourcePod({{}}),
       {}, {}, {}},
      {"extended resource fits for init container",
       WithInit(ResourcePod({{}}), {{0, 0, 0, {{kExtendedA, 1}}}}), ResourcePod({{}}), {}, {}, {}},
      {"extended resource capacity enforced",
       ResourcePod({{1, 1, 0, {{kExtendedA, 10}}}}),
       ResourcePod({{0, 0, 0, {{kExtendedA, 0}}}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kExtendedA)),
       {Short(kExtendedA, 10, 0, 5, true)}},
      {"extended resource capacity enforced for init container",
       WithInit(ResourcePod({{}}), {{1, 1, 0, {{kExtendedA, 10}}}}),
       ResourcePod({{0, 0, 0, {{kExtendedA, 0}}}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kExtendedA)),
       {Short(kExtendedA, 10, 0, 5, true)}},
      {"extended resource allocatable enforced",
       ResourcePod({{1, 1, 0, {{kExtendedA, 1}}}}),
       ResourcePod({{0, 0, 0, {{kExtendedA, 5}}}}),
       {},
       Status(Code::kUnschedulable, Insufficient(kExtendedA)),
       {Short(kExtendedA, 1, 5, 5)}},
      {"extended resource allocatable enforced for init container",
       WithInit(ResourcePod({{}}), {{1, 1, 0, {{kExtendedA, 1}}}}),
       ResourcePod({{0, 0, 0, {{kExtendedA, 5}}}}),
       {},
       Status(Code::kUnschedulable, Insufficient(kExtendedA)),
       {Short(kExtendedA, 1, 5, 5)}},
      {"extended resource allocatable enforced for multiple containers",
       ResourcePod({{1, 1, 0, {{kExtendedA, 3}}}, {1, 1, 0, {{kExtendedA, 3}}}}),
       ResourcePod({{0, 0, 0, {{kExtendedA, 2}}}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kExtendedA)),
       {Short(kExtendedA, 6, 2, 5, true)}},
      {"extended resource allocatable admits multiple init containers",
       WithInit(ResourcePod({{}}), {{1, 1, 0, {{kExtendedA, 3}}}, {1, 1, 0, {{kExtendedA, 3}}}}),
       ResourcePod({{0, 0, 0, {{kExtendedA, 2}}}}), {}, {}, {}},
      {"extended resource allocatable enforced for multiple init containers",
       WithInit(ResourcePod({{}}), {{1, 1, 0, {{kExtendedA, 6}}}, {1, 1, 0, {{kExtendedA, 3}}}}),
       ResourcePod({{0, 0, 0, {{kExtendedA, 2}}}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kExtendedA)),
       {Short(kExtendedA, 6, 2, 5, true)}},
      {"extended resource allocatable enforced for unknown resource",
       ResourcePod({{1, 1, 0, {{kExtendedB, 1}}}}),
       ResourcePod({{}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kExtendedB)),
       {Short(kExtendedB, 1, 0, 0, true)}},
      {"extended resource allocatable enforced for unknown resource for init container",
       WithInit(ResourcePod({{}}), {{1, 1, 0, {{kExtendedB, 1}}}}),
       ResourcePod({{}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kExtendedB)),
       {Short(kExtendedB, 1, 0, 0, true)}},
      {"kubernetes.io resource capacity enforced",
       ResourcePod({{1, 1, 0, {{kKubernetesIOA, 10}}}}),
       ResourcePod({{}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kKubernetesIOA)),
       {Short(kKubernetesIOA, 10, 0, 0, true)}},
      {"kubernetes.io resource capacity enforced for init container",
       WithInit(ResourcePod({{}}), {{1, 1, 0, {{kKubernetesIOB, 10}}}}),
       ResourcePod({{}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kKubernetesIOB)),
       {Short(kKubernetesIOB, 10, 0, 0, true)}},
      {"hugepages resource capacity enforced",
       ResourcePod({{1, 1, 0, {{kHugePageA, 10}}}}),
       ResourcePod({{0, 0, 0, {{kHugePageA, 0}}}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kHugePageA)),
       {Short(kHugePageA, 10, 0, 5, true)}},
      {"hugepages resource capacity enforced for init container",
       WithInit(ResourcePod({{}}), {{1, 1, 0, {{kHugePageA, 10}}}}),
       ResourcePod({{0, 0, 0, {{kHugePageA, 0}}}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kHugePageA)),
       {Short(kHugePageA, 10, 0, 5, true)}},
      {"hugepages resource allocatable enforced for multiple containers",
       ResourcePod({{1, 1, 0, {{kHugePageA, 3}}}, {1, 1, 0, {{kHugePageA, 3}}}}),
       ResourcePod({{0, 0, 0, {{kHugePageA, 2}}}}),
       {},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kHugePageA)),
       {Short(kHugePageA, 6, 2, 5, true)}},
      {"skip checking ignored extended resource",
       ResourcePod({{1, 1, 0, {{kExtendedB, 1}}}}),
       ResourcePod({{}}),
       NodeResourcesFitArgs{{"example.com/bbb"}, {}, {}},
       {},
       {}},
      {"resources + pod overhead fits",
       [] {
         api::Pod p = ResourcePod({{1, 1}});
         p.spec.overhead = testing::MakeResourceList({{"cpu", "3m"}, {"memory", "13"}});
         return p;
       }(),
       ResourcePod({{5, 5}}),
       {},
       {},
       {}},
      {"requests + overhead does not fit for memory",
       [] {
         api::Pod p = ResourcePod({{1, 1}});
         p.spec.overhead = testing::MakeResourceList({{"cpu", "1m"}, {"memory", "15"}});
         return p;
       }(),
       ResourcePod({{5, 5}}),
       {},
       Status(Code::kUnschedulable, Insufficient("memory")),
       {Short("memory", 16, 5, 20)}},
      {"skip checking ignored extended resource via resource groups",
       ResourcePod({{1, 1, 0, {{kExtendedB, 1}, {kKubernetesIOA, 1}}}}),
       ResourcePod({{}}),
       NodeResourcesFitArgs{{}, {"example.com"}, {}},
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kKubernetesIOA)),
       {Short(kKubernetesIOA, 1, 0, 0, true)}},
      {"skip checking extended resource request with quantity zero via resource groups",
       ResourcePod({{1, 1, 0, {{kExtendedA, 0}}}}), ResourcePod({{0, 0, 0, {{kExtendedA, 6}}}}),
       {}, {}, {}},
      {"skip checking resource request with quantity zero",
       ResourcePod({{0, 0, 0, {{kExtendedA, 1}}}}), ResourcePod({{20, 30, 0, {{kExtendedA, 1}}}}),
       {}, {}, {}},
      // Pod-level resources (upstream's cases with PodLevelResources on, as it is since 1.34).
      {"both pod-level and container-level resources fit",
       PodLevel(ResourcePod({{1, 1}}), {{"cpu", "1m"}, {"memory", "2"}}), ResourcePod({{5, 5}}),
       {}, {}, {}},
      {"pod-level cpu resource not fit",
       PodLevel(ResourcePod({{1, 1}}), {{"cpu", "7m"}, {"memory", "2"}}),
       ResourcePod({{5, 5}}),
       {},
       Status(Code::kUnschedulable, Insufficient("cpu")),
       {Short("cpu", 7, 5, 10)}},
      {"pod-level memory resource not fit",
       PodLevel(ResourcePod({{1, 1}}), {{"cpu", "3m"}, {"memory", "2"}}),
       ResourcePod({{5, 19}}),
       {},
       Status(Code::kUnschedulable, Insufficient("memory")),
       {Short("memory", 2, 19, 20)}},
      {"pod-level hugepages resource fit",
       PodLevel(ResourcePod({}), {{"cpu", "3m"}, {"memory", "2"}, {kHugePageA, "5"}}), api::Pod{},
       {}, {}, {}},
      {"both pod-level and container-level hugepages resource fit",
       PodLevel(ResourcePod({{1, 1, 0, {{kHugePageA, 3}}}}),
                {{"cpu", "3m"}, {"memory", "2"}, {kHugePageA, "5"}}),
       api::Pod{}, {}, {}, {}},
      {"pod-level hugepages resource not fit",
       PodLevel(ResourcePod({}), {{"cpu", "3m"}, {"memory", "2"}, {kHugePageA, "10"}}),
       api::Pod{},
       {},
       // More than the node has at all: unresolvable, as upstream since 1.32.
       Status(Code::kUnschedulableAndUnresolvable, Insufficient(kHugePageA)),
       {Short(kHugePageA, 10, 0, 5, true)}},
      {"one pod-level cpu resource fits and all init and non-init containers resources fit",
       WithInit(PodLevel(ResourcePod({{1, 1}}), {{"cpu", "3m"}, {"memory", "2"}}), {{1, 1}}),
       ResourcePod({{5, 19}}),
       {},
       Status(Code::kUnschedulable, Insufficient("memory")),
       {Short("memory", 2, 19, 20)}},
  };
  for (const EnoughCase& c : cases) {
    SCOPED_TRACE(c.name);
    const framework::NodeInfo node = MakeNodeInfo(ResourceNode(10, 20, 32, 5, 20, 5), {c.existing});
    const std::unique_ptr<Fit> fit = MakeFit(c.args);
    const Status got = RunFilter(*fit, c.pod, node);
    EXPECT_EQ(got, c.want_status) << framework::ToString(got);
    const framework::PodInfoPtr info = framework::PodInfo::Make(c.pod);
    EXPECT_EQ(Fits(fit->CheckedRequest(info->requests), node), c.want_insufficient);
  }
}

TEST(NodeResourcesFitFilter, ErrorWithoutPreFilter) {
  const std::unique_ptr<Fit> fit = MakeFit();
  framework::CycleState state;
  const framework::PodInfoPtr pod = framework::PodInfo::Make(api::Pod{});
  const framework::NodeInfo node = MakeNodeInfo(api::Node{}, {});
  const Status got = fit->Filter(state, *pod, node);
  EXPECT_EQ(got.code(), Code::kError);
  EXPECT_EQ(got.Message(),
            "error reading \"PreFilterNodeResourcesFit\" from cycleState: not found");
}

TEST(NodeResourcesFitFilter, NotEnoughRequests) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Pod existing;
  };
  const std::vector<Case> cases = {
      {"even without specified resources, predicate fails when there's no space for additional "
       "pod",
       api::Pod{}, ResourcePod({{10, 20}})},
      {"even if both resources fit, predicate fails when there's no space for additional pod",
       ResourcePod({{1, 1}}), ResourcePod({{5, 5}})},
      {"even for equal edge case, predicate fails when there's no space for additional pod",
       ResourcePod({{5, 1}}), ResourcePod({{5, 19}})},
      {"even for equal edge case, predicate fails when there's no space for additional pod due "
       "to init container",
       WithInit(ResourcePod({{5, 1}}), {{5, 1}}), ResourcePod({{5, 19}})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::Node node = ResourceNode(10, 20, 1, 0, 0, 0);
    node.status.capacity = {};
    const std::unique_ptr<Fit> fit = MakeFit();
    EXPECT_EQ(RunFilter(*fit, c.pod, MakeNodeInfo(node, {c.existing})),
              Status(Code::kUnschedulable, "Too many pods"));
  }
}

TEST(NodeResourcesFitFilter, StorageRequests) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Pod existing;
    Status want;
  };
  const std::vector<Case> cases = {
      {"empty storage requested, and pod fits", ResourcePod({{1, 1}}), ResourcePod({{2, 10}}), {}},
      {"storage ephemeral local storage request exceeds allocatable", ResourcePod({{0, 0, 25}}),
       ResourcePod({{2, 2}}),
       Status(Code::kUnschedulableAndUnresolvable, Insufficient("ephemeral-storage"))},
      {"ephemeral local storage is sufficient",
       WithInit(ResourcePod({{0, 0, 5}}), {}),
       ResourcePod({{2, 2, 10}}),
       {}},
      {"pod fits", ResourcePod({{0, 0, 10}}), ResourcePod({{2, 2}}), {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::unique_ptr<Fit> fit = MakeFit();
    EXPECT_EQ(
        RunFilter(*fit, c.pod, MakeNodeInfo(ResourceNode(10, 20, 32, 5, 20, 5), {c.existing})),
        c.want);
  }
}

TEST(NodeResourcesFitFilter, RestartableInitContainers) {
  // Upstream's cases with the SidecarContainers feature on (it is GA).
  auto pod = [](std::optional<std::string_view> regular, std::optional<std::string_view> sidecar) {
    api::Pod p;
    api::Container c;
    if (regular) c.resources.requests = testing::MakeResourceList({{"cpu", *regular}});
    p.spec.containers.push_back(c);
    api::Container s;
    s.restart_policy_always = true;
    if (sidecar) s.resources.requests = testing::MakeResourceList({{"cpu", *sidecar}});
    p.spec.init_containers.push_back(s);
    return p;
  };
  api::Node node = ResourceNode(2, 0, 1, 0, 0, 0);
  node.status.capacity = {};
  const framework::NodeInfo info = MakeNodeInfo(node, {});
  const std::unique_ptr<Fit> fit = MakeFit();

  api::Pod plain;
  plain.spec.containers.emplace_back();
  EXPECT_EQ(RunFilter(*fit, plain, info), Status());
  EXPECT_EQ(RunFilter(*fit, pod(std::nullopt, std::nullopt), info), Status());
  EXPECT_EQ(RunFilter(*fit, pod("1m", "1m"), info), Status());
  EXPECT_EQ(RunFilter(*fit, pod("1m", "2m"), info),
            Status(Code::kUnschedulableAndUnresolvable, Insufficient("cpu")));
}

NodeResourcesFitArgs StrategyArgs(std::string_view type,
                                  std::optional<std::vector<UtilizationShapePoint>> shape = {}) {
  NodeResourcesFitArgs args;
  args.scoring_strategy = ScoringStrategy{std::string(type), DefaultResources(), {}};
  if (shape) {
    args.scoring_strategy->requested_to_capacity_ratio = RequestedToCapacityRatioParam{*shape};
  }
  return args;
}

TEST(NodeResourcesFitScore, Strategies) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Node> nodes;
    std::vector<api::Pod> existing;
    NodeResourcesFitArgs args;
    bool run_pre_score;
    std::vector<int64_t> want;
  };
  const std::vector<api::Node> nodes = {
      MakeNode().Name("node1").Capacity({{"cpu", "4000"}, {"memory", "10000"}}).Obj(),
      MakeNode().Name("node2").Capacity({{"cpu", "6000"}, {"memory", "10000"}}).Obj()};
  const std::vector<api::Node> equal_nodes = {
      MakeNode().Name("node1").Capacity({{"cpu", "4000"}, {"memory", "10000"}}).Obj(),
      MakeNode().Name("node2").Capacity({{"cpu", "4000"}, {"memory", "10000"}}).Obj()};
  const std::vector<api::Pod> existing = {
      MakePod().NodeName("node1").Req({{"cpu", "2000"}, {"memory", "4000"}}).Obj(),
      MakePod().NodeName("node2").Req({{"cpu", "1000"}, {"memory", "2000"}}).Obj()};
  const std::vector<api::Pod> existing_with_sidecar = {
      MakePod()
          .NodeName("node1")
          .Req({{"cpu", "1000"}, {"memory", "2000"}})
          .InitReq({{"cpu", "1000"}, {"memory", "2000"}}, /*sidecar=*/true)
          .Obj(),
      MakePod().NodeName("node2").Req({{"cpu", "1000"}, {"memory", "2000"}}).Obj()};
  const api::Pod big = MakePod().Req({{"cpu", "3000"}, {"memory", "5000"}}).Obj();
  const api::Pod small = MakePod().Req({{"cpu", "1000"}, {"memory", "2000"}}).Obj();
  const api::Pod level_pod =
      MakePod().Req({{"memory", "2000"}}).Req({}).PodReq({{"cpu", "1000"}}).Obj();
  const auto falling = StrategyArgs(kRequestedToCapacityRatio,
                                    std::vector<UtilizationShapePoint>{{0, 10}, {100, 0}});
  const auto rising = StrategyArgs(kRequestedToCapacityRatio,
                                   std::vector<UtilizationShapePoint>{{0, 0}, {100, 10}});
  const auto most = StrategyArgs(kMostAllocated);
  const auto least = StrategyArgs(kLeastAllocated);

  const std::vector<Case> cases = {
      {"RequestedToCapacityRatio case1", big, nodes, existing, falling, true, {10, 32}},
      {"RequestedToCapacityRatio case2", big, nodes, existing, rising, true, {95, 68}},
      {"MostAllocated", small, nodes, existing, most, true, {67, 36}},
      {"LeastAllocated", small, nodes, existing, least, true, {32, 63}},
      {"RequestedToCapacityRatio case1 if PreScore is not called",
       big,
       nodes,
       existing,
       falling,
       false,
       {10, 32}},
      {"MostAllocated if PreScore is not called", small, nodes, existing, most, false, {67, 36}},
      {"LeastAllocated if PreScore is not called", small, nodes, existing, least, false, {32, 63}},
      {"MostAllocated with sidecar container",
       small,
       equal_nodes,
       existing_with_sidecar,
       most,
       true,
       {67, 45}},
      {"LeastAllocated with sidecar container",
       small,
       equal_nodes,
       existing_with_sidecar,
       least,
       true,
       {32, 55}},
      // calculatePodResourceRequest with pod-level requests: cpu is the pod-level 1000; memory is
      // 2000 plus the 200Mi default of the container naming none, which overflows both nodes
      // (the node's non-zero sums would charge no default: {32, 63}).
      {"LeastAllocated with pod-level requests", level_pod, nodes, existing, least, true, {12, 33}},
      {"LeastAllocated with pod-level requests if PreScore is not called",
       level_pod,
       nodes,
       existing,
       least,
       false,
       {12, 33}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<Fit> fit = MakeFit(c.args);
    std::vector<framework::NodeInfo> infos;
    for (const api::Node& n : c.nodes) {
      std::vector<api::Pod> on_node;
      for (const api::Pod& p : c.existing) {
        if (p.spec.node_name.str() == n.metadata.name) on_node.push_back(p);
      }
      infos.push_back(MakeNodeInfo(n, on_node));
    }
    framework::CycleState state;
    const framework::PodInfoPtr pod = framework::PodInfo::Make(c.pod);
    if (c.run_pre_score) {
      ASSERT_TRUE(fit->PreScore(state, *pod, {}).IsSuccess());
    }
    std::vector<int64_t> got;
    for (const framework::NodeInfo& info : infos) {
      int64_t score = -1;
      EXPECT_TRUE(fit->Score(state, *pod, info, &score).IsSuccess());
      got.push_back(score);
    }
    EXPECT_EQ(got, c.want);
  }
}

TEST(NodeResourcesFitEvents, Registered) {
  const std::unique_ptr<Fit> fit = MakeFit();
  const std::vector<framework::ClusterEventWithHint> events = fit->EventsToRegister();
  ASSERT_EQ(events.size(), 4u);
  const uint32_t pod_actions = framework::kDelete | framework::kUpdatePodScaleDown;
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kAssignedPod);
  EXPECT_EQ(events[0].event.actions, pod_actions);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[1].event.actions, pod_actions);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[2].event.actions, framework::kAdd | framework::kUpdateNodeAllocatable |
                                         framework::kUpdateNodeTaint | framework::kUpdateNodeLabel);
  EXPECT_EQ(events[3].event.resource, framework::EventResource::Of<api::DeviceClass>());
  EXPECT_EQ(events[3].event.actions, framework::kAdd | framework::kUpdateOther);
  for (const auto& e : events) EXPECT_TRUE(static_cast<bool>(e.hint));
}

TEST(NodeResourcesFitEvents, PodHint) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Pod> old_pod;
    std::optional<api::Pod> new_pod;
    QueueingHint want;
  };
  auto with_uid = [](api::Pod p, std::string_view uid) {
    p.metadata.uid = std::string(uid);
    return p;
  };
  const std::vector<Case> cases = {
      {"queue-on-other-pod-deleted", MakePod().Name("pod1").Req({{"cpu", "1"}}).Obj(),
       MakePod().Name("pod2").Req({{"cpu", "1"}}).NodeName("fake").Obj(), std::nullopt,
       QueueingHint::kQueue},
      {"skip-queue-on-unscheduled-pod-deleted", api::Pod{}, api::Pod{}, std::nullopt,
       QueueingHint::kSkip},
      {"skip-queue-on-other-unscheduled-pod",
       with_uid(MakePod().Name("pod1").Req({{"cpu", "1"}}).Obj(), "uid0"),
       with_uid(MakePod().Name("pod2").Req({{"cpu", "2"}}).Obj(), "uid1"),
       with_uid(MakePod().Name("pod2").Req({{"cpu", "1"}}).Obj(), "uid1"), QueueingHint::kSkip},
      {"skip-queue-on-other-pod-unrelated-resource-scaled-down",
       MakePod().Name("pod1").Req({{"cpu", "1"}}).Obj(),
       MakePod().Name("pod2").Req({{"memory", "2"}}).NodeName("fake").Obj(),
       MakePod().Name("pod2").Req({{"memory", "1"}}).NodeName("fake").Obj(), QueueingHint::kSkip},
      {"queue-on-other-pod-some-resource-scale-down",
       MakePod().Name("pod1").Req({{"cpu", "1"}}).Obj(),
       MakePod().Name("pod2").Req({{"cpu", "2"}}).NodeName("fake").Obj(),
       MakePod().Name("pod2").Req({{"cpu", "1"}}).NodeName("fake").Obj(), QueueingHint::kQueue},
      {"queue-on-target-pod-some-resource-scale-down",
       MakePod().Name("pod1").Req({{"cpu", "1"}}).Obj(),
       MakePod().Name("pod1").Req({{"cpu", "2"}}).Obj(),
       MakePod().Name("pod1").Req({{"cpu", "1"}}).Obj(), QueueingHint::kQueue},
      {"queue-on-deleted-unscheduled-pod-with-nomination", api::Pod{},
       [] {
         api::Pod p;
         p.status.nominated_node_name = api::Symbol("node");
         return p;
       }(),
       std::nullopt, QueueingHint::kQueue},
  };
  const std::unique_ptr<Fit> fit = MakeFit();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    framework::EventObjects e;
    e.old_pod = c.old_pod ? &*c.old_pod : nullptr;
    e.new_pod = c.new_pod ? &*c.new_pod : nullptr;
    Status error;
    EXPECT_EQ(fit->IsSchedulableAfterPodEvent(c.pod, e, &error), c.want);
    EXPECT_TRUE(error.IsSuccess());
  }
  Status error;
  EXPECT_EQ(fit->IsSchedulableAfterPodEvent(api::Pod{}, {}, &error), QueueingHint::kQueue);
  EXPECT_TRUE(error.IsError());
}

TEST(NodeResourcesFitEvents, NodeHint) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Node> old_node;
    api::Node new_node;
    QueueingHint want;
  };
  const api::Pod mem_and_a = ResourcePod({{0, 2, 0, {{kExtendedA, 1}}}});
  const std::vector<Case> cases = {
      {"skip-queue-on-node-add-without-sufficient-resources", ResourcePod({{0, 2}}), std::nullopt,
       CapacityNode({{"memory", "1"}}), QueueingHint::kSkip},
      {"skip-queue-on-node-add-without-required-resource-type",
       ResourcePod({{0, 0, 0, {{kExtendedA, 1}}}}), std::nullopt, CapacityNode({{kExtendedB, "1"}}),
       QueueingHint::kSkip},
      {"queue-on-node-add-with-sufficient-resources", mem_and_a, std::nullopt,
       CapacityNode({{"memory", "4"}, {kExtendedA, "2"}}), QueueingHint::kQueue},
      {"skip-queue-on-node-unrelated-changes", mem_and_a,
       CapacityNode({{"memory", "2"}, {kExtendedA, "2"}}),
       CapacityNode({{"memory", "2"}, {kExtendedA, "1"}, {kExtendedB, "2"}}), QueueingHint::kSkip},
      {"queue-on-pod-requested-resources-increase", mem_and_a,
       CapacityNode({{"memory", "2"}, {kExtendedA, "1"}}),
       CapacityNode({{"memory", "2"}, {kExtendedA, "2"}}), QueueingHint::kQueue},
      {"skip-queue-on-node-changes-from-suitable-to-unsuitable", mem_and_a,
       CapacityNode({{"memory", "4"}, {kExtendedA, "2"}}),
       CapacityNode({{"memory", "1"}, {kExtendedA, "2"}}), QueueingHint::kSkip},
      {"queue-on-node-changes-from-unsuitable-to-suitable", mem_and_a,
       CapacityNode({{"memory", "1"}, {kExtendedA, "2"}}),
       CapacityNode({{"memory", "4"}, {kExtendedA, "2"}}), QueueingHint::kQueue},
  };
  const std::unique_ptr<Fit> fit = MakeFit();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    framework::EventObjects e;
    e.old_node = c.old_node ? &*c.old_node : nullptr;
    e.new_node = &c.new_node;
    Status error;
    EXPECT_EQ(fit->IsSchedulableAfterNodeChange(c.pod, e, &error), c.want);
    EXPECT_TRUE(error.IsSuccess());
  }
  Status error;
  EXPECT_EQ(fit->IsSchedulableAfterNodeChange(api::Pod{}, {}, &error), QueueingHint::kQueue);
  EXPECT_TRUE(error.IsError());
}

TEST(NodeResourcesFitEvents, IsFit) {
  auto is_fit = [](const api::Pod& pod, const api::Node& node) {
    return Fits(api::PodRequests(pod), MakeNodeInfo(node, {})).empty();
  };
  EXPECT_FALSE(is_fit(MakePod().Req({{"cpu", "2"}}).Obj(), CapacityNode({{"cpu", "1"}})));
  EXPECT_TRUE(is_fit(MakePod().Req({{"cpu", "1"}}).Obj(), CapacityNode({{"cpu", "2"}})));
}

TEST(NodeResourcesFitEvents, HaveAnyRequestedResourcesIncreased) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Node old_node;
    api::Node new_node;
    bool want;
  };
  const api::Pod all = ResourcePod({{2, 2, 2, {{kExtendedA, 2}}}});
  const api::Pod cpu_memory = ResourcePod({{2, 2}});
  const std::vector<Case> cases = {
      {"no-requested-resources", ResourcePod({{}}),
       CapacityNode({{"pods", "1"},
                     {"cpu", "1"},
                     {"memory", "1"},
                     {"ephemeral-storage", "1"},
                     {kExtendedA, "1"}}),
       CapacityNode({{"pods", "1"},
                     {"cpu", "2"},
                     {"memory", "2"},
                     {"ephemeral-storage", "2"},
                     {kExtendedA, "2"}}),
       false},
      {"no-requested-resources-pods-increased", ResourcePod({{}}),
       CapacityNode({{"pods", "1"},
                     {"cpu", "1"},
                     {"memory", "1"},
                     {"ephemeral-storage", "1"},
                     {kExtendedA, "1"}}),
       CapacityNode({{"pods", "2"},
                     {"cpu", "1"},
                     {"memory", "1"},
                     {"ephemeral-storage", "1"},
                     {kExtendedA, "1"}}),
       true},
      {"scalar-resources-not-in-node", all,
       CapacityNode({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}}),
       CapacityNode({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "1"}}), false},
      {"requested-resources-decreased", all,
       CapacityNode({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kExtendedA, "4"}}),
       CapacityNode({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "1"}, {kExtendedA, "1"}}),
       false},
      {"requested-resources-increased", all,
       CapacityNode({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kExtendedA, "4"}}),
       CapacityNode({{"cpu", "3"}, {"memory", "4"}, {"ephemeral-storage", "3"}, {kExtendedA, "4"}}),
       true},
      {"non-requested-resources-decreased", cpu_memory,
       CapacityNode({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kExtendedA, "4"}}),
       CapacityNode({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "1"}, {kExtendedA, "1"}}),
       false},
      {"non-requested-resources-increased", cpu_memory,
       CapacityNode({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "3"}, {kExtendedA, "4"}}),
       CapacityNode({{"cpu", "1"}, {"memory", "2"}, {"ephemeral-storage", "5"}, {kExtendedA, "6"}}),
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(HaveAnyRequestedResourcesIncreased(
                  api::PodRequests(c.pod), api::Resource::FromList(c.old_node.status.allocatable),
                  api::Resource::FromList(c.new_node.status.allocatable)),
              c.want);
  }
}

TEST(NodeResourcesFitArgsCheck, CreateRejectsInvalidArgs) {
  NodeResourcesFitArgs args = StrategyArgs(kLeastAllocated);
  args.scoring_strategy->resources = {{"memory", -1}, {"cpu", 1}};
  std::string error;
  EXPECT_EQ(Fit::Create(args, &error), nullptr);
  EXPECT_EQ(error,
            "scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of memory not "
            "in valid range (0, 100]");
}

}  // namespace
}  // namespace muster::plugins::noderesources
