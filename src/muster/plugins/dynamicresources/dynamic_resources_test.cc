#include "muster/plugins/dynamicresources/dynamic_resources.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/dra.h"
#include "muster/api/feature_gates.h"
#include "muster/api/manifests.h"
#include "muster/api/testing/builders.h"
#include "muster/framework/metrics.h"
#include "muster/framework/testing/fake_services.h"

// After upstream's dynamicresources_test.go: pod default/my-pod (uid 1234) with the pod claim
// my-resource, its claim my-pod-my-resource asking for one device of my-resource-class; node
// worker, whose slice (driver some-driver, pool worker) has the device instance-1.

namespace muster::plugins::dynamicresources {
namespace {

using framework::Code;
using framework::Status;
using testing::FakeServices;
using testing::MakeNode;

template <typename T>
T Decode(const std::string& yaml, const std::string& version = "resource.k8s.io/v1") {
  std::vector<std::string> errors;
  std::optional<T> out = api::DecodeAs<T>(YAML::Load(yaml), version, "test", &errors);
  EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors) << "\n" << yaml;
  return out ? *out : T{};
}

constexpr std::string_view kClass =
    "metadata: {name: my-resource-class}\n"
    "spec: {selectors: [{cel: {expression: 'device.driver == \"some-driver\"'}}]}";
constexpr std::string_view kSlice =
    "metadata: {name: worker-some-driver}\n"
    "spec:\n"
    "  driver: some-driver\n"
    "  nodeName: worker\n"
    "  pool: {name: worker, generation: 1, resourceSliceCount: 1}\n"
    "  devices: [{name: instance-1}]";

// The pod's claim, made for it from a template (owned by the pod), with `extra` spec fields.
std::string PendingClaim(std::string_view selectors = "[]") {
  return fmt::format(
      "metadata:\n"
      "  name: my-pod-my-resource\n"
      "  namespace: default\n"
      "  uid: claim-uid\n"
      "  resourceVersion: \"1\"\n"
      "  ownerReferences: [{{apiVersion: v1, kind: Pod, name: my-pod, uid: \"1234\", "
      "controller: true}}]\n"
      "spec:\n"
      "  devices:\n"
      "    requests: [{{name: req-1, exactly: {{deviceClassName: my-resource-class, "
      "selectors: {}}}}}]\n",
      selectors);
}

api::Pod PodWithTemplateClaim(bool created = true) {
  std::string yaml =
      "metadata: {name: my-pod, namespace: default, uid: \"1234\"}\n"
      "spec:\n"
      "  resourceClaims: [{name: my-resource, resourceClaimTemplateName: my-template}]\n"
      "  containers: [{name: c, image: i, resources: {claims: [{name: my-resource}]}}]\n";
  if (created) {
    yaml +=
        "status:\n  resourceClaimStatuses: [{name: my-resource, resourceClaimName: "
        "my-pod-my-resource}]\n";
  }
  return Decode<api::Pod>(yaml, "v1");
}

class DynamicResourcesTest : public ::testing::Test {
 protected:
  DynamicResourcesTest() {
    services_.AddNode(MakeNode().Name("worker").Obj());
    services_.AddNode(MakeNode().Name("other").Obj());
  }
  void AddClass() { services_.AddObject(Decode<api::DeviceClass>(std::string(kClass))); }
  void AddSlice() { services_.AddObject(Decode<api::ResourceSlice>(std::string(kSlice))); }
  void AddClaim(const std::string& yaml) { services_.AddObject(Decode<api::ResourceClaim>(yaml)); }

  Status PreFilter(const api::Pod& pod) {
    info_ = framework::PodInfo::Make(pod);
    state_ = std::make_unique<framework::CycleState>();
    framework::PreFilterResult result;
    return plugin_.PreFilter(*state_, *info_, services_.snapshot().List(), &result);
  }
  Status Filter(std::string_view node) {
    return plugin_.Filter(*state_, *info_, *services_.snapshot().Get(api::Symbol(node)));
  }
  Status PostFilter() {
    framework::PostFilterResult result;
    return plugin_.PostFilter(*state_, *info_, framework::NodeToStatus(), &result);
  }

  FakeServices services_;
  DynamicResources plugin_{services_.handle()};
  framework::PodInfoPtr info_;
  std::unique_ptr<framework::CycleState> state_;
};

TEST_F(DynamicResourcesTest, PodWithoutClaimsIsSkipped) {
  const api::Pod pod =
      Decode<api::Pod>("metadata: {name: p}\nspec: {containers: [{name: c}]}", "v1");
  EXPECT_TRUE(plugin_.PreEnqueue(pod).IsSuccess());
  EXPECT_EQ(PreFilter(pod).code(), Code::kSkip);
  const Status post = PostFilter();
  EXPECT_EQ(post.code(), Code::kUnschedulable);
  EXPECT_EQ(post.Message(), "no new claims to deallocate");
}

TEST_F(DynamicResourcesTest, PreEnqueueWaitsForTheClaim) {
  const Status missing = plugin_.PreEnqueue(PodWithTemplateClaim(false));
  EXPECT_EQ(missing.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(missing.Message(), "pod \"default/my-pod\": ResourceClaim not created yet");

  std::string deleted = PendingClaim();
  deleted.replace(deleted.find("  uid: claim-uid"), 0,
                  "  deletionTimestamp: \"2026-01-01T00:00:00Z\"\n");
  AddClaim(deleted);
  EXPECT_EQ(plugin_.PreEnqueue(PodWithTemplateClaim()).Message(),
            "resourceclaim \"my-pod-my-resource\" is being deleted");

  std::string other = PendingClaim();
  other.replace(other.find("uid: \"1234\""), 11, "uid: \"5678\"");
  AddClaim(other);
  EXPECT_EQ(plugin_.PreEnqueue(PodWithTemplateClaim()).Message(),
            "ResourceClaim default/my-pod-my-resource was not created for pod default/my-pod "
            "(pod is not owner)");

  AddClaim(PendingClaim());
  EXPECT_TRUE(plugin_.PreEnqueue(PodWithTemplateClaim()).IsSuccess());
}

TEST_F(DynamicResourcesTest, MissingClass) {
  AddClaim(PendingClaim());
  const Status s = PreFilter(PodWithTemplateClaim());
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "request req-1: device class my-resource-class does not exist");
  EXPECT_EQ(PostFilter().Message(), "no new claims to deallocate");
}

TEST_F(DynamicResourcesTest, NoResources) {
  AddClass();
  AddClaim(PendingClaim());
  ASSERT_TRUE(PreFilter(PodWithTemplateClaim()).IsSuccess());
  const Status s = Filter("worker");
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "cannot allocate all claims");
  EXPECT_EQ(PostFilter().Message(), "still not schedulable");
}

TEST_F(DynamicResourcesTest, WithResourcesReserveAndPreBind) {
  AddClass();
  AddSlice();
  AddClaim(PendingClaim());
  const api::Pod pod = PodWithTemplateClaim();
  ASSERT_TRUE(PreFilter(pod).IsSuccess());
  EXPECT_TRUE(Filter("worker").IsSuccess());
  EXPECT_EQ(Filter("other").Message(), "cannot allocate all claims");
  ASSERT_TRUE(plugin_.Reserve(*state_, *info_, api::Symbol("worker")).IsSuccess());

  // Another pod's cycle meanwhile: the device is held.
  AddClaim(
      "metadata: {name: second, namespace: default}\n"
      "spec: {devices: {requests: [{name: req-1, exactly: {deviceClassName: "
      "my-resource-class}}]}}");
  const api::Pod second = Decode<api::Pod>(
      "metadata: {name: second, namespace: default, uid: \"5678\"}\n"
      "spec:\n"
      "  resourceClaims: [{name: r, resourceClaimName: second}]\n"
      "  containers: [{name: c}]\n",
      "v1");
  auto first_state = std::move(state_);
  auto first_info = info_;
  ASSERT_TRUE(PreFilter(second).IsSuccess());
  EXPECT_EQ(Filter("worker").Message(), "cannot allocate all claims");
  // Nor can the first pod's claim be taken up by another attempt while it is being allocated.
  EXPECT_EQ(PreFilter(pod).Message(),
            "resource claim default/my-pod-my-resource is in the process of being allocated");

  state_ = std::move(first_state);
  info_ = first_info;
  ASSERT_TRUE(plugin_.PreBind(*state_, *info_, api::Symbol("worker")).IsSuccess());
  ASSERT_EQ(services_.claim_updates.size(), 1u);
  const api::ResourceClaim& written = services_.claim_updates[0];
  EXPECT_EQ(written.metadata.finalizers,
            std::vector<std::string>{"resource.kubernetes.io/delete-protection"});
  ASSERT_TRUE(written.status.allocation);
  EXPECT_EQ(DynamicResources::Describe(*written.status.allocation),
            "req-1: some-driver/worker/instance-1");
  ASSERT_EQ(written.status.reserved_for.size(), 1u);
  EXPECT_EQ(written.status.reserved_for[0],
            (api::ResourceClaimConsumerReference{"", "pods", "my-pod", "1234"}));
}

TEST_F(DynamicResourcesTest, UnreserveLetsTheDevicesGo) {
  AddClass();
  AddSlice();
  AddClaim(PendingClaim());
  const api::Pod pod = PodWithTemplateClaim();
  ASSERT_TRUE(PreFilter(pod).IsSuccess());
  ASSERT_TRUE(Filter("worker").IsSuccess());
  ASSERT_TRUE(plugin_.Reserve(*state_, *info_, api::Symbol("worker")).IsSuccess());
  plugin_.Unreserve(*state_, *info_, api::Symbol("worker"));
  ASSERT_TRUE(PreFilter(pod).IsSuccess());
  EXPECT_TRUE(Filter("worker").IsSuccess());
}

// The devices in use follow the claims' changes (kept from the claim table's journal, or
// rebuilt when the plugin fell too far behind it), and a cycle sees them as they were at its
// PreFilter until its Reserve.
TEST_F(DynamicResourcesTest, DevicesInUseFollowTheClaimsChanges) {
  AddClass();
  AddSlice();
  AddClaim(PendingClaim());
  const std::string holder =
      "metadata: {name: holder, namespace: default}\n"
      "spec: {devices: {requests: [{name: req-1, exactly: {deviceClassName: "
      "my-resource-class}}]}}\n";
  const std::string holding = holder +
                              "status:\n"
                              "  allocation:\n"
                              "    devices: {results: [{request: req-1, driver: some-driver, "
                              "pool: worker, device: instance-1}]}\n";
  const api::Pod pod = PodWithTemplateClaim();
  auto free_on_worker = [&] {
    EXPECT_TRUE(PreFilter(pod).IsSuccess());
    return Filter("worker").IsSuccess();
  };
  AddClaim(holding);
  EXPECT_FALSE(free_on_worker());
  AddClaim(holder);  // deallocated
  EXPECT_TRUE(free_on_worker());
  AddClaim(holding);
  EXPECT_FALSE(free_on_worker());
  ASSERT_TRUE(services_.client().DeleteClaim(Decode<api::ResourceClaim>(holder)).IsSuccess());
  EXPECT_TRUE(free_on_worker());

  // Further behind than the table keeps: rebuilt from every claim.
  AddClaim(holding);
  for (size_t i = 0; i <= 2 * framework::ObjectTable<api::ResourceClaim>::kKeptChanges; ++i) {
    AddClaim(
        fmt::format("metadata: {{name: other, namespace: default, resourceVersion: \"{}\"}}\n"
                    "spec: {{devices: {{requests: [{{name: r, exactly: {{deviceClassName: "
                    "my-resource-class}}}}]}}}}\n",
                    i));
  }
  EXPECT_FALSE(free_on_worker());
  AddClaim(holder);
  EXPECT_TRUE(free_on_worker());

  // A change after PreFilter: this cycle still sees the device free, and finds it again at
  // Reserve; the next cycle sees it held.
  ASSERT_TRUE(PreFilter(pod).IsSuccess());
  AddClaim(holding);
  EXPECT_TRUE(Filter("worker").IsSuccess());
  ASSERT_TRUE(plugin_.Reserve(*state_, *info_, api::Symbol("worker")).IsSuccess());
  plugin_.Unreserve(*state_, *info_, api::Symbol("worker"));
  EXPECT_FALSE(free_on_worker());
}

TEST_F(DynamicResourcesTest, CelRuntimeErrorIsAnError) {
  AddClass();
  AddSlice();
  AddClaim(PendingClaim("[{cel: {expression: 'device.attributes[\"some-driver\"].healthy'}}]"));
  ASSERT_TRUE(PreFilter(PodWithTemplateClaim()).IsSuccess());
  const Status s = Filter("worker");
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(),
            "claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: "
            "healthy");
}

TEST_F(DynamicResourcesTest, AllocatedClaimElsewhereIsDeallocatedByPostFilter) {
  AddClass();
  AddSlice();
  AddClaim(PendingClaim() +
           "status:\n"
           "  allocation:\n"
           "    devices: {results: [{request: req-1, driver: some-driver, pool: worker, "
           "device: instance-1}]}\n"
           "    nodeSelector: {nodeSelectorTerms: [{matchFields: [{key: metadata.name, "
           "operator: In, values: [worker]}]}]}\n");
  ASSERT_TRUE(PreFilter(PodWithTemplateClaim()).IsSuccess());
  EXPECT_TRUE(Filter("worker").IsSuccess());
  const Status other = Filter("other");
  EXPECT_EQ(other.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(other.Message(), "resourceclaim not available on the node");
  const Status post = PostFilter();
  EXPECT_EQ(post.code(), Code::kUnschedulable);
  EXPECT_EQ(post.Message(), "deallocation of ResourceClaim completed");
  ASSERT_EQ(services_.claim_updates.size(), 1u);
  EXPECT_FALSE(services_.claim_updates[0].status.allocation);
}

TEST_F(DynamicResourcesTest, AllocatedClaimIsReservedAtPreBind) {
  AddClass();
  AddSlice();
  AddClaim(PendingClaim() +
           "status:\n"
           "  allocation:\n"
           "    devices: {results: [{request: req-1, driver: some-driver, pool: worker, "
           "device: instance-1}]}\n");
  ASSERT_TRUE(PreFilter(PodWithTemplateClaim()).IsSuccess());
  ASSERT_TRUE(Filter("other").IsSuccess());  // no node selector: every node
  ASSERT_TRUE(plugin_.Reserve(*state_, *info_, api::Symbol("other")).IsSuccess());
  ASSERT_TRUE(plugin_.PreBind(*state_, *info_, api::Symbol("other")).IsSuccess());
  ASSERT_EQ(services_.claim_updates.size(), 1u);
  EXPECT_TRUE(services_.claim_updates[0].metadata.finalizers.empty());
  EXPECT_EQ(services_.claim_updates[0].status.reserved_for.size(), 1u);
}

// Upstream's "resourceclaim in use": a claim reserved for as many consumers as a claim may have
// (256), none of them this pod, keeps it waiting; PreBindPreFlight says PreBind will act for a
// pod with claims (KEP-5278), and nothing for one without.
TEST_F(DynamicResourcesTest, ClaimReservedForTheMostConsumersIsInUse) {
  AddClass();
  AddSlice();
  std::string reserved = "  reservedFor:\n";
  for (size_t i = 0; i < api::kReservedForMaxSize; ++i) {
    reserved += fmt::format("  - {{resource: pods, name: other-{}, uid: other-{}}}\n", i, i);
  }
  AddClaim(PendingClaim() +
           "status:\n"
           "  allocation:\n"
           "    devices: {results: [{request: req-1, driver: some-driver, pool: worker, "
           "device: instance-1}]}\n" +
           reserved);
  const Status s = PreFilter(PodWithTemplateClaim());
  EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(s.Message(), "resourceclaim in use");
}

TEST_F(DynamicResourcesTest, PreBindPreFlightActsForPodsWithClaims) {
  AddClass();
  AddSlice();
  AddClaim(PendingClaim());
  ASSERT_TRUE(PreFilter(PodWithTemplateClaim()).IsSuccess());
  EXPECT_TRUE(plugin_.PreBindPreFlight(*state_, *info_, api::Symbol("worker")).IsSuccess());
  const api::Pod plain = testing::MakePod().Name("plain").Obj();
  EXPECT_EQ(PreFilter(plain).code(), Code::kSkip);
  EXPECT_EQ(plugin_.PreBindPreFlight(*state_, *info_, api::Symbol("worker")).code(), Code::kSkip);
}

}  // namespace
}  // namespace muster::plugins::dynamicresources

namespace muster::plugins::dynamicresources {
namespace {

// Upstream's "timeout" case: a search that outlasts filterTimeout fails the attempt with an
// Error naming the node (1.36), so the pod retries after its backoff. The clock moves 1s each
// time it is read: the deadline is 1s after the start, so the search's first look ends it.
TEST_F(DynamicResourcesTest, FilterTimeoutIsAnErrorNamingTheNode) {
  DynamicResourcesArgs args = DynamicResources::DefaultArgs();
  ASSERT_EQ(args.filter_timeout, std::chrono::seconds(10));
  args.filter_timeout = std::chrono::seconds(1);
  DynamicResources timed(services_.handle(), args);
  auto now = std::chrono::steady_clock::time_point();
  timed.SetMonotonicClockForTest([&now] { return now += std::chrono::seconds(1); });
  AddClass();
  AddSlice();
  AddClaim(PendingClaim());
  info_ = framework::PodInfo::Make(PodWithTemplateClaim());
  state_ = std::make_unique<framework::CycleState>();
  framework::PreFilterResult result;
  ASSERT_TRUE(timed.PreFilter(*state_, *info_, services_.snapshot().List(), &result).IsSuccess());
  const Status s = timed.Filter(*state_, *info_, *services_.snapshot().Get(api::Symbol("worker")));
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_EQ(s.Message(), "node worker: timed out trying to allocate devices");

  // The same search with time enough, or with the limit turned off (0s), finds the device.
  timed.SetMonotonicClockForTest([] { return std::chrono::steady_clock::time_point(); });
  EXPECT_TRUE(
      timed.Filter(*state_, *info_, *services_.snapshot().Get(api::Symbol("worker"))).IsSuccess());
  args.filter_timeout = api::Duration::zero();
  DynamicResources unlimited(services_.handle(), args);
  unlimited.SetMonotonicClockForTest([&now] { return now += std::chrono::hours(1); });
  ASSERT_TRUE(
      unlimited.PreFilter(*state_, *info_, services_.snapshot().List(), &result).IsSuccess());
  EXPECT_TRUE(unlimited.Filter(*state_, *info_, *services_.snapshot().Get(api::Symbol("worker")))
                  .IsSuccess());
}

}  // namespace
}  // namespace muster::plugins::dynamicresources

namespace muster::plugins::dynamicresources {
namespace {

// Binding conditions (KEP-5007, DRADeviceBindingConditions: beta and on in 1.37), after
// upstream's dynamicresources.go: a device reachable from every node that binds to the node it
// is allocated for and waits for its driver's "attached" condition.
constexpr std::string_view kFabricSlice =
    "metadata: {name: fabric}\n"
    "spec:\n"
    "  driver: some-driver\n"
    "  allNodes: true\n"
    "  pool: {name: fabric, generation: 1, resourceSliceCount: 1}\n"
    "  devices: [{name: instance-1, bindsToNode: true, bindingConditions: [attached],\n"
    "             bindingFailureConditions: [failed]}]";

class BindingConditionsTest : public DynamicResourcesTest {
 protected:
  BindingConditionsTest() {
    AddClass();
    services_.AddObject(Decode<api::ResourceSlice>(std::string(kFabricSlice)));
  }

  // Allocates the pod's claim on node `other` up to PreBind, which returns its status.
  Status UpToPreBind() {
    AddClaim(PendingClaim());
    EXPECT_TRUE(PreFilter(PodWithTemplateClaim()).IsSuccess());
    EXPECT_TRUE(Filter("other").IsSuccess());
    EXPECT_TRUE(plugin_.Reserve(*state_, *info_, api::Symbol("other")).IsSuccess());
    return plugin_.PreBind(*state_, *info_, api::Symbol("other"));
  }
  Status Wait(api::Duration waited) {
    return plugin_.PreBindWait(*state_, *info_, api::Symbol("other"), waited);
  }
  // What the device's driver reports: the claim as written, with the condition `type` set.
  void DriverSets(const std::string& type, std::string reason = "", std::string message = "") {
    api::ResourceClaim claim = services_.claim_updates.back();
    claim.metadata.resource_version = std::to_string(services_.claim_updates.size() + 1);
    claim.status.devices = {
        {api::Symbol("some-driver"),
         api::Symbol("fabric"),
         api::Symbol("instance-1"),
         std::nullopt,
         {{api::Symbol(type), api::Symbol("True"), std::move(reason), std::move(message), {}}}}};
    services_.AddObject(claim);
  }
};

TEST_F(BindingConditionsTest, TheBindingWaitsForTheDriversConditions) {
  ASSERT_EQ(UpToPreBind().code(), Code::kWait);
  ASSERT_EQ(services_.claim_updates.size(), 1u);
  const api::AllocationResult& allocation = *services_.claim_updates[0].status.allocation;
  // The conditions are copied into the result; bindsToNode limits the claim to the node; the
  // time of the allocation is written with it.
  EXPECT_EQ(allocation.devices.at(0).binding_conditions, std::vector<std::string>{"attached"});
  EXPECT_EQ(allocation.devices.at(0).binding_failure_conditions,
            std::vector<std::string>{"failed"});
  ASSERT_TRUE(allocation.node_selector);
  EXPECT_TRUE(allocation.node_selector->Matches({}, api::Symbol("other")));
  EXPECT_FALSE(allocation.node_selector->Matches({}, api::Symbol("worker")));
  EXPECT_EQ(allocation.allocation_timestamp, services_.clock().Now());
  ASSERT_EQ(services_.events.size(), 1u);
  EXPECT_EQ(services_.events[0].type, "Normal");
  EXPECT_EQ(services_.events[0].reason, "BindingConditionsPending");
  EXPECT_EQ(services_.events[0].message, "waiting for binding conditions for device on node other");

  EXPECT_EQ(Wait(std::chrono::seconds(0)).code(), Code::kWait);
  DriverSets("unrelated");
  EXPECT_EQ(Wait(std::chrono::seconds(5)).code(), Code::kWait);
  DriverSets("attached");
  EXPECT_TRUE(Wait(std::chrono::seconds(10)).IsSuccess());
}

// A failure condition fails the binding; the claim, unavailable to every node from then on, is
// deallocated by the next attempt's PostFilter, with what the driver reported.
TEST_F(BindingConditionsTest, AFailureConditionFailsTheBindingAndTheClaimIsGivenUp) {
  ASSERT_EQ(UpToPreBind().code(), Code::kWait);
  DriverSets("failed", "AttachFailed", "no free fabric port");
  const Status failed = Wait(std::chrono::seconds(5));
  EXPECT_EQ(failed.code(), Code::kError);
  EXPECT_EQ(failed.Message(),
            "device binding failed: claim=my-pod-my-resource, reason=AttachFailed, "
            "message=\"no free fabric port\"");
  plugin_.Unreserve(*state_, *info_, api::Symbol("other"));

  ASSERT_TRUE(PreFilter(PodWithTemplateClaim()).IsSuccess());
  for (std::string_view node : {"worker", "other"}) {
    const Status s = Filter(node);
    EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_EQ(s.Message(), "resourceclaim not available on the node");
  }
  EXPECT_EQ(PostFilter().Message(), "deallocation of ResourceClaim completed");
  const api::ResourceClaim& given_up = services_.claim_updates.back();
  EXPECT_FALSE(given_up.status.allocation);
  EXPECT_TRUE(given_up.status.devices.empty());
}

// bindingTimeout (600s by default) bounds the wait, and a claim allocated longer ago than that
// whose conditions are not met is given up as one whose binding failed.
TEST_F(BindingConditionsTest, BindingTimeoutEndsTheWait) {
  ASSERT_EQ(UpToPreBind().code(), Code::kWait);
  EXPECT_EQ(Wait(std::chrono::seconds(599)).code(), Code::kWait);
  const Status timed_out = Wait(std::chrono::seconds(600));
  EXPECT_EQ(timed_out.code(), Code::kError);
  EXPECT_EQ(timed_out.Message(), "device binding timeout: context deadline exceeded");
  plugin_.Unreserve(*state_, *info_, api::Symbol("other"));

  // Within the timeout the allocated claim may still be used on its node...
  ASSERT_TRUE(PreFilter(PodWithTemplateClaim()).IsSuccess());
  EXPECT_TRUE(Filter("other").IsSuccess());
  // ...and past it no longer, anywhere.
  services_.virtual_clock().AdvanceTo(services_.clock().Now() + std::chrono::seconds(601));
  ASSERT_TRUE(PreFilter(PodWithTemplateClaim()).IsSuccess());
  EXPECT_EQ(Filter("other").Message(), "resourceclaim not available on the node");
  // A pod that waits on such a claim is told which claim timed out.
  ASSERT_TRUE(plugin_.Reserve(*state_, *info_, api::Symbol("other")).IsSuccess());
  ASSERT_EQ(plugin_.PreBind(*state_, *info_, api::Symbol("other")).code(), Code::kWait);
  EXPECT_EQ(Wait(std::chrono::seconds(0)).Message(),
            "device binding timeout: claim=my-pod-my-resource");
}

// A device that is ready at once is preferred to one that waits, whatever the pools' names;
// with the feature off, devices with binding conditions are not allocated at all.
TEST_F(BindingConditionsTest, DevicesThatNeedNoConditionsComeFirst) {
  services_.AddObject(
      Decode<api::ResourceSlice>("metadata: {name: plain}\n"
                                 "spec:\n"
                                 "  driver: some-driver\n"
                                 "  allNodes: true\n"
                                 "  pool: {name: plain, generation: 1, resourceSliceCount: 1}\n"
                                 "  devices: [{name: instance-2}]"));
  ASSERT_TRUE(UpToPreBind().IsSuccess());
  EXPECT_EQ(DynamicResources::Describe(*services_.claim_updates[0].status.allocation),
            "req-1: some-driver/plain/instance-2");
  EXPECT_TRUE(services_.events.empty());
}

// scheduler_dra_bindingconditions_allocations_total counts each device that waited, and
// ..._wait_duration_seconds each device of the pod's claims, labelled with how the wait ended.
TEST(BindingConditionsMetrics, CountedWhenTheWaitEnds) {
  framework::Metrics metrics;
  FakeServices services(&metrics);
  services.AddNode(MakeNode().Name("other").Obj());
  services.AddObject(Decode<api::DeviceClass>(std::string(kClass)));
  services.AddObject(Decode<api::ResourceSlice>(std::string(kFabricSlice)));
  services.AddObject(Decode<api::ResourceClaim>(PendingClaim()));
  DynamicResources plugin(services.handle());
  const framework::PodInfoPtr info = framework::PodInfo::Make(PodWithTemplateClaim());
  framework::CycleState state;
  framework::PreFilterResult result;
  const api::Symbol other("other");
  ASSERT_TRUE(plugin.PreFilter(state, *info, services.snapshot().List(), &result).IsSuccess());
  ASSERT_TRUE(plugin.Filter(state, *info, *services.snapshot().Get(other)).IsSuccess());
  ASSERT_TRUE(plugin.Reserve(state, *info, other).IsSuccess());
  ASSERT_EQ(plugin.PreBind(state, *info, other).code(), Code::kWait);
  api::ResourceClaim attached = services.claim_updates.back();
  attached.metadata.resource_version = "2";
  attached.status.devices = {{api::Symbol("some-driver"),
                              api::Symbol("fabric"),
                              api::Symbol("instance-1"),
                              std::nullopt,
                              {{api::Symbol("attached"), api::Symbol("True"), "", "", {}}}}};
  services.AddObject(attached);
  ASSERT_TRUE(plugin.PreBindWait(state, *info, other, std::chrono::seconds(7)).IsSuccess());

  const std::string text = metrics.Text();
  const std::string labels = R"(driver="some-driver",profile="default-scheduler",status="success")";
  EXPECT_NE(text.find("scheduler_dra_bindingconditions_allocations_total{" + labels + "} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("scheduler_dra_bindingconditions_wait_duration_seconds_bucket{" + labels +
                      R"(,le="6.4"} 0)"),
            std::string::npos);
  EXPECT_NE(text.find("scheduler_dra_bindingconditions_wait_duration_seconds_bucket{" + labels +
                      R"(,le="12.8"} 1)"),
            std::string::npos);
}

TEST_F(BindingConditionsTest, WithTheFeatureOffSuchDevicesAreNotAllocated) {
  api::FeatureGates gates;
  gates.Set(api::Feature::kDRADeviceBindingConditions, false);
  api::ScopedFeatures scoped(gates);
  DynamicResources off(services_.handle(), DynamicResources::DefaultArgs());
  AddClaim(PendingClaim());
  info_ = framework::PodInfo::Make(PodWithTemplateClaim());
  state_ = std::make_unique<framework::CycleState>();
  framework::PreFilterResult result;
  ASSERT_TRUE(off.PreFilter(*state_, *info_, services_.snapshot().List(), &result).IsSuccess());
  EXPECT_EQ(off.Filter(*state_, *info_, *services_.snapshot().Get(api::Symbol("other"))).Message(),
            "cannot allocate all claims");
}

}  // namespace
}  // namespace muster::plugins::dynamicresources
