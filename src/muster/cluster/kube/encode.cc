#include "muster/cluster/kube/encode.h"

#include <map>
#include <string>
#include <string_view>

#include "muster/api/time.h"

namespace muster::cluster::kube {
namespace {

using nlohmann::json;

json Meta(const api::ObjectMeta& m) {
  json out = json::object();
  out["name"] = m.name;
  if (!m.generate_name.empty()) out["generateName"] = m.generate_name;
  if (!m.namespace_.empty()) out["namespace"] = m.namespace_.str();
  if (!m.uid.empty()) out["uid"] = m.uid;
  if (!m.resource_version.empty()) out["resourceVersion"] = m.resource_version;
  if (!m.labels.empty()) {
    json labels = json::object();
    for (const auto& [key, value] : m.labels) labels[key.string()] = value.string();
    out["labels"] = std::move(labels);
  }
  if (!m.annotations.empty()) out["annotations"] = m.annotations;
  for (const api::OwnerReference& o : m.owner_references) {
    json ref = {{"apiVersion", o.api_version}, {"kind", o.kind}, {"name", o.name}, {"uid", o.uid}};
    if (o.controller) ref["controller"] = true;
    if (o.block_owner_deletion) ref["blockOwnerDeletion"] = true;
    out["ownerReferences"].push_back(std::move(ref));
  }
  if (!m.finalizers.empty()) out["finalizers"] = m.finalizers;
  if (m.creation_timestamp) out["creationTimestamp"] = api::FormatTime(*m.creation_timestamp);
  if (m.deletion_timestamp) out["deletionTimestamp"] = api::FormatTime(*m.deletion_timestamp);
  return out;
}

json Resources(const api::ResourceList& list) {
  json out = json::object();
  for (const auto& [name, quantity] : list) out[name.string()] = quantity.String();
  return out;
}

json Symbols(const std::vector<api::Symbol>& symbols) {
  json out = json::array();
  for (api::Symbol s : symbols) out.push_back(s.string());
  return out;
}

json Requirements(const std::vector<api::SelectorRequirement>& requirements) {
  json out = json::array();
  for (const api::SelectorRequirement& r : requirements) {
    json item = {{"key", r.key.string()}, {"operator", api::SelectorOperatorName(r.op)}};
    if (!r.values.empty()) item["values"] = Symbols(r.values);
    out.push_back(std::move(item));
  }
  return out;
}

json Selector(const api::LabelSelector& s) {
  json out = json::object();
  if (!s.match_labels.empty()) {
    json labels = json::object();
    for (const auto& [key, value] : s.match_labels) labels[key.string()] = value.string();
    out["matchLabels"] = std::move(labels);
  }
  if (!s.match_expressions.empty()) out["matchExpressions"] = Requirements(s.match_expressions);
  return out;
}

json Term(const api::NodeSelectorTerm& t) {
  json out = json::object();
  if (!t.match_expressions.empty()) out["matchExpressions"] = Requirements(t.match_expressions);
  if (!t.match_fields.empty()) out["matchFields"] = Requirements(t.match_fields);
  return out;
}

json PodTerm(const api::PodAffinityTerm& t) {
  json out = {{"topologyKey", t.topology_key.string()}};
  if (t.label_selector) out["labelSelector"] = Selector(*t.label_selector);
  if (!t.namespaces.empty()) out["namespaces"] = Symbols(t.namespaces);
  if (t.namespace_selector) out["namespaceSelector"] = Selector(*t.namespace_selector);
  if (!t.match_label_keys.empty()) out["matchLabelKeys"] = Symbols(t.match_label_keys);
  if (!t.mismatch_label_keys.empty()) out["mismatchLabelKeys"] = Symbols(t.mismatch_label_keys);
  return out;
}

json PodAffinity(const api::PodAffinity& a) {
  json out = json::object();
  for (const api::PodAffinityTerm& t : a.required) {
    out["requiredDuringSchedulingIgnoredDuringExecution"].push_back(PodTerm(t));
  }
  for (const api::WeightedPodAffinityTerm& t : a.preferred) {
    out["preferredDuringSchedulingIgnoredDuringExecution"].push_back(
        {{"weight", t.weight}, {"podAffinityTerm", PodTerm(t.term)}});
  }
  return out;
}

json Affinity(const api::Affinity& a) {
  json out = json::object();
  if (a.node_affinity) {
    json node = json::object();
    if (a.node_affinity->required) {
      json terms = json::array();
      for (const api::NodeSelectorTerm& t : a.node_affinity->required->terms)
        terms.push_back(Term(t));
      node["requiredDuringSchedulingIgnoredDuringExecution"] = {{"nodeSelectorTerms", terms}};
    }
    for (const api::PreferredSchedulingTerm& t : a.node_affinity->preferred) {
      node["preferredDuringSchedulingIgnoredDuringExecution"].push_back(
          {{"weight", t.weight}, {"preference", Term(t.preference)}});
    }
    out["nodeAffinity"] = std::move(node);
  }
  if (a.pod_affinity) out["podAffinity"] = PodAffinity(*a.pod_affinity);
  if (a.pod_anti_affinity) out["podAntiAffinity"] = PodAffinity(*a.pod_anti_affinity);
  return out;
}

json Container(const api::Container& c) {
  json out = {{"name", c.name}};
  if (!c.image.empty()) out["image"] = c.image.string();
  json resources = json::object();
  if (!c.resources.requests.empty()) resources["requests"] = Resources(c.resources.requests);
  if (!c.resources.limits.empty()) resources["limits"] = Resources(c.resources.limits);
  for (const api::ContainerResourceClaim& claim : c.resources.claims) {
    json item = {{"name", claim.name.string()}};
    if (!claim.request.empty()) item["request"] = claim.request.string();
    resources["claims"].push_back(std::move(item));
  }
  out["resources"] = std::move(resources);
  for (const api::ContainerPort& p : c.ports) {
    json port = {{"containerPort", p.container_port}, {"protocol", api::ProtocolName(p.protocol)}};
    if (!p.name.empty()) port["name"] = p.name;
    if (p.host_port != 0) port["hostPort"] = p.host_port;
    if (!p.host_ip.empty()) port["hostIP"] = p.host_ip.string();
    out["ports"].push_back(std::move(port));
  }
  if (c.restart_policy_always) out["restartPolicy"] = "Always";
  return out;
}

json ClaimSpec(const api::PersistentVolumeClaimSpec& s) {
  json out = json::object();
  for (std::string_view mode : s.access_modes.Names()) out["accessModes"].push_back(mode);
  if (s.storage) out["resources"] = {{"requests", {{"storage", s.storage->String()}}}};
  if (s.storage_class_name) out["storageClassName"] = *s.storage_class_name;
  if (!s.volume_name.empty()) out["volumeName"] = s.volume_name.string();
  if (s.selector) out["selector"] = Selector(*s.selector);
  out["volumeMode"] = api::kVolumeModeNames[static_cast<size_t>(s.volume_mode)];
  if (!s.volume_attributes_class_name.empty()) {
    out["volumeAttributesClassName"] = s.volume_attributes_class_name;
  }
  return out;
}

json Volume(const api::Volume& v) {
  json out = {{"name", v.name}};
  const api::VolumeSource& s = v.source;
  if (v.claim_name) {
    out["persistentVolumeClaim"] = {{"claimName", v.claim_name->string()}};
    if (v.claim_read_only) out["persistentVolumeClaim"]["readOnly"] = true;
  } else if (v.ephemeral) {
    json meta = json::object();
    if (!v.ephemeral->labels.empty()) {
      for (const auto& [key, value] : v.ephemeral->labels)
        meta["labels"][key.string()] = value.string();
    }
    if (!v.ephemeral->annotations.empty()) meta["annotations"] = v.ephemeral->annotations;
    out["ephemeral"] = {
        {"volumeClaimTemplate", {{"metadata", meta}, {"spec", ClaimSpec(v.ephemeral->spec)}}}};
  } else if (s.gce_persistent_disk) {
    out["gcePersistentDisk"] = {{"pdName", s.gce_persistent_disk->pd_name},
                                {"readOnly", s.gce_persistent_disk->read_only}};
  } else if (s.aws_elastic_block_store) {
    out["awsElasticBlockStore"] = {{"volumeID", s.aws_elastic_block_store->volume_id},
                                   {"readOnly", s.aws_elastic_block_store->read_only}};
  } else if (s.rbd) {
    out["rbd"] = {{"monitors", s.rbd->monitors},
                  {"image", s.rbd->image},
                  {"pool", s.rbd->pool},
                  {"readOnly", s.rbd->read_only}};
  } else if (s.iscsi) {
    out["iscsi"] = {{"targetPortal", s.iscsi->target_portal},
                    {"iqn", s.iscsi->iqn},
                    {"readOnly", s.iscsi->read_only}};
  } else if (s.csi) {
    out["csi"] = {{"driver", s.csi->driver}, {"readOnly", s.csi->read_only}};
  } else if (!s.kind.empty()) {
    out[s.kind] = json::object();  // a source the scheduler does not look into (emptyDir, ...)
  }
  return out;
}

json Conditions(const std::vector<api::Condition>& conditions) {
  json out = json::array();
  for (const api::Condition& c : conditions) {
    json item = {{"type", c.type.str()}, {"status", c.status.str()}};
    if (!c.reason.empty()) item["reason"] = c.reason;
    if (!c.message.empty()) item["message"] = c.message;
    if (c.last_transition_time)
      item["lastTransitionTime"] = api::FormatTime(*c.last_transition_time);
    out.push_back(std::move(item));
  }
  return out;
}

json Taints(const std::vector<api::Taint>& taints) {
  json out = json::array();
  for (const api::Taint& t : taints) {
    json item = {{"key", t.key.string()}, {"effect", api::TaintEffectName(t.effect)}};
    if (!t.value.empty()) item["value"] = t.value.string();
    out.push_back(std::move(item));
  }
  return out;
}

// The pod's QoS class, as the API server records it in status.qosClass (upstream
// ComputePodQOS, from the pod-level or else the containers' cpu and memory): BestEffort without
// requests or limits, Guaranteed when every container limits both and the requests equal the
// limits, else Burstable.
std::string_view QOSClass(const api::PodSpec& spec) {
  std::map<std::string, api::Quantity, std::less<>> requests, limits;
  bool guaranteed = true;
  auto compute = [](api::Symbol name) { return name.str() == "cpu" || name.str() == "memory"; };
  auto add = [&](const api::ResourceList& request_list, const api::ResourceList& limit_list) {
    for (const auto& [name, q] : request_list) {
      if (compute(name) && q.Sign() > 0) requests[name.string()].Add(q);
    }
    int found = 0;
    for (const auto& [name, q] : limit_list) {
      if (compute(name) && q.Sign() > 0) {
        limits[name.string()].Add(q);
        ++found;
      }
    }
    if (found < 2) guaranteed = false;
  };
  // Pod-level resources, where set, decide alone (KEP-2837).
  if (spec.resources != nullptr) {
    add(spec.resources->requests, spec.resources->limits);
  } else {
    for (const api::Container& c : spec.init_containers)
      add(c.resources.requests, c.resources.limits);
    for (const api::Container& c : spec.containers) add(c.resources.requests, c.resources.limits);
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  for (const auto& [name, q] : requests) {
    auto it = limits.find(name);
    if (it == limits.end() || !(it->second == q)) guaranteed = false;
  }
  return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

}  // namespace

json EncodePod(const api::Pod& pod) {
  const api::PodSpec& s = pod.spec;
  json spec = json::object();
  for (const api::Container& c : s.init_containers) spec["initContainers"].push_back(Container(c));
  spec["containers"] = json::array();
  for (const api::Container& c : s.containers) spec["containers"].push_back(Container(c));
  if (!s.overhead.empty()) spec["overhead"] = Resources(s.overhead);
  if (s.resources != nullptr) {
    json resources = json::object();
    if (!s.resources->requests.empty()) resources["requests"] = Resources(s.resources->requests);
    if (!s.resources->limits.empty()) resources["limits"] = Resources(s.resources->limits);
    spec["resources"] = std::move(resources);
  }
  if (!s.node_name.empty()) spec["nodeName"] = s.node_name.string();
  if (!s.node_selector.empty()) {
    for (const auto& [key, value] : s.node_selector)
      spec["nodeSelector"][key.string()] = value.string();
  }
  if (s.affinity) spec["affinity"] = Affinity(*s.affinity);
  for (const api::Toleration& t : s.tolerations) {
    json item = json::object();
    if (!t.key.empty()) item["key"] = t.key.string();
    item["operator"] = api::TolerationOperatorName(t.op);
    if (!t.value.empty()) item["value"] = t.value.string();
    if (t.effect) item["effect"] = api::TaintEffectName(*t.effect);
    if (t.toleration_seconds) item["tolerationSeconds"] = *t.toleration_seconds;
    spec["tolerations"].push_back(std::move(item));
  }
  for (const api::TopologySpreadConstraint& c : s.topology_spread_constraints) {
    json item = {{"maxSkew", c.max_skew},
                 {"topologyKey", c.topology_key.string()},
                 {"whenUnsatisfiable",
                  c.when_unsatisfiable == api::UnsatisfiableConstraintAction::kDoNotSchedule
                      ? "DoNotSchedule"
                      : "ScheduleAnyway"}};
    if (c.label_selector) item["labelSelector"] = Selector(*c.label_selector);
    if (c.min_domains) item["minDomains"] = *c.min_domains;
    auto policy = [](api::NodeInclusionPolicy p) {
      return p == api::NodeInclusionPolicy::kHonor ? "Honor" : "Ignore";
    };
    if (c.node_affinity_policy) item["nodeAffinityPolicy"] = policy(*c.node_affinity_policy);
    if (c.node_taints_policy) item["nodeTaintsPolicy"] = policy(*c.node_taints_policy);
    if (!c.match_label_keys.empty()) item["matchLabelKeys"] = Symbols(c.match_label_keys);
    spec["topologySpreadConstraints"].push_back(std::move(item));
  }
  for (const std::string& gate : s.scheduling_gates)
    spec["schedulingGates"].push_back({{"name", gate}});
  spec["schedulerName"] = s.scheduler_name.string();
  if (s.priority) spec["priority"] = *s.priority;
  if (!s.priority_class_name.empty()) spec["priorityClassName"] = s.priority_class_name.string();
  if (s.preemption_policy) {
    spec["preemptionPolicy"] =
        *s.preemption_policy == api::PreemptionPolicy::kNever ? "Never" : "PreemptLowerPriority";
  }
  spec["restartPolicy"] = s.restart_policy.string();
  if (s.host_network) spec["hostNetwork"] = true;
  for (const api::Volume& v : s.volumes) spec["volumes"].push_back(Volume(v));
  for (const api::PodResourceClaim& c : s.resource_claims) {
    json item = {{"name", c.name.string()}};
    if (!c.resource_claim_name.empty()) item["resourceClaimName"] = c.resource_claim_name.string();
    if (!c.resource_claim_template_name.empty()) {
      item["resourceClaimTemplateName"] = c.resource_claim_template_name.string();
    }
    spec["resourceClaims"].push_back(std::move(item));
  }

  json status = {{"phase", api::PodPhaseName(pod.status.phase)}};
  if (!pod.status.conditions.empty()) status["conditions"] = Conditions(pod.status.conditions);
  if (!pod.status.nominated_node_name.empty()) {
    status["nominatedNodeName"] = pod.status.nominated_node_name.string();
  }
  if (pod.status.start_time) status["startTime"] = api::FormatTime(*pod.status.start_time);
  for (const api::PodResourceClaimStatus& c : pod.status.resource_claim_statuses) {
    json item = {{"name", c.name.string()}};
    if (!c.resource_claim_name.empty()) item["resourceClaimName"] = c.resource_claim_name.string();
    status["resourceClaimStatuses"].push_back(std::move(item));
  }
  if (pod.status.extended_resource_claim != nullptr) {
    status["extendedResourceClaimStatus"] =
        EncodeExtendedResourceClaimStatus(*pod.status.extended_resource_claim);
  }
  status["qosClass"] = QOSClass(pod.spec);
  // No apiVersion or kind: an informer's objects carry none, and kube-scheduler sends them so.
  return {
      {"metadata", Meta(pod.metadata)}, {"spec", std::move(spec)}, {"status", std::move(status)}};
}

json EncodeClaimStatus(const api::ResourceClaim& claim) {
  json status = json::object();
  if (const std::optional<api::AllocationResult>& a = claim.status.allocation) {
    json results = json::array();
    for (const api::DeviceRequestAllocationResult& r : a->devices) {
      json item = {{"request", r.request},
                   {"driver", r.driver.string()},
                   {"pool", r.pool.string()},
                   {"device", r.device.string()}};
      if (r.admin_access) item["adminAccess"] = true;
      for (const api::DeviceToleration& t : r.tolerations) {
        json tol = {
            {"operator", t.op == api::DeviceTolerationOperator::kExists ? "Exists" : "Equal"}};
        if (!t.key.empty()) tol["key"] = t.key;
        if (!t.value.empty()) tol["value"] = t.value;
        if (t.effect) tol["effect"] = api::DeviceTaintEffectName(*t.effect);
        if (t.toleration_seconds) tol["tolerationSeconds"] = *t.toleration_seconds;
        item["tolerations"].push_back(std::move(tol));
      }
      if (!r.binding_conditions.empty()) item["bindingConditions"] = r.binding_conditions;
      if (!r.binding_failure_conditions.empty()) {
        item["bindingFailureConditions"] = r.binding_failure_conditions;
      }
      results.push_back(std::move(item));
    }
    json allocation = {{"devices", {{"results", std::move(results)}}}};
    for (const api::DeviceAllocationConfiguration& c : a->config) {
      json item = {{"source", c.from_class ? "FromClass" : "FromClaim"},
                   {"opaque",
                    {{"driver", c.opaque.driver.string()},
                     {"parameters", json::parse(c.opaque.parameters, nullptr, false)}}}};
      if (!c.requests.empty()) item["requests"] = Symbols(c.requests);
      allocation["devices"]["config"].push_back(std::move(item));
    }
    if (a->node_selector) {
      json terms = json::array();
      for (const api::NodeSelectorTerm& t : a->node_selector->terms) terms.push_back(Term(t));
      allocation["nodeSelector"] = {{"nodeSelectorTerms", std::move(terms)}};
    }
    if (a->allocation_timestamp) {
      allocation["allocationTimestamp"] = api::FormatTime(*a->allocation_timestamp);
    }
    status["allocation"] = std::move(allocation);
  } else {
    // Deallocated: what drivers reported of the devices goes with the allocation (the status
    // is merged, so the drivers' entries stay while the claim is allocated).
    status["allocation"] = nullptr;
    status["devices"] = nullptr;
  }
  json reserved = json::array();
  for (const api::ResourceClaimConsumerReference& r : claim.status.reserved_for) {
    reserved.push_back(
        {{"apiGroup", r.api_group}, {"resource", r.resource}, {"name", r.name}, {"uid", r.uid}});
  }
  status["reservedFor"] = reserved.empty() ? json() : std::move(reserved);
  return status;
}

json EncodeClaim(const api::ResourceClaim& claim) {
  json requests = json::array();
  for (const api::DeviceRequest& r : claim.spec.requests) {
    if (!r.exactly) continue;
    const api::DeviceRequestSpec& e = *r.exactly;
    json exactly = {{"deviceClassName", e.device_class_name.string()},
                    {"allocationMode", api::DeviceAllocationModeName(e.allocation_mode)}};
    if (e.allocation_mode == api::DeviceAllocationMode::kExactCount) exactly["count"] = e.count;
    requests.push_back({{"name", r.name.string()}, {"exactly", std::move(exactly)}});
  }
  json meta = Meta(claim.metadata);
  if (claim.metadata.name.empty()) meta.erase("name");
  return {{"apiVersion", "resource.k8s.io/v1"},
          {"kind", "ResourceClaim"},
          {"metadata", std::move(meta)},
          {"spec", {{"devices", {{"requests", std::move(requests)}}}}}};
}

json EncodeExtendedResourceClaimStatus(const api::PodExtendedResourceClaimStatus& s) {
  json mappings = json::array();
  for (const api::ContainerExtendedResourceRequest& m : s.request_mappings) {
    mappings.push_back({{"containerName", m.container_name},
                        {"resourceName", m.resource_name.string()},
                        {"requestName", m.request_name.string()}});
  }
  return {{"requestMappings", std::move(mappings)},
          {"resourceClaimName", s.resource_claim_name.string()}};
}

json EncodeNode(const api::Node& node) {
  json spec = json::object();
  if (node.spec.unschedulable) spec["unschedulable"] = true;
  if (!node.spec.taints.empty()) spec["taints"] = Taints(node.spec.taints);
  json status = json::object();
  status["capacity"] = Resources(node.status.capacity);
  status["allocatable"] = Resources(node.status.allocatable);
  for (const api::NodeCondition& c : node.status.conditions) {
    json item = {{"type", c.type}, {"status", c.status}};
    if (!c.reason.empty()) item["reason"] = c.reason;
    if (!c.message.empty()) item["message"] = c.message;
    status["conditions"].push_back(std::move(item));
  }
  for (const api::ContainerImage& image : node.status.images) {
    status["images"].push_back({{"names", image.names}, {"sizeBytes", image.size_bytes}});
  }
  return {
      {"metadata", Meta(node.metadata)}, {"spec", std::move(spec)}, {"status", std::move(status)}};
}

}  // namespace muster::cluster::kube
