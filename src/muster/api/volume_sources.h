#pragma once

// The parts of core/v1 that say where a pod's storage comes from: a pod's volumes, the claim
// spec a PersistentVolumeClaim (or an ephemeral volume's template) holds, and the volume sources
// the scheduler's volume plugins read. A source the plugins never read (configMap, secret,
// emptyDir, nfs...) is kept by its field name only. The storage objects themselves are in
// types.h.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/labels.h"
#include "muster/api/quantity.h"

namespace muster::api {

// A volume's access modes, a set of the four.
enum class AccessMode : uint8_t {
  kReadWriteOnce,
  kReadOnlyMany,
  kReadWriteMany,
  kReadWriteOncePod
};
inline constexpr std::string_view kAccessModeNames[] = {"ReadWriteOnce", "ReadOnlyMany",
                                                        "ReadWriteMany", "ReadWriteOncePod"};
struct AccessModes {
  uint8_t bits = 0;

  bool empty() const { return bits == 0; }
  bool Has(AccessMode m) const { return (bits & (1u << static_cast<unsigned>(m))) != 0; }
  void Add(AccessMode m) { bits = static_cast<uint8_t>(bits | (1u << static_cast<unsigned>(m))); }
  // Whether every mode of `other` is one of these (upstream's CheckAccessModes).
  bool Contains(AccessModes other) const { return (other.bits & ~bits) == 0; }
  // The names, in the API's order.
  std::vector<std::string_view> Names() const;

  friend bool operator==(AccessModes, AccessModes) = default;
};

enum class VolumeMode : uint8_t { kFilesystem, kBlock };
inline constexpr std::string_view kVolumeModeNames[] = {"Filesystem", "Block"};

// ---- the in-tree sources the volume plugins read ----

struct GCEPersistentDiskSource {
  std::string pd_name;
  bool read_only = false;
};

struct AWSElasticBlockStoreSource {
  std::string volume_id;
  bool read_only = false;
};

struct RBDSource {
  std::vector<std::string> monitors;
  std::string image;
  std::string pool = "rbd";  // the API server's default
  bool read_only = false;
};

struct ISCSISource {
  std::string target_portal;
  std::string iqn;
  bool read_only = false;
};

// An in-tree source CSI migration moves to a CSI driver, other than GCE PD and AWS EBS (which
// the disk-conflict check reads as themselves): its plugin ("kubernetes.io/azure-disk") and the
// field that names the volume (azureDisk.diskURI, cinder.volumeID, portworxVolume.volumeID,
// vsphereVolume.volumePath, azureFile.shareName).
struct MigratableSource {
  std::string_view plugin;
  std::string handle;
};

// A CSI volume: a PersistentVolume's (driver and volumeHandle) or a pod's inline ephemeral one
// (driver only).
struct CSISource {
  std::string driver;
  std::string volume_handle;
  bool read_only = false;
};

// The sources a volume (a pod's or a PersistentVolume's) may have; exactly one is set, and
// `kind` names it by its field ("csi", "hostPath", "configMap").
struct VolumeSource {
  std::string kind;
  std::optional<GCEPersistentDiskSource> gce_persistent_disk;
  std::optional<AWSElasticBlockStoreSource> aws_elastic_block_store;
  std::optional<RBDSource> rbd;
  std::optional<ISCSISource> iscsi;
  std::optional<CSISource> csi;
  std::optional<MigratableSource> migratable;
};

// The in-tree plugin names CSI migration knows.
inline constexpr std::string_view kGCEPDPlugin = "kubernetes.io/gce-pd";
inline constexpr std::string_view kAWSEBSPlugin = "kubernetes.io/aws-ebs";
inline constexpr std::string_view kAzureDiskPlugin = "kubernetes.io/azure-disk";
inline constexpr std::string_view kAzureFilePlugin = "kubernetes.io/azure-file";
inline constexpr std::string_view kCinderPlugin = "kubernetes.io/cinder";
inline constexpr std::string_view kVSpherePlugin = "kubernetes.io/vsphere-volume";
inline constexpr std::string_view kPortworxPlugin = "kubernetes.io/portworx-volume";

// v1.PersistentVolumeClaimSpec, as the API server defaults it.
struct PersistentVolumeClaimSpec {
  AccessModes access_modes;
  std::optional<Quantity> storage;  // resources.requests.storage
  // nullopt: none given (admission may set the default class); "": explicitly no class.
  std::optional<std::string> storage_class_name;
  Symbol volume_name;  // interned: Filter looks the volume up per node
  std::optional<LabelSelector> selector;
  VolumeMode volume_mode = VolumeMode::kFilesystem;
  std::string volume_attributes_class_name;
};

// A pod's generic ephemeral volume: the claim `<pod>-<volume>` made from this template.
struct EphemeralVolumeSource {
  LabelSet labels;
  std::map<std::string, std::string> annotations;
  PersistentVolumeClaimSpec spec;
};

// A StatefulSet's volumeClaimTemplates item: each pod gets the claim `<name>-<pod>`.
struct ClaimTemplate {
  std::string name;
  LabelSet labels;
  std::map<std::string, std::string> annotations;
  PersistentVolumeClaimSpec spec;
};

// One of pod.spec.volumes.
struct Volume {
  std::string name;
  std::optional<Symbol> claim_name;  // persistentVolumeClaim.claimName, interned
  bool claim_read_only = false;      // persistentVolumeClaim.readOnly
  std::optional<EphemeralVolumeSource> ephemeral;
  VolumeSource source;  // kind "persistentVolumeClaim" and "ephemeral" too
};

}  // namespace muster::api
