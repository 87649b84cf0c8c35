#pragma once

// The kinds muster models, each described once in Kinds(): its name, the apiVersions accepted for
// it, where Manifests keeps it, how its metadata and pod template are reached. Decoding reads this
// table instead of naming kinds. The layers above act on a decoded object through Visit, whose
// visitor must handle every kind in the table, so adding a kind here makes the compiler point at
// each place that still has to say what to do with it.

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "muster/api/feature_gates.h"
#include "muster/api/manifests.h"

namespace muster::api {

namespace decoding {
class Decoder;
class Map;

// Each kind's decoder, in the objects_*.cc file of its API group: reads the object at `m`
// (whose apiVersion is `api_version`), applying the API server's defaults and validation, and
// reports what is wrong through `d`.
Pod DecodePod(Decoder& d, Map& m, const std::string& api_version);
Node DecodeNode(Decoder& d, Map& m, const std::string& api_version);
Namespace DecodeNamespace(Decoder& d, Map& m, const std::string& api_version);
Binding DecodeBinding(Decoder& d, Map& m, const std::string& api_version);
Event DecodeEvent(Decoder& d, Map& m, const std::string& api_version);
PodGroup DecodePodGroup(Decoder& d, Map& m, const std::string& api_version);
Workload DecodeWorkload(Decoder& d, Map& m, const std::string& api_version);
SchedulingPodGroup DecodeSchedulingPodGroup(Decoder& d, Map& m, const std::string& api_version);
CompositePodGroup DecodeCompositePodGroup(Decoder& d, Map& m, const std::string& api_version);
PriorityClass DecodePriorityClass(Decoder& d, Map& m, const std::string& api_version);
ReplicaSet DecodeReplicaSet(Decoder& d, Map& m, const std::string& api_version);
Deployment DecodeDeployment(Decoder& d, Map& m, const std::string& api_version);
StatefulSet DecodeStatefulSet(Decoder& d, Map& m, const std::string& api_version);
Job DecodeJob(Decoder& d, Map& m, const std::string& api_version);
PodDisruptionBudget DecodePodDisruptionBudget(Decoder& d, Map& m, const std::string& api_version);
Lease DecodeLease(Decoder& d, Map& m, const std::string& api_version);
PersistentVolume DecodePersistentVolume(Decoder& d, Map& m, const std::string& api_version);
PersistentVolumeClaim DecodePersistentVolumeClaim(Decoder& d, Map& m,
                                                  const std::string& api_version);
StorageClass DecodeStorageClass(Decoder& d, Map& m, const std::string& api_version);
CSINode DecodeCSINode(Decoder& d, Map& m, const std::string& api_version);
CSIDriver DecodeCSIDriver(Decoder& d, Map& m, const std::string& api_version);
CSIStorageCapacity DecodeCSIStorageCapacity(Decoder& d, Map& m, const std::string& api_version);
VolumeAttachment DecodeVolumeAttachment(Decoder& d, Map& m, const std::string& api_version);
DeviceClass DecodeDeviceClass(Decoder& d, Map& m, const std::string& api_version);
ResourceSlice DecodeResourceSlice(Decoder& d, Map& m, const std::string& api_version);
ResourceClaim DecodeResourceClaim(Decoder& d, Map& m, const std::string& api_version);
ResourceClaimTemplate DecodeResourceClaimTemplate(Decoder& d, Map& m,
                                                  const std::string& api_version);
// The KubeSchedulerConfiguration (scheduler_config.cc): decoded strictly, as kube-scheduler
// decodes it, and validated as it validates it.
SchedulerConfiguration ReadSchedulerConfig(Decoder& d, Map& m, const std::string& api_version);
}  // namespace decoding

// What the api layer knows of one kind; T is the type a decoded object of the kind is held in.
template <typename T>
struct Kind {
  std::string_view name;
  // Its decoder (above).
  T (*decode)(decoding::Decoder& d, decoding::Map& m, const std::string& api_version) = nullptr;
  // Accepted apiVersions, in the order an error message lists them.
  std::vector<std::string_view> api_versions;
  std::vector<T> Manifests::*objects = nullptr;
  // The metadata duplicates are found by; null for a kind without metadata, which is never a
  // duplicate.
  ObjectMeta T::*metadata = nullptr;
  // Whether a name without a namespace means the object lives in the default namespace.
  bool namespaced = true;
  // The template a workload controller makes its pods from; null for a kind that makes no pods.
  // Its priorityClassName is checked at load time: one that does not exist is a warning, since
  // the API server accepts the workload and refuses only its pods.
  PodTemplateSpec T::*pod_template = nullptr;
  // Whether an unknown field is an error rather than ignored: kube-scheduler decodes its
  // configuration strictly, the API server its objects leniently.
  bool strict = false;
  // The REST resource (its plural, "pods"), for a kind a cluster delivers (ClusterKinds); the
  // API server's path is made of it and each apiVersion.
  std::string_view resource;
  // For a kind a cluster delivers whose API a server may not serve (a CRD): what serving none of
  // its apiVersions costs, for the warning `muster run` logs then. Empty: the kind is required
  // and `muster run` refuses to start without it.
  std::string_view when_unserved;
  // Whether its apiVersions are versions of one API group, each serving the same objects (so
  // `muster run` watches one of them), rather than separate groups with objects of their own
  // (scheduler-plugins' two PodGroup groups).
  bool one_group = false;
  // For a gang API's kind: where an object's status conditions are (the scheduler's Scheduled
  // condition goes there, ClusterClient::UpdateGroupCondition); null for other kinds.
  std::vector<Condition>* (*conditions)(T& object) = nullptr;
  // For a gang API's kind: the gangs an object defines (api/gang.h); null for other kinds.
  std::vector<GangDefinition> (*gangs)(const T& object) = nullptr;
  // The feature gate without which `muster run` does not watch the kind (kube-scheduler has no
  // informer for it then); nullopt: watched whatever the gates.
  std::optional<Feature> gate;
};

// The gangs a v1alpha1 Workload defines: each pod group with the gang policy, as
// "<workload>/<group>" (a pod's replica key makes "<workload>/<group>/<key>" of it, a gang of
// the same minCount: GangDefinitionName).
std::vector<GangDefinition> WorkloadGangs(const Workload& workload);

// What `muster run` says when the API server serves no resource.k8s.io/v1 (before Kubernetes
// 1.34).
inline constexpr std::string_view kDraUnserved =
    "pods with resourceClaims (Dynamic Resource Allocation) wait; resource.k8s.io/v1 is served "
    "from Kubernetes 1.34";

// The table. Each type appears once: KindOf<T> and Visit find a kind by its type.
inline const auto& Kinds() {
  static const std::tuple kinds{
      Kind<Pod>{.name = "Pod",
                .decode = &decoding::DecodePod,
                .api_versions = {"v1"},
                .objects = &Manifests::pods,
                .metadata = &Pod::metadata,
                .resource = "pods"},
      Kind<Node>{.name = "Node",
                 .decode = &decoding::DecodeNode,
                 .api_versions = {"v1"},
                 .objects = &Manifests::nodes,
                 .metadata = &Node::metadata,
                 .namespaced = false,
                 .resource = "nodes"},
      Kind<Namespace>{.name = "Namespace",
                      .decode = &decoding::DecodeNamespace,
                      .api_versions = {"v1"},
                      .objects = &Manifests::namespaces,
                      .metadata = &Namespace::metadata,
                      .namespaced = false,
                      .resource = "namespaces"},
      Kind<Binding>{.name = "Binding",
                    .decode = &decoding::DecodeBinding,
                    .api_versions = {"v1"},
                    .objects = &Manifests::bindings,
                    .metadata = &Binding::metadata},
      Kind<Event>{.name = "Event",
                  .decode = &decoding::DecodeEvent,
                  .api_versions = {"v1", "events.k8s.io/v1"},
                  .objects = &Manifests::events,
                  .metadata = &Event::metadata},
      Kind<PodGroup>{
          .name = "PodGroup",
          .decode = &decoding::DecodePodGroup,
          .api_versions = {"scheduling.x-k8s.io/v1alpha1", "scheduling.sigs.k8s.io/v1alpha1"},
          .objects = &Manifests::pod_groups,
          .metadata = &PodGroup::metadata,
          .resource = "podgroups",
          .when_unserved = "gang scheduling has no groups; apply deploy/crd-podgroups.yaml to "
                           "enable it",
          .conditions = [](PodGroup& g) { return &g.status.conditions; },
          .gangs =
              [](const PodGroup& g) {
                return std::vector<GangDefinition>{{Symbol(g.metadata.name), g.spec.min_member}};
              }},
      // Kubernetes' own gang API (KEP-4671): v1alpha1 is 1.35's, v1alpha2 1.36's, v1alpha3 and
      // v1beta1 1.37's. Its versions are one API group's, of one stored object: `muster run`
      // watches the newest the server serves.
      Kind<Workload>{.name = "Workload",
                     .decode = &decoding::DecodeWorkload,
                     .api_versions = {"scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3",
                                      "scheduling.k8s.io/v1alpha2", "scheduling.k8s.io/v1alpha1"},
                     .objects = &Manifests::workloads,
                     .metadata = &Workload::metadata,
                     .resource = "workloads",
                     .when_unserved =
                         "pods naming a Workload (spec.workloadRef) wait for it; enable the "
                         "GenericWorkload feature gate and the scheduling.k8s.io API version",
                     .one_group = true,
                     .gangs = &WorkloadGangs},
      Kind<SchedulingPodGroup>{
          .name = "PodGroup",
          .decode = &decoding::DecodeSchedulingPodGroup,
          .api_versions = {"scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3",
                           "scheduling.k8s.io/v1alpha2"},
          .objects = &Manifests::scheduling_pod_groups,
          .metadata = &SchedulingPodGroup::metadata,
          .resource = "podgroups",
          .when_unserved = "pods naming a PodGroup (spec.schedulingGroup) wait for it; enable "
                           "the GenericWorkload feature gate and the scheduling.k8s.io API version",
          .one_group = true,
          .conditions = [](SchedulingPodGroup& g) { return &g.status.conditions; },
          .gangs =
              [](const SchedulingPodGroup& g) {
                if (!g.spec.policy.gang()) return std::vector<GangDefinition>{};
                return std::vector<GangDefinition>{
                    {Symbol(g.metadata.name), *g.spec.policy.min_count}};
              }},
      Kind<CompositePodGroup>{
          .name = "CompositePodGroup",
          .decode = &decoding::DecodeCompositePodGroup,
          .api_versions = {"scheduling.k8s.io/v1alpha3"},
          .objects = &Manifests::composite_pod_groups,
          .metadata = &CompositePodGroup::metadata,
          .resource = "compositepodgroups",
          .when_unserved = "pod groups naming a parent (parentCompositePodGroupName) wait for it; "
                           "enable the CompositePodGroup feature gate and "
                           "scheduling.k8s.io/v1alpha3",
          .gate = Feature::kCompositePodGroup},
      Kind<PriorityClass>{.name = "PriorityClass",
                          .decode = &decoding::DecodePriorityClass,
                          .api_versions = {"scheduling.k8s.io/v1"},
                          .objects = &Manifests::priority_classes,
                          .metadata = &PriorityClass::metadata,
                          .namespaced = false},
      Kind<ReplicaSet>{.name = "ReplicaSet",
                       .decode = &decoding::DecodeReplicaSet,
                       .api_versions = {"apps/v1"},
                       .objects = &Manifests::replica_sets,
                       .metadata = &ReplicaSet::metadata,
                       .pod_template = &ReplicaSet::template_},
      Kind<Deployment>{.name = "Deployment",
                       .decode = &decoding::DecodeDeployment,
                       .api_versions = {"apps/v1"},
                       .objects = &Manifests::deployments,
                       .metadata = &Deployment::metadata,
                       .pod_template = &Deployment::template_},
      Kind<StatefulSet>{.name = "StatefulSet",
                        .decode = &decoding::DecodeStatefulSet,
                        .api_versions = {"apps/v1"},
                        .objects = &Manifests::stateful_sets,
                        .metadata = &StatefulSet::metadata,
                        .pod_template = &StatefulSet::template_},
      Kind<Job>{.name = "Job",
                .decode = &decoding::DecodeJob,
                .api_versions = {"batch/v1"},
                .objects = &Manifests::jobs,
                .metadata = &Job::metadata,
                .pod_template = &Job::template_},
      Kind<PodDisruptionBudget>{.name = "PodDisruptionBudget",
                                .decode = &decoding::DecodePodDisruptionBudget,
                                .api_versions = {"policy/v1"},
                                .objects = &Manifests::pod_disruption_budgets,
                                .metadata = &PodDisruptionBudget::metadata,
                                .resource = "poddisruptionbudgets"},
      Kind<Lease>{.name = "Lease",
                  .decode = &decoding::DecodeLease,
                  .api_versions = {"coordination.k8s.io/v1"},
                  .objects = &Manifests::leases,
                  .metadata = &Lease::metadata},
      Kind<PersistentVolume>{.name = "PersistentVolume",
                             .decode = &decoding::DecodePersistentVolume,
                             .api_versions = {"v1"},
                             .objects = &Manifests::persistent_volumes,
                             .metadata = &PersistentVolume::metadata,
                             .namespaced = false,
                             .resource = "persistentvolumes"},
      Kind<PersistentVolumeClaim>{.name = "PersistentVolumeClaim",
                                  .decode = &decoding::DecodePersistentVolumeClaim,
                                  .api_versions = {"v1"},
                                  .objects = &Manifests::persistent_volume_claims,
                                  .metadata = &PersistentVolumeClaim::metadata,
                                  .resource = "persistentvolumeclaims"},
      Kind<StorageClass>{.name = "StorageClass",
                         .decode = &decoding::DecodeStorageClass,
                         .api_versions = {"storage.k8s.io/v1"},
                         .objects = &Manifests::storage_classes,
                         .metadata = &StorageClass::metadata,
                         .namespaced = false,
                         .resource = "storageclasses"},
      Kind<CSINode>{.name = "CSINode",
                    .decode = &decoding::DecodeCSINode,
                    .api_versions = {"storage.k8s.io/v1"},
                    .objects = &Manifests::csi_nodes,
                    .metadata = &CSINode::metadata,
                    .namespaced = false,
                    .resource = "csinodes"},
      Kind<CSIDriver>{.name = "CSIDriver",
                      .decode = &decoding::DecodeCSIDriver,
                      .api_versions = {"storage.k8s.io/v1"},
                      .objects = &Manifests::csi_drivers,
                      .metadata = &CSIDriver::metadata,
                      .namespaced = false,
                      .resource = "csidrivers"},
      Kind<CSIStorageCapacity>{.name = "CSIStorageCapacity",
                               .decode = &decoding::DecodeCSIStorageCapacity,
                               .api_versions = {"storage.k8s.io/v1"},
                               .objects = &Manifests::csi_storage_capacities,
                               .metadata = &CSIStorageCapacity::metadata,
                               .resource = "csistoragecapacities"},
      Kind<VolumeAttachment>{.name = "VolumeAttachment",
                             .decode = &decoding::DecodeVolumeAttachment,
                             .api_versions = {"storage.k8s.io/v1"},
                             .objects = &Manifests::volume_attachments,
                             .metadata = &VolumeAttachment::metadata,
                             .namespaced = false,
                             .resource = "volumeattachments"},
      // Dynamic Resource Allocation (Kubernetes 1.34's resource.k8s.io/v1, api/dra.h).
      Kind<DeviceClass>{.name = "DeviceClass",
                        .decode = &decoding::DecodeDeviceClass,
                        .api_versions = {"resource.k8s.io/v1"},
                        .objects = &Manifests::device_classes,
                        .metadata = &DeviceClass::metadata,
                        .namespaced = false,
                        .resource = "deviceclasses",
                        .when_unserved = kDraUnserved},
      Kind<ResourceSlice>{.name = "ResourceSlice",
                          .decode = &decoding::DecodeResourceSlice,
                          .api_versions = {"resource.k8s.io/v1"},
                          .objects = &Manifests::resource_slices,
                          .metadata = &ResourceSlice::metadata,
                          .namespaced = false,
                          .resource = "resourceslices",
                          .when_unserved = kDraUnserved},
      Kind<ResourceClaim>{.name = "ResourceClaim",
                          .decode = &decoding::DecodeResourceClaim,
                          .api_versions = {"resource.k8s.io/v1"},
                          .objects = &Manifests::resource_claims,
                          .metadata = &ResourceClaim::metadata,
                          .resource = "resourceclaims",
                          .when_unserved = kDraUnserved},
      Kind<ResourceClaimTemplate>{.name = "ResourceClaimTemplate",
                                  .decode = &decoding::DecodeResourceClaimTemplate,
                                  .api_versions = {"resource.k8s.io/v1"},
                                  .objects = &Manifests::resource_claim_templates,
                                  .metadata = &ResourceClaimTemplate::metadata,
                                  .resource = "resourceclaimtemplates",
                                  .when_unserved = kDraUnserved},
      Kind<SchedulerConfiguration>{
          .name = "KubeSchedulerConfiguration",
          .decode = &decoding::ReadSchedulerConfig,
          .api_versions = {"kubescheduler.config.k8s.io/v1", "kubescheduler.config.k8s.io/v1beta3",
                           "kubescheduler.config.k8s.io/v1beta2"},
          .objects = &Manifests::scheduler_configs,
          .namespaced = false,
          .strict = true},
  };
  return kinds;
}

template <typename T>
const Kind<T>& KindOf() {
  return std::get<Kind<T>>(Kinds());
}

namespace internal {
template <typename T, typename Table>
struct RowIn;
template <typename T, typename... U>
struct RowIn<T, std::tuple<Kind<U>...>> {
  static constexpr size_t value = [] {
    size_t i = 0;
    static_cast<void>(((std::is_same_v<T, U> || (++i, false)) || ...));
    return i;
  }();
};
}  // namespace internal

// The place of T's row in Kinds() (ObjectEntry::row).
template <typename T>
inline constexpr size_t kRowOf = internal::RowIn<T, std::remove_cvref_t<decltype(Kinds())>>::value;

template <typename... T>
struct KindList {
  static constexpr size_t size = sizeof...(T);
};

// The kinds a cluster holds and tells its observers about (the scheduler's informers watch
// them), in the order `muster run` starts watching them: pods last, so that the nodes and
// groups they name are known first. Each also has a row in Kinds(), with its `resource`. A kind
// added here flows through the clusters, the scheduler's store and lister and its cluster
// events without further code (the scheduler has handlers of its own for pods, nodes and
// PodGroup updates).
using ClusterKinds =
    KindList<Namespace, Node, PodDisruptionBudget, PodGroup, Workload, CompositePodGroup,
             SchedulingPodGroup, StorageClass, CSIDriver, CSINode, CSIStorageCapacity,
             VolumeAttachment, PersistentVolume, PersistentVolumeClaim, DeviceClass, ResourceSlice,
             ResourceClaimTemplate, ResourceClaim, Pod>;

// Calls fn(std::type_identity<T>{}) for each kind T of ClusterKinds, in order.
template <typename Fn>
void ForEachClusterKind(Fn&& fn) {
  [&]<typename... T>(KindList<T...>) { (fn(std::type_identity<T>{}), ...); }(ClusterKinds{});
}

// T's place in ClusterKinds.
template <typename T, typename... U>
consteval size_t IndexIn(KindList<U...>) {
  size_t i = 0;
  const bool found = ((std::is_same_v<T, U> || (++i, false)) || ...);
  return found ? i : sizeof...(U);
}
template <typename T>
inline constexpr size_t kClusterKindIndex = IndexIn<T>(ClusterKinds{});
template <typename T>
inline constexpr bool kIsClusterKind = kClusterKindIndex<T> < ClusterKinds::size;

// An object of a cluster kind, shared as a cluster and its informers hand it out (immutable
// once stored: a change stores a new object).
template <typename T>
using Shared = std::shared_ptr<const T>;

namespace internal {
template <typename List>
struct AnyObjectOf;
template <typename... T>
struct AnyObjectOf<KindList<T...>> {
  using type = std::variant<std::monostate, Shared<T>...>;
};
}  // namespace internal

// An object of any cluster kind; the empty alternative (std::monostate) is no object.
using AnyObject = internal::AnyObjectOf<ClusterKinds>::type;

// The object `o` holds if it is a T, else nullptr.
template <typename T>
const T* ObjectOf(const AnyObject& o) {
  const Shared<T>* p = std::get_if<Shared<T>>(&o);
  return p == nullptr ? nullptr : p->get();
}

// The metadata of the object `o` holds (empty metadata when it holds none).
inline const ObjectMeta& MetaOf(const AnyObject& o) {
  return std::visit(
      [](const auto& p) -> const ObjectMeta& {
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(p)>, std::monostate>) {
          static const ObjectMeta kNone;
          return kNone;
        } else {
          return p->metadata;
        }
      },
      o);
}

// Calls `fn` with the row (a Kind<T>) of the kind called `name` whose apiVersions include
// `api_version` (two kinds may share a name in different API groups: PodGroup), or, when none
// does, of the first kind called `name`; returns false, without calling it, when no kind has
// that name.
template <typename Fn>
bool ForKindNamed(std::string_view name, std::string_view api_version, Fn&& fn) {
  auto serves = [&](const auto& kind) {
    return kind.name == name && std::find(kind.api_versions.begin(), kind.api_versions.end(),
                                          api_version) != kind.api_versions.end();
  };
  auto call = [&](auto&& match) {
    return std::apply(
        [&](const auto&... kind) {
          return ((match(kind) && (static_cast<void>(fn(kind)), true)) || ...);
        },
        Kinds());
  };
  return call(serves) || call([&](const auto& kind) { return kind.name == name; });
}

// Every apiVersion of the kinds called `name`, in the order an error message lists them.
std::vector<std::string_view> ApiVersionsOfKind(std::string_view name);

// Calls `fn` with the row at `row` in Kinds().
template <typename Fn>
void ForKindAt(size_t row, Fn&& fn) {
  std::apply(
      [&](const auto&... kind) {
        size_t i = 0;
        static_cast<void>(((i++ == row && (static_cast<void>(fn(kind)), true)) || ...));
      },
      Kinds());
}

namespace internal {

template <typename Table>
struct PointerToAnyKind;
template <typename... T>
struct PointerToAnyKind<std::tuple<Kind<T>...>> {
  using type = std::variant<const T*...>;
};

}  // namespace internal

// Calls `visitor` with the object `entry` names, as its own type: visitor(const Node&),
// visitor(const Pod&), and so on, returning what it returns. `entry` must come from
// `manifests.order`. The visitor must accept every kind in Kinds() and return the same type for
// all: a kind it does not handle fails to compile, which is the point.
template <typename Visitor>
decltype(auto) Visit(const Manifests& manifests, const ObjectEntry& entry, Visitor&& visitor) {
  typename internal::PointerToAnyKind<std::remove_cvref_t<decltype(Kinds())>>::type object;
  ForKindAt(entry.row, [&](const auto& kind) { object = &(manifests.*kind.objects)[entry.index]; });
  return std::visit([&](const auto* o) -> decltype(auto) { return visitor(*o); }, object);
}

// A visitor made of one lambda per kind: Visit(m, e, Overloaded{[](const Pod&) {...}, ...}).
template <typename... Fn>
struct Overloaded : Fn... {
  using Fn::operator()...;
};
template <typename... Fn>
Overloaded(Fn...) -> Overloaded<Fn...>;

}  // namespace muster::api
