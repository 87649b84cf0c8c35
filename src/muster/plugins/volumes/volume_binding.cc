// VolumeBinding (upstream volumebinding: volume_binding.go, binder.go; component-helpers'
// FindMatchingVolume and CheckNodeAffinity).

#include "muster/plugins/volumes/volume_binding.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "muster/plugins/volumes/claims.h"

namespace muster::plugins::volumes {
namespace {

using framework::ClusterEvent;
using framework::Code;
using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;

using Claim = api::PersistentVolumeClaim;
using Volume = api::PersistentVolume;
using Quantity = api::Quantity;

// What the pod's volumes need on the node Filter found for them.
struct NodeVolumes {
  std::vector<std::pair<Claim, Volume>> bindings;  // claims matched to existing volumes
  std::vector<Claim> provisions;                   // claims to provision there
  // Those of `provisions` whose selected node was asked for already (by another pod on the same
  // claim, or an earlier attempt): PreBind waits for them without writing (keys).
  std::set<std::string, std::less<>> already_selected;
  // For scoring provisions: the capacity each provisioned claim's class has there, by class.
  std::map<std::string, Quantity, std::less<>> provision_capacity;
};

// An unbound claim of a WaitForFirstConsumer class, with what provisioning it reads, looked up
// once for every node.
struct Delayed {
  Claim claim;
  const api::StorageClass* sc = nullptr;
  // Whether the class's CSI driver reports storage capacity, and then the CSIStorageCapacities
  // of the class that can hold the claim, in the table's order (the first reaching a node is
  // the one upstream takes).
  bool capacity_reported = false;
  std::vector<const api::CSIStorageCapacity*> capacities;
};

struct BindingState final : framework::StateData {
  // The bound claims' volumes, looked up once (nullptr: the volume does not exist).
  std::vector<const Volume*> bound;
  std::vector<Delayed> delayed;
  // The volumes of each delayed claim's class, by name.
  std::map<std::string, std::vector<const Volume*>, std::less<>> volumes_by_class;
  // Filled by Filter, one node at a time from several threads.
  mutable std::mutex mu;
  mutable std::map<api::Symbol, NodeVolumes> by_node;
  // Reserve's choice, for PreBind: empty when every claim was bound already.
  std::optional<NodeVolumes> reserved;

  BindingState() = default;
  BindingState(const BindingState& o)
      : bound(o.bound),
        delayed(o.delayed),
        volumes_by_class(o.volumes_by_class),

        reserved(o.reserved) {
    std::lock_guard lock(o.mu);
    by_node = o.by_node;
  }
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<BindingState>(*this);
  }
};

// The storage a claim asks for (zero when unset).
Quantity Requested(const Claim& c) { return c.spec.storage.value_or(Quantity()); }

// The capacities of `sc` whose limit (maximumVolumeSize, else capacity) holds `claim`.
std::vector<const api::CSIStorageCapacity*> CapacitiesFor(const framework::ObjectLister& lister,
                                                          const Claim& claim,
                                                          const api::StorageClass& sc) {
  std::vector<const api::CSIStorageCapacity*> out;
  const int64_t needed = claim.spec.storage->Value();
  for (const api::CSIStorageCapacity* c : lister.objects().Of<api::CSIStorageCapacity>().List()) {
    if (c->storage_class_name != sc.metadata.name) continue;
    const std::optional<Quantity>& limit =
        c->maximum_volume_size ? c->maximum_volume_size : c->capacity;
    if (limit && limit->Value() >= needed) out.push_back(c);
  }
  return out;
}

// The broken-line function of the shape at `utilization` percent (upstream's
// BuildBrokenLinearFunction, integer arithmetic as its).
int64_t ShapeScore(std::span<const UtilizationShapePoint> shape, int64_t utilization) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (utilization <= shape[i].utilization) {
      if (i == 0) return shape[0].score;
      const UtilizationShapePoint& a = shape[i - 1];
      const UtilizationShapePoint& b = shape[i];
      return a.score + int64_t{b.score - a.score} * (utilization - a.utilization) /
                           (b.utilization - a.utilization);
    }
  }
  return shape.back().score;
}

}  // namespace

std::unique_ptr<framework::Plugin> VolumeBinding::New(const framework::PluginArgs& args,
                                                      framework::Handle& handle,
                                                      std::string* error) {
  VolumeBindingArgs decoded;
  if (!LoadVolumeBindingArgs(args, &decoded, error)) return nullptr;
  return std::make_unique<VolumeBinding>(decoded, handle);
}

VolumeBinding::VolumeBinding(const VolumeBindingArgs& args, framework::Handle& handle)
    : args_(args), handle_(handle) {
  if (args_.shape) {
    // Scores of 0..10 are scaled to 0..MaxNodeScore, as upstream builds its scorer.
    for (UtilizationShapePoint p : *args_.shape) {
      p.score *= framework::kMaxNodeScore / kMaxCustomPriorityScore;
      shape_.push_back(p);
    }
  }
}

const Claim* VolumeBinding::FindClaim(api::Symbol ns, api::Symbol name) const {
  const Claim* stored = handle_.lister().Get<Claim>(ns, name);
  if (stored == nullptr || assumed_claims_.empty()) return stored;
  auto it = assumed_claims_.find(stored->metadata.Key());
  if (it == assumed_claims_.end() || it->second.base_version != stored->metadata.resource_version) {
    return stored;
  }
  return &it->second.object;
}

const Volume* VolumeBinding::FindVolume(std::string_view name) const {
  const Volume* stored = handle_.lister().Get<Volume>(api::Symbol(name));
  if (stored == nullptr || assumed_volumes_.empty()) return stored;
  auto it = assumed_volumes_.find(name);
  if (it == assumed_volumes_.end() ||
      it->second.base_version != stored->metadata.resource_version) {
    return stored;
  }
  return &it->second.object;
}

void VolumeBinding::ForgetStale() {
  std::erase_if(assumed_volumes_, [&](const auto& entry) {
    const Volume* stored = handle_.lister().Get<Volume>(api::Symbol(entry.first));
    return stored == nullptr || stored->metadata.resource_version != entry.second.base_version;
  });
  std::erase_if(assumed_claims_, [&](const auto& entry) {
    const Claim& c = entry.second.object;
    const Claim* stored =
        handle_.lister().Get<Claim>(c.metadata.namespace_, api::Symbol(c.metadata.name));
    return stored == nullptr || stored->metadata.resource_version != entry.second.base_version;
  });
}

namespace {

// Upstream's GetLocalPersistentVolumeNodeNames: the values of the kubernetes.io/hostname In
// requirements of a volume's node affinity, intersected within a term and joined over terms (a
// term without one adds none), read as node names.
std::vector<api::Symbol> HostnamesOf(const api::PersistentVolume& pv) {
  static const api::Symbol kHostname("kubernetes.io/hostname");
  std::vector<api::Symbol> out;
  if (!pv.spec.node_affinity) return out;
  for (const api::NodeSelectorTerm& term : pv.spec.node_affinity->terms) {
    std::optional<std::vector<api::Symbol>> nodes;
    for (const api::SelectorRequirement& r : term.match_expressions) {
      if (r.key != kHostname || r.op != api::SelectorOperator::kIn) continue;
      if (!nodes) {
        nodes = r.values;
      } else {
        std::erase_if(*nodes, [&](api::Symbol n) {
          return std::find(r.values.begin(), r.values.end(), n) == r.values.end();
        });
      }
    }
    if (!nodes) continue;
    for (api::Symbol n : *nodes) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  }
  return out;
}

// Upstream's GetEligibleNodes (kubernetes#109877, 1.27): the nodes every bound volume with
// hostname affinity names (none such: all nodes); a volume that cannot be found leaves all.
std::optional<std::vector<api::Symbol>> EligibleNodes(
    std::span<const api::PersistentVolume* const> bound) {
  std::optional<std::vector<api::Symbol>> eligible;
  for (const api::PersistentVolume* pv : bound) {
    if (pv == nullptr) return std::nullopt;
    std::vector<api::Symbol> names = HostnamesOf(*pv);
    if (names.empty()) continue;
    if (!eligible) {
      eligible = std::move(names);
    } else {
      std::erase_if(*eligible, [&](api::Symbol n) {
        return std::find(names.begin(), names.end(), n) == names.end();
      });
    }
  }
  return eligible;
}

}  // namespace

Status VolumeBinding::PreFilter(framework::CycleState& state, const framework::PodInfo& info,
                                std::span<framework::NodeInfo* const>,
                                framework::PreFilterResult* result) {
  const api::Pod& pod = info.pod;
  if (!HasClaims(pod)) return Status(framework::Code::kSkip);
  const framework::ObjectLister& lister = handle_.lister();
  ForgetStale();
  auto s = std::make_unique<BindingState>();
  bool unbound_immediate = false;
  for (const api::Volume& v : pod.spec.volumes) {
    const std::optional<PodClaim> ref = ClaimOf(pod, v);
    if (!ref) continue;
    const api::PersistentVolumeClaim* pvc = nullptr;
    if (ref->ephemeral) {
      Status error;
      pvc = EphemeralClaim(lister, pod, *ref, &error);
      if (pvc == nullptr) return Status::Unresolvable(error.Message());
      pvc = FindClaim(pod.metadata.namespace_, ref->name);
    } else {
      pvc = FindClaim(pod.metadata.namespace_, ref->name);
      if (pvc == nullptr) return Status::Unresolvable(ClaimNotFound(ref->name.str()));
    }
    if (pvc->status.phase == api::ClaimPhase::kLost) {
      return Status::Unresolvable(
          fmt::format("persistentvolumeclaim \"{}\" bound to non-existent persistentvolume \"{}\"",
                      ref->name.str(), pvc->spec.volume_name.str()));
    }
    if (pvc->metadata.deletion_timestamp) {
      return Status::Unresolvable(
          fmt::format("persistentvolumeclaim \"{}\" is being deleted", ref->name.str()));
    }
    if (pvc->FullyBound()) {
      s->bound.push_back(FindVolume(pvc->spec.volume_name.str()));
      continue;
    }
    const std::string_view class_name = pvc->ClassName();
    const api::StorageClass* sc =
        class_name.empty() ? nullptr : lister.Get<api::StorageClass>(api::Symbol(class_name));
    const bool delayed =
        sc != nullptr && sc->volume_binding_mode == api::VolumeBindingMode::kWaitForFirstConsumer;
    if (delayed && pvc->spec.volume_name.empty()) {
      Delayed d{*pvc, sc};
      // Capacity counts only for a claim that asks for storage, of a driver that reports it.
      const api::CSIDriver* driver = lister.Get<api::CSIDriver>(api::Symbol(sc->provisioner));
      if (pvc->spec.storage && driver != nullptr && driver->storage_capacity) {
        d.capacity_reported = true;
        d.capacities = CapacitiesFor(lister, *pvc, *sc);
      }
      s->delayed.push_back(std::move(d));
      s->volumes_by_class.try_emplace(std::string(class_name));
    } else {
      unbound_immediate = true;
    }
  }
  if (unbound_immediate) return Status::Unresolvable(std::string(kErrUnboundImmediate));
  // Bound local volumes name their nodes: the others are turned away here, in VolumeBinding's
  // name, rather than one by one at Filter.
  if (std::optional<std::vector<api::Symbol>> eligible = EligibleNodes(s->bound)) {
    result->node_names = std::move(eligible);
  }
  if (!s->volumes_by_class.empty()) {
    // Every volume of those classes, in name order (the table's): a deterministic order where
    // upstream's is its cache's.
    for (const api::PersistentVolume* pv : lister.objects().Of<api::PersistentVolume>().List()) {
      if (!assumed_volumes_.empty()) pv = FindVolume(pv->metadata.name);
      auto it = s->volumes_by_class.find(pv->ClassName());
      if (it != s->volumes_by_class.end()) it->second.push_back(pv);
    }
  }
  state.Write(kStateKey, std::move(s));
  return Status::OK();
}

Status VolumeBinding::Filter(const framework::CycleState& state, const framework::PodInfo&,
                             const framework::NodeInfo& node) const {
  const auto* s = state.Read<BindingState>(kStateKey);
  if (s == nullptr)
    return Status::Error(fmt::format("cannot read \"{}\" from cycleState", kStateKey));
  const api::LabelSet& labels = node.node()->metadata.labels;
  bool bound_satisfied = true, unbound_satisfied = true, enough_storage = true,
       volumes_exist = true;
  NodeVolumes result;
  for (const api::PersistentVolume* pv : s->bound) {
    if (pv == nullptr) {
      volumes_exist = false;
      break;
    }
    if (!api::VolumeAdmits(*pv, labels)) {
      bound_satisfied = false;
      break;
    }
  }
  if (!s->delayed.empty()) {
    std::vector<const Delayed*> to_match, to_provision;
    bool elsewhere = false;
    for (const Delayed& d : s->delayed) {
      const auto& annotations = d.claim.metadata.annotations;
      auto selected = annotations.find(std::string(api::kSelectedNodeAnnotation));
      if (selected == annotations.end()) {
        to_match.push_back(&d);
      } else if (selected->second == node.name().str()) {
        to_provision.push_back(&d);
      } else {
        elsewhere = true;  // its volume is being provisioned for another node
        break;
      }
    }
    if (elsewhere) {
      unbound_satisfied = false;
    } else {
      // Smallest claims first, each taking the smallest volume that fits.
      std::stable_sort(to_match.begin(), to_match.end(), [](const Delayed* a, const Delayed* b) {
        return Requested(a->claim) < Requested(b->claim);
      });
      std::set<std::string, std::less<>> chosen;
      for (const Delayed* d : to_match) {
        const std::vector<const Volume*>& candidates =
            s->volumes_by_class.find(d->claim.ClassName())->second;
        const Volume* pv = api::FindMatchingVolume(d->claim, candidates, &labels, chosen);
        if (pv == nullptr) {
          unbound_satisfied = false;
          to_provision.push_back(d);
          continue;
        }
        chosen.insert(pv->metadata.name);
        result.bindings.emplace_back(d->claim, *pv);
      }
      if (!to_provision.empty()) {
        // A claim no volume matched may still be provisioned here: that decides.
        unbound_satisfied = true;
        for (const Delayed* d : to_provision) {
          const api::StorageClass& sc = *d->sc;  // found by PreFilter: the claim is delayed
          if (sc.provisioner.empty() || sc.provisioner == api::kNoProvisioner ||
              !api::MatchesTopology(sc.allowed_topologies, labels)) {
            unbound_satisfied = false;
            break;
          }
          const api::CSIStorageCapacity* capacity = nullptr;
          if (d->capacity_reported) {
            auto reaches = std::find_if(
                d->capacities.begin(), d->capacities.end(), [&](const api::CSIStorageCapacity* c) {
                  return c->node_topology && c->node_topology->Matches(labels);
                });
            if (reaches == d->capacities.end()) {
              enough_storage = false;
              break;
            }
            capacity = *reaches;
          }
          result.provisions.push_back(d->claim);
          if (capacity != nullptr) {
            result.provision_capacity[sc.metadata.name] = capacity->capacity.value_or(Quantity());
          }
        }
      }
    }
  }
  std::vector<std::string> reasons;
  if (!bound_satisfied) reasons.emplace_back(kErrNodeConflict);
  if (!unbound_satisfied) reasons.emplace_back(kErrBindConflict);
  if (!enough_storage) reasons.emplace_back(kErrNotEnoughSpace);
  if (!volumes_exist) reasons.emplace_back(kErrVolumeNotExist);
  if (!reasons.empty()) {
    return Status(framework::Code::kUnschedulableAndUnresolvable, std::move(reasons));
  }
  if (!s->delayed.empty()) {
    std::lock_guard lock(s->mu);
    s->by_node[node.name()] = std::move(result);
  }
  return Status::OK();
}

Status VolumeBinding::PreScore(framework::CycleState& state, const framework::PodInfo&,
                               std::span<framework::NodeInfo* const>) {
  if (shape_.empty()) return Status(framework::Code::kSkip);
  const auto* s = state.Read<BindingState>(kStateKey);
  if (s == nullptr || s->delayed.empty()) return Status(framework::Code::kSkip);
  return Status::OK();
}

Status VolumeBinding::Score(const framework::CycleState& state, const framework::PodInfo&,
                            const framework::NodeInfo& node, int64_t* score) const {
  *score = 0;
  const auto* s = state.Read<BindingState>(kStateKey);
  if (s == nullptr || shape_.empty()) return Status::OK();
  std::lock_guard lock(s->mu);
  auto it = s->by_node.find(node.name());
  if (it == s->by_node.end()) return Status::OK();
  const NodeVolumes& volumes = it->second;
  // Per class: what the pod asks of it against what it has, on the volumes chosen, or on the
  // capacity a provisioned class has there.
  std::map<std::string, std::pair<int64_t, int64_t>, std::less<>> classes;
  if (!volumes.bindings.empty()) {
    for (const auto& [pvc, pv] : volumes.bindings) {
      auto& [requested, capacity] = classes[pv.spec.storage_class_name];
      requested += Requested(pvc).Value();
      capacity += pv.spec.capacity.Value();
    }
  } else {
    for (const Claim& pvc : volumes.provisions) {
      auto cap = volumes.provision_capacity.find(pvc.ClassName());
      if (cap == volumes.provision_capacity.end()) continue;
      auto& [requested, capacity] = classes[std::string(pvc.ClassName())];
      requested += Requested(pvc).Value();
      capacity = cap->second.Value();
    }
  }
  if (classes.empty()) return Status::OK();
  int64_t total = 0;
  for (const auto& [name, rc] : classes) {
    const auto [requested, capacity] = rc;
    const int64_t utilization =
        capacity == 0 || requested > capacity ? 100 : requested * 100 / capacity;
    total += ShapeScore(shape_, utilization);
  }
  *score = static_cast<int64_t>(
      std::llround(static_cast<double>(total) / static_cast<double>(classes.size())));
  return Status::OK();
}

Status VolumeBinding::Reserve(framework::CycleState& state, const framework::PodInfo& info,
                              api::Symbol node) {
  auto* s = state.Read<BindingState>(kStateKey);
  if (s == nullptr) return Status::OK();
  std::unique_lock lock(s->mu);
  auto it = s->by_node.find(node);
  if (it == s->by_node.end()) return Status::OK();  // every claim is bound
  NodeVolumes chosen = it->second;
  lock.unlock();
  const std::string pod = info.pod.metadata.Key();
  for (auto& [pvc, pv] : chosen.bindings) {
    const std::string base = pv.metadata.resource_version;
    // The claimRef the PV controller would write (upstream GetBindVolumeToClaim): marked as the
    // controller's when the volume was not already the claim's.
    const bool was_bound = api::BoundTo(pv, pvc);
    pv.spec.claim_ref = api::ClaimReference(pvc);
    if (!was_bound) {
      pv.metadata.annotations.try_emplace(std::string(api::kBoundByControllerAnnotation), "yes");
    }
    assumed_volumes_[pv.metadata.name] = Assumed<api::PersistentVolume>{base, pv, pod};
  }
  for (Claim& pvc : chosen.provisions) {
    const std::string base = pvc.metadata.resource_version;
    // Asked for already, as the cluster has it or another pod's reservation assumed it (a pod
    // of the same gang on the same claim, placed before this one was reserved).
    const std::string key(api::kSelectedNodeAnnotation);
    if (const Claim* now = FindClaim(pvc.metadata.namespace_, api::Symbol(pvc.metadata.name))) {
      auto it = now->metadata.annotations.find(key);
      if (it != now->metadata.annotations.end() && it->second == node.str()) {
        chosen.already_selected.insert(pvc.metadata.Key());
      }
    }
    pvc.metadata.annotations[key] = node.string();
    assumed_claims_[pvc.metadata.Key()] = Assumed<Claim>{base, pvc, pod};
  }
  if (!chosen.bindings.empty() || !chosen.provisions.empty()) s->reserved = std::move(chosen);
  return Status::OK();
}

void VolumeBinding::Unreserve(framework::CycleState& state, const framework::PodInfo& info,
                              api::Symbol) {
  auto* s = state.Read<BindingState>(kStateKey);
  if (s == nullptr || !s->reserved) return;
  const std::string pod = info.pod.metadata.Key();
  for (const auto& [pvc, pv] : s->reserved->bindings) {
    auto it = assumed_volumes_.find(pv.metadata.name);
    if (it != assumed_volumes_.end() && it->second.pod == pod) assumed_volumes_.erase(it);
  }
  for (const Claim& pvc : s->reserved->provisions) {
    auto it = assumed_claims_.find(pvc.metadata.Key());
    if (it != assumed_claims_.end() && it->second.pod == pod) assumed_claims_.erase(it);
  }
  s->reserved.reset();
}

Status VolumeBinding::PreBindPreFlight(const framework::CycleState& state,
                                       const framework::PodInfo&, api::Symbol) const {
  const auto* s = state.Read<BindingState>(kStateKey);
  return s != nullptr && s->reserved ? Status::OK() : Status(Code::kSkip);
}

Status VolumeBinding::PreBind(framework::CycleState& state, const framework::PodInfo&,
                              api::Symbol node) {
  const auto* s = state.Read<BindingState>(kStateKey);
  if (s == nullptr || !s->reserved) return Status(Code::kSkip);  // nothing to bind
  framework::ClusterClient& client = handle_.client();
  for (const auto& [pvc, pv] : s->reserved->bindings) {
    if (Status w = client.BindVolume(pv); !w.IsSuccess()) {
      return Status::Error(fmt::format("binding volumes: persistentvolume \"{}\": {}",
                                       pv.metadata.name, w.Message()));
    }
  }
  for (const Claim& pvc : s->reserved->provisions) {
    if (s->reserved->already_selected.contains(pvc.metadata.Key())) continue;
    if (Status w = client.SelectNode(pvc, node); !w.IsSuccess()) {
      return Status::Error(fmt::format("binding volumes: persistentvolumeclaim \"{}\": {}",
                                       pvc.metadata.Key(), w.Message()));
    }
  }
  // The PV controller and the provisioner finish the binding; PreBindWait watches them.
  return Status(Code::kWait);
}

// Upstream's checkBindings, on the cluster's objects (not the assumed ones), in its order: Wait
// at the first claim not fully bound yet; an error when the cluster undid what PreBind asked for.
Status VolumeBinding::PreBindWait(framework::CycleState& state, const framework::PodInfo&,
                                  api::Symbol node, api::Duration waited) {
  const auto* s = state.Read<BindingState>(kStateKey);
  if (s == nullptr || !s->reserved) return Status::OK();
  const framework::ObjectLister& lister = handle_.lister();
  auto not_yet = [&] {
    if (waited >=
        std::chrono::seconds(args_.bind_timeout_seconds.value_or(kDefaultBindTimeoutSeconds))) {
      return Status::Error("binding volumes: context deadline exceeded");
    }
    return Status(Code::kWait);
  };
  const framework::NodeInfo* node_info = handle_.snapshot().Get(node);
  if (node_info == nullptr || node_info->node() == nullptr) {
    return Status::Error(
        fmt::format("binding volumes: failed to get node \"{}\": node \"{}\" not found", node.str(),
                    node.str()));
  }
  const api::LabelSet& labels = node_info->node()->metadata.labels;
  auto admits = [&](const Volume& pv) -> Status {
    if (api::VolumeAdmits(pv, labels)) return Status::OK();
    return Status::Error(fmt::format(
        "binding volumes: pv \"{}\" node affinity doesn't match node \"{}\": no matching "
        "NodeSelectorTerms",
        pv.metadata.name, node.str()));
  };
  for (const auto& [want_claim, want_pv] : s->reserved->bindings) {
    const Volume* pv = lister.Get<Volume>(api::Symbol(want_pv.metadata.name));
    if (pv == nullptr) {
      return Status::Error(fmt::format(
          "binding volumes: failed to check binding: could not find v1.PersistentVolume \"{}\"",
          want_pv.metadata.name));
    }
    const Claim* pvc =
        lister.Get<Claim>(want_claim.metadata.namespace_, api::Symbol(want_claim.metadata.name));
    if (pvc == nullptr) {
      return Status::Error(fmt::format(
          "binding volumes: failed to check binding: could not find v1.PersistentVolumeClaim "
          "\"{}\"",
          want_claim.metadata.Key()));
    }
    // Still the version PreBind wrote over, and not yet what it wrote: the write has not
    // reached this cache. (A write that changed nothing leaves the version as it was.)
    if (pv->metadata.resource_version == want_pv.metadata.resource_version &&
        !api::BoundTo(*pv, *pvc)) {
      return not_yet();
    }
    if (Status a = admits(*pv); !a.IsSuccess()) return a;
    if (!pv->spec.claim_ref || pv->spec.claim_ref->uid.empty()) {
      return Status::Error(
          fmt::format("binding volumes: ClaimRef got reset for pv \"{}\"", pv->metadata.name));
    }
    if (!pvc->FullyBound()) return not_yet();
  }
  for (const Claim& want : s->reserved->provisions) {
    const Claim* pvc = lister.Get<Claim>(want.metadata.namespace_, api::Symbol(want.metadata.name));
    if (pvc == nullptr) {
      return Status::Error(
          fmt::format("binding volumes: failed to check provisioning pvc: could not find "
                      "v1.PersistentVolumeClaim \"{}\"",
                      want.metadata.Key()));
    }
    const auto& annotations = pvc->metadata.annotations;
    auto selected = annotations.find(std::string(api::kSelectedNodeAnnotation));
    const bool selected_here = selected != annotations.end() && selected->second == node.str();
    if (pvc->metadata.resource_version == want.metadata.resource_version && !selected_here) {
      return not_yet();
    }
    if (annotations.empty()) {
      return Status::Error(fmt::format(
          "binding volumes: selectedNode annotation reset for PVC \"{}\"", pvc->metadata.name));
    }
    if (!selected_here) {
      // The provisioner takes the annotation away when it cannot provision there.
      return Status::Error(
          fmt::format("binding volumes: provisioning failed for PVC \"{}\"", pvc->metadata.name));
    }
    if (!pvc->spec.volume_name.empty()) {
      const Volume* pv = lister.Get<Volume>(pvc->spec.volume_name);
      if (pv == nullptr) return not_yet();  // not seen yet, or deleted: then unbound in time
      if (Status a = admits(*pv); !a.IsSuccess()) return a;
    }
    if (!pvc->FullyBound()) return not_yet();
  }
  return Status::OK();
}

std::vector<framework::ClusterEventWithHint> VolumeBinding::EventsToRegister() const {
  auto class_changed = [](const api::Pod&, const EventObjects& e, Status*) {
    const api::StorageClass* before = e.Old<api::StorageClass>();
    const api::StorageClass* after = e.New<api::StorageClass>();
    if (before == nullptr || after == nullptr) return QueueingHint::kQueue;
    auto keys = [](const api::StorageClass& sc) {
      std::vector<std::pair<api::Symbol, std::vector<api::Symbol>>> out;
      for (const api::TopologySelectorTerm& t : sc.allowed_topologies) {
        for (const auto& r : t.match_label_expressions) out.emplace_back(r.key, r.values);
        out.emplace_back(api::Symbol(), std::vector<api::Symbol>{});
      }
      return out;
    };
    return keys(*before) != keys(*after) ? QueueingHint::kQueue : QueueingHint::kSkip;
  };
  auto capacity_changed = [](const api::Pod&, const EventObjects& e, Status*) {
    const api::CSIStorageCapacity* before = e.Old<api::CSIStorageCapacity>();
    const api::CSIStorageCapacity* after = e.New<api::CSIStorageCapacity>();
    if (before == nullptr) return QueueingHint::kQueue;
    if (after == nullptr) return QueueingHint::kSkip;
    auto limit = [](const api::CSIStorageCapacity& c) {
      return c.maximum_volume_size ? c.maximum_volume_size : c.capacity;
    };
    const std::optional<Quantity> was = limit(*before), now = limit(*after);
    return now && (!was || *was < *now) ? QueueingHint::kQueue : QueueingHint::kSkip;
  };
  auto csi_node_changed = [](const api::Pod&, const EventObjects& e, Status*) {
    const api::CSINode* before = e.Old<api::CSINode>();
    const api::CSINode* after = e.New<api::CSINode>();
    if (before == nullptr || after == nullptr) return QueueingHint::kQueue;
    const std::string key(api::kMigratedPluginsAnnotation);
    auto value = [&](const api::CSINode& n) {
      auto it = n.metadata.annotations.find(key);
      return it == n.metadata.annotations.end() ? std::optional<std::string>() : it->second;
    };
    return value(*before) != value(*after) ? QueueingHint::kQueue : QueueingHint::kSkip;
  };
  using framework::EventResource;
  const uint32_t add_update = framework::kAdd | framework::kUpdateOther;
  return {
      {ClusterEvent{EventResource::Of<api::StorageClass>(), add_update, "StorageClassAdd|Update"},
       class_changed},
      {ClusterEvent{EventResource::Of<api::PersistentVolumeClaim>(), add_update,
                    "PersistentVolumeClaimAdd|Update"},
       ClaimHint},
      {ClusterEvent{EventResource::Of<api::PersistentVolume>(), add_update,
                    "PersistentVolumeAdd|Update"},
       {}},
      {ClusterEvent{EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel,
                    "NodeAdd|UpdateNodeLabel"},
       {}},
      {ClusterEvent{EventResource::Of<api::CSINode>(), add_update, "CSINodeAdd|Update"},
       csi_node_changed},
      {ClusterEvent{EventResource::Of<api::CSIStorageCapacity>(), add_update,
                    "CSIStorageCapacityAdd|Update"},
       capacity_changed},
  };
}

}  // namespace muster::plugins::volumes
