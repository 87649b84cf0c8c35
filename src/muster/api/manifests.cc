#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <type_traits>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/decoder.h"
#include "muster/api/kinds.h"
#include "muster/api/manifests.h"
#include "muster/api/nearest.h"
#include "muster/api/priority.h"

namespace muster::api {

// The toolkit (decoder.h) is this file's own: its names are used unqualified.
using namespace decoding;  // NOLINT(google-build-using-namespace)

namespace {

// ---- metadata ----

// The metadata fields of the API that nothing in muster reads.
constexpr std::string_view kUnreadMetadata[] = {"selfLink", "generation",
                                                "deletionGracePeriodSeconds", "finalizers",
                                                "managedFields"};

LabelSet ReadLabels(Decoder& d, const YAML::Node& n, const std::string& path) {
  LabelSet labels;
  ReadMapEntries(d, n, path, [&](const std::string& key, const YAML::Node& v, const std::string& p) {
    ReportInvalid(d, path, key, LabelKeyErrors(key));
    auto value = ReadString(d, v, p).value_or("");
    ReportInvalid(d, p, value, LabelValueErrors(value));
    labels.Set(Symbol(key), Symbol(value));
  });
  return labels;
}

ObjectMeta ReadMeta(Decoder& d, const YAML::Node& n, const std::string& path, bool namespaced,
                    bool require_name) {
  ObjectMeta meta;
  Map m(d, n, path);
  m.Known(kUnreadMetadata);
  meta.name = ReadString(d, m.Get("name"), m.Path("name")).value_or("");
  meta.generate_name = ReadString(d, m.Get("generateName"), m.Path("generateName")).value_or("");
  const std::string ns = ReadString(d, m.Get("namespace"), m.Path("namespace")).value_or("");
  if (namespaced) {
    meta.namespace_ = Symbol(ns.empty() ? kDefaultNamespace : std::string_view(ns));
    if (!ns.empty()) {
      ReportInvalid(d, m.Path("namespace"), ns, Dns1123LabelErrors(ns));
    }
  }
  d.SetObjectName(meta.name.empty() ? "" : meta.Key());
  if (require_name && meta.name.empty() && meta.generate_name.empty()) {
    d.Error(m.Path("name"), "Required value: name or generateName is required");
  } else if (!meta.name.empty()) {
    ReportInvalid(d, m.Path("name"), meta.name, Dns1123SubdomainErrors(meta.name));
  }
  meta.uid = ReadString(d, m.Get("uid"), m.Path("uid")).value_or("");
  meta.resource_version =
      ReadString(d, m.Get("resourceVersion"), m.Path("resourceVersion")).value_or("");
  meta.labels = ReadLabels(d, m.Get("labels"), m.Path("labels"));
  ReadMapEntries(d, m.Get("annotations"), m.Path("annotations"),
                 [&](const std::string& key, const YAML::Node& v, const std::string& p) {
                   meta.annotations[key] = ReadString(d, v, p).value_or("");
                 });
  for (std::string_view key : kSimulationAnnotations) {
    auto it = meta.annotations.find(std::string(key));
    if (it == meta.annotations.end()) continue;
    auto dur = ParseDuration(it->second);
    if (!dur || dur->count() < 0) {
      d.Error(m.Path("annotations") + "." + std::string(key),
              fmt::format("invalid duration \"{}\" (want a non-negative Go duration like 30s)",
                          it->second));
    }
  }
  ReadList(d, m.Get("ownerReferences"), m.Path("ownerReferences"),
           [&](const YAML::Node& item, const std::string& p) {
             Map r(d, item, p);
             OwnerReference ref;
             ref.api_version = ReadString(d, r.Get("apiVersion"), r.Path("apiVersion")).value_or("");
             ref.kind = ReadString(d, r.Get("kind"), r.Path("kind")).value_or("");
             ref.name = ReadString(d, r.Get("name"), r.Path("name")).value_or("");
             ref.uid = ReadString(d, r.Get("uid"), r.Path("uid")).value_or("");
             ref.controller = ReadBool(d, r.Get("controller"), r.Path("controller")).value_or(false);
             ref.block_owner_deletion =
                 ReadBool(d, r.Get("blockOwnerDeletion"), r.Path("blockOwnerDeletion"))
                     .value_or(false);
             meta.owner_references.push_back(std::move(ref));
           });
  meta.creation_timestamp = ReadTime(d, m.Get("creationTimestamp"), m.Path("creationTimestamp"));
  meta.deletion_timestamp = ReadTime(d, m.Get("deletionTimestamp"), m.Path("deletionTimestamp"));
  return meta;
}

// An object's own metadata, namespaced or not as Kinds() says of its kind T.
template <typename T>
ObjectMeta ReadObjectMeta(Decoder& d, Map& m) {
  return ReadMeta(d, m.Get("metadata"), "metadata", KindOf<T>().namespaced, true);
}

// ---- selectors ----

SelectorRequirement ReadRequirement(Decoder& d, const YAML::Node& n, const std::string& path) {
  Map m(d, n, path);
  SelectorRequirement req;
  const std::string key = ReadString(d, m.Get("key"), m.Path("key")).value_or("");
  req.key = Symbol(key);
  const std::string op = ReadString(d, m.Get("operator"), m.Path("operator")).value_or("");
  if (auto parsed = ParseSelectorOperator(op)) {
    req.op = *parsed;
  } else {
    d.Error(m.Path("operator"), op.empty() ? "Required value"
                                           : fmt::format("Unsupported value: \"{}\"", op));
  }
  req.values = ReadSymbolList(d, m.Get("values"), m.Path("values"));
  return req;
}

void ReportFieldErrors(Decoder& d, const std::vector<FieldError>& errs) {
  for (const FieldError& e : errs) d.Error(e.path, e.message);
}

LabelSelector ReadLabelSelector(Decoder& d, const YAML::Node& n, const std::string& path) {
  LabelSelector sel;
  Map m(d, n, path);
  LabelSet match_labels = ReadLabels(d, m.Get("matchLabels"), m.Path("matchLabels"));
  for (const auto& kv : match_labels) sel.match_labels.push_back(kv);
  ReadList(d, m.Get("matchExpressions"), m.Path("matchExpressions"),
           [&](const YAML::Node& item, const std::string& p) {
             sel.match_expressions.push_back(ReadRequirement(d, item, p));
           });
  ReportFieldErrors(d, ValidateLabelSelector(sel, path));
  PrepareLabelSelector(sel);
  return sel;
}

std::optional<LabelSelector> ReadOptionalLabelSelector(Decoder& d, const YAML::Node& n,
                                                       const std::string& path) {
  if (!Present(n)) return std::nullopt;
  return ReadLabelSelector(d, n, path);
}

NodeSelectorTerm ReadNodeSelectorTerm(Decoder& d, const YAML::Node& n, const std::string& path) {
  NodeSelectorTerm term;
  Map m(d, n, path);
  ReadList(d, m.Get("matchExpressions"), m.Path("matchExpressions"),
           [&](const YAML::Node& item, const std::string& p) {
             term.match_expressions.push_back(ReadRequirement(d, item, p));
           });
  ReadList(d, m.Get("matchFields"), m.Path("matchFields"),
           [&](const YAML::Node& item, const std::string& p) {
             term.match_fields.push_back(ReadRequirement(d, item, p));
           });
  ReportFieldErrors(d, ValidateNodeSelectorTerm(term, path));
  PrepareNodeSelectorTerm(term);
  return term;
}

// ---- pod spec ----

ResourceList ReadResourceList(Decoder& d, const YAML::Node& n, const std::string& path,
                              bool container) {
  ResourceList list;
  ReadMapEntries(d, n, path, [&](const std::string& name, const YAML::Node& v,
                                 const std::string& p) {
    if (container && !IsContainerResourceName(name)) {
      d.Error(p, fmt::format("Invalid value: \"{}\": must be a standard resource for containers",
                             name));
      return;
    }
    if (!container && !IsNativeResource(name) && !IsExtendedResourceName(name) &&
        !IsValidLabelKey(name)) {
      d.Error(p, fmt::format("Invalid value: \"{}\": must be a standard resource type or fully "
                             "qualified",
                             name));
      return;
    }
    auto q = ReadQuantity(d, v, p);
    if (!q) return;
    if (q->Sign() < 0) {
      d.Error(p, fmt::format("Invalid value: \"{}\": must be greater than or equal to 0",
                             q->String()));
      return;
    }
    list.Set(name, *q);
  });
  return list;
}

Container ReadContainer(Decoder& d, const YAML::Node& n, const std::string& path, bool init) {
  Container c;
  Map m(d, n, path);
  // What the kubelet reads and the scheduler does not.
  m.Known({"command", "args", "workingDir", "envFrom", "env", "resizePolicy",
           "restartPolicyRules", "volumeMounts", "volumeDevices", "livenessProbe",
           "readinessProbe", "startupProbe", "lifecycle", "terminationMessagePath",
           "terminationMessagePolicy", "imagePullPolicy", "securityContext", "stdin",
           "stdinOnce", "tty"});
  c.name = ReadString(d, m.Get("name"), m.Path("name")).value_or("");
  c.image = ReadString(d, m.Get("image"), m.Path("image")).value_or("");
  {
    Map r(d, m.Get("resources"), m.Path("resources"));
    r.Known({"claims"});  // the pod's resourceClaims, refused at the pod
    c.resources.limits = ReadResourceList(d, r.Get("limits"), r.Path("limits"), true);
    c.resources.requests = ReadResourceList(d, r.Get("requests"), r.Path("requests"), true);
    // The API server defaults a missing request to its limit.
    for (const auto& [name, q] : c.resources.limits) {
      if (!c.resources.requests.Get(name)) c.resources.requests.Set(name, q);
    }
    for (const auto& [name, q] : c.resources.requests) {
      const Quantity* limit = c.resources.limits.Get(name);
      const std::string p = Join(r.Path("requests"), name.str());
      if (limit != nullptr && *limit < q) {
        d.Error(p, fmt::format("Invalid value: \"{}\": must be less than or equal to {} limit of {}",
                               q.String(), name.str(), limit->String()));
      }
      if (IsExtendedResourceName(name.str()) && (limit == nullptr || !(*limit == q))) {
        d.Error(p, fmt::format("Invalid value: \"{}\": must be equal to {} limit of {}",
                               q.String(), name.str(), limit ? limit->String() : "0"));
      }
    }
  }
  ReadList(d, m.Get("ports"), m.Path("ports"), [&](const YAML::Node& item, const std::string& p) {
    Map pm(d, item, p);
    ContainerPort port;
    port.name = ReadString(d, pm.Get("name"), pm.Path("name")).value_or("");
    port.container_port =
        static_cast<int32_t>(ReadInt(d, pm.Get("containerPort"), pm.Path("containerPort"), 1, 65535)
                                 .value_or(0));
    port.host_port = static_cast<int32_t>(
        ReadInt(d, pm.Get("hostPort"), pm.Path("hostPort"), 0, 65535).value_or(0));
    const std::string proto = ReadString(d, pm.Get("protocol"), pm.Path("protocol")).value_or("TCP");
    if (proto == "TCP") {
      port.protocol = Protocol::kTCP;
    } else if (proto == "UDP") {
      port.protocol = Protocol::kUDP;
    } else if (proto == "SCTP") {
      port.protocol = Protocol::kSCTP;
    } else {
      d.Error(pm.Path("protocol"),
              fmt::format("Unsupported value: \"{}\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
                          proto));
    }
    port.host_ip = Symbol(ReadString(d, pm.Get("hostIP"), pm.Path("hostIP")).value_or(""));
    c.ports.push_back(port);
  });
  if (auto policy = ReadString(d, m.Get("restartPolicy"), m.Path("restartPolicy"))) {
    if (!init) {
      d.Error(m.Path("restartPolicy"), "Forbidden: may not be set for non-init containers");
    } else if (*policy != "Always") {
      d.Error(m.Path("restartPolicy"),
              fmt::format("Unsupported value: \"{}\": supported values: \"Always\"", *policy));
    } else {
      c.restart_policy_always = true;
    }
  }
  return c;
}

PodAffinityTerm ReadPodAffinityTerm(Decoder& d, const YAML::Node& n, const std::string& path) {
  PodAffinityTerm t;
  Map m(d, n, path);
  t.label_selector = ReadOptionalLabelSelector(d, m.Get("labelSelector"), m.Path("labelSelector"));
  t.namespaces = ReadSymbolList(d, m.Get("namespaces"), m.Path("namespaces"));
  const std::string key = ReadString(d, m.Get("topologyKey"), m.Path("topologyKey")).value_or("");
  if (key.empty()) {
    d.Error(m.Path("topologyKey"), "Required value: can not be empty");
  } else {
    ReportInvalid(d, m.Path("topologyKey"), key, LabelKeyErrors(key));
  }
  t.topology_key = Symbol(key);
  t.namespace_selector =
      ReadOptionalLabelSelector(d, m.Get("namespaceSelector"), m.Path("namespaceSelector"));
  t.match_label_keys = ReadSymbolList(d, m.Get("matchLabelKeys"), m.Path("matchLabelKeys"));
  t.mismatch_label_keys =
      ReadSymbolList(d, m.Get("mismatchLabelKeys"), m.Path("mismatchLabelKeys"));
  return t;
}

int32_t ReadWeight(Decoder& d, const YAML::Node& n, const std::string& path) {
  const int64_t w = ReadInt(d, n, path).value_or(0);
  if (w < 1 || w > 100) d.Error(path, fmt::format("Invalid value: {}: must be in the range 1-100", w));
  return static_cast<int32_t>(w);
}

PodAffinity ReadPodAffinity(Decoder& d, const YAML::Node& n, const std::string& path) {
  PodAffinity a;
  Map m(d, n, path);
  ReadList(d, m.Get("requiredDuringSchedulingIgnoredDuringExecution"),
           m.Path("requiredDuringSchedulingIgnoredDuringExecution"),
           [&](const YAML::Node& item, const std::string& p) {
             a.required.push_back(ReadPodAffinityTerm(d, item, p));
           });
  ReadList(d, m.Get("preferredDuringSchedulingIgnoredDuringExecution"),
           m.Path("preferredDuringSchedulingIgnoredDuringExecution"),
           [&](const YAML::Node& item, const std::string& p) {
             Map w(d, item, p);
             WeightedPodAffinityTerm wt;
             wt.weight = ReadWeight(d, w.Get("weight"), w.Path("weight"));
             wt.term = ReadPodAffinityTerm(d, w.Get("podAffinityTerm"), w.Path("podAffinityTerm"));
             a.preferred.push_back(std::move(wt));
           });
  return a;
}

Affinity ReadAffinity(Decoder& d, const YAML::Node& n, const std::string& path) {
  Affinity a;
  Map m(d, n, path);
  if (YAML::Node na = m.Get("nodeAffinity"); Present(na)) {
    NodeAffinity node_affinity;
    Map nm(d, na, m.Path("nodeAffinity"));
    if (YAML::Node req = nm.Get("requiredDuringSchedulingIgnoredDuringExecution"); Present(req)) {
      const std::string rp = nm.Path("requiredDuringSchedulingIgnoredDuringExecution");
      Map rm(d, req, rp);
      NodeSelector sel;
      ReadList(d, rm.Get("nodeSelectorTerms"), rm.Path("nodeSelectorTerms"),
               [&](const YAML::Node& item, const std::string& p) {
                 sel.terms.push_back(ReadNodeSelectorTerm(d, item, p));
               });
      if (sel.terms.empty()) d.Error(rm.Path("nodeSelectorTerms"), "Required value: must have at least one node selector term");
      node_affinity.required = std::move(sel);
    }
    ReadList(d, nm.Get("preferredDuringSchedulingIgnoredDuringExecution"),
             nm.Path("preferredDuringSchedulingIgnoredDuringExecution"),
             [&](const YAML::Node& item, const std::string& p) {
               Map w(d, item, p);
               PreferredSchedulingTerm term;
               term.weight = ReadWeight(d, w.Get("weight"), w.Path("weight"));
               term.preference =
                   ReadNodeSelectorTerm(d, w.Get("preference"), w.Path("preference"));
               node_affinity.preferred.push_back(std::move(term));
             });
    a.node_affinity = std::move(node_affinity);
  }
  if (YAML::Node pa = m.Get("podAffinity"); Present(pa)) {
    a.pod_affinity = ReadPodAffinity(d, pa, m.Path("podAffinity"));
  }
  if (YAML::Node paa = m.Get("podAntiAffinity"); Present(paa)) {
    a.pod_anti_affinity = ReadPodAffinity(d, paa, m.Path("podAntiAffinity"));
  }
  return a;
}

std::optional<TaintEffect> ReadEffect(Decoder& d, const YAML::Node& n, const std::string& path) {
  auto s = ReadString(d, n, path);
  if (!s || s->empty()) return std::nullopt;
  auto effect = ParseTaintEffect(*s);
  if (!effect) {
    d.Error(path, fmt::format("Unsupported value: \"{}\": supported values: \"NoExecute\", "
                              "\"NoSchedule\", \"PreferNoSchedule\"",
                              *s));
  }
  return effect;
}

Toleration ReadToleration(Decoder& d, const YAML::Node& n, const std::string& path) {
  Toleration t;
  Map m(d, n, path);
  t.key = Symbol(ReadString(d, m.Get("key"), m.Path("key")).value_or(""));
  const std::string op = ReadString(d, m.Get("operator"), m.Path("operator")).value_or("");
  if (op.empty() || op == "Equal") {
    t.op = TolerationOperator::kEqual;
  } else if (op == "Exists") {
    t.op = TolerationOperator::kExists;
  } else {
    d.Error(m.Path("operator"),
            fmt::format("Unsupported value: \"{}\": supported values: \"Equal\", \"Exists\"", op));
  }
  t.value = Symbol(ReadString(d, m.Get("value"), m.Path("value")).value_or(""));
  t.effect = ReadEffect(d, m.Get("effect"), m.Path("effect"));
  if (auto secs = ReadInt(d, m.Get("tolerationSeconds"), m.Path("tolerationSeconds"), INT64_MIN,
                          INT64_MAX)) {
    t.toleration_seconds = *secs;
  }
  ReportFieldErrors(d, ValidateToleration(t, path));
  return t;
}

TopologySpreadConstraint ReadSpread(Decoder& d, const YAML::Node& n, const std::string& path) {
  TopologySpreadConstraint c;
  Map m(d, n, path);
  const int64_t skew = ReadInt(d, m.Get("maxSkew"), m.Path("maxSkew")).value_or(0);
  if (skew <= 0) {
    d.Error(m.Path("maxSkew"), fmt::format("Invalid value: {}: must be greater than zero", skew));
  }
  c.max_skew = static_cast<int32_t>(skew);
  const std::string key = ReadString(d, m.Get("topologyKey"), m.Path("topologyKey")).value_or("");
  if (key.empty()) d.Error(m.Path("topologyKey"), "Required value: can not be empty");
  c.topology_key = Symbol(key);
  const std::string when =
      ReadString(d, m.Get("whenUnsatisfiable"), m.Path("whenUnsatisfiable")).value_or("");
  if (when == "DoNotSchedule") {
    c.when_unsatisfiable = UnsatisfiableConstraintAction::kDoNotSchedule;
  } else if (when == "ScheduleAnyway") {
    c.when_unsatisfiable = UnsatisfiableConstraintAction::kScheduleAnyway;
  } else {
    d.Error(m.Path("whenUnsatisfiable"),
            fmt::format("Unsupported value: \"{}\": supported values: \"DoNotSchedule\", "
                        "\"ScheduleAnyway\"",
                        when));
  }
  c.label_selector = ReadOptionalLabelSelector(d, m.Get("labelSelector"), m.Path("labelSelector"));
  if (auto md = ReadInt(d, m.Get("minDomains"), m.Path("minDomains"))) {
    if (*md <= 0) {
      d.Error(m.Path("minDomains"), fmt::format("Invalid value: {}: must be greater than zero", *md));
    } else if (c.when_unsatisfiable != UnsatisfiableConstraintAction::kDoNotSchedule) {
      d.Error(m.Path("minDomains"),
              fmt::format("Invalid value: {}: can only use minDomains if whenUnsatisfiable=DoNotSchedule", *md));
    }
    c.min_domains = static_cast<int32_t>(*md);
  }
  auto policy = [&](std::string_view field) -> std::optional<NodeInclusionPolicy> {
    auto s = ReadString(d, m.Get(field), m.Path(field));
    if (!s) return std::nullopt;
    if (*s == "Honor") return NodeInclusionPolicy::kHonor;
    if (*s == "Ignore") return NodeInclusionPolicy::kIgnore;
    d.Error(m.Path(field),
            fmt::format("Unsupported value: \"{}\": supported values: \"Honor\", \"Ignore\"", *s));
    return std::nullopt;
  };
  c.node_affinity_policy = policy("nodeAffinityPolicy");
  c.node_taints_policy = policy("nodeTaintsPolicy");
  c.match_label_keys = ReadSymbolList(d, m.Get("matchLabelKeys"), m.Path("matchLabelKeys"));
  return c;
}

PodSpec ReadPodSpec(Decoder& d, const YAML::Node& n, const std::string& path) {
  PodSpec spec;
  Map m(d, n, path);
  // What the kubelet and the API server read, and the scheduler does not. (Volumes are not
  // modeled yet: the volume plugins pass every pod.)
  m.Known({"volumes", "ephemeralContainers", "terminationGracePeriodSeconds",
           "activeDeadlineSeconds", "dnsPolicy", "serviceAccountName", "serviceAccount",
           "automountServiceAccountToken", "hostPID", "hostIPC", "shareProcessNamespace",
           "securityContext", "imagePullSecrets", "hostname", "subdomain", "hostAliases",
           "dnsConfig", "readinessGates", "runtimeClassName", "enableServiceLinks",
           "setHostnameAsFQDN", "os", "hostUsers", "hostnameOverride"});
  // What the scheduler would read and muster does not model yet: refused, not ignored.
  for (const auto& [field, what] :
       {std::pair<std::string_view, std::string_view>{"resourceClaims",
                                                      "Dynamic Resource Allocation"},
        {"resources", "pod-level resources"},
        {"workloadRef", "the Workload API"},
        {"schedulingGroup", "the PodGroup API of scheduling.k8s.io"}}) {
    if (Present(m.Get(field)) && !d.Served()) {
      d.Error(m.Path(field), fmt::format("Forbidden: muster does not model {} yet", what));
    }
  }
  ReadList(d, m.Get("initContainers"), m.Path("initContainers"),
           [&](const YAML::Node& item, const std::string& p) {
             spec.init_containers.push_back(ReadContainer(d, item, p, true));
           });
  ReadList(d, m.Get("containers"), m.Path("containers"),
           [&](const YAML::Node& item, const std::string& p) {
             spec.containers.push_back(ReadContainer(d, item, p, false));
           });
  if (spec.containers.empty()) d.Error(m.Path("containers"), "Required value");
  spec.overhead = ReadResourceList(d, m.Get("overhead"), m.Path("overhead"), false);
  spec.node_name = Symbol(ReadString(d, m.Get("nodeName"), m.Path("nodeName")).value_or(""));
  spec.node_selector = ReadLabels(d, m.Get("nodeSelector"), m.Path("nodeSelector"));
  if (YAML::Node a = m.Get("affinity"); Present(a)) {
    spec.affinity = ReadAffinity(d, a, m.Path("affinity"));
  }
  ReadList(d, m.Get("tolerations"), m.Path("tolerations"),
           [&](const YAML::Node& item, const std::string& p) {
             spec.tolerations.push_back(ReadToleration(d, item, p));
           });
  ReadList(d, m.Get("topologySpreadConstraints"), m.Path("topologySpreadConstraints"),
           [&](const YAML::Node& item, const std::string& p) {
             spec.topology_spread_constraints.push_back(ReadSpread(d, item, p));
           });
  ReadList(d, m.Get("schedulingGates"), m.Path("schedulingGates"),
           [&](const YAML::Node& item, const std::string& p) {
             Map g(d, item, p);
             const std::string name = ReadString(d, g.Get("name"), g.Path("name")).value_or("");
             if (name.empty()) {
               d.Error(g.Path("name"), "Required value");
             } else if (std::find(spec.scheduling_gates.begin(), spec.scheduling_gates.end(),
                                  name) != spec.scheduling_gates.end()) {
               d.Error(g.Path("name"), fmt::format("Duplicate value: \"{}\"", name));
             }
             spec.scheduling_gates.push_back(name);
           });
  if (auto s = ReadString(d, m.Get("schedulerName"), m.Path("schedulerName")); s && !s->empty()) {
    spec.scheduler_name = *s;
  }
  if (auto p = ReadInt(d, m.Get("priority"), m.Path("priority"))) {
    spec.priority = static_cast<int32_t>(*p);
  }
  spec.priority_class_name =
      ReadString(d, m.Get("priorityClassName"), m.Path("priorityClassName")).value_or("");
  if (auto s = ReadString(d, m.Get("preemptionPolicy"), m.Path("preemptionPolicy"))) {
    if (*s == "PreemptLowerPriority") {
      spec.preemption_policy = PreemptionPolicy::kPreemptLowerPriority;
    } else if (*s == "Never") {
      spec.preemption_policy = PreemptionPolicy::kNever;
    } else {
      d.Error(m.Path("preemptionPolicy"),
              fmt::format("Unsupported value: \"{}\": supported values: \"Never\", "
                          "\"PreemptLowerPriority\"",
                          *s));
    }
  }
  if (auto s = ReadString(d, m.Get("restartPolicy"), m.Path("restartPolicy"))) {
    if (*s != "Always" && *s != "OnFailure" && *s != "Never") {
      d.Error(m.Path("restartPolicy"),
              fmt::format("Unsupported value: \"{}\": supported values: \"Always\", \"Never\", "
                          "\"OnFailure\"",
                          *s));
    }
    spec.restart_policy = *s;
  }
  spec.host_network = ReadBool(d, m.Get("hostNetwork"), m.Path("hostNetwork")).value_or(false);
  if (spec.host_network) {
    // The API server defaults hostPort to containerPort for pods on the host network.
    for (auto* containers : {&spec.init_containers, &spec.containers}) {
      for (Container& c : *containers) {
        for (ContainerPort& port : c.ports) {
          if (port.host_port == 0) port.host_port = port.container_port;
        }
      }
    }
  }
  return spec;
}

// ---- kinds ----

// A pod's or a PodGroup's condition.
PodCondition ReadCondition(Decoder& d, const YAML::Node& item, const std::string& path) {
  Map c(d, item, path);
  c.Known({"lastProbeTime", "observedGeneration"});
  PodCondition cond;
  cond.type = ReadString(d, c.Get("type"), c.Path("type")).value_or("");
  cond.status = ReadString(d, c.Get("status"), c.Path("status")).value_or("");
  cond.reason = ReadString(d, c.Get("reason"), c.Path("reason")).value_or("");
  cond.message = ReadString(d, c.Get("message"), c.Path("message")).value_or("");
  cond.last_transition_time =
      ReadTime(d, c.Get("lastTransitionTime"), c.Path("lastTransitionTime"));
  return cond;
}

Pod ReadPod(Decoder& d, Map& m) {
  Pod pod;
  pod.metadata = ReadObjectMeta<Pod>(d, m);
  pod.spec = ReadPodSpec(d, m.Get("spec"), "spec");
  Map s(d, m.Get("status"), "status");
  s.Known({"message", "reason", "hostIP", "hostIPs", "podIP", "podIPs", "initContainerStatuses",
           "containerStatuses", "ephemeralContainerStatuses", "qosClass", "resize",
           "resourceClaimStatuses", "observedGeneration", "extendedResourceClaimStatus"});
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
    ReadList(d, s.Get("taints"), s.Path("taints"), [&](const YAML::Node& item, const std::string& p) {
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
           "config", "runtimeHandlers", "features", "declaredFeatures"});
  node.status.capacity = ReadResourceList(d, s.Get("capacity"), s.Path("capacity"), false);
  node.status.allocatable =
      ReadResourceList(d, s.Get("allocatable"), s.Path("allocatable"), false);
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

PodGroup ReadPodGroup(Decoder& d, Map& m, const std::string& api_version) {
  PodGroup pg;
  pg.api_version = api_version;
  pg.metadata = ReadObjectMeta<PodGroup>(d, m);
  {
    Map s(d, m.Get("spec"), "spec");
    if (auto mm = ReadInt(d, s.Get("minMember"), s.Path("minMember"))) {
      if (*mm < 1) {
        d.Error(s.Path("minMember"),
                fmt::format("Invalid value: {}: spec.minMember in body should be greater than or "
                            "equal to 1",
                            *mm));
      }
      pg.spec.min_member = static_cast<int32_t>(*mm);
    }
    pg.spec.min_resources =
        ReadResourceList(d, s.Get("minResources"), s.Path("minResources"), false);
    if (auto t = ReadInt(d, s.Get("scheduleTimeoutSeconds"), s.Path("scheduleTimeoutSeconds"))) {
      if (*t < 0) {
        d.Error(s.Path("scheduleTimeoutSeconds"),
                fmt::format("Invalid value: {}: must be greater than or equal to 0", *t));
      }
      pg.spec.schedule_timeout_seconds = static_cast<int32_t>(*t);
    }
  }
  Map s(d, m.Get("status"), "status");
  if (auto phase = ReadString(d, s.Get("phase"), s.Path("phase")); phase && !phase->empty()) {
    if (auto p = ParsePodGroupPhase(*phase)) {
      pg.status.phase = *p;
    } else {
      d.Error(s.Path("phase"), fmt::format("Unsupported value: \"{}\"", *phase));
    }
  }
  pg.status.occupied_by = ReadString(d, s.Get("occupiedBy"), s.Path("occupiedBy")).value_or("");
  auto counter = [&](std::string_view field) {
    return static_cast<int32_t>(ReadInt(d, s.Get(field), s.Path(field), 0).value_or(0));
  };
  pg.status.scheduled = counter("scheduled");
  pg.status.running = counter("running");
  pg.status.succeeded = counter("succeeded");
  pg.status.failed = counter("failed");
  pg.status.schedule_start_time =
      ReadTime(d, s.Get("scheduleStartTime"), s.Path("scheduleStartTime"));
  ReadList(d, s.Get("conditions"), s.Path("conditions"),
           [&](const YAML::Node& item, const std::string& p) {
             pg.status.conditions.push_back(ReadCondition(d, item, p));
           });
  return pg;
}

PriorityClass ReadPriorityClass(Decoder& d, Map& m) {
  PriorityClass pc;
  pc.metadata = ReadObjectMeta<PriorityClass>(d, m);
  if (!Present(m.Get("value"))) d.Error("value", "Required value");
  pc.value = static_cast<int32_t>(ReadInt(d, m.Get("value"), "value").value_or(0));
  pc.global_default = ReadBool(d, m.Get("globalDefault"), "globalDefault").value_or(false);
  if (auto s = ReadString(d, m.Get("preemptionPolicy"), "preemptionPolicy")) {
    if (*s == "Never") {
      pc.preemption_policy = PreemptionPolicy::kNever;
    } else if (*s == "PreemptLowerPriority") {
      pc.preemption_policy = PreemptionPolicy::kPreemptLowerPriority;
    } else {
      d.Error("preemptionPolicy",
              fmt::format("Unsupported value: \"{}\": supported values: \"Never\", "
                          "\"PreemptLowerPriority\"",
                          *s));
    }
  }
  pc.description = ReadString(d, m.Get("description"), "description").value_or("");
  if (std::string err = ValidatePriorityClass(pc); !err.empty()) d.Error("", err);
  return pc;
}

PodTemplateSpec ReadTemplate(Decoder& d, const YAML::Node& n, const std::string& path) {
  PodTemplateSpec t;
  Map m(d, n, path);
  // The object name stays the workload's: a template's metadata has no name of its own.
  Decoder& dec = d;
  {
    Map meta(dec, m.Get("metadata"), m.Path("metadata"));
    meta.Known(kUnreadMetadata);
    meta.Known({"name", "generateName", "namespace", "uid", "resourceVersion", "ownerReferences",
                "creationTimestamp", "deletionTimestamp"});  // an object's own, not a template's
    t.metadata.labels = ReadLabels(dec, meta.Get("labels"), meta.Path("labels"));
    ReadMapEntries(dec, meta.Get("annotations"), meta.Path("annotations"),
                   [&](const std::string& key, const YAML::Node& v, const std::string& p) {
                     t.metadata.annotations[key] = ReadString(dec, v, p).value_or("");
                   });
    for (std::string_view key : kSimulationAnnotations) {
      auto it = t.metadata.annotations.find(std::string(key));
      if (it == t.metadata.annotations.end()) continue;
      auto dur = ParseDuration(it->second);
      if (!dur || dur->count() < 0) {
        dec.Error(meta.Path("annotations") + "." + std::string(key),
                  fmt::format("invalid duration \"{}\" (want a non-negative Go duration like 30s)",
                              it->second));
      }
    }
  }
  t.spec = ReadPodSpec(d, m.Get("spec"), m.Path("spec"));
  return t;
}

// A workload's selector must select its own template's pods, as the API server checks.
void CheckSelectorMatchesTemplate(Decoder& d, const LabelSelector& sel, const PodTemplateSpec& t) {
  if (sel.Empty()) {
    d.Error("spec.selector", "Invalid value: empty selector is invalid for this workload");
    return;
  }
  if (!sel.Matches(t.metadata.labels)) {
    d.Error("spec.template.metadata.labels",
            "Invalid value: `selector` does not match template `labels`");
  }
}

int32_t ReadReplicas(Decoder& d, Map& spec, std::string_view field, int32_t fallback) {
  auto r = ReadInt(d, spec.Get(field), spec.Path(field));
  if (!r) return fallback;
  if (*r < 0) {
    d.Error(spec.Path(field), fmt::format("Invalid value: {}: must be greater than or equal to 0", *r));
    return fallback;
  }
  return static_cast<int32_t>(*r);
}

template <typename Workload>
Workload ReadReplicatedWorkload(Decoder& d, Map& m) {
  Workload w;
  w.metadata = ReadObjectMeta<Workload>(d, m);
  Map s(d, m.Get("spec"), "spec");
  // The rollout's fields: a simulation creates the pods of one revision.
  if (d.kind() == "Deployment") {
    s.Known({"minReadySeconds", "strategy", "revisionHistoryLimit", "progressDeadlineSeconds",
             "paused"});
  } else if (d.kind() == "StatefulSet") {
    s.Known({"minReadySeconds", "updateStrategy", "revisionHistoryLimit", "volumeClaimTemplates",
             "persistentVolumeClaimRetentionPolicy", "ordinals"});
  } else {
    s.Known({"minReadySeconds"});
  }
  w.replicas = ReadReplicas(d, s, "replicas", 1);
  if (!Present(s.Get("selector"))) d.Error(s.Path("selector"), "Required value");
  w.selector = ReadLabelSelector(d, s.Get("selector"), s.Path("selector"));
  w.template_ = ReadTemplate(d, s.Get("template"), s.Path("template"));
  if (!w.template_.spec.restart_policy.empty() && w.template_.spec.restart_policy != "Always") {
    d.Error("spec.template.spec.restartPolicy",
            fmt::format("Unsupported value: \"{}\": supported values: \"Always\"",
                        w.template_.spec.restart_policy));
  }
  if (Present(s.Get("selector"))) CheckSelectorMatchesTemplate(d, w.selector, w.template_);
  if constexpr (std::is_same_v<Workload, StatefulSet>) {
    w.service_name = ReadString(d, s.Get("serviceName"), s.Path("serviceName")).value_or("");
    if (auto p = ReadString(d, s.Get("podManagementPolicy"), s.Path("podManagementPolicy"))) {
      if (*p == "OrderedReady") {
        w.pod_management_policy = PodManagementPolicy::kOrderedReady;
      } else if (*p == "Parallel") {
        w.pod_management_policy = PodManagementPolicy::kParallel;
      } else {
        d.Error(s.Path("podManagementPolicy"),
                fmt::format("Unsupported value: \"{}\": supported values: \"OrderedReady\", "
                            "\"Parallel\"",
                            *p));
      }
    }
  }
  return w;
}

// Go's %q of a list of strings, as upstream prints a Required value's valid values.
std::string GoQuotedList(std::initializer_list<std::string_view> values) {
  std::string out = "[";
  for (std::string_view v : values) out += (out.size() > 1 ? " " : "") + GoQuote(v);
  return out + "]";
}

PodFailurePolicyAction ReadPodFailurePolicyAction(Decoder& d, Map& rule, bool per_index) {
  const std::string path = rule.Path("action");
  const std::string action = ReadString(d, rule.Get("action"), path).value_or("");
  if (action == "FailJob") return PodFailurePolicyAction::kFailJob;
  if (action == "Ignore") return PodFailurePolicyAction::kIgnore;
  if (action == "Count") return PodFailurePolicyAction::kCount;
  if (action == "FailIndex") {
    if (!per_index) {
      d.Error(path, "Invalid value: \"FailIndex\": requires the backoffLimitPerIndex to be set");
    }
    return PodFailurePolicyAction::kFailIndex;
  }
  if (action.empty()) {
    d.Error(path, "Required value: valid values: " +
                      GoQuotedList({"Count", "FailIndex", "FailJob", "Ignore"}));
  } else {
    d.Error(path, fmt::format("Unsupported value: \"{}\": supported values: \"Count\", "
                              "\"FailIndex\", \"FailJob\", \"Ignore\"",
                              action));
  }
  return PodFailurePolicyAction::kCount;
}

// Go's %#v of an []int32, as upstream prints an invalid list of exit codes.
std::string GoInt32Slice(const std::vector<int32_t>& values) {
  return fmt::format("[]int32{{{}}}", fmt::join(values, ", "));
}

PodFailurePolicyOnExitCodes ReadOnExitCodes(Decoder& d, const YAML::Node& n,
                                            const std::string& path,
                                            const std::set<std::string>& containers) {
  Map m(d, n, path);
  PodFailurePolicyOnExitCodes req;
  req.container_name = ReadString(d, m.Get("containerName"), m.Path("containerName"));
  if (req.container_name && !containers.contains(*req.container_name)) {
    d.Error(m.Path("containerName"),
            FieldError::Invalid("", *req.container_name,
                                "must be one of the container or initContainer names in the pod "
                                "template")
                .message);
  }
  req.operator_ = ReadString(d, m.Get("operator"), m.Path("operator")).value_or("");
  if (req.operator_.empty()) {
    d.Error(m.Path("operator"), "Required value: valid values: " + GoQuotedList({"In", "NotIn"}));
  } else if (req.operator_ != "In" && req.operator_ != "NotIn") {
    d.Error(m.Path("operator"),
            fmt::format("Unsupported value: \"{}\": supported values: \"In\", \"NotIn\"",
                        req.operator_));
  }
  const std::string values_path = m.Path("values");
  ReadList(d, m.Get("values"), values_path, [&](const YAML::Node& item, const std::string& p) {
    const auto v = ReadInt(d, item, p);
    if (!v) return;
    const auto value = static_cast<int32_t>(*v);
    if (req.operator_ == "In" && value == 0) {
      d.Error(p, "Invalid value: 0: must not be 0 for the In operator");
    }
    if (std::find(req.values.begin(), req.values.end(), value) != req.values.end()) {
      d.Error(p, fmt::format("Duplicate value: {}", value));
    }
    req.values.push_back(value);
  });
  if (req.values.empty()) {
    // Go prints an absent list as nil and an empty one as {}.
    const std::string shown = Present(m.Get("values")) ? "[]int32{}" : "[]int32(nil)";
    d.Error(values_path, fmt::format("Invalid value: {}: at least one value is required", shown));
  } else if (req.values.size() > 255) {
    d.Error(values_path,
            fmt::format("Too many: {}: must have at most 255 items", req.values.size()));
  }
  if (!std::is_sorted(req.values.begin(), req.values.end())) {
    d.Error(values_path,
            fmt::format("Invalid value: {}: must be ordered", GoInt32Slice(req.values)));
  }
  return req;
}

std::vector<PodFailurePolicyOnPodConditionsPattern> ReadOnPodConditions(Decoder& d,
                                                                        const YAML::Node& n,
                                                                        const std::string& path) {
  std::vector<PodFailurePolicyOnPodConditionsPattern> patterns;
  ReadList(d, n, path, [&](const YAML::Node& item, const std::string& p) {
    Map m(d, item, p);
    PodFailurePolicyOnPodConditionsPattern pattern;
    pattern.type = ReadString(d, m.Get("type"), m.Path("type")).value_or("");
    ReportInvalid(d, m.Path("type"), pattern.type, LabelKeyErrors(pattern.type));
    // The API server defaults an unset status to True.
    pattern.status = ReadString(d, m.Get("status"), m.Path("status")).value_or("True");
    if (pattern.status != "True" && pattern.status != "False" && pattern.status != "Unknown") {
      d.Error(m.Path("status"), fmt::format("Unsupported value: \"{}\": supported values: "
                                            "\"False\", \"True\", \"Unknown\"",
                                            pattern.status));
    }
    patterns.push_back(std::move(pattern));
  });
  if (patterns.size() > 20) {
    d.Error(path, fmt::format("Too many: {}: must have at most 20 items", patterns.size()));
  }
  return patterns;
}

PodFailurePolicyRule ReadPodFailurePolicyRule(Decoder& d, const YAML::Node& n,
                                              const std::string& path,
                                              const std::set<std::string>& containers,
                                              bool per_index) {
  Map m(d, n, path);
  PodFailurePolicyRule rule;
  rule.action = ReadPodFailurePolicyAction(d, m, per_index);
  if (Present(m.Get("onExitCodes"))) {
    rule.on_exit_codes =
        ReadOnExitCodes(d, m.Get("onExitCodes"), m.Path("onExitCodes"), containers);
  }
  rule.on_pod_conditions =
      ReadOnPodConditions(d, m.Get("onPodConditions"), m.Path("onPodConditions"));
  const bool exit_codes = rule.on_exit_codes.has_value();
  const bool conditions = !rule.on_pod_conditions.empty();
  if (exit_codes && conditions) {
    d.Error(path,
            "Invalid value: specifying both OnExitCodes and OnPodConditions is not supported");
  } else if (!exit_codes && !conditions) {
    d.Error(path, "Invalid value: specifying one of OnExitCodes and OnPodConditions is required");
  }
  return rule;
}

// `template_spec` is the Job's pod template, whose containers onExitCodes may name; `per_index`
// says whether the Job sets backoffLimitPerIndex, which FailIndex needs.
PodFailurePolicy ReadPodFailurePolicy(Decoder& d, const YAML::Node& n, const std::string& path,
                                      const PodSpec& template_spec, bool per_index) {
  Map m(d, n, path);
  std::set<std::string> containers;
  for (const auto* list : {&template_spec.containers, &template_spec.init_containers}) {
    for (const Container& c : *list) containers.insert(c.name);
  }
  PodFailurePolicy policy;
  const std::string rules = m.Path("rules");
  ReadList(d, m.Get("rules"), rules, [&](const YAML::Node& item, const std::string& p) {
    policy.rules.push_back(ReadPodFailurePolicyRule(d, item, p, containers, per_index));
  });
  if (policy.rules.size() > 20) {
    d.Error(rules, fmt::format("Too many: {}: must have at most 20 items", policy.rules.size()));
  }
  return policy;
}

CompletionMode ReadCompletionMode(Decoder& d, Map& spec) {
  const std::optional<std::string> mode =
      ReadString(d, spec.Get("completionMode"), spec.Path("completionMode"));
  if (!mode || *mode == "NonIndexed") return CompletionMode::kNonIndexed;
  if (*mode == "Indexed") return CompletionMode::kIndexed;
  d.Error(spec.Path("completionMode"),
          fmt::format("Unsupported value: \"{}\": supported values: \"NonIndexed\", \"Indexed\"",
                      *mode));
  return CompletionMode::kNonIndexed;
}

// The API server's checks of an Indexed Job: its completions are its indexes, and each pod's
// hostname, "<name>-<index>", must be a DNS label.
void CheckIndexedJob(Decoder& d, const Job& job) {
  if (!job.completions) {
    d.Error("spec.completions", "Required value: when completion mode is Indexed");
    return;
  }
  constexpr int32_t kMaxParallelism = 100000;
  if (job.parallelism > kMaxParallelism) {
    d.Error("spec.parallelism",
            fmt::format("Invalid value: {}: must be less than or equal to {} when completion mode "
                        "is Indexed",
                        job.parallelism, kMaxParallelism));
  }
  if (*job.completions == 0) return;
  const std::string hostname = fmt::format("{}-{}", job.metadata.name, *job.completions - 1);
  if (!Dns1123LabelErrors(hostname).empty()) {
    d.Error("metadata.name",
            FieldError::Invalid("", job.metadata.name,
                                "will not able to create pod with invalid DNS label: " + hostname)
                .message);
  }
}

Job ReadJob(Decoder& d, Map& m) {
  Job job;
  job.metadata = ReadObjectMeta<Job>(d, m);
  Map s(d, m.Get("spec"), "spec");
  s.Known({"activeDeadlineSeconds", "ttlSecondsAfterFinished", "manualSelector",
           "maxFailedIndexes", "successPolicy", "podReplacementPolicy", "managedBy"});
  job.parallelism = ReadReplicas(d, s, "parallelism", 1);
  if (Present(s.Get("completions"))) job.completions = ReadReplicas(d, s, "completions", 1);
  job.completion_mode = ReadCompletionMode(d, s);
  job.backoff_limit = ReadReplicas(d, s, "backoffLimit", 6);
  // Per-index backoff is not simulated: a Job that asks for it is refused, not run without it.
  const bool per_index = Present(s.Get("backoffLimitPerIndex"));
  for (std::string_view field : {"backoffLimitPerIndex", "maxFailedIndexes"}) {
    if (Present(s.Get(field))) {
      d.Error(s.Path(field), "not supported: muster does not simulate per-index backoff");
    }
  }
  job.suspend = ReadBool(d, s.Get("suspend"), s.Path("suspend")).value_or(false);
  job.selector = ReadOptionalLabelSelector(d, s.Get("selector"), s.Path("selector"));
  // A Job's template has no restartPolicy default; it must say Never or OnFailure.
  const bool has_policy = [&] {
    YAML::Node t = s.Get("template");
    return Present(t) && t.IsMap() && t["spec"] && t["spec"].IsMap() &&
           Present(t["spec"]["restartPolicy"]);
  }();
  job.template_ = ReadTemplate(d, s.Get("template"), s.Path("template"));
  if (job.completion_mode == CompletionMode::kIndexed) CheckIndexedJob(d, job);
  if (Present(s.Get("podFailurePolicy"))) {
    job.pod_failure_policy = ReadPodFailurePolicy(
        d, s.Get("podFailurePolicy"), s.Path("podFailurePolicy"), job.template_.spec, per_index);
  }
  const std::string& restart = job.template_.spec.restart_policy;
  if (!has_policy) {
    d.Error("spec.template.spec.restartPolicy",
            "Required value: valid values: \"OnFailure\", \"Never\"");
  } else if (restart == "Always") {
    d.Error("spec.template.spec.restartPolicy",
            "Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\"");
  } else if (job.pod_failure_policy && restart != "Never") {
    d.Error("spec.template.spec.restartPolicy",
            FieldError::Invalid("", restart,
                                "only \"Never\" is supported when podFailurePolicy is specified")
                .message);
  }
  return job;
}

IntOrString ReadIntOrString(Decoder& d, const YAML::Node& n, const std::string& path) {
  IntOrString v;
  if (n.IsScalar() && n.Tag() != "!" && ParseLabelInt(n.Scalar()).has_value()) {
    if (auto i = ReadInt(d, n, path)) v.int_value = static_cast<int32_t>(*i);
  } else if (auto s = ReadString(d, n, path)) {
    v.is_string = true;
    v.str_value = *s;
    const bool percent = !s->empty() && s->back() == '%' &&
                         std::all_of(s->begin(), s->end() - 1, [](char c) { return isdigit(c); }) &&
                         s->size() > 1;
    if (!percent) d.Error(path, fmt::format("Invalid value: \"{}\": must be an integer or percentage (e.g '5%')", *s));
  }
  return v;
}

PodDisruptionBudget ReadPDB(Decoder& d, Map& m) {
  PodDisruptionBudget pdb;
  pdb.metadata = ReadObjectMeta<PodDisruptionBudget>(d, m);
  Map s(d, m.Get("spec"), "spec");
  s.Known({"unhealthyPodEvictionPolicy"});
  if (YAML::Node n = s.Get("minAvailable"); Present(n)) {
    pdb.min_available = ReadIntOrString(d, n, s.Path("minAvailable"));
  }
  if (YAML::Node n = s.Get("maxUnavailable"); Present(n)) {
    pdb.max_unavailable = ReadIntOrString(d, n, s.Path("maxUnavailable"));
  }
  if (pdb.min_available && pdb.max_unavailable) {
    d.Error("spec", "Invalid value: minAvailable and maxUnavailable cannot be both set");
  }
  pdb.selector = ReadOptionalLabelSelector(d, s.Get("selector"), s.Path("selector"));
  Map st(d, m.Get("status"), "status");
  st.Known({"observedGeneration", "conditions"});
  auto counter = [&](std::string_view field) {
    return static_cast<int32_t>(ReadInt(d, st.Get(field), st.Path(field), 0).value_or(0));
  };
  pdb.status.disruptions_allowed = counter("disruptionsAllowed");
  pdb.status.current_healthy = counter("currentHealthy");
  pdb.status.desired_healthy = counter("desiredHealthy");
  pdb.status.expected_pods = counter("expectedPods");
  ReadMapEntries(d, st.Get("disruptedPods"), st.Path("disruptedPods"),
                 [&](const std::string& pod, const YAML::Node& when, const std::string& path) {
                   ReadTime(d, when, path);
                   pdb.status.disrupted_pods.push_back(pod);
                 });
  std::sort(pdb.status.disrupted_pods.begin(), pdb.status.disrupted_pods.end());
  return pdb;
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
    m.Known({"source", "firstTimestamp", "lastTimestamp", "series", "related",
             "reportingInstance"});
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
    d.Error("type", fmt::format("Unsupported value: \"{}\": supported values: \"Normal\", \"Warning\"",
                                e.type));
  }
  return e;
}

Lease ReadLease(Decoder& d, Map& m) {
  Lease l;
  l.metadata = ReadObjectMeta<Lease>(d, m);
  Map s(d, m.Get("spec"), "spec");
  s.Known({"strategy", "preferredHolder"});
  l.holder_identity = ReadString(d, s.Get("holderIdentity"), s.Path("holderIdentity")).value_or("");
  if (auto v = ReadInt(d, s.Get("leaseDurationSeconds"), s.Path("leaseDurationSeconds"), 1)) {
    l.lease_duration_seconds = static_cast<int32_t>(*v);
  }
  l.acquire_time = ReadTime(d, s.Get("acquireTime"), s.Path("acquireTime"));
  l.renew_time = ReadTime(d, s.Get("renewTime"), s.Path("renewTime"));
  l.lease_transitions = static_cast<int32_t>(
      ReadInt(d, s.Get("leaseTransitions"), s.Path("leaseTransitions"), 0).value_or(0));
  return l;
}

// ---- documents ----

// How each kind's document is read, chosen by the kind's type. A kind in Kinds() without an
// overload here fails to compile in DecodeObject.
template <typename T>
using As = std::type_identity<T>;

Pod Read(Decoder& d, Map& m, const std::string&, As<Pod>) { return ReadPod(d, m); }
Node Read(Decoder& d, Map& m, const std::string&, As<Node>) { return ReadNode(d, m); }
Namespace Read(Decoder& d, Map& m, const std::string&, As<Namespace>) {
  Namespace ns;
  ns.metadata = ReadObjectMeta<Namespace>(d, m);
  m.Known({"spec", "status"});  // finalizers and phase
  if (!ns.metadata.name.empty()) {
    ReportInvalid(d, "metadata.name", ns.metadata.name, Dns1123LabelErrors(ns.metadata.name));
  }
  return ns;
}
Binding Read(Decoder& d, Map& m, const std::string&, As<Binding>) { return ReadBinding(d, m); }
Event Read(Decoder& d, Map& m, const std::string& api_version, As<Event>) {
  return ReadEvent(d, m, api_version == "events.k8s.io/v1");
}
PodGroup Read(Decoder& d, Map& m, const std::string& api_version, As<PodGroup>) {
  return ReadPodGroup(d, m, api_version);
}
PriorityClass Read(Decoder& d, Map& m, const std::string&, As<PriorityClass>) {
  return ReadPriorityClass(d, m);
}
ReplicaSet Read(Decoder& d, Map& m, const std::string&, As<ReplicaSet>) {
  return ReadReplicatedWorkload<ReplicaSet>(d, m);
}
Deployment Read(Decoder& d, Map& m, const std::string&, As<Deployment>) {
  m.Get("strategy");
  return ReadReplicatedWorkload<Deployment>(d, m);
}
StatefulSet Read(Decoder& d, Map& m, const std::string&, As<StatefulSet>) {
  return ReadReplicatedWorkload<StatefulSet>(d, m);
}
Job Read(Decoder& d, Map& m, const std::string&, As<Job>) { return ReadJob(d, m); }
PodDisruptionBudget Read(Decoder& d, Map& m, const std::string&, As<PodDisruptionBudget>) {
  return ReadPDB(d, m);
}
Lease Read(Decoder& d, Map& m, const std::string&, As<Lease>) { return ReadLease(d, m); }
SchedulerConfiguration Read(Decoder& d, Map& m, const std::string& api_version,
                            As<SchedulerConfiguration>) {
  return ReadSchedulerConfig(d, m, api_version);
}

void DecodeObject(const YAML::Node& doc, const Source& source, LoadResult& result,
                  std::map<std::string, int>& skipped);

void DecodeList(const YAML::Node& doc, const Source& source, LoadResult& result,
                std::map<std::string, int>& skipped) {
  Decoder d(result, source, "List");
  const YAML::Node& items = doc["items"];
  if (!Present(items)) return;
  if (!items.IsSequence()) {
    d.Error("items", fmt::format("expected a list, got {}", Describe(items)));
    return;
  }
  for (size_t i = 0; i < items.size(); ++i) {
    Source item_source = source;
    item_source.item = static_cast<int>(i);
    DecodeObject(items[i], item_source, result, skipped);
  }
}

// Decodes `doc`, whose kind is `kind`, and keeps it in the manifests.
template <typename T>
void DecodeKind(const Kind<T>& kind, const YAML::Node& doc, const std::string& api_version,
                const Source& source, LoadResult& result) {
  Decoder d(result, source, std::string(kind.name));
  if (doc["metadata"] && doc["metadata"].IsMap() && doc["metadata"]["name"] &&
      doc["metadata"]["name"].IsScalar()) {
    // Name the object in errors found before its metadata is read.
    std::string key = doc["metadata"]["name"].Scalar();
    if (doc["metadata"]["namespace"] && doc["metadata"]["namespace"].IsScalar()) {
      key = doc["metadata"]["namespace"].Scalar() + "/" + key;
    } else if (kind.namespaced) {
      key = std::string(kDefaultNamespace) + "/" + key;
    }
    d.SetObjectName(key);
  }
  if (api_version.empty()) {
    d.Error("apiVersion", "Required value");
    return;
  }
  if (std::find(kind.api_versions.begin(), kind.api_versions.end(), api_version) ==
      kind.api_versions.end()) {
    std::string expected;
    for (std::string_view v : kind.api_versions) {
      expected += (expected.empty() ? "" : ", ") + std::string(v);
    }
    d.Error("apiVersion",
            fmt::format("no kind \"{}\" is registered for version \"{}\" (expected {})", kind.name,
                        api_version, expected));
    return;
  }
  Map m(d, doc, "", kind.strict ? Fields::kStrict : Fields::kAsInput);
  m.Get("apiVersion");
  m.Get("kind");
  std::vector<T>& objects = result.manifests.*kind.objects;
  objects.push_back(Read(d, m, api_version, As<T>{}));
  result.manifests.order.push_back(ObjectEntry{kind.name, objects.size() - 1, source});
}

void DecodeObject(const YAML::Node& doc, const Source& source, LoadResult& result,
                  std::map<std::string, int>& skipped) {
  if (!Present(doc)) return;  // empty documents are skipped, as kubectl does
  if (!doc.IsMap()) {
    result.errors.push_back(fmt::format("{}: expected an object, got {}", source.ToString(),
                                        Describe(doc)));
    return;
  }
  const YAML::Node& kind_node = doc["kind"];
  const YAML::Node& version_node = doc["apiVersion"];
  const std::string kind = kind_node && kind_node.IsScalar() ? kind_node.Scalar() : "";
  const std::string api_version =
      version_node && version_node.IsScalar() ? version_node.Scalar() : "";
  if (kind.empty()) {
    result.errors.push_back(fmt::format("{}: kind: Required value", source.ToString()));
    return;
  }
  if (kind == "List" || (kind.size() > 4 && kind.ends_with("List") && doc["items"])) {
    DecodeList(doc, source, result, skipped);
    return;
  }
  const bool known = ForKindNamed(
      kind, [&](const auto& row) { DecodeKind(row, doc, api_version, source, result); });
  if (known) return;
  // A kind muster does not model is skipped (a Service, a ConfigMap), but one a letter or two
  // from a kind it does is a typo that would make its objects vanish: an error, under --validate.
  static const std::vector<std::string> kKindNames = std::apply(
      [](const auto&... row) { return std::vector<std::string>{std::string(row.name)...}; },
      Kinds());
  if (const std::optional<std::string> near = Nearest(kind, kKindNames);
      near && ReportFieldProblem(
                  result,
                  fmt::format("{}: kind \"{}\" is not one muster knows; did you mean \"{}\"?",
                              source.ToString(), kind, *near),
                  /*always=*/false)) {
    return;
  }
  ++skipped[kind];
}

// A first pass over a stream's parse events, before YAML::LoadAll builds its nodes, that refuses
// what yaml-cpp 0.7 (Debian 12's) accepts but would make LoadAll or the decoders run away:
//  - a document that starts where the previous one started: LoadAll then loops for ever, adding
//    a null document each turn until memory runs out (a stray ','; jbeder/yaml-cpp#1040, fixed
//    after 0.8);
//  - an alias inside the node it names ("&a [*a]"): yaml-cpp builds a cycle, and a decoder that
//    follows it (a List among its own items) recurses until the stack overflows;
//  - aliases that expand a document past kMaxExpandedNodes nodes and kMaxExpansion times its own
//    ("billion laughs"): a few kilobytes could make the decoders visit billions of nodes. The
//    API server refuses such documents too ("excessive aliasing").
// The pass costs about half as much as LoadAll.
class StreamCheck final : public YAML::EventHandler {
 public:
  static constexpr uint64_t kMaxExpandedNodes = 100'000;
  static constexpr uint64_t kMaxExpansion = 10;

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (mark.pos == last_start_) {
      throw YAML::ParserException(mark, "a document cannot start here");
    }
    last_start_ = mark.pos;
    sizes_.clear();
    open_.clear();
    nodes_ = 0;
    expanded_ = 0;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { Node(anchor, 1); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    Node(anchor, 1);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    // The parser has checked that the anchor is defined; a size of 0 means it is still open.
    const uint64_t size = anchor < sizes_.size() ? sizes_[anchor] : 0;
    if (size == 0) {
      throw YAML::ParserException(mark, "an alias cannot refer to a node that contains it");
    }
    Count(size);
    if (expanded_ > kMaxExpandedNodes && expanded_ > kMaxExpansion * nodes_) {
      throw YAML::ParserException(
          mark, fmt::format("excessive aliasing: aliases expand the document past {} nodes, more "
                            "than {} times its own {}",
                            kMaxExpandedNodes, kMaxExpansion, nodes_));
    }
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(anchor);
  }
  void OnMapEnd() override { Close(); }

 private:
  struct Collection {
    YAML::anchor_t anchor;
    uint64_t size;  // nodes so far, aliases expanded, itself included
  };

  // `size` more nodes in the open collection (or at the top of the document).
  void Count(uint64_t size) {
    expanded_ += size;
    if (!open_.empty()) open_.back().size += size;
  }
  // A node of the text, of `size` nodes once complete.
  void Node(YAML::anchor_t anchor, uint64_t size) {
    ++nodes_;
    if (anchor != YAML::NullAnchor) SetSize(anchor, size);
    Count(size);
  }
  void Open(YAML::anchor_t anchor) {
    ++nodes_;
    ++expanded_;
    if (anchor != YAML::NullAnchor) SetSize(anchor, 0);
    open_.push_back(Collection{anchor, 1});
  }
  void Close() {
    const Collection done = open_.back();
    open_.pop_back();
    if (done.anchor != YAML::NullAnchor) SetSize(done.anchor, done.size);
    if (!open_.empty()) open_.back().size += done.size;
  }
  void SetSize(YAML::anchor_t anchor, uint64_t size) {
    if (anchor >= sizes_.size()) sizes_.resize(anchor + 1, 0);
    sizes_[anchor] = size;
  }

  int last_start_ = -1;
  std::vector<uint64_t> sizes_;  // by anchor id (1, 2... in each document): its node's size
  std::vector<Collection> open_;
  uint64_t nodes_ = 0;     // in the document's text
  uint64_t expanded_ = 0;  // once its aliases are expanded
};

// YAML::LoadAll, once StreamCheck has passed the stream.
std::vector<YAML::Node> LoadAll(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  StreamCheck check;
  while (parser.HandleNextDocument(check)) {
  }
  return YAML::LoadAll(text);
}

std::string ReadFile(const std::filesystem::path& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open file";
    return "";
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string Source::ToString() const {
  // Document 0 is an object that did not come from a file (an API server's).
  if (document == 0) return file;
  std::string s = fmt::format("{}: document {}", file, document);
  if (item >= 0) s += fmt::format(", items[{}]", item);
  return s;
}

void DecodeText(std::string_view text, const std::string& name, LoadResult& result) {
  std::vector<YAML::Node> docs;
  try {
    docs = LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    result.errors.push_back(fmt::format("{}: line {}, column {}: invalid YAML: {}", name,
                                        e.mark.line + 1, e.mark.column + 1, e.msg));
    return;
  }
  std::map<std::string, int> skipped;
  for (size_t i = 0; i < docs.size(); ++i) {
    DecodeObject(docs[i], Source{name, static_cast<int>(i) + 1, -1}, result, skipped);
  }
  if (!skipped.empty()) {
    std::string kinds;
    int count = 0;
    for (const auto& [kind, n] : skipped) {
      kinds += (kinds.empty() ? "" : ", ") + kind;
      count += n;
    }
    result.warnings.push_back(fmt::format("{}: skipping {} object(s) of kinds muster does not "
                                          "model: {}",
                                          name, count, kinds));
  }
}

template <typename T>
std::optional<T> DecodeAs(const YAML::Node& object, const std::string& api_version,
                          const std::string& what, std::vector<std::string>* errors) {
  LoadResult result;
  // The API server has validated what it serves (and knows fields newer than muster): its
  // objects' fields are not checked, which also keeps the check off the watch's path.
  result.field_validation = FieldValidation::kIgnore;
  result.served = true;
  std::optional<T> decoded;
  {
    Decoder d(result, Source{what, 0, -1}, std::string(KindOf<T>().name));
    Map m(d, object, "", KindOf<T>().strict ? Fields::kStrict : Fields::kAsInput);
    m.Get("apiVersion");
    m.Get("kind");
    decoded = Read(d, m, api_version, As<T>{});
  }
  if (result.errors.empty()) return decoded;
  errors->insert(errors->end(), result.errors.begin(), result.errors.end());
  return std::nullopt;
}

// DecodeAs for every kind a cluster delivers and for those `muster run` reads once (its Lease,
// the PriorityClasses), compiled here: an external table of their addresses makes the compiler
// emit each.
template <typename... T>
constexpr auto DecodeAsFor(KindList<T...>) {
  return std::tuple{&DecodeAs<T>...};
}
extern const auto kDecodeAs =
    std::tuple{DecodeAsFor(ClusterKinds{}), DecodeAsFor(KindList<PriorityClass, Lease>{})};

void FinishLoad(LoadResult& result) {
  Manifests& m = result.manifests;
  // Duplicates: the API server would refuse the second create with AlreadyExists.
  std::map<std::string, const Source*> seen;
  auto key_of = [&](const ObjectEntry& e) {
    return Visit(m, e, [&]<typename T>(const T& object) -> std::string {
      const auto metadata = KindOf<T>().metadata;
      if (metadata == nullptr || (object.*metadata).name.empty()) return "";
      return fmt::format("{} {}", e.kind, (object.*metadata).Key());
    });
  };
  for (const ObjectEntry& e : m.order) {
    const std::string key = key_of(e);
    if (key.empty()) continue;
    auto [it, inserted] = seen.emplace(key, &e.source);
    if (!inserted) {
      result.errors.push_back(fmt::format("{} ({}): metadata.name: Duplicate value: already "
                                          "defined at {}",
                                          e.source.ToString(), key, it->second->ToString()));
    }
  }
  // Only one PriorityClass may be the global default.
  const PriorityClass* global_default = nullptr;
  for (const PriorityClass& pc : m.priority_classes) {
    if (!pc.global_default) continue;
    if (global_default != nullptr) {
      result.errors.push_back(fmt::format(
          "PriorityClass {}: globalDefault: Forbidden: PriorityClass {} is already marked as "
          "default. Only one default can exist",
          pc.metadata.name, global_default->metadata.name));
    }
    global_default = &pc;
  }
  // Priority admission, as when each pod is created.
  const PriorityResolver resolver(m.priority_classes);
  for (const ObjectEntry& e : m.order) {
    if (e.kind != "Pod") continue;
    Pod& pod = m.pods[e.index];
    if (std::string err = resolver.Admit(pod); !err.empty()) {
      result.errors.push_back(fmt::format("{} (Pod {}): spec.priorityClassName: {}",
                                          e.source.ToString(), pod.metadata.Key(), err));
    }
  }
  // The API server accepts a workload whatever its template says: it is each pod the
  // controller creates from it that admission refuses (simulate records FailedCreate).
  auto check_template = [&](const PodTemplateSpec& t, std::string_view kind,
                            const ObjectMeta& meta, const Source& source) {
    Pod probe;
    probe.spec = t.spec;
    if (std::string err = resolver.Admit(probe); !err.empty()) {
      result.warnings.push_back(
          fmt::format("{} ({} {}): spec.template.spec.priorityClassName: {}: its pods cannot be "
                      "created",
                      source.ToString(), kind, meta.Key(), err));
    }
  };
  for (const ObjectEntry& e : m.order) {
    Visit(m, e, [&]<typename T>(const T& object) {
      const Kind<T>& kind = KindOf<T>();
      if (kind.pod_template != nullptr) {
        check_template(object.*kind.pod_template, e.kind, object.*kind.metadata, e.source);
      }
    });
  }
}

std::optional<FieldValidation> ParseFieldValidation(std::string_view name) {
  if (name == "strict" || name == "true") return FieldValidation::kStrict;
  if (name == "warn") return FieldValidation::kWarn;
  if (name == "ignore" || name == "false") return FieldValidation::kIgnore;
  return std::nullopt;
}

LoadResult LoadManifests(const std::vector<std::string>& paths, std::istream& stdin_stream,
                         FieldValidation field_validation) {
  namespace fs = std::filesystem;
  LoadResult result;
  result.field_validation = field_validation;
  for (const std::string& path : paths) {
    if (path == "-") {
      std::ostringstream ss;
      ss << stdin_stream.rdbuf();
      DecodeText(ss.str(), "<stdin>", result);
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(path, ec)) {
        const std::string ext = entry.path().extension().string();
        if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) {
          files.push_back(entry.path());
        }
      }
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) {
        std::string error;
        const std::string text = ReadFile(f, &error);
        if (!error.empty()) {
          result.errors.push_back(fmt::format("{}: {}", f.string(), error));
          continue;
        }
        DecodeText(text, f.string(), result);
      }
      continue;
    }
    if (!fs::exists(path, ec)) {
      result.errors.push_back(fmt::format("{}: no such file or directory", path));
      continue;
    }
    std::string error;
    const std::string text = ReadFile(path, &error);
    if (!error.empty()) {
      result.errors.push_back(fmt::format("{}: {}", path, error));
      continue;
    }
    DecodeText(text, path, result);
  }
  FinishLoad(result);
  return result;
}

}  // namespace muster::api
