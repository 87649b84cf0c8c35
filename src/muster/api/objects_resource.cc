// Dynamic Resource Allocation, resource.k8s.io/v1: DeviceClass, ResourceSlice, ResourceClaim and
// ResourceClaimTemplate, with the API server's defaults and validation (pkg/apis/resource: v1
// defaults, validation) for the fields the scheduler reads. Device selectors are compiled here,
// once: an expression muster's CEL refuses is an error naming its field.
//
// Fields of alpha features muster does not model (consumable capacity, binding conditions) are
// refused; read from a cluster, which validated them, they are a warning there instead.

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/cel/cel.h"
#include "muster/api/decoder.h"
#include "muster/api/dra.h"
#include "muster/api/feature_gates.h"
#include "muster/api/json_string.h"
#include "muster/api/kinds.h"
#include "muster/api/labels.h"
#include "muster/api/object_decoding.h"

namespace muster::api::decoding {
namespace {

// The API server's limits (pkg/apis/resource/types.go).
constexpr size_t kMaxSelectors = 32;
constexpr size_t kMaxConfigs = 32;
constexpr size_t kMaxRequests = 32;
constexpr size_t kMaxConstraints = 32;
constexpr size_t kMaxSubRequests = 8;
constexpr size_t kMaxTolerations = 16;
constexpr size_t kMaxDevices = 128;
// With taints or counter consumption in the slice.
constexpr size_t kMaxDevicesWithTaintsOrCounters = 64;
constexpr size_t kMaxAttributesAndCapacities = 32;
constexpr size_t kMaxTaintsPerDevice = 16;
constexpr size_t kMaxCounterConsumptions = 2;
constexpr size_t kMaxSharedCounterSets = 8;
constexpr size_t kMaxCountersPerSet = 32;
constexpr size_t kMaxDriverNameLength = 63;
constexpr size_t kMaxPoolNameLength = 253;
constexpr size_t kMaxDomainLength = 63;
constexpr size_t kMaxIdLength = 32;
constexpr size_t kMaxAttributeValueLength = 64;
constexpr size_t kMaxCelLength = 10 * 1024;
constexpr size_t kMaxOpaqueParametersLength = 10 * 1024;
constexpr size_t kMaxBindingConditions = 4;  // and as many failure conditions

void TooMany(Decoder& d, const std::string& path, size_t n, size_t max) {
  d.Error(path, fmt::format("Too many: {}: must have at most {} items", n, max));
}

void TooLong(Decoder& d, const std::string& path, size_t max) {
  d.Error(path, fmt::format("Too long: may not be more than {} bytes", max));
}

// A list field with at most `max` items.
template <typename Fn>
void ReadBoundedList(Decoder& d, const YAML::Node& n, const std::string& path, size_t max,
                     Fn&& fn) {
  if (Present(n) && n.IsSequence() && n.size() > max) TooMany(d, path, n.size(), max);
  ReadList(d, n, path, fn);
}

// A driver's name: a DNS subdomain of at most 63 bytes (compared lower-cased, as the API
// server does).
Symbol ReadDriverName(Decoder& d, Map& m, std::string_view field) {
  const std::string name = Required(d, m, field);
  if (name.empty()) return Symbol();
  if (name.size() > kMaxDriverNameLength) {
    TooLong(d, m.Path(field), kMaxDriverNameLength);
  } else {
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    ReportInvalid(d, m.Path(field), name, Dns1123SubdomainErrors(lower));
  }
  return Symbol(name);
}

bool IsCIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

void ReportCIdentifier(Decoder& d, const std::string& path, std::string_view id) {
  if (id.size() > kMaxIdLength) TooLong(d, path, kMaxIdLength);
  if (!IsCIdentifier(id)) {
    d.Error(path, fmt::format("Invalid value: \"{}\": a valid C identifier must start with "
                              "alphabetic character or '_', followed by a string of alphanumeric "
                              "characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', "
                              "regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')",
                              id));
  }
}

void ReportDomain(Decoder& d, const std::string& path, std::string_view domain) {
  if (domain.size() > kMaxDomainLength) {
    TooLong(d, path, kMaxDomainLength);
  } else {
    ReportInvalid(d, path, domain, Dns1123SubdomainErrors(domain));
  }
}

// A qualified name "<domain>/<id>" or "<id>", split; a name without a domain gets `driver` as
// its domain. `full`: the domain is required (a constraint's attribute).
std::pair<Symbol, Symbol> ReadQualifiedName(Decoder& d, const std::string& path,
                                            std::string_view name, Symbol driver, bool full) {
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) {
    if (full) {
      d.Error(path, fmt::format("Invalid value: \"{}\": a fully qualified name must be a domain "
                                "and a name separated by a slash",
                                name));
    }
    ReportCIdentifier(d, path, name);
    return {driver, Symbol(name)};
  }
  const std::string_view domain = name.substr(0, slash);
  const std::string_view id = name.substr(slash + 1);
  if (domain.empty()) {
    d.Error(path, "Required value: the domain must not be empty");
  } else {
    ReportDomain(d, path, domain);
  }
  ReportCIdentifier(d, path, id);
  return {Symbol(domain), Symbol(id)};
}

DeviceSelector ReadSelector(Decoder& d, const YAML::Node& n, const std::string& path) {
  Map m(d, n, path);
  DeviceSelector s;
  YAML::Node c = m.Get("cel");
  if (!Present(c)) {
    d.Error(m.Path("cel"), "Required value");
    return s;
  }
  Map cm(d, c, m.Path("cel"));
  const std::string p = cm.Path("expression");
  s.expression = ReadString(d, cm.Get("expression"), p).value_or("");
  if (s.expression.empty()) {
    d.Error(p, "Required value");
    return s;
  }
  if (s.expression.size() > kMaxCelLength) {
    TooLong(d, p, kMaxCelLength);
    return s;
  }
  cel::Compiled compiled = cel::Compile(s.expression);
  s.program = std::move(compiled.program);
  s.error = std::move(compiled.error);
  if (!s.error.empty()) {
    // Read from a cluster, the API server took it: its devices fail allocation instead.
    if (d.Served()) {
      d.Warn(p, s.error);
    } else {
      d.Error(p, fmt::format("Invalid value: {}: {}", GoQuote(s.expression), s.error));
    }
  }
  return s;
}

std::vector<DeviceSelector> ReadSelectors(Decoder& d, Map& m) {
  std::vector<DeviceSelector> out;
  ReadBoundedList(d, m.Get("selectors"), m.Path("selectors"), kMaxSelectors,
                  [&](const YAML::Node& item, const std::string& p) {
                    out.push_back(ReadSelector(d, item, p));
                  });
  return out;
}

// A YAML value as JSON text (opaque parameters, passed on as the API server stores them): a
// plain scalar that reads as a number, a boolean or null stays one, any other is a string.
std::string JsonText(const YAML::Node& n) {
  if (n.IsMap()) {
    std::string out = "{";
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (out.size() > 1) out += ",";
      out += JsonString(it->first.Scalar()) + ":" + JsonText(it->second);
    }
    return out + "}";
  }
  if (n.IsSequence()) {
    std::string out = "[";
    for (size_t i = 0; i < n.size(); ++i) out += (i > 0 ? "," : "") + JsonText(n[i]);
    return out + "]";
  }
  if (!n.IsScalar() || n.IsNull()) return "null";
  const std::string& v = n.Scalar();
  if (n.Tag() != "!") {
    if (v == "true" || v == "false") return v;
    if (v == "null" || v == "~") return "null";
    char* end = nullptr;
    if (!v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-')) {
      std::strtod(v.c_str(), &end);
      if (end == v.c_str() + v.size() && v.find_first_of("xXnN") == std::string::npos) return v;
    }
  }
  return JsonString(v);
}

// An `opaque` configuration (its driver and parameters), required in a config entry.
OpaqueDeviceConfiguration ReadOpaque(Decoder& d, Map& m) {
  OpaqueDeviceConfiguration c;
  YAML::Node o = m.Get("opaque");
  if (!Present(o)) {
    d.Error(m.Path("opaque"), "Required value");
    return c;
  }
  Map om(d, o, m.Path("opaque"));
  c.driver = ReadDriverName(d, om, "driver");
  YAML::Node params = om.Get("parameters");
  if (!Present(params)) {
    d.Error(om.Path("parameters"), "Required value");
  } else if (!params.IsMap()) {
    d.Error(
        om.Path("parameters"),
        fmt::format("Invalid value: {}: parameters must be a valid JSON object", Describe(params)));
  } else {
    c.parameters = JsonText(params);
    if (c.parameters.size() > kMaxOpaqueParametersLength) {
      TooLong(d, om.Path("parameters"), kMaxOpaqueParametersLength);
    }
  }
  return c;
}

// What a cluster's validation took and muster does not model: refused in files, a warning
// when read from a cluster.
void RefuseAlpha(Decoder& d, Map& m, std::string_view field, std::string_view feature) {
  if (!Present(m.Get(field))) return;
  const std::string message =
      fmt::format("muster does not model {} (the {} feature) yet", field, feature);
  if (d.Served()) {
    d.Warn(m.Path(field), message);
  } else {
    d.Error(m.Path(field), fmt::format("Forbidden: {}", message));
  }
}

constexpr std::string_view kTaintEffectNames[] = {"NoSchedule", "NoExecute", "None"};
constexpr std::string_view kAllocationModeNames[] = {"ExactCount", "All"};

std::vector<Counter> ReadCounters(Decoder& d, Map& m, size_t max) {
  std::vector<Counter> out;
  YAML::Node n = m.Get("counters");
  if (Present(n) && n.IsMap() && n.size() > max) TooMany(d, m.Path("counters"), n.size(), max);
  ReadMapEntries(d, n, m.Path("counters"),
                 [&](const std::string& name, const YAML::Node& v, const std::string& p) {
                   ReportCIdentifier(d, p, name);
                   Map cm(d, v, p);
                   Counter c{Symbol(name), {}};
                   if (auto q = ReadQuantity(d, cm.Get("value"), cm.Path("value"))) {
                     c.value = *q;
                   } else if (!Present(cm.Get("value"))) {
                     d.Error(cm.Path("value"), "Required value");
                   }
                   out.push_back(c);
                 });
  return out;
}

// Exactly one of nodeName, nodeSelector and allNodes (and, for a slice, perDeviceNodeSelection).
DeviceNodes ReadDeviceNodes(Decoder& d, Map& m, const std::string& path, bool* per_device) {
  DeviceNodes nodes;
  int given = 0;
  if (auto name = ReadString(d, m.Get("nodeName"), m.Path("nodeName")); name && !name->empty()) {
    ReportInvalid(d, m.Path("nodeName"), *name, Dns1123SubdomainErrors(*name));
    nodes.node_name = Symbol(*name);
    ++given;
  }
  if (YAML::Node s = m.Get("nodeSelector"); Present(s)) {
    Map sm(d, s, m.Path("nodeSelector"));
    NodeSelector selector;
    ReadList(d, sm.Get("nodeSelectorTerms"), sm.Path("nodeSelectorTerms"),
             [&](const YAML::Node& item, const std::string& p) {
               selector.terms.push_back(ReadNodeSelectorTerm(d, item, p));
             });
    if (selector.terms.size() != 1) {
      d.Error(sm.Path("nodeSelectorTerms"),
              fmt::format("Invalid value: {} terms: must have exactly one node selector term",
                          selector.terms.size()));
    }
    nodes.node_selector = std::move(selector);
    ++given;
  }
  if (std::optional<bool> all = ReadBool(d, m.Get("allNodes"), m.Path("allNodes"))) {
    if (!*all) {
      d.Error(m.Path("allNodes"), "Invalid value: false: must be either unset or set to true");
    }
    nodes.all_nodes = *all;
    given += *all;
  }
  if (per_device != nullptr) {
    *per_device = ReadBool(d, m.Get("perDeviceNodeSelection"), m.Path("perDeviceNodeSelection"))
                      .value_or(false);
    given += *per_device;
  }
  const std::string fields =
      per_device != nullptr ? "`nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection`"
                            : "`nodeName`, `nodeSelector`, `allNodes`";
  if (given == 0) {
    d.Error(path, fmt::format("Required value: exactly one of {} is required", fields));
  } else if (given > 1) {
    d.Error(path, fmt::format("Invalid value: exactly one of {} is required, but multiple fields "
                              "are set",
                              fields));
  }
  return nodes;
}

// A device's binding conditions (KEP-5007), validated as the API server does
// (validateDeviceBindingParameters). With DRADeviceBindingConditions off the API server drops
// them, so a file's are dropped with a warning; a cluster's are kept, and the allocator passes
// over such devices, as upstream's does with the gate off.
void ReadDeviceBinding(Decoder& d, Map& m, Device* device) {
  static constexpr std::string_view kFields[] = {"bindsToNode", "bindingConditions",
                                                 "bindingFailureConditions"};
  if (!Features().Enabled(Feature::kDRADeviceBindingConditions) && !d.Served()) {
    for (std::string_view field : kFields) {
      if (!Present(m.Get(field))) continue;
      d.Warn(m.Path(field),
             "dropped, as the API server drops it while the DRADeviceBindingConditions feature "
             "gate is off");
    }
    return;
  }
  device->binds_to_node = ReadBool(d, m.Get("bindsToNode"), m.Path("bindsToNode")).value_or(false);
  std::vector<std::string>& conditions = device->binding_conditions;
  std::vector<std::string>& failures = device->binding_failure_conditions;
  conditions = ReadStringList(d, m.Get("bindingConditions"), m.Path("bindingConditions"));
  failures =
      ReadStringList(d, m.Get("bindingFailureConditions"), m.Path("bindingFailureConditions"));
  if (d.Served()) return;
  auto check = [&](const std::vector<std::string>& list, std::string_view field) {
    const std::string path = m.Path(field);
    if (list.size() > kMaxBindingConditions) TooMany(d, path, list.size(), kMaxBindingConditions);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string item = fmt::format("{}[{}]", path, i);
      ReportInvalid(d, item, list[i], LabelKeyErrors(list[i]));
      if (std::find(list.begin(), list.begin() + static_cast<ptrdiff_t>(i), list[i]) !=
          list.begin() + static_cast<ptrdiff_t>(i)) {
        d.Error(item, fmt::format("Duplicate value: \"{}\"", list[i]));
      }
    }
  };
  check(conditions, "bindingConditions");
  check(failures, "bindingFailureConditions");
  for (size_t i = 0; i < failures.size(); ++i) {
    if (std::find(conditions.begin(), conditions.end(), failures[i]) == conditions.end()) continue;
    d.Error(fmt::format("{}[{}]", m.Path("bindingFailureConditions"), i),
            fmt::format("Invalid value: \"{}\": bindingFailureConditions must not overlap with "
                        "bindingConditions",
                        failures[i]));
  }
  if (conditions.empty() && !failures.empty()) {
    d.Error(m.Path("bindingConditions"),
            "Invalid value: null: bindingConditions are required to use bindingFailureConditions");
  }
  if (failures.empty() && !conditions.empty()) {
    d.Error(m.Path("bindingFailureConditions"),
            "Invalid value: null: bindingFailureConditions are required to use bindingConditions");
  }
}

Device ReadDevice(Decoder& d, const YAML::Node& n, const std::string& path, Symbol driver,
                  bool per_device) {
  Map m(d, n, path);
  RefuseAlpha(d, m, "allowMultipleAllocations", "DRAConsumableCapacity");
  Device device;
  ReadDeviceBinding(d, m, &device);
  const std::string name = Required(d, m, "name");
  if (!name.empty()) ReportInvalid(d, m.Path("name"), name, Dns1123LabelErrors(name));
  device.name = Symbol(name);
  std::set<std::pair<Symbol, Symbol>> names;
  auto unique = [&](Symbol domain, Symbol id, const std::string& p, const std::string& key) {
    if (!names.insert({domain, id}).second) {
      d.Error(p, fmt::format("Duplicate value: \"{}\"", key));
    }
  };
  ReadMapEntries(d, m.Get("attributes"), m.Path("attributes"),
                 [&](const std::string& key, const YAML::Node& v, const std::string& p) {
                   auto [domain, id] = ReadQualifiedName(d, p, key, driver, false);
                   unique(domain, id, p, key);
                   Map am(d, v, p);
                   DeviceAttribute attribute{domain, id, false};
                   int given = 0;
                   if (auto b = ReadBool(d, am.Get("bool"), am.Path("bool"))) {
                     attribute.value = *b;
                     ++given;
                   }
                   if (auto i = ReadInt(d, am.Get("int"), am.Path("int"), INT64_MIN, INT64_MAX)) {
                     attribute.value = *i;
                     ++given;
                   }
                   if (auto s = ReadString(d, am.Get("string"), am.Path("string"))) {
                     if (s->size() > kMaxAttributeValueLength) {
                       TooLong(d, am.Path("string"), kMaxAttributeValueLength);
                     }
                     attribute.value = *s;
                     ++given;
                   }
                   if (auto s = ReadString(d, am.Get("version"), am.Path("version"))) {
                     if (s->size() > kMaxAttributeValueLength) {
                       TooLong(d, am.Path("version"), kMaxAttributeValueLength);
                     }
                     if (auto version = SemVer::Parse(*s)) {
                       attribute.value = *version;
                     } else {
                       d.Error(
                           am.Path("version"),
                           fmt::format("Invalid value: \"{}\": must be a string compatible with "
                                       "semver.org spec 2.0.0",
                                       *s));
                     }
                     ++given;
                   }
                   if (given == 0) {
                     d.Error(p, "Required value: exactly one value must be specified");
                   } else if (given > 1) {
                     d.Error(p, "Invalid value: exactly one value must be specified");
                   }
                   device.attributes.push_back(std::move(attribute));
                 });
  ReadMapEntries(d, m.Get("capacity"), m.Path("capacity"),
                 [&](const std::string& key, const YAML::Node& v, const std::string& p) {
                   auto [domain, id] = ReadQualifiedName(d, p, key, driver, false);
                   unique(domain, id, p, key);
                   Map cm(d, v, p);
                   RefuseAlpha(d, cm, "requestPolicy", "DRAConsumableCapacity");
                   DeviceCapacity capacity{domain, id, {}};
                   if (auto q = ReadQuantity(d, cm.Get("value"), cm.Path("value"))) {
                     capacity.value = *q;
                   } else if (!Present(cm.Get("value"))) {
                     d.Error(cm.Path("value"), "Required value");
                   }
                   device.capacity.push_back(capacity);
                 });
  if (names.size() > kMaxAttributesAndCapacities) {
    d.Error(path, fmt::format("Too many: {}: the total number of attributes and capacities must "
                              "not exceed {}",
                              names.size(), kMaxAttributesAndCapacities));
  }
  auto by_name = [](const auto& a, const auto& b) {
    return std::pair(a.domain.str(), a.name.str()) < std::pair(b.domain.str(), b.name.str());
  };
  std::sort(device.attributes.begin(), device.attributes.end(), by_name);
  std::sort(device.capacity.begin(), device.capacity.end(), by_name);

  ReadBoundedList(d, m.Get("consumesCounters"), m.Path("consumesCounters"), kMaxCounterConsumptions,
                  [&](const YAML::Node& item, const std::string& p) {
                    Map cm(d, item, p);
                    DeviceCounterConsumption c;
                    const std::string set = Required(d, cm, "counterSet");
                    if (!set.empty())
                      ReportInvalid(d, cm.Path("counterSet"), set, Dns1123LabelErrors(set));
                    c.counter_set = Symbol(set);
                    c.counters = ReadCounters(d, cm, kMaxCountersPerSet);
                    if (c.counters.empty()) d.Error(cm.Path("counters"), "Required value");
                    device.consumes_counters.push_back(std::move(c));
                  });
  if (per_device) {
    device.nodes = ReadDeviceNodes(d, m, path, nullptr);
  } else {
    for (std::string_view field : {"nodeName", "nodeSelector", "allNodes"}) {
      if (Present(m.Get(field))) {
        d.Error(m.Path(field),
                "Invalid value: `nodeName`, `nodeSelector` and `allNodes` can "
                "only be set if `perDeviceNodeSelection` is set to true in the "
                "ResourceSlice spec");
      }
    }
  }
  ReadBoundedList(d, m.Get("taints"), m.Path("taints"), kMaxTaintsPerDevice,
                  [&](const YAML::Node& item, const std::string& p) {
                    Map tm(d, item, p);
                    DeviceTaint taint;
                    taint.key = Required(d, tm, "key");
                    if (!taint.key.empty()) {
                      ReportInvalid(d, tm.Path("key"), taint.key, LabelKeyErrors(taint.key));
                    }
                    taint.value = ReadString(d, tm.Get("value"), tm.Path("value")).value_or("");
                    ReportInvalid(d, tm.Path("value"), taint.value, LabelValueErrors(taint.value));
                    if (!Present(tm.Get("effect"))) {
                      d.Error(tm.Path("effect"), "Required value");
                    } else if (auto e = ReadEnum<DeviceTaintEffect>(
                                   d, tm.Get("effect"), tm.Path("effect"), kTaintEffectNames)) {
                      taint.effect = *e;
                    }
                    taint.time_added = ReadTime(d, tm.Get("timeAdded"), tm.Path("timeAdded"));
                    device.taints.push_back(std::move(taint));
                  });
  return device;
}

DeviceToleration ReadDeviceToleration(Decoder& d, const YAML::Node& n, const std::string& path) {
  Map m(d, n, path);
  DeviceToleration t;
  t.key = ReadString(d, m.Get("key"), m.Path("key")).value_or("");
  if (!t.key.empty()) ReportInvalid(d, m.Path("key"), t.key, LabelKeyErrors(t.key));
  const std::string op = ReadString(d, m.Get("operator"), m.Path("operator")).value_or("Equal");
  if (op == "Exists") {
    t.op = DeviceTolerationOperator::kExists;
  } else if (op != "Equal") {
    d.Error(m.Path("operator"),
            fmt::format("Unsupported value: \"{}\": supported values: \"Equal\", \"Exists\"", op));
  }
  t.value = ReadString(d, m.Get("value"), m.Path("value")).value_or("");
  if (t.op == DeviceTolerationOperator::kExists && !t.value.empty()) {
    d.Error(m.Path("value"), fmt::format("Invalid value: \"{}\": must be empty for operator "
                                         "`Exists`",
                                         t.value));
  } else if (t.op == DeviceTolerationOperator::kEqual) {
    ReportInvalid(d, m.Path("value"), t.value, LabelValueErrors(t.value));
  }
  if (t.key.empty() && t.op != DeviceTolerationOperator::kExists) {
    d.Error(m.Path("operator"), fmt::format("Invalid value: \"{}\": value must be 'Exists' when "
                                            "`key` is empty, which means \"match all values and "
                                            "all keys\"",
                                            op));
  }
  if (auto e = ReadString(d, m.Get("effect"), m.Path("effect")); e && !e->empty()) {
    if (auto effect =
            ReadEnum<DeviceTaintEffect>(d, m.Get("effect"), m.Path("effect"), kTaintEffectNames)) {
      t.effect = *effect;
    }
  }
  t.toleration_seconds =
      ReadInt(d, m.Get("tolerationSeconds"), m.Path("tolerationSeconds"), INT64_MIN, INT64_MAX);
  return t;
}

// An exact request's or a subrequest's fields, read from `m` (the request's `exactly`, or the
// subrequest itself).
DeviceRequestSpec ReadRequestSpec(Decoder& d, Map& m, bool subrequest) {
  DeviceRequestSpec spec;
  RefuseAlpha(d, m, "capacity", "DRAConsumableCapacity");
  const std::string cls = Required(d, m, "deviceClassName");
  if (!cls.empty()) ReportInvalid(d, m.Path("deviceClassName"), cls, Dns1123SubdomainErrors(cls));
  spec.device_class_name = Symbol(cls);
  spec.selectors = ReadSelectors(d, m);
  if (auto mode = ReadEnum<DeviceAllocationMode>(d, m.Get("allocationMode"),
                                                 m.Path("allocationMode"), kAllocationModeNames)) {
    spec.allocation_mode = *mode;
  }
  const std::optional<int64_t> count =
      ReadInt(d, m.Get("count"), m.Path("count"), INT64_MIN, INT64_MAX);
  if (spec.allocation_mode == DeviceAllocationMode::kExactCount) {
    spec.count = count.value_or(1);
    if (spec.count <= 0) {
      d.Error(m.Path("count"),
              fmt::format("Invalid value: {}: must be greater than zero", spec.count));
    }
  } else if (count) {
    d.Error(m.Path("count"), fmt::format("Invalid value: {}: must not be specified when "
                                         "allocationMode is 'All'",
                                         *count));
  }
  if (subrequest) {
    if (Present(m.Get("adminAccess"))) {
      d.Error(m.Path("adminAccess"), "Forbidden: not supported in a subrequest");
    }
  } else {
    spec.admin_access = ReadBool(d, m.Get("adminAccess"), m.Path("adminAccess")).value_or(false);
  }
  ReadBoundedList(d, m.Get("tolerations"), m.Path("tolerations"), kMaxTolerations,
                  [&](const YAML::Node& item, const std::string& p) {
                    spec.tolerations.push_back(ReadDeviceToleration(d, item, p));
                  });
  return spec;
}

void ReportRequestName(Decoder& d, Map& m, std::string_view name) {
  if (name.empty()) return;
  ReportInvalid(d, m.Path("name"), name, Dns1123LabelErrors(name));
}

// The names in a constraint's or a config's `requests`: each a request of the claim, or
// "<request>/<subrequest>".
std::vector<Symbol> ReadRequestRefs(Decoder& d, Map& m,
                                    const std::vector<DeviceRequest>& requests) {
  std::vector<Symbol> out;
  ReadList(d, m.Get("requests"), m.Path("requests"),
           [&](const YAML::Node& item, const std::string& p) {
             const std::string ref = ReadString(d, item, p).value_or("");
             const size_t slash = ref.find('/');
             const std::string_view req = std::string_view(ref).substr(0, slash);
             auto it = std::find_if(requests.begin(), requests.end(),
                                    [&](const DeviceRequest& r) { return r.name.str() == req; });
             bool found = it != requests.end();
             if (found && slash != std::string::npos) {
               const std::string_view sub = std::string_view(ref).substr(slash + 1);
               found = std::any_of(it->first_available.begin(), it->first_available.end(),
                                   [&](const DeviceSubRequest& s) { return s.name.str() == sub; });
             }
             if (!found) {
               d.Error(p, fmt::format("Invalid value: \"{}\": must be the name of a request in "
                                      "the claim or the name of a request and a subrequest "
                                      "separated by '/'",
                                      ref));
             }
             if (std::find(out.begin(), out.end(), Symbol(ref)) != out.end()) {
               d.Error(p, fmt::format("Duplicate value: \"{}\"", ref));
             }
             out.emplace_back(ref);
           });
  return out;
}

ResourceClaimSpec ReadClaimSpecOf(Decoder& d, const YAML::Node& n, const std::string& path) {
  ResourceClaimSpec spec;
  Map m(d, n, path);
  YAML::Node devices = m.Get("devices");
  if (!Present(devices)) return spec;
  Map dm(d, devices, m.Path("devices"));
  ReadBoundedList(
      d, dm.Get("requests"), dm.Path("requests"), kMaxRequests,
      [&](const YAML::Node& item, const std::string& p) {
        Map rm(d, item, p);
        DeviceRequest request;
        const std::string name = Required(d, rm, "name");
        ReportRequestName(d, rm, name);
        request.name = Symbol(name);
        if (!name.empty() &&
            std::any_of(spec.requests.begin(), spec.requests.end(),
                        [&](const DeviceRequest& r) { return r.name == request.name; })) {
          d.Error(rm.Path("name"), fmt::format("Duplicate value: \"{}\"", name));
        }
        YAML::Node exactly = rm.Get("exactly");
        YAML::Node first = rm.Get("firstAvailable");
        if (Present(exactly) && Present(first)) {
          d.Error(p,
                  "Invalid value: exactly one of `exactly` or `firstAvailable` is required, "
                  "but multiple fields are set");
        } else if (!Present(exactly) && !Present(first)) {
          d.Error(p, "Required value: exactly one of `exactly` or `firstAvailable` is required");
        }
        if (Present(exactly)) {
          Map em(d, exactly, rm.Path("exactly"));
          request.exactly = ReadRequestSpec(d, em, false);
        }
        if (Present(first) && first.IsSequence() && first.size() == 0) {
          d.Error(rm.Path("firstAvailable"), "Required value");
        }
        ReadBoundedList(
            d, first, rm.Path("firstAvailable"), kMaxSubRequests,
            [&](const YAML::Node& s, const std::string& sp) {
              Map sm(d, s, sp);
              DeviceSubRequest sub;
              const std::string sub_name = Required(d, sm, "name");
              ReportRequestName(d, sm, sub_name);
              sub.name = Symbol(sub_name);
              if (!sub_name.empty() &&
                  std::any_of(request.first_available.begin(), request.first_available.end(),
                              [&](const DeviceSubRequest& o) { return o.name == sub.name; })) {
                d.Error(sm.Path("name"), fmt::format("Duplicate value: \"{}\"", sub_name));
              }
              sub.spec = ReadRequestSpec(d, sm, true);
              request.first_available.push_back(std::move(sub));
            });
        spec.requests.push_back(std::move(request));
      });
  ReadBoundedList(d, dm.Get("constraints"), dm.Path("constraints"), kMaxConstraints,
                  [&](const YAML::Node& item, const std::string& p) {
                    Map cm(d, item, p);
                    RefuseAlpha(d, cm, "distinctAttribute", "DRAConsumableCapacity");
                    DeviceConstraint c;
                    c.requests = ReadRequestRefs(d, cm, spec.requests);
                    const std::optional<std::string> attr =
                        ReadString(d, cm.Get("matchAttribute"), cm.Path("matchAttribute"));
                    if (!attr) {
                      if (!Present(cm.Get("distinctAttribute"))) {
                        d.Error(cm.Path("matchAttribute"), "Required value");
                      }
                    } else {
                      auto [domain, id] =
                          ReadQualifiedName(d, cm.Path("matchAttribute"), *attr, Symbol(), true);
                      c.domain = domain;
                      c.attribute = id;
                    }
                    spec.constraints.push_back(std::move(c));
                  });
  ReadBoundedList(d, dm.Get("config"), dm.Path("config"), kMaxConfigs,
                  [&](const YAML::Node& item, const std::string& p) {
                    Map cm(d, item, p);
                    DeviceClaimConfiguration c;
                    c.requests = ReadRequestRefs(d, cm, spec.requests);
                    c.opaque = ReadOpaque(d, cm);
                    spec.config.push_back(std::move(c));
                  });
  return spec;
}

AllocationResult ReadAllocation(Decoder& d, const YAML::Node& n, const std::string& path) {
  AllocationResult a;
  Map m(d, n, path, Fields::kUnchecked);
  if (YAML::Node devices = m.Get("devices"); Present(devices)) {
    Map dm(d, devices, m.Path("devices"), Fields::kUnchecked);
    ReadList(d, dm.Get("results"), dm.Path("results"),
             [&](const YAML::Node& item, const std::string& p) {
               Map rm(d, item, p, Fields::kUnchecked);
               DeviceRequestAllocationResult r;
               r.request = ReadString(d, rm.Get("request"), rm.Path("request")).value_or("");
               r.driver = Symbol(ReadString(d, rm.Get("driver"), rm.Path("driver")).value_or(""));
               r.pool = Symbol(ReadString(d, rm.Get("pool"), rm.Path("pool")).value_or(""));
               r.device = Symbol(ReadString(d, rm.Get("device"), rm.Path("device")).value_or(""));
               r.admin_access =
                   ReadBool(d, rm.Get("adminAccess"), rm.Path("adminAccess")).value_or(false);
               ReadList(d, rm.Get("tolerations"), rm.Path("tolerations"),
                        [&](const YAML::Node& t, const std::string& tp) {
                          r.tolerations.push_back(ReadDeviceToleration(d, t, tp));
                        });
               r.binding_conditions =
                   ReadStringList(d, rm.Get("bindingConditions"), rm.Path("bindingConditions"));
               r.binding_failure_conditions = ReadStringList(d, rm.Get("bindingFailureConditions"),
                                                             rm.Path("bindingFailureConditions"));
               a.devices.push_back(std::move(r));
             });
    ReadList(d, dm.Get("config"), dm.Path("config"),
             [&](const YAML::Node& item, const std::string& p) {
               Map cm(d, item, p, Fields::kUnchecked);
               DeviceAllocationConfiguration c;
               c.from_class = ReadString(d, cm.Get("source"), cm.Path("source")) == "FromClass";
               c.requests = ReadSymbolList(d, cm.Get("requests"), cm.Path("requests"));
               if (Present(cm.Get("opaque"))) c.opaque = ReadOpaque(d, cm);
               a.config.push_back(std::move(c));
             });
  }
  if (YAML::Node s = m.Get("nodeSelector"); Present(s)) {
    Map sm(d, s, m.Path("nodeSelector"), Fields::kUnchecked);
    NodeSelector selector;
    ReadList(d, sm.Get("nodeSelectorTerms"), sm.Path("nodeSelectorTerms"),
             [&](const YAML::Node& item, const std::string& p) {
               selector.terms.push_back(ReadNodeSelectorTerm(d, item, p));
             });
    a.node_selector = std::move(selector);
  }
  a.allocation_timestamp = ReadTime(d, m.Get("allocationTimestamp"), m.Path("allocationTimestamp"));
  return a;
}

}  // namespace

DeviceClass DecodeDeviceClass(Decoder& d, Map& m, const std::string&) {
  DeviceClass c;
  c.metadata = ReadObjectMeta<DeviceClass>(d, m);
  Map s(d, m.Get("spec"), "spec");
  c.spec.selectors = ReadSelectors(d, s);
  ReadBoundedList(d, s.Get("config"), s.Path("config"), kMaxConfigs,
                  [&](const YAML::Node& item, const std::string& p) {
                    Map cm(d, item, p);
                    c.spec.config.push_back(ReadOpaque(d, cm));
                  });
  if (auto name = ReadString(d, s.Get("extendedResourceName"), s.Path("extendedResourceName"))) {
    c.spec.extended_resource_name = *name;
    if (!IsExtendedResourceName(*name)) {
      d.Error(s.Path("extendedResourceName"),
              fmt::format("Invalid value: \"{}\": must be a valid extended resource name", *name));
    }
  }
  return c;
}

ResourceSlice DecodeResourceSlice(Decoder& d, Map& m, const std::string&) {
  ResourceSlice slice;
  slice.metadata = ReadObjectMeta<ResourceSlice>(d, m);
  Map s(d, m.Get("spec"), "spec");
  slice.spec.driver = ReadDriverName(d, s, "driver");
  {
    Map pm(d, s.Get("pool"), s.Path("pool"));
    if (!Present(s.Get("pool"))) d.Error(s.Path("pool"), "Required value");
    const std::string name = Required(d, pm, "name");
    if (name.size() > kMaxPoolNameLength) {
      TooLong(d, pm.Path("name"), kMaxPoolNameLength);
    } else if (!name.empty()) {
      size_t begin = 0;
      for (;;) {
        const size_t slash = name.find('/', begin);
        const std::string part = name.substr(begin, slash - begin);
        ReportInvalid(d, pm.Path("name"), name, Dns1123SubdomainErrors(part));
        if (slash == std::string::npos) break;
        begin = slash + 1;
      }
    }
    slice.spec.pool.name = Symbol(name);
    slice.spec.pool.generation =
        ReadInt(d, pm.Get("generation"), pm.Path("generation"), 0, INT64_MAX).value_or(0);
    slice.spec.pool.resource_slice_count =
        ReadInt(d, pm.Get("resourceSliceCount"), pm.Path("resourceSliceCount"), INT64_MIN,
                INT64_MAX)
            .value_or(0);
    if (slice.spec.pool.resource_slice_count <= 0) {
      d.Error(pm.Path("resourceSliceCount"),
              fmt::format("Invalid value: {}: must be greater than zero",
                          slice.spec.pool.resource_slice_count));
    }
  }
  slice.spec.nodes = ReadDeviceNodes(d, s, "spec", &slice.spec.per_device_node_selection);
  ReadBoundedList(d, s.Get("sharedCounters"), s.Path("sharedCounters"), kMaxSharedCounterSets,
                  [&](const YAML::Node& item, const std::string& p) {
                    Map cm(d, item, p);
                    CounterSet set;
                    const std::string name = Required(d, cm, "name");
                    if (!name.empty()) {
                      ReportInvalid(d, cm.Path("name"), name, Dns1123LabelErrors(name));
                    }
                    set.name = Symbol(name);
                    set.counters = ReadCounters(d, cm, kMaxCountersPerSet);
                    if (set.counters.empty()) d.Error(cm.Path("counters"), "Required value");
                    slice.spec.shared_counters.push_back(std::move(set));
                  });
  YAML::Node devices = s.Get("devices");
  if (Present(devices) && Present(s.Get("sharedCounters"))) {
    d.Error(s.Path("sharedCounters"),
            "Invalid value: only one of `sharedCounters` or `devices` is allowed");
  }
  ReadList(d, devices, s.Path("devices"), [&](const YAML::Node& item, const std::string& p) {
    slice.spec.devices.push_back(
        ReadDevice(d, item, p, slice.spec.driver, slice.spec.per_device_node_selection));
    const Symbol name = slice.spec.devices.back().name;
    if (!name.empty() && std::count_if(slice.spec.devices.begin(), slice.spec.devices.end(),
                                       [&](const Device& o) { return o.name == name; }) > 1) {
      d.Error(Join(p, "name"), fmt::format("Duplicate value: \"{}\"", name.str()));
    }
  });
  const bool taints_or_counters = std::any_of(
      slice.spec.devices.begin(), slice.spec.devices.end(),
      [](const Device& dev) { return !dev.taints.empty() || !dev.consumes_counters.empty(); });
  const size_t max = taints_or_counters ? kMaxDevicesWithTaintsOrCounters : kMaxDevices;
  if (slice.spec.devices.size() > max) {
    TooMany(d, s.Path("devices"), slice.spec.devices.size(), max);
  }
  return slice;
}

ResourceClaim DecodeResourceClaim(Decoder& d, Map& m, const std::string&) {
  ResourceClaim claim;
  claim.metadata = ReadObjectMeta<ResourceClaim>(d, m);
  claim.spec = ReadClaimSpecOf(d, m.Get("spec"), "spec");
  Map st(d, m.Get("status"), "status", Fields::kUnchecked);
  if (YAML::Node a = st.Get("allocation"); Present(a)) {
    claim.status.allocation = ReadAllocation(d, a, st.Path("allocation"));
  }
  ReadList(d, st.Get("reservedFor"), st.Path("reservedFor"),
           [&](const YAML::Node& item, const std::string& p) {
             Map rm(d, item, p, Fields::kUnchecked);
             ResourceClaimConsumerReference r;
             r.api_group = ReadString(d, rm.Get("apiGroup"), rm.Path("apiGroup")).value_or("");
             r.resource = ReadString(d, rm.Get("resource"), rm.Path("resource")).value_or("");
             r.name = ReadString(d, rm.Get("name"), rm.Path("name")).value_or("");
             r.uid = ReadString(d, rm.Get("uid"), rm.Path("uid")).value_or("");
             claim.status.reserved_for.push_back(std::move(r));
           });
  // What drivers report of the devices (written by them, not validated here).
  ReadList(
      d, st.Get("devices"), st.Path("devices"), [&](const YAML::Node& item, const std::string& p) {
        Map dm(d, item, p, Fields::kUnchecked);
        AllocatedDeviceStatus status;
        status.driver = Symbol(ReadString(d, dm.Get("driver"), dm.Path("driver")).value_or(""));
        status.pool = Symbol(ReadString(d, dm.Get("pool"), dm.Path("pool")).value_or(""));
        status.device = Symbol(ReadString(d, dm.Get("device"), dm.Path("device")).value_or(""));
        status.share_id = ReadString(d, dm.Get("shareID"), dm.Path("shareID"));
        ReadList(d, dm.Get("conditions"), dm.Path("conditions"),
                 [&](const YAML::Node& c, const std::string& cp) {
                   status.conditions.push_back(ReadCondition(d, c, cp));
                 });
        claim.status.devices.push_back(std::move(status));
      });
  if (claim.status.reserved_for.size() > kReservedForMaxSize) {
    TooMany(d, st.Path("reservedFor"), claim.status.reserved_for.size(), kReservedForMaxSize);
  }
  if (!claim.status.reserved_for.empty() && !claim.status.allocation) {
    d.Error(st.Path("reservedFor"), "Forbidden: may not be specified when `allocated` is not set");
  }
  return claim;
}

ResourceClaimTemplate DecodeResourceClaimTemplate(Decoder& d, Map& m, const std::string&) {
  ResourceClaimTemplate t;
  t.metadata = ReadObjectMeta<ResourceClaimTemplate>(d, m);
  Map s(d, m.Get("spec"), "spec");
  if (YAML::Node meta = s.Get("metadata"); Present(meta)) {
    t.spec.metadata = ReadMeta(d, meta, s.Path("metadata"), false, false);
  }
  t.spec.spec = ReadClaimSpecOf(d, s.Get("spec"), s.Path("spec"));
  return t;
}

}  // namespace muster::api::decoding
