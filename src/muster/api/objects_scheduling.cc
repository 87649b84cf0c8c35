// The scheduling kinds: PodGroup (scheduler-plugins' CRD, both its API groups), Kubernetes' own
// gang API (scheduling.k8s.io Workload and PodGroup, in each version) and PriorityClass.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/decoder.h"
#include "muster/api/feature_gates.h"
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

// policy (v1alpha1) or schedulingPolicy: exactly one of basic and gang, worded as 1.35's
// handwritten validation (v1alpha1) or the declarative validation of 1.36 and later.
// A composite group's gang counts groups: its field is minGroupCount.
void ReadSchedulingPolicy(Decoder& d, const YAML::Node& n, const std::string& path, bool v1alpha1,
                          PodGroupPolicy& policy, std::string_view min_field = "minCount") {
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
  const int64_t min_count = ReadInt(d, g.Get(min_field), g.Path(min_field)).value_or(0);
  if (v1alpha1 && min_count <= 0) {
    d.Error(g.Path(min_field),
            fmt::format("Invalid value: {}: must be greater than zero", min_count));
  } else if (min_count == 0) {
    d.Error(g.Path(min_field), "Required value");  // +k8s:required: zero is missing
  } else if (min_count < 0) {
    d.Error(g.Path(min_field),
            fmt::format("Invalid value: {}: must be greater than or equal to 1", min_count));
  }
  policy.min_count = static_cast<int32_t>(std::clamp<int64_t>(min_count, 1, INT32_MAX));
}

// The fields a v1alpha2 or later template and PodGroup share beyond their policy.
// `composite`: a CompositePodGroup's or its template's, which count groups and share no claims.
void ReadGroupScheduling(Decoder& d, Map& m, const std::string& api_version, PodGroupPolicy& policy,
                         bool composite = false) {
  ReadSchedulingPolicy(d, m.Get("schedulingPolicy"), m.Path("schedulingPolicy"),
                       /*v1alpha1=*/false, policy, composite ? "minGroupCount" : "minCount");
  // A topology constraint (KEP-5732) is the TopologyAwareWorkloadScheduling feature's: alpha and
  // off by default in 1.37, when the API server drops the field and kube-scheduler passes over
  // it.
  if (Present(m.Get("schedulingConstraints")) &&
      !Features().Enabled(Feature::kTopologyAwareWorkloadScheduling)) {
    d.Warn(m.Path("schedulingConstraints"),
           d.Served() ? "passed over, as kube-scheduler passes over it while the "
                        "TopologyAwareWorkloadScheduling feature gate is off (alpha in 1.37: "
                        "--feature-gates TopologyAwareWorkloadScheduling=true)"
                      : "dropped, as the API server drops it while the "
                        "TopologyAwareWorkloadScheduling feature gate is off (alpha in 1.37: "
                        "--feature-gates TopologyAwareWorkloadScheduling=true)");
  } else {
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
  if (!composite && Present(m.Get("resourceClaims"))) {
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

// A Workload's compositePodGroupTemplates, with the rules 1.37's API server checks across the
// tree: at most 8 templates in a list, names unique in the whole tree, a composite with at least
// one child, no deeper than 4 levels, one priority for every template. Whether any was given.
bool ReadCompositeTemplates(Decoder& d, Map& spec, const std::string& api_version, Workload& w) {
  constexpr int kMaxDepth = 4;  // WorkloadMaxTreeDepth
  std::set<std::string> names;
  std::optional<std::pair<std::string, std::optional<int32_t>>> priority;
  bool mixed_priorities = false;
  auto check_common = [&](const std::string& path, const std::string& name,
                          const PodGroupPolicy& policy) {
    if (!name.empty() && !names.insert(name).second) {
      d.Error(path + ".name", fmt::format("Duplicate value: \"{}\"", name));
    }
    const std::pair<std::string, std::optional<int32_t>> p{policy.priority_class_name,
                                                           policy.priority};
    if (!priority) {
      priority = p;
    } else if (*priority != p) {
      mixed_priorities = true;
    }
  };
  auto check_size = [&](const YAML::Node& list, const std::string& path) {
    if (list.IsSequence() && list.size() > kMaxPodGroups) {
      d.Error(path,
              fmt::format("Too many: {}: must have at most {} items", list.size(), kMaxPodGroups));
    }
  };
  std::function<void(Map&, std::string_view, int, std::vector<CompositePodGroupTemplate>&)>
      read_composites = [&](Map& parent, std::string_view field, int depth,
                            std::vector<CompositePodGroupTemplate>& out) {
        check_size(parent.Get(field), parent.Path(field));
        ReadList(d, parent.Get(field), parent.Path(field),
                 [&](const YAML::Node& item, const std::string& p) {
                   Map c(d, item, p);
                   CompositePodGroupTemplate t;
                   t.name = ReadString(d, c.Get("name"), c.Path("name")).value_or("");
                   CheckLabelName(d, c.Path("name"), t.name);
                   ReadGroupScheduling(d, c, api_version, t.policy, /*composite=*/true);
                   check_common(p, t.name, t.policy);
                   if (depth == kMaxDepth) {
                     d.Error(p, fmt::format("Invalid value: \"{}\": maximum template hierarchy "
                                            "depth is {}",
                                            t.name, kMaxDepth));
                   }
                   check_size(c.Get("podGroupTemplates"), c.Path("podGroupTemplates"));
                   ReadList(d, c.Get("podGroupTemplates"), c.Path("podGroupTemplates"),
                            [&](const YAML::Node& leaf, const std::string& lp) {
                              Map g(d, leaf, lp);
                              PodGroupTemplate pt;
                              pt.name = ReadString(d, g.Get("name"), g.Path("name")).value_or("");
                              CheckLabelName(d, g.Path("name"), pt.name);
                              ReadGroupScheduling(d, g, api_version, pt.policy);
                              check_common(lp, pt.name, pt.policy);
                              t.pod_groups.push_back(std::move(pt));
                            });
                   read_composites(c, "compositePodGroupTemplates", depth + 1, t.composites);
                   if (t.pod_groups.empty() && t.composites.empty()) {
                     d.Error(p, fmt::format("Invalid value: \"{}\": must have at least one child "
                                            "PodGroupTemplate or CompositePodGroupTemplate",
                                            t.name));
                   }
                   out.push_back(std::move(t));
                 });
      };
  read_composites(spec, "compositePodGroupTemplates", 1, w.composites);
  if (mixed_priorities) {
    d.Error("spec", "Invalid value: null: detected multiple priority configurations");
  }
  return !w.composites.empty();
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
  const YAML::Node groups = s.Get(list);
  const bool has_groups = Present(groups) && !(groups.IsSequence() && groups.size() == 0);
  bool has_composites = false;
  if (!v1alpha1 && api_version != kV1alpha2 && Present(s.Get("compositePodGroupTemplates"))) {
    if (!Features().Enabled(Feature::kCompositePodGroup)) {
      // A server with the gate on stored it; kube-scheduler with the gate off passes over it.
      if (d.Served()) {
        d.Warn(s.Path("compositePodGroupTemplates"),
               "passed over, as kube-scheduler passes over it while the CompositePodGroup "
               "feature gate is off");
      } else {
        d.Error(s.Path("compositePodGroupTemplates"),
                "Forbidden: the CompositePodGroup feature gate is off (alpha in 1.37: "
                "--feature-gates CompositePodGroup=true,TopologyAwareWorkloadScheduling=true)");
      }
      has_composites = true;
    } else {
      has_composites = ReadCompositeTemplates(d, s, api_version, w);
    }
  }
  if (has_groups && has_composites) {
    d.Error("spec",
            "Invalid value: \"{podGroupTemplates, compositePodGroupTemplates}\": must specify "
            "exactly one of: `podGroupTemplates`, `compositePodGroupTemplates`");
  } else if (!has_groups && !has_composites) {
    if (v1alpha1) {
      d.Error(s.Path(list), "Required value: must have at least one item");
    } else if (api_version == kV1alpha2) {
      d.Error(s.Path(list), "Required value");
    } else {
      d.Error("spec",
              "Invalid value: \"\": must specify one of: `podGroupTemplates`, "
              "`compositePodGroupTemplates`");
    }
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

// parentCompositePodGroupName (1.37, behind the CompositePodGroup feature gate, which the API
// server drops it without): a CompositePodGroup's name, given only with a workloadRef.
Symbol ReadParent(Decoder& d, Map& spec, bool has_workload_ref) {
  const YAML::Node n = spec.Get("parentCompositePodGroupName");
  if (!Present(n)) return {};
  const std::string path = spec.Path("parentCompositePodGroupName");
  if (!Features().Enabled(Feature::kCompositePodGroup)) {
    d.Warn(path, d.Served()
                     ? "passed over, as kube-scheduler passes over it while the "
                       "CompositePodGroup feature gate is off: the group is scheduled as a root"
                     : "dropped, as the API server drops it while the CompositePodGroup feature "
                       "gate is off (alpha in 1.37: --feature-gates "
                       "CompositePodGroup=true,TopologyAwareWorkloadScheduling=true)");
    return {};
  }
  const std::string name = ReadString(d, n, path).value_or("");
  ReportInvalid(d, path, name, Dns1123SubdomainErrors(name));
  if (!has_workload_ref) {
    d.Error(spec.Path("workloadRef"),
            "Required value: must be specified when `parentCompositePodGroupName` is specified");
  }
  return Symbol(name);
}

CompositePodGroup ReadCompositePodGroup(Decoder& d, Map& m, const std::string& api_version) {
  CompositePodGroup cpg;
  cpg.api_version = api_version;
  cpg.metadata = ReadObjectMeta<CompositePodGroup>(d, m);
  if (!Features().Enabled(Feature::kCompositePodGroup) && !d.Served()) {
    d.Error("",
            "the API server does not serve CompositePodGroups while the CompositePodGroup "
            "feature gate is off (alpha in 1.37: --feature-gates "
            "CompositePodGroup=true,TopologyAwareWorkloadScheduling=true)");
  }
  Map s(d, m.Get("spec"), "spec");
  if (YAML::Node w = s.Get("workloadRef"); Present(w)) {
    Map r(d, w, s.Path("workloadRef"));
    cpg.spec.workload_name =
        ReadString(d, r.Get("workloadName"), r.Path("workloadName")).value_or("");
    cpg.spec.template_name =
        ReadString(d, r.Get("templateName"), r.Path("templateName")).value_or("");
    if (cpg.spec.workload_name.empty()) d.Error(r.Path("workloadName"), "Required value");
    CheckLabelName(d, r.Path("templateName"), cpg.spec.template_name);
  } else {
    d.Error(s.Path("workloadRef"), "Required value");
  }
  if (YAML::Node n = s.Get("parentCompositePodGroupName"); Present(n)) {
    const std::string name = ReadString(d, n, s.Path("parentCompositePodGroupName")).value_or("");
    ReportInvalid(d, s.Path("parentCompositePodGroupName"), name, Dns1123SubdomainErrors(name));
    cpg.spec.parent = Symbol(name);
  }
  ReadGroupScheduling(d, s, api_version, cpg.spec.policy, /*composite=*/true);
  Map st(d, m.Get("status"), "status");
  ReadList(d, st.Get("conditions"), st.Path("conditions"),
           [&](const YAML::Node& item, const std::string& p) {
             cpg.status.conditions.push_back(ReadCondition(d, item, p));
           });
  return cpg;
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
    if (YAML::Node w = s.Get("workloadRef"); Present(w)) {
      Map r(d, w, s.Path("workloadRef"));
      read_ref(r, "templateName");
    }
    pg.spec.parent = ReadParent(d, s, !pg.spec.workload_name.empty());
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
CompositePodGroup DecodeCompositePodGroup(Decoder& d, Map& m, const std::string& api_version) {
  return ReadCompositePodGroup(d, m, api_version);
}
PriorityClass DecodePriorityClass(Decoder& d, Map& m, const std::string&) {
  return ReadPriorityClass(d, m);
}

}  // namespace muster::api::decoding
