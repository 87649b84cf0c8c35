#include "muster/cluster/kube/decode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/feature_gates.h"
#include "muster/api/pod_resources.h"
#include "muster/api/types.h"
#include "muster/cluster/kube/encode.h"
#include "muster/framework/node_info.h"

namespace muster::cluster::kube {
namespace {

using ::testing::HasSubstr;

WatchEvent<api::Pod> Watch(std::string_view line) {
  return DecodeWatchEvent<api::Pod>(line, "v1", "watch pods");
}

TEST(DecodeWatchEventTest, AddedPod) {
  WatchEvent<api::Pod> e = Watch(
      R"({"type":"ADDED","object":{"metadata":{"name":"p","namespace":"ml","resourceVersion":"7"},)"
      R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"250m"}}}]}}})");
  EXPECT_EQ(e.type, WatchEventType::kAdded);
  EXPECT_EQ(e.resource_version, "7");
  ASSERT_TRUE(e.object.has_value());
  EXPECT_EQ(e.object->metadata.Key(), "ml/p");
}

TEST(DecodeWatchEventTest, UnreadableObjectKeepsItsFirstError) {
  WatchEvent<api::Pod> e =
      Watch(R"({"type":"MODIFIED","object":{"metadata":{"name":"p","resourceVersion":"8"},)"
            R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}})");
  EXPECT_EQ(e.type, WatchEventType::kModified);
  EXPECT_EQ(e.resource_version, "8");
  EXPECT_FALSE(e.object.has_value());
  EXPECT_THAT(e.error, HasSubstr("watch pods (Pod default/p): spec.containers[0]"));
}

TEST(DecodeWatchEventTest, BookmarkErrorAndOtherLines) {
  WatchEvent<api::Pod> bookmark =
      Watch(R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}})");
  EXPECT_EQ(bookmark.type, WatchEventType::kBookmark);
  EXPECT_EQ(bookmark.resource_version, "9");

  WatchEvent<api::Pod> gone =
      Watch(R"({"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old",)"
            R"("metadata":{"resourceVersion":"1"}}})");
  EXPECT_EQ(gone.type, WatchEventType::kError);
  EXPECT_EQ(gone.code, 410);
  EXPECT_EQ(gone.message, "too old");
  EXPECT_FALSE(gone.resource_version.has_value());

  EXPECT_EQ(Watch("").type, WatchEventType::kIgnored);
  EXPECT_EQ(Watch("{not json").type, WatchEventType::kNotJson);
  EXPECT_EQ(Watch(R"({"type":"ADDED"})").type, WatchEventType::kIgnored);
  WatchEvent<api::Pod> unknown =
      Watch(R"({"type":"LATER","object":{"metadata":{"resourceVersion":"3"}}})");
  EXPECT_EQ(unknown.type, WatchEventType::kIgnored);
  EXPECT_EQ(unknown.resource_version, "3");
}

TEST(DecodeListPageTest, ItemsContinueAndSkipped) {
  const std::string body =
      R"({"metadata":{"resourceVersion":"42","continue":"next"},"items":[)"
      R"({"metadata":{"name":"a"}},{"metadata":{"name":"b"},"spec":{"unschedulable":"yes"}},)"
      R"({"metadata":{"name":"c"}}]})";
  std::optional<ListPage<api::Node>> page = DecodeListPage<api::Node>(body, "v1", "list nodes");
  ASSERT_TRUE(page.has_value());
  EXPECT_EQ(page->resource_version, "42");
  EXPECT_EQ(page->continue_token, "next");
  ASSERT_EQ(page->items.size(), 2u);
  EXPECT_EQ(page->items[1].metadata.name, "c");
  ASSERT_EQ(page->skipped.size(), 1u);
  EXPECT_THAT(page->skipped[0], HasSubstr("list nodes (Node b): spec.unschedulable"));

  EXPECT_FALSE(DecodeListPage<api::Node>("<html>", "v1", "list nodes").has_value());
}

// `muster run`'s accounting of pods other schedulers bound, from the API server's JSON (the
// field names and nesting of kubernetes/api's testdata/HEAD/core.v1.Pod.json; a 1.25 server
// cannot store them): pod-level resources and an in-place resize under way count on the node.
api::Resource RequestedOnNode(std::string_view pod_json) {
  WatchEvent<api::Pod> e = Watch(R"({"type":"ADDED","object":)" + std::string(pod_json) + "}");
  EXPECT_EQ(e.error, "");
  if (!e.object) return {};
  framework::NodeInfo node;
  node.AddPod(framework::PodInfo::Make(std::make_shared<const api::Pod>(std::move(*e.object))));
  return node.requested();
}

TEST(DecodeWatchEventTest, BoundPodWithPodLevelResourcesCountsThem) {
  const api::Resource requested = RequestedOnNode(
      R"({"metadata":{"name":"trainer-0","namespace":"ml","uid":"u1","resourceVersion":"11"},)"
      R"("spec":{"nodeName":"n1","schedulerName":"other-scheduler",)"
      R"("resources":{"requests":{"cpu":"4","memory":"8Gi"},"limits":{"cpu":"4","memory":"8Gi"}},)"
      R"("containers":[{"name":"main","resources":{"requests":{"cpu":"1","memory":"2Gi"}}},)"
      R"({"name":"log","resources":{}}]},)"
      R"("status":{"phase":"Running","qosClass":"Guaranteed",)"
      R"("containerStatuses":[{"name":"main","ready":true,"restartCount":0,"image":"i",)"
      R"("imageID":"","started":true,"allocatedResources":{"cpu":"1","memory":"2Gi"},)"
      R"("resources":{"requests":{"cpu":"1","memory":"2Gi"}},"stopSignal":"SIGTERM"},)"
      R"({"name":"log","ready":true,"restartCount":0,"image":"i","imageID":""}],)"
      R"("allocatedResources":{"cpu":"4","memory":"8Gi"},)"
      R"("resources":{"requests":{"cpu":"4","memory":"8Gi"},"limits":{"cpu":"4","memory":"8Gi"}}}})");
  EXPECT_EQ(requested.milli_cpu, 4000) << "the containers say 1";
  EXPECT_EQ(requested.memory, int64_t{8} << 30);
  EXPECT_EQ(requested.allowed_pod_number, 1);
}

TEST(DecodeWatchEventTest, BoundPodShrinkingInPlaceCountsWhatItStillUses) {
  // The spec went down to 1 cpu; the kubelet has admitted it and still applies 3.
  const std::string pod =
      R"({"metadata":{"name":"web-0","namespace":"prod","uid":"u2","resourceVersion":"12"},)"
      R"("spec":{"nodeName":"n1","containers":[{"name":"app",)"
      R"("resources":{"requests":{"cpu":"1"},"limits":{"cpu":"1"}},)"
      R"("resizePolicy":[{"resourceName":"cpu","restartPolicy":"NotRequired"}]}]},)"
      R"("status":{"phase":"Running","conditions":[{"type":"PodResizeInProgress",)"
      R"("status":"True","lastProbeTime":null,"lastTransitionTime":"2026-11-28T10:00:00Z"}],)"
      R"("containerStatuses":[{"name":"app","ready":true,"restartCount":0,"image":"i",)"
      R"("imageID":"","allocatedResources":{"cpu":"1"},)"
      R"("resources":{"requests":{"cpu":"3"},"limits":{"cpu":"3"}}}]}})";
  EXPECT_EQ(RequestedOnNode(pod).milli_cpu, 3000) << "the spec says 1";

  // Once the resize is done the kubelet reports the spec's figures: nothing is kept.
  std::string done = pod;
  done.replace(done.find(R"("requests":{"cpu":"3"},"limits":{"cpu":"3"})"),
               std::string_view(R"("requests":{"cpu":"3"},"limits":{"cpu":"3"})").size(),
               R"("requests":{"cpu":"1"},"limits":{"cpu":"1"})");
  WatchEvent<api::Pod> e = Watch(R"({"type":"ADDED","object":)" + done + "}");
  ASSERT_TRUE(e.object.has_value());
  EXPECT_EQ(e.object->status.resources, nullptr);
  EXPECT_EQ(api::PodRequests(*e.object).milli_cpu, 1000);
}

TEST(DecodeWatchEventTest, InfeasibleResizeCountsWhatTheKubeletApplies) {
  const api::Resource requested = RequestedOnNode(
      R"({"metadata":{"name":"big","namespace":"prod","uid":"u3","resourceVersion":"13"},)"
      R"("spec":{"nodeName":"n1","containers":[{"name":"app","resources":{"requests":{"cpu":"64"}}}]},)"
      R"("status":{"phase":"Running","conditions":[{"type":"PodResizePending","status":"True",)"
      R"("reason":"Infeasible","message":"Node didn't have enough capacity: cpu, requested: )"
      R"(64000, capacity: 8000"}],"containerStatuses":[{"name":"app","ready":true,)"
      R"("restartCount":0,"image":"i","imageID":"","allocatedResources":{"cpu":"2"},)"
      R"("resources":{"requests":{"cpu":"2"}}}]}})");
  EXPECT_EQ(requested.milli_cpu, 2000) << "the spec says 64";
}

// A pod another scheduler bound with a device for its extended resource (DRAExtendedResource,
// GA in 1.37; testdata/HEAD/core.v1.Pod.json's shape): the claim is named in its status, and the
// resource counts on the node as its other requests do.
TEST(DecodeWatchEventTest, BoundPodWithAClaimForItsExtendedResource) {
  const std::string pod =
      R"({"metadata":{"name":"train","namespace":"ml","uid":"u4","resourceVersion":"14"},)"
      R"("spec":{"nodeName":"n1","containers":[{"name":"main","resources":{)"
      R"("requests":{"cpu":"1","example.com/gpu":"2"},"limits":{"example.com/gpu":"2"}}}]},)"
      R"("status":{"phase":"Running","extendedResourceClaimStatus":{"requestMappings":[)"
      R"({"containerName":"main","resourceName":"example.com/gpu",)"
      R"("requestName":"container-0-request-1"}],)"
      R"("resourceClaimName":"train-extended-resources-k8x2p"}}})";
  WatchEvent<api::Pod> e = Watch(R"({"type":"ADDED","object":)" + pod + "}");
  ASSERT_EQ(e.error, "");
  ASSERT_TRUE(e.object.has_value());
  ASSERT_NE(e.object->status.extended_resource_claim, nullptr);
  const api::PodExtendedResourceClaimStatus& s = *e.object->status.extended_resource_claim;
  EXPECT_EQ(s.resource_claim_name.str(), "train-extended-resources-k8x2p");
  ASSERT_EQ(s.request_mappings.size(), 1u);
  EXPECT_EQ(s.request_mappings[0].container_name, "main");
  EXPECT_EQ(s.request_mappings[0].request_name.str(), "container-0-request-1");
  EXPECT_EQ(RequestedOnNode(pod).Scalar(api::Symbol("example.com/gpu")), 2);
}

// The claim DynamicResources creates for a pod's extended resources, as muster posts it, reads
// back as the same claim (what the API server stores, and the informer brings back).
TEST(DecodeWatchEventTest, ACreatedExtendedResourceClaimReadsBack) {
  api::ResourceClaim made;
  made.metadata.namespace_ = api::Symbol("ml");
  made.metadata.generate_name = "train-extended-resources-";
  made.metadata.annotations[std::string(api::kExtendedResourceClaimAnnotation)] = "true";
  made.metadata.owner_references.push_back({"v1", "Pod", "train", "u4", true, false});
  made.metadata.finalizers.emplace_back(api::kClaimFinalizer);
  api::DeviceRequest request;
  request.name = api::Symbol("container-0-request-1");
  request.exactly.emplace();
  request.exactly->device_class_name = api::Symbol("gpu.example.com");
  request.exactly->count = 2;
  made.spec.requests.push_back(request);
  nlohmann::json posted = EncodeClaim(made);
  EXPECT_FALSE(posted["metadata"].contains("name"));
  posted["metadata"]["name"] = "train-extended-resources-k8x2p";
  WatchEvent<api::ResourceClaim> e = DecodeWatchEvent<api::ResourceClaim>(
      R"({"type":"ADDED","object":)" + posted.dump() + "}", "resource.k8s.io/v1", "watch");
  ASSERT_EQ(e.error, "");
  ASSERT_TRUE(e.object.has_value());
  EXPECT_EQ(e.object->metadata.generate_name, "train-extended-resources-");
  EXPECT_EQ(e.object->metadata.annotations, made.metadata.annotations);
  ASSERT_NE(e.object->metadata.ControllerRef(), nullptr);
  EXPECT_EQ(e.object->metadata.ControllerRef()->uid, "u4");
  EXPECT_EQ(e.object->metadata.finalizers, made.metadata.finalizers);
  ASSERT_EQ(e.object->spec.requests.size(), 1u);
  EXPECT_EQ(e.object->spec.requests[0].name.str(), "container-0-request-1");
  ASSERT_TRUE(e.object->spec.requests[0].exactly.has_value());
  EXPECT_EQ(e.object->spec.requests[0].exactly->device_class_name.str(), "gpu.example.com");
  EXPECT_EQ(e.object->spec.requests[0].exactly->count, 2);
  EXPECT_EQ(
      EncodeExtendedResourceClaimStatus(
          {{{"main", api::Symbol("example.com/gpu"), api::Symbol("container-0-request-1")}},
           api::Symbol("train-extended-resources-k8x2p")})
          .dump(),
      R"({"requestMappings":[{"containerName":"main","requestName":"container-0-request-1",)"
      R"("resourceName":"example.com/gpu"}],"resourceClaimName":"train-extended-resources-k8x2p"})");
}

// Binding conditions as resource.k8s.io/v1 serves them (upstream's testdata shapes): a device
// that waits for them, and a claim allocated on it whose driver reported the device attached.
// The status written back carries the copied conditions, and a deallocation clears what the
// driver reported.
TEST(DecodeWatchEventTest, DevicesBindingConditionsAndTheirStatus) {
  WatchEvent<api::ResourceSlice> slice = DecodeWatchEvent<api::ResourceSlice>(
      R"({"type":"ADDED","object":{"metadata":{"name":"fabric","resourceVersion":"5"},)"
      R"("spec":{"driver":"gpu.example.com","allNodes":true,)"
      R"("pool":{"name":"fabric","generation":1,"resourceSliceCount":1},)"
      R"("devices":[{"name":"gpu-0","bindsToNode":true,"bindingConditions":["attached"],)"
      R"("bindingFailureConditions":["failed"]}]}}})",
      "resource.k8s.io/v1", "watch resourceslices");
  ASSERT_TRUE(slice.object.has_value()) << slice.error;
  const api::Device& device = slice.object->spec.devices.at(0);
  EXPECT_TRUE(device.binds_to_node);
  EXPECT_EQ(device.binding_conditions, std::vector<std::string>{"attached"});
  EXPECT_EQ(device.binding_failure_conditions, std::vector<std::string>{"failed"});

  WatchEvent<api::ResourceClaim> claim = DecodeWatchEvent<api::ResourceClaim>(
      R"({"type":"MODIFIED","object":{"metadata":{"name":"c","namespace":"ml","resourceVersion":"9"},)"
      R"("spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu"}}]}},)"
      R"("status":{"allocation":{"allocationTimestamp":"2026-11-29T10:00:00Z",)"
      R"("devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"fabric",)"
      R"("device":"gpu-0","bindingConditions":["attached"],"bindingFailureConditions":["failed"]}]}},)"
      R"("devices":[{"driver":"gpu.example.com","pool":"fabric","device":"gpu-0",)"
      R"("conditions":[{"type":"attached","status":"True","reason":"Attached","message":"",)"
      R"("lastTransitionTime":"2026-11-29T10:00:07Z","observedGeneration":1}],)"
      R"("data":{"pciBusID":"0000:3b:00.0"},"networkData":{"interfaceName":"eth1"}}]}}})",
      "resource.k8s.io/v1", "watch resourceclaims");
  ASSERT_TRUE(claim.object.has_value()) << claim.error;
  ASSERT_EQ(claim.object->status.devices.size(), 1u);
  const api::Condition* attached =
      api::FindCondition(claim.object->status.devices[0].conditions, "attached");
  ASSERT_NE(attached, nullptr);
  EXPECT_EQ(attached->status.str(), "True");

  const nlohmann::json written = EncodeClaimStatus(*claim.object);
  EXPECT_EQ(written["allocation"]["devices"]["results"][0]["bindingConditions"],
            nlohmann::json::array({"attached"}));
  EXPECT_EQ(written["allocation"]["devices"]["results"][0]["bindingFailureConditions"],
            nlohmann::json::array({"failed"}));
  EXPECT_FALSE(written.contains("devices")) << "the drivers' entries stay while allocated";
  api::ResourceClaim deallocated = *claim.object;
  deallocated.status.allocation.reset();
  deallocated.status.devices.clear();
  EXPECT_TRUE(EncodeClaimStatus(deallocated)["devices"].is_null());
  EXPECT_TRUE(EncodeClaimStatus(deallocated).contains("devices"));
}

}  // namespace
}  // namespace muster::cluster::kube

namespace muster::cluster::kube {
namespace {

// As a 1.37 API server serves them (the shapes of kubernetes/api's testdata objects): a node's
// declared features, a pod that needs them, and a VolumeAttachment.
TEST(DecodeWatchEventTest, NodeDeclaredFeaturesAndThePodsThatNeedThem) {
  WatchEvent<api::Node> node = DecodeWatchEvent<api::Node>(
      R"({"type":"ADDED","object":{"metadata":{"name":"n1","resourceVersion":"20"},)"
      R"("status":{"capacity":{"cpu":"8"},"declaredFeatures":)"
      R"(["InPlacePodLevelResourcesVerticalScaling","RestartAllContainersOnContainerExits"]}}})",
      "v1", "watch nodes");
  ASSERT_TRUE(node.object.has_value()) << node.error;
  EXPECT_EQ(node.object->status.declared_features,
            api::BitOf(api::NodeFeature::kRestartAllContainersOnContainerExits));

  WatchEvent<api::Pod> pod = Watch(
      R"({"type":"ADDED","object":{"metadata":{"name":"p","namespace":"ml","resourceVersion":"21"},)"
      R"("spec":{"hostNetwork":true,"hostUsers":false,"containers":[{"name":"c",)"
      R"("restartPolicyRules":[{"action":"RestartAllContainers",)"
      R"("exitCodes":{"operator":"In","values":[42]}}],)"
      R"("volumeMounts":[{"name":"v","mountPath":"/v","bindMountOptions":["nosuid"]}]}],)"
      R"("volumes":[{"name":"v","emptyDir":{}}]}}})");
  ASSERT_TRUE(pod.object.has_value()) << pod.error;
  EXPECT_EQ(api::NodeFeatureNames(pod.object->spec.required_node_features),
            "RestartAllContainersOnContainerExits, UserNamespacesHostNetworkSupport, "
            "VolumeBindMountOptions");
}

TEST(DecodeWatchEventTest, VolumeAttachment) {
  WatchEvent<api::VolumeAttachment> e = DecodeWatchEvent<api::VolumeAttachment>(
      R"({"type":"ADDED","object":{"metadata":{"name":"csi-0123","resourceVersion":"30"},)"
      R"("spec":{"attacher":"ebs.csi.aws.com","source":{"persistentVolumeName":"pv-1"},)"
      R"("nodeName":"n1"},"status":{"attached":true,"attachmentMetadata":{"devicePath":"/dev/x"}}}})",
      "storage.k8s.io/v1", "watch volumeattachments");
  ASSERT_TRUE(e.object.has_value()) << e.error;
  EXPECT_EQ(e.object->attacher, "ebs.csi.aws.com");
  EXPECT_EQ(e.object->persistent_volume_name, "pv-1");
  EXPECT_EQ(e.object->node_name.str(), "n1");
  EXPECT_TRUE(e.object->attached);
}

// A composite group and a child PodGroup as a 1.37 server with the CompositePodGroup gate on
// serves them (the field names and nesting of kubernetes/api's
// testdata/HEAD/scheduling.k8s.io.v1alpha3.CompositePodGroup.json and v1beta1.PodGroup.json; a
// 1.25 server cannot store them), read on `run`'s informer path.
TEST(DecodeWatchEventTest, CompositePodGroupAndItsChild) {
  api::FeatureGates gates;
  gates.Set(api::Feature::kTopologyAwareWorkloadScheduling, true);
  gates.Set(api::Feature::kCompositePodGroup, true);
  const api::ScopedFeatures scoped(gates);
  WatchEvent<api::CompositePodGroup> c = DecodeWatchEvent<api::CompositePodGroup>(
      R"({"type":"ADDED","object":{"metadata":{"name":"replica-0","namespace":"ml",)"
      R"("resourceVersion":"40","creationTimestamp":"2026-11-01T10:00:00Z"},)"
      R"("spec":{"parentCompositePodGroupName":"job",)"
      R"("workloadRef":{"workloadName":"job","templateName":"replica"},)"
      R"("schedulingPolicy":{"gang":{"minGroupCount":2}},)"
      R"("schedulingConstraints":{"topology":[{"key":"rack"}]},"disruptionMode":{"all":{}},)"
      R"("priority":7,"preemptionPolicy":"Never"},)"
      R"("status":{"conditions":[{"type":"DisruptionTarget","status":"False",)"
      R"("observedGeneration":3,"lastTransitionTime":"2026-11-01T10:00:00Z",)"
      R"("reason":"r","message":"m"}]}}})",
      "scheduling.k8s.io/v1alpha3", "watch compositepodgroups");
  ASSERT_TRUE(c.object.has_value()) << c.error;
  EXPECT_EQ(c.object->spec.parent.str(), "job");
  EXPECT_EQ(c.object->spec.policy.min_count, 2);
  EXPECT_EQ(c.object->spec.policy.topology_keys, std::vector<api::Symbol>{api::Symbol("rack")});
  EXPECT_EQ(c.object->spec.policy.disruption_mode, api::DisruptionMode::kPodGroup);
  EXPECT_EQ(c.object->spec.policy.preemption_policy, api::PreemptionPolicy::kNever);
  EXPECT_EQ(c.object->status.conditions.size(), 1u);

  WatchEvent<api::SchedulingPodGroup> g = DecodeWatchEvent<api::SchedulingPodGroup>(
      R"({"type":"ADDED","object":{"metadata":{"name":"r0-workers","namespace":"ml",)"
      R"("resourceVersion":"41"},"spec":{"parentCompositePodGroupName":"replica-0",)"
      R"("workloadRef":{"workloadName":"job","templateName":"workers"},)"
      R"("schedulingPolicy":{"gang":{"minCount":2}},"disruptionMode":{"single":{}}}}})",
      "scheduling.k8s.io/v1beta1", "watch podgroups");
  ASSERT_TRUE(g.object.has_value()) << g.error;
  EXPECT_EQ(g.object->spec.parent.str(), "replica-0");
  EXPECT_EQ(g.object->spec.policy.min_count, 2);
}

}  // namespace
}  // namespace muster::cluster::kube
