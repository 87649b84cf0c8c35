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
  Resource non_zero = PodRequests(pod, /*non_zero=*/true);
  EXPECT_EQ(non_zero.milli_cpu, 100 + 250);
  EXPECT_EQ(non_zero.memory, 2 * 200 * 1024 * 1024);
}

TEST(PodRequestsTest, ExplicitZeroIsNotDefaulted) {
  Pod pod = MakePod().Req({{"cpu", "0"}, {"memory", "0"}}).Obj();
  Resource non_zero = PodRequests(pod, true);
  EXPECT_EQ(non_zero.milli_cpu, 0);
  EXPECT_EQ(non_zero.memory, 0);
}

TEST(PodRequestsTest, FitRequestsCountThePod) {
  Pod pod = MakePod().Req({{"cpu", "1"}}).Obj();
  EXPECT_EQ(PodFitRequests(pod).allowed_pod_number, 1);
  EXPECT_EQ(PodRequests(pod).allowed_pod_number, 0);
}

TEST(ResourceTest, FromListUsesUpstreamUnits) {
  ResourceList list = testing::MakeResourceList(
      {{"cpu", "1.5"}, {"memory", "1Gi"}, {"pods", "110"}, {"ephemeral-storage", "10G"},
       {"example.com/foo", "3"}, {"unknown", "7"}});
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
