#include "muster/report/simulation_output.h"

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/dra.h"
#include "muster/api/gang.h"
#include "muster/api/pod_resources.h"
#include "muster/framework/extender.h"
#include "muster/report/text.h"

namespace muster::report {
namespace {

using json = nlohmann::ordered_json;

const api::Condition* ScheduledCondition(const api::Pod& pod) {
  return api::FindCondition(pod.status.conditions, "PodScheduled");
}

const api::Condition* GroupScheduledCondition(const api::PodGroup& group) {
  return api::FindCondition(group.status.conditions, "Scheduled");
}

std::string PodGroupOf(const api::Pod& pod) { return api::GangOf(pod).name.string(); }

json ResourcesJson(const api::ResourceList& list) {
  json out = json::object();
  for (const auto& [name, q] : list) out[name.string()] = q.String();
  return out;
}

api::Duration Age(const sim::Simulation& sim, const api::ObjectMeta& meta) {
  if (!meta.creation_timestamp) return api::Duration::zero();
  // Never negative: an object is no older than the cluster's last change, which its creation was.
  return std::max((sim::kSimulationEpoch + sim.End()) - *meta.creation_timestamp,
                  api::Duration::zero());
}

void EmitYaml(YAML::Emitter& e, const json& j) {
  switch (j.type()) {
    case json::value_t::object:
      e << YAML::BeginMap;
      for (const auto& [k, v] : j.items()) {
        e << YAML::Key << k << YAML::Value;
        EmitYaml(e, v);
      }
      e << YAML::EndMap;
      break;
    case json::value_t::array:
      e << YAML::BeginSeq;
      for (const auto& v : j) EmitYaml(e, v);
      e << YAML::EndSeq;
      break;
    case json::value_t::string:
      // Quoted, so that "4" or "0s" read back as strings.
      e << YAML::DoubleQuoted << j.get<std::string>();
      break;
    case json::value_t::boolean:
      e << j.get<bool>();
      break;
    case json::value_t::number_integer:
      e << j.get<int64_t>();
      break;
    case json::value_t::number_unsigned:
      e << j.get<uint64_t>();
      break;
    case json::value_t::number_float:
      e << j.get<double>();
      break;
    default:
      e << YAML::Null;
  }
}

// Each Job's status: kubectl's STATUS (Running, Complete, Failed, Suspended), its counts, and
// the reason and message of the condition it finished with.
json JobsJson(const sim::Simulation& sim) {
  json jobs = json::array();
  for (const sim::controllers::JobRecord& r : sim.Jobs()) {
    json j;
    j["namespace"] = r.namespace_;
    j["name"] = r.name;
    j["status"] = r.finished ? r.finished->type.str() : (r.suspended ? "Suspended" : "Running");
    j["active"] = r.active;
    j["succeeded"] = r.succeeded;
    j["failed"] = r.failed;
    if (r.indexed) j["completedIndexes"] = r.completed_indexes;
    j["reason"] = r.finished ? r.finished->reason : "";
    j["message"] = r.finished ? r.finished->message : "";
    jobs.push_back(std::move(j));
  }
  return jobs;
}

json AccessModesJson(api::AccessModes modes) {
  json out = json::array();
  for (std::string_view name : modes.Names()) out.push_back(std::string(name));
  return out;
}

// Claims as the volume binding left them: the volume bound, or the node chosen for provisioning.
json ClaimsJson(const cluster::MemoryCluster& c) {
  json claims = json::array();
  for (const auto& [key, ptr] : c.Objects<api::PersistentVolumeClaim>()) {
    const api::PersistentVolumeClaim& pvc = *ptr;
    json j;
    j["namespace"] = pvc.metadata.namespace_.string();
    j["name"] = pvc.metadata.name;
    j["phase"] = std::string(api::ClaimPhaseName(pvc.status.phase));
    j["storageClassName"] = std::string(pvc.ClassName());
    j["request"] = pvc.spec.storage ? pvc.spec.storage->String() : "";
    j["accessModes"] = AccessModesJson(pvc.spec.access_modes);
    j["volumeName"] = pvc.spec.volume_name.string();
    auto selected = pvc.metadata.annotations.find(std::string(api::kSelectedNodeAnnotation));
    j["selectedNode"] = selected == pvc.metadata.annotations.end() ? "" : selected->second;
    claims.push_back(std::move(j));
  }
  return claims;
}

// ResourceClaims (Dynamic Resource Allocation) as the scheduler and the claim controller left
// them: the devices allocated ("driver/pool/device", in the order of the claim's requests), the
// pods it is reserved for.
json ResourceClaimsJson(const cluster::MemoryCluster& c) {
  json claims = json::array();
  for (const auto& [key, ptr] : c.Objects<api::ResourceClaim>()) {
    const api::ResourceClaim& claim = *ptr;
    json j;
    j["namespace"] = claim.metadata.namespace_.string();
    j["name"] = claim.metadata.name;
    j["allocated"] = claim.Allocated();
    json devices = json::array();
    if (claim.status.allocation) {
      for (const api::DeviceRequestAllocationResult& d : claim.status.allocation->devices) {
        devices.push_back(d.DeviceName());
      }
    }
    j["devices"] = std::move(devices);
    json reserved = json::array();
    for (const api::ResourceClaimConsumerReference& r : claim.status.reserved_for) {
      reserved.push_back(r.name);
    }
    j["reservedFor"] = std::move(reserved);
    claims.push_back(std::move(j));
  }
  return claims;
}

json DevicePoolsJson(const cluster::MemoryCluster& c) {
  json pools = json::array();
  for (const DevicePoolUsage& u : DeviceUsage(c)) {
    pools.push_back({{"driver", u.driver},
                     {"pool", u.pool},
                     {"nodes", u.nodes},
                     {"devices", u.devices},
                     {"allocated", u.allocated}});
  }
  return pools;
}

json VolumesJson(const cluster::MemoryCluster& c) {
  json volumes = json::array();
  for (const auto& [name, ptr] : c.Objects<api::PersistentVolume>()) {
    const api::PersistentVolume& pv = *ptr;
    json j;
    j["name"] = pv.metadata.name;
    j["phase"] = std::string(api::VolumePhaseName(pv.status.phase));
    j["storageClassName"] = std::string(pv.ClassName());
    j["capacity"] = pv.spec.capacity.String();
    j["accessModes"] = AccessModesJson(pv.spec.access_modes);
    j["claim"] =
        pv.spec.claim_ref ? pv.spec.claim_ref->namespace_ + "/" + pv.spec.claim_ref->name : "";
    volumes.push_back(std::move(j));
  }
  return volumes;
}

}  // namespace

std::string HumanDuration(api::Duration d) {
  const int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (seconds < 0) return "0s";
  if (seconds < 120) return fmt::format("{}s", seconds);
  const int64_t minutes = seconds / 60;
  if (minutes < 10) {
    return seconds % 60 == 0 ? fmt::format("{}m", minutes)
                             : fmt::format("{}m{}s", minutes, seconds % 60);
  }
  if (minutes < 180) return fmt::format("{}m", minutes);
  const int64_t hours = minutes / 60;
  if (hours < 8) {
    return minutes % 60 == 0 ? fmt::format("{}h", hours)
                             : fmt::format("{}h{}m", hours, minutes % 60);
  }
  if (hours < 48) return fmt::format("{}h", hours);
  if (hours < 24 * 8) {
    return hours % 24 == 0 ? fmt::format("{}d", hours / 24)
                           : fmt::format("{}d{}h", hours / 24, hours % 24);
  }
  if (hours < 24 * 365 * 2) return fmt::format("{}d", hours / 24);
  return fmt::format("{}y", hours / 24 / 365);
}

std::string PodStatusText(const sim::Simulation& sim, const api::Pod& pod) {
  if (pod.status.phase == api::PodPhase::kPending && sim.IsGated(pod)) return "SchedulingGated";
  return std::string(api::PodPhaseName(pod.status.phase));
}

namespace {

// An extender's calls by verb, in the API's order.
std::vector<std::pair<std::string, const framework::ExtenderCallStats*>> ExtenderVerbs(
    const framework::ExtenderStats& stats) {
  return {{"filter", &stats.filter},
          {"prioritize", &stats.prioritize},
          {"bind", &stats.bind},
          {"preempt", &stats.preempt}};
}

// The gangs of Kubernetes' own API: each scheduling.k8s.io PodGroup, and each pod group of a
// v1alpha1 Workload (one per replica key its pods name), with their members' counts.
std::vector<json> NativeGangsJson(const cluster::MemoryCluster& c) {
  struct Members {
    int scheduled = 0, running = 0, succeeded = 0, failed = 0;
    std::string message;  // a pending member's, for a gang without status
  };
  std::map<std::pair<std::string, std::string>, Members> members;  // (namespace, gang name)
  for (const auto& [key, stored] : c.pods()) {
    const api::Pod& pod = *stored;
    const api::GangRef gang = api::GangOf(pod);
    if (!gang.Of<api::SchedulingPodGroup>() && !gang.Of<api::Workload>()) continue;
    Members& m = members[{pod.metadata.namespace_.string(), gang.name.string()}];
    if (!pod.spec.node_name.empty()) ++m.scheduled;
    m.running += pod.status.phase == api::PodPhase::kRunning;
    m.succeeded += pod.status.phase == api::PodPhase::kSucceeded;
    m.failed += pod.status.phase == api::PodPhase::kFailed;
    if (const api::Condition* cond = ScheduledCondition(pod);
        m.message.empty() && cond != nullptr && cond->status.str() == "False") {
      m.message = cond->message;
    }
  }
  std::vector<json> out;
  auto add = [&](const api::ObjectMeta& meta, const std::string& name,
                 const std::string& api_version, const api::PodGroupPolicy& policy,
                 const api::Condition* condition, const Members& m) {
    json g;
    g["namespace"] = meta.namespace_.string();
    g["name"] = name;
    g["apiVersion"] = api_version;
    g["policy"] = policy.gang() ? "gang" : "basic";
    g["minCount"] = policy.gang() ? json(*policy.min_count) : json(nullptr);
    g["scheduled"] = m.scheduled;
    g["running"] = m.running;
    g["succeeded"] = m.succeeded;
    g["failed"] = m.failed;
    g["condition"] = condition != nullptr ? condition->status.str() : "";
    g["message"] = condition != nullptr
                       ? (condition->status.str() == "False" ? condition->message : "")
                   : m.scheduled == 0 ? m.message
                                      : "";
    out.push_back(std::move(g));
  };
  for (const auto& [key, ptr] : c.Objects<api::SchedulingPodGroup>()) {
    const api::SchedulingPodGroup& pg = *ptr;
    add(pg.metadata, pg.metadata.name, pg.api_version, pg.spec.policy,
        api::FindCondition(pg.status.conditions, pg.ScheduledCondition()),
        members[{pg.metadata.namespace_.string(), pg.metadata.name}]);
    if (!pg.spec.parent.empty()) out.back()["parent"] = pg.spec.parent.string();
  }
  // Composite groups (1.37, KEP-6012): their members are their tree's, their quorum a count of
  // groups; the scheduler writes no condition on them.
  struct Child {
    std::optional<api::Time> created;
    std::string name;
    bool composite;
    bool operator<(const Child& o) const {
      return std::tie(created, name) < std::tie(o.created, o.name);
    }
  };
  std::map<std::pair<std::string, std::string>, std::vector<Child>> children;  // by parent
  for (const auto& [key, ptr] : c.Objects<api::SchedulingPodGroup>()) {
    if (ptr->spec.parent.empty()) continue;
    children[{ptr->metadata.namespace_.string(), ptr->spec.parent.string()}].push_back(
        {ptr->metadata.creation_timestamp, ptr->metadata.name, false});
  }
  for (const auto& [key, ptr] : c.Objects<api::CompositePodGroup>()) {
    if (ptr->spec.parent.empty()) continue;
    children[{ptr->metadata.namespace_.string(), ptr->spec.parent.string()}].push_back(
        {ptr->metadata.creation_timestamp, ptr->metadata.name, true});
  }
  for (auto& [parent, list] : children) std::sort(list.begin(), list.end());  // placing order
  for (const auto& [key, ptr] : c.Objects<api::CompositePodGroup>()) {
    const api::CompositePodGroup& cpg = *ptr;
    const std::string ns = cpg.metadata.namespace_.string();
    Members sum;
    std::vector<std::string> names;
    auto collect = [&](const std::string& parent, int depth, const auto& self) -> void {
      if (depth > 8) return;  // parents that loop
      for (const Child& child : children[{ns, parent}]) {
        if (depth == 0) names.push_back(child.name);
        if (child.composite) {
          self(child.name, depth + 1, self);
          continue;
        }
        const Members& m = members[{ns, child.name}];
        sum.scheduled += m.scheduled;
        sum.running += m.running;
        sum.succeeded += m.succeeded;
        sum.failed += m.failed;
        if (sum.message.empty()) sum.message = m.message;
      }
    };
    collect(cpg.metadata.name, 0, collect);
    add(cpg.metadata, cpg.metadata.name, cpg.api_version, cpg.spec.policy, nullptr, sum);
    json& g = out.back();
    g["kind"] = "CompositePodGroup";
    g["minCount"] = nullptr;
    g["minGroupCount"] = cpg.spec.policy.min_count.value_or(1);
    g["groups"] = names;
    if (!cpg.spec.parent.empty()) g["parent"] = cpg.spec.parent.string();
  }
  for (const auto& [key, ptr] : c.Objects<api::Workload>()) {
    const api::Workload& w = *ptr;
    if (!w.DefinesGroups()) continue;
    for (const api::PodGroupTemplate& group : w.pod_groups) {
      // Its instances: the group itself, and one per replica key its pods name.
      const std::string name = w.metadata.name + "/" + group.name;
      std::vector<std::string> instances;
      for (auto it = members.lower_bound({w.metadata.namespace_.string(), name});
           it != members.end() && it->first.first == w.metadata.namespace_.str() &&
           it->first.second.starts_with(name);
           ++it) {
        const std::string& gang = it->first.second;
        if (gang == name || gang[name.size()] == '/') instances.push_back(gang);
      }
      if (instances.empty()) instances.push_back(name);
      for (const std::string& gang : instances) {
        add(w.metadata, gang, w.api_version, group.policy, nullptr,
            members[{w.metadata.namespace_.string(), gang}]);
      }
    }
  }
  return out;
}

// The table of Kubernetes' own gangs (NativeGangsJson's), after the pods.
void PrintNativeGangs(const cluster::MemoryCluster& c, bool namespaces, bool wide,
                      std::ostream& out) {
  const std::vector<json> gangs = NativeGangsJson(c);
  if (gangs.empty()) return;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"GANG",      "APIVERSION", "POLICY",    "MINCOUNT",
                                     "SCHEDULED", "RUNNING",    "SUCCEEDED", "CONDITION"};
  if (namespaces) header.insert(header.begin(), "NAMESPACE");
  if (wide) header.push_back("MESSAGE");
  rows.push_back(header);
  for (const json& g : gangs) {
    std::vector<std::string> row = {
        g["name"].get<std::string>(),
        g["apiVersion"].get<std::string>(),
        g["policy"].get<std::string>(),
        g.contains("minGroupCount") ? g["minGroupCount"].dump() + " groups"
        : g["minCount"].is_null()   ? "-"
                                    : g["minCount"].dump(),
        g["scheduled"].dump(),
        g["running"].dump(),
        g["succeeded"].dump(),
        g["condition"].get<std::string>().empty() ? "-" : g["condition"].get<std::string>()};
    if (namespaces) row.insert(row.begin(), g["namespace"].get<std::string>());
    if (wide) row.push_back(g["message"].get<std::string>());
    rows.push_back(std::move(row));
  }
  out << "\n";
  PrintColumns(rows, out);
}

}  // namespace

nlohmann::ordered_json BuildResult(const sim::Simulation& sim) {
  const cluster::MemoryCluster& c = sim.cluster();
  json result;
  result["apiVersion"] = "muster.dev/v1alpha1";
  result["kind"] = "SimulationResult";
  result["time"] = api::FormatDuration(sim.End());
  if (const std::optional<api::Duration> retried = sim.RetriedUntil()) {
    result["retriedUntil"] = api::FormatDuration(*retried);
  }

  json pods = json::array();
  int running = 0, pending = 0, succeeded = 0, failed = 0, gated = 0;
  std::map<std::string, std::pair<api::Resource, int>> per_node;
  for (const auto& [key, stored] : c.pods()) {
    const api::Pod& pod = *stored;
    const std::string status = PodStatusText(sim, pod);
    json p;
    p["namespace"] = pod.metadata.namespace_.string();
    p["name"] = pod.metadata.name;
    p["phase"] = std::string(api::PodPhaseName(pod.status.phase));
    p["status"] = status;
    p["nodeName"] = pod.spec.node_name.string();
    p["podGroup"] = PodGroupOf(pod);
    auto record = sim.records().find(key);
    const bool has_record = record != sim.records().end();
    p["scheduledAt"] = has_record && record->second.scheduled_at
                           ? api::FormatDuration(*record->second.scheduled_at)
                           : "";
    p["attempts"] = has_record ? record->second.attempts : 0;
    const api::Condition* cond = ScheduledCondition(pod);
    const bool unscheduled = cond != nullptr && cond->status.str() == "False";
    p["reason"] = unscheduled ? cond->reason : "";
    p["message"] = unscheduled ? cond->message : "";
    if (!pod.status.nominated_node_name.empty()) {
      p["nominatedNodeName"] = pod.status.nominated_node_name.string();
    }
    pods.push_back(std::move(p));
    if (status == "SchedulingGated") {
      ++gated;
    } else if (pod.status.phase == api::PodPhase::kPending) {
      ++pending;
    } else if (pod.status.phase == api::PodPhase::kRunning) {
      ++running;
    } else if (pod.status.phase == api::PodPhase::kSucceeded) {
      ++succeeded;
    } else if (pod.status.phase == api::PodPhase::kFailed) {
      ++failed;
    }
    if (!pod.spec.node_name.empty() && !pod.IsTerminal()) {
      auto& [requested, count] = per_node[pod.spec.node_name.string()];
      requested.Add(api::PodRequests(pod));
      ++count;
    }
  }
  result["pods"] = std::move(pods);

  json groups = json::array();
  for (const auto& [key, group_ptr] : c.Objects<api::PodGroup>()) {
    const api::PodGroup& group = *group_ptr;
    json g;
    g["namespace"] = group.metadata.namespace_.string();
    g["name"] = group.metadata.name;
    g["phase"] = std::string(api::PodGroupPhaseName(group.status.phase));
    g["minMember"] = group.spec.min_member;
    g["scheduled"] = group.status.scheduled;
    g["running"] = group.status.running;
    g["succeeded"] = group.status.succeeded;
    g["failed"] = group.status.failed;
    // Why the group cannot be placed: the group cycle's Scheduled=False condition.
    const api::Condition* cond = GroupScheduledCondition(group);
    g["message"] = cond != nullptr && cond->status.str() == "False" ? cond->message : "";
    g["apiVersion"] =
        group.api_version.empty() ? "scheduling.x-k8s.io/v1alpha1" : group.api_version;
    groups.push_back(std::move(g));
  }
  for (json& g : NativeGangsJson(c)) groups.push_back(std::move(g));
  result["podGroups"] = std::move(groups);
  result["jobs"] = JobsJson(sim);
  result["persistentVolumeClaims"] = ClaimsJson(c);
  result["resourceClaims"] = ResourceClaimsJson(c);
  result["devicePools"] = DevicePoolsJson(c);
  result["persistentVolumes"] = VolumesJson(c);

  json nodes = json::array();
  for (const auto& [name, node_ptr] : c.Objects<api::Node>()) {
    const api::Node& node = *node_ptr;
    json n;
    n["name"] = name;
    n["allocatable"] = ResourcesJson(node.status.allocatable);
    auto it = per_node.find(name);
    n["requested"] =
        it == per_node.end() ? json::object() : ResourcesJson(it->second.first.ToList());
    n["pods"] = it == per_node.end() ? 0 : it->second.second;
    nodes.push_back(std::move(n));
  }
  result["nodes"] = std::move(nodes);

  json events = json::array();
  for (const cluster::StoredEvent& e : c.events()) {
    json ev;
    ev["time"] = api::FormatDuration(e.time - sim::kSimulationEpoch);
    ev["type"] = e.record.type;
    ev["reason"] = e.record.reason;
    ev["kind"] = e.record.regarding.kind;
    ev["object"] = e.record.regarding.Key();
    ev["message"] = e.record.message;
    if (e.count > 1) {
      ev["count"] = e.count;
      ev["lastTime"] = api::FormatDuration(e.last_time - sim::kSimulationEpoch);
    }
    events.push_back(std::move(ev));
  }
  result["events"] = std::move(events);

  // The scheduler extenders, when the configuration has any: their calls, per verb.
  if (const auto extenders = sim.scheduler().extenders(); !extenders.empty()) {
    json list = json::array();
    for (const framework::Extender* e : extenders) {
      const framework::ExtenderStats stats = e->Stats();
      json x;
      x["name"] = e->Name();
      for (const auto& [verb, calls] : ExtenderVerbs(stats)) {
        x[verb] = {{"calls", calls->calls}, {"errors", calls->errors}, {"seconds", calls->seconds}};
      }
      list.push_back(std::move(x));
    }
    result["extenders"] = std::move(list);
  }

  json summary;
  summary["pods"] = static_cast<int>(c.pods().size());
  summary["running"] = running;
  summary["pending"] = pending;
  summary["succeeded"] = succeeded;
  summary["failed"] = failed;
  summary["gated"] = gated;
  result["summary"] = std::move(summary);
  return result;
}

std::vector<std::string> ExtenderNotes(const sim::Simulation& sim) {
  std::vector<std::string> notes;
  for (const framework::Extender* e : sim.scheduler().extenders()) {
    const framework::ExtenderStats stats = e->Stats();
    if (!stats.first_filter_kept_none) continue;
    notes.push_back(fmt::format(
        "extender {} turned away every node in its first filter answer of this run ({} of {} "
        "answers kept none). An extender keeps its own state: one that remembers what it placed "
        "in an earlier run (a simulate before this one, or before an explain) finds the nodes "
        "taken; restart it before each run",
        e->Name(), stats.filter_kept_none, stats.filter.calls - stats.filter.errors));
  }
  return notes;
}

namespace {

// What each extender was asked: calls, failures and mean time per verb it was called for.
void PrintExtenders(const sim::Simulation& sim, std::ostream& out) {
  const auto extenders = sim.scheduler().extenders();
  if (extenders.empty()) return;
  std::vector<std::vector<std::string>> rows = {{"EXTENDER", "VERB", "CALLS", "ERRORS", "MEAN"}};
  for (const framework::Extender* e : extenders) {
    const framework::ExtenderStats stats = e->Stats();
    for (const auto& [verb, calls] : ExtenderVerbs(stats)) {
      if (calls->calls == 0) continue;
      rows.push_back(
          {e->Name(), verb, std::to_string(calls->calls), std::to_string(calls->errors),
           fmt::format("{:.1f}ms", 1000 * calls->seconds / static_cast<double>(calls->calls))});
    }
  }
  out << "\n";
  if (rows.size() == 1) {
    out << "No extender was called.\n";
    return;
  }
  PrintColumns(rows, out);
}

}  // namespace

void PrintTable(const sim::Simulation& sim, bool wide, std::ostream& out) {
  const cluster::MemoryCluster& c = sim.cluster();
  bool namespaces = false;
  for (const auto& [key, pod] : c.pods()) namespaces |= pod->metadata.namespace_.str() != "default";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"NAME", "READY", "STATUS", "RESTARTS", "AGE", "NODE"};
  if (namespaces) header.insert(header.begin(), "NAMESPACE");
  if (wide) header.insert(header.end(), {"NOMINATED NODE", "PODGROUP", "ATTEMPTS", "MESSAGE"});
  rows.push_back(header);
  for (const auto& [key, stored] : c.pods()) {
    const api::Pod& pod = *stored;
    const size_t containers = pod.spec.containers.size();
    const size_t ready = pod.status.phase == api::PodPhase::kRunning ? containers : 0;
    std::vector<std::string> row = {
        pod.metadata.name,
        fmt::format("{}/{}", ready, containers),
        PodStatusText(sim, pod),
        "0",
        HumanDuration(Age(sim, pod.metadata)),
        pod.spec.node_name.empty() ? "<none>" : pod.spec.node_name.string()};
    if (namespaces) row.insert(row.begin(), pod.metadata.namespace_.string());
    if (wide) {
      auto record = sim.records().find(key);
      const api::Condition* cond = ScheduledCondition(pod);
      const std::string group = PodGroupOf(pod);
      row.insert(row.end(),
                 {pod.status.nominated_node_name.empty() ? "<none>"
                                                         : pod.status.nominated_node_name.string(),
                  group.empty() ? "<none>" : group,
                  std::to_string(record == sim.records().end() ? 0 : record->second.attempts),
                  cond != nullptr && cond->status.str() == "False" ? cond->message : ""});
    }
    rows.push_back(std::move(row));
  }
  if (c.pods().empty()) {
    out << "No pods.\n";
  } else {
    PrintColumns(rows, out);
  }
  PrintExtenders(sim, out);
  PrintNativeGangs(c, namespaces, wide, out);
  if (c.Objects<api::PodGroup>().empty()) return;
  out << "\n";
  rows.clear();
  header = {"PODGROUP", "PHASE", "MINMEMBER", "SCHEDULED", "RUNNING", "SUCCEEDED", "AGE"};
  if (namespaces) header.insert(header.begin(), "NAMESPACE");
  if (wide) header.push_back("MESSAGE");
  rows.push_back(header);
  for (const auto& [key, g_ptr] : c.Objects<api::PodGroup>()) {
    const api::PodGroup& g = *g_ptr;
    std::vector<std::string> row = {g.metadata.name,
                                    std::string(api::PodGroupPhaseName(g.status.phase)),
                                    std::to_string(g.spec.min_member),
                                    std::to_string(g.status.scheduled),
                                    std::to_string(g.status.running),
                                    std::to_string(g.status.succeeded),
                                    HumanDuration(Age(sim, g.metadata))};
    if (namespaces) row.insert(row.begin(), g.metadata.namespace_.string());
    if (wide) {
      const api::Condition* cond = GroupScheduledCondition(g);
      row.push_back(cond != nullptr && cond->status.str() == "False" ? cond->message : "");
    }
    rows.push_back(std::move(row));
  }
  PrintColumns(rows, out);
}

void PrintJson(const sim::Simulation& sim, std::ostream& out) {
  out << BuildResult(sim).dump(2) << "\n";
}

void PrintYaml(const sim::Simulation& sim, std::ostream& out) {
  YAML::Emitter e;
  EmitYaml(e, BuildResult(sim));
  out << e.c_str() << "\n";
}

std::vector<DevicePoolUsage> DeviceUsage(const cluster::MemoryCluster& c) {
  std::set<std::string> in_use;
  for (const auto& [key, claim] : c.Objects<api::ResourceClaim>()) {
    if (!claim->status.allocation) continue;
    for (const api::DeviceRequestAllocationResult& d : claim->status.allocation->devices) {
      in_use.insert(d.DeviceName());
    }
  }
  // The newest generation of each pool counts, as the allocator counts it.
  std::map<std::pair<std::string, std::string>, std::vector<const api::ResourceSlice*>> pools;
  for (const auto& [name, slice] : c.Objects<api::ResourceSlice>()) {
    auto& list = pools[{slice->spec.driver.string(), slice->spec.pool.name.string()}];
    if (!list.empty() && list.front()->spec.pool.generation < slice->spec.pool.generation) {
      list.clear();
    }
    if (list.empty() || list.front()->spec.pool.generation == slice->spec.pool.generation) {
      list.push_back(slice.get());
    }
  }
  std::vector<DevicePoolUsage> out;
  for (const auto& [name, slices] : pools) {
    DevicePoolUsage u{name.first, name.second, "", 0, 0};
    for (const api::ResourceSlice* s : slices) {
      const std::string nodes = s->spec.per_device_node_selection ? "per device"
                                : !s->spec.nodes.node_name.empty()
                                    ? s->spec.nodes.node_name.string()
                                : s->spec.nodes.node_selector ? "node selector"
                                : s->spec.nodes.all_nodes     ? "all nodes"
                                                              : "";
      if (u.nodes.empty()) {
        u.nodes = nodes;
      } else if (!nodes.empty() && u.nodes != nodes) {
        u.nodes = "several";
      }
      for (const api::Device& d : s->spec.devices) {
        ++u.devices;
        u.allocated += in_use.contains(api::DeviceName(u.driver, u.pool, d.name.str()));
      }
    }
    out.push_back(std::move(u));
  }
  return out;
}

}  // namespace muster::report
