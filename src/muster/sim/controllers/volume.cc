#include "muster/sim/controllers/volume.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "muster/api/storage.h"

namespace muster::sim::controllers {
namespace {

// The default class, as DefaultStorageClass admission picks it.
const api::StorageClass* DefaultClass(const cluster::MemoryCluster& cluster) {
  std::vector<const api::StorageClass*> classes;
  for (const auto& [name, sc] : cluster.Objects<api::StorageClass>()) classes.push_back(sc.get());
  return api::DefaultStorageClass(classes);
}

}  // namespace

void VolumeController::CreateClaim(api::PersistentVolumeClaim claim) {
  if (cluster_.Get<api::PersistentVolumeClaim>(claim.metadata.Key()) != nullptr) return;
  if (!claim.spec.storage_class_name &&
      !claim.metadata.annotations.contains(std::string(api::kBetaStorageClassAnnotation))) {
    if (const api::StorageClass* sc = DefaultClass(cluster_)) {
      claim.spec.storage_class_name = sc->metadata.name;
    }
  }
  cluster_.Create(std::move(claim));
}

void VolumeController::Added(const api::PodPtr& pod_ptr) {
  const api::Pod& pod = *pod_ptr;
  for (const api::Volume& v : pod.spec.volumes) {
    if (!v.ephemeral) continue;
    api::PersistentVolumeClaim claim;
    claim.metadata.name = pod.metadata.name + "-" + v.name;
    claim.metadata.namespace_ = pod.metadata.namespace_;
    claim.metadata.labels = v.ephemeral->labels;
    claim.metadata.annotations = v.ephemeral->annotations;
    claim.metadata.owner_references.push_back(
        api::OwnerReference{"v1", "Pod", pod.metadata.name, pod.metadata.uid, true, true});
    claim.spec = v.ephemeral->spec;
    CreateClaim(std::move(claim));
  }
}

void VolumeController::Deleted(const api::PodPtr& pod_ptr) {
  // The garbage collector: the ephemeral claims the pod owned go with it.
  const api::Pod& pod = *pod_ptr;
  for (const api::Volume& v : pod.spec.volumes) {
    if (!v.ephemeral) continue;
    const std::string key =
        fmt::format("{}/{}-{}", pod.metadata.namespace_.str(), pod.metadata.name, v.name);
    const api::PersistentVolumeClaim* claim = cluster_.Get<api::PersistentVolumeClaim>(key);
    const api::OwnerReference* owner = claim == nullptr ? nullptr : claim->metadata.ControllerRef();
    if (owner != nullptr && owner->uid == pod.metadata.uid) {
      cluster_.Delete<api::PersistentVolumeClaim>(key);
    }
  }
}

void VolumeController::Sync() {
  // Copies: binding and provisioning write to the cluster while this walks it.
  std::vector<api::PersistentVolumeClaim> claims;
  for (const auto& [key, pvc] : cluster_.Objects<api::PersistentVolumeClaim>()) {
    if (!pvc->FullyBound()) claims.push_back(*pvc);
  }
  for (const api::PersistentVolumeClaim& claim : claims) {
    // As the cluster is now: each binding takes a volume out of the running.
    std::vector<const api::PersistentVolume*> volumes;
    for (const auto& [name, pv] : cluster_.Objects<api::PersistentVolume>()) {
      volumes.push_back(pv.get());
    }
    // A volume named by the claim, or one that names the claim (the scheduler's choice).
    const api::PersistentVolume* pv = nullptr;
    if (!claim.spec.volume_name.empty()) {
      pv = cluster_.Get<api::PersistentVolume>(claim.spec.volume_name.string());
      if (pv == nullptr) continue;  // pre-bound to a volume that does not exist (yet)
    } else {
      for (const api::PersistentVolume* v : volumes) {
        if (api::BoundTo(*v, claim)) pv = v;
      }
    }
    if (pv != nullptr) {
      Bind(claim, *pv);
      continue;
    }
    const std::string_view class_name = claim.ClassName();
    const api::StorageClass* sc =
        class_name.empty() ? nullptr : cluster_.Get<api::StorageClass>(std::string(class_name));
    if (sc != nullptr && sc->volume_binding_mode == api::VolumeBindingMode::kWaitForFirstConsumer) {
      // Waits for the scheduler to choose: a volume (claimRef, above) or a node to provision on.
      auto selected = claim.metadata.annotations.find(std::string(api::kSelectedNodeAnnotation));
      if (selected == claim.metadata.annotations.end()) continue;
      const api::Node* node = cluster_.Get<api::Node>(selected->second);
      if (node != nullptr) {
        Provision(claim, *sc, node);
      } else {
        // The node is gone: as external-provisioner does, hand the claim back to the scheduler.
        api::PersistentVolumeClaim back = claim;
        back.metadata.annotations.erase(std::string(api::kSelectedNodeAnnotation));
        cluster_.Update(std::move(back));
      }
      continue;
    }
    if (const api::PersistentVolume* match = api::FindMatchingVolume(claim, volumes, nullptr, {})) {
      Bind(claim, *match);
    } else if (sc != nullptr) {
      Provision(claim, *sc, nullptr);
    }
  }
}

void VolumeController::Bind(const api::PersistentVolumeClaim& claim,
                            const api::PersistentVolume& pv) {
  if (!pv.spec.claim_ref || pv.spec.claim_ref->uid.empty() ||
      pv.status.phase != api::VolumePhase::kBound) {
    api::PersistentVolume bound = pv;
    if (!bound.spec.claim_ref) {
      bound.metadata.annotations.try_emplace(std::string(api::kBoundByControllerAnnotation), "yes");
    }
    bound.spec.claim_ref = api::ClaimReference(claim);
    bound.status.phase = api::VolumePhase::kBound;
    cluster_.Update(std::move(bound));
  }
  api::PersistentVolumeClaim done = claim;
  done.spec.volume_name = api::Symbol(pv.metadata.name);
  done.metadata.annotations[std::string(api::kBindCompletedAnnotation)] = "yes";
  done.status.phase = api::ClaimPhase::kBound;
  cluster_.Update(std::move(done));
}

void VolumeController::Provision(const api::PersistentVolumeClaim& claim,
                                 const api::StorageClass& sc, const api::Node* node) {
  if (sc.provisioner.empty() || sc.provisioner == api::kNoProvisioner) return;
  api::PersistentVolume pv;
  pv.metadata.name = "pvc-" + claim.metadata.uid;
  pv.metadata.annotations["pv.kubernetes.io/provisioned-by"] = sc.provisioner;
  pv.spec.capacity = claim.spec.storage.value_or(api::Quantity());
  pv.spec.access_modes = claim.spec.access_modes;
  pv.spec.volume_mode = claim.spec.volume_mode;
  pv.spec.storage_class_name = sc.metadata.name;
  pv.spec.reclaim_policy = sc.reclaim_policy;
  pv.spec.source.kind = "csi";
  pv.spec.source.csi = api::CSISource{sc.provisioner, pv.metadata.name, false};
  pv.spec.claim_ref = api::ClaimReference(claim);
  pv.status.phase = api::VolumePhase::kBound;
  // The volume lives where it was made: on the node's values of the class's topology keys (or of
  // the driver's, from the node's CSINode); an Immediate claim's goes to the first allowed
  // topology.
  std::vector<api::Symbol> keys;
  const api::TopologySelectorTerm* allowed =
      sc.allowed_topologies.empty() ? nullptr : &sc.allowed_topologies.front();
  if (node != nullptr) {
    if (const api::CSINode* csi = cluster_.Get<api::CSINode>(node->metadata.name)) {
      for (const api::CSINode::Driver& d : csi->drivers) {
        if (d.name != sc.provisioner) continue;
        for (const std::string& k : d.topology_keys) keys.emplace_back(k);
      }
    }
    for (const api::TopologySelectorTerm& t : sc.allowed_topologies) {
      for (const auto& r : t.match_label_expressions) {
        if (std::find(keys.begin(), keys.end(), r.key) == keys.end()) keys.push_back(r.key);
      }
    }
  }
  api::NodeSelectorTerm term;
  if (node != nullptr) {
    for (api::Symbol key : keys) {
      if (const api::Symbol* value = node->metadata.labels.Get(key)) {
        term.match_expressions.push_back(
            api::SelectorRequirement{key, api::SelectorOperator::kIn, {*value}});
      }
    }
  } else if (allowed != nullptr) {
    for (const auto& r : allowed->match_label_expressions) {
      term.match_expressions.push_back(
          api::SelectorRequirement{r.key, api::SelectorOperator::kIn, {r.values.front()}});
    }
  }
  if (!term.match_expressions.empty()) {
    api::PrepareNodeSelectorTerm(term);
    pv.spec.node_affinity = api::NodeSelector{{std::move(term)}};
  }
  const api::PersistentVolume made = pv;
  if (!cluster_.Create(std::move(pv)).IsSuccess()) return;
  Bind(claim, made);
}

}  // namespace muster::sim::controllers
