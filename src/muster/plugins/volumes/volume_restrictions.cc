// VolumeRestrictions (upstream volumerestrictions): in-tree disk conflicts and ReadWriteOncePod.

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "muster/plugins/volumes/claims.h"
#include "muster/plugins/volumes/volumes.h"

namespace muster::plugins::volumes {
namespace {

using framework::ClusterEvent;
using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;

struct RestrictionsState final : framework::StateData {
  bool check_disks = false;
  // The pod's ReadWriteOncePod claims, and how many of them pods already use.
  std::set<api::Symbol> rwop_claims;
  int conflicts = 0;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<RestrictionsState>(*this);
  }
};

bool NeedsDiskCheck(const api::Volume& v) {
  return v.source.gce_persistent_disk || v.source.aws_elastic_block_store || v.source.rbd ||
         v.source.iscsi;
}

// Whether two volumes are one disk that cannot be mounted by both (upstream isVolumeConflict).
bool Conflicts(const api::VolumeSource& a, const api::VolumeSource& b) {
  if (a.gce_persistent_disk && b.gce_persistent_disk) {
    return a.gce_persistent_disk->pd_name == b.gce_persistent_disk->pd_name &&
           !(a.gce_persistent_disk->read_only && b.gce_persistent_disk->read_only);
  }
  if (a.aws_elastic_block_store && b.aws_elastic_block_store) {
    return a.aws_elastic_block_store->volume_id == b.aws_elastic_block_store->volume_id;
  }
  if (a.iscsi && b.iscsi) {
    return a.iscsi->iqn == b.iscsi->iqn && !(a.iscsi->read_only && b.iscsi->read_only);
  }
  if (a.rbd && b.rbd) {
    const bool shared_monitor =
        std::any_of(a.rbd->monitors.begin(), a.rbd->monitors.end(), [&](const std::string& m) {
          return std::find(b.rbd->monitors.begin(), b.rbd->monitors.end(), m) !=
                 b.rbd->monitors.end();
        });
    return shared_monitor && a.rbd->pool == b.rbd->pool && a.rbd->image == b.rbd->image &&
           !(a.rbd->read_only && b.rbd->read_only);
  }
  return false;
}

// How many of `pod`'s persistentVolumeClaim volumes use one of `claims` (upstream compares names
// only, not namespaces).
int Uses(const api::Pod& pod, const std::set<api::Symbol>& claims) {
  int n = 0;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.claim_name && claims.contains(*v.claim_name)) ++n;
  }
  return n;
}

bool UsesClaim(const api::Pod& pod, api::Symbol ns, api::Symbol claim) {
  if (pod.metadata.namespace_ != ns) return false;
  return std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(),
                     [&](const api::Volume& v) { return v.claim_name && *v.claim_name == claim; });
}

}  // namespace

std::unique_ptr<framework::Plugin> VolumeRestrictions::New(const framework::PluginArgs&,
                                                           framework::Handle& handle,
                                                           std::string*) {
  return std::make_unique<VolumeRestrictions>(handle);
}

Status VolumeRestrictions::PreFilter(framework::CycleState& state, const framework::PodInfo& info,
                                     std::span<framework::NodeInfo* const>,
                                     framework::PreFilterResult*) {
  const api::Pod& pod = info.pod;
  if (pod.spec.volumes.empty()) return Status(framework::Code::kSkip);
  auto s = std::make_unique<RestrictionsState>();
  s->check_disks = std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), NeedsDiskCheck);
  for (const api::Volume& v : pod.spec.volumes) {
    if (!v.claim_name) continue;
    const api::PersistentVolumeClaim* pvc =
        handle_.lister().Get<api::PersistentVolumeClaim>(pod.metadata.namespace_, *v.claim_name);
    if (pvc == nullptr) return Status::Unresolvable(ClaimNotFound(v.claim_name->str()));
    if (pvc->spec.access_modes.Has(api::AccessMode::kReadWriteOncePod)) {
      s->rwop_claims.insert(*v.claim_name);
    }
  }
  // A claim counts once however many pods use it, assumed pods included.
  for (const api::Symbol claim : s->rwop_claims) {
    const bool used =
        std::any_of(handle_.snapshot().List().begin(), handle_.snapshot().List().end(),
                    [&](const framework::NodeInfo* node) {
                      for (const framework::PodInfoPtr& p : node->pods()) {
                        if (UsesClaim(p->pod, pod.metadata.namespace_, claim)) return true;
                      }
                      return false;
                    });
    if (used) ++s->conflicts;
  }
  if (!s->check_disks && s->conflicts == 0) return Status(framework::Code::kSkip);
  state.Write(kStateKey, std::move(s));
  return Status::OK();
}

Status VolumeRestrictions::AddPod(framework::CycleState& state, const framework::PodInfo&,
                                  const framework::PodInfo& pod_to_add,
                                  const framework::NodeInfo&) const {
  auto* s = state.Read<RestrictionsState>(kStateKey);
  if (s == nullptr)
    return Status::Error(fmt::format("cannot read \"{}\" from cycleState", kStateKey));
  s->conflicts += Uses(pod_to_add.pod, s->rwop_claims);
  return Status::OK();
}

Status VolumeRestrictions::RemovePod(framework::CycleState& state, const framework::PodInfo&,
                                     const framework::PodInfo& pod_to_remove,
                                     const framework::NodeInfo&) const {
  auto* s = state.Read<RestrictionsState>(kStateKey);
  if (s == nullptr)
    return Status::Error(fmt::format("cannot read \"{}\" from cycleState", kStateKey));
  s->conflicts -= Uses(pod_to_remove.pod, s->rwop_claims);
  return Status::OK();
}

Status VolumeRestrictions::Filter(const framework::CycleState& state,
                                  const framework::PodInfo& info,
                                  const framework::NodeInfo& node) const {
  const auto* s = state.Read<RestrictionsState>(kStateKey);
  if (s == nullptr)
    return Status::Error(fmt::format("cannot read \"{}\" from cycleState", kStateKey));
  if (s->check_disks) {
    for (const api::Volume& v : info.pod.spec.volumes) {
      if (!NeedsDiskCheck(v)) continue;
      for (const framework::PodInfoPtr& p : node.pods()) {
        for (const api::Volume& other : p->pod.spec.volumes) {
          if (Conflicts(v.source, other.source)) {
            static const Status kConflict = framework::SharedFailure(
                framework::Code::kUnschedulable, kErrDiskConflict, kVolumeRestrictionsName);
            return kConflict;
          }
        }
      }
    }
  }
  if (s->conflicts > 0) {
    static const Status kInUse = framework::SharedFailure(
        framework::Code::kUnschedulable, kErrReadWriteOncePodConflict, kVolumeRestrictionsName);
    return kInUse;
  }
  return Status::OK();
}

std::vector<framework::ClusterEventWithHint> VolumeRestrictions::EventsToRegister() const {
  // A deleted pod helps when it held one of the pod's disks or claims.
  auto pod_deleted = [](const api::Pod& pod, const EventObjects& e, Status*) {
    const api::Pod* deleted = e.old_pod;
    if (deleted == nullptr || deleted->metadata.namespace_ != pod.metadata.namespace_) {
      return QueueingHint::kSkip;
    }
    for (const api::Volume& v : pod.spec.volumes) {
      for (const api::Volume& other : deleted->spec.volumes) {
        if (NeedsDiskCheck(v) && Conflicts(v.source, other.source)) return QueueingHint::kQueue;
        if (v.claim_name && other.claim_name && *v.claim_name == *other.claim_name) {
          return QueueingHint::kQueue;
        }
      }
    }
    return QueueingHint::kSkip;
  };
  return {
      {ClusterEvent{framework::EventResource::kAssignedPod, framework::kDelete,
                    "AssignedPodDelete"},
       pod_deleted},
      {ClusterEvent{framework::EventResource::kNode, framework::kAdd, "NodeAdd"}, {}},
      {ClusterEvent{framework::EventResource::Of<api::PersistentVolumeClaim>(), framework::kAdd,
                    "PersistentVolumeClaimAdd"},
       ClaimHint},  // a claim created may be the one PreFilter did not find
  };
}

}  // namespace muster::plugins::volumes
