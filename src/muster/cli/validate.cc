#include "muster/cli/validate.h"

#include <ostream>

#include <fmt/format.h>

#include "muster/api/manifests.h"
#include "muster/api/pod_resources.h"

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

std::string PodFacts(const api::Pod& pod) {
  std::string facts = fmt::format("requests {} priority {}",
                                  FormatResources(api::PodRequests(pod).ToList()), pod.Priority());
  if (!pod.spec.node_name.empty()) facts += fmt::format(" node {}", pod.spec.node_name.str());
  if (const api::Symbol group = api::PodGroupName(pod); !group.empty()) {
    facts += fmt::format(" podGroup {}", group.str());
  }
  if (!pod.spec.scheduling_gates.empty()) {
    facts += fmt::format(" gates {}", pod.spec.scheduling_gates.size());
  }
  return facts;
}

std::string TemplateFacts(const api::PodTemplateSpec& t) {
  api::Pod pod;
  pod.spec = t.spec;
  pod.metadata.labels = t.metadata.labels;
  return "pod " + PodFacts(pod);
}

std::string Facts(const Manifests& m, const ObjectEntry& e, std::string* name) {
  if (e.kind == "Node") {
    const api::Node& n = m.nodes[e.index];
    *name = n.metadata.Key();
    std::string facts = "allocatable " + FormatResources(n.status.allocatable);
    if (!n.spec.taints.empty()) facts += fmt::format(" taints {}", n.spec.taints.size());
    if (n.spec.unschedulable) facts += " unschedulable";
    return facts;
  }
  if (e.kind == "Pod") {
    const api::Pod& p = m.pods[e.index];
    *name = p.metadata.Key();
    return PodFacts(p);
  }
  if (e.kind == "PodGroup") {
    const api::PodGroup& pg = m.pod_groups[e.index];
    *name = pg.metadata.Key();
    std::string facts = fmt::format("minMember {}", pg.spec.min_member);
    if (pg.spec.schedule_timeout_seconds) {
      facts += fmt::format(" scheduleTimeoutSeconds {}", *pg.spec.schedule_timeout_seconds);
    }
    if (!pg.spec.min_resources.empty()) {
      facts += " minResources " + FormatResources(pg.spec.min_resources);
    }
    return facts;
  }
  if (e.kind == "PriorityClass") {
    const api::PriorityClass& pc = m.priority_classes[e.index];
    *name = pc.metadata.Key();
    return fmt::format("value {}{}", pc.value, pc.global_default ? " globalDefault" : "");
  }
  if (e.kind == "Namespace") {
    *name = m.namespaces[e.index].metadata.Key();
    return "";
  }
  if (e.kind == "ReplicaSet") {
    const auto& w = m.replica_sets[e.index];
    *name = w.metadata.Key();
    return fmt::format("replicas {} {}", w.replicas, TemplateFacts(w.template_));
  }
  if (e.kind == "Deployment") {
    const auto& w = m.deployments[e.index];
    *name = w.metadata.Key();
    return fmt::format("replicas {} {}", w.replicas, TemplateFacts(w.template_));
  }
  if (e.kind == "StatefulSet") {
    const auto& w = m.stateful_sets[e.index];
    *name = w.metadata.Key();
    return fmt::format("replicas {} {}", w.replicas, TemplateFacts(w.template_));
  }
  if (e.kind == "Job") {
    const auto& j = m.jobs[e.index];
    *name = j.metadata.Key();
    return fmt::format("parallelism {} completions {} {}", j.parallelism,
                       j.completions ? std::to_string(*j.completions) : "unset",
                       TemplateFacts(j.template_));
  }
  if (e.kind == "PodDisruptionBudget") {
    const auto& pdb = m.pod_disruption_budgets[e.index];
    *name = pdb.metadata.Key();
    auto show = [](const api::IntOrString& v) {
      return v.is_string ? v.str_value : std::to_string(v.int_value);
    };
    if (pdb.min_available) return "minAvailable " + show(*pdb.min_available);
    if (pdb.max_unavailable) return "maxUnavailable " + show(*pdb.max_unavailable);
    return "";
  }
  if (e.kind == "Binding") {
    const auto& b = m.bindings[e.index];
    *name = b.metadata.Key();
    return "target " + b.target.name;
  }
  if (e.kind == "Event") {
    const auto& ev = m.events[e.index];
    *name = ev.metadata.Key();
    return fmt::format("{} {}", ev.type, ev.reason);
  }
  if (e.kind == "Lease") {
    const auto& l = m.leases[e.index];
    *name = l.metadata.Key();
    return "holder " + (l.holder_identity.empty() ? std::string("none") : l.holder_identity);
  }
  if (e.kind == "KubeSchedulerConfiguration") {
    const auto& c = m.scheduler_configs[e.index];
    *name = c.source;
    std::string profiles;
    for (const auto& p : c.profiles) profiles += (profiles.empty() ? "" : ",") + p.scheduler_name;
    return fmt::format("{} profiles {}", c.api_version,
                       profiles.empty() ? std::string("default-scheduler") : profiles);
  }
  return "";
}

}  // namespace

int RunValidate(const std::vector<std::string>& paths, std::istream& in, std::ostream& out,
                std::ostream& err) {
  const api::LoadResult result = api::LoadManifests(paths, in);
  for (const std::string& w : result.warnings) err << "warning: " << w << "\n";
  if (!result.ok()) {
    for (const std::string& e : result.errors) err << "error: " << e << "\n";
    err << fmt::format("{} error(s); nothing was applied\n", result.errors.size());
    return kExitBadInput;
  }
  const Manifests& m = result.manifests;
  for (const ObjectEntry& e : m.order) {
    std::string name;
    const std::string facts = Facts(m, e, &name);
    out << fmt::format("{:<27} {:<40} {}\n", e.kind, name, facts);
  }
  out << fmt::format("{} object(s) valid\n", m.order.size());
  return kExitOk;
}

}  // namespace muster::cli
