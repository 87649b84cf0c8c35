#include "muster/plugins/volumes/claims.h"

#include <algorithm>

#include <fmt/format.h>

namespace muster::plugins::volumes {

std::optional<PodClaim> ClaimOf(const api::Pod& pod, const api::Volume& volume) {
  if (volume.claim_name) return PodClaim{*volume.claim_name, false};
  if (volume.ephemeral) return PodClaim{api::Symbol(pod.metadata.name + "-" + volume.name), true};
  return std::nullopt;
}

bool HasClaims(const api::Pod& pod) {
  return std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(),
                     [](const api::Volume& v) { return v.claim_name || v.ephemeral; });
}

bool UsesClaim(const api::Pod& pod, const api::PersistentVolumeClaim& claim) {
  if (claim.metadata.namespace_ != pod.metadata.namespace_) return false;
  return std::any_of(pod.spec.volumes.begin(), pod.spec.volumes.end(), [&](const api::Volume& v) {
    const std::optional<PodClaim> c = ClaimOf(pod, v);
    return c && c->name.str() == claim.metadata.name;
  });
}

framework::QueueingHint ClaimHint(const api::Pod& pod, const framework::EventObjects& event,
                                  framework::Status*) {
  const api::PersistentVolumeClaim* claim = event.New<api::PersistentVolumeClaim>();
  return claim != nullptr && UsesClaim(pod, *claim) ? framework::QueueingHint::kQueue
                                                    : framework::QueueingHint::kSkip;
}

std::string ClaimNotFound(std::string_view name) {
  return fmt::format("persistentvolumeclaim \"{}\" not found", name);
}
std::string VolumeNotFound(std::string_view name) {
  return fmt::format("persistentvolume \"{}\" not found", name);
}
std::string ClassNotFound(std::string_view name) {
  return fmt::format("storageclass.storage.k8s.io \"{}\" not found", name);
}

const api::PersistentVolumeClaim* EphemeralClaim(const framework::ObjectLister& lister,
                                                 const api::Pod& pod, const PodClaim& claim,
                                                 framework::Status* error) {
  const api::PersistentVolumeClaim* pvc =
      lister.Get<api::PersistentVolumeClaim>(pod.metadata.namespace_, claim.name);
  if (pvc == nullptr) {
    *error = framework::Status::Unresolvable(fmt::format(
        "waiting for ephemeral volume controller to create the persistentvolumeclaim \"{}\"",
        claim.name.str()));
    return nullptr;
  }
  const api::OwnerReference* owner = pvc->metadata.ControllerRef();
  if (owner == nullptr || owner->uid != pod.metadata.uid) {
    *error = framework::Status::Error(
        fmt::format("PVC {}/{} was not created for pod {}/{} (pod is not owner)",
                    pvc->metadata.namespace_.str(), pvc->metadata.name,
                    pod.metadata.namespace_.str(), pod.metadata.name));
    return nullptr;
  }
  return pvc;
}

std::string_view CSIDriverFor(std::string_view plugin) {
  static constexpr std::pair<std::string_view, std::string_view> kDrivers[] = {
      {api::kAWSEBSPlugin, "ebs.csi.aws.com"},
      {api::kGCEPDPlugin, "pd.csi.storage.gke.io"},
      {api::kAzureDiskPlugin, "disk.csi.azure.com"},
      {api::kAzureFilePlugin, "file.csi.azure.com"},
      {api::kCinderPlugin, "cinder.csi.openstack.org"},
      {api::kVSpherePlugin, "csi.vsphere.vmware.com"},
      {api::kPortworxPlugin, "pxd.portworx.com"}};
  for (const auto& [in_tree, driver] : kDrivers) {
    if (in_tree == plugin) return driver;
  }
  return "";
}

bool MigratedOn(const api::CSINode* csi_node, std::string_view plugin) {
  if (csi_node == nullptr || plugin.empty()) return false;
  // Migration is complete (always on) for these; Portworx's is gated and follows the node's
  // list of migrated plugins; Azure File and vSphere are not counted as migrated here, as
  // upstream's NodeVolumeLimits does not.
  if (plugin == api::kAWSEBSPlugin || plugin == api::kGCEPDPlugin ||
      plugin == api::kAzureDiskPlugin || plugin == api::kCinderPlugin) {
    return true;
  }
  if (plugin != api::kPortworxPlugin) return false;
  auto it = csi_node->metadata.annotations.find(std::string(api::kMigratedPluginsAnnotation));
  if (it == csi_node->metadata.annotations.end()) return false;
  std::string_view list = it->second;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == plugin) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

namespace {

// A GCE PD's zones from a volume's labels (beta label first), split at "__".
std::vector<std::string> GCEZones(const api::LabelSet& labels) {
  for (std::string_view key :
       {"failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone"}) {
    const api::Symbol* value = labels.Get(api::Symbol(key));
    if (value == nullptr || value->empty()) continue;
    std::vector<std::string> zones;
    std::string_view rest = value->str();
    while (true) {
      const size_t sep = rest.find("__");
      zones.emplace_back(rest.substr(0, sep));
      if (sep == std::string_view::npos) break;
      rest.remove_prefix(sep + 2);
    }
    return zones;
  }
  return {};
}

}  // namespace

std::string_view InTreePlugin(const api::VolumeSource& source, const api::LabelSet* pv_labels,
                              std::string* handle) {
  if (source.aws_elastic_block_store) {
    std::string id = source.aws_elastic_block_store->volume_id;
    // "aws://<zone>/vol-..." names the volume by its last segment.
    if (id.starts_with("aws://")) id = id.substr(id.rfind('/') + 1);
    *handle = id;
    return api::kAWSEBSPlugin;
  }
  if (source.gce_persistent_disk) {
    const std::string& pd = source.gce_persistent_disk->pd_name;
    const std::vector<std::string> zones =
        pv_labels != nullptr ? GCEZones(*pv_labels) : std::vector<std::string>{};
    if (zones.size() > 1) {
      const std::string& z = zones.front();
      *handle =
          fmt::format("projects/UNSPECIFIED/regions/{}/disks/{}", z.substr(0, z.rfind('-')), pd);
    } else {
      *handle = fmt::format("projects/UNSPECIFIED/zones/{}/disks/{}",
                            zones.empty() ? "UNSPECIFIED" : zones.front(), pd);
    }
    return api::kGCEPDPlugin;
  }
  if (source.migratable) {
    *handle = source.migratable->handle;
    return source.migratable->plugin;
  }
  return "";
}

}  // namespace muster::plugins::volumes
