#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/cel/cel.h"
#include "muster/api/feature_gates.h"
#include "muster/api/manifests.h"
#include "muster/api/testing/decode.h"

// The resource.k8s.io/v1 kinds' decoders and a pod's claims: defaults, and the API server's
// validation with its messages.

namespace muster::api {
namespace {

using testing::Decode;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(ResourceDecodeTest, AClassASliceAClaimAndATemplate) {
  const LoadResult r = Decode(R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  config: [{opaque: {driver: gpu.example.com, parameters: {sharing: {strategy: TimeSlicing}}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, generation: 3, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      model: {string: A100}
      gpu.example.com/index: {int: 0}
      other.example.com/healthy: {bool: true}
      driverVersion: {version: 1.2.3-rc.1}
    capacity: {memory: {value: 40Gi}}
    taints: [{key: maintenance, effect: NoSchedule}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: pair}
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: gpu.example.com, count: 2}
    - name: nic
      firstAvailable:
      - {name: fast, deviceClassName: nic.example.com, allocationMode: All}
      - {name: slow, deviceClassName: nic.example.com}
    constraints: [{requests: [gpus], matchAttribute: gpu.example.com/model}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu}
spec:
  metadata: {labels: {team: ml}}
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
)",
                              "r.yaml");
  ASSERT_THAT(r.errors, IsEmpty());
  const Manifests& m = r.manifests;
  ASSERT_EQ(m.device_classes.size(), 1u);
  const DeviceClass& cls = m.device_classes[0];
  ASSERT_EQ(cls.spec.selectors.size(), 1u);
  EXPECT_NE(cls.spec.selectors[0].program, nullptr);
  EXPECT_EQ(cls.spec.config.at(0).parameters, R"({"sharing":{"strategy":"TimeSlicing"}})");

  const ResourceSlice& slice = m.resource_slices.at(0);
  EXPECT_EQ(slice.spec.pool.generation, 3);
  EXPECT_EQ(slice.spec.nodes.node_name, Symbol("node-1"));
  const Device& d = slice.spec.devices.at(0);
  // Sorted by domain then name; a name without a domain is the driver's.
  std::vector<std::string> names;
  for (const DeviceAttribute& a : d.attributes) {
    names.push_back(a.domain.string() + "/" + a.name.string());
  }
  EXPECT_THAT(names, ElementsAre("gpu.example.com/driverVersion", "gpu.example.com/index",
                                 "gpu.example.com/model", "other.example.com/healthy"));
  EXPECT_EQ(std::get<SemVer>(d.attributes[0].value).pre_release,
            (std::vector<std::string>{"rc", "1"}));
  EXPECT_EQ(d.capacity.at(0).value, *Quantity::Parse("40Gi"));
  EXPECT_EQ(d.taints.at(0).effect, DeviceTaintEffect::kNoSchedule);

  const ResourceClaim& claim = m.resource_claims.at(0);
  ASSERT_EQ(claim.spec.requests.size(), 2u);
  EXPECT_EQ(claim.spec.requests[0].exactly->count, 2);
  EXPECT_EQ(claim.spec.requests[0].exactly->allocation_mode, DeviceAllocationMode::kExactCount);
  EXPECT_EQ(claim.spec.requests[1].first_available.at(0).spec.allocation_mode,
            DeviceAllocationMode::kAll);
  EXPECT_EQ(claim.spec.requests[1].first_available.at(1).spec.count, 1);  // defaulted
  EXPECT_EQ(claim.spec.constraints.at(0).domain, Symbol("gpu.example.com"));
  EXPECT_EQ(claim.spec.constraints.at(0).attribute, Symbol("model"));
  EXPECT_FALSE(claim.Allocated());

  const Symbol* team = m.resource_claim_templates.at(0).spec.metadata.labels.Get(Symbol("team"));
  ASSERT_NE(team, nullptr);
  EXPECT_EQ(*team, Symbol("ml"));
}

TEST(ResourceDecodeTest, RefusesWhatTheApiServerRefuses) {
  const LoadResult r = Decode(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: bad}
spec:
  devices:
    requests:
    - name: gpus
      exactly: {deviceClassName: gpu.example.com, count: 0}
    - name: gpus
      exactly: {deviceClassName: gpu.example.com, allocationMode: All, count: 2}
    - name: both
      exactly: {deviceClassName: gpu.example.com}
      firstAvailable: [{name: a, deviceClassName: gpu.example.com}]
    - name: neither
    constraints:
    - {requests: [nosuch], matchAttribute: model}
)",
                              "r.yaml");
  EXPECT_THAT(
      r.errors,
      ElementsAre(
          "r.yaml: document 1 (ResourceClaim default/bad): spec.devices.requests[0].exactly.count: "
          "Invalid value: 0: must be greater than zero",
          "r.yaml: document 1 (ResourceClaim default/bad): spec.devices.requests[1].name: "
          "Duplicate value: \"gpus\"",
          "r.yaml: document 1 (ResourceClaim default/bad): spec.devices.requests[1].exactly.count: "
          "Invalid value: 2: must not be specified when allocationMode is 'All'",
          "r.yaml: document 1 (ResourceClaim default/bad): spec.devices.requests[2]: Invalid "
          "value: exactly one of `exactly` or `firstAvailable` is required, but multiple fields "
          "are set",
          "r.yaml: document 1 (ResourceClaim default/bad): spec.devices.requests[3]: Required "
          "value: exactly one of `exactly` or `firstAvailable` is required",
          "r.yaml: document 1 (ResourceClaim default/bad): "
          "spec.devices.constraints[0].requests[0]: "
          "Invalid value: \"nosuch\": must be the name of a request in the claim or the name of a "
          "request and a subrequest separated by '/'",
          "r.yaml: document 1 (ResourceClaim default/bad): spec.devices.constraints[0]."
          "matchAttribute: Invalid value: \"model\": a fully qualified name must be a domain and a "
          "name separated by a slash"));
}

TEST(ResourceDecodeTest, ASelectorThatDoesNotCompileIsAnErrorNamingItsField) {
  const LoadResult r = Decode(R"(
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: typo}
spec:
  selectors: [{cel: {expression: 'device.drivr == "x"'}}]
)",
                              "r.yaml");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_THAT(r.errors[0], HasSubstr("(DeviceClass typo): spec.selectors[0].cel.expression: "
                                     "Invalid value: \"device.drivr == \\\"x\\\"\": "));
  EXPECT_THAT(r.errors[0], HasSubstr("undefined field 'drivr'"));
}

TEST(ResourceDecodeTest, SliceNodesAndAttributes) {
  const LoadResult r = Decode(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 0}
  nodeName: node-1
  allNodes: true
  devices:
  - name: gpu-0
    attributes:
      a: {int: 1, string: x}
      b: {version: "01.2.3"}
      bad-name: {bool: true}
)",
                              "r.yaml");
  EXPECT_THAT(
      r.errors,
      ElementsAre(
          "r.yaml: document 1 (ResourceSlice s): spec.pool.resourceSliceCount: Invalid value: 0: "
          "must be greater than zero",
          "r.yaml: document 1 (ResourceSlice s): spec: Invalid value: exactly one of `nodeName`, "
          "`nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields "
          "are set",
          "r.yaml: document 1 (ResourceSlice s): spec.devices[0].attributes.a: Invalid value: "
          "exactly one value must be specified",
          "r.yaml: document 1 (ResourceSlice s): spec.devices[0].attributes.b.version: Invalid "
          "value: \"01.2.3\": must be a string compatible with semver.org spec 2.0.0",
          "r.yaml: document 1 (ResourceSlice s): spec.devices[0].attributes.bad-name: Invalid "
          "value: \"bad-name\": a valid C identifier must start with alphabetic character or '_', "
          "followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or "
          "'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')"));
}

// Binding conditions (KEP-5007, DRADeviceBindingConditions, on in 1.37): read, and validated as
// the API server's validateDeviceBindingParameters does.
TEST(ResourceDecodeTest, DevicesBindingConditions) {
  const LoadResult ok = Decode(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: fabric.example.com
  pool: {name: p, resourceSliceCount: 1}
  allNodes: true
  devices:
  - name: gpu-0
    bindsToNode: true
    bindingConditions: [fabric.example.com/attached, Ready]
    bindingFailureConditions: [fabric.example.com/failed]
)",
                               "r.yaml");
  ASSERT_THAT(ok.errors, IsEmpty());
  const Device& device = ok.manifests.resource_slices.at(0).spec.devices.at(0);
  EXPECT_TRUE(device.binds_to_node);
  EXPECT_THAT(device.binding_conditions, ElementsAre("fabric.example.com/attached", "Ready"));
  EXPECT_THAT(device.binding_failure_conditions, ElementsAre("fabric.example.com/failed"));

  const LoadResult bad = Decode(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: fabric.example.com
  pool: {name: p, resourceSliceCount: 1}
  allNodes: true
  devices:
  - name: too-many
    bindingConditions: [a, b, c, d, e]
    bindingFailureConditions: [f]
  - name: overlap
    bindingConditions: [a, a]
    bindingFailureConditions: [a, "bad name"]
  - name: alone
    bindingFailureConditions: [f]
  - name: without-failures
    bindingConditions: [a]
)",
                                "r.yaml");
  const std::string at = "r.yaml: document 1 (ResourceSlice s): spec.devices";
  EXPECT_THAT(
      bad.errors,
      ElementsAre(
          at + "[0].bindingConditions: Too many: 5: must have at most 4 items",
          at + "[1].bindingConditions[1]: Duplicate value: \"a\"",
          at + "[1].bindingFailureConditions[1]: Invalid value: \"bad name\": name part must "
               "consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
               "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
               "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
          at + "[1].bindingFailureConditions[0]: Invalid value: \"a\": bindingFailureConditions "
               "must not overlap with bindingConditions",
          at + "[2].bindingConditions: Invalid value: null: bindingConditions are required to use "
               "bindingFailureConditions",
          at + "[3].bindingFailureConditions: Invalid value: null: bindingFailureConditions are "
               "required to use bindingConditions"));
}

// With the gate off the API server drops the fields: muster says so and drops them too.
TEST(ResourceDecodeTest, BindingConditionsAreDroppedWithTheirGateOff) {
  FeatureGates gates;
  gates.Set(Feature::kDRADeviceBindingConditions, false);
  ScopedFeatures scoped(gates);
  const LoadResult r = Decode(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: fabric.example.com
  pool: {name: p, resourceSliceCount: 1}
  allNodes: true
  devices:
  - name: gpu-0
    bindingConditions: [attached]
    bindingFailureConditions: [failed]
)",
                              "r.yaml");
  EXPECT_THAT(r.errors, IsEmpty());
  EXPECT_THAT(r.warnings,
              ElementsAre(HasSubstr("spec.devices[0].bindingConditions: dropped, as the API server "
                                    "drops it while the DRADeviceBindingConditions feature gate "
                                    "is off"),
                          HasSubstr("spec.devices[0].bindingFailureConditions: dropped")));
  EXPECT_THAT(r.manifests.resource_slices.at(0).spec.devices.at(0).binding_conditions, IsEmpty());
}

// What drivers report of allocated devices, and the conditions copied into the allocation.
TEST(ResourceDecodeTest, AClaimsDeviceStatus) {
  const LoadResult r = Decode(R"(
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
status:
  allocation:
    allocationTimestamp: "2026-11-29T10:00:00Z"
    devices:
      results:
      - {request: gpu, driver: fabric.example.com, pool: p, device: gpu-0,
         bindingConditions: [attached], bindingFailureConditions: [failed]}
  devices:
  - driver: fabric.example.com
    pool: p
    device: gpu-0
    conditions:
    - {type: attached, status: "True", reason: Attached, message: done,
       lastTransitionTime: "2026-11-29T10:00:05Z"}
)",
                              "r.yaml");
  ASSERT_THAT(r.errors, IsEmpty());
  const ResourceClaim& claim = r.manifests.resource_claims.at(0);
  const DeviceRequestAllocationResult& result = claim.status.allocation->devices.at(0);
  EXPECT_THAT(result.binding_conditions, ElementsAre("attached"));
  EXPECT_THAT(result.binding_failure_conditions, ElementsAre("failed"));
  EXPECT_EQ(claim.status.allocation->allocation_timestamp, ParseTime("2026-11-29T10:00:00Z"));
  ASSERT_EQ(claim.status.devices.size(), 1u);
  const Condition* attached = FindCondition(claim.status.devices[0].conditions, "attached");
  ASSERT_NE(attached, nullptr);
  EXPECT_EQ(attached->status.str(), "True");
  EXPECT_EQ(attached->reason, "Attached");
  EXPECT_EQ(FindCondition(claim.status.devices[0].conditions, "failed"), nullptr);
}

TEST(ResourceDecodeTest, APodsClaims) {
  const LoadResult ok = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: one-gpu}
  - {name: shared, resourceClaimName: shared-gpu}
  containers:
  - name: c
    resources: {claims: [{name: gpu}, {name: shared, request: gpus}]}
status:
  resourceClaimStatuses: [{name: gpu, resourceClaimName: p-gpu-x7k2q}]
)",
                               "r.yaml");
  ASSERT_THAT(ok.errors, IsEmpty());
  const Pod& pod = ok.manifests.pods.at(0);
  ASSERT_EQ(pod.spec.resource_claims.size(), 2u);
  EXPECT_EQ(pod.spec.resource_claims[0].resource_claim_template_name, Symbol("one-gpu"));
  EXPECT_EQ(pod.spec.containers[0].resources.claims.at(1).request, Symbol("gpus"));
  EXPECT_EQ(pod.status.resource_claim_statuses.at(0).resource_claim_name, Symbol("p-gpu-x7k2q"));

  const LoadResult bad = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  resourceClaims:
  - {name: gpu}
  - {name: gpu, resourceClaimName: a, resourceClaimTemplateName: b}
  containers:
  - {name: c, resources: {claims: [{name: nosuch}]}}
)",
                                "r.yaml");
  EXPECT_THAT(
      bad.errors,
      ElementsAre(
          "r.yaml: document 1 (Pod default/p): spec.resourceClaims[0]: Required value: must "
          "specify one of: `resourceClaimName`, `resourceClaimTemplateName`",
          "r.yaml: document 1 (Pod default/p): spec.resourceClaims[1].name: Duplicate value: "
          "\"gpu\"",
          "r.yaml: document 1 (Pod default/p): spec.resourceClaims[1]: Invalid value: at most one "
          "of `resourceClaimName` or `resourceClaimTemplateName` may be specified",
          "r.yaml: document 1 (Pod default/p): spec.containers[0].resources.claims[0]: Not found: "
          "\"nosuch\": must be one of the names in pod.spec.resourceClaims: gpu"));
}

}  // namespace
}  // namespace muster::api
