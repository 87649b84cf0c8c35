#pragma once

// How claims and volumes go together, as upstream's component-helpers (storage/volume) decide it
// for the scheduler and the PersistentVolume controller alike.

#include <functional>
#include <set>
#include <span>
#include <string>

#include "muster/api/types.h"

namespace muster::api {

// A reference to the claim, as a volume's claimRef names it.
ObjectReference ClaimReference(const PersistentVolumeClaim& claim);

// The class DefaultStorageClass admission gives a claim that names none: of the classes marked
// default, the newest, then the first by name; nullptr when none is marked.
const StorageClass* DefaultStorageClass(std::span<const StorageClass* const> classes);

// Whether `pv` is bound, or pre-bound, to `claim`: its claimRef names the claim (and its uid,
// when it has one). Upstream IsVolumeBoundToClaim.
bool BoundTo(const PersistentVolume& pv, const PersistentVolumeClaim& claim);

// Whether the volume's node affinity admits a node with `labels` (upstream CheckNodeAffinity:
// the node is known by its labels only, so matchFields requirements are passed over).
bool VolumeAdmits(const PersistentVolume& pv, const LabelSet& labels);

// The volume upstream's FindMatchingVolume picks for `claim` among `volumes` on a node with
// `node_labels` (nullptr: no node in particular, as the PV controller matches an Immediate
// claim), leaving out `excluded` (by name): the one pre-bound to the claim (none at all when its
// node affinity fails), else the smallest available one of the claim's class, volume mode,
// attributes class, access modes and selector; the first in `volumes`' order among equals.
const PersistentVolume* FindMatchingVolume(const PersistentVolumeClaim& claim,
                                           std::span<const PersistentVolume* const> volumes,
                                           const LabelSet* node_labels,
                                           const std::set<std::string, std::less<>>& excluded);

}  // namespace muster::api
