#pragma once

// What the volume plugins share: which claims a pod's volumes use, the messages the API's
// listers give for objects that do not exist, the topology labels, and CSI migration's map from
// in-tree plugins to CSI drivers.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/types.h"
#include "muster/framework/events.h"
#include "muster/framework/handle.h"
#include "muster/framework/status.h"

namespace muster::plugins::volumes {

// A claim one of a pod's volumes uses.
struct PodClaim {
  api::Symbol name;
  bool ephemeral = false;  // a generic ephemeral volume's: `<pod>-<volume>`, owned by the pod
};
// The claim `volume` uses, if any (persistentVolumeClaim, or a generic ephemeral volume).
std::optional<PodClaim> ClaimOf(const api::Pod& pod, const api::Volume& volume);
// Whether any of the pod's volumes uses a claim.
bool HasClaims(const api::Pod& pod);
// Whether one of the pod's volumes uses `claim` (of its namespace).
bool UsesClaim(const api::Pod& pod, const api::PersistentVolumeClaim& claim);
// The hint of a claim added or updated: Queue when the pod uses it.
framework::QueueingHint ClaimHint(const api::Pod& pod, const framework::EventObjects& event,
                                  framework::Status* error);

// The API server's not-found messages, as its listers word them.
std::string ClaimNotFound(std::string_view name);   // persistentvolumeclaim "x" not found
std::string VolumeNotFound(std::string_view name);  // persistentvolume "x" not found
std::string ClassNotFound(std::string_view name);   // storageclass.storage.k8s.io "x" not found

// The claim an ephemeral volume's controller made for the pod: nullptr with *error when it
// does not exist yet or another owner's claim holds the name (upstream's messages).
const api::PersistentVolumeClaim* EphemeralClaim(const framework::ObjectLister& lister,
                                                 const api::Pod& pod, const PodClaim& claim,
                                                 framework::Status* error);

// The zone and region labels VolumeZone compares, beta first, as upstream lists them.
inline constexpr std::string_view kTopologyLabels[] = {
    "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone", "topology.kubernetes.io/region"};

// CSI migration: the CSI driver an in-tree plugin's volumes move to ("" when none), and whether
// a node (its CSINode, nullptr when it has none) has them migrated.
std::string_view CSIDriverFor(std::string_view in_tree_plugin);
bool MigratedOn(const api::CSINode* csi_node, std::string_view in_tree_plugin);
// The in-tree plugin a volume source belongs to, for migration ("" for a source CSI migration
// does not translate); `handle` gets the volume id it translates to. A PersistentVolume's GCE PD
// handle names its zone (from `pv_labels`), an inline one does not.
std::string_view InTreePlugin(const api::VolumeSource& source, const api::LabelSet* pv_labels,
                              std::string* handle);

}  // namespace muster::plugins::volumes
