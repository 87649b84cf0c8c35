// The scheduling kinds: PodGroup (scheduler-plugins' CRD, both its API groups), Kubernetes' own
// gang API (scheduling.k8s.io Workload and PodGroup, in each version) and PriorityClass.

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "muster/api/decoder.h"
#include "muster/api/kinds.h"
#include "muster/api/labels.h"
#include "muster/api/object_decoding.h"
#include "muster/api/priority.h"

namespace muster::api::decoding {
namespace {

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

// ---- scheduling.k8s.io Workload and PodGroup ----

constexpr std::string_view kV1alpha1 = "scheduling.k8s.io/v1alpha1";
constexpr std::string_view kV1alpha2 = "scheduling.k8s.io/v1alpha2";
constexpr int kMaxPodGroups = 8;  // WorkloadMaxPodGroups

// A name that must be a DNS label (a pod group template's), Required when empty.
void CheckLabelName(Decoder& d, const std::string& path, std::string_view name) {
  if (name.empty()) {
    d.Error(path, "Required value");
    return;
  }
  ReportInvalid(d, path, name, Dns1123LabelErrors(name));
}

// What muster does not model yet in the gang API: refused, not ignored.
void RefuseUnmodelled(Decoder& d, Map& m, std::string_view field, std::string_view what) {
  if (Present(m.Get(field)) && !d.Served()) {
    d.Error(m.Path(field), fmt::format("Forbidden: muster does not model {} yet", what));
  }
}

// policy (v1alpha1) or schedulingPolicy: exactly one of basic and gang, worded as 1.35's
// handwritten validation (v1alpha1) or the declarative validation of 1.36 and later.
void ReadSchedulingPolicy(Decoder& d, const YAML::Node& n, const std::string& path, bool v1alpha1,
                          PodGroupPolicy& policy) {
  Map m(d, n, path);
  const bool basic = Present(m.Get("basic"));
  if (basic) Map(d, m.Get("basic"), m.Path("basic"));
  const bool gang = Present(m.Get("gang"));
  if (!basic && !gang) {
    if (v1alpha1) {
      d.Error(path, "Required value: exactly one of `basic`, `gang` is required");
    } else if (!Present(n)) {
      d.Error(path, "Required value");
    } else {
      d.Error(path, "Invalid value: \"\": must specify one of: `basic`, `gang`");
    }
  } else if (basic && gang) {
    d.Error(path, v1alpha1 ? "Invalid value: \"{`basic`, `gang`}\": exactly one of `basic`, "
                             "`gang` is required, but multiple fields are set"
                           : "Invalid value: \"{`basic`, `gang`}\": must specify exactly one "
                             "of: `basic`, `gang`");
  }
  if (!gang) return;
  Map g(d, m.Get("gang"), m.Path("gang"));
  const int64_t min_count = ReadInt(d, g.Get("minCount"), g.Path("minCount")).value_or(0);
  if (v1alpha1 && min_count <= 0) {
    d.Error(g.Path("minCount"),
            fmt::format("Invalid value: {}: must be greater than zero", min_count));
  } else if (min_count == 0) {
    d.Error(g.Path("minCount"), "Required value");  // +k8s:required: zero is missing
  } else if (min_count < 0) {
    d.Error(g.Path("minCount"),
            fmt::format("Invalid value: {}: must be greater than or equal to 1", min_count));
  }
  policy.min_count = static_cast<int32_t>(std::clamp<int64_t>(min_count, 1, INT32_MAX));
}

// The fields a v1alpha2 or later template and PodGroup share beyond their policy.
void ReadGroupScheduling(Decoder& d, Map& m, const std::string& api_version,
                         PodGroupPolicy& policy) {
  ReadSchedulingPolicy(d, m.Get("schedulingPolicy"), m.Path("schedulingPolicy"),
                       /*v1alpha1=*/false, policy);
  {
    Map c(d, m.Get("schedulingConstraints"), m.Path("schedulingConstraints"));
    if (const YAML::Node t = c.Get("topology"); t.IsSequence() && t.size() > 1) {
      d.Error(c.Path("topology"), fmt::format("Too many: {}: must have at most 1 item", t.size()));
    }
    ReadList(d, c.Get("topology"), c.Path("topology"),
             [&](const YAML::Node& item, const std::string& p) {
               Map t(d, item, p);
               const std::string key = ReadString(d, t.Get("key"), t.Path("key")).value_or("");
               if (key.empty()) {
                 d.Error(t.Path("key"), "Required value");
               } else {
                 ReportInvalid(d, t.Path("key"), key, LabelKeyErrors(key));
               }
               const Symbol k(key);
               if (std::find(policy.topology_keys.begin(), policy.topology_keys.end(), k) !=
                   policy.topology_keys.end()) {
                 d.Error(t.Path("key"), fmt::format("Duplicate value: \"{}\"", key));
               }
               policy.topology_keys.push_back(k);
             });
  }
  // A pod group's claims, shared by its members (KEP-5729, DRAWorkloadResourceClaims: beta and
  // off by default in 1.37, which muster keeps). The API server drops them with the gate off:
  // each member's own resourceClaims entry then gets a claim of its own, as muster simulates.
  if (Present(m.Get("resourceClaims"))) {
    d.Warn(m.Path("resourceClaims"),
           d.Served() ? "muster does not model a pod group's ResourceClaims (the "
                        "DRAWorkloadResourceClaims feature) yet: members that use them wait"
                      : "dropped, as the API server drops it while the DRAWorkloadResourceClaims "
                        "feature gate is off");
  }
  if (YAML::Node mode = m.Get("disruptionMode"); Present(mode)) {
    if (api_version == kV1alpha2) {
      const std::string s = ReadString(d, mode, m.Path("disruptionMode")).value_or("");
      if (s == "Pod") {
        policy.disruption_mode = DisruptionMode::kPod;
      } else if (s == "PodGroup") {
        policy.disruption_mode = DisruptionMode::kPodGroup;
      } else {
        d.Error(
            m.Path("disruptionMode"),
            fmt::format("Unsupported value: \"{}\": supported values: \"Pod\", \"PodGroup\"", s));
      }
    } else {
      Map dm(d, mode, m.Path("disruptionMode"));
      const bool single = Present(dm.Get("single"));
      const bool all = Present(dm.Get("all"));
      if (single) Map(d, dm.Get("single"), dm.Path("single"));
      if (all) Map(d, dm.Get("all"), dm.Path("all"));
      if (single == all) {
        d.Error(m.Path("disruptionMode"),
                single ? "Invalid value: \"{single, all}\": must specify exactly one of: "
                         "`single`, `all`"
                       : "Invalid value: \"\": must specify one of: `single`, `all`");
      }
      policy.disruption_mode = all ? DisruptionMode::kPodGroup : DisruptionMode::kPod;
    }
  }
  policy.priority_class_name =
      ReadString(d, m.Get("priorityClassName"), m.Path("priorityClassName")).value_or("");
  if (auto p = ReadInt(d, m.Get("priority"), m.Path("priority"))) {
    if (*p > kHighestUserDefinablePriority || *p < INT32_MIN) {
      d.Error(m.Path("priority"), fmt::format("Invalid value: {}: must be less than or equal to {}",
                                              *p, kHighestUserDefinablePriority));
    }
    policy.priority = static_cast<int32_t>(std::clamp<int64_t>(*p, INT32_MIN, INT32_MAX));
  }
  // The API server's priority admission resolves priorityClassName into priority; muster's
  // simulation does it for pods only. (A PodGroup's priority is the gang's in preemption.)
  if (!policy.priority && !policy.priority_class_name.empty() && !d.Served()) {
    d.Warn(m.Path("priorityClassName"),
           "muster does not resolve a PodGroup's priority class: the gang preempts, and is "
           "preempted, with its pods' own priorities; set priority as well");
  }
  if (api_version != kV1alpha2) {
    if (auto s = ReadString(d, m.Get("preemptionPolicy"), m.Path("preemptionPolicy"))) {
      if (*s == "PreemptLowerPriority") {
        policy.preemption_policy = PreemptionPolicy::kPreemptLowerPriority;
      } else if (*s == "Never") {
        policy.preemption_policy = PreemptionPolicy::kNever;
      } else {
        d.Error(m.Path("preemptionPolicy"),
                fmt::format("Unsupported value: \"{}\": supported values: \"Never\", "
                            "\"PreemptLowerPriority\"",
                            *s));
      }
    }
  }
}

Workload ReadWorkload(Decoder& d, Map& m, const std::string& api_version) {
  Workload w;
  w.api_version = api_version;
  w.metadata = ReadObjectMeta<Workload>(d, m);
  Map s(d, m.Get("spec"), "spec");
  if (YAML::Node ref = s.Get("controllerRef"); Present(ref)) {
    Map r(d, ref, s.Path("controllerRef"));
    Workload::ControllerRef c;
    c.api_group = ReadString(d, r.Get("apiGroup"), r.Path("apiGroup")).value_or("");
    c.kind = ReadString(d, r.Get("kind"), r.Path("kind")).value_or("");
    c.name = ReadString(d, r.Get("name"), r.Path("name")).value_or("");
    if (c.kind.empty()) d.Error(r.Path("kind"), "Required value");
    if (c.name.empty()) d.Error(r.Path("name"), "Required value");
    w.controller_ref = std::move(c);
  }
  const bool v1alpha1 = api_version == kV1alpha1;
  const std::string_view list = v1alpha1 ? "podGroups" : "podGroupTemplates";
  if (!v1alpha1) RefuseUnmodelled(d, s, "compositePodGroupTemplates", "composite pod groups");
  const YAML::Node groups = s.Get(list);
  if (!Present(groups) || (groups.IsSequence() && groups.size() == 0)) {
    d.Error(s.Path(list),
            v1alpha1 ? "Required value: must have at least one item" : "Required value");
  } else if (groups.IsSequence() && groups.size() > kMaxPodGroups) {
    d.Error(s.Path(list),
            fmt::format("Too many: {}: must have at most {} items", groups.size(), kMaxPodGroups));
  }
  ReadList(d, groups, s.Path(list), [&](const YAML::Node& item, const std::string& p) {
    Map g(d, item, p);
    PodGroupTemplate t;
    t.name = ReadString(d, g.Get("name"), g.Path("name")).value_or("");
    CheckLabelName(d, g.Path("name"), t.name);
    if (!t.name.empty() && w.Group(t.name) != nullptr) {
      // 1.35 names the field; the listMap check of 1.36 and later the item.
      d.Error(v1alpha1 ? g.Path("name") : p, fmt::format("Duplicate value: \"{}\"", t.name));
    }
    if (v1alpha1) {
      ReadSchedulingPolicy(d, g.Get("policy"), g.Path("policy"), /*v1alpha1=*/true, t.policy);
    } else {
      ReadGroupScheduling(d, g, api_version, t.policy);
    }
    w.pod_groups.push_back(std::move(t));
  });
  return w;
}

SchedulingPodGroup ReadSchedulingPodGroup(Decoder& d, Map& m, const std::string& api_version) {
  SchedulingPodGroup pg;
  pg.api_version = api_version;
  pg.metadata = ReadObjectMeta<SchedulingPodGroup>(d, m);
  Map s(d, m.Get("spec"), "spec");
  // The template it was made from: v1alpha2's podGroupTemplateRef.workload, later versions'
  // workloadRef, each naming the workload and its template.
  auto read_ref = [&](Map& r, std::string_view template_field) {
    pg.spec.workload_name =
        ReadString(d, r.Get("workloadName"), r.Path("workloadName")).value_or("");
    pg.spec.template_name =
        ReadString(d, r.Get(template_field), r.Path(template_field)).value_or("");
    if (pg.spec.workload_name.empty()) d.Error(r.Path("workloadName"), "Required value");
    CheckLabelName(d, r.Path(template_field), pg.spec.template_name);
  };
  if (api_version == kV1alpha2) {
    Map ref(d, s.Get("podGroupTemplateRef"), s.Path("podGroupTemplateRef"));
    if (YAML::Node w = ref.Get("workload"); Present(w)) {
      Map r(d, w, ref.Path("workload"));
      read_ref(r, "podGroupTemplateName");
    }
  } else {
    RefuseUnmodelled(d, s, "parentCompositePodGroupName", "composite pod groups");
    if (YAML::Node w = s.Get("workloadRef"); Present(w)) {
      Map r(d, w, s.Path("workloadRef"));
      read_ref(r, "templateName");
    }
  }
  ReadGroupScheduling(d, s, api_version, pg.spec.policy);
  Map st(d, m.Get("status"), "status");
  st.Known({"resourceClaimStatuses"});
  ReadList(d, st.Get("conditions"), st.Path("conditions"),
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

}  // namespace

PodGroup DecodePodGroup(Decoder& d, Map& m, const std::string& api_version) {
  return ReadPodGroup(d, m, api_version);
}
Workload DecodeWorkload(Decoder& d, Map& m, const std::string& api_version) {
  return ReadWorkload(d, m, api_version);
}
SchedulingPodGroup DecodeSchedulingPodGroup(Decoder& d, Map& m, const std::string& api_version) {
  return ReadSchedulingPodGroup(d, m, api_version);
}
PriorityClass DecodePriorityClass(Decoder& d, Map& m, const std::string&) {
  return ReadPriorityClass(d, m);
}

}  // namespace muster::api::decoding
