#include "muster/api/testing/builders.h"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace muster::testing {

api::ResourceList MakeResourceList(ResourcePairs pairs) {
  api::ResourceList list;
  for (const auto& [name, text] : pairs) {
    std::optional<api::Quantity> q = api::Quantity::Parse(text);
    if (!q) {
      std::fprintf(stderr, "test builder: bad quantity %.*s\n", static_cast<int>(text.size()),
                   text.data());
      std::abort();
    }
    list.Set(name, *q);
  }
  return list;
}

PodBuilder::PodBuilder() { pod_.metadata.namespace_ = api::Symbol(api::kDefaultNamespace); }

PodBuilder& PodBuilder::Name(std::string_view name) {
  pod_.metadata.name = std::string(name);
  pod_.metadata.uid = std::string(name);
  return *this;
}

PodBuilder& PodBuilder::Namespace(std::string_view ns) {
  pod_.metadata.namespace_ = api::Symbol(ns);
  return *this;
}

PodBuilder& PodBuilder::Label(std::string_view key, std::string_view value) {
  pod_.metadata.labels.Set(api::Symbol(key), api::Symbol(value));
  return *this;
}

PodBuilder& PodBuilder::Annotation(std::string_view key, std::string_view value) {
  pod_.metadata.annotations[std::string(key)] = std::string(value);
  return *this;
}

PodBuilder& PodBuilder::Req(ResourcePairs requests) {
  api::Container c;
  c.name = fmt::format("c{}", pod_.spec.containers.size());
  c.resources.requests = MakeResourceList(requests);
  pod_.spec.containers.push_back(std::move(c));
  return *this;
}

PodBuilder& PodBuilder::InitReq(ResourcePairs requests, bool sidecar) {
  api::Container c;
  c.name = fmt::format("init{}", pod_.spec.init_containers.size());
  c.resources.requests = MakeResourceList(requests);
  c.restart_policy_always = sidecar;
  pod_.spec.init_containers.push_back(std::move(c));
  return *this;
}

PodBuilder& PodBuilder::Overhead(ResourcePairs overhead) {
  pod_.spec.overhead = MakeResourceList(overhead);
  return *this;
}

PodBuilder& PodBuilder::PodReq(ResourcePairs requests) {
  auto level = std::make_shared<api::PodLevelResources>();
  level->requests = MakeResourceList(requests);
  pod_.spec.resources = std::move(level);
  return *this;
}

namespace {

api::ResourcesStatus MakeResourcesStatus(ResourcePairs allocated, ResourcePairs actuated) {
  api::ResourcesStatus status;
  if (allocated.size() != 0) status.allocated = MakeResourceList(allocated);
  if (actuated.size() != 0) status.actuated = MakeResourceList(actuated);
  return status;
}

std::shared_ptr<api::PodResourcesStatus> MutableResources(api::Pod& pod) {
  auto status = pod.status.resources
                    ? std::make_shared<api::PodResourcesStatus>(*pod.status.resources)
                    : std::make_shared<api::PodResourcesStatus>();
  pod.status.resources = status;
  return status;
}

}  // namespace

PodBuilder& PodBuilder::ContainerStatus(std::string_view name, ResourcePairs allocated,
                                        ResourcePairs actuated) {
  MutableResources(pod_)->containers.push_back(
      {std::string(name), MakeResourcesStatus(allocated, actuated)});
  return *this;
}

PodBuilder& PodBuilder::PodStatusResources(ResourcePairs allocated, ResourcePairs actuated) {
  MutableResources(pod_)->pod = MakeResourcesStatus(allocated, actuated);
  return *this;
}

PodBuilder& PodBuilder::ResizePending(std::string_view reason) {
  pod_.status.conditions.push_back({.type = api::Symbol("PodResizePending"),
                                    .status = api::Symbol("True"),
                                    .reason = std::string(reason)});
  return *this;
}

PodBuilder& PodBuilder::NodeName(std::string_view node) {
  pod_.spec.node_name = api::Symbol(node);
  return *this;
}

PodBuilder& PodBuilder::Priority(int32_t priority) {
  pod_.spec.priority = priority;
  return *this;
}

PodBuilder& PodBuilder::PriorityClassName(std::string_view name) {
  pod_.spec.priority_class_name = api::Symbol(name);
  return *this;
}

PodBuilder& PodBuilder::SchedulingGate(std::string_view gate) {
  pod_.spec.scheduling_gates.emplace_back(gate);
  return *this;
}

PodBuilder& PodBuilder::SchedulerName(std::string_view name) {
  pod_.spec.scheduler_name = api::Symbol(name);
  return *this;
}

PodBuilder& PodBuilder::Toleration(api::Toleration t) {
  pod_.spec.tolerations.push_back(std::move(t));
  return *this;
}

PodBuilder& PodBuilder::HostPort(int32_t port, api::Protocol protocol, std::string_view host_ip) {
  if (pod_.spec.containers.empty()) Req({});
  api::ContainerPort p;
  p.container_port = port;
  p.host_port = port;
  p.protocol = protocol;
  p.host_ip = api::Symbol(host_ip);
  pod_.spec.containers.back().ports.push_back(p);
  return *this;
}

PodBuilder& PodBuilder::Phase(api::PodPhase phase) {
  pod_.status.phase = phase;
  return *this;
}

PodBuilder& PodBuilder::PodGroup(std::string_view group) {
  return Label(api::kPodGroupLabel, group);
}

PodBuilder& PodBuilder::Claim(std::string_view name, std::string_view claim) {
  api::Volume v;
  v.name = std::string(name);
  v.claim_name = api::Symbol(claim);
  v.source.kind = "persistentVolumeClaim";
  return Volume(std::move(v));
}

PodBuilder& PodBuilder::Ephemeral(std::string_view name, std::string_view class_name,
                                  std::string_view storage) {
  api::Volume v;
  v.name = std::string(name);
  v.source.kind = "ephemeral";
  api::EphemeralVolumeSource e;
  e.spec = MakeClaim("", class_name, storage).Obj().spec;
  v.ephemeral = std::move(e);
  return Volume(std::move(v));
}

PodBuilder& PodBuilder::Volume(api::Volume volume) {
  pod_.spec.volumes.push_back(std::move(volume));
  return *this;
}

PodBuilder& PodBuilder::Uid(std::string_view uid) {
  pod_.metadata.uid = std::string(uid);
  return *this;
}

NodeBuilder& NodeBuilder::Name(std::string_view name) {
  node_.metadata.name = std::string(name);
  node_.metadata.uid = std::string(name);
  return *this;
}

NodeBuilder& NodeBuilder::Label(std::string_view key, std::string_view value) {
  node_.metadata.labels.Set(api::Symbol(key), api::Symbol(value));
  return *this;
}

NodeBuilder& NodeBuilder::Capacity(ResourcePairs resources) {
  node_.status.capacity = MakeResourceList(resources);
  node_.status.allocatable = node_.status.capacity;
  return *this;
}

NodeBuilder& NodeBuilder::Taint(std::string_view key, std::string_view value,
                                api::TaintEffect effect) {
  node_.spec.taints.push_back(api::Taint{api::Symbol(key), api::Symbol(value), effect});
  return *this;
}

NodeBuilder& NodeBuilder::Unschedulable(bool unschedulable) {
  node_.spec.unschedulable = unschedulable;
  return *this;
}

NodeBuilder& NodeBuilder::Image(std::string_view name, int64_t size_bytes) {
  node_.status.images.push_back(api::ContainerImage{{std::string(name)}, size_bytes});
  return *this;
}

api::PodGroup MakePodGroup(std::string_view name, int32_t min_member) {
  api::PodGroup group;
  group.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
  group.metadata.name = std::string(name);
  group.spec.min_member = min_member;
  return group;
}

namespace {

api::Quantity MustParse(std::string_view text) {
  std::optional<api::Quantity> q = api::Quantity::Parse(text);
  if (!q) {
    std::fprintf(stderr, "test builder: bad quantity %.*s\n", static_cast<int>(text.size()),
                 text.data());
    std::abort();
  }
  return *q;
}

api::AccessModes ModesOf(std::initializer_list<api::AccessMode> modes) {
  api::AccessModes out;
  for (api::AccessMode m : modes) out.Add(m);
  return out;
}

}  // namespace

ClaimBuilder::ClaimBuilder(std::string_view name, std::string_view class_name,
                           std::string_view storage) {
  claim_.metadata.name = std::string(name);
  claim_.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
  claim_.metadata.uid = "uid-" + std::string(name);
  claim_.metadata.resource_version = "1";
  if (!class_name.empty()) claim_.spec.storage_class_name = std::string(class_name);
  claim_.spec.storage = MustParse(storage);
  claim_.spec.access_modes.Add(api::AccessMode::kReadWriteOnce);
}

ClaimBuilder& ClaimBuilder::Namespace(std::string_view ns) {
  claim_.metadata.namespace_ = api::Symbol(ns);
  return *this;
}

ClaimBuilder& ClaimBuilder::Modes(std::initializer_list<api::AccessMode> modes) {
  claim_.spec.access_modes = ModesOf(modes);
  return *this;
}

ClaimBuilder& ClaimBuilder::BoundTo(std::string_view volume) {
  claim_.spec.volume_name = api::Symbol(volume);
  claim_.metadata.annotations[std::string(api::kBindCompletedAnnotation)] = "yes";
  claim_.status.phase = api::ClaimPhase::kBound;
  return *this;
}

ClaimBuilder& ClaimBuilder::VolumeName(std::string_view volume) {
  claim_.spec.volume_name = api::Symbol(volume);
  return *this;
}

ClaimBuilder& ClaimBuilder::SelectedNode(std::string_view node) {
  claim_.metadata.annotations[std::string(api::kSelectedNodeAnnotation)] = std::string(node);
  return *this;
}

ClaimBuilder& ClaimBuilder::Phase(api::ClaimPhase phase) {
  claim_.status.phase = phase;
  return *this;
}

ClaimBuilder& ClaimBuilder::OwnedBy(const api::Pod& pod) {
  claim_.metadata.owner_references.push_back(
      api::OwnerReference{"v1", "Pod", pod.metadata.name, pod.metadata.uid, true, true});
  return *this;
}

ClaimBuilder& ClaimBuilder::Uid(std::string_view uid) {
  claim_.metadata.uid = std::string(uid);
  return *this;
}

VolumeBuilder::VolumeBuilder(std::string_view name, std::string_view class_name,
                             std::string_view capacity) {
  pv_.metadata.name = std::string(name);
  pv_.metadata.uid = "uid-" + std::string(name);
  pv_.metadata.resource_version = "1";
  pv_.spec.storage_class_name = std::string(class_name);
  pv_.spec.capacity = MustParse(capacity);
  pv_.spec.access_modes.Add(api::AccessMode::kReadWriteOnce);
  pv_.spec.source.kind = "csi";
  pv_.spec.source.csi = api::CSISource{"csi.example.com", std::string(name), false};
  pv_.status.phase = api::VolumePhase::kAvailable;
}

VolumeBuilder& VolumeBuilder::Label(std::string_view key, std::string_view value) {
  pv_.metadata.labels.Set(api::Symbol(key), api::Symbol(value));
  return *this;
}

VolumeBuilder& VolumeBuilder::Modes(std::initializer_list<api::AccessMode> modes) {
  pv_.spec.access_modes = ModesOf(modes);
  return *this;
}

VolumeBuilder& VolumeBuilder::NodeAffinity(std::string_view key,
                                           std::initializer_list<std::string_view> values) {
  api::SelectorRequirement r;
  r.key = api::Symbol(key);
  r.op = api::SelectorOperator::kIn;
  for (std::string_view v : values) r.values.emplace_back(v);
  api::NodeSelectorTerm term;
  term.match_expressions.push_back(std::move(r));
  api::PrepareNodeSelectorTerm(term);
  pv_.spec.node_affinity = api::NodeSelector{{std::move(term)}};
  return *this;
}

VolumeBuilder& VolumeBuilder::ClaimRef(std::string_view claim, std::string_view ns) {
  api::ObjectReference ref;
  ref.kind = "PersistentVolumeClaim";
  ref.api_version = "v1";
  ref.namespace_ = std::string(ns);
  ref.name = std::string(claim);
  pv_.spec.claim_ref = std::move(ref);
  return *this;
}

VolumeBuilder& VolumeBuilder::Phase(api::VolumePhase phase) {
  pv_.status.phase = phase;
  return *this;
}

VolumeBuilder& VolumeBuilder::CSI(std::string_view driver, std::string_view handle) {
  pv_.spec.source = api::VolumeSource{};
  pv_.spec.source.kind = "csi";
  pv_.spec.source.csi = api::CSISource{std::string(driver), std::string(handle), false};
  return *this;
}

VolumeBuilder& VolumeBuilder::Source(api::VolumeSource source) {
  pv_.spec.source = std::move(source);
  return *this;
}

api::StorageClass MakeStorageClass(std::string_view name, std::string_view provisioner,
                                   api::VolumeBindingMode mode) {
  api::StorageClass sc;
  sc.metadata.name = std::string(name);
  sc.provisioner = std::string(provisioner);
  sc.volume_binding_mode = mode;
  return sc;
}

}  // namespace muster::testing
