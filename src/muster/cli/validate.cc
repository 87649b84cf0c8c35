#include "muster/cli/validate.h"

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "muster/api/gang.h"
#include "muster/api/kinds.h"
#include "muster/api/manifests.h"
#include "muster/api/pod_resources.h"
#include "muster/api/priority.h"
#include "muster/cli/config_file.h"
#include "muster/host/host.h"
#include "muster/plugins/registry.h"

namespace muster::cli {
namespace {

using api::Manifests;
using api::ObjectEntry;

std::string FormatResources(const api::ResourceList& list) {
  std::string out;
  for (const auto& [name, q] : list) {
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", name.str(), q.String());
  }
  return out.empty() ? "none" : out;
}

// `priority` as admission resolved it.
std::string PodFacts(const api::Pod& pod, const std::string& priority) {
  std::string facts = fmt::format("requests {} priority {}",
                                  FormatResources(api::PodRequests(pod).ToList()), priority);
  if (!pod.spec.node_name.empty()) facts += fmt::format(" node {}", pod.spec.node_name.str());
  if (const api::GangRef gang = api::GangOf(pod); !gang.empty()) {
    facts += fmt::format(" podGroup {}", gang.name.str());
  }
  if (!pod.spec.scheduling_gates.empty()) {
    facts += fmt::format(" gates {}", pod.spec.scheduling_gates.size());
  }
  std::string claims;
  for (const api::Volume& v : pod.spec.volumes) {
    if (v.claim_name) claims += (claims.empty() ? "" : ",") + v.claim_name->string();
    if (v.ephemeral) claims += (claims.empty() ? "" : ",") + pod.metadata.name + "-" + v.name;
  }
  if (!claims.empty()) facts += " claims " + claims;
  return facts;
}

// The template's pod as admission will make each pod of it: the priority its class resolves to,
// or the class that does not exist (LoadManifests warned of it).
std::string TemplateFacts(const api::PodTemplateSpec& t, const api::PriorityResolver& priorities) {
  api::Pod pod;
  pod.spec = t.spec;
  pod.metadata.labels = t.metadata.labels;
  const std::string refused = priorities.Admit(pod);
  return "pod " + PodFacts(pod, refused.empty() ? std::to_string(pod.Priority())
                                                : "unresolved (" + refused + ")");
}

// One line of `validate`'s listing: the object's name and its key facts. A kind with facts worth
// listing has a Describe of its own; any other is listed by name (the template below).
struct Listing {
  std::string name;
  std::string facts;
};

Listing Describe(const api::Node& n) {
  std::string facts = "allocatable " + FormatResources(n.status.allocatable);
  if (!n.spec.taints.empty()) facts += fmt::format(" taints {}", n.spec.taints.size());
  if (n.spec.unschedulable) facts += " unschedulable";
  return {n.metadata.Key(), facts};
}

Listing Describe(const api::Pod& p) {
  return {p.metadata.Key(), PodFacts(p, std::to_string(p.Priority()))};
}

Listing Describe(const api::PodGroup& pg) {
  std::string facts = fmt::format("minMember {}", pg.spec.min_member);
  if (pg.spec.schedule_timeout_seconds) {
    facts += fmt::format(" scheduleTimeoutSeconds {}", *pg.spec.schedule_timeout_seconds);
  }
  if (!pg.spec.min_resources.empty()) {
    facts += " minResources " + FormatResources(pg.spec.min_resources);
  }
  return {pg.metadata.Key(), facts};
}

// A gang API's policy: "gang minCount 4" (a composite group's "gang minGroupCount 2") or
// "basic", and its topology constraint.
std::string PolicyFacts(const api::PodGroupPolicy& policy, std::string_view quorum = "minCount") {
  std::string facts =
      policy.gang() ? fmt::format("gang {} {}", quorum, *policy.min_count) : std::string("basic");
  for (api::Symbol key : policy.topology_keys) facts += fmt::format(" topology {}", key.str());
  if (policy.disruption_mode == api::DisruptionMode::kPodGroup) facts += " disruption all";
  if (!policy.priority_class_name.empty()) {
    facts += fmt::format(" priorityClassName {}", policy.priority_class_name);
  }
  return facts;
}

// A composite template and its children: "serve: gang minGroupCount 2 (prefill: gang minCount
// 2, decode: basic)".
std::string CompositeFacts(const api::CompositePodGroupTemplate& t) {
  std::vector<std::string> children;
  for (const api::PodGroupTemplate& g : t.pod_groups) {
    children.push_back(fmt::format("{}: {}", g.name, PolicyFacts(g.policy)));
  }
  for (const api::CompositePodGroupTemplate& c : t.composites)
    children.push_back(CompositeFacts(c));
  return fmt::format("{}: {} ({})", t.name, PolicyFacts(t.policy, "minGroupCount"),
                     fmt::join(children, ", "));
}

Listing Describe(const api::Workload& w) {
  std::string facts = w.api_version.substr(w.api_version.find('/') + 1);
  for (const api::PodGroupTemplate& g : w.pod_groups) {
    facts += fmt::format("{} {}: {}", facts.empty() ? "" : ";", g.name, PolicyFacts(g.policy));
  }
  for (const api::CompositePodGroupTemplate& c : w.composites) {
    facts += fmt::format("{} {}", facts.empty() ? "" : ";", CompositeFacts(c));
  }
  return {w.metadata.Key(), facts};
}

Listing Describe(const api::CompositePodGroup& c) {
  std::string facts = c.api_version.substr(c.api_version.find('/') + 1) + " " +
                      PolicyFacts(c.spec.policy, "minGroupCount");
  if (!c.spec.parent.empty()) facts += fmt::format(" parent {}", c.spec.parent.str());
  facts += fmt::format(" from {}/{}", c.spec.workload_name, c.spec.template_name);
  return {c.metadata.Key(), facts};
}

Listing Describe(const api::SchedulingPodGroup& pg) {
  std::string facts =
      pg.api_version.substr(pg.api_version.find('/') + 1) + " " + PolicyFacts(pg.spec.policy);
  if (!pg.spec.parent.empty()) facts += fmt::format(" parent {}", pg.spec.parent.str());
  if (!pg.spec.workload_name.empty()) {
    facts += fmt::format(" from {}/{}", pg.spec.workload_name, pg.spec.template_name);
  }
  return {pg.metadata.Key(), facts};
}

Listing Describe(const api::PriorityClass& pc) {
  return {pc.metadata.Key(),
          fmt::format("value {}{}", pc.value, pc.global_default ? " globalDefault" : "")};
}

// A claim's requests: "gpu: 2 gpu.example.com" or "gpu: all of gpu.example.com".
std::string ClaimFacts(const api::ResourceClaimSpec& spec) {
  std::string facts;
  auto one = [](const api::DeviceRequestSpec& r) {
    return r.allocation_mode == api::DeviceAllocationMode::kAll
               ? fmt::format("all of {}", r.device_class_name.str())
               : fmt::format("{} {}", r.count, r.device_class_name.str());
  };
  for (const api::DeviceRequest& r : spec.requests) {
    std::string what;
    if (r.exactly) {
      what = one(*r.exactly);
    } else {
      for (const api::DeviceSubRequest& s : r.first_available) {
        what += fmt::format("{}{}", what.empty() ? "first of " : " | ", one(s.spec));
      }
    }
    facts += fmt::format("{}{}: {}", facts.empty() ? "" : "; ", r.name.str(), what);
  }
  if (!spec.constraints.empty()) facts += fmt::format("; constraints {}", spec.constraints.size());
  return facts;
}

Listing Describe(const api::DeviceClass& c) {
  std::string facts = fmt::format("selectors {}", c.spec.selectors.size());
  if (!c.spec.config.empty()) facts += fmt::format(" config {}", c.spec.config.size());
  return {c.metadata.Key(), facts};
}

Listing Describe(const api::ResourceSlice& s) {
  std::string where = s.spec.per_device_node_selection  ? "per device"
                      : !s.spec.nodes.node_name.empty() ? "node " + s.spec.nodes.node_name.string()
                      : s.spec.nodes.node_selector      ? std::string("node selector")
                                                        : std::string("all nodes");
  return {s.metadata.Key(), fmt::format("driver {} pool {} {} devices {}", s.spec.driver.str(),
                                        s.spec.pool.name.str(), where, s.spec.devices.size())};
}

Listing Describe(const api::ResourceClaim& c) {
  std::string facts = ClaimFacts(c.spec);
  if (c.status.allocation) {
    facts += fmt::format(" allocated {} device(s)", c.status.allocation->devices.size());
  }
  return {c.metadata.Key(), facts};
}

Listing Describe(const api::ResourceClaimTemplate& t) {
  return {t.metadata.Key(), ClaimFacts(t.spec.spec)};
}

// clang-format 14 misplaces requires-clauses.
// clang-format off
template <typename T>
  requires requires(const T& o) { o.metadata.Key(); }
Listing Describe(const T& object) {
  return {object.metadata.Key(), ""};
}
// clang-format on

// A workload's listing also takes the PriorityResolver its pods will be admitted by.
template <typename Replicated>
Listing DescribeReplicated(const Replicated& w, const api::PriorityResolver& priorities) {
  return {w.metadata.Key(),
          fmt::format("replicas {} {}", w.replicas, TemplateFacts(w.template_, priorities))};
}
Listing Describe(const api::ReplicaSet& w, const api::PriorityResolver& priorities) {
  return DescribeReplicated(w, priorities);
}
Listing Describe(const api::Deployment& w, const api::PriorityResolver& priorities) {
  return DescribeReplicated(w, priorities);
}
Listing Describe(const api::StatefulSet& w, const api::PriorityResolver& priorities) {
  Listing l = DescribeReplicated(w, priorities);
  for (const api::ClaimTemplate& t : w.volume_claim_templates) {
    const std::string size = t.spec.storage ? t.spec.storage->String() : "";
    l.facts += fmt::format(" claim {}-<pod> {}", t.name, size);
  }
  return l;
}

Listing Describe(const api::Job& j, const api::PriorityResolver& priorities) {
  std::string facts = fmt::format("parallelism {} completions {}", j.parallelism,
                                  j.completions ? std::to_string(*j.completions) : "unset");
  if (j.completion_mode == api::CompletionMode::kIndexed) facts += " Indexed";
  facts += fmt::format(" backoffLimit {}", j.backoff_limit);
  if (j.pod_failure_policy) {
    facts += fmt::format(" podFailurePolicy {} rule(s)", j.pod_failure_policy->rules.size());
  }
  return {j.metadata.Key(), facts + " " + TemplateFacts(j.template_, priorities)};
}

Listing Describe(const api::PodDisruptionBudget& pdb) {
  auto show = [](const api::IntOrString& v) {
    return v.is_string ? v.str_value : std::to_string(v.int_value);
  };
  if (pdb.min_available) return {pdb.metadata.Key(), "minAvailable " + show(*pdb.min_available)};
  if (pdb.max_unavailable) {
    return {pdb.metadata.Key(), "maxUnavailable " + show(*pdb.max_unavailable)};
  }
  return {pdb.metadata.Key(), ""};
}

std::string Modes(api::AccessModes modes) {
  std::string out;
  for (std::string_view m : modes.Names()) out += (out.empty() ? "" : ",") + std::string(m);
  return out;
}

Listing Describe(const api::PersistentVolume& pv) {
  std::string facts =
      fmt::format("capacity {} {} class \"{}\" source {}", pv.spec.capacity.String(),
                  Modes(pv.spec.access_modes), pv.ClassName(), pv.spec.source.kind);
  if (pv.spec.claim_ref) {
    facts += fmt::format(" claim {}/{}", pv.spec.claim_ref->namespace_, pv.spec.claim_ref->name);
  }
  if (pv.spec.node_affinity) facts += " nodeAffinity";
  return {pv.metadata.Key(), facts};
}

Listing Describe(const api::PersistentVolumeClaim& pvc) {
  std::string facts = fmt::format(
      "request {} {} class {}", pvc.spec.storage ? pvc.spec.storage->String() : "none",
      Modes(pvc.spec.access_modes),
      pvc.spec.storage_class_name ||
              pvc.metadata.annotations.contains(std::string(api::kBetaStorageClassAnnotation))
          ? fmt::format("\"{}\"", pvc.ClassName())
          : std::string("default"));
  if (!pvc.spec.volume_name.empty()) facts += " volume " + pvc.spec.volume_name.string();
  return {pvc.metadata.Key(), facts};
}

Listing Describe(const api::StorageClass& sc) {
  std::string facts = fmt::format("provisioner {} {}", sc.provisioner,
                                  api::VolumeBindingModeName(sc.volume_binding_mode));
  if (!sc.allowed_topologies.empty()) {
    facts += fmt::format(" allowedTopologies {}", sc.allowed_topologies.size());
  }
  if (sc.IsDefault()) facts += " default";
  return {sc.metadata.Key(), facts};
}

Listing Describe(const api::CSINode& n) {
  std::string facts;
  for (const api::CSINode::Driver& d : n.drivers) {
    facts += fmt::format("{}{} limit {}", facts.empty() ? "drivers " : ", ", d.name,
                         d.allocatable_count ? std::to_string(*d.allocatable_count) : "none");
  }
  return {n.metadata.Key(), facts};
}

Listing Describe(const api::Binding& b) { return {b.metadata.Key(), "target " + b.target.name}; }

Listing Describe(const api::Event& ev) {
  return {ev.metadata.Key(), fmt::format("{} {}", ev.type, ev.reason)};
}

Listing Describe(const api::Lease& l) {
  return {l.metadata.Key(),
          "holder " + (l.holder_identity.empty() ? std::string("none") : l.holder_identity)};
}

// A configuration has no metadata; it is named by where it was read from.
Listing Describe(const api::SchedulerConfiguration& c) {
  std::string profiles;
  for (const auto& p : c.profiles) profiles += (profiles.empty() ? "" : ",") + p.scheduler_name;
  std::string extenders;
  for (const auto& e : c.extenders) extenders += (extenders.empty() ? "" : ",") + e.url_prefix;
  return {c.source, fmt::format("{} profiles {}{}", c.api_version,
                                profiles.empty() ? std::string("default-scheduler") : profiles,
                                extenders.empty() ? "" : " extenders " + extenders)};
}

// The configuration versions kube-scheduler has dropped, and muster still reads (the seeds write
// v1beta2): the release that dropped each and the last that reads it.
struct DroppedVersion {
  std::string_view api_version;
  std::string_view refused_since;
  std::string_view last_read_by;
};
constexpr DroppedVersion kDroppedVersions[] = {
    {"kubescheduler.config.k8s.io/v1beta2", "1.28", "1.27"},
    {"kubescheduler.config.k8s.io/v1beta3", "1.29", "1.28"},
};

}  // namespace

int RunValidate(const std::vector<std::string>& paths, const std::string& config_path,
                api::FieldValidation field_validation, std::istream& in, std::ostream& out,
                std::ostream& err) {
  const api::LoadResult result = api::LoadManifests(paths, in, field_validation);
  for (const std::string& w : result.warnings) err << "warning: " << w << "\n";
  std::vector<std::string> errors = result.errors;
  // Every configuration (--config and any among the inputs), checked by the code that builds
  // the scheduler from it. A folder of configurations is checked whole; only simulate and
  // run, which use one, require exactly one.
  std::vector<api::SchedulerConfiguration> configs = result.manifests.scheduler_configs;
  if (!config_path.empty()) {
    if (auto config = LoadConfigFile(config_path, in, &errors)) configs.push_back(*config);
  }
  for (const api::SchedulerConfiguration& config : configs) {
    for (std::string& e : host::ValidateConfiguration(config, plugins::InTreeRegistry(),
                                                      plugins::DefaultPlugins())) {
      errors.push_back(std::move(e));
    }
    for (const DroppedVersion& v : kDroppedVersions) {
      if (config.api_version != v.api_version) continue;
      err << fmt::format(
          "warning: {}: kube-scheduler {} and later refuse {} (muster reads it); {} is the last "
          "release that reads it: kubescheduler.config.k8s.io/v1 is read by every release since "
          "1.25\n",
          config.source, v.refused_since, v.api_version, v.last_read_by);
    }
  }
  if (!errors.empty()) {
    for (const std::string& e : errors) err << "error: " << e << "\n";
    err << fmt::format("{} error(s)\n", errors.size());
    return kExitBadInput;
  }
  const Manifests& m = result.manifests;
  const api::PriorityResolver priorities(m.priority_classes);
  for (const ObjectEntry& e : m.order) {
    const Listing line = api::Visit(m, e, [&](const auto& object) {
      if constexpr (requires { Describe(object, priorities); }) {
        return Describe(object, priorities);
      } else {
        return Describe(object);
      }
    });
    out << fmt::format("{:<27} {:<40} {}\n", e.kind, line.name, line.facts);
  }
  out << fmt::format("{} object(s) valid\n", m.order.size());
  return kExitOk;
}

}  // namespace muster::cli
