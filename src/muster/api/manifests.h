#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/dra.h"
#include "muster/api/scheduler_config.h"
#include "muster/api/types.h"

namespace YAML {
class Node;
}

namespace muster::api {

// Where an object came from: "cluster.yaml: document 3" (documents count from 1; an item of a
// `kind: List` adds "items[4]").
struct Source {
  std::string file;
  int document = 0;
  int item = -1;

  std::string ToString() const;
};

// One decoded object, in input order, for listings. api::Visit (kinds.h) hands over the object
// itself, as its own type.
struct ObjectEntry {
  std::string_view kind;  // the name of its kind in api::Kinds(), which outlives it
  size_t row = 0;         // its kind's place in api::Kinds() (two kinds may share a name)
  size_t index = 0;       // into the vector of that kind in Manifests
  Source source;
  // Read from an API server (a cluster snapshot's item): admitted there already, so the load's
  // admission (priority, default storage class) leaves it as it is.
  bool served = false;
};

// Everything decoded from a set of inputs, by kind, each kind in input order.
struct Manifests {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<PodGroup> pod_groups;
  std::vector<Workload> workloads;
  std::vector<SchedulingPodGroup> scheduling_pod_groups;
  std::vector<CompositePodGroup> composite_pod_groups;
  std::vector<PriorityClass> priority_classes;
  std::vector<Namespace> namespaces;
  std::vector<ReplicaSet> replica_sets;
  std::vector<Deployment> deployments;
  std::vector<Job> jobs;
  std::vector<StatefulSet> stateful_sets;
  std::vector<PodDisruptionBudget> pod_disruption_budgets;
  std::vector<Binding> bindings;
  std::vector<Event> events;
  std::vector<Lease> leases;
  std::vector<PersistentVolume> persistent_volumes;
  std::vector<PersistentVolumeClaim> persistent_volume_claims;
  std::vector<StorageClass> storage_classes;
  std::vector<CSINode> csi_nodes;
  std::vector<CSIDriver> csi_drivers;
  std::vector<CSIStorageCapacity> csi_storage_capacities;
  std::vector<VolumeAttachment> volume_attachments;
  std::vector<DeviceClass> device_classes;
  std::vector<ResourceSlice> resource_slices;
  std::vector<ResourceClaim> resource_claims;
  std::vector<ResourceClaimTemplate> resource_claim_templates;
  std::vector<SchedulerConfiguration> scheduler_configs;

  std::vector<ObjectEntry> order;
};

// What unknown and duplicate fields are, as kubectl's --validate spells it: errors (strict, the
// default, as kubectl's and the API server's field validation), warnings (warn), or nothing
// (ignore). A KubeSchedulerConfiguration is strict whatever this says, as kube-scheduler decodes
// it; status fields are never checked.
enum class FieldValidation { kStrict, kWarn, kIgnore };
// "strict", "warn" or "ignore" (also kubectl's old "true" and "false"); nullopt otherwise.
std::optional<FieldValidation> ParseFieldValidation(std::string_view name);

// The outcome of reading inputs. When `errors` is non-empty nothing may be applied: the input is
// rejected whole. Each error and warning is one line naming file, document, object and field.
struct LoadResult {
  Manifests manifests;
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  // Inputs, set before decoding. `served`: the objects come from an API server (muster run),
  // which validated them: fields are not checked, and a pod's fields muster does not model are
  // passed over rather than refused, so that a pod bound by another scheduler still counts.
  FieldValidation field_validation = FieldValidation::kStrict;
  bool served = false;
  // What LoadManifests' `overrides` replaced, one line each: "PodGroup default/nginx (b.yaml:
  // document 1 replaces cluster.yaml: document 4)".
  std::vector<std::string> replaced;

  bool ok() const { return errors.empty(); }
};

// A `kind: List` whose metadata.annotations carry kSnapshotOfAnnotation is a cluster snapshot
// (`muster simulate --kubeconfig --save-snapshot`): its items are what an API server served,
// decoded as `muster run` decodes them (LoadResult::served) whatever --validate says.
inline constexpr std::string_view kSnapshotOfAnnotation = "muster.dev/snapshot-of";  // the server
inline constexpr std::string_view kSnapshotAtAnnotation = "muster.dev/snapshot-at";  // when read

// A text to decode as if it were the file `name` (a snapshot read from a cluster).
struct NamedText {
  std::string name;
  std::string text;
};

// Reads PATHs: a file, a directory (its *.yaml, *.yml and *.json, sorted by name, not recursive),
// or "-" for `stdin`. Decodes every document (multi-document YAML, JSON, `kind: List`), applies the
// API server's defaults, validates, rejects duplicates (same kind, namespace and name), and admits
// pods against the PriorityClasses in the input (priority from priorityClassName or the global
// default); a workload whose template names a class that does not exist is a warning. Kinds
// muster does not model are skipped with one warning naming them.
// `first` are decoded before the PATHs, as if they were files given first. `overrides` (paths
// as PATHs) are decoded last, and each of their objects takes the place of the object of the
// same kind, namespace and name decoded before them, as `kubectl apply` of an edited manifest
// replaces it (a KubeSchedulerConfiguration takes the place of the one before it); one that
// replaces nothing is added.
LoadResult LoadManifests(const std::vector<std::string>& paths, std::istream& stdin_stream,
                         FieldValidation field_validation = FieldValidation::kStrict,
                         const std::vector<NamedText>& first = {},
                         const std::vector<std::string>& overrides = {});

// Decodes one stream's text as if it were the file `name`. Appends to `result`; does not run the
// cross-object checks (duplicates, priority admission) that LoadManifests runs at the end.
void DecodeText(std::string_view text, const std::string& name, LoadResult& result);

// The checks across objects, run once every input is decoded: duplicates, priority admission.
void FinishLoad(LoadResult& result);

// Decodes one object of kind T (Pod, Node, Namespace, PodGroup, PriorityClass,
// PodDisruptionBudget or Lease) from a parsed document: an API server's list item or watch event,
// which need not carry kind and apiVersion (`api_version` says which version it is). Applies the
// same defaults and checks as LoadManifests; on errors returns nullopt and appends them, each
// naming `what` (for example "watch pods") and the field.
template <typename T>
std::optional<T> DecodeAs(const YAML::Node& object, const std::string& api_version,
                          const std::string& what, std::vector<std::string>* errors);

}  // namespace muster::api
