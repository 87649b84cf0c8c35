// The storage kinds' helpers (types.h) and the volume vocabulary (volume_sources.h).

#include "muster/api/storage.h"

#include <algorithm>

namespace muster::api {
namespace {

// The annotation `key`'s value, or nullptr.
const std::string* Annotation(const ObjectMeta& meta, std::string_view key) {
  auto it = meta.annotations.find(std::string(key));
  return it == meta.annotations.end() ? nullptr : &it->second;
}

}  // namespace

std::vector<std::string_view> AccessModes::Names() const {
  std::vector<std::string_view> names;
  for (size_t i = 0; i < std::size(kAccessModeNames); ++i) {
    if (Has(static_cast<AccessMode>(i))) names.push_back(kAccessModeNames[i]);
  }
  return names;
}

std::string_view PersistentVolume::ClassName() const {
  if (const std::string* a = Annotation(metadata, kBetaStorageClassAnnotation)) return *a;
  return spec.storage_class_name;
}

std::string_view PersistentVolumeClaim::ClassName() const {
  if (const std::string* a = Annotation(metadata, kBetaStorageClassAnnotation)) return *a;
  return spec.storage_class_name ? std::string_view(*spec.storage_class_name) : std::string_view();
}

bool PersistentVolumeClaim::FullyBound() const {
  return !spec.volume_name.empty() && Annotation(metadata, kBindCompletedAnnotation) != nullptr;
}

bool MatchesTopology(std::span<const TopologySelectorTerm> terms, const LabelSet& labels) {
  if (terms.empty()) return true;
  // A term without requirements selects nothing.
  return std::any_of(terms.begin(), terms.end(), [&](const TopologySelectorTerm& term) {
    return !term.match_label_expressions.empty() &&
           std::all_of(term.match_label_expressions.begin(), term.match_label_expressions.end(),
                       [&](const TopologySelectorTerm::Requirement& r) {
                         const Symbol* value = labels.Get(r.key);
                         return value != nullptr && std::find(r.values.begin(), r.values.end(),
                                                              *value) != r.values.end();
                       });
  });
}

bool StorageClass::IsDefault() const {
  for (std::string_view key : {kDefaultClassAnnotation, kBetaDefaultClassAnnotation}) {
    if (const std::string* a = Annotation(metadata, key); a != nullptr && *a == "true") return true;
  }
  return false;
}

ObjectReference ClaimReference(const PersistentVolumeClaim& claim) {
  ObjectReference ref;
  ref.kind = "PersistentVolumeClaim";
  ref.namespace_ = claim.metadata.namespace_.string();
  ref.name = claim.metadata.name;
  ref.uid = claim.metadata.uid;
  ref.api_version = "v1";
  ref.resource_version = claim.metadata.resource_version;
  return ref;
}

const StorageClass* DefaultStorageClass(std::span<const StorageClass* const> classes) {
  const StorageClass* chosen = nullptr;
  for (const StorageClass* sc : classes) {
    if (!sc->IsDefault()) continue;
    const auto& created = sc->metadata.creation_timestamp;
    const auto& chosen_created = chosen == nullptr ? created : chosen->metadata.creation_timestamp;
    if (chosen == nullptr || created > chosen_created ||
        (created == chosen_created && sc->metadata.name < chosen->metadata.name)) {
      chosen = sc;
    }
  }
  return chosen;
}

bool BoundTo(const PersistentVolume& pv, const PersistentVolumeClaim& claim) {
  if (!pv.spec.claim_ref) return false;
  const ObjectReference& ref = *pv.spec.claim_ref;
  return ref.name == claim.metadata.name && ref.namespace_ == claim.metadata.namespace_.str() &&
         (ref.uid.empty() || ref.uid == claim.metadata.uid);
}

bool VolumeAdmits(const PersistentVolume& pv, const LabelSet& labels) {
  if (!pv.spec.node_affinity) return true;
  // Known by its labels only (no name): matchFields requirements are passed over.
  return pv.spec.node_affinity->Matches(labels, Symbol());
}

const PersistentVolume* FindMatchingVolume(const PersistentVolumeClaim& claim,
                                           std::span<const PersistentVolume* const> volumes,
                                           const LabelSet* node_labels,
                                           const std::set<std::string, std::less<>>& excluded) {
  const Quantity requested = claim.spec.storage.value_or(Quantity());
  const std::string_view claim_class = claim.ClassName();
  const PersistentVolume* smallest = nullptr;
  for (const PersistentVolume* pv : volumes) {
    if (excluded.contains(pv->metadata.name)) continue;
    if (pv->spec.claim_ref && !BoundTo(*pv, claim)) continue;
    if (pv->spec.capacity < requested) continue;
    if (pv->spec.volume_mode != claim.spec.volume_mode) continue;
    if (pv->spec.volume_attributes_class_name != claim.spec.volume_attributes_class_name) continue;
    if (pv->metadata.deletion_timestamp) continue;
    const bool admits = node_labels == nullptr || VolumeAdmits(*pv, *node_labels);
    // A volume pre-bound to the claim is the claim's, or nothing is.
    if (BoundTo(*pv, claim)) return admits ? pv : nullptr;
    if (pv->status.phase != VolumePhase::kAvailable) continue;
    if (claim.spec.selector && !claim.spec.selector->Matches(pv->metadata.labels)) continue;
    if (pv->ClassName() != claim_class || !admits) continue;
    if (!pv->spec.access_modes.Contains(claim.spec.access_modes)) continue;
    if (smallest == nullptr || pv->spec.capacity < smallest->spec.capacity) smallest = pv;
  }
  return smallest;
}

}  // namespace muster::api
