// NodeVolumeLimits (upstream nodevolumelimits, CSILimits): the node's CSI attach limits.

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "muster/plugins/volumes/claims.h"
#include "muster/plugins/volumes/volumes.h"

namespace muster::plugins::volumes {
namespace {

using framework::ClusterEvent;
using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;

// The key a driver's limit has among a node's allocatable resources.
constexpr std::string_view kLimitPrefix = "attachable-volumes-csi-";

// Whether the pod has a volume this plugin counts.
bool Counted(const api::Volume& v) {
  if (v.claim_name || v.ephemeral) return true;
  std::string handle;
  return !InTreePlugin(v.source, nullptr, &handle).empty();
}

// The driver a claim's volume is attached by, and the volume's handle; empty when it is not a
// CSI volume (or one migrated to CSI) this node counts.
std::pair<std::string, std::string> DriverOf(const framework::ObjectLister& lister,
                                             const api::CSINode* csi_node,
                                             const api::PersistentVolumeClaim& pvc,
                                             std::string_view unbound_prefix) {
  const api::PersistentVolume* pv =
      pvc.spec.volume_name.empty()
          ? nullptr
          : lister.Get<api::PersistentVolume>(api::Symbol(pvc.spec.volume_name));
  if (pv != nullptr) {
    if (pv->spec.source.csi)
      return {pv->spec.source.csi->driver, pv->spec.source.csi->volume_handle};
    std::string handle;
    const std::string_view plugin = InTreePlugin(pv->spec.source, &pv->metadata.labels, &handle);
    if (plugin.empty() || !MigratedOn(csi_node, plugin)) return {};
    return {std::string(CSIDriverFor(plugin)), handle};
  }
  // Not bound yet (or bound to a volume that is gone): the class's provisioner will attach it.
  const std::string_view class_name = pvc.ClassName();
  if (class_name.empty()) return {};
  const api::StorageClass* sc = lister.Get<api::StorageClass>(api::Symbol(class_name));
  if (sc == nullptr) return {};
  std::string driver = sc->provisioner;
  if (const std::string_view csi = CSIDriverFor(driver); !csi.empty()) {
    if (!MigratedOn(csi_node, driver)) return {};
    driver = std::string(csi);
  }
  return {driver, fmt::format("{}-{}/{}", unbound_prefix, pvc.metadata.namespace_.str(),
                              pvc.metadata.name)};
}

// The volumes of `pod` this node would have attached: "driver/handle" -> driver. A claim that
// does not exist is an error for the pod being scheduled (`incoming`) and passed over for pods
// already there.
Status AttachableVolumes(const framework::ObjectLister& lister, const api::CSINode* csi_node,
                         const api::Pod& pod, bool incoming, std::string_view unbound_prefix,
                         std::map<std::string, std::string>& out) {
  for (const api::Volume& v : pod.spec.volumes) {
    const std::optional<PodClaim> claim = ClaimOf(pod, v);
    if (!claim) {
      std::string handle;
      const std::string_view plugin = InTreePlugin(v.source, nullptr, &handle);
      if (plugin.empty() || !MigratedOn(csi_node, plugin)) continue;
      const std::string driver(CSIDriverFor(plugin));
      out[driver + "/" + handle] = driver;
      continue;
    }
    if (claim->name.empty()) return Status::Error("PersistentVolumeClaim had no name");
    const api::PersistentVolumeClaim* pvc =
        lister.Get<api::PersistentVolumeClaim>(pod.metadata.namespace_, api::Symbol(claim->name));
    if (pvc == nullptr) {
      if (!incoming) continue;
      return Status::Unresolvable(fmt::format("looking up PVC {}/{}: {}",
                                              pod.metadata.namespace_.str(), claim->name,
                                              ClaimNotFound(claim->name)));
    }
    if (claim->ephemeral) {
      Status owner;
      if (EphemeralClaim(lister, pod, *claim, &owner) == nullptr) {
        if (!incoming) continue;
        return owner.code() == framework::Code::kError ? owner : Status::Error(owner.Message());
      }
    }
    auto [driver, handle] = DriverOf(lister, csi_node, *pvc, unbound_prefix);
    if (driver.empty() || handle.empty()) continue;
    out[driver + "/" + handle] = driver;
  }
  return Status::OK();
}

}  // namespace

std::unique_ptr<framework::Plugin> NodeVolumeLimits::New(const framework::PluginArgs&,
                                                         framework::Handle& handle, std::string*) {
  return std::make_unique<NodeVolumeLimits>(handle);
}

Status NodeVolumeLimits::PreFilter(framework::CycleState&, const framework::PodInfo& info,
                                   std::span<framework::NodeInfo* const>,
                                   framework::PreFilterResult*) {
  const std::vector<api::Volume>& volumes = info.pod.spec.volumes;
  if (std::any_of(volumes.begin(), volumes.end(), Counted)) return Status::OK();
  return Status(framework::Code::kSkip);
}

Status NodeVolumeLimits::Filter(const framework::CycleState&, const framework::PodInfo& info,
                                const framework::NodeInfo& node) const {
  const api::Pod& pod = info.pod;
  if (pod.spec.volumes.empty()) return Status::OK();
  const framework::ObjectLister& lister = handle_.lister();
  const api::Node& n = *node.node();
  const api::CSINode* csi_node = lister.Get<api::CSINode>(node.name());
  std::map<std::string, std::string> added;
  if (Status s = AttachableVolumes(lister, csi_node, pod, true, kUnboundPrefix, added);
      !s.IsSuccess()) {
    return s;
  }
  if (added.empty()) return Status::OK();
  // The limits: the node's legacy attachable-volumes-csi-<driver> allocatable, then each
  // CSINode driver's count.
  std::map<std::string, int64_t, std::less<>> limits;
  for (const auto& [name, quantity] : n.status.allocatable) {
    if (name.str().starts_with(kLimitPrefix)) {
      limits[std::string(name.str().substr(kLimitPrefix.size()))] = quantity.Value();
    }
  }
  if (csi_node != nullptr) {
    for (const api::CSINode::Driver& d : csi_node->drivers) {
      if (d.allocatable_count) limits[d.name] = *d.allocatable_count;
    }
  }
  if (limits.empty()) return Status::OK();
  // What the pods already there have attached: a volume among them costs the pod nothing.
  std::map<std::string, std::string> attached;
  for (const framework::PodInfoPtr& p : node.pods()) {
    if (Status s = AttachableVolumes(lister, csi_node, p->pod, false, kUnboundPrefix, attached);
        !s.IsSuccess()) {
      return s;
    }
  }
  std::map<std::string, int64_t, std::less<>> in_use, wanted;
  for (const auto& [volume, driver] : attached) {
    added.erase(volume);
    ++in_use[driver];
  }
  for (const auto& [volume, driver] : added) ++wanted[driver];
  for (const auto& [driver, count] : wanted) {
    auto limit = limits.find(driver);
    if (limit != limits.end() && in_use[driver] + count > limit->second) {
      static const Status kExceeded = framework::SharedFailure(
          framework::Code::kUnschedulable, kErrMaxVolumeCount, kNodeVolumeLimitsName);
      return kExceeded;
    }
  }
  return Status::OK();
}

std::vector<framework::ClusterEventWithHint> NodeVolumeLimits::EventsToRegister() const {
  // A pod leaving a node frees its attachments, when it had any.
  auto pod_deleted = [](const api::Pod&, const EventObjects& e, Status*) {
    const api::Pod* deleted = e.old_pod;
    if (deleted == nullptr || deleted->spec.node_name.empty()) return QueueingHint::kSkip;
    return std::any_of(deleted->spec.volumes.begin(), deleted->spec.volumes.end(), Counted)
               ? QueueingHint::kQueue
               : QueueingHint::kSkip;
  };
  // A CSINode's limit raised.
  auto csi_node_changed = [](const api::Pod&, const EventObjects& e, Status*) {
    const api::CSINode* before = e.Old<api::CSINode>();
    const api::CSINode* after = e.New<api::CSINode>();
    if (before == nullptr || after == nullptr) return QueueingHint::kQueue;
    for (const api::CSINode::Driver& d : after->drivers) {
      auto old = std::find_if(before->drivers.begin(), before->drivers.end(),
                              [&](const api::CSINode::Driver& o) { return o.name == d.name; });
      if (old == before->drivers.end()) continue;
      if (!d.allocatable_count ||
          (old->allocatable_count && *d.allocatable_count > *old->allocatable_count)) {
        return QueueingHint::kQueue;
      }
    }
    return QueueingHint::kSkip;
  };
  return {
      {ClusterEvent{framework::EventResource::Of<api::CSINode>(), framework::kAdd, "CSINodeAdd"},
       {}},
      {ClusterEvent{framework::EventResource::Of<api::CSINode>(), framework::kUpdateOther,
                    "CSINodeUpdate"},
       csi_node_changed},
      {ClusterEvent{framework::EventResource::kAssignedPod, framework::kDelete,
                    "AssignedPodDelete"},
       pod_deleted},
      {ClusterEvent{framework::EventResource::Of<api::PersistentVolumeClaim>(), framework::kAdd,
                    "PersistentVolumeClaimAdd"},
       ClaimHint},
  };
}

}  // namespace muster::plugins::volumes
