#pragma once

// What the scheduler writes to a cluster (binding, the PodScheduled condition, preemption's
// deletions, PodGroup status, events): the interface the cluster layer implements, for the
// memory cluster and for a real API server alike, and that plugins reach through their Handle.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "muster/api/dra.h"
#include "muster/api/types.h"
#include "muster/framework/status.h"

namespace muster::framework {

// The object an event is about, or the one it relates to: events.k8s.io/v1's `regarding` and
// `related`. `uid` and `resource_version` are what `kubectl describe` finds an object's events
// by; they are empty for objects the simulator made without them.
struct ObjectReference {
  std::string api_version = "v1";
  std::string kind = "Pod";
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resource_version;

  // "namespace/name", or "name" for a cluster-scoped object.
  std::string Key() const { return namespace_.empty() ? name : namespace_ + "/" + name; }
};

// A reference to an object of the given kind, from its metadata.
ObjectReference ReferenceTo(const api::ObjectMeta& meta, std::string kind, std::string api_version);
inline ObjectReference ReferenceTo(const api::Pod& pod) {
  return ReferenceTo(pod.metadata, "Pod", "v1");
}
// In the API group the PodGroup came from (scheduling.x-k8s.io/v1alpha1 when not known).
ObjectReference ReferenceTo(const api::PodGroup& group);

// A Kubernetes Event the scheduler posts (Scheduled, FailedScheduling, Preempted...), with
// events.k8s.io/v1's fields: type Normal or Warning, action (Scheduling, Binding, Preempting),
// and the note (`message`) a person reads.
struct EventRecord {
  ObjectReference regarding;
  std::string type;
  std::string reason;
  std::string action;
  std::string message;
  std::optional<ObjectReference> related;  // a victim's Preempted names its preemptor
  // The profile that decided (kubectl describe's "From"); empty: the cluster's default.
  std::string reporting_controller;
};

// The longest note an Event may carry (upstream validation.NoteLengthLimit).
inline constexpr size_t kEventNoteLimit = 1024;

// A FailedScheduling note as kube-scheduler cuts it (truncateMessage): a message over the limit
// keeps its first 1020 bytes and ends " ...". The pod's condition keeps the whole message.
inline std::string TruncateEventNote(std::string message) {
  constexpr std::string_view kSuffix = " ...";
  if (message.size() <= kEventNoteLimit) return message;
  message.resize(kEventNoteLimit - kSuffix.size());
  message += kSuffix;
  return message;
}

// The scheduler's writes to the cluster (the `cluster` layer implements it for memory and a real
// API server). A failed write returns an Error status and changes nothing.
class ClusterClient {
 public:
  virtual ~ClusterClient() = default;
  // POST pods/binding.
  virtual Status Bind(const api::Pod& pod, api::Symbol node) = 0;
  // A scheduler extender bound the pod: it posted the Binding itself. An API server needs
  // nothing more (the pod's update comes back through the informer); a cluster no extender can
  // reach (the memory cluster) binds the pod as the extender's write would have.
  virtual Status ExtenderBound(const api::Pod& pod, api::Symbol node) {
    (void)pod, (void)node;
    return Status::OK();
  }
  // Sets the PodScheduled condition (status "False", reason, message) and, when
  // `nominated_node` is set, status.nominatedNodeName ("" clears it).
  virtual Status UpdatePodCondition(const api::Pod& pod, const api::Condition& condition,
                                    const std::optional<std::string>& nominated_node) = 0;
  // Sets status.nominatedNodeName alone: the node the scheduler expects to bind the pod to
  // while Permit holds it or a PreBind plugin acts (KEP-5278, 1.35), which the API server
  // clears when the pod is bound. Written in order with the pod's other status writes.
  virtual Status NominatePod(const api::Pod& pod, api::Symbol node) = 0;
  // Deletes a pod (preemption victims).
  virtual Status DeletePod(const api::Pod& pod) = 0;
  virtual Status UpdatePodGroupStatus(const api::PodGroup& group,
                                      const api::PodGroup::Status& status) = 0;
  // The scheduler's one write of a gang's status: sets one condition of `object`'s (a gang
  // API's object, found through api::Kinds()) status conditions, replacing the one of its type
  // in `current` (the conditions as the scheduler last saw them) and leaving the rest of its
  // status, which the gang's controller writes, as it is.
  virtual Status UpdateGroupCondition(const ObjectReference& object,
                                      const std::vector<api::Condition>& current,
                                      const api::Condition& condition) = 0;
  // The volume binding's writes (VolumeBinding's PreBind), each refused when the object
  // changed since the scheduler read it (its resourceVersion in `pv` or `pvc`): binds the volume
  // to a claim (writes `pv`'s spec.claimRef, and its bound-by-controller annotation when it has
  // one), or asks the provisioner for the claim's volume on `node` (the annotation
  // volume.kubernetes.io/selected-node).
  virtual Status BindVolume(const api::PersistentVolume& pv) = 0;
  virtual Status SelectNode(const api::PersistentVolumeClaim& pvc, api::Symbol node) = 0;
  // Dynamic Resource Allocation's write (DynamicResources' PreBind and PostFilter): `claim`'s
  // finalizers and its status (allocation and reservedFor), refused when the claim changed
  // since the scheduler read it (its resourceVersion in `claim`).
  virtual Status UpdateClaimStatus(const api::ResourceClaim& claim) = 0;
  // The claim DynamicResources makes for a pod's extended resources that devices serve
  // (DRAExtendedResource): creates `claim` (named by its generateName) and returns it as stored
  // (its name, uid, resourceVersion) in *created.
  virtual Status CreateClaim(const api::ResourceClaim& claim, api::ResourceClaim* created) = 0;
  // Deletes such a claim (that one: its uid), the scheduler's finalizer removed first.
  virtual Status DeleteClaim(const api::ResourceClaim& claim) = 0;
  // Sets the pod's status.extendedResourceClaimStatus, in order with its other status writes
  // and before its binding.
  virtual Status SetExtendedResourceClaimStatus(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) = 0;
  virtual void RecordEvent(EventRecord event) = 0;
  // Whether RecordEvent keeps what it is given: false where nothing reads Events (`muster
  // bench`'s in-memory cluster), so that a message written for every pod is not formatted
  // only to be dropped.
  virtual bool RecordsEvents() const { return true; }
  // Whether the cluster serves the API of `resource` (a kind's plural, "resourceclaims"): a real
  // API server may predate it or have it turned off. A plugin whose API is not served stands
  // aside instead of speaking of it in pods' messages. Known once the cluster has started.
  virtual bool Serves(std::string_view /*resource*/) const { return true; }
};

}  // namespace muster::framework
