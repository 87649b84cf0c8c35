// NodeVolumeLimits (upstream nodevolumelimits, CSILimits): the node's CSI attach limits.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "muster/api/feature_gates.h"
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

// One volume a pod has a node attach: by its driver and its identity there. The views point into
// the lister's objects, static tables or `Attachments::owned`, all valid for the cycle.
struct Attachment {
  std::string_view driver;
  // The volume's handle; for a claim not bound yet (its volume has no handle), the claim's
  // name in namespace `ns`, so that two pods on one claim count once.
  std::string_view handle;
  api::Symbol ns;
  // An in-tree plugin the node's CSINode must list as migrated for this to count ("": none).
  std::string_view migrated_from;

  auto Key() const { return std::tie(driver, handle, ns); }
};

struct Attachments {
  std::vector<Attachment> list;
  // Handles computed for in-tree volumes, shared by copies: the views above stay valid.
  std::vector<std::shared_ptr<const std::string>> owned;

  std::string_view Own(std::string text) {
    owned.push_back(std::make_shared<const std::string>(std::move(text)));
    return *owned.back();
  }
};

// The attachment a claim's volume needs; empty driver when it is not a CSI volume (or one
// migratable to CSI).
Attachment AttachmentOf(const framework::ObjectLister& lister,
                        const api::PersistentVolumeClaim& pvc, Attachments& out) {
  const api::PersistentVolume* pv = pvc.spec.volume_name.empty()
                                        ? nullptr
                                        : lister.Get<api::PersistentVolume>(pvc.spec.volume_name);
  if (pv != nullptr) {
    if (pv->spec.source.csi) {
      return {pv->spec.source.csi->driver, pv->spec.source.csi->volume_handle, {}, {}};
    }
    std::string handle;
    const std::string_view plugin = InTreePlugin(pv->spec.source, &pv->metadata.labels, &handle);
    if (plugin.empty()) return {};
    return {CSIDriverFor(plugin), out.Own(std::move(handle)), {}, plugin};
  }
  // Not bound yet (or bound to a volume that is gone): the class's provisioner will attach it.
  const std::string_view class_name = pvc.ClassName();
  if (class_name.empty()) return {};
  const api::StorageClass* sc = lister.Get<api::StorageClass>(api::Symbol(class_name));
  if (sc == nullptr) return {};
  if (const std::string_view csi = CSIDriverFor(sc->provisioner); !csi.empty()) {
    return {csi, pvc.metadata.name, pvc.metadata.namespace_, sc->provisioner};
  }
  return {sc->provisioner, pvc.metadata.name, pvc.metadata.namespace_, {}};
}

// The volumes of `pod` a node may have to attach, into `out`: for the pod being scheduled
// (`incoming`) a claim that does not exist is an error; for pods already on a node it is passed
// over. Whether a migrated in-tree volume counts depends on the node (Attachment::migrated_from).
Status PodAttachments(const framework::ObjectLister& lister, const api::Pod& pod, bool incoming,
                      Attachments& out) {
  for (const api::Volume& v : pod.spec.volumes) {
    const std::optional<PodClaim> claim = ClaimOf(pod, v);
    if (!claim) {
      std::string handle;
      const std::string_view plugin = InTreePlugin(v.source, nullptr, &handle);
      if (plugin.empty()) continue;
      out.list.push_back({CSIDriverFor(plugin), out.Own(std::move(handle)), {}, plugin});
      continue;
    }
    if (claim->name.empty()) return Status::Error("PersistentVolumeClaim had no name");
    const api::PersistentVolumeClaim* pvc =
        lister.Get<api::PersistentVolumeClaim>(pod.metadata.namespace_, claim->name);
    if (pvc == nullptr) {
      if (!incoming) continue;
      return Status::Unresolvable(fmt::format("looking up PVC {}/{}: {}",
                                              pod.metadata.namespace_.str(), claim->name.str(),
                                              ClaimNotFound(claim->name.str())));
    }
    if (claim->ephemeral) {
      Status owner;
      if (EphemeralClaim(lister, pod, *claim, &owner) == nullptr) {
        if (!incoming) continue;
        return owner.code() == framework::Code::kError ? owner : Status::Error(owner.Message());
      }
    }
    Attachment a = AttachmentOf(lister, *pvc, out);
    if (!a.driver.empty() && !a.handle.empty()) out.list.push_back(a);
  }
  return Status::OK();
}

bool CountsOn(const Attachment& a, const api::CSINode* csi_node) {
  return a.migrated_from.empty() || MigratedOn(csi_node, a.migrated_from);
}

// The pod's attachments whose driver's CSIDriver sets preventPodSchedulingIfMissing (KEP-5030),
// by their index in `wanted`: looked up once a cycle, and none for most pods. A driver without a
// CSIDriver object is not checked.
std::vector<uint32_t> DriversRequired(const framework::ObjectLister& lister,
                                      const Attachments& wanted) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < wanted.list.size(); ++i) {
    const api::CSIDriver* driver = lister.Get<api::CSIDriver>(api::Symbol(wanted.list[i].driver));
    if (driver != nullptr && driver->prevent_pod_scheduling_if_missing.value_or(false)) {
      out.push_back(static_cast<uint32_t>(i));
    }
  }
  return out;
}

// Upstream's checkCSIDriverOnNode over the drivers the pod needs on this node that require it:
// the first, in the pod's volume order, that the node's CSINode does not list (or there is no
// CSINode). Upstream walks the drivers in map order; the order here is the pod's own.
Status MissingDriver(const Attachments& wanted, std::span<const uint32_t> required,
                     const api::CSINode* csi_node) {
  for (const uint32_t i : required) {
    const Attachment& a = wanted.list[i];
    if (!CountsOn(a, csi_node)) continue;
    const bool installed =
        csi_node != nullptr &&
        std::any_of(csi_node->drivers.begin(), csi_node->drivers.end(),
                    [&](const api::CSINode::Driver& d) { return d.name == a.driver; });
    if (!installed) {
      return Status::Unschedulable(
          fmt::format("{} CSI driver is not installed on the node", a.driver));
    }
  }
  return Status::OK();
}

// The pod's attachments, worked out once per cycle (they do not depend on the node but for
// migration), or the error each node reports.
struct LimitsState final : framework::StateData {
  Status error;
  Attachments wanted;
  std::vector<uint32_t> drivers_required;  // see DriversRequired (VolumeLimitScaling on)
  std::shared_ptr<const NodeVolumeLimits::AttachmentsByNode> node_attachments;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<LimitsState>(*this);
  }
};

constexpr std::string_view kStateKey = "PreFilterNodeVolumeLimits";

}  // namespace

NodeVolumeLimits::NodeVolumeLimits(framework::Handle& handle)
    : handle_(handle),
      volume_limit_scaling_(api::Features().Enabled(api::Feature::kVolumeLimitScaling)) {}

std::unique_ptr<framework::Plugin> NodeVolumeLimits::New(const framework::PluginArgs&,
                                                         framework::Handle& handle, std::string*) {
  return std::make_unique<NodeVolumeLimits>(handle);
}

Status NodeVolumeLimits::PreFilter(framework::CycleState& state, const framework::PodInfo& info,
                                   std::span<framework::NodeInfo* const>,
                                   framework::PreFilterResult*) {
  const std::vector<api::Volume>& volumes = info.pod.spec.volumes;
  if (std::none_of(volumes.begin(), volumes.end(), Counted)) {
    return Status(framework::Code::kSkip);
  }
  auto s = std::make_unique<LimitsState>();
  s->error = PodAttachments(handle_.lister(), info.pod, /*incoming=*/true, s->wanted);
  if (volume_limit_scaling_) s->drivers_required = DriversRequired(handle_.lister(), s->wanted);
  s->node_attachments = CurrentAttachments();
  state.Write(kStateKey, std::move(s));
  return Status::OK();
}

std::shared_ptr<const NodeVolumeLimits::AttachmentsByNode> NodeVolumeLimits::CurrentAttachments() {
  const framework::ObjectTable<api::VolumeAttachment>& table =
      handle_.lister().objects().Of<api::VolumeAttachment>();
  if (attachments_ != nullptr && attachments_version_ == table.version()) return attachments_;
  auto index = std::make_shared<AttachmentsByNode>();
  for (const api::VolumeAttachment* va : table.List()) {
    // Upstream's getNodeVolumeAttachmentInfo passes over those without an attacher and those of
    // inline volumes.
    if (va->attacher.empty() || va->persistent_volume_name.empty()) continue;
    (*index)[va->node_name].push_back(
        NodeAttachment{va->attacher, api::Symbol(va->persistent_volume_name)});
  }
  attachments_ = std::move(index);
  attachments_version_ = table.version();
  return attachments_;
}

Status NodeVolumeLimits::Filter(const framework::CycleState& state, const framework::PodInfo&,
                                const framework::NodeInfo& node) const {
  const auto* s = state.Read<LimitsState>(kStateKey);
  if (s == nullptr) {
    return Status::Error(fmt::format("cannot read \"{}\" from cycleState", kStateKey));
  }
  if (!s->error.IsSuccess()) return s->error;
  if (s->wanted.list.empty()) return Status::OK();
  const framework::ObjectLister& lister = handle_.lister();
  const api::Node& n = *node.node();
  const api::CSINode* csi_node = lister.Get<api::CSINode>(node.name());
  if (!s->drivers_required.empty()) {
    if (Status missing = MissingDriver(s->wanted, s->drivers_required, csi_node);
        !missing.IsSuccess()) {
      return missing;
    }
  }
  // Each driver the pod needs that has a limit here: the CSINode's allocatable.count, else the
  // node's legacy attachable-volumes-csi-<driver> allocatable.
  struct Need {
    std::string_view driver;
    int64_t limit = 0;
    int64_t wanted = 0;
    int64_t in_use = 0;
  };
  std::vector<Need> needs;
  for (const Attachment& a : s->wanted.list) {
    if (!CountsOn(a, csi_node)) continue;
    auto it = std::find_if(needs.begin(), needs.end(),
                           [&](const Need& d) { return d.driver == a.driver; });
    if (it != needs.end()) continue;
    std::optional<int64_t> limit;
    if (csi_node != nullptr) {
      for (const api::CSINode::Driver& d : csi_node->drivers) {
        if (d.name == a.driver && d.allocatable_count) limit = *d.allocatable_count;
      }
    }
    if (!limit) {
      for (const auto& [name, quantity] : n.status.allocatable) {
        const std::string_view key = name.str();
        if (key.size() == kLimitPrefix.size() + a.driver.size() && key.starts_with(kLimitPrefix) &&
            key.ends_with(a.driver)) {
          limit = quantity.Value();
        }
      }
    }
    if (limit) needs.push_back(Need{a.driver, *limit});
  }
  if (needs.empty()) return Status::OK();
  auto need_of = [&](std::string_view driver) -> Need* {
    for (Need& d : needs) {
      if (d.driver == driver) return &d;
    }
    return nullptr;
  };
  // What the pods already there have attached, of those drivers: a volume among them costs the
  // pod nothing, and each counts once however many pods use it.
  Attachments attached;
  for (const framework::PodInfoPtr& p : node.pods()) {
    if (Status e = PodAttachments(lister, p->pod, /*incoming=*/false, attached); !e.IsSuccess()) {
      return e;
    }
  }
  std::erase_if(attached.list, [&](const Attachment& a) {
    return need_of(a.driver) == nullptr || !CountsOn(a, csi_node);
  });
  auto by_key = [](const Attachment& a, const Attachment& b) { return a.Key() < b.Key(); };
  auto same = [](const Attachment& a, const Attachment& b) { return a.Key() == b.Key(); };
  std::sort(attached.list.begin(), attached.list.end(), by_key);
  attached.list.erase(std::unique(attached.list.begin(), attached.list.end(), same),
                      attached.list.end());
  for (const Attachment& a : attached.list) ++need_of(a.driver)->in_use;
  // The node's VolumeAttachments of persistent CSI volumes, each volume once, but for those the
  // pods above count already (a missing or non-CSI volume is passed over, as upstream does).
  if (s->node_attachments != nullptr) {
    auto on_node = s->node_attachments->find(node.name());
    if (on_node != s->node_attachments->end()) {
      std::vector<Attachment> from_attachments;
      for (const NodeAttachment& va : on_node->second) {
        if (need_of(va.attacher) == nullptr) continue;
        const api::PersistentVolume* pv = lister.Get<api::PersistentVolume>(va.volume);
        if (pv == nullptr || !pv->spec.source.csi) continue;
        const Attachment a{va.attacher, pv->spec.source.csi->volume_handle, {}, {}};
        if (std::binary_search(attached.list.begin(), attached.list.end(), a, by_key)) continue;
        if (std::any_of(from_attachments.begin(), from_attachments.end(),
                        [&](const Attachment& c) { return same(c, a); })) {
          continue;
        }
        from_attachments.push_back(a);
        ++need_of(va.attacher)->in_use;
      }
    }
  }
  std::vector<const Attachment*> counted;
  for (const Attachment& a : s->wanted.list) {
    Need* d = need_of(a.driver);
    if (d == nullptr || !CountsOn(a, csi_node)) continue;
    if (std::binary_search(attached.list.begin(), attached.list.end(), a, by_key)) continue;
    if (std::any_of(counted.begin(), counted.end(),
                    [&](const Attachment* c) { return same(*c, a); })) {
      continue;
    }
    counted.push_back(&a);
    ++d->wanted;
  }
  for (const Need& d : needs) {
    if (d.wanted > 0 && d.in_use + d.wanted > d.limit) {
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
  // Upstream's isSchedulableAfterVolumeAttachmentDeleted: any claim of the pod's may be the
  // volume detached; an inline in-tree volume only when its driver is the attacher.
  auto attachment_deleted = [](const api::Pod& pod, const EventObjects& e, Status*) {
    const api::VolumeAttachment* va = e.Old<api::VolumeAttachment>();
    for (const api::Volume& v : pod.spec.volumes) {
      if (v.claim_name) return QueueingHint::kQueue;
      if (v.ephemeral) continue;
      std::string handle;
      const std::string_view plugin = InTreePlugin(v.source, nullptr, &handle);
      if (!plugin.empty() && (va == nullptr || CSIDriverFor(plugin) == va->attacher)) {
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
      {ClusterEvent{framework::EventResource::Of<api::VolumeAttachment>(), framework::kDelete,
                    "VolumeAttachmentDelete"},
       attachment_deleted},
  };
}

}  // namespace muster::plugins::volumes
