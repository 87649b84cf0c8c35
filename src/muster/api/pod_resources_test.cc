#include "muster/api/pod_resources.h"

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::api {
namespace {

using testing::MakePod;

// Cases from upstream component-helpers resource.TestPodResourceRequests.
TEST(PodRequestsTest, LargerInitContainerWins) {
  Pod pod = MakePod().InitReq({{"cpu", "4"}}).Req({{"cpu", "1"}}).Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 4000);
}

TEST(PodRequestsTest, LargerContainersWin) {
  Pod pod = MakePod().InitReq({{"cpu", "2"}}).Req({{"cpu", "2"}}).Req({{"cpu", "3"}}).Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 5000);
}

TEST(PodRequestsTest, OverheadIsAdded) {
  Pod pod = MakePod()
                .InitReq({{"cpu", "2"}})
                .Req({{"cpu", "2"}})
                .Req({{"cpu", "3"}})
                .Overhead({{"cpu", "1"}, {"memory", "1Gi"}})
                .Obj();
  Resource r = PodRequests(pod);
  EXPECT_EQ(r.milli_cpu, 6000);
  EXPECT_EQ(r.memory, int64_t{1} << 30);
}

TEST(PodRequestsTest, RestartableInitContainerAddsToContainers) {
  Pod pod = MakePod().InitReq({{"cpu", "1"}}, /*sidecar=*/true).Req({{"cpu", "1"}}).Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 2000);
}

TEST(PodRequestsTest, MultipleRestartableInitContainers) {
  // max(5, sidecars 1+2+3 + container 1) = 7
  Pod pod = MakePod()
                .InitReq({{"cpu", "5"}})
                .InitReq({{"cpu", "1"}}, true)
                .InitReq({{"cpu", "2"}}, true)
                .InitReq({{"cpu", "3"}}, true)
                .Req({{"cpu", "1"}})
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 7000);
}

TEST(PodRequestsTest, InitContainerCountsOnlySidecarsStartedBeforeIt) {
  // init-2 needs 5 + the sidecars already running (1+2) = 8; the sidecar after it does not count.
  Pod pod = MakePod()
                .InitReq({{"cpu", "5"}})
                .InitReq({{"cpu", "1"}}, true)
                .InitReq({{"cpu", "2"}}, true)
                .InitReq({{"cpu", "5"}})
                .InitReq({{"cpu", "3"}}, true)
                .Req({{"cpu", "1"}})
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 8000);
}

TEST(PodRequestsTest, SidecarThenInitThenRegular) {
  // max(10 + 100, 200 + 10) = 210
  Pod pod = MakePod()
                .InitReq({{"cpu", "10"}}, true)
                .InitReq({{"cpu", "200"}})
                .Req({{"cpu", "100"}})
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 210000);
}

TEST(PodRequestsTest, ExtendedResourcesAndHugePages) {
  Pod pod = MakePod()
                .Req({{"nvidia.com/gpu", "2"}, {"hugepages-2Mi", "4Mi"}})
                .Req({{"nvidia.com/gpu", "1"}})
                .Obj();
  Resource r = PodRequests(pod);
  EXPECT_EQ(r.Scalar(Symbol("nvidia.com/gpu")), 3);
  EXPECT_EQ(r.Scalar(Symbol("hugepages-2Mi")), 4 << 20);
}

TEST(PodRequestsTest, NonZeroDefaultsApplyPerContainerWhenMissing) {
  // One container requests nothing, one only cpu: each missing request counts as the default.
  Pod pod = MakePod().Req({}).Req({{"cpu", "250m"}}).Obj();
  Resource plain = PodRequests(pod);
  EXPECT_EQ(plain.milli_cpu, 250);
  EXPECT_EQ(plain.memory, 0);
  Resource non_zero = PodRequests(pod, {.non_zero = true});
  EXPECT_EQ(non_zero.milli_cpu, 100 + 250);
  EXPECT_EQ(non_zero.memory, 2 * 200 * 1024 * 1024);
}

TEST(PodRequestsTest, ExplicitZeroIsNotDefaulted) {
  Pod pod = MakePod().Req({{"cpu", "0"}, {"memory", "0"}}).Obj();
  Resource non_zero = PodRequests(pod, {.non_zero = true});
  EXPECT_EQ(non_zero.milli_cpu, 0);
  EXPECT_EQ(non_zero.memory, 0);
}

TEST(PodRequestsTest, FitRequestsCountThePod) {
  Pod pod = MakePod().Req({{"cpu", "1"}}).Obj();
  EXPECT_EQ(PodFitRequests(pod).allowed_pod_number, 1);
  EXPECT_EQ(PodRequests(pod).allowed_pod_number, 0);
}

TEST(ResourceTest, FromListUsesUpstreamUnits) {
  ResourceList list = testing::MakeResourceList({{"cpu", "1.5"},
                                                 {"memory", "1Gi"},
                                                 {"pods", "110"},
                                                 {"ephemeral-storage", "10G"},
                                                 {"example.com/foo", "3"},
                                                 {"unknown", "7"}});
  Resource r = Resource::FromList(list);
  EXPECT_EQ(r.milli_cpu, 1500);
  EXPECT_EQ(r.memory, int64_t{1} << 30);
  EXPECT_EQ(r.allowed_pod_number, 110);
  EXPECT_EQ(r.ephemeral_storage, 10'000'000'000);
  EXPECT_EQ(r.Scalar(Symbol("example.com/foo")), 3);
  EXPECT_EQ(r.Scalar(Symbol("unknown")), 0) << "unprefixed non-standard names are not scalar";
}

TEST(ResourceTest, ResourceNameClasses) {
  EXPECT_TRUE(IsExtendedResourceName("example.com/foo"));
  EXPECT_FALSE(IsExtendedResourceName("kubernetes.io/foo"));
  EXPECT_FALSE(IsExtendedResourceName("cpu"));
  EXPECT_FALSE(IsExtendedResourceName("requests.example.com/foo"));
  EXPECT_TRUE(IsScalarResourceName("hugepages-1Gi"));
  EXPECT_TRUE(IsScalarResourceName("attachable-volumes-aws-ebs"));
  EXPECT_TRUE(IsContainerResourceName("ephemeral-storage"));
  EXPECT_FALSE(IsContainerResourceName("pods"));
  EXPECT_FALSE(IsContainerResourceName("gpu"));
}

TEST(ResourceTest, AddSubSetMax) {
  Resource a = Resource::FromList(testing::MakeResourceList({{"cpu", "1"}, {"x.io/a", "2"}}));
  Resource b = Resource::FromList(testing::MakeResourceList({{"cpu", "3"}, {"x.io/b", "1"}}));
  Resource sum = a;
  sum.Add(b);
  EXPECT_EQ(sum.milli_cpu, 4000);
  EXPECT_EQ(sum.Scalar(Symbol("x.io/a")), 2);
  EXPECT_EQ(sum.Scalar(Symbol("x.io/b")), 1);
  sum.Sub(b);
  EXPECT_EQ(sum.milli_cpu, a.milli_cpu);
  Resource max = a;
  max.SetMax(b);
  EXPECT_EQ(max.milli_cpu, 3000);
  EXPECT_EQ(max.Scalar(Symbol("x.io/a")), 2);
  EXPECT_EQ(max.Scalar(Symbol("x.io/b")), 1);
}

// Found with fuzz/manifests_fuzz.cc: two containers of "9E" memory (each valid) overflowed the
// pod's int64 sum, which is undefined behaviour.
TEST(PodRequestsTest, HugeRequestsSaturate) {
  Pod pod = MakePod()
                .Req({{"memory", "9E"}, {"example.com/gpu", "9E"}})
                .Req({{"memory", "9E"}, {"example.com/gpu", "9E"}})
                .Overhead({{"memory", "9E"}})
                .Obj();
  Resource r = PodRequests(pod);
  EXPECT_EQ(r.memory, INT64_MAX);
  EXPECT_EQ(r.Scalar(Symbol("example.com/gpu")), INT64_MAX);
  Resource node;
  node.memory = -9'000'000'000'000'000'000;
  node.SetScalar(Symbol("example.com/gpu"), INT64_MIN);
  node.Sub(r);
  EXPECT_EQ(node.memory, INT64_MIN);
  EXPECT_EQ(node.Scalar(Symbol("example.com/gpu")), INT64_MIN);
}

// ---- Pod-level resources (KEP-2837), as upstream's resourcehelper.PodRequests and the
// scheduler's PodInfo.calculateResource and calculatePodResourceRequest count them ----

TEST(PodLevelResourcesTest, PodLevelRequestReplacesTheContainersSumForWhatItNames) {
  // cpu: the pod-level 3 stands for the containers' 1 + 1; memory is not named, so the
  // containers' sum stays; the overhead comes on top of both.
  Pod pod = MakePod()
                .Req({{"cpu", "1"}, {"memory", "1Gi"}})
                .Req({{"cpu", "1"}, {"memory", "1Gi"}})
                .PodReq({{"cpu", "3"}})
                .Overhead({{"cpu", "250m"}})
                .Obj();
  const Resource r = PodRequests(pod);
  EXPECT_EQ(r.milli_cpu, 3250);
  EXPECT_EQ(r.memory, int64_t{2} << 30);
  EXPECT_EQ(PodFitRequests(pod).milli_cpu, 3250);
  EXPECT_TRUE(HasPodLevelRequests(pod));
}

TEST(PodLevelResourcesTest, HugePagesAtPodLevelAndExtendedResourcesFromContainers) {
  Pod pod = MakePod()
                .Req({{"nvidia.com/gpu", "2"}})
                .PodReq({{"cpu", "2"}, {"hugepages-2Mi", "8Mi"}})
                .Obj();
  const Resource r = PodRequests(pod);
  EXPECT_EQ(r.Scalar(Symbol("hugepages-2Mi")), 8 << 20);
  EXPECT_EQ(r.Scalar(Symbol("nvidia.com/gpu")), 2);
}

TEST(PodLevelResourcesTest, NodeNonZeroDefaultsOnlyWhatNothingNames) {
  // Without pod-level requests, each container missing cpu (memory) counts the default.
  Pod plain = MakePod().Req({{"memory", "1Gi"}}).Req({}).Obj();
  EXPECT_EQ(PodNonZeroRequests(plain).milli_cpu, 2 * kDefaultMilliCPURequest);
  EXPECT_EQ(PodNonZeroRequests(plain).memory, (int64_t{1} << 30) + kDefaultMemoryRequest);

  // With them, memory is named by one container: no default for the other; cpu is named at pod
  // level.
  Pod level = MakePod().Req({{"memory", "1Gi"}}).Req({}).PodReq({{"cpu", "2"}}).Obj();
  EXPECT_EQ(PodNonZeroRequests(level).milli_cpu, 2000);
  EXPECT_EQ(PodNonZeroRequests(level).memory, int64_t{1} << 30);

  // Nothing names memory: the default, once per container, as upstream's NonMissing list adds it.
  Pod unnamed = MakePod().Req({}).Req({}).PodReq({{"cpu", "2"}}).Obj();
  EXPECT_EQ(PodNonZeroRequests(unnamed).milli_cpu, 2000);
  EXPECT_EQ(PodNonZeroRequests(unnamed).memory, 2 * kDefaultMemoryRequest);
}

TEST(PodLevelResourcesTest, ScoringDefaultsEachContainerBeforeThePodLevelFigures) {
  // calculatePodResourceRequest: the per-container defaults always apply, then the pod-level
  // cpu replaces the cpu sum; memory keeps the defaulted container's 200Mi beside the 1Gi.
  Pod pod = MakePod().Req({{"memory", "1Gi"}}).Req({}).PodReq({{"cpu", "2"}}).Obj();
  const Resource scored = PodRequests(pod, {.non_zero = true});
  EXPECT_EQ(scored.milli_cpu, 2000);
  EXPECT_EQ(scored.memory, (int64_t{1} << 30) + kDefaultMemoryRequest);
}

TEST(PodLevelResourcesTest, UnsupportedNamesDoNotCount) {
  EXPECT_TRUE(IsSupportedPodLevelResource("cpu"));
  EXPECT_TRUE(IsSupportedPodLevelResource("memory"));
  EXPECT_TRUE(IsSupportedPodLevelResource("hugepages-1Gi"));
  EXPECT_FALSE(IsSupportedPodLevelResource("ephemeral-storage"));
  EXPECT_FALSE(IsSupportedPodLevelResource("nvidia.com/gpu"));
}

// ---- In-place resize (KEP-1287): what the kubelet allocated and actuated counts beside the
// spec (upstream AggregateContainerRequests with UseStatusResources) ----

TEST(ResizeTest, ShrinkInProgressCountsTheLargerActuatedValue) {
  // The spec shrank to 1 cpu; the kubelet has admitted it but still runs the container at 2.
  Pod pod = MakePod()
                .Req({{"cpu", "1"}})
                .ContainerStatus("c0", {{"cpu", "1"}}, {{"cpu", "2"}})
                .NodeName("n")
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 2000);
  EXPECT_EQ(PodFitRequests(pod).milli_cpu, 2000);
  EXPECT_EQ(PodRequests(pod, {.use_status = false}).milli_cpu, 1000);
  EXPECT_TRUE(StatusChangesRequests(pod));
}

TEST(ResizeTest, GrowthNotYetAdmittedCountsTheSpec) {
  Pod pod =
      MakePod().Req({{"cpu", "3"}}).ContainerStatus("c0", {{"cpu", "2"}}, {{"cpu", "2"}}).Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 3000);
}

TEST(ResizeTest, DeferredGrowthStillCountsTheSpec) {
  Pod pod = MakePod()
                .Req({{"cpu", "3"}})
                .ContainerStatus("c0", {{"cpu", "2"}}, {{"cpu", "2"}})
                .ResizePending("Deferred")
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 3000);
}

TEST(ResizeTest, InfeasibleResizeCountsWhatTheKubeletHas) {
  // The spec asks for 8 cpu the node cannot give: the pod keeps running at 1.
  Pod pod = MakePod()
                .Req({{"cpu", "8"}})
                .ContainerStatus("c0", {{"cpu", "1"}}, {{"cpu", "1"}})
                .ResizePending("Infeasible")
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 1000);
  EXPECT_TRUE(IsPodResizeInfeasible(pod));
}

TEST(ResizeTest, InfeasibleResizeCountsNothingForAContainerWithoutStatus) {
  // Upstream's containerAllocatedRequests and containerActuatedRequests give nil for it.
  Pod pod = MakePod()
                .Req({{"cpu", "8"}})
                .Req({{"cpu", "2"}})
                .ContainerStatus("c0", {{"cpu", "1"}}, {{"cpu", "1"}})
                .ResizePending("Infeasible")
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 1000);
}

TEST(ResizeTest, ActuatedFallsBackToAllocated) {
  // No resources.requests reported: the actuated sum reads allocatedResources.
  Pod pod = MakePod().Req({{"memory", "1Gi"}}).ContainerStatus("c0", {{"memory", "2Gi"}}, {}).Obj();
  EXPECT_EQ(PodRequests(pod).memory, int64_t{2} << 30);
}

TEST(ResizeTest, SumsAreTakenWholeBeforeTheLarger) {
  // spec 1 + 1 = 2, actuated 2 + 0.5 = 2.5: 2.5, not the per-container larger 2 + 1 = 3.
  Pod pod = MakePod()
                .Req({{"cpu", "1"}})
                .Req({{"cpu", "1"}})
                .ContainerStatus("c0", {}, {{"cpu", "2"}})
                .ContainerStatus("c1", {}, {{"cpu", "500m"}})
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 2500);
}

TEST(ResizeTest, SidecarStatusCounts) {
  Pod pod = MakePod()
                .InitReq({{"cpu", "1"}}, /*sidecar=*/true)
                .Req({{"cpu", "1"}})
                .ContainerStatus("init0", {{"cpu", "1"}}, {{"cpu", "3"}})
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 4000);
}

TEST(ResizeTest, PodLevelStatusStandsForTheContainersWhenBothAreReported) {
  // The kubelet's pod-level figures (InPlacePodLevelResourcesVerticalScaling, beta in 1.36).
  Pod pod = MakePod()
                .Req({{"cpu", "1"}})
                .ContainerStatus("c0", {{"cpu", "1"}}, {{"cpu", "1"}})
                .PodStatusResources({{"cpu", "1"}}, {{"cpu", "3"}})
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 3000);
}

TEST(ResizeTest, PodLevelRequestsResizedCountTheLargerLessTheOverhead) {
  // Pod-level cpu shrank to 2; the kubelet still applies 4 to the pod, overhead (500m) included.
  Pod pod = MakePod()
                .Req({{"cpu", "1"}})
                .PodReq({{"cpu", "2"}})
                .Overhead({{"cpu", "500m"}})
                .PodStatusResources({{"cpu", "2500m"}}, {{"cpu", "4500m"}})
                .Obj();
  EXPECT_EQ(PodRequests(pod).milli_cpu, 4000 + 500);
  EXPECT_EQ(PodRequests(pod, {.use_status = false}).milli_cpu, 2000 + 500);
}

TEST(ResizeTest, StatusThatSaysWhatTheSpecSaysChangesNothing) {
  Pod pod = MakePod()
                .Req({{"cpu", "1"}, {"memory", "1Gi"}})
                .ContainerStatus("c0", {{"cpu", "1"}, {"memory", "1Gi"}},
                                 {{"cpu", "1"}, {"memory", "1Gi"}})
                .Obj();
  EXPECT_FALSE(StatusChangesRequests(pod));
}

TEST(ResourceTest, ToListPrintsCanonically) {
  Resource r;
  r.milli_cpu = 3000;
  r.memory = 500 * 1024 * 1024;
  ResourceList list = r.ToList();
  ASSERT_NE(list.Get("cpu"), nullptr);
  EXPECT_EQ(list.Get("cpu")->String(), "3");
  EXPECT_EQ(list.Get("memory")->String(), "500Mi");
}

}  // namespace
}  // namespace muster::api
