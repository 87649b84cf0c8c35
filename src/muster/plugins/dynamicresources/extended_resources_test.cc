// Extended resources served by devices (DRAExtendedResource, GA in Kubernetes 1.37): after
// upstream's extendeddynamicresources_test.go and fit_test.go's DRA cases. Pod default/my-pod
// (uid 1234) asks for example.com/gpu, which DeviceClass gpu-class names; node worker has a
// device of the class (instance-1) and none of the resource in its allocatable; node plugged
// serves the resource from a device plugin.

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/dra.h"
#include "muster/api/manifests.h"
#include "muster/api/pod_claims.h"
#include "muster/api/testing/builders.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/dynamicresources/dynamic_resources.h"
#include "muster/plugins/noderesources/fit.h"

namespace muster::plugins::dynamicresources {
namespace {

using framework::Code;
using framework::QueueingHint;
using framework::Status;
using testing::FakeServices;
using testing::MakeNode;

template <typename T>
T Decode(const std::string& yaml, const std::string& version) {
  std::vector<std::string> errors;
  std::optional<T> out = api::DecodeAs<T>(YAML::Load(yaml), version, "test", &errors);
  EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors) << "\n" << yaml;
  return out ? *out : T{};
}

// The errors of a file holding `yaml` as an object of `kind`, as simulate reads it.
std::vector<std::string> DecodeErrors(const std::string& yaml, const std::string& version,
                                      bool pod) {
  api::LoadResult result;
  api::DecodeText(
      "apiVersion: " + version + "\nkind: " + (pod ? "Pod" : "DeviceClass") + "\n" + yaml, "test",
      result);
  api::FinishLoad(result);
  return result.errors;
}

api::Pod PodWith(const std::string& containers, const std::string& init = "[]",
                 const std::string& name = "my-pod", const std::string& uid = "1234") {
  return Decode<api::Pod>("metadata: {name: " + name + ", namespace: default, uid: \"" + uid +
                              "\"}\nspec:\n  initContainers: " + init +
                              "\n  containers: " + containers + "\n",
                          "v1");
}

api::Pod GpuPod(const std::string& name = "my-pod", const std::string& uid = "1234",
                const std::string& resource = "example.com/gpu") {
  return PodWith("[{name: c, image: i, resources: {requests: {cpu: 100m, \"" + resource +
                     "\": \"1\"}, limits: {\"" + resource + "\": \"1\"}}}]",
                 "[]", name, uid);
}

// ---- the claim's requests (upstream's createRequestsAndMappings) ----

struct Mapping {
  std::string container, resource, request;
  bool operator==(const Mapping&) const = default;
};

struct Requests {
  std::vector<std::pair<std::string, int64_t>> requests;  // name, count
  std::vector<Mapping> mappings;
};

Requests Build(const api::Pod& pod) {
  const std::vector<ExtendedResource> resources = {
      {api::Symbol("example.com/gpu"), api::Symbol("gpu-class")}};
  std::vector<api::DeviceRequest> requests;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
  ExtendedResourceRequests(pod, resources, &requests, &mappings);
  Requests out;
  for (const api::DeviceRequest& r : requests) {
    EXPECT_TRUE(r.exactly.has_value());
    EXPECT_EQ(r.exactly->device_class_name.str(), "gpu-class");
    EXPECT_EQ(r.exactly->allocation_mode, api::DeviceAllocationMode::kExactCount);
    out.requests.emplace_back(r.name.string(), r.exactly->count);
  }
  for (const auto& m : mappings) {
    out.mappings.push_back({m.container_name, m.resource_name.string(), m.request_name.string()});
  }
  return out;
}

TEST(ExtendedResourceRequestsTest, EachContainerItsOwnRequestNamedByItsPlaceAndTheResources) {
  // The resource is the second of c1's sorted requests (cpu, example.com/gpu).
  const Requests r = Build(PodWith(
      "[{name: c0, image: i, resources: {requests: {example.com/gpu: \"2\"}, limits: "
      "{example.com/gpu: \"2\"}}}, {name: c1, image: i, resources: {requests: {cpu: \"1\", "
      "example.com/gpu: \"1\"}, limits: {example.com/gpu: \"1\"}}}, {name: c2, image: i}]"));
  EXPECT_EQ(r.requests, (std::vector<std::pair<std::string, int64_t>>{
                            {"container-0-request-0", 2}, {"container-1-request-1", 1}}));
  EXPECT_EQ(r.mappings, (std::vector<Mapping>{{"c0", "example.com/gpu", "container-0-request-0"},
                                              {"c1", "example.com/gpu", "container-1-request-1"}}));
}

TEST(ExtendedResourceRequestsTest, InitContainersReuseTheDevicesOfLaterContainers) {
  // Upstream's issue 134880: ic1 uses the sidecar's device; ic2 (2) uses c1's and asks for one
  // more; three devices in all, as the sidecar rule counts them.
  const std::string gpu =
      "resources: {requests: {example.com/gpu: \"1\"}, limits: "
      "{example.com/gpu: \"1\"}}";
  const Requests r = Build(PodWith(
      "[{name: c1, image: i, resources: {requests: {cpu: \"1\", example.com/gpu: \"1\"}, "
      "limits: {example.com/gpu: \"1\"}}}]",
      "[{name: ic1, image: i, " + gpu + "}, {name: sidecar, image: i, restartPolicy: Always, " +
          gpu +
          "}, {name: ic2, image: i, resources: {requests: {example.com/gpu: \"2\"}, limits: "
          "{example.com/gpu: \"2\"}}}]"));
  EXPECT_EQ(r.requests,
            (std::vector<std::pair<std::string, int64_t>>{{"container-1-request-0", 1},
                                                          {"container-2-request-0", 1},
                                                          {"container-3-request-1", 1}}));
  EXPECT_EQ(r.mappings,
            (std::vector<Mapping>{{"sidecar", "example.com/gpu", "container-1-request-0"},
                                  {"c1", "example.com/gpu", "container-3-request-1"},
                                  {"ic1", "example.com/gpu", "container-1-request-0"},
                                  {"ic2", "example.com/gpu", "container-3-request-1"},
                                  {"ic2", "example.com/gpu", "container-2-request-0"}}));
}

TEST(ExtendedResourceRequestsTest, OnlyTheLargestOfTheInitContainersOwnRequestsStays) {
  // They run one after the other: ic0's 1 fits in ic1's 3.
  const Requests r = Build(
      PodWith("[{name: c, image: i}]",
              "[{name: ic0, image: i, resources: {requests: {example.com/gpu: \"1\"}, limits: "
              "{example.com/gpu: \"1\"}}}, {name: ic1, image: i, resources: {requests: "
              "{example.com/gpu: \"3\"}, limits: {example.com/gpu: \"3\"}}}]"));
  EXPECT_EQ(r.requests,
            (std::vector<std::pair<std::string, int64_t>>{{"container-1-request-0", 3}}));
  EXPECT_EQ(r.mappings,
            (std::vector<Mapping>{{"ic0", "example.com/gpu", "container-1-request-0"},
                                  {"ic1", "example.com/gpu", "container-1-request-0"}}));
}

// ---- the API ----

TEST(ExtendedResourceDecodingTest, TheClassNamesAnExtendedResourceAndPodsAskForTheImplicitName) {
  const api::DeviceClass c = Decode<api::DeviceClass>(
      "metadata: {name: gpu-class}\nspec: {extendedResourceName: example.com/gpu}",
      "resource.k8s.io/v1");
  EXPECT_EQ(c.spec.extended_resource_name, "example.com/gpu");
  EXPECT_EQ(DecodeErrors("metadata: {name: gpu-class}\nspec: {extendedResourceName: gpu}",
                         "resource.k8s.io/v1", false),
            (std::vector<std::string>{"test: document 1 (DeviceClass gpu-class): "
                                      "spec.extendedResourceName: Invalid value: \"gpu\": must be "
                                      "a valid extended resource name"}));
  // deviceclass.resource.kubernetes.io/<class> is a prefixed native name: containers may ask.
  EXPECT_TRUE(DecodeErrors("metadata: {name: p}\nspec: {containers: [{name: c, image: i, "
                           "resources: {requests: {deviceclass.resource.kubernetes.io/gpu-class: "
                           "\"1\"}}}]}",
                           "v1", true)
                  .empty());
  EXPECT_EQ(DecodeErrors("metadata: {name: p}\nspec: {containers: [{name: c, image: i, "
                         "resources: {requests: {example.com/a/b: \"1\"}}}]}",
                         "v1", true),
            (std::vector<std::string>{"test: document 1 (Pod default/p): "
                                      "spec.containers[0].resources.requests.example.com/a/b: "
                                      "Invalid value: \"example.com/a/b\": doesn't follow "
                                      "extended resource name standard"}));
}

TEST(ExtendedResourceDecodingTest, ThePodStatusNamesTheClaimAndEachContainersRequest) {
  const std::string spec =
      "metadata: {name: p, namespace: default}\nspec: {containers: [{name: c, image: i, "
      "resources: {requests: {example.com/gpu: \"1\"}, limits: {example.com/gpu: \"1\"}}}]}\n";
  const api::Pod pod = Decode<api::Pod>(
      spec +
          "status:\n  extendedResourceClaimStatus:\n    resourceClaimName: "
          "p-extended-resources-abcde\n    requestMappings: [{containerName: c, resourceName: "
          "example.com/gpu, requestName: container-0-request-0}]\n",
      "v1");
  ASSERT_NE(pod.status.extended_resource_claim, nullptr);
  EXPECT_EQ(pod.status.extended_resource_claim->resource_claim_name.str(),
            "p-extended-resources-abcde");
  EXPECT_EQ(pod.status.extended_resource_claim->request_mappings,
            (std::vector<api::ContainerExtendedResourceRequest>{
                {"c", api::Symbol("example.com/gpu"), api::Symbol("container-0-request-0")}}));
  EXPECT_EQ(
      DecodeErrors(spec + "status:\n  extendedResourceClaimStatus:\n    resourceClaimName: x\n"
                          "    requestMappings: [{containerName: d, resourceName: example.com/gpu, "
                          "requestName: r}]\n",
                   "v1", true),
      (std::vector<std::string>{
          "test: document 1 (Pod default/p): "
          "status.extendedResourceClaimStatus.requestMappings[0].containerName: Invalid value: "
          "\"d\": must match the name of an entry in spec.initContainers.name or "
          "spec.containers.name"}));
}

// ---- the plugins ----

class ExtendedResourcesTest : public ::testing::Test {
 protected:
  ExtendedResourcesTest() {
    services_.AddNode(MakeNode().Name("worker").Capacity({{"cpu", "8"}, {"pods", "110"}}).Obj());
    services_.AddNode(MakeNode()
                          .Name("plugged")
                          .Capacity({{"cpu", "8"}, {"pods", "110"}, {"example.com/gpu", "1"}})
                          .Obj());
    services_.AddObject(
        Decode<api::ResourceSlice>("metadata: {name: worker-gpu}\n"
                                   "spec:\n"
                                   "  driver: gpu.example.com\n"
                                   "  nodeName: worker\n"
                                   "  pool: {name: worker, generation: 1, resourceSliceCount: 1}\n"
                                   "  devices: [{name: instance-1}]",
                                   "resource.k8s.io/v1"));
    std::string error;
    fit_ = noderesources::Fit::New(framework::PluginArgs{}, services_.handle(), &error);
    EXPECT_NE(fit_, nullptr) << error;
  }
  void AddClass(const std::string& extended = "example.com/gpu") {
    services_.AddObject(Decode<api::DeviceClass>(
        "metadata: {name: gpu-class}\nspec:\n  selectors: [{cel: {expression: 'device.driver == "
        "\"gpu.example.com\"'}}]\n" +
            (extended.empty() ? "" : "  extendedResourceName: " + extended + "\n"),
        "resource.k8s.io/v1"));
  }

  Status PreFilter(const api::Pod& pod) {
    info_ = framework::PodInfo::Make(pod);
    state_ = std::make_unique<framework::CycleState>();
    framework::PreFilterResult result;
    auto& fit = dynamic_cast<framework::PreFilterPlugin&>(*fit_);
    EXPECT_TRUE(fit.PreFilter(*state_, *info_, services_.snapshot().List(), &result).IsSuccess());
    return plugin_.PreFilter(*state_, *info_, services_.snapshot().List(), &result);
  }
  const framework::NodeInfo& Node(std::string_view name) {
    return *services_.snapshot().Get(api::Symbol(name));
  }
  Status FitFilter(std::string_view node) {
    return dynamic_cast<framework::FilterPlugin&>(*fit_).Filter(*state_, *info_, Node(node));
  }
  Status Filter(std::string_view node) { return plugin_.Filter(*state_, *info_, Node(node)); }

  FakeServices services_;
  std::unique_ptr<framework::Plugin> fit_;
  DynamicResources plugin_{services_.handle()};
  framework::PodInfoPtr info_;
  std::unique_ptr<framework::CycleState> state_;
};

TEST_F(ExtendedResourcesTest, WithoutAClassTheNodeMustHaveTheResource) {
  EXPECT_EQ(PreFilter(GpuPod()).code(), Code::kSkip);
  const Status fit = FitFilter("worker");
  EXPECT_EQ(fit.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(fit.Message(), "Insufficient example.com/gpu");
  EXPECT_TRUE(FitFilter("plugged").IsSuccess());
}

TEST_F(ExtendedResourcesTest, DevicesServeTheResourceWhereTheNodeHasNone) {
  AddClass();
  ASSERT_TRUE(PreFilter(GpuPod()).IsSuccess());
  // Fit passes over it on worker (none in allocatable); plugged's device plugin serves it.
  EXPECT_TRUE(FitFilter("worker").IsSuccess());
  EXPECT_TRUE(FitFilter("plugged").IsSuccess());
  EXPECT_TRUE(Filter("worker").IsSuccess());
  EXPECT_TRUE(Filter("plugged").IsSuccess());

  ASSERT_TRUE(plugin_.Reserve(*state_, *info_, api::Symbol("worker")).IsSuccess());
  EXPECT_TRUE(plugin_.PreBindPreFlight(*state_, *info_, api::Symbol("worker")).IsSuccess());
  ASSERT_TRUE(plugin_.PreBind(*state_, *info_, api::Symbol("worker")).IsSuccess());

  ASSERT_EQ(services_.claims_created.size(), 1u);
  const api::ResourceClaim& made = services_.claims_created[0];
  EXPECT_EQ(made.metadata.name, "my-pod-extended-resources-0");
  EXPECT_EQ(made.metadata.annotations.at(std::string(api::kExtendedResourceClaimAnnotation)),
            "true");
  ASSERT_NE(made.metadata.ControllerRef(), nullptr);
  EXPECT_EQ(made.metadata.ControllerRef()->uid, "1234");
  ASSERT_EQ(made.spec.requests.size(), 1u);
  EXPECT_EQ(made.spec.requests[0].name.str(), "container-0-request-1");
  EXPECT_EQ(made.spec.requests[0].exactly->device_class_name.str(), "gpu-class");
  EXPECT_EQ(made.spec.requests[0].exactly->count, 1);

  ASSERT_EQ(services_.claim_updates.size(), 1u);
  const api::ResourceClaim& written = services_.claim_updates[0];
  EXPECT_EQ(written.metadata.name, "my-pod-extended-resources-0");
  ASSERT_TRUE(written.status.allocation.has_value());
  ASSERT_EQ(written.status.allocation->devices.size(), 1u);
  EXPECT_EQ(written.status.allocation->devices[0].device.str(), "instance-1");
  EXPECT_EQ(written.status.allocation->devices[0].request, "container-0-request-1");
  EXPECT_TRUE(written.ReservedFor("1234"));
  EXPECT_TRUE(api::HasClaimFinalizer(written));

  ASSERT_EQ(services_.extended_claim_statuses.size(), 1u);
  EXPECT_EQ(services_.extended_claim_statuses[0].first, "default/my-pod");
  EXPECT_EQ(services_.extended_claim_statuses[0].second,
            (api::PodExtendedResourceClaimStatus{
                {{"c", api::Symbol("example.com/gpu"), api::Symbol("container-0-request-1")}},
                api::Symbol("my-pod-extended-resources-0")}));

  // The binding failed after: the claim goes with the attempt.
  plugin_.Unreserve(*state_, *info_, api::Symbol("worker"));
  EXPECT_EQ(services_.claims_deleted,
            std::vector<std::string>{"default/my-pod-extended-resources-0"});
}

TEST_F(ExtendedResourcesTest, TheImplicitNameAsksForADeviceOfThatClass) {
  AddClass("");
  ASSERT_TRUE(PreFilter(GpuPod("my-pod", "1234", "deviceclass.resource.kubernetes.io/gpu-class"))
                  .IsSuccess());
  EXPECT_TRUE(FitFilter("worker").IsSuccess());
  EXPECT_TRUE(Filter("worker").IsSuccess());
  // Without the class's extendedResourceName, example.com/gpu is the node's to have.
  ASSERT_EQ(PreFilter(GpuPod()).code(), Code::kSkip);
  EXPECT_EQ(FitFilter("worker").Message(), "Insufficient example.com/gpu");
}

TEST_F(ExtendedResourcesTest, ADeviceReservedForOnePodIsNotAnothers) {
  AddClass();
  ASSERT_TRUE(PreFilter(GpuPod()).IsSuccess());
  ASSERT_TRUE(Filter("worker").IsSuccess());
  ASSERT_TRUE(plugin_.Reserve(*state_, *info_, api::Symbol("worker")).IsSuccess());
  auto first_state = std::move(state_);
  auto first = info_;

  ASSERT_TRUE(PreFilter(GpuPod("other-pod", "5678")).IsSuccess());
  const Status none = Filter("worker");
  EXPECT_EQ(none.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(none.Message(), kErrCannotAllocate);
  EXPECT_TRUE(Filter("plugged").IsSuccess());

  // Released by the first pod's Unreserve (never created: nothing to delete).
  plugin_.Unreserve(*first_state, *first, api::Symbol("worker"));
  EXPECT_TRUE(services_.claims_deleted.empty());
  ASSERT_TRUE(PreFilter(GpuPod("other-pod", "5678")).IsSuccess());
  EXPECT_TRUE(Filter("worker").IsSuccess());
}

TEST_F(ExtendedResourcesTest, AClaimLeftByAnEarlierAttemptIsDeletedFirst) {
  AddClass();
  services_.AddObject(Decode<api::ResourceClaim>(
      "metadata:\n"
      "  name: my-pod-extended-resources-x1y2z\n"
      "  namespace: default\n"
      "  uid: old\n"
      "  annotations: {resource.kubernetes.io/extended-resource-claim: \"true\"}\n"
      "  ownerReferences: [{apiVersion: v1, kind: Pod, name: my-pod, uid: \"1234\", "
      "controller: true}]\n"
      "spec:\n"
      "  devices:\n"
      "    requests: [{name: container-0-request-0, exactly: {deviceClassName: gpu-class}}]\n",
      "resource.k8s.io/v1"));
  ASSERT_TRUE(PreFilter(GpuPod()).IsSuccess());
  const Status left = Filter("worker");
  EXPECT_EQ(left.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(left.Message(), "cannot schedule extended resource claim");
  framework::PostFilterResult result;
  const Status post = plugin_.PostFilter(*state_, *info_, framework::NodeToStatus(), &result);
  EXPECT_EQ(post.code(), Code::kUnschedulable);
  EXPECT_EQ(post.Message(), "deletion of ResourceClaim completed");
  EXPECT_EQ(services_.claims_deleted,
            std::vector<std::string>{"default/my-pod-extended-resources-x1y2z"});
}

TEST_F(ExtendedResourcesTest, AClassNamingTheResourceRequeuesThePod) {
  auto& fit = dynamic_cast<noderesources::Fit&>(*fit_);
  const api::Pod pod = GpuPod();
  auto named = std::make_shared<const api::DeviceClass>(Decode<api::DeviceClass>(
      "metadata: {name: gpu-class}\nspec: {extendedResourceName: example.com/gpu}",
      "resource.k8s.io/v1"));
  auto other = std::make_shared<const api::DeviceClass>(Decode<api::DeviceClass>(
      "metadata: {name: gpu-class}\nspec: {extendedResourceName: example.com/fpga}",
      "resource.k8s.io/v1"));
  auto hint = [&](std::shared_ptr<const api::DeviceClass> before,
                  std::shared_ptr<const api::DeviceClass> after) {
    framework::EventObjects e;
    if (before != nullptr) e.old_object = before;
    e.new_object = after;
    return fit.IsSchedulableAfterDeviceClassEvent(pod, e, nullptr);
  };
  EXPECT_EQ(hint(nullptr, named), QueueingHint::kQueue);
  EXPECT_EQ(hint(nullptr, other), QueueingHint::kSkip);
  EXPECT_EQ(hint(other, named), QueueingHint::kQueue);
  EXPECT_EQ(hint(named, named), QueueingHint::kSkip);
}

}  // namespace
}  // namespace muster::plugins::dynamicresources
