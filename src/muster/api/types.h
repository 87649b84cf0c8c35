#pragma once

// The Kubernetes objects muster reads and writes, with the fields a scheduler uses. Strings the
// hot path compares (namespaces, node names, label keys and values, resource names, topology keys)
// are interned Symbols; the rest stay std::string.
//
// Defaults the API server would apply on create are applied by the decoder (decode.h), so an
// object here always looks as it would when read back from a cluster: a pod's requests default to
// its limits, a missing namespace is "default", a missing schedulerName is "default-scheduler".

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "muster/api/boxed.h"
#include "muster/api/intern.h"
#include "muster/api/labels.h"
#include "muster/api/node_features.h"
#include "muster/api/node_selector.h"
#include "muster/api/resources.h"
#include "muster/api/taints.h"
#include "muster/api/time.h"
#include "muster/api/volume_sources.h"

namespace muster::api {

inline constexpr std::string_view kDefaultNamespace = "default";
inline constexpr std::string_view kDefaultSchedulerName = "default-scheduler";
// kDefaultSchedulerName interned, once.
inline Symbol DefaultSchedulerName() {
  static const Symbol name(kDefaultSchedulerName);
  return name;
}
// A pod's default restartPolicy, interned once.
inline Symbol AlwaysRestartPolicy() {
  static const Symbol always("Always");
  return always;
}

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  bool block_owner_deletion = false;
};

struct ObjectMeta {
  // Namespace and name side by side (one cache line, mostly): every table of pods compares the
  // two.
  std::string name;
  Symbol namespace_;  // empty for cluster-scoped objects
  std::string generate_name;
  std::string uid;
  std::string resource_version;
  LabelSet labels;
  std::map<std::string, std::string> annotations;  // ordered: output is deterministic
  std::vector<OwnerReference> owner_references;
  std::vector<std::string> finalizers;
  std::optional<Time> creation_timestamp;
  std::optional<Time> deletion_timestamp;

  // The controlling owner (controller: true), if any.
  const OwnerReference* ControllerRef() const;
  // "namespace/name", or "name" for cluster-scoped objects.
  std::string Key() const;
};

// ---- Pods ----

enum class Protocol { kTCP, kUDP, kSCTP };
std::string_view ProtocolName(Protocol p);

struct ContainerPort {
  std::string name;
  int32_t container_port = 0;
  int32_t host_port = 0;  // 0: not exposed on the host
  Protocol protocol = Protocol::kTCP;
  Symbol host_ip;  // empty means 0.0.0.0
};

// ---- A pod's resource claims (Dynamic Resource Allocation, api/dra.h) ----

// pod.spec.resourceClaims[]: a claim by name, or one made from a template for this pod.
struct PodResourceClaim {
  Symbol name;
  Symbol resource_claim_name;           // set for a claim by name
  Symbol resource_claim_template_name;  // set for a claim from a template
};

// pod.status.resourceClaimStatuses[]: the claim the controller made for a template's entry;
// empty `resource_claim_name` when it decided none is needed.
struct PodResourceClaimStatus {
  Symbol name;
  Symbol resource_claim_name;
};

// A container's resources.claims[]: a pod claim it uses, all of it or one request.
struct ContainerResourceClaim {
  Symbol name;
  Symbol request;
};

struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;
  std::vector<ContainerResourceClaim> claims;
};

struct Container {
  std::string name;
  Symbol image;  // interned: a cluster runs few distinct images in many pods
  ResourceRequirements resources;
  std::vector<ContainerPort> ports;
  // Only "Always" is allowed, on init containers: a restartable init container (a sidecar) keeps
  // running beside the app containers.
  bool restart_policy_always = false;
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;  // nullopt matches no pod
  std::vector<Symbol> namespaces;
  Symbol topology_key;
  std::optional<LabelSelector> namespace_selector;
  std::vector<Symbol> match_label_keys;
  std::vector<Symbol> mismatch_label_keys;
};

struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm term;
};

// Whether upstream parses every term of the list: upstream drops all the terms of a list in
// which one selector does not convert (getAffinityTerms fails for the list).
bool TermsParse(std::span<const PodAffinityTerm> terms);
bool TermsParse(std::span<const WeightedPodAffinityTerm> terms);

struct PodAffinity {
  std::vector<PodAffinityTerm> required;
  std::vector<WeightedPodAffinityTerm> preferred;
};

struct NodeAffinity {
  std::optional<NodeSelector> required;
  std::vector<PreferredSchedulingTerm> preferred;
};

struct Affinity {
  std::optional<NodeAffinity> node_affinity;
  std::optional<PodAffinity> pod_affinity;
  std::optional<PodAffinity> pod_anti_affinity;
};

enum class UnsatisfiableConstraintAction { kDoNotSchedule, kScheduleAnyway };
enum class NodeInclusionPolicy { kIgnore, kHonor };

struct TopologySpreadConstraint {
  int32_t max_skew = 0;
  Symbol topology_key;
  UnsatisfiableConstraintAction when_unsatisfiable = UnsatisfiableConstraintAction::kDoNotSchedule;
  std::optional<LabelSelector> label_selector;
  std::optional<int32_t> min_domains;
  std::optional<NodeInclusionPolicy> node_affinity_policy;  // nullopt: Honor
  std::optional<NodeInclusionPolicy> node_taints_policy;    // nullopt: Ignore
  std::vector<Symbol> match_label_keys;
};

enum class PreemptionPolicy { kPreemptLowerPriority, kNever };
enum class PodPhase { kPending, kRunning, kSucceeded, kFailed, kUnknown };
std::string_view PodPhaseName(PodPhase p);
std::optional<PodPhase> ParsePodPhase(std::string_view s);

// A status condition (metav1.Condition's fields; a pod's PodCondition has the same ones muster
// reads): a pod's, a PodGroup's, an allocated device's.
struct Condition {
  // Interned: a cluster knows a handful of condition types and three statuses, and every bound
  // pod carries one condition.
  Symbol type;
  Symbol status;
  std::string reason;
  std::string message;
  std::optional<Time> last_transition_time;

  friend bool operator==(const Condition&, const Condition&) = default;
};

// The condition of `type` in `conditions`, or nullptr.
const Condition* FindCondition(const std::vector<Condition>& conditions, std::string_view type);
// Whether setting `condition` would change `conditions`: none of its type yet, or one that
// differs in status, reason or message (the transition time aside).
bool ConditionChanges(const std::vector<Condition>& conditions, const Condition& condition);
// Replaces the condition of `condition.type` in `conditions` (or appends it). The transition
// time stays the old one when the status does not change, as Kubernetes keeps it.
void SetCondition(std::vector<Condition>& conditions, Condition condition);

// Pod-level resources (spec.resources, KEP-2837): what the pod as a whole requests and is
// limited to, for cpu, memory and hugepages-*.
struct PodLevelResources {
  ResourceList requests;
  ResourceList limits;
};

struct PodSpec {
  std::vector<Container> init_containers;
  std::vector<Container> containers;
  ResourceList overhead;
  // Null when the pod sets none (nearly every pod): 16 bytes, not two lists, for the others.
  std::shared_ptr<const PodLevelResources> resources;
  Symbol node_name;
  LabelSet node_selector;
  Boxed<Affinity> affinity;  // on the heap: few pods set it
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::vector<std::string> scheduling_gates;
  Symbol scheduler_name = DefaultSchedulerName();
  std::optional<int32_t> priority;
  Symbol priority_class_name;
  std::optional<PreemptionPolicy> preemption_policy;
  Symbol restart_policy = AlwaysRestartPolicy();
  bool host_network = false;
  // The node declared features the spec needs (api/node_features.h), inferred when decoded from
  // restartPolicyRules, hostNetwork with hostUsers and volume mounts' bindMountOptions.
  NodeFeatureSet required_node_features = 0;
  std::vector<Volume> volumes;
  std::vector<PodResourceClaim> resource_claims;
  // Kubernetes 1.35's spec.workloadRef (scheduling.k8s.io/v1alpha1): the Workload, the pod
  // group in it and the replica key (each key its own group); empty names when unset.
  struct WorkloadReference {
    Symbol name;
    Symbol pod_group;
    Symbol replica_key;
  } workload_ref;
  // Kubernetes 1.36's spec.schedulingGroup.podGroupName (scheduling.k8s.io/v1alpha2 and
  // later): the PodGroup in the pod's namespace; empty when unset.
  Symbol scheduling_group;
};

// What the kubelet reports having admitted (allocatedResources) and applied (resources.requests)
// for a container or the whole pod (in-place resize, KEP-1287; the pod's own since 1.36). An
// absent list is absent, not empty: upstream falls back differently for each.
struct ResourcesStatus {
  std::optional<ResourceList> allocated;
  std::optional<ResourceList> actuated;
};

struct ContainerResourcesStatus {
  std::string name;  // of a container or an init container (names are unique across both)
  ResourcesStatus resources;
};

struct PodResourcesStatus {
  std::vector<ContainerResourcesStatus> containers;  // containerStatuses, initContainerStatuses
  ResourcesStatus pod;                               // status.allocatedResources, status.resources
};

// pod.status.extendedResourceClaimStatus (DRAExtendedResource, GA in 1.37): the claim the
// scheduler made for the pod's extended resources that devices serve (api/dra.h), and which of
// its requests each container's resource uses.
struct ContainerExtendedResourceRequest {
  std::string container_name;
  Symbol resource_name;
  Symbol request_name;

  friend bool operator==(const ContainerExtendedResourceRequest&,
                         const ContainerExtendedResourceRequest&) = default;
};

struct PodExtendedResourceClaimStatus {
  std::vector<ContainerExtendedResourceRequest> request_mappings;
  Symbol resource_claim_name;

  friend bool operator==(const PodExtendedResourceClaimStatus&,
                         const PodExtendedResourceClaimStatus&) = default;
};

struct PodStatus {
  PodPhase phase = PodPhase::kPending;
  Symbol nominated_node_name;  // beside phase: one word for the two
  std::vector<Condition> conditions;
  std::optional<Time> start_time;
  std::vector<PodResourceClaimStatus> resource_claim_statuses;
  // The resources the kubelet reports, kept only where they differ from the spec or a resize is
  // infeasible (what PodRequests reads); null otherwise, as for every pod not yet running.
  std::shared_ptr<const PodResourcesStatus> resources;
  // Null unless the scheduler made the pod a claim for its extended resources.
  std::shared_ptr<const PodExtendedResourceClaimStatus> extended_resource_claim;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;

  // The priority admission resolved (spec.priority), 0 when unset.
  int32_t Priority() const { return spec.priority.value_or(0); }
  bool IsTerminal() const {
    return status.phase == PodPhase::kSucceeded || status.phase == PodPhase::kFailed;
  }
};

// A pod as the cluster holds it: immutable once stored, shared by whoever reads it (the
// informers' objects, the scheduler's PodInfos).
using PodPtr = std::shared_ptr<const Pod>;

struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;
};

// ---- Nodes ----

struct NodeCondition {
  std::string type;
  std::string status;
  std::string reason;
  std::string message;
};

struct ContainerImage {
  std::vector<std::string> names;
  int64_t size_bytes = 0;
};

struct Node {
  ObjectMeta metadata;
  struct Spec {
    bool unschedulable = false;
    std::vector<Taint> taints;
  } spec;
  struct Status {
    ResourceList capacity;
    ResourceList allocatable;  // defaults to capacity when absent
    std::vector<NodeCondition> conditions;
    std::vector<ContainerImage> images;
    // status.declaredFeatures, those muster knows (api/node_features.h).
    NodeFeatureSet declared_features = 0;
  } status;
};

// ---- Gangs ----

// A gang an object of a gang API's kind defines (api/gang.h): its name in the object's namespace
// and how many of its pods must be placed together.
struct GangDefinition {
  Symbol name;
  int32_t min_count = 0;

  friend bool operator==(const GangDefinition&, const GangDefinition&) = default;
};

// ---- Kubernetes' own gang API: scheduling.k8s.io Workload and PodGroup (KEP-4671) ----

// How a PodGroup may be disrupted (v1alpha2's Pod/PodGroup, v1alpha3's single/all).
enum class DisruptionMode { kPod, kPodGroup };

// What a Workload's pod group template and a PodGroup say of scheduling the group.
struct PodGroupPolicy {
  // policy.gang.minCount; nullopt: the basic policy (pods placed one by one, no quorum).
  std::optional<int32_t> min_count;
  // schedulingConstraints.topology[].key: the members share one domain of each key.
  std::vector<Symbol> topology_keys;
  std::optional<DisruptionMode> disruption_mode;  // nullopt: Pod (single)
  std::string priority_class_name;
  std::optional<int32_t> priority;
  std::optional<PreemptionPolicy> preemption_policy;

  bool gang() const { return min_count.has_value(); }
};

// A Workload's podGroups (v1alpha1) or podGroupTemplates (v1alpha2 and later).
struct PodGroupTemplate {
  std::string name;
  PodGroupPolicy policy;
};

// A Workload's compositePodGroupTemplates (1.37, KEP-6012): a template of a CompositePodGroup
// and of its children. Its policy's min_count is gang.minGroupCount.
struct CompositePodGroupTemplate {
  std::string name;
  PodGroupPolicy policy;
  std::vector<PodGroupTemplate> pod_groups;
  std::vector<CompositePodGroupTemplate> composites;
};

// scheduling.k8s.io Workload: v1alpha1 (Kubernetes 1.35), whose pod groups are the gangs pods
// name in spec.workloadRef; v1alpha2 (1.36) and v1alpha3 (1.37), whose templates PodGroups are
// made from.
struct Workload {
  ObjectMeta metadata;
  std::string api_version;
  struct ControllerRef {
    std::string api_group;
    std::string kind;
    std::string name;
  };
  std::optional<ControllerRef> controller_ref;
  std::vector<PodGroupTemplate> pod_groups;
  // compositePodGroupTemplates (v1alpha3 and v1beta1, with the CompositePodGroup feature gate):
  // set instead of pod_groups.
  std::vector<CompositePodGroupTemplate> composites;

  // Whether its pod groups are gangs themselves (v1alpha1) rather than templates.
  bool DefinesGroups() const { return api_version == "scheduling.k8s.io/v1alpha1"; }
  const PodGroupTemplate* Group(std::string_view name) const;
};

// scheduling.k8s.io PodGroup: v1alpha2 (Kubernetes 1.36) and v1alpha3 (1.37). Not
// scheduler-plugins' PodGroup (below), which is another kind of the same name.
struct SchedulingPodGroup {
  ObjectMeta metadata;
  std::string api_version;
  struct Spec {
    // The template it was made from (v1alpha2 podGroupTemplateRef.workload, v1alpha3
    // workloadRef); empty when none.
    std::string workload_name;
    std::string template_name;
    PodGroupPolicy policy;
    // parentCompositePodGroupName (1.37, with the CompositePodGroup feature gate): the
    // CompositePodGroup this group is a child of; empty: a root.
    Symbol parent;
  } spec;
  struct Status {
    std::vector<Condition> conditions;
    friend bool operator==(const Status&, const Status&) = default;
  } status;

  // The condition the scheduler keeps: PodGroupScheduled (v1alpha2) or
  // PodGroupInitiallyScheduled (v1alpha3).
  std::string_view ScheduledCondition() const;
};

// scheduling.k8s.io/v1alpha3 CompositePodGroup (Kubernetes 1.37, KEP-6012, alpha behind the
// CompositePodGroup feature gate): a group of groups. Its children are the PodGroups and
// CompositePodGroups naming it as their parent; the gang policy asks minGroupCount of them to be
// placed together (each as its own policy says), the basic one at least one. Only a root (no
// parent) is scheduled, its whole tree in one cycle.
struct CompositePodGroup {
  ObjectMeta metadata;
  std::string api_version;
  struct Spec {
    Symbol parent;  // parentCompositePodGroupName; empty: a root
    std::string workload_name;
    std::string template_name;
    // Its min_count is gang.minGroupCount; nullopt: basic.
    PodGroupPolicy policy;
  } spec;
  struct Status {
    std::vector<Condition> conditions;  // 1.37's scheduler writes none
  } status;
};

// ---- Coscheduling ----

inline constexpr std::string_view kPodGroupLabel = "scheduling.x-k8s.io/pod-group";
// The label of the older scheduler-plugins API group (scheduling.sigs.k8s.io), as seed 003 uses.
inline constexpr std::string_view kLegacyPodGroupLabel = "pod-group.scheduling.sigs.k8s.io";
// The PodGroup a pod names in its labels (the current label first), or empty.
Symbol PodGroupName(const Pod& pod);
// muster's annotation on a scheduler-plugins PodGroup giving it what Kubernetes' PodGroup has
// in schedulingConstraints.topology: the node label whose one domain its members share.
inline constexpr std::string_view kTopologyKeyAnnotation = "muster.dev/topology-key";

enum class PodGroupPhase {
  kPending,
  kPreScheduling,
  kScheduling,
  kScheduled,
  kRunning,
  kFinished,
  kFailed
};
std::string_view PodGroupPhaseName(PodGroupPhase p);
std::optional<PodGroupPhase> ParsePodGroupPhase(std::string_view s);

struct PodGroup {
  ObjectMeta metadata;
  std::string api_version;  // which API group it came from
  struct Spec {
    int32_t min_member = 0;
    ResourceList min_resources;
    std::optional<int32_t> schedule_timeout_seconds;
  } spec;
  struct Status {
    PodGroupPhase phase = PodGroupPhase::kPending;
    std::string occupied_by;
    int32_t scheduled = 0;
    int32_t running = 0;
    int32_t succeeded = 0;
    int32_t failed = 0;
    std::optional<Time> schedule_start_time;
    // muster's addition: the Scheduled condition the group scheduling cycle keeps (True once the
    // group is placed, False with the reason it cannot be). Conditions share the pod's fields.
    std::vector<Condition> conditions;

    friend bool operator==(const Status&, const Status&) = default;
  } status;
};

// The group's namespace and name as one integer (PairId): the key of the scheduler's and
// Coscheduling's maps of groups, some read on every queue comparison.
inline uint64_t PodGroupId(const PodGroup& group) {
  return PairId(group.metadata.namespace_, Symbol(group.metadata.name));
}

// ---- Scheduling policy objects ----

inline constexpr int32_t kHighestUserDefinablePriority = 1000000000;
inline constexpr int32_t kSystemCriticalPriority = 2000000000;

struct PriorityClass {
  ObjectMeta metadata;
  int32_t value = 0;
  bool global_default = false;
  std::optional<PreemptionPolicy> preemption_policy;  // nullopt: PreemptLowerPriority
  std::string description;
};

struct Namespace {
  ObjectMeta metadata;
};

// An int or a percentage ("10%"), as in PodDisruptionBudget and rolling updates.
struct IntOrString {
  bool is_string = false;
  int32_t int_value = 0;
  std::string str_value;
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  std::optional<IntOrString> min_available;
  std::optional<IntOrString> max_unavailable;
  std::optional<LabelSelector> selector;
  struct Status {
    int32_t disruptions_allowed = 0;
    int32_t current_healthy = 0;
    int32_t desired_healthy = 0;
    int32_t expected_pods = 0;
    // Pods whose eviction the API server has processed but the disruption controller has not
    // yet seen go (status.disruptedPods' keys), sorted: already counted in disruptionsAllowed.
    std::vector<std::string> disrupted_pods;
  } status;
};

// ---- Workloads (simulate's controllers create their pods) ----

struct ReplicaSet {
  ObjectMeta metadata;
  int32_t replicas = 1;
  LabelSelector selector;
  PodTemplateSpec template_;
};

struct Deployment {
  ObjectMeta metadata;
  int32_t replicas = 1;
  LabelSelector selector;
  PodTemplateSpec template_;
};

// An Indexed Job's pods carry their completion index under this key, as a label and as an
// annotation.
inline constexpr std::string_view kJobCompletionIndex = "batch.kubernetes.io/job-completion-index";

enum class CompletionMode { kNonIndexed, kIndexed };

// What a pod failure policy rule does with a failed pod it matches.
enum class PodFailurePolicyAction { kFailJob, kFailIndex, kIgnore, kCount };

// A rule's requirement on the exit codes of the pod's containers.
struct PodFailurePolicyOnExitCodes {
  std::optional<std::string> container_name;  // nullopt: any container
  std::string operator_;                      // In or NotIn
  std::vector<int32_t> values;                // ascending
};

// A rule's requirement on one of the pod's conditions.
struct PodFailurePolicyOnPodConditionsPattern {
  std::string type;
  std::string status = "True";
};

// One of onExitCodes and onPodConditions is set.
struct PodFailurePolicyRule {
  PodFailurePolicyAction action = PodFailurePolicyAction::kCount;
  std::optional<PodFailurePolicyOnExitCodes> on_exit_codes;
  std::vector<PodFailurePolicyOnPodConditionsPattern> on_pod_conditions;
};

struct PodFailurePolicy {
  std::vector<PodFailurePolicyRule> rules;  // the first that matches a failed pod decides
};

struct Job {
  ObjectMeta metadata;
  int32_t parallelism = 1;
  std::optional<int32_t> completions;  // nullopt: any one success completes the job
  CompletionMode completion_mode = CompletionMode::kNonIndexed;
  int32_t backoff_limit = 6;
  std::optional<PodFailurePolicy> pod_failure_policy;
  bool suspend = false;
  std::optional<LabelSelector> selector;
  PodTemplateSpec template_;
};

enum class PodManagementPolicy { kOrderedReady, kParallel };

struct StatefulSet {
  ObjectMeta metadata;
  int32_t replicas = 1;
  LabelSelector selector;
  std::string service_name;
  PodManagementPolicy pod_management_policy = PodManagementPolicy::kOrderedReady;
  PodTemplateSpec template_;
  std::vector<ClaimTemplate> volume_claim_templates;
};

// ---- What the scheduler writes ----

struct ObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string api_version;
  std::string resource_version;  // of the object when the reference was taken, if known
};

struct Binding {
  ObjectMeta metadata;
  ObjectReference target;
};

struct Event {
  ObjectMeta metadata;
  ObjectReference involved_object;
  std::string type;  // Normal or Warning
  std::string reason;
  std::string message;
  std::string action;
  std::string reporting_controller;
  std::optional<Time> event_time;
  int32_t count = 1;
};

struct Lease {
  ObjectMeta metadata;
  std::string holder_identity;
  std::optional<int32_t> lease_duration_seconds;
  std::optional<Time> acquire_time;
  std::optional<Time> renew_time;
  int32_t lease_transitions = 0;
};

// ---- Storage (core/v1 PersistentVolume and PersistentVolumeClaim; storage.k8s.io/v1) ----

// The annotations of the volume binding protocol (the scheduler, the PV controller and the
// provisioners talk through them), and of the default StorageClass.
inline constexpr std::string_view kSelectedNodeAnnotation = "volume.kubernetes.io/selected-node";
inline constexpr std::string_view kBindCompletedAnnotation = "pv.kubernetes.io/bind-completed";
inline constexpr std::string_view kBoundByControllerAnnotation =
    "pv.kubernetes.io/bound-by-controller";
inline constexpr std::string_view kBetaStorageClassAnnotation =
    "volume.beta.kubernetes.io/storage-class";
inline constexpr std::string_view kDefaultClassAnnotation =
    "storageclass.kubernetes.io/is-default-class";
inline constexpr std::string_view kBetaDefaultClassAnnotation =
    "storageclass.beta.kubernetes.io/is-default-class";
inline constexpr std::string_view kMigratedPluginsAnnotation =
    "storage.alpha.kubernetes.io/migrated-plugins";
// A StorageClass provisioner that provisions nothing (static volumes only).
inline constexpr std::string_view kNoProvisioner = "kubernetes.io/no-provisioner";

// Each enum's names, in its order: what decoding reads and output prints.
enum class VolumePhase { kPending, kAvailable, kBound, kReleased, kFailed };
inline constexpr std::string_view kVolumePhaseNames[] = {"Pending", "Available", "Bound",
                                                         "Released", "Failed"};
inline std::string_view VolumePhaseName(VolumePhase p) {
  return kVolumePhaseNames[static_cast<size_t>(p)];
}
enum class ClaimPhase { kPending, kBound, kLost };
inline constexpr std::string_view kClaimPhaseNames[] = {"Pending", "Bound", "Lost"};
inline std::string_view ClaimPhaseName(ClaimPhase p) {
  return kClaimPhaseNames[static_cast<size_t>(p)];
}

struct PersistentVolume {
  ObjectMeta metadata;
  struct Spec {
    Quantity capacity;  // capacity.storage, the only capacity the API server allows
    VolumeSource source;
    AccessModes access_modes;
    std::optional<ObjectReference> claim_ref;
    std::string reclaim_policy = "Retain";
    std::string storage_class_name;
    VolumeMode volume_mode = VolumeMode::kFilesystem;
    std::optional<NodeSelector> node_affinity;  // nodeAffinity.required
    std::string volume_attributes_class_name;
  } spec;
  struct Status {
    VolumePhase phase = VolumePhase::kPending;
  } status;

  // Its class: the beta annotation when present, else spec.storageClassName.
  std::string_view ClassName() const;
};

struct PersistentVolumeClaim {
  ObjectMeta metadata;
  PersistentVolumeClaimSpec spec;
  struct Status {
    ClaimPhase phase = ClaimPhase::kPending;
  } status;

  // Its class: the beta annotation when present, else spec.storageClassName, else "".
  std::string_view ClassName() const;
  // Bound and known bound by the PV controller: a volume named and the bind-completed annotation.
  bool FullyBound() const;
};

enum class VolumeBindingMode { kImmediate, kWaitForFirstConsumer };
inline constexpr std::string_view kVolumeBindingModeNames[] = {"Immediate", "WaitForFirstConsumer"};
inline std::string_view VolumeBindingModeName(VolumeBindingMode m) {
  return kVolumeBindingModeNames[static_cast<size_t>(m)];
}

// v1.TopologySelectorTerm: every requirement holds (the node's label `key` is one of `values`).
struct TopologySelectorTerm {
  struct Requirement {
    Symbol key;
    std::vector<Symbol> values;
  };
  std::vector<Requirement> match_label_expressions;
};
// Whether a node with `labels` is in the topology `terms` allow: there are none, or a term with
// requirements holds (an empty term selects nothing).
bool MatchesTopology(std::span<const TopologySelectorTerm> terms, const LabelSet& labels);

struct StorageClass {
  ObjectMeta metadata;
  std::string provisioner;
  std::map<std::string, std::string> parameters;
  std::string reclaim_policy = "Delete";
  VolumeBindingMode volume_binding_mode = VolumeBindingMode::kImmediate;
  std::vector<TopologySelectorTerm> allowed_topologies;

  // Whether it is marked the default class (the annotation, or its beta, is exactly "true").
  bool IsDefault() const;
};

struct CSINode {
  ObjectMeta metadata;  // named after its node
  struct Driver {
    std::string name;
    std::string node_id;
    std::vector<std::string> topology_keys;
    std::optional<int32_t> allocatable_count;  // nullopt: no limit
  };
  std::vector<Driver> drivers;
};

struct CSIDriver {
  ObjectMeta metadata;  // named after the driver
  bool attach_required = true;
  bool pod_info_on_mount = false;
  bool storage_capacity = false;
  std::vector<std::string> volume_lifecycle_modes{"Persistent"};
  std::optional<bool> prevent_pod_scheduling_if_missing;
};

struct CSIStorageCapacity {
  ObjectMeta metadata;
  std::string storage_class_name;
  std::optional<LabelSelector> node_topology;  // nullopt: reachable from no node
  std::optional<Quantity> capacity;            // nullopt: unknown
  std::optional<Quantity> maximum_volume_size;
};

// storage.k8s.io/v1 VolumeAttachment: the attach/detach controller's record that a CSI driver
// attaches a volume to a node (or is detaching it: it counts until the object is gone).
// NodeVolumeLimits counts those of a persistent volume against the node's CSI limit.
struct VolumeAttachment {
  ObjectMeta metadata;
  std::string attacher;  // the CSI driver
  Symbol node_name;
  // spec.source: a PersistentVolume's name, or (empty here) an inline volume spec.
  std::string persistent_volume_name;
  bool attached = false;  // status.attached: read, not used to decide (upstream counts either)
};

}  // namespace muster::api
