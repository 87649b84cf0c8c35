// The pieces of objects that several kinds share: metadata, selectors, the pod spec, conditions.

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/decoder.h"
#include "muster/api/feature_gates.h"
#include "muster/api/kinds.h"
#include "muster/api/nearest.h"
#include "muster/api/object_decoding.h"
#include "muster/api/pod_resources.h"

namespace muster::api::decoding {

const char* PlainScalarType(std::string_view text) {
  // go-yaml v2's resolve table, then its number rules.
  static constexpr std::string_view kBooleans[] = {
      "y", "Y", "yes", "Yes", "YES", "true",  "True",  "TRUE",  "on",  "On",  "ON",
      "n", "N", "no",  "No",  "NO",  "false", "False", "FALSE", "off", "Off", "OFF"};
  static constexpr std::string_view kFloats[] = {".nan",  ".NaN",  ".NAN",  ".inf",
                                                 ".Inf",  ".INF",  "+.inf", "+.Inf",
                                                 "+.INF", "-.inf", "-.Inf", "-.INF"};
  for (std::string_view b : kBooleans) {
    if (text == b) return "boolean";
  }
  for (std::string_view f : kFloats) {
    if (text == f) return "number";
  }
  if (text.empty() || std::string_view("+-.0123456789").find(text[0]) == std::string_view::npos) {
    return nullptr;
  }
  std::string plain;
  for (char c : text) {
    if (c != '_') plain += c;
  }
  std::string_view digits = plain;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
  auto all_of = [](std::string_view v, std::string_view set) {
    return !v.empty() && v.find_first_not_of(set) == std::string_view::npos;
  };
  // Integers as Go's ParseInt with base 0 reads them: 0x, 0o, 0b and leading-0 octal.
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    if (all_of(digits.substr(2), "0123456789abcdefABCDEF")) return "number";
  } else if (digits.starts_with("0o") || digits.starts_with("0O")) {
    if (all_of(digits.substr(2), "01234567")) return "number";
  } else if (digits.starts_with("0b") || digits.starts_with("0B")) {
    if (all_of(digits.substr(2), "01")) return "number";
  }
  // Floats (and so decimal integers) as its yamlStyleFloat:
  // ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
  size_t i = 0;
  const std::string_view d = digits;
  auto run = [&](size_t from) {
    size_t j = from;
    while (j < d.size() && d[j] >= '0' && d[j] <= '9') ++j;
    return j;
  };
  if (i < d.size() && d[i] == '.') {
    const size_t end = run(i + 1);
    if (end == i + 1) return nullptr;
    i = end;
  } else {
    const size_t end = run(i);
    if (end == i) return nullptr;
    i = end;
    if (i < d.size() && d[i] == '.') i = run(i + 1);
  }
  if (i < d.size() && (d[i] == 'e' || d[i] == 'E')) {
    size_t j = i + 1;
    if (j < d.size() && (d[j] == '+' || d[j] == '-')) ++j;
    const size_t end = run(j);
    if (end == j) return nullptr;
    i = end;
  }
  return i == d.size() ? "number" : nullptr;
}

void Unsupported(Decoder& d, const std::string& path, std::string_view value,
                 std::span<const std::string_view> supported) {
  std::vector<std::string_view> sorted(supported.begin(), supported.end());
  std::sort(sorted.begin(), sorted.end());
  std::string list;
  for (std::string_view s : sorted) list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", s);
  d.Error(path, fmt::format("Unsupported value: \"{}\": supported values: {}", value, list));
}

std::string Required(Decoder& d, Map& m, std::string_view field) {
  std::string value = ReadString(d, m.Get(field), m.Path(field)).value_or("");
  if (value.empty()) d.Error(m.Path(field), "Required value");
  return value;
}

// ---- metadata ----

LabelSet ReadLabels(Decoder& d, const YAML::Node& n, const std::string& path) {
  LabelSet labels;
  ReadMapEntries(d, n, path,
                 [&](const std::string& key, const YAML::Node& v, const std::string& p) {
                   ReportInvalid(d, path, key, LabelKeyErrors(key));
                   auto value = ReadString(d, v, p).value_or("");
                   ReportInvalid(d, p, value, LabelValueErrors(value));
                   labels.Set(Symbol(key), Symbol(value));
                 });
  return labels;
}

// The most bytes an object's annotations may take, keys and values together (256 KiB).
constexpr size_t kTotalAnnotationSizeLimit = 256 * 1024;

// Annotations, as the API server's ValidateAnnotations checks them: each key a qualified name (in
// any case), keys and values together at most 256 KiB. muster's own simulation annotations
// must be durations.
std::map<std::string, std::string> ReadAnnotations(Decoder& d, const YAML::Node& n,
                                                   const std::string& path) {
  std::map<std::string, std::string> annotations;
  size_t bytes = 0;
  ReadMapEntries(
      d, n, path, [&](const std::string& key, const YAML::Node& v, const std::string& p) {
        std::string value = ReadString(d, v, p).value_or("");
        if (!d.Served()) {
          // Checked in lower case, as upstream's; most keys are already, and
          // are not copied.
          std::string lower;
          const bool upper =
              std::any_of(key.begin(), key.end(), [](unsigned char c) { return std::isupper(c); });
          if (upper) {
            lower = key;
            std::transform(lower.begin(), lower.end(), lower.begin(),
                           [](unsigned char c) { return std::tolower(c); });
          }
          ReportInvalid(d, path, key, LabelKeyErrors(upper ? lower : key));
          bytes += key.size() + value.size();
        }
        annotations[key] = std::move(value);
      });
  if (bytes > kTotalAnnotationSizeLimit) {
    d.Error(path,
            fmt::format("Too long: may not be more than {} bytes", kTotalAnnotationSizeLimit));
  }
  for (std::string_view key : kSimulationAnnotations) {
    auto it = annotations.find(std::string(key));
    if (it == annotations.end()) continue;
    auto dur = ParseDuration(it->second);
    if (!dur || dur->count() < 0) {
      d.Error(path + "." + std::string(key),
              fmt::format("invalid duration \"{}\" (want a non-negative Go duration like 30s, "
                          "at most 2562047h47m16s)",
                          it->second));
    }
  }
  return annotations;
}

ObjectMeta ReadMeta(Decoder& d, const YAML::Node& n, const std::string& path, bool namespaced,
                    bool require_name) {
  ObjectMeta meta;
  Map m(d, n, path);
  m.Known(kUnreadMetadata);
  const YAML::Node name = m.Get("name");
  meta.name = ReadString(d, name, m.Path("name")).value_or("");
  meta.generate_name = ReadString(d, m.Get("generateName"), m.Path("generateName")).value_or("");
  const std::string ns = ReadString(d, m.Get("namespace"), m.Path("namespace")).value_or("");
  if (namespaced) {
    meta.namespace_ = Symbol(ns.empty() ? kDefaultNamespace : std::string_view(ns));
    if (!ns.empty()) {
      ReportInvalid(d, m.Path("namespace"), ns, Dns1123LabelErrors(ns));
    }
  }
  d.SetObjectName(meta.name.empty() ? "" : meta.Key());
  // A name given but unreadable (a number) has had its error.
  const bool unreadable = meta.name.empty() && Present(name) && name.Tag() == "?";
  if (require_name && meta.name.empty() && meta.generate_name.empty() && !unreadable) {
    d.Error(m.Path("name"), "Required value: name or generateName is required");
  } else if (!meta.name.empty()) {
    ReportInvalid(d, m.Path("name"), meta.name, Dns1123SubdomainErrors(meta.name));
  }
  if (!meta.generate_name.empty()) {
    // A prefix may end in a dash: the API server checks it with its last two characters
    // replaced by one letter (apimachinery's maskTrailingDash).
    std::string prefix = meta.generate_name;
    if (prefix.size() > 1 && prefix.back() == '-') prefix.replace(prefix.size() - 2, 2, "a");
    ReportInvalid(d, m.Path("generateName"), meta.generate_name, Dns1123SubdomainErrors(prefix));
  }
  meta.uid = ReadString(d, m.Get("uid"), m.Path("uid")).value_or("");
  meta.resource_version =
      ReadString(d, m.Get("resourceVersion"), m.Path("resourceVersion")).value_or("");
  meta.labels = ReadLabels(d, m.Get("labels"), m.Path("labels"));
  meta.annotations = ReadAnnotations(d, m.Get("annotations"), m.Path("annotations"));
  ReadList(
      d, m.Get("ownerReferences"), m.Path("ownerReferences"),
      [&](const YAML::Node& item, const std::string& p) {
        Map r(d, item, p);
        OwnerReference ref;
        ref.api_version = ReadString(d, r.Get("apiVersion"), r.Path("apiVersion")).value_or("");
        ref.kind = ReadString(d, r.Get("kind"), r.Path("kind")).value_or("");
        ref.name = ReadString(d, r.Get("name"), r.Path("name")).value_or("");
        ref.uid = ReadString(d, r.Get("uid"), r.Path("uid")).value_or("");
        ref.controller = ReadBool(d, r.Get("controller"), r.Path("controller")).value_or(false);
        ref.block_owner_deletion =
            ReadBool(d, r.Get("blockOwnerDeletion"), r.Path("blockOwnerDeletion")).value_or(false);
        meta.owner_references.push_back(std::move(ref));
      });
  // As the API server's validateOwnerReference, whose path names no index.
  if (!d.Served()) {
    const std::string refs = m.Path("ownerReferences");
    const OwnerReference* controller = nullptr;
    for (const OwnerReference& ref : meta.owner_references) {
      // The version is what follows the group's slash ("v1" has no group).
      if (std::string_view(ref.api_version).substr(ref.api_version.find('/') + 1).empty()) {
        d.Error(refs + ".apiVersion",
                fmt::format("Invalid value: \"{}\": version must not be empty", ref.api_version));
      }
      for (const auto& [field, value] :
           {std::pair{"kind", &ref.kind}, {"name", &ref.name}, {"uid", &ref.uid}}) {
        if (value->empty()) {
          d.Error(fmt::format("{}.{}", refs, field),
                  fmt::format("Invalid value: \"\": {} must not be empty", field));
        }
      }
      if (!ref.controller) continue;
      if (controller != nullptr) {
        // The list as the message shows it, in JSON.
        std::vector<std::string> listed;
        for (const OwnerReference& r : meta.owner_references) {
          listed.push_back(fmt::format(
              R"({{"apiVersion":"{}","kind":"{}","name":"{}","uid":"{}"{}{}}})", r.api_version,
              r.kind, r.name, r.uid, r.controller ? R"(,"controller":true)" : "",
              r.block_owner_deletion ? R"(,"blockOwnerDeletion":true)" : ""));
        }
        d.Error(refs, fmt::format("Invalid value: [{}]: Only one reference can have Controller "
                                  "set to true. Found \"true\" in references for {}/{} and {}/{}",
                                  fmt::join(listed, ","), controller->kind, controller->name,
                                  ref.kind, ref.name));
      } else {
        controller = &ref;
      }
    }
  }
  meta.finalizers = ReadStringList(d, m.Get("finalizers"), m.Path("finalizers"));
  meta.creation_timestamp = ReadTime(d, m.Get("creationTimestamp"), m.Path("creationTimestamp"));
  meta.deletion_timestamp = ReadTime(d, m.Get("deletionTimestamp"), m.Path("deletionTimestamp"));
  return meta;
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
    d.Error(m.Path("operator"),
            op.empty() ? "Required value" : fmt::format("Unsupported value: \"{}\"", op));
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
  ReadMapEntries(
      d, n, path, [&](const std::string& name, const YAML::Node& v, const std::string& p) {
        // Upstream's validateContainerResourceName: a name with a domain is an extended
        // resource's or a prefixed native one's (deviceclass.resource.kubernetes.io/<class>,
        // DRAExtendedResource).
        const bool prefixed_native = IsPrefixedNativeResource(name) && IsValidLabelKey(name);
        if (container && !IsContainerResourceName(name) && !prefixed_native) {
          d.Error(p, fmt::format("Invalid value: \"{}\": {}", name,
                                 name.find('/') == std::string::npos
                                     ? "must be a standard resource for containers"
                                     : "doesn't follow extended resource name standard"));
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
        // Pods and extended resources come whole (upstream's IsIntegerResourceName).
        if (!d.Served() && (name == "pods" || IsExtendedResourceName(name)) &&
            q->MilliValue() % 1000 != 0) {
          d.Error(p, fmt::format("Invalid value: \"{}\": must be an integer", q->String()));
          return;
        }
        list.Set(name, *q);
      });
  return list;
}

// A container's restartPolicy and restartPolicyRules, validated as the API server validates them
// (validateContainerRestartPolicy and validateInitContainerRestartPolicy). Without
// ContainerRestartRules (KEP-5307; beta, on since 1.35) only an init container may set the
// policy, to Always (a sidecar), and the API server drops the rules unread; with it, any
// container may set Always, Never or OnFailure, with rules that restart it by its exit code.
// Only an init container's Always changes what the scheduler counts (a sidecar's requests).
void ReadRestartPolicy(Decoder& d, Map& m, bool init, Container* c) {
  const std::optional<std::string> policy =
      ReadString(d, m.Get("restartPolicy"), m.Path("restartPolicy"));
  const YAML::Node rules = m.Get("restartPolicyRules");
  // What an API server serves it has validated already, by its own release's rules.
  if (d.Served()) {
    c->restart_policy_always = init && policy == "Always";
    return;
  }
  const bool restart_rules = Features().Enabled(Feature::kContainerRestartRules);
  static constexpr std::string_view kPolicies[] = {"Always", "Never", "OnFailure"};
  if (!restart_rules) {
    if (Present(rules)) {
      d.Warn(m.Path("restartPolicyRules"),
             "dropped, as the API server drops it while the ContainerRestartRules feature gate "
             "is off");
    }
    if (!policy) return;
    if (!init) {
      d.Error(m.Path("restartPolicy"), "Forbidden: may not be set for non-init containers");
    } else if (*policy != "Always") {
      Unsupported(d, m.Path("restartPolicy"), *policy, std::span(kPolicies, 1));
    } else {
      c->restart_policy_always = true;
    }
    return;
  }
  if (!policy) {
    if (Present(rules)) {
      d.Error(m.Path("restartPolicy"),
              "Required value: must specify restartPolicy when restart rules are used");
    }
    return;
  }
  if (std::find(std::begin(kPolicies), std::end(kPolicies), *policy) == std::end(kPolicies)) {
    Unsupported(d, m.Path("restartPolicy"), *policy, kPolicies);
    return;
  }
  c->restart_policy_always = init && *policy == "Always";
  if (!Present(rules)) return;
  // RestartAllContainersOnContainerExits (KEP-5532; beta, on since 1.36) lets a sidecar take
  // rules too, and adds the RestartAllContainers action.
  const bool restart_all = Features().Enabled(Feature::kRestartAllContainersOnContainerExits);
  if (c->restart_policy_always && !restart_all) {
    d.Error(m.Path("restartPolicyRules"),
            "Forbidden: restartPolicyRules are not allowed for init containers with restart "
            "policy Always");
    return;
  }
  static constexpr std::string_view kAllActions[] = {"Restart", "RestartAllContainers"};
  const std::span<const std::string_view> actions(kAllActions, restart_all ? 2 : 1);
  static constexpr std::string_view kOperators[] = {"In", "NotIn"};
  const std::string rules_path = m.Path("restartPolicyRules");
  if (rules.IsSequence() && rules.size() > 20) {
    d.Error(rules_path, fmt::format("Too many: {}: must have at most 20 items", rules.size()));
  }
  ReadList(d, rules, rules_path, [&](const YAML::Node& item, const std::string& p) {
    Map rule(d, item, p);
    const std::string action = ReadString(d, rule.Get("action"), rule.Path("action")).value_or("");
    if (std::find(actions.begin(), actions.end(), action) == actions.end()) {
      Unsupported(d, rule.Path("action"), action, actions);
    }
    if (!Present(rule.Get("exitCodes"))) {
      d.Error(rule.Path("exitCodes"), "Required value: must be specified");
      return;
    }
    Map codes(d, rule.Get("exitCodes"), rule.Path("exitCodes"));
    const std::string op =
        ReadString(d, codes.Get("operator"), codes.Path("operator")).value_or("");
    if (std::find(std::begin(kOperators), std::end(kOperators), op) == std::end(kOperators)) {
      Unsupported(d, codes.Path("operator"), op, kOperators);
    }
    const YAML::Node values = codes.Get("values");
    if (values.IsSequence() && values.size() > 255) {
      d.Error(codes.Path("values"),
              fmt::format("Too many: {}: must have at most 255 items", values.size()));
    }
    ReadList(d, values, codes.Path("values"), [&](const YAML::Node& v, const std::string& vp) {
      ReadInt(d, v, vp, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
    });
  });
}

Container ReadContainer(Decoder& d, const YAML::Node& n, const std::string& path, bool init) {
  Container c;
  Map m(d, n, path);
  // What the kubelet reads and the scheduler does not.
  m.Known({"command", "args", "workingDir", "envFrom", "env", "resizePolicy", "volumeMounts",
           "volumeDevices", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
           "terminationMessagePath", "terminationMessagePolicy", "imagePullPolicy",
           "securityContext", "stdin", "stdinOnce", "tty"});
  c.name = ReadString(d, m.Get("name"), m.Path("name")).value_or("");
  c.image = Symbol(ReadString(d, m.Get("image"), m.Path("image")).value_or(""));
  {
    Map r(d, m.Get("resources"), m.Path("resources"));
    ReadList(
        d, r.Get("claims"), r.Path("claims"), [&](const YAML::Node& item, const std::string& p) {
          Map cm(d, item, p);
          ContainerResourceClaim claim;
          claim.name = Symbol(Required(d, cm, "name"));
          claim.request = Symbol(ReadString(d, cm.Get("request"), cm.Path("request")).value_or(""));
          if (!claim.request.empty()) {
            ReportInvalid(d, cm.Path("request"), claim.request.str(),
                          Dns1123LabelErrors(claim.request.str()));
          }
          for (const ContainerResourceClaim& o : c.resources.claims) {
            if (o.name == claim.name && o.request == claim.request) {
              d.Error(p, fmt::format("Duplicate value: \"{}{}{}\"", claim.name.str(),
                                     claim.request.empty() ? "" : "/", claim.request.str()));
            }
          }
          c.resources.claims.push_back(claim);
        });
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
        d.Error(p,
                fmt::format("Invalid value: \"{}\": must be less than or equal to {} limit of {}",
                            q.String(), name.str(), limit->String()));
      }
      if (IsExtendedResourceName(name.str()) && (limit == nullptr || !(*limit == q))) {
        d.Error(p, fmt::format("Invalid value: \"{}\": must be equal to {} limit of {}", q.String(),
                               name.str(), limit ? limit->String() : "0"));
      }
    }
  }
  ReadList(d, m.Get("ports"), m.Path("ports"), [&](const YAML::Node& item, const std::string& p) {
    Map pm(d, item, p);
    ContainerPort port;
    port.name = ReadString(d, pm.Get("name"), pm.Path("name")).value_or("");
    port.container_port = static_cast<int32_t>(
        ReadInt(d, pm.Get("containerPort"), pm.Path("containerPort"), 1, 65535).value_or(0));
    port.host_port = static_cast<int32_t>(
        ReadInt(d, pm.Get("hostPort"), pm.Path("hostPort"), 0, 65535).value_or(0));
    const std::string proto =
        ReadString(d, pm.Get("protocol"), pm.Path("protocol")).value_or("TCP");
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
  ReadRestartPolicy(d, m, init, &c);
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
  if (w < 1 || w > 100)
    d.Error(path, fmt::format("Invalid value: {}: must be in the range 1-100", w));
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
      if (sel.terms.empty())
        d.Error(rm.Path("nodeSelectorTerms"),
                "Required value: must have at least one node selector term");
      node_affinity.required = std::move(sel);
    }
    ReadList(d, nm.Get("preferredDuringSchedulingIgnoredDuringExecution"),
             nm.Path("preferredDuringSchedulingIgnoredDuringExecution"),
             [&](const YAML::Node& item, const std::string& p) {
               Map w(d, item, p);
               PreferredSchedulingTerm term;
               term.weight = ReadWeight(d, w.Get("weight"), w.Path("weight"));
               term.preference = ReadNodeSelectorTerm(d, w.Get("preference"), w.Path("preference"));
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
  if (std::optional<TolerationOperator> parsed = ParseTolerationOperator(op)) {
    t.op = *parsed;
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
  // What the API server stored passed its validation, under its gates: a served Lt or Gt with
  // muster's gate off is kept, and tolerates nothing, as upstream's scheduler does.
  if (!d.Served()) ReportFieldErrors(d, ValidateToleration(t, path));
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
      d.Error(m.Path("minDomains"),
              fmt::format("Invalid value: {}: must be greater than zero", *md));
    } else if (c.when_unsatisfiable != UnsatisfiableConstraintAction::kDoNotSchedule) {
      d.Error(m.Path("minDomains"),
              fmt::format(
                  "Invalid value: {}: can only use minDomains if whenUnsatisfiable=DoNotSchedule",
                  *md));
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

namespace {

// spec.workloadRef (Kubernetes 1.35) and spec.schedulingGroup (1.36 and later): the gang of
// Kubernetes' own gang API the pod belongs to. The API server of 1.36 and later no longer has
// workloadRef; muster reads both, but not both in one pod.
void ReadGangReference(Decoder& d, Map& m, PodSpec& spec) {
  auto name = [&](Map& r, std::string_view field, bool label, bool required) {
    const std::string value = ReadString(d, r.Get(field), r.Path(field)).value_or("");
    if (value.empty()) {
      if (required) d.Error(r.Path(field), "Required value");
      return Symbol();
    }
    ReportInvalid(d, r.Path(field), value,
                  label ? Dns1123LabelErrors(value) : Dns1123SubdomainErrors(value));
    return Symbol(value);
  };
  if (YAML::Node ref = m.Get("workloadRef"); Present(ref)) {
    Map r(d, ref, m.Path("workloadRef"));
    spec.workload_ref.name = name(r, "name", false, true);
    spec.workload_ref.pod_group = name(r, "podGroup", true, true);
    spec.workload_ref.replica_key = name(r, "podGroupReplicaKey", true, false);
  }
  if (YAML::Node group = m.Get("schedulingGroup"); Present(group)) {
    Map g(d, group, m.Path("schedulingGroup"));
    spec.scheduling_group = name(g, "podGroupName", false, false);
    if (!spec.workload_ref.name.empty()) {
      d.Error(m.Path("schedulingGroup"),
              "Forbidden: a pod names one gang: spec.workloadRef (Kubernetes 1.35) or "
              "spec.schedulingGroup (1.36 and later), not both");
    }
  }
}

}  // namespace

// A pod's spec.resourceClaims[] entry: a name unique in the pod, and exactly one of a claim's
// and a template's name.
PodResourceClaim ReadPodResourceClaim(Decoder& d, const YAML::Node& n, const std::string& path,
                                      const PodSpec& spec) {
  Map m(d, n, path);
  PodResourceClaim claim;
  const std::string name = Required(d, m, "name");
  if (!name.empty()) ReportInvalid(d, m.Path("name"), name, Dns1123LabelErrors(name));
  claim.name = Symbol(name);
  for (const PodResourceClaim& o : spec.resource_claims) {
    if (!name.empty() && o.name == claim.name) {
      d.Error(m.Path("name"), fmt::format("Duplicate value: \"{}\"", name));
    }
  }
  auto read_name = [&](std::string_view field) {
    const std::string value = ReadString(d, m.Get(field), m.Path(field)).value_or("");
    if (!value.empty()) ReportInvalid(d, m.Path(field), value, Dns1123SubdomainErrors(value));
    return Symbol(value);
  };
  claim.resource_claim_name = read_name("resourceClaimName");
  claim.resource_claim_template_name = read_name("resourceClaimTemplateName");
  if (!claim.resource_claim_name.empty() && !claim.resource_claim_template_name.empty()) {
    d.Error(path,
            "Invalid value: at most one of `resourceClaimName` or "
            "`resourceClaimTemplateName` may be specified");
  } else if (claim.resource_claim_name.empty() && claim.resource_claim_template_name.empty()) {
    d.Error(path,
            "Required value: must specify one of: `resourceClaimName`, "
            "`resourceClaimTemplateName`");
  }
  return claim;
}

// Each container's resources.claims[] names one of the pod's resourceClaims.
void CheckContainerClaims(Decoder& d, const std::vector<Container>& containers,
                          const std::string& path, const std::vector<PodResourceClaim>& claims) {
  std::vector<std::string> names;
  for (const PodResourceClaim& c : claims) names.push_back(c.name.string());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  const std::string detail =
      names.empty() ? "must be one of the names in pod.spec.resourceClaims which is empty"
                    : fmt::format("must be one of the names in pod.spec.resourceClaims: {}",
                                  fmt::join(names, ", "));
  for (size_t i = 0; i < containers.size(); ++i) {
    const std::vector<ContainerResourceClaim>& used = containers[i].resources.claims;
    for (size_t j = 0; j < used.size(); ++j) {
      if (used[j].name.empty()) continue;
      if (!std::binary_search(names.begin(), names.end(), used[j].name.string())) {
        d.Error(fmt::format("{}[{}].resources.claims[{}]", path, i, j),
                fmt::format("Not found: \"{}\": {}", used[j].name.str(), detail));
      }
    }
  }
}

// A resource list's quantity for a sum PodRequests' arithmetic made, in `format`.
Quantity SumQuantity(std::string_view name, const Resource& sum, QuantityFormat format) {
  if (name == kResourceCPU) return Quantity::FromMilli(sum.milli_cpu, format);
  if (name == kResourceMemory) return Quantity::FromValue(sum.memory, format);
  return Quantity::FromValue(sum.Scalar(Symbol(name)), format);
}

bool AnyContainerNames(const PodSpec& spec, Symbol name, bool limits) {
  for (const auto* containers : {&spec.init_containers, &spec.containers}) {
    for (const Container& c : *containers) {
      if ((limits ? c.resources.limits : c.resources.requests).Get(name) != nullptr) return true;
    }
  }
  return false;
}

// Upstream validatePodResources and validatePodResourceConsistency, on the defaulted pod-level
// resources at `path` (spec.resources); `container_requests` is the containers' sum.
void ValidatePodLevelResources(Decoder& d, const PodSpec& spec, const PodLevelResources& level,
                               const Resource& container_requests, const std::string& path) {
  const std::string requests_path = path + ".requests";
  bool cpu_or_memory = false;
  bool hugepages = false;
  for (const auto* list : {&level.limits, &level.requests}) {
    for (const auto& [name, q] : *list) {
      (IsHugePageResourceName(name.str()) ? hugepages : cpu_or_memory) = true;
    }
  }
  for (const auto& [name, q] : level.requests) {
    const Quantity* limit = level.limits.Get(name);
    if (IsHugePageResourceName(name.str())) {
      if (limit == nullptr) {
        d.Error(path + ".limits",
                "Required value: Limit must be set for non overcommitable resources");
      } else if (q.Cmp(*limit) != 0) {
        d.Error(requests_path, fmt::format("Invalid value: \"{}\": must be equal to {} limit of {}",
                                           q.String(), name.str(), limit->String()));
      }
    } else if (limit != nullptr && q.Cmp(*limit) > 0) {
      d.Error(requests_path,
              fmt::format("Invalid value: \"{}\": must be less than or equal to {} limit of {}",
                          q.String(), name.str(), limit->String()));
    }
  }
  if (hugepages && !cpu_or_memory) d.Error(path, "Forbidden: HugePages require cpu or memory");
  for (const auto& [name, q] : level.requests) {
    if (!AnyContainerNames(spec, name, false)) continue;
    const Quantity sum = SumQuantity(name.str(), container_requests, q.format());
    if (sum.Cmp(q) > 0) {
      d.Error(fmt::format("{}[{}]", requests_path, name.str()),
              fmt::format("Invalid value: \"{}\": must be greater than or equal to aggregate "
                          "container requests of {}",
                          q.String(), sum.String()));
    }
  }
  for (size_t i = 0; i < spec.containers.size(); ++i) {
    for (const auto& [name, limit] : spec.containers[i].resources.limits) {
      const Quantity* pod_limit = level.limits.Get(name);
      if (pod_limit != nullptr && limit.Cmp(*pod_limit) > 0) {
        d.Error(fmt::format("{}.containers[{}][{}].limits", path, i, name.str()),
                fmt::format("Invalid value: \"{}\": must be less than or equal to pod limits of {}",
                            limit.String(), pod_limit->String()));
      }
    }
  }
}

// Pod-level resources (spec.resources, KEP-2837, beta and on since 1.34), defaulted and validated
// as the API server does: pod-level hugepages limits default to the containers' sum, then
// pod-level requests to the containers' sum of cpu and memory, then to the pod-level limits; the
// pod-level requests may not be below what the containers request together, and no container's
// limit may exceed the pod's.
void ReadPodLevelResources(Decoder& d, Map& spec_map, PodSpec& spec) {
  Map r(d, spec_map.Get("resources"), spec_map.Path("resources"));
  if (!Present(spec_map.Get("resources"))) return;
  const std::string path = spec_map.Path("resources");
  PodLevelResources level;
  level.limits = ReadResourceList(d, r.Get("limits"), r.Path("limits"), false);
  level.requests = ReadResourceList(d, r.Get("requests"), r.Path("requests"), false);
  if (const YAML::Node os = spec_map.Get("os");
      os.IsMap() && os["name"] && os["name"].IsScalar() && os["name"].Scalar() == "windows") {
    d.Error(path, "Forbidden: may not be set for a windows pod");
    return;
  }
  if (Present(r.Get("claims"))) {
    d.Error(r.Path("claims"), "Forbidden: claims may not be set for Resources at pod-level");
  }
  if (level.requests.empty() && level.limits.empty()) return;
  const size_t errors = d.error_count();
  for (const auto* list : {&level.limits, &level.requests}) {
    const std::string list_path = r.Path(list == &level.limits ? "limits" : "requests");
    for (const auto& [name, q] : *list) {
      if (!IsSupportedPodLevelResource(name.str())) {
        d.Error(fmt::format("{}[{}]", list_path, name.str()),
                fmt::format("Unsupported value: \"{}\": supported values: \"cpu\", "
                            "\"hugepages-\", \"memory\"",
                            name.str()));
      }
    }
  }
  if (d.error_count() != errors) return;

  // Defaults (upstream defaultHugePagePodLimits and defaultPodRequests).
  const Resource container_limits = ContainerLimitsSum(spec);
  for (const auto& [name, value] : container_limits.scalar) {
    if (IsHugePageResourceName(name.str()) && !level.requests.Get(name) &&
        !level.limits.Get(name) && AnyContainerNames(spec, name, true)) {
      level.limits.Set(name, Quantity::FromValue(value, QuantityFormat::kBinarySI));
    }
  }
  const Resource container_requests = ContainerRequestsSum(spec);
  if (!level.limits.empty()) {
    for (std::string_view name : {kResourceCPU, kResourceMemory}) {
      const Symbol symbol(name);
      if (!level.requests.Get(symbol) && AnyContainerNames(spec, symbol, false)) {
        level.requests.Set(symbol, SumQuantity(name, container_requests,
                                               name == kResourceCPU ? QuantityFormat::kDecimalSI
                                                                    : QuantityFormat::kBinarySI));
      }
    }
    for (const auto& [name, q] : level.limits) {
      if (!level.requests.Get(name)) level.requests.Set(name, q);
    }
  }

  // What a file says is validated; what an API server serves it has validated already, by its
  // own release's rules.
  if (!d.Served()) {
    ValidatePodLevelResources(d, spec, level, container_requests, path);
    if (!Features().Enabled(Feature::kPodLevelResources)) {
      d.Warn(path,
             "the PodLevelResources feature gate is off: the API server drops the field, and "
             "the pod counts its containers' requests");
    }
  }
  spec.resources = std::make_shared<const PodLevelResources>(std::move(level));
}

namespace {

// The node declared features a pod spec needs (api/node_features.h), as upstream's
// InferForPodScheduling finds them. The fields it looks at are the kubelet's: they are read here
// for this alone, without a type check of their own (the API server's).
NodeFeatureSet InferRequiredNodeFeatures(Map& m, bool host_network,
                                         std::optional<bool> host_users) {
  auto items = [](const YAML::Node& n, auto&& each) {
    if (!n || !n.IsSequence()) return;
    for (const YAML::Node& item : n) {
      if (item.IsMap()) each(item);
    }
  };
  auto scalar_is = [](const YAML::Node& n, std::string_view want) {
    return n && n.IsScalar() && n.Scalar() == want;
  };
  NodeFeatureSet out = 0;
  for (const char* list : {"initContainers", "containers", "ephemeralContainers"}) {
    items(m.Get(list), [&](const YAML::Node& container) {
      // Ephemeral containers take no restart rules; upstream looks only at the other two.
      if (std::string_view(list) != "ephemeralContainers") {
        items(container["restartPolicyRules"], [&](const YAML::Node& rule) {
          if (scalar_is(rule["action"], "RestartAllContainers")) {
            out |= BitOf(NodeFeature::kRestartAllContainersOnContainerExits);
          }
        });
      }
      items(container["volumeMounts"], [&](const YAML::Node& mount) {
        const YAML::Node options = mount["bindMountOptions"];
        if (options && options.IsSequence() && options.size() > 0) {
          out |= BitOf(NodeFeature::kVolumeBindMountOptions);
        }
      });
    });
  }
  if (host_network && host_users == false) {
    out |= BitOf(NodeFeature::kUserNamespacesHostNetworkSupport);
  }
  return out;
}

}  // namespace

PodSpec ReadPodSpec(Decoder& d, const YAML::Node& n, const std::string& path) {
  PodSpec spec;
  Map m(d, n, path);
  // What the kubelet and the API server read, and the scheduler does not.
  m.Known({"ephemeralContainers",
           "terminationGracePeriodSeconds",
           "activeDeadlineSeconds",
           "dnsPolicy",
           "serviceAccountName",
           "serviceAccount",
           "automountServiceAccountToken",
           "hostPID",
           "hostIPC",
           "shareProcessNamespace",
           "securityContext",
           "imagePullSecrets",
           "hostname",
           "subdomain",
           "hostAliases",
           "dnsConfig",
           "readinessGates",
           "runtimeClassName",
           "enableServiceLinks",
           "setHostnameAsFQDN",
           "os",
           "hostUsers",
           "hostnameOverride"});
  ReadList(d, m.Get("resourceClaims"), m.Path("resourceClaims"),
           [&](const YAML::Node& item, const std::string& p) {
             spec.resource_claims.push_back(ReadPodResourceClaim(d, item, p, spec));
           });
  ReadList(d, m.Get("initContainers"), m.Path("initContainers"),
           [&](const YAML::Node& item, const std::string& p) {
             spec.init_containers.push_back(ReadContainer(d, item, p, true));
           });
  ReadList(d, m.Get("containers"), m.Path("containers"),
           [&](const YAML::Node& item, const std::string& p) {
             spec.containers.push_back(ReadContainer(d, item, p, false));
           });
  if (spec.containers.empty()) d.Error(m.Path("containers"), "Required value");
  // One name space for every container of the pod, init containers too.
  if (!d.Served()) {
    std::set<std::string_view> names;
    for (const auto& [list, field] :
         {std::pair{&spec.init_containers, "initContainers"}, {&spec.containers, "containers"}}) {
      for (size_t i = 0; i < list->size(); ++i) {
        const std::string& name = (*list)[i].name;
        if (!name.empty() && !names.insert(name).second) {
          d.Error(fmt::format("{}[{}].name", m.Path(field), i),
                  fmt::format("Duplicate value: \"{}\"", name));
        }
      }
    }
  }
  CheckContainerClaims(d, spec.init_containers, m.Path("initContainers"), spec.resource_claims);
  CheckContainerClaims(d, spec.containers, m.Path("containers"), spec.resource_claims);
  ReadPodLevelResources(d, m, spec);
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
  ReadGangReference(d, m, spec);
  if (auto s = ReadString(d, m.Get("schedulerName"), m.Path("schedulerName")); s && !s->empty()) {
    spec.scheduler_name = Symbol(*s);
  }
  if (auto p = ReadInt(d, m.Get("priority"), m.Path("priority"))) {
    spec.priority = static_cast<int32_t>(*p);
  }
  spec.priority_class_name =
      Symbol(ReadString(d, m.Get("priorityClassName"), m.Path("priorityClassName")).value_or(""));
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
    spec.restart_policy = Symbol(*s);
  }
  spec.volumes = ReadPodVolumes(d, m.Get("volumes"), m.Path("volumes"));
  spec.host_network = ReadBool(d, m.Get("hostNetwork"), m.Path("hostNetwork")).value_or(false);
  spec.required_node_features = InferRequiredNodeFeatures(
      m, spec.host_network, ReadBool(d, m.Get("hostUsers"), m.Path("hostUsers")));
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

// A pod's, a PodGroup's or an allocated device's condition.
Condition ReadCondition(Decoder& d, const YAML::Node& item, const std::string& path) {
  Map c(d, item, path);
  c.Known({"lastProbeTime", "observedGeneration"});
  Condition cond;
  cond.type = Symbol(ReadString(d, c.Get("type"), c.Path("type")).value_or(""));
  cond.status = Symbol(ReadString(d, c.Get("status"), c.Path("status")).value_or(""));
  cond.reason = ReadString(d, c.Get("reason"), c.Path("reason")).value_or("");
  cond.message = ReadString(d, c.Get("message"), c.Path("message")).value_or("");
  cond.last_transition_time =
      ReadTime(d, c.Get("lastTransitionTime"), c.Path("lastTransitionTime"));
  return cond;
}

}  // namespace muster::api::decoding
