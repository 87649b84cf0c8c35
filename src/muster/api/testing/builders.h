#pragma once

// Fluent builders for the objects tests need, after upstream's st.MakePod() wrappers:
//   Pod p = MakePod().Name("web").Namespace("prod").Req({{"cpu", "500m"}}).Obj();

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "muster/api/types.h"

namespace muster::testing {

using ResourcePairs = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// A ResourceList from name/quantity text; aborts the test binary on a malformed quantity.
api::ResourceList MakeResourceList(ResourcePairs pairs);

class PodBuilder {
 public:
  PodBuilder();
  PodBuilder& Name(std::string_view name);
  PodBuilder& Namespace(std::string_view ns);
  PodBuilder& Label(std::string_view key, std::string_view value);
  PodBuilder& Annotation(std::string_view key, std::string_view value);
  // Adds an app container with these requests (limits unset).
  PodBuilder& Req(ResourcePairs requests);
  // Adds an init container; `sidecar` makes it restartable (restartPolicy: Always).
  PodBuilder& InitReq(ResourcePairs requests, bool sidecar = false);
  PodBuilder& Overhead(ResourcePairs overhead);
  // Pod-level requests (spec.resources.requests).
  PodBuilder& PodReq(ResourcePairs requests);
  // What the kubelet reports for container `name` (c0, c1, ... for Req's; init0, init1, ...
  // for InitReq's): allocatedResources and resources.requests; an empty list leaves it absent.
  PodBuilder& ContainerStatus(std::string_view name, ResourcePairs allocated,
                              ResourcePairs actuated);
  // The pod's own: status.allocatedResources and status.resources.requests.
  PodBuilder& PodStatusResources(ResourcePairs allocated, ResourcePairs actuated);
  // A PodResizePending condition with `reason` (Infeasible or Deferred).
  PodBuilder& ResizePending(std::string_view reason);
  PodBuilder& NodeName(std::string_view node);
  PodBuilder& Priority(int32_t priority);
  PodBuilder& PriorityClassName(std::string_view name);
  PodBuilder& SchedulingGate(std::string_view gate);
  PodBuilder& SchedulerName(std::string_view name);
  PodBuilder& Toleration(api::Toleration t);
  PodBuilder& HostPort(int32_t port, api::Protocol protocol = api::Protocol::kTCP,
                       std::string_view host_ip = "");
  PodBuilder& Phase(api::PodPhase phase);
  PodBuilder& PodGroup(std::string_view group);
  // A volume `name` on the claim `claim` (persistentVolumeClaim).
  PodBuilder& Claim(std::string_view name, std::string_view claim);
  // A generic ephemeral volume `name` (its claim: `<pod>-<name>`) of `storage` in `class_name`.
  PodBuilder& Ephemeral(std::string_view name, std::string_view class_name,
                        std::string_view storage = "1Gi");
  // Any volume, as given.
  PodBuilder& Volume(api::Volume volume);
  PodBuilder& Uid(std::string_view uid);

  const api::Pod& Obj() const { return pod_; }

 private:
  api::Pod pod_;
};

inline PodBuilder MakePod() { return PodBuilder(); }

class NodeBuilder {
 public:
  NodeBuilder& Name(std::string_view name);
  NodeBuilder& Label(std::string_view key, std::string_view value);
  // Sets capacity and allocatable.
  NodeBuilder& Capacity(ResourcePairs resources);
  NodeBuilder& Taint(std::string_view key, std::string_view value, api::TaintEffect effect);
  NodeBuilder& Unschedulable(bool unschedulable = true);
  NodeBuilder& Image(std::string_view name, int64_t size_bytes);

  const api::Node& Obj() const { return node_; }

 private:
  api::Node node_;
};

inline NodeBuilder MakeNode() { return NodeBuilder(); }

// A PodGroup in the default namespace (its pods: MakePod().PodGroup(name)).
api::PodGroup MakePodGroup(std::string_view name, int32_t min_member);

// A claim in the default namespace asking for `storage` (ReadWriteOnce) of class `class_name`
// ("" names none).
class ClaimBuilder {
 public:
  ClaimBuilder(std::string_view name, std::string_view class_name, std::string_view storage);
  ClaimBuilder& Namespace(std::string_view ns);
  ClaimBuilder& Modes(std::initializer_list<api::AccessMode> modes);
  // Bound to `volume` by the PV controller (volumeName, bind-completed, phase Bound).
  ClaimBuilder& BoundTo(std::string_view volume);
  // Pre-bound to `volume` (volumeName only).
  ClaimBuilder& VolumeName(std::string_view volume);
  ClaimBuilder& SelectedNode(std::string_view node);
  ClaimBuilder& Phase(api::ClaimPhase phase);
  ClaimBuilder& OwnedBy(const api::Pod& pod);
  ClaimBuilder& Uid(std::string_view uid);
  const api::PersistentVolumeClaim& Obj() const { return claim_; }

 private:
  api::PersistentVolumeClaim claim_;
};
inline ClaimBuilder MakeClaim(std::string_view name, std::string_view class_name,
                              std::string_view storage = "1Gi") {
  return ClaimBuilder(name, class_name, storage);
}

// An Available CSI volume of `capacity` (ReadWriteOnce) in class `class_name`.
class VolumeBuilder {
 public:
  VolumeBuilder(std::string_view name, std::string_view class_name, std::string_view capacity);
  VolumeBuilder& Label(std::string_view key, std::string_view value);
  VolumeBuilder& Modes(std::initializer_list<api::AccessMode> modes);
  // Node affinity: one term requiring `key` In `values`.
  VolumeBuilder& NodeAffinity(std::string_view key, std::initializer_list<std::string_view> values);
  // Bound (or pre-bound, `phase` Available) to the claim default/`claim`.
  VolumeBuilder& ClaimRef(std::string_view claim, std::string_view ns = "default");
  VolumeBuilder& Phase(api::VolumePhase phase);
  VolumeBuilder& CSI(std::string_view driver, std::string_view handle);
  VolumeBuilder& Source(api::VolumeSource source);
  const api::PersistentVolume& Obj() const { return pv_; }

 private:
  api::PersistentVolume pv_;
};
inline VolumeBuilder MakeVolume(std::string_view name, std::string_view class_name,
                                std::string_view capacity = "1Gi") {
  return VolumeBuilder(name, class_name, capacity);
}

// A StorageClass with `provisioner` and binding mode.
api::StorageClass MakeStorageClass(
    std::string_view name, std::string_view provisioner,
    api::VolumeBindingMode mode = api::VolumeBindingMode::kImmediate);

}  // namespace muster::testing
