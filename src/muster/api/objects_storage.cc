// Storage: PersistentVolume and PersistentVolumeClaim (v1), StorageClass, CSINode, CSIDriver and
// CSIStorageCapacity (storage.k8s.io/v1), and the volume sources pods and volumes share. Defaults
// and validation are the API server's (pkg/apis/core and pkg/apis/storage: v1 defaults,
// validation) for the fields the volume plugins read.

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/decoder.h"
#include "muster/api/kinds.h"
#include "muster/api/object_decoding.h"

namespace muster::api::decoding {
namespace {

AccessModes ReadAccessModes(Decoder& d, Map& m, bool claim) {
  AccessModes modes;
  size_t given = 0;
  ReadList(d, m.Get("accessModes"), m.Path("accessModes"),
           [&](const YAML::Node& item, const std::string& p) {
             ++given;
             if (auto mode = ReadEnum<AccessMode>(d, item, p, kAccessModeNames)) modes.Add(*mode);
           });
  if (given == 0) {
    d.Error(m.Path("accessModes"),
            claim ? "Required value: at least 1 access mode is required" : "Required value");
  } else if (modes.Has(AccessMode::kReadWriteOncePod) && modes.Names().size() > 1) {
    d.Error(m.Path("accessModes"),
            "Forbidden: may not use ReadWriteOncePod with other access modes");
  }
  return modes;
}

// A storage quantity that must be positive ("storage" of a claim's requests or a volume's
// capacity), at `path` (the API server's "spec.resources[storage]", "spec.capacity[storage]").
std::optional<Quantity> ReadStorage(Decoder& d, const YAML::Node& n, const std::string& path) {
  std::optional<Quantity> q = ReadQuantity(d, n, path);
  if (q && q->Sign() <= 0) {
    d.Error(path, fmt::format("Invalid value: \"{}\": must be greater than zero", q->String()));
  }
  return q;
}

// ---- volume sources ----

// The sources a pod's volume may have, and a PersistentVolume's; those the plugins read are
// decoded, the others only named.
constexpr std::string_view kPodVolumeSources[] = {"hostPath",
                                                  "emptyDir",
                                                  "gcePersistentDisk",
                                                  "awsElasticBlockStore",
                                                  "gitRepo",
                                                  "secret",
                                                  "nfs",
                                                  "iscsi",
                                                  "glusterfs",
                                                  "persistentVolumeClaim",
                                                  "rbd",
                                                  "flexVolume",
                                                  "cinder",
                                                  "cephfs",
                                                  "flocker",
                                                  "downwardAPI",
                                                  "fc",
                                                  "azureFile",
                                                  "configMap",
                                                  "vsphereVolume",
                                                  "quobyte",
                                                  "azureDisk",
                                                  "photonPersistentDisk",
                                                  "projected",
                                                  "portworxVolume",
                                                  "scaleIO",
                                                  "storageos",
                                                  "csi",
                                                  "ephemeral",
                                                  "image"};
constexpr std::string_view kPersistentVolumeSources[] = {"gcePersistentDisk",
                                                         "awsElasticBlockStore",
                                                         "hostPath",
                                                         "glusterfs",
                                                         "nfs",
                                                         "rbd",
                                                         "iscsi",
                                                         "cinder",
                                                         "cephfs",
                                                         "fc",
                                                         "flocker",
                                                         "flexVolume",
                                                         "azureFile",
                                                         "vsphereVolume",
                                                         "quobyte",
                                                         "azureDisk",
                                                         "photonPersistentDisk",
                                                         "portworxVolume",
                                                         "scaleIO",
                                                         "local",
                                                         "storageos",
                                                         "csi"};

bool ReadOnly(Decoder& d, Map& s) {
  return ReadBool(d, s.Get("readOnly"), s.Path("readOnly")).value_or(false);
}

// The source `kind` at `n` (of a pod's volume when `pod`, else of a PersistentVolume).
void ReadSource(Decoder& d, const YAML::Node& n, const std::string& path, std::string_view kind,
                bool pod, VolumeSource& out) {
  out.kind = std::string(kind);
  if (kind == "gcePersistentDisk") {
    Map s(d, n, path);
    s.Known({"fsType", "partition"});
    out.gce_persistent_disk = GCEPersistentDiskSource{Required(d, s, "pdName"), ReadOnly(d, s)};
  } else if (kind == "awsElasticBlockStore") {
    Map s(d, n, path);
    s.Known({"fsType", "partition"});
    out.aws_elastic_block_store =
        AWSElasticBlockStoreSource{Required(d, s, "volumeID"), ReadOnly(d, s)};
  } else if (kind == "rbd") {
    Map s(d, n, path);
    s.Known({"fsType", "user", "keyring", "secretRef"});
    RBDSource rbd;
    rbd.monitors = ReadStringList(d, s.Get("monitors"), s.Path("monitors"));
    if (rbd.monitors.empty()) d.Error(s.Path("monitors"), "Required value");
    rbd.image = Required(d, s, "image");
    if (auto pool = ReadString(d, s.Get("pool"), s.Path("pool")); pool && !pool->empty()) {
      rbd.pool = *pool;
    }
    rbd.read_only = ReadOnly(d, s);
    out.rbd = std::move(rbd);
  } else if (kind == "iscsi") {
    Map s(d, n, path);
    s.Known({"lun", "iscsiInterface", "fsType", "portals", "chapAuthDiscovery", "chapAuthSession",
             "secretRef", "initiatorName"});
    ISCSISource iscsi;
    iscsi.target_portal = Required(d, s, "targetPortal");
    iscsi.iqn = Required(d, s, "iqn");
    iscsi.read_only = ReadOnly(d, s);
    out.iscsi = std::move(iscsi);
  } else if (kind == "csi") {
    Map s(d, n, path);
    s.Known({"fsType", "volumeAttributes", "nodePublishSecretRef"});
    if (!pod) {
      s.Known({"controllerPublishSecretRef", "nodeStageSecretRef", "controllerExpandSecretRef",
               "nodeExpandSecretRef"});
    }
    CSISource csi;
    csi.driver = Required(d, s, "driver");
    if (!csi.driver.empty()) {
      ReportInvalid(d, s.Path("driver"), csi.driver, Dns1123SubdomainErrors(csi.driver));
    }
    if (!pod) csi.volume_handle = Required(d, s, "volumeHandle");
    csi.read_only = ReadOnly(d, s);
    out.csi = std::move(csi);
  } else if (kind == "azureDisk" || kind == "cinder" || kind == "portworxVolume" ||
             kind == "vsphereVolume" || kind == "azureFile") {
    // Sources CSI migration moves to a driver: the field that names the volume.
    struct Migration {
      std::string_view kind, plugin, id;
      std::initializer_list<std::string_view> others;
    };
    static const Migration kMigrations[] = {
        {"azureDisk", kAzureDiskPlugin, "diskURI", {"diskName", "cachingMode", "fsType", "kind"}},
        {"cinder", kCinderPlugin, "volumeID", {"fsType", "secretRef"}},
        {"portworxVolume", kPortworxPlugin, "volumeID", {"fsType"}},
        {"vsphereVolume",
         kVSpherePlugin,
         "volumePath",
         {"fsType", "storagePolicyName", "storagePolicyID"}},
        {"azureFile", kAzureFilePlugin, "shareName", {"secretName", "secretNamespace"}}};
    for (const Migration& m : kMigrations) {
      if (m.kind != kind) continue;
      Map s(d, n, path);
      s.Known(m.others);
      s.Known({"readOnly"});
      out.migratable = MigratableSource{m.plugin, Required(d, s, m.id)};
    }
  }
  // Every other source: what it holds is the kubelet's, not the scheduler's.
}

// The one source among `kinds` that the map holding them (a pod's volume, a PV's spec) has.
VolumeSource ReadOneSource(Decoder& d, Map& m, std::span<const std::string_view> kinds, bool pod,
                           const std::string& where) {
  VolumeSource source;
  int found = 0;
  for (std::string_view kind : kinds) {
    const YAML::Node n = m.Get(kind);
    if (!Present(n)) continue;
    if (++found > 1) {
      d.Error(m.Path(kind), "Forbidden: may not specify more than 1 volume type");
      continue;
    }
    ReadSource(d, n, m.Path(kind), kind, pod, source);
  }
  if (found == 0) d.Error(where, "Required value: must specify a volume type");
  return source;
}

}  // namespace

ClaimTemplate ReadClaimTemplate(Decoder& d, const YAML::Node& n, const std::string& path,
                                bool named) {
  ClaimTemplate t;
  Map m(d, n, path);
  m.Known({"apiVersion", "kind", "status"});
  {
    // Read here, not by ReadMeta: the decoder's object stays the one that holds the template.
    Map meta(d, m.Get("metadata"), m.Path("metadata"));
    meta.Known(kUnreadMetadata);
    meta.Known({"generateName", "namespace", "uid", "resourceVersion", "ownerReferences",
                "creationTimestamp", "deletionTimestamp"});
    t.name = ReadString(d, meta.Get("name"), meta.Path("name")).value_or("");
    if (named && t.name.empty()) {
      d.Error(meta.Path("name"), "Required value");
    } else if (!t.name.empty()) {
      ReportInvalid(d, meta.Path("name"), t.name, Dns1123SubdomainErrors(t.name));
    }
    t.labels = ReadLabels(d, meta.Get("labels"), meta.Path("labels"));
    ReadMapEntries(d, meta.Get("annotations"), meta.Path("annotations"),
                   [&](const std::string& key, const YAML::Node& v, const std::string& p) {
                     t.annotations[key] = ReadString(d, v, p).value_or("");
                   });
  }
  t.spec = ReadClaimSpec(d, m.Get("spec"), m.Path("spec"));
  return t;
}

PersistentVolumeClaimSpec ReadClaimSpec(Decoder& d, const YAML::Node& n, const std::string& path) {
  PersistentVolumeClaimSpec spec;
  Map m(d, n, path);
  m.Known({"dataSource", "dataSourceRef"});
  spec.access_modes = ReadAccessModes(d, m, /*claim=*/true);
  {
    Map r(d, m.Get("resources"), m.Path("resources"));
    r.Known({"limits"});
    Map requests(d, r.Get("requests"), r.Path("requests"), Fields::kUnchecked);
    const std::string storage_path = m.Path("resources[storage]");
    spec.storage = ReadStorage(d, requests.Get("storage"), storage_path);
    if (!spec.storage) d.Error(storage_path, "Required value");
  }
  if (auto c = ReadString(d, m.Get("storageClassName"), m.Path("storageClassName"))) {
    spec.storage_class_name = *c;
  }
  spec.volume_name = Symbol(ReadString(d, m.Get("volumeName"), m.Path("volumeName")).value_or(""));
  spec.selector = ReadOptionalLabelSelector(d, m.Get("selector"), m.Path("selector"));
  if (auto mode =
          ReadEnum<VolumeMode>(d, m.Get("volumeMode"), m.Path("volumeMode"), kVolumeModeNames)) {
    spec.volume_mode = *mode;
  }
  spec.volume_attributes_class_name =
      ReadString(d, m.Get("volumeAttributesClassName"), m.Path("volumeAttributesClassName"))
          .value_or("");
  return spec;
}

std::vector<Volume> ReadPodVolumes(Decoder& d, const YAML::Node& n, const std::string& path) {
  std::vector<Volume> volumes;
  ReadList(d, n, path, [&](const YAML::Node& item, const std::string& p) {
    Map m(d, item, p);
    Volume v;
    v.name = ReadString(d, m.Get("name"), m.Path("name")).value_or("");
    if (v.name.empty()) {
      d.Error(m.Path("name"), "Required value");
    } else {
      ReportInvalid(d, m.Path("name"), v.name, Dns1123LabelErrors(v.name));
      if (std::any_of(volumes.begin(), volumes.end(),
                      [&](const Volume& other) { return other.name == v.name; })) {
        d.Error(m.Path("name"), fmt::format("Duplicate value: \"{}\"", v.name));
      }
    }
    v.source = ReadOneSource(d, m, kPodVolumeSources, /*pod=*/true, p);
    if (v.source.kind == "persistentVolumeClaim") {
      Map c(d, m.Get("persistentVolumeClaim"), m.Path("persistentVolumeClaim"));
      v.claim_name = Symbol(Required(d, c, "claimName"));
      v.claim_read_only = ReadOnly(d, c);
    } else if (v.source.kind == "ephemeral") {
      Map e(d, m.Get("ephemeral"), m.Path("ephemeral"));
      const YAML::Node t = e.Get("volumeClaimTemplate");
      if (!Present(t)) {
        d.Error(e.Path("volumeClaimTemplate"), "Required value");
      } else {
        ClaimTemplate tpl = ReadClaimTemplate(d, t, e.Path("volumeClaimTemplate"), false);
        v.ephemeral = EphemeralVolumeSource{std::move(tpl.labels), std::move(tpl.annotations),
                                            std::move(tpl.spec)};
      }
    }
    volumes.push_back(std::move(v));
  });
  return volumes;
}

PersistentVolume DecodePersistentVolume(Decoder& d, Map& m, const std::string&) {
  PersistentVolume pv;
  pv.metadata = ReadObjectMeta<PersistentVolume>(d, m);
  Map s(d, m.Get("spec"), "spec");
  s.Known({"mountOptions"});
  {
    Map capacity(d, s.Get("capacity"), s.Path("capacity"), Fields::kUnchecked);
    const YAML::Node all = s.Get("capacity");
    if (!Present(all) || !all.IsMap() || all.size() == 0) {
      d.Error(s.Path("capacity"), "Required value");
    } else {
      for (auto it = all.begin(); it != all.end(); ++it) {
        const std::string name = it->first.Scalar();
        if (name != "storage") {
          static constexpr std::string_view kStorage[] = {"storage"};
          Unsupported(d, s.Path("capacity"), name, kStorage);
        }
      }
      if (auto q = ReadStorage(d, capacity.Get("storage"), s.Path("capacity[storage]"))) {
        pv.spec.capacity = *q;
      }
    }
  }
  pv.spec.source = ReadOneSource(d, s, kPersistentVolumeSources, /*pod=*/false, "spec");
  pv.spec.access_modes = ReadAccessModes(d, s, /*claim=*/false);
  if (YAML::Node ref = s.Get("claimRef"); Present(ref)) {
    Map r(d, ref, s.Path("claimRef"));
    r.Known({"fieldPath"});
    ObjectReference claim;
    claim.kind = ReadString(d, r.Get("kind"), r.Path("kind")).value_or("");
    claim.namespace_ = ReadString(d, r.Get("namespace"), r.Path("namespace")).value_or("");
    claim.name = ReadString(d, r.Get("name"), r.Path("name")).value_or("");
    claim.uid = ReadString(d, r.Get("uid"), r.Path("uid")).value_or("");
    claim.api_version = ReadString(d, r.Get("apiVersion"), r.Path("apiVersion")).value_or("");
    claim.resource_version =
        ReadString(d, r.Get("resourceVersion"), r.Path("resourceVersion")).value_or("");
    if (claim.name.empty()) d.Error(r.Path("name"), "Required value");
    pv.spec.claim_ref = std::move(claim);
  }
  if (auto p = ReadString(d, s.Get("persistentVolumeReclaimPolicy"),
                          s.Path("persistentVolumeReclaimPolicy"))) {
    static constexpr std::string_view kPolicies[] = {"Delete", "Recycle", "Retain"};
    if (std::find(std::begin(kPolicies), std::end(kPolicies), *p) == std::end(kPolicies)) {
      Unsupported(d, s.Path("persistentVolumeReclaimPolicy"), *p, kPolicies);
    }
    pv.spec.reclaim_policy = *p;
  }
  pv.spec.storage_class_name =
      ReadString(d, s.Get("storageClassName"), s.Path("storageClassName")).value_or("");
  if (!pv.spec.storage_class_name.empty()) {
    ReportInvalid(d, s.Path("storageClassName"), pv.spec.storage_class_name,
                  Dns1123SubdomainErrors(pv.spec.storage_class_name));
  }
  if (auto mode =
          ReadEnum<VolumeMode>(d, s.Get("volumeMode"), s.Path("volumeMode"), kVolumeModeNames)) {
    pv.spec.volume_mode = *mode;
  }
  if (YAML::Node a = s.Get("nodeAffinity"); Present(a)) {
    Map am(d, a, s.Path("nodeAffinity"));
    if (YAML::Node req = am.Get("required"); Present(req)) {
      Map rm(d, req, am.Path("required"));
      NodeSelector selector;
      ReadList(d, rm.Get("nodeSelectorTerms"), rm.Path("nodeSelectorTerms"),
               [&](const YAML::Node& item, const std::string& p) {
                 selector.terms.push_back(ReadNodeSelectorTerm(d, item, p));
               });
      if (selector.terms.empty()) {
        d.Error(rm.Path("nodeSelectorTerms"),
                "Required value: must have at least one node selector term");
      }
      pv.spec.node_affinity = std::move(selector);
    } else {
      d.Error(am.Path("required"), "Required value: must specify required node constraints");
    }
  }
  if (pv.spec.source.kind == "local" && !pv.spec.node_affinity) {
    d.Error(s.Path("nodeAffinity"), "Required value: Local volume requires node affinity");
  }
  pv.spec.volume_attributes_class_name =
      ReadString(d, s.Get("volumeAttributesClassName"), s.Path("volumeAttributesClassName"))
          .value_or("");
  Map st(d, m.Get("status"), "status", Fields::kUnchecked);
  if (auto phase = ReadEnum<VolumePhase>(d, st.Get("phase"), st.Path("phase"), kVolumePhaseNames)) {
    pv.status.phase = *phase;
  }
  return pv;
}

PersistentVolumeClaim DecodePersistentVolumeClaim(Decoder& d, Map& m, const std::string&) {
  PersistentVolumeClaim pvc;
  pvc.metadata = ReadObjectMeta<PersistentVolumeClaim>(d, m);
  pvc.spec = ReadClaimSpec(d, m.Get("spec"), "spec");
  Map st(d, m.Get("status"), "status", Fields::kUnchecked);
  if (auto phase = ReadEnum<ClaimPhase>(d, st.Get("phase"), st.Path("phase"), kClaimPhaseNames)) {
    pvc.status.phase = *phase;
  }
  return pvc;
}

StorageClass DecodeStorageClass(Decoder& d, Map& m, const std::string&) {
  StorageClass sc;
  sc.metadata = ReadObjectMeta<StorageClass>(d, m);
  m.Known({"mountOptions", "allowVolumeExpansion"});
  sc.provisioner = ReadString(d, m.Get("provisioner"), "provisioner").value_or("");
  if (sc.provisioner.empty()) {
    d.Error("provisioner", "Required value");
  } else {
    ReportInvalid(d, "provisioner", sc.provisioner, LabelKeyErrors(sc.provisioner));
  }
  ReadMapEntries(d, m.Get("parameters"), "parameters",
                 [&](const std::string& key, const YAML::Node& v, const std::string& p) {
                   sc.parameters[key] = ReadString(d, v, p).value_or("");
                 });
  if (auto p = ReadString(d, m.Get("reclaimPolicy"), "reclaimPolicy")) {
    static constexpr std::string_view kPolicies[] = {"Delete", "Retain"};
    if (std::find(std::begin(kPolicies), std::end(kPolicies), *p) == std::end(kPolicies)) {
      Unsupported(d, "reclaimPolicy", *p, kPolicies);
    }
    sc.reclaim_policy = *p;
  }
  if (auto mode = ReadEnum<VolumeBindingMode>(d, m.Get("volumeBindingMode"), "volumeBindingMode",
                                              kVolumeBindingModeNames)) {
    sc.volume_binding_mode = *mode;
  }
  ReadList(d, m.Get("allowedTopologies"), "allowedTopologies",
           [&](const YAML::Node& item, const std::string& p) {
             Map t(d, item, p);
             TopologySelectorTerm term;
             ReadList(d, t.Get("matchLabelExpressions"), t.Path("matchLabelExpressions"),
                      [&](const YAML::Node& e, const std::string& ep) {
                        Map r(d, e, ep);
                        TopologySelectorTerm::Requirement req;
                        const std::string key = Required(d, r, "key");
                        if (!key.empty()) ReportInvalid(d, r.Path("key"), key, LabelKeyErrors(key));
                        req.key = Symbol(key);
                        req.values = ReadSymbolList(d, r.Get("values"), r.Path("values"));
                        if (req.values.empty()) {
                          d.Error(r.Path("values"),
                                  "Required value: must specify as least one value");
                        }
                        term.match_label_expressions.push_back(std::move(req));
                      });
             if (term.match_label_expressions.empty()) {
               d.Error(t.Path("matchLabelExpressions"),
                       "Required value: must have at least one label expression");
             }
             sc.allowed_topologies.push_back(std::move(term));
           });
  return sc;
}

CSINode DecodeCSINode(Decoder& d, Map& m, const std::string&) {
  CSINode node;
  node.metadata = ReadObjectMeta<CSINode>(d, m);
  Map s(d, m.Get("spec"), "spec");
  ReadList(
      d, s.Get("drivers"), s.Path("drivers"), [&](const YAML::Node& item, const std::string& p) {
        Map dm(d, item, p);
        CSINode::Driver driver;
        driver.name = Required(d, dm, "name");
        if (!driver.name.empty()) {
          ReportInvalid(d, dm.Path("name"), driver.name, Dns1123SubdomainErrors(driver.name));
          if (std::any_of(node.drivers.begin(), node.drivers.end(),
                          [&](const CSINode::Driver& o) { return o.name == driver.name; })) {
            d.Error(dm.Path("name"), fmt::format("Duplicate value: \"{}\"", driver.name));
          }
        }
        driver.node_id = Required(d, dm, "nodeID");
        driver.topology_keys = ReadStringList(d, dm.Get("topologyKeys"), dm.Path("topologyKeys"));
        if (YAML::Node a = dm.Get("allocatable"); Present(a)) {
          Map am(d, a, dm.Path("allocatable"));
          if (auto count = ReadInt(d, am.Get("count"), am.Path("count"))) {
            if (*count < 0) {
              d.Error(am.Path("count"),
                      fmt::format("Invalid value: {}: must be greater than or equal to 0", *count));
            }
            driver.allocatable_count = static_cast<int32_t>(*count);
          }
        }
        node.drivers.push_back(std::move(driver));
      });
  return node;
}

CSIDriver DecodeCSIDriver(Decoder& d, Map& m, const std::string&) {
  CSIDriver driver;
  driver.metadata = ReadObjectMeta<CSIDriver>(d, m);
  Map s(d, m.Get("spec"), "spec");
  s.Known({"fsGroupPolicy", "tokenRequests", "requiresRepublish", "seLinuxMount",
           "nodeAllocatableUpdatePeriodSeconds", "serviceAccountTokenInSecrets"});
  auto flag = [&](std::string_view field, bool fallback) {
    return ReadBool(d, s.Get(field), s.Path(field)).value_or(fallback);
  };
  driver.attach_required = flag("attachRequired", true);
  driver.pod_info_on_mount = flag("podInfoOnMount", false);
  driver.storage_capacity = flag("storageCapacity", false);
  driver.prevent_pod_scheduling_if_missing =
      ReadBool(d, s.Get("preventPodSchedulingIfMissing"), s.Path("preventPodSchedulingIfMissing"));
  if (YAML::Node modes = s.Get("volumeLifecycleModes"); Present(modes)) {
    driver.volume_lifecycle_modes.clear();
    static constexpr std::string_view kModes[] = {"Persistent", "Ephemeral"};
    ReadList(d, modes, s.Path("volumeLifecycleModes"),
             [&](const YAML::Node& item, const std::string& p) {
               const std::string mode = ReadString(d, item, p).value_or("");
               if (std::find(std::begin(kModes), std::end(kModes), mode) == std::end(kModes)) {
                 Unsupported(d, p, mode, kModes);
               }
               driver.volume_lifecycle_modes.push_back(mode);
             });
  }
  return driver;
}

CSIStorageCapacity DecodeCSIStorageCapacity(Decoder& d, Map& m, const std::string&) {
  CSIStorageCapacity c;
  c.metadata = ReadObjectMeta<CSIStorageCapacity>(d, m);
  c.storage_class_name = ReadString(d, m.Get("storageClassName"), "storageClassName").value_or("");
  if (c.storage_class_name.empty()) {
    d.Error("storageClassName", "Required value");
  } else {
    ReportInvalid(d, "storageClassName", c.storage_class_name,
                  Dns1123SubdomainErrors(c.storage_class_name));
  }
  c.node_topology = ReadOptionalLabelSelector(d, m.Get("nodeTopology"), "nodeTopology");
  auto non_negative = [&](std::string_view field) -> std::optional<Quantity> {
    std::optional<Quantity> q = ReadQuantity(d, m.Get(field), std::string(field));
    if (q && q->Sign() < 0) {
      d.Error(
          std::string(field),
          fmt::format("Invalid value: \"{}\": must be greater than or equal to 0", q->String()));
    }
    return q;
  };
  c.capacity = non_negative("capacity");
  c.maximum_volume_size = non_negative("maximumVolumeSize");
  return c;
}

VolumeAttachment DecodeVolumeAttachment(Decoder& d, Map& m, const std::string&) {
  VolumeAttachment va;
  va.metadata = ReadObjectMeta<VolumeAttachment>(d, m);
  Map s(d, m.Get("spec"), "spec");
  va.attacher = ReadString(d, s.Get("attacher"), s.Path("attacher")).value_or("");
  if (va.attacher.empty()) d.Error(s.Path("attacher"), "Required value");
  {
    Map src(d, s.Get("source"), s.Path("source"));
    // An inline volume's attachment is not counted (upstream's CSILimits reads only persistent
    // volumes'): only its presence matters.
    src.Known({"inlineVolumeSpec"});
    const bool has_inline = Present(src.Get("inlineVolumeSpec"));
    const std::optional<std::string> pv =
        ReadString(d, src.Get("persistentVolumeName"), src.Path("persistentVolumeName"));
    if (d.Served()) {
      // Stored by the API server, which validated it.
    } else if (!has_inline && !pv) {
      d.Error(s.Path("source"),
              "Required value: must specify exactly one of inlineVolumeSpec and "
              "persistentVolumeName");
    } else if (has_inline && pv) {
      d.Error(s.Path("source"),
              "Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName");
    } else if (pv && pv->empty()) {
      d.Error(src.Path("persistentVolumeName"),
              "Required value: must specify non empty persistentVolumeName");
    }
    va.persistent_volume_name = pv.value_or("");
  }
  const std::string node = ReadString(d, s.Get("nodeName"), s.Path("nodeName")).value_or("");
  if (!d.Served()) ReportInvalid(d, s.Path("nodeName"), node, Dns1123SubdomainErrors(node));
  va.node_name = Symbol(node);
  Map st(d, m.Get("status"), "status");
  st.Known({"attachmentMetadata", "attachError", "detachError"});
  va.attached = ReadBool(d, st.Get("attached"), st.Path("attached")).value_or(false);
  return va;
}

}  // namespace muster::api::decoding
