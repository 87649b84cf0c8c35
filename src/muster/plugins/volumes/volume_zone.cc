// VolumeZone (upstream volumezone): the pod's bound volumes' zone and region labels against the
// node's.

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "muster/plugins/volumes/claims.h"
#include "muster/plugins/volumes/volumes.h"

namespace muster::plugins::volumes {
namespace {

using framework::ClusterEvent;
using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;

// One topology label of a volume: the values (zones or regions) it may be in.
struct Topology {
  api::Symbol key;
  std::vector<std::string> values;

  friend bool operator==(const Topology&, const Topology&) = default;
};

struct ZoneState final : framework::StateData {
  std::vector<Topology> topologies;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<ZoneState>(*this);
  }
};

// A label value "a__b" lists several; an empty item makes the whole label unreadable (upstream
// logs it and ignores the label).
std::optional<std::vector<std::string>> SplitValues(std::string_view value) {
  std::vector<std::string> out;
  while (true) {
    const size_t sep = value.find("__");
    std::string_view item = value.substr(0, sep);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) {
      item.remove_prefix(1);
    }
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) {
      item.remove_suffix(1);
    }
    if (item.empty()) return std::nullopt;
    out.emplace_back(item);
    if (sep == std::string_view::npos) break;
    value.remove_prefix(sep + 2);
  }
  return out;
}

// kTopologyLabels, interned once: Filter reads them on every node.
const std::array<api::Symbol, 4>& TopologyKeys() {
  static const std::array<api::Symbol, 4> keys = {
      api::Symbol(kTopologyLabels[0]), api::Symbol(kTopologyLabels[1]),
      api::Symbol(kTopologyLabels[2]), api::Symbol(kTopologyLabels[3])};
  return keys;
}

std::vector<Topology> TopologiesOf(const api::PersistentVolume& pv) {
  std::vector<Topology> out;
  for (api::Symbol k : TopologyKeys()) {
    const api::Symbol* value = pv.metadata.labels.Get(k);
    if (value == nullptr) continue;
    if (std::optional<std::vector<std::string>> values = SplitValues(value->str())) {
      out.push_back(Topology{k, std::move(*values)});
    }
  }
  return out;
}

// The GA label a beta one became (the beta is read from a node only through its GA label).
api::Symbol GALabel(api::Symbol key) {
  const std::array<api::Symbol, 4>& k = TopologyKeys();  // beta zone, beta region, zone, region
  if (key == k[0]) return k[2];
  if (key == k[1]) return k[3];
  return key;
}

}  // namespace

std::unique_ptr<framework::Plugin> VolumeZone::New(const framework::PluginArgs&,
                                                   framework::Handle& handle, std::string*) {
  return std::make_unique<VolumeZone>(handle);
}

Status VolumeZone::PreFilter(framework::CycleState& state, const framework::PodInfo& info,
                             std::span<framework::NodeInfo* const>, framework::PreFilterResult*) {
  const api::Pod& pod = info.pod;
  if (pod.spec.volumes.empty()) return Status(framework::Code::kSkip);
  const framework::ObjectLister& lister = handle_.lister();
  auto s = std::make_unique<ZoneState>();
  // Only persistentVolumeClaim volumes: ephemeral and inline ones are not looked at.
  for (const api::Volume& v : pod.spec.volumes) {
    if (!v.claim_name) continue;
    if (v.claim_name->empty()) return Status::Unresolvable("PersistentVolumeClaim had no name");
    const api::PersistentVolumeClaim* pvc =
        lister.Get<api::PersistentVolumeClaim>(pod.metadata.namespace_, *v.claim_name);
    if (pvc == nullptr) return Status::Unresolvable(ClaimNotFound(v.claim_name->str()));
    if (pvc->spec.volume_name.empty()) {
      const std::string_view class_name = pvc->ClassName();
      if (class_name.empty()) {
        return Status::Unresolvable("PersistentVolumeClaim had no pv name and storageClass name");
      }
      const api::StorageClass* sc = lister.Get<api::StorageClass>(api::Symbol(class_name));
      if (sc == nullptr) return Status::Unresolvable(ClassNotFound(class_name));
      // A claim bound later, on the node chosen: VolumeBinding's to check.
      if (sc->volume_binding_mode == api::VolumeBindingMode::kWaitForFirstConsumer) continue;
      return Status::Unresolvable("PersistentVolume had no name");
    }
    const api::PersistentVolume* pv = lister.Get<api::PersistentVolume>(pvc->spec.volume_name);
    if (pv == nullptr) return Status::Unresolvable(VolumeNotFound(pvc->spec.volume_name.str()));
    for (Topology& t : TopologiesOf(*pv)) s->topologies.push_back(std::move(t));
  }
  if (s->topologies.empty()) return Status(framework::Code::kSkip);
  state.Write(kStateKey, std::move(s));
  return Status::OK();
}

Status VolumeZone::Filter(const framework::CycleState& state, const framework::PodInfo& info,
                          const framework::NodeInfo& node) const {
  if (info.pod.spec.volumes.empty()) return Status::OK();
  const auto* s = state.Read<ZoneState>(kStateKey);
  if (s == nullptr)
    return Status::Error(fmt::format("cannot read \"{}\" from cycleState", kStateKey));
  const api::LabelSet& labels = node.node()->metadata.labels;
  // A node without any zone or region label is in every zone (a cluster of one zone).
  const bool has_topology = std::any_of(TopologyKeys().begin(), TopologyKeys().end(),
                                        [&](api::Symbol k) { return labels.Has(k); });
  if (!has_topology) return Status::OK();
  for (const Topology& t : s->topologies) {
    const api::Symbol* value = labels.Get(t.key);
    if (value == nullptr) value = labels.Get(GALabel(t.key));
    if (value == nullptr ||
        std::find(t.values.begin(), t.values.end(), value->str()) == t.values.end()) {
      static const Status kConflict = framework::SharedFailure(
          framework::Code::kUnschedulableAndUnresolvable, kErrNoVolumeZone, kVolumeZoneName);
      return kConflict;
    }
  }
  return Status::OK();
}

std::vector<framework::ClusterEventWithHint> VolumeZone::EventsToRegister() const {
  auto class_added = [](const api::Pod&, const EventObjects& e, Status*) {
    const api::StorageClass* sc = e.New<api::StorageClass>();
    return sc != nullptr && sc->volume_binding_mode == api::VolumeBindingMode::kWaitForFirstConsumer
               ? QueueingHint::kQueue
               : QueueingHint::kSkip;
  };
  auto volume_changed = [](const api::Pod&, const EventObjects& e, Status*) {
    const api::PersistentVolume* before = e.Old<api::PersistentVolume>();
    const api::PersistentVolume* after = e.New<api::PersistentVolume>();
    if (before == nullptr || after == nullptr) return QueueingHint::kQueue;
    return TopologiesOf(*before) != TopologiesOf(*after) ? QueueingHint::kQueue
                                                         : QueueingHint::kSkip;
  };
  return {
      {ClusterEvent{framework::EventResource::Of<api::StorageClass>(), framework::kAdd,
                    "StorageClassAdd"},
       class_added},
      {ClusterEvent{framework::EventResource::kNode, framework::kAdd | framework::kUpdateNodeLabel,
                    "NodeAdd|UpdateNodeLabel"},
       {}},
      {ClusterEvent{framework::EventResource::Of<api::PersistentVolumeClaim>(),
                    framework::kAdd | framework::kUpdateOther, "PersistentVolumeClaimAdd|Update"},
       ClaimHint},
      {ClusterEvent{framework::EventResource::Of<api::PersistentVolume>(),
                    framework::kAdd | framework::kUpdateOther, "PersistentVolumeAdd|Update"},
       volume_changed},
  };
}

}  // namespace muster::plugins::volumes
