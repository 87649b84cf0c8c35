#pragma once

// Dynamic Resource Allocation, resource.k8s.io/v1 (Kubernetes 1.34 and later): drivers publish
// devices in ResourceSlices, DeviceClasses select them with CEL, pods ask for them through
// ResourceClaims (made from ResourceClaimTemplates per pod), and the scheduler allocates devices
// to a claim while it places the pod. The fields here are the ones the scheduler reads and
// writes; the API server's defaults are applied by the decoder (objects_resource.cc).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/device_values.h"
#include "muster/api/intern.h"
#include "muster/api/node_selector.h"
#include "muster/api/taints.h"
#include "muster/api/time.h"
#include "muster/api/types.h"

namespace muster::api {

namespace cel {
class Program;
}

// The finalizer the scheduler puts on a claim it allocates, so that the claim is not deleted
// while devices are allocated to it.
inline constexpr std::string_view kClaimFinalizer = "resource.kubernetes.io/delete-protection";
// The annotation the resource claim controller puts on the claims it makes from templates: the
// name of the pod's claim (spec.resourceClaims[].name) it made the claim for.
inline constexpr std::string_view kPodClaimNameAnnotation = "resource.kubernetes.io/pod-claim-name";
// Extended resources served by devices (DRAExtendedResource, GA in 1.37): a pod asks for
// `example.com/gpu: 1` in a container's requests, on a node whose allocatable has none of it, and
// the scheduler makes the pod a claim for a device of the class that names the resource, with
// this annotation ("true") and the pod as its controlling owner. Every class is also named by
// this prefix and its own name.
inline constexpr std::string_view kExtendedResourceClaimAnnotation =
    "resource.kubernetes.io/extended-resource-claim";
inline constexpr std::string_view kDeviceClassResourcePrefix =
    "deviceclass.resource.kubernetes.io/";
// The name of that claim until the scheduler creates it (upstream's, not a valid name: no
// stored claim has it).
inline constexpr std::string_view kExtendedClaimInMemoryName = "<extended-resources>";
// How many consumers a claim may be reserved for (status.reservedFor).
inline constexpr size_t kReservedForMaxSize = 256;

// A CEL selector (selectors[].cel.expression), compiled once when the object is read. A
// selector that did not compile (an expression the API server took and muster's CEL does not,
// or one read from a cluster without validation) has `error` and no program: it fails every
// allocation that reaches it, with that message.
struct DeviceSelector {
  std::string expression;
  std::shared_ptr<const cel::Program> program;
  std::string error;
};

// Opaque configuration for a driver (its parameters as written, JSON or YAML text): the
// scheduler passes it on to the allocation result and never reads it.
struct OpaqueDeviceConfiguration {
  Symbol driver;
  std::string parameters;
};

struct DeviceClass {
  ObjectMeta metadata;
  struct Spec {
    std::vector<DeviceSelector> selectors;
    std::vector<OpaqueDeviceConfiguration> config;
    // A resource name pods may request in their containers' resources to get a device of this
    // class (DRAExtendedResource); empty when unset.
    std::string extended_resource_name;
  } spec;
};

// ---- ResourceSlice ----

// counters[name] = value, in a counter set or consumed from one.
struct Counter {
  Symbol name;
  Quantity value;
};

struct CounterSet {
  Symbol name;
  std::vector<Counter> counters;
};

struct DeviceCounterConsumption {
  Symbol counter_set;
  std::vector<Counter> counters;
};

enum class DeviceTaintEffect { kNoSchedule, kNoExecute, kNone };
std::string_view DeviceTaintEffectName(DeviceTaintEffect e);

struct DeviceTaint {
  std::string key;
  std::string value;
  DeviceTaintEffect effect = DeviceTaintEffect::kNoSchedule;
  std::optional<Time> time_added;
};

// Which nodes may reach a device or a slice's devices: one node, the nodes a selector picks, or
// every node.
struct DeviceNodes {
  Symbol node_name;
  std::optional<NodeSelector> node_selector;
  bool all_nodes = false;

  // Whether a node with `labels` and `name` reaches them.
  bool Reaches(const LabelSet& labels, Symbol name) const {
    if (!node_name.empty()) return node_name == name;
    if (node_selector) return node_selector->Matches(labels, name);
    return all_nodes;
  }
};

struct Device {
  Symbol name;
  // Sorted by (domain, name): each qualified name once.
  std::vector<DeviceAttribute> attributes;
  std::vector<DeviceCapacity> capacity;
  std::vector<DeviceCounterConsumption> consumes_counters;
  // Set when the slice has perDeviceNodeSelection: true; otherwise the slice's nodes.
  std::optional<DeviceNodes> nodes;
  std::vector<DeviceTaint> taints;
  // Binding conditions (KEP-5007, DRADeviceBindingConditions): the condition types that must
  // all be True in the claim's status.devices entry for the device before a pod using it is
  // bound, and those of which any True means the binding failed. Both empty or both given.
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;
  // Allocating the device limits the claim to the node it was allocated for.
  bool binds_to_node = false;
};

struct ResourceSlice {
  ObjectMeta metadata;
  struct Spec {
    Symbol driver;
    struct Pool {
      Symbol name;
      int64_t generation = 0;
      int64_t resource_slice_count = 0;
    } pool;
    // The slice's nodes; unset (all empty) with perDeviceNodeSelection, where each device says.
    DeviceNodes nodes;
    bool per_device_node_selection = false;
    std::vector<Device> devices;
    std::vector<CounterSet> shared_counters;
  } spec;

  // The view CEL's `device` is of the device at `i`.
  DeviceView View(size_t i) const {
    const Device& d = spec.devices[i];
    return DeviceView{spec.driver.str(), d.attributes, d.capacity, false};
  }
};

// ---- ResourceClaim ----

enum class DeviceAllocationMode { kExactCount, kAll };
std::string_view DeviceAllocationModeName(DeviceAllocationMode m);

enum class DeviceTolerationOperator { kEqual, kExists };

struct DeviceToleration {
  std::string key;
  DeviceTolerationOperator op = DeviceTolerationOperator::kEqual;
  std::string value;
  std::optional<DeviceTaintEffect> effect;  // nullopt: every effect
  std::optional<int64_t> toleration_seconds;

  bool Tolerates(const DeviceTaint& taint) const;
};

// What an exact request and a subrequest of firstAvailable ask: `count` devices (or all) of a
// class that the selectors pick.
struct DeviceRequestSpec {
  Symbol device_class_name;
  std::vector<DeviceSelector> selectors;
  DeviceAllocationMode allocation_mode = DeviceAllocationMode::kExactCount;
  int64_t count = 1;
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
};

struct DeviceSubRequest {
  Symbol name;
  DeviceRequestSpec spec;
};

struct DeviceRequest {
  Symbol name;
  // One of: `exactly` set, or `first_available` non-empty (tried in order, the first that can be
  // allocated wins).
  std::optional<DeviceRequestSpec> exactly;
  std::vector<DeviceSubRequest> first_available;
};

// A constraint over the devices of some requests (all when `requests` is empty): the attribute
// `match_attribute` has one value on all of them.
struct DeviceConstraint {
  std::vector<Symbol> requests;
  // The qualified attribute name, split ("gpu.example.com", "model").
  Symbol domain;
  Symbol attribute;
};

// A configuration from the claim (spec.devices.config) or the class, for some requests (all when
// empty).
struct DeviceClaimConfiguration {
  std::vector<Symbol> requests;
  OpaqueDeviceConfiguration opaque;
};

struct ResourceClaimSpec {
  std::vector<DeviceRequest> requests;
  std::vector<DeviceConstraint> constraints;
  std::vector<DeviceClaimConfiguration> config;
};

// A device as reports and messages name it, across drivers and pools: "driver/pool/device".
std::string DeviceName(std::string_view driver, std::string_view pool, std::string_view device);

// One device allocated for a request ("<request>" or "<request>/<subrequest>").
struct DeviceRequestAllocationResult {
  std::string request;
  Symbol driver;
  Symbol pool;
  Symbol device;
  bool admin_access = false;
  std::vector<DeviceToleration> tolerations;
  // The device's, copied at allocation (DRADeviceBindingConditions).
  std::vector<std::string> binding_conditions;
  std::vector<std::string> binding_failure_conditions;

  // The device's name, "driver/pool/device".
  std::string DeviceName() const;
};

struct DeviceAllocationConfiguration {
  bool from_class = false;  // source FromClass, else FromClaim
  std::vector<Symbol> requests;
  OpaqueDeviceConfiguration opaque;
};

struct AllocationResult {
  std::vector<DeviceRequestAllocationResult> devices;
  std::vector<DeviceAllocationConfiguration> config;
  // The nodes that reach every allocated device; nullopt when every node does.
  std::optional<NodeSelector> node_selector;
  std::optional<Time> allocation_timestamp;
};

// A consumer a claim is reserved for: a pod (resource "pods", apiGroup "") in practice.
struct ResourceClaimConsumerReference {
  std::string api_group;
  std::string resource = "pods";
  std::string name;
  std::string uid;

  friend bool operator==(const ResourceClaimConsumerReference&,
                         const ResourceClaimConsumerReference&) = default;
};

// An allocated device's status, written by its driver (status.devices[]): what muster reads of
// it is the conditions that binding conditions name.
struct AllocatedDeviceStatus {
  Symbol driver;
  Symbol pool;
  Symbol device;
  std::optional<std::string> share_id;
  std::vector<Condition> conditions;  // as its driver reports them
};

struct ResourceClaim {
  ObjectMeta metadata;
  ResourceClaimSpec spec;
  struct Status {
    std::optional<AllocationResult> allocation;
    std::vector<ResourceClaimConsumerReference> reserved_for;
    std::vector<AllocatedDeviceStatus> devices;
  } status;

  bool Allocated() const { return status.allocation.has_value(); }
  bool ReservedFor(std::string_view pod_uid) const;
};

struct ResourceClaimTemplate {
  ObjectMeta metadata;
  struct Spec {
    ObjectMeta metadata;  // the labels and annotations of the claims made from it
    ResourceClaimSpec spec;
  } spec;
};

}  // namespace muster::api
