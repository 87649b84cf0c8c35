// The core/v1 kinds (Pod, Node, Namespace, Binding) and Events (core/v1 and events.k8s.io/v1).

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/decoder.h"
#include "muster/api/kinds.h"
#include "muster/api/object_decoding.h"
#include "muster/api/pod_resources.h"

namespace muster::api::decoding {
namespace {

// A container's or the pod's allocatedResources and resources.requests (in-place resize): what
// the kubelet admitted and what it applied; resources.limits and claims are the kubelet's.
ResourcesStatus ReadResourcesStatus(Decoder& d, Map& m) {
  ResourcesStatus status;
  if (Present(m.Get("allocatedResources"))) {
    status.allocated =
        ReadResourceList(d, m.Get("allocatedResources"), m.Path("allocatedResources"), false);
  }
  Map r(d, m.Get("resources"), m.Path("resources"), Fields::kUnchecked);
  if (Present(r.Get("requests"))) {
    status.actuated = ReadResourceList(d, r.Get("requests"), r.Path("requests"), false);
  }
  return status;
}

// status.extendedResourceClaimStatus, checked against the spec as the API server checks it.
PodExtendedResourceClaimStatus ReadExtendedResourceClaimStatus(Decoder& d, const YAML::Node& n,
                                                               const std::string& path,
                                                               const PodSpec& spec) {
  PodExtendedResourceClaimStatus status;
  Map m(d, n, path);
  const std::string name =
      ReadString(d, m.Get("resourceClaimName"), m.Path("resourceClaimName")).value_or("");
  if (name.empty()) {
    d.Error(m.Path("resourceClaimName"), "Required value");
  } else {
    ReportInvalid(d, m.Path("resourceClaimName"), name, Dns1123SubdomainErrors(name));
  }
  status.resource_claim_name = Symbol(name);
  if (!Present(m.Get("requestMappings"))) {
    d.Error(m.Path("requestMappings"), "Required value: at least one request mapping is required");
  }
  ReadList(d, m.Get("requestMappings"), m.Path("requestMappings"),
           [&](const YAML::Node& item, const std::string& p) {
             Map rm(d, item, p);
             ContainerExtendedResourceRequest r;
             r.container_name =
                 ReadString(d, rm.Get("containerName"), rm.Path("containerName")).value_or("");
             const std::string resource =
                 ReadString(d, rm.Get("resourceName"), rm.Path("resourceName")).value_or("");
             const std::string request =
                 ReadString(d, rm.Get("requestName"), rm.Path("requestName")).value_or("");
             // Checked against the spec in files (the API server checked a cluster's).
             if (!d.Served()) {
               const Container* container = nullptr;
               for (const auto* list : {&spec.init_containers, &spec.containers}) {
                 for (const Container& c : *list) {
                   if (c.name == r.container_name) container = &c;
                 }
               }
               if (container == nullptr) {
                 ReportInvalid(d, rm.Path("containerName"), r.container_name,
                               {"must match the name of an entry in spec.initContainers.name or "
                                "spec.containers.name"});
               } else if (container->resources.requests.Get(Symbol(resource)) == nullptr) {
                 ReportInvalid(d, rm.Path("resourceName"), resource,
                               {"must match the extended resource name of an entry in "
                                "spec.initContainers.resources.requests or "
                                "spec.containers.resources.requests"});
               }
             }
             if (request.empty()) {
               d.Error(rm.Path("requestName"), "Required value");
             } else {
               ReportInvalid(d, rm.Path("requestName"), request, Dns1123LabelErrors(request));
             }
             r.resource_name = Symbol(resource);
             r.request_name = Symbol(request);
             status.request_mappings.push_back(std::move(r));
           });
  return status;
}

Pod ReadPod(Decoder& d, Map& m) {
  Pod pod;
  pod.metadata = ReadObjectMeta<Pod>(d, m);
  pod.spec = ReadPodSpec(d, m.Get("spec"), "spec");
  Map s(d, m.Get("status"), "status");
  s.Known({"message", "reason", "hostIP", "hostIPs", "podIP", "podIPs",
           "ephemeralContainerStatuses", "qosClass", "resize", "observedGeneration"});
  PodResourcesStatus resources;
  for (const char* field : {"containerStatuses", "initContainerStatuses"}) {
    ReadList(d, s.Get(field), s.Path(field), [&](const YAML::Node& item, const std::string& p) {
      Map cm(d, item, p, Fields::kUnchecked);
      ContainerResourcesStatus status;
      status.name = ReadString(d, cm.Get("name"), cm.Path("name")).value_or("");
      status.resources = ReadResourcesStatus(d, cm);
      if (status.resources.allocated || status.resources.actuated) {
        resources.containers.push_back(std::move(status));
      }
    });
  }
  resources.pod = ReadResourcesStatus(d, s);
  ReadList(
      d, s.Get("resourceClaimStatuses"), s.Path("resourceClaimStatuses"),
      [&](const YAML::Node& item, const std::string& p) {
        Map cm(d, item, p, Fields::kUnchecked);
        PodResourceClaimStatus status;
        status.name = Symbol(ReadString(d, cm.Get("name"), cm.Path("name")).value_or(""));
        status.resource_claim_name = Symbol(
            ReadString(d, cm.Get("resourceClaimName"), cm.Path("resourceClaimName")).value_or(""));
        pod.status.resource_claim_statuses.push_back(status);
      });
  if (Present(s.Get("extendedResourceClaimStatus"))) {
    pod.status.extended_resource_claim = std::make_shared<const PodExtendedResourceClaimStatus>(
        ReadExtendedResourceClaimStatus(d, s.Get("extendedResourceClaimStatus"),
                                        s.Path("extendedResourceClaimStatus"), pod.spec));
  }
  if (auto phase = ReadString(d, s.Get("phase"), s.Path("phase"))) {
    if (auto p = ParsePodPhase(*phase)) {
      pod.status.phase = *p;
    } else {
      d.Error(s.Path("phase"), fmt::format("Unsupported value: \"{}\"", *phase));
    }
  }
  ReadList(d, s.Get("conditions"), s.Path("conditions"),
           [&](const YAML::Node& item, const std::string& p) {
             pod.status.conditions.push_back(ReadCondition(d, item, p));
           });
  pod.status.nominated_node_name =
      Symbol(ReadString(d, s.Get("nominatedNodeName"), s.Path("nominatedNodeName")).value_or(""));
  pod.status.start_time = ReadTime(d, s.Get("startTime"), s.Path("startTime"));
  // Kept only where PodRequests reads something the spec does not say: every running pod of a
  // 1.33+ cluster reports its resources, nearly always the spec's own.
  if (!resources.containers.empty() || resources.pod.allocated || resources.pod.actuated) {
    pod.status.resources = std::make_shared<const PodResourcesStatus>(std::move(resources));
    if (!StatusChangesRequests(pod)) pod.status.resources = nullptr;
  }
  return pod;
}

Node ReadNode(Decoder& d, Map& m) {
  Node node;
  node.metadata = ReadObjectMeta<Node>(d, m);
  {
    Map s(d, m.Get("spec"), "spec");
    s.Known({"podCIDR", "podCIDRs", "providerID", "configSource", "externalID"});
    node.spec.unschedulable =
        ReadBool(d, s.Get("unschedulable"), s.Path("unschedulable")).value_or(false);
    ReadList(d, s.Get("taints"), s.Path("taints"),
             [&](const YAML::Node& item, const std::string& p) {
               Map t(d, item, p);
               Taint taint;
               t.Known({"timeAdded"});
               const std::string key = ReadString(d, t.Get("key"), t.Path("key")).value_or("");
               if (key.empty()) {
                 d.Error(t.Path("key"), "Required value");
               } else {
                 ReportInvalid(d, t.Path("key"), key, LabelKeyErrors(key));
               }
               taint.key = Symbol(key);
               taint.value = Symbol(ReadString(d, t.Get("value"), t.Path("value")).value_or(""));
               auto effect = ReadEffect(d, t.Get("effect"), t.Path("effect"));
               if (!Present(t.Get("effect"))) d.Error(t.Path("effect"), "Required value");
               taint.effect = effect.value_or(TaintEffect::kNoSchedule);
               node.spec.taints.push_back(taint);
             });
  }
  Map s(d, m.Get("status"), "status");
  s.Known({"phase", "addresses", "daemonEndpoints", "nodeInfo", "volumesInUse", "volumesAttached",
           "config", "runtimeHandlers", "features"});
  ReadList(d, s.Get("declaredFeatures"), s.Path("declaredFeatures"),
           [&](const YAML::Node& item, const std::string& p) {
             const std::optional<std::string> name = ReadString(d, item, p);
             if (!name) return;
             if (std::optional<NodeFeature> f = ParseNodeFeature(*name)) {
               node.status.declared_features |= BitOf(*f);
             }
           });
  node.status.capacity = ReadResourceList(d, s.Get("capacity"), s.Path("capacity"), false);
  node.status.allocatable = ReadResourceList(d, s.Get("allocatable"), s.Path("allocatable"), false);
  if (!Present(s.Get("allocatable"))) node.status.allocatable = node.status.capacity;
  ReadList(d, s.Get("conditions"), s.Path("conditions"),
           [&](const YAML::Node& item, const std::string& p) {
             Map c(d, item, p);
             NodeCondition cond;
             c.Known({"lastHeartbeatTime", "lastTransitionTime"});
             cond.type = ReadString(d, c.Get("type"), c.Path("type")).value_or("");
             cond.status = ReadString(d, c.Get("status"), c.Path("status")).value_or("");
             cond.reason = ReadString(d, c.Get("reason"), c.Path("reason")).value_or("");
             cond.message = ReadString(d, c.Get("message"), c.Path("message")).value_or("");
             node.status.conditions.push_back(std::move(cond));
           });
  ReadList(d, s.Get("images"), s.Path("images"), [&](const YAML::Node& item, const std::string& p) {
    Map im(d, item, p);
    ContainerImage image;
    image.names = ReadStringList(d, im.Get("names"), im.Path("names"));
    image.size_bytes =
        ReadInt(d, im.Get("sizeBytes"), im.Path("sizeBytes"), 0, INT64_MAX).value_or(0);
    node.status.images.push_back(std::move(image));
  });
  return node;
}

ObjectReference ReadObjectReference(Decoder& d, const YAML::Node& n, const std::string& path) {
  ObjectReference ref;
  Map m(d, n, path);
  m.Known({"resourceVersion", "fieldPath"});
  ref.kind = ReadString(d, m.Get("kind"), m.Path("kind")).value_or("");
  ref.namespace_ = ReadString(d, m.Get("namespace"), m.Path("namespace")).value_or("");
  ref.name = ReadString(d, m.Get("name"), m.Path("name")).value_or("");
  ref.uid = ReadString(d, m.Get("uid"), m.Path("uid")).value_or("");
  ref.api_version = ReadString(d, m.Get("apiVersion"), m.Path("apiVersion")).value_or("");
  return ref;
}

Binding ReadBinding(Decoder& d, Map& m) {
  Binding b;
  b.metadata = ReadObjectMeta<Binding>(d, m);
  b.target = ReadObjectReference(d, m.Get("target"), "target");
  if (b.target.name.empty()) d.Error("target.name", "Required value");
  return b;
}

Event ReadEvent(Decoder& d, Map& m, bool events_api) {
  Event e;
  e.metadata = ReadObjectMeta<Event>(d, m);
  if (events_api) {
    m.Known({"series", "related", "reportingInstance", "deprecatedSource",
             "deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount"});
  } else {
    m.Known(
        {"source", "firstTimestamp", "lastTimestamp", "series", "related", "reportingInstance"});
  }
  e.involved_object = ReadObjectReference(d, m.Get(events_api ? "regarding" : "involvedObject"),
                                          events_api ? "regarding" : "involvedObject");
  e.type = ReadString(d, m.Get("type"), "type").value_or("");
  e.reason = ReadString(d, m.Get("reason"), "reason").value_or("");
  e.message = ReadString(d, m.Get(events_api ? "note" : "message"), events_api ? "note" : "message")
                  .value_or("");
  e.action = ReadString(d, m.Get("action"), "action").value_or("");
  e.reporting_controller =
      ReadString(d, m.Get(events_api ? "reportingController" : "reportingComponent"),
                 events_api ? "reportingController" : "reportingComponent")
          .value_or("");
  e.event_time = ReadTime(d, m.Get("eventTime"), "eventTime");
  e.count = static_cast<int32_t>(ReadInt(d, m.Get("count"), "count", 0).value_or(1));
  if (e.type != "" && e.type != "Normal" && e.type != "Warning") {
    d.Error("type",
            fmt::format("Unsupported value: \"{}\": supported values: \"Normal\", \"Warning\"",
                        e.type));
  }
  return e;
}

}  // namespace

Pod DecodePod(Decoder& d, Map& m, const std::string&) { return ReadPod(d, m); }
Node DecodeNode(Decoder& d, Map& m, const std::string&) { return ReadNode(d, m); }
Namespace DecodeNamespace(Decoder& d, Map& m, const std::string&) {
  Namespace ns;
  ns.metadata = ReadObjectMeta<Namespace>(d, m);
  m.Known({"spec", "status"});  // finalizers and phase
  if (!ns.metadata.name.empty()) {
    ReportInvalid(d, "metadata.name", ns.metadata.name, Dns1123LabelErrors(ns.metadata.name));
  }
  return ns;
}
Binding DecodeBinding(Decoder& d, Map& m, const std::string&) { return ReadBinding(d, m); }
Event DecodeEvent(Decoder& d, Map& m, const std::string& api_version) {
  return ReadEvent(d, m, api_version == "events.k8s.io/v1");
}

}  // namespace muster::api::decoding
