#include "muster/report/explain_output.h"

#include <algorithm>
#include <map>
#include <ostream>

#include <fmt/format.h>

#include "muster/api/dra.h"
#include "muster/api/gang.h"
#include "muster/api/pod_claims.h"
#include "muster/api/taints.h"
#include "muster/report/simulation_output.h"
#include "muster/report/text.h"

namespace muster::report {
namespace {

using json = nlohmann::ordered_json;
using framework::AttemptTrace;
using framework::Code;

std::string Name(Code code) { return std::string(framework::CodeName(code)); }

std::string At(api::Time t) { return api::FormatDuration(t - sim::kSimulationEpoch); }

json OutcomesJson(const std::vector<AttemptTrace::Outcome>& outcomes) {
  json out = json::array();
  for (const AttemptTrace::Outcome& o : outcomes) {
    json j;
    j["plugin"] = o.plugin;
    j["result"] = Name(o.code);
    j["message"] = o.message;
    if (!o.notes.empty()) j["notes"] = o.notes;
    out.push_back(std::move(j));
  }
  return out;
}

// The taint a TaintToleration rejection stands for: the scheduler's reason does not name it (a
// pod's status is read by more people than its author), explain does, for whoever runs it.
std::string UntoleratedTaint(const sim::Simulation& sim, const api::Pod& pod,
                             const std::string& node_name) {
  const api::Node* node = sim.cluster().Get<api::Node>(node_name);
  if (node == nullptr) return "";
  const api::Taint* taint = api::FindMatchingUntoleratedTaint(
      node->spec.taints, pod.spec.tolerations, api::BlocksScheduling);
  return taint != nullptr ? api::FormatTaint(*taint) : "";
}

json FilterJson(const sim::Simulation& sim, const api::Pod& pod, const AttemptTrace& trace) {
  json filter;
  filter["plugins"] = trace.filter_plugins;
  json skipped = json::array();
  for (const AttemptTrace::Outcome& o : trace.pre_filter) {
    if (o.code == Code::kSkip && std::find(trace.filter_plugins.begin(), trace.filter_plugins.end(),
                                           o.plugin) != trace.filter_plugins.end()) {
      skipped.push_back(o.plugin);
    }
  }
  filter["skipped"] = std::move(skipped);
  json nodes = json::array();
  for (const auto& [node, record] : trace.filtered()) {
    json n;
    n["node"] = node;
    const bool passed = record.verdicts.empty() || record.verdicts.back().code == Code::kSuccess;
    n["result"] = passed ? "Passed" : "Rejected";
    if (!passed) {
      const AttemptTrace::Verdict& last = record.verdicts.back();
      n["plugin"] = trace.filter_plugins.at(static_cast<size_t>(last.plugin));
      n["code"] = Name(last.code);
      n["reason"] = last.reason;
      if (n["plugin"] == "TaintToleration") {
        if (std::string taint = UntoleratedTaint(sim, pod, node); !taint.empty()) {
          n["taint"] = std::move(taint);
        }
      }
    }
    if (record.nominated_pods > 0) {
      n["nominatedPods"] = record.nominated_pods;
      n["rejectedWithNominatedPods"] = record.rejected_with_nominated;
    }
    json verdicts = json::array();
    for (const AttemptTrace::Verdict& v : record.verdicts) {
      json j;
      j["plugin"] = trace.filter_plugins.at(static_cast<size_t>(v.plugin));
      j["result"] = Name(v.code);
      if (!v.reason.empty()) j["reason"] = v.reason;
      verdicts.push_back(std::move(j));
    }
    n["verdicts"] = std::move(verdicts);
    nodes.push_back(std::move(n));
  }
  filter["nodes"] = std::move(nodes);
  return filter;
}

json ScoreJson(const AttemptTrace& trace) {
  json score;
  json plugins = json::array();
  for (const AttemptTrace::ScoreColumn& c : trace.scores) {
    json p;
    p["plugin"] = c.plugin;
    p["weight"] = c.weight;
    p["normalizes"] = c.normalizes;
    plugins.push_back(std::move(p));
  }
  score["plugins"] = std::move(plugins);
  // Best first, as the scheduler ranks them; ties by name.
  std::vector<size_t> order(trace.scored_nodes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto total = [&](size_t i) { return i < trace.totals.size() ? trace.totals[i] : int64_t{0}; };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (total(a) != total(b)) return total(a) > total(b);
    return trace.scored_nodes[a] < trace.scored_nodes[b];
  });
  json nodes = json::array();
  for (size_t i : order) {
    json n;
    n["node"] = trace.scored_nodes[i];
    n["total"] = total(i);
    n["selected"] = trace.scored_nodes[i] == trace.selected_node;
    json scores = json::array();
    for (const AttemptTrace::ScoreColumn& c : trace.scores) {
      json s;
      s["plugin"] = c.plugin;
      s["raw"] = c.raw.at(i);
      s["normalized"] = c.normalized.at(i);
      s["weight"] = c.weight;
      s["weighted"] = c.normalized.at(i) * c.weight;
      scores.push_back(std::move(s));
    }
    n["scores"] = std::move(scores);
    nodes.push_back(std::move(n));
  }
  score["nodes"] = std::move(nodes);
  return score;
}

json GroupJson(const sim::Simulation& sim, const api::Pod& pod, const AttemptTrace* trace) {
  const api::GangRef gang = api::GangOf(pod);
  if (gang.empty()) return nullptr;
  const std::string key = pod.metadata.namespace_.string() + "/" + gang.name.string();
  json g;
  g["name"] = key;
  // The object that defines the gang, as its API shows it.
  const api::PodGroup* group =
      gang.Of<api::PodGroup>() ? sim.cluster().Get<api::PodGroup>(key) : nullptr;
  // Kubernetes' own PodGroup (scheduling.k8s.io) has no phase: its condition says as much.
  const api::SchedulingPodGroup* native = gang.Of<api::SchedulingPodGroup>()
                                              ? sim.cluster().Get<api::SchedulingPodGroup>(key)
                                              : nullptr;
  // A v1alpha1 Workload's pod group has no object of its own: the Workload defines it.
  const api::Workload* workload =
      gang.Of<api::Workload>()
          ? sim.cluster().Get<api::Workload>(pod.metadata.namespace_.string() + "/" +
                                             pod.spec.workload_ref.name.string())
          : nullptr;
  const api::PodGroupTemplate* workload_group = nullptr;
  if (workload != nullptr) {
    for (const api::PodGroupTemplate& t : workload->pod_groups) {
      if (t.name == pod.spec.workload_ref.pod_group.str()) workload_group = &t;
    }
  }
  g["kind"] =
      gang.Of<api::PodGroup>() || gang.Of<api::SchedulingPodGroup>() ? "PodGroup" : "Workload";
  g["quorumName"] = gang.Of<api::PodGroup>() ? "minMember" : "minCount";
  g["exists"] = group != nullptr || native != nullptr || workload_group != nullptr;
  int32_t scheduled = 0;
  int32_t member_count = 0;
  for (const auto& [k, stored] : sim.cluster().pods()) {
    if (stored->metadata.namespace_ != pod.metadata.namespace_ || api::GangOf(*stored) != gang) {
      continue;
    }
    ++member_count;
    if (!stored->spec.node_name.empty()) ++scheduled;
  }
  g["memberCount"] = member_count;
  if (group != nullptr) {
    g["minMember"] = group->spec.min_member;
    g["phase"] = std::string(api::PodGroupPhaseName(group->status.phase));
    g["scheduled"] = group->status.scheduled;
    const api::Condition* cond = api::FindCondition(group->status.conditions, "Scheduled");
    g["message"] = cond != nullptr ? cond->message : "";
  } else if (native != nullptr) {
    g["minMember"] = native->spec.policy.min_count.value_or(1);
    const api::Condition* cond =
        api::FindCondition(native->status.conditions, native->ScheduledCondition());
    g["phase"] = cond != nullptr && cond->status.str() == "True" ? "Scheduled" : "Pending";
    g["scheduled"] = scheduled;
    g["message"] = cond != nullptr ? cond->message : "";
  } else if (workload_group != nullptr) {
    // Without a status, the Workload's latest event from the scheduler says what happened.
    const int32_t min_count = workload_group->policy.min_count.value_or(1);
    g["minMember"] = min_count;
    g["phase"] = scheduled >= min_count ? "Scheduled" : "Pending";
    g["scheduled"] = scheduled;
    std::string message;
    for (const cluster::StoredEvent& e : sim.cluster().events()) {
      if (e.record.regarding.kind == "Workload" &&
          e.record.regarding.Key() == workload->metadata.Key()) {
        message = e.record.message;
      }
    }
    g["message"] = message;
  }
  json members = json::array();
  for (const auto& [k, stored] : sim.cluster().pods()) {
    const api::Pod& p = *stored;
    if (p.metadata.namespace_ != pod.metadata.namespace_ || api::GangOf(p) != gang) continue;
    json m;
    m["name"] = p.metadata.name;
    m["status"] = PodStatusText(sim, p);
    m["nodeName"] = p.spec.node_name.string();
    members.push_back(std::move(m));
  }
  g["members"] = std::move(members);
  if (trace != nullptr && trace->group) {
    const AttemptTrace::Group& c = *trace->group;
    json cycle;
    cycle["minMember"] = c.min_member;
    cycle["members"] = c.total_members;
    cycle["assignedBefore"] = c.assigned_before;
    cycle["attempted"] = c.attempted;
    json placed = json::array();
    for (const auto& [member, node] : c.placed) placed.push_back({{"pod", member}, {"node", node}});
    cycle["placed"] = std::move(placed);
    json failed = json::array();
    for (const auto& [member, why] : c.failed) failed.push_back({{"pod", member}, {"reason", why}});
    cycle["failed"] = std::move(failed);
    cycle["scheduled"] = c.scheduled;
    cycle["message"] = c.message;
    g["lastCycle"] = std::move(cycle);
  }
  return g;
}

// Why a pod has no recorded attempt.
std::string NoAttemptReason(const sim::Simulation& sim, const api::Pod& pod) {
  if (!pod.spec.node_name.empty()) {
    return fmt::format("the pod was created bound to {} (spec.nodeName): no scheduler placed it",
                       pod.spec.node_name.str());
  }
  if (!sim.scheduler().Responsible(pod)) {
    return fmt::format("no profile of this scheduler is named \"{}\" (spec.schedulerName)",
                       pod.spec.scheduler_name.str());
  }
  if (sim.IsGated(pod)) {
    return fmt::format("the pod is held by scheduling gate(s) {}: it never reached the queue",
                       fmt::join(pod.spec.scheduling_gates, ", "));
  }
  // Held at PreEnqueue by another plugin (a gang short of members, a claim not made yet).
  std::string message;
  if (const framework::QueuedPodInfo* held =
          sim.scheduler().queue().Held(pod.metadata.Key(), &message)) {
    return fmt::format("{} held the pod at PreEnqueue: {}; it never reached a scheduling cycle",
                       held->gating_plugin, message);
  }
  return "the scheduler never attempted it (it may have been waiting in backoff, or created "
         "when the run ended)";
}

}  // namespace

// The pod's ResourceClaims: each pod claim's claim and the devices allocated to it.
json ResourceClaimsJson(const sim::Simulation& sim, const api::Pod& pod) {
  json out = json::array();
  for (const auto& [entry, name] : api::PodClaimEntries(pod)) {
    json j;
    j["name"] = entry.string();
    const bool made = name.has_value();
    const std::string claim_name = made ? name->string() : "";
    j["claim"] = claim_name;
    const api::ResourceClaim* claim =
        claim_name.empty() ? nullptr
                           : sim.cluster().Get<api::ResourceClaim>(
                                 pod.metadata.namespace_.string() + "/" + claim_name);
    j["state"] = !made                ? "not created yet"
                 : claim == nullptr   ? "missing"
                 : claim->Allocated() ? "allocated"
                                      : "not allocated";
    json devices = json::array();
    if (claim != nullptr && claim->status.allocation) {
      for (const api::DeviceRequestAllocationResult& d : claim->status.allocation->devices) {
        devices.push_back(fmt::format("{}: {}", d.request, d.DeviceName()));
      }
    }
    j["devices"] = std::move(devices);
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::ordered_json BuildExplanation(const sim::Simulation& sim, const api::Pod& pod,
                                        const framework::AttemptTrace* trace) {
  json out;
  out["apiVersion"] = "muster.dev/v1alpha1";
  out["kind"] = "SchedulingExplanation";
  out["time"] = api::FormatDuration(sim.End());
  json p;
  p["namespace"] = pod.metadata.namespace_.string();
  p["name"] = pod.metadata.name;
  p["status"] = PodStatusText(sim, pod);
  p["nodeName"] = pod.spec.node_name.string();
  p["podGroup"] = api::GangOf(pod).name.string();
  p["attempts"] = sim.scheduler().Attempts(pod.metadata.Key());
  const api::Condition* cond = api::FindCondition(pod.status.conditions, "PodScheduled");
  p["message"] = cond != nullptr && cond->status.str() == "False" ? cond->message : "";
  out["pod"] = std::move(p);
  out["resourceClaims"] = ResourceClaimsJson(sim, pod);

  if (trace == nullptr) {
    out["attempt"] = nullptr;
    out["noAttempt"] = NoAttemptReason(sim, pod);
  } else {
    json a;
    a["number"] = trace->attempt;
    a["time"] = At(trace->time);
    a["profile"] = trace->profile;
    a["result"] = Name(trace->result);
    a["message"] = trace->message;
    a["selectedNode"] = trace->selected_node;
    if (!trace->selected_node.empty()) a["ties"] = trace->ties;
    json nodes;
    nodes["total"] = trace->all_nodes;
    nodes["toFind"] = trace->nodes_to_find;
    nodes["filtered"] = trace->nodes_filtered;
    nodes["feasible"] = trace->nodes_feasible;
    nodes["scored"] = trace->scored_nodes.size();
    if (trace->percentage_of_nodes_to_score) {
      nodes["percentageOfNodesToScore"] = *trace->percentage_of_nodes_to_score;
    } else {
      nodes["percentageOfNodesToScore"] = nullptr;
    }
    a["nodes"] = std::move(nodes);
    if (!trace->nominated_node.empty()) {
      json n;
      n["node"] = trace->nominated_node;
      n["result"] = Name(trace->nominated_node_status->code());
      n["message"] = trace->nominated_node_status->Message();
      a["nominatedNode"] = std::move(n);
    }
    a["preFilter"] = OutcomesJson(trace->pre_filter);
    a["filter"] = FilterJson(sim, pod, *trace);
    a["preScore"] = OutcomesJson(trace->pre_score);
    a["score"] = ScoreJson(*trace);
    json post;
    post["plugins"] = OutcomesJson(trace->post_filter);
    post["nominatedNode"] = trace->post_filter_nominated.value_or("");
    a["postFilter"] = std::move(post);
    json steps = json::array();
    for (const AttemptTrace::Step& s : trace->steps) {
      json j;
      j["time"] = At(s.time);
      j["step"] = s.step;
      j["result"] = Name(s.code);
      j["message"] = s.message;
      steps.push_back(std::move(j));
    }
    a["steps"] = std::move(steps);
    out["attempt"] = std::move(a);
  }
  out["podGroup"] = GroupJson(sim, pod, trace);
  return out;
}

namespace {

std::string Str(const json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

// A rejected node's reason, with the taint it stands for where explain knows it.
std::string Reason(const json& node) {
  std::string reason = Str(node["reason"]);
  if (node.contains("taint")) reason += ": " + Str(node["taint"]);
  return reason;
}

void PrintOutcomes(const char* title, const json& outcomes, std::ostream& out) {
  if (outcomes.empty()) return;
  out << "\n" << title << "\n";
  std::vector<std::vector<std::string>> rows{{"  PLUGIN", "RESULT", "MESSAGE"}};
  for (const json& o : outcomes) {
    rows.push_back({"  " + Str(o["plugin"]), Str(o["result"]), Str(o["message"])});
  }
  PrintColumns(rows, out);
}

void PrintNodes(const json& a, std::ostream& out) {
  const json& n = a["nodes"];
  const int64_t total = n["total"].get<int64_t>();
  const int64_t filtered = n["filtered"].get<int64_t>();
  if (filtered == 0 && Str(a["selectedNode"]).empty() && !a.contains("nominatedNode")) {
    // PreFilter (or a gang's check of its group) turned the pod away first.
    out << fmt::format(
        "\nNodes: {} in the cluster; the attempt was rejected before Filter "
        "examined any.\n",
        total);
    return;
  }
  out << fmt::format("\nNodes: {} in the cluster; Filter examined {}, {} passed", total, filtered,
                     n["feasible"].get<int64_t>());
  if (n["scored"].get<int64_t>() > 0) out << fmt::format(", {} scored", n["scored"].get<int64_t>());
  out << ".\n";
  if (filtered < total && filtered > 0) {
    const std::string pct = n["percentageOfNodesToScore"].is_null()
                                ? "the adaptive default"
                                : fmt::format("{}%", n["percentageOfNodesToScore"].get<int>());
    out << fmt::format(
        "  Filter stops once it has {} feasible nodes (percentageOfNodesToScore: {}); the "
        "other {} were not examined in this attempt.\n",
        n["toFind"].get<int64_t>(), pct, total - filtered);
  }
  if (a.contains("nominatedNode")) {
    const json& nn = a["nominatedNode"];
    out << fmt::format("  Nominated node {} was tried first: {}{}\n", Str(nn["node"]),
                       Str(nn["result"]),
                       Str(nn["message"]).empty() ? "" : ": " + Str(nn["message"]));
  }
}

void PrintFilter(const json& filter, size_t top, std::ostream& out) {
  const json& nodes = filter["nodes"];
  if (nodes.empty()) return;
  std::vector<std::string> plugins;
  for (const json& p : filter["plugins"]) plugins.push_back(Str(p));
  out << fmt::format("\nFilter (plugins in order: {}", fmt::join(plugins, ", "));
  std::vector<std::string> skipped;
  for (const json& p : filter["skipped"]) skipped.push_back(Str(p));
  if (!skipped.empty())
    out << fmt::format("; skipped after PreFilter: {}", fmt::join(skipped, ", "));
  out << ")\n";
  std::vector<const json*> passed, rejected;
  for (const json& n : nodes) (Str(n["result"]) == "Passed" ? passed : rejected).push_back(&n);
  std::vector<std::vector<std::string>> rows{{"  NODE", "RESULT", "PLUGIN", "REASON"}};
  auto with_nominated = [](const json& n) {
    return n.contains("nominatedPods")
               ? fmt::format(" (with {} pod(s) nominated to it{})", n["nominatedPods"].get<int>(),
                             n["rejectedWithNominatedPods"].get<bool>() ? "" : ", and without")
               : std::string();
  };
  for (size_t i = 0; i < passed.size() && i < top; ++i) {
    rows.push_back({"  " + Str((*passed[i])["node"]), "Passed",
                    fmt::format("(all {} that ran)", (*passed[i])["verdicts"].size()),
                    with_nominated(*passed[i])});
  }
  if (passed.size() > top) {
    rows.push_back({fmt::format("  ({} more passed)", passed.size() - top), "", "", ""});
  }
  if (rejected.size() <= top) {
    for (const json* n : rejected) {
      rows.push_back({"  " + Str((*n)["node"]), "Rejected", Str((*n)["plugin"]),
                      Reason(*n) + with_nominated(*n)});
    }
    PrintColumns(rows, out);
    return;
  }
  if (rows.size() > 1) PrintColumns(rows, out);
  // Many rejections: one line per plugin and reason, in order of count.
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> by_reason;
  for (const json* n : rejected) {
    by_reason[{Str((*n)["plugin"]), Reason(*n)}].push_back(Str((*n)["node"]));
  }
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<std::string>>> sorted(
      by_reason.begin(), by_reason.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  out << fmt::format("  {} rejected, by reason:\n", rejected.size());
  std::vector<std::vector<std::string>> summary{{"    COUNT", "PLUGIN", "REASON", "NODES"}};
  for (const auto& [why, names] : sorted) {
    std::vector<std::string> shown(names.begin(),
                                   names.begin() + std::min<size_t>(3, names.size()));
    summary.push_back(
        {fmt::format("    {}", names.size()), why.first, why.second,
         fmt::format("{}{}", fmt::join(shown, ", "), names.size() > 3 ? ", ..." : "")});
  }
  PrintColumns(summary, out);
}

void PrintScore(const json& score, const std::string& selected, size_t top, std::ostream& out) {
  const json& nodes = score["nodes"];
  if (nodes.empty()) return;
  if (score["plugins"].empty()) {
    out << fmt::format("\nScore: no score plugin ran; {} feasible node(s) tied.\n", nodes.size());
    return;
  }
  out << (nodes.size() > top ? fmt::format("\nScore (the top {} of {} nodes)\n", top, nodes.size())
                             : std::string("\nScore\n"));
  std::vector<std::vector<std::string>> rows{
      {"  NODE", "PLUGIN", "RAW", "NORMALIZED", "WEIGHT", "WEIGHTED"}};
  for (size_t i = 0; i < nodes.size() && i < top; ++i) {
    const json& n = nodes[i];
    bool first = true;
    for (const json& s : n["scores"]) {
      rows.push_back({first ? "  " + Str(n["node"]) : "", Str(s["plugin"]), s["raw"].dump(),
                      s["normalized"].dump(), s["weight"].dump(), s["weighted"].dump()});
      first = false;
    }
    rows.push_back({"", "total", "", "", "",
                    n["total"].dump() + (Str(n["node"]) == selected ? "   <- selected" : "")});
  }
  PrintColumns(rows, out);
}

void PrintGroup(const json& g, std::ostream& out) {
  if (g.is_null()) return;
  const std::string kind = Str(g["kind"]);
  out << "\n" << kind << " " << Str(g["name"]);
  if (!g["exists"].get<bool>()) {
    out << ": no such " << kind << " at the end of the run\n";
  } else {
    out << fmt::format(" ({} {}, {} member(s)): {}, {} scheduled", Str(g["quorumName"]),
                       g["minMember"].get<int>(), g["memberCount"].get<int>(), Str(g["phase"]),
                       g["scheduled"].get<int>());
    if (!Str(g["message"]).empty()) out << "; " << Str(g["message"]);
    out << "\n";
  }
  if (g.contains("lastCycle")) {
    const json& c = g["lastCycle"];
    out << fmt::format(
        "  In this attempt's group cycle: {} member(s) already on nodes, {} tried together.\n",
        c["assignedBefore"].get<int>(), c["attempted"].get<int>());
    std::vector<std::string> placed;
    for (const json& p : c["placed"]) placed.push_back(Str(p["pod"]) + " on " + Str(p["node"]));
    if (!placed.empty()) out << fmt::format("    placed: {}\n", fmt::join(placed, ", "));
    for (const json& f : c["failed"]) {
      out << fmt::format("    not placed: {}: {}\n", Str(f["pod"]), Str(f["reason"]));
    }
    out << fmt::format("    decision: {}: {}\n",
                       c["scheduled"].get<bool>() ? "the group goes on to bind" : "nothing placed",
                       Str(c["message"]));
  }
  std::vector<std::vector<std::string>> rows{{"  MEMBER", "STATUS", "NODE"}};
  for (const json& m : g["members"]) {
    rows.push_back({"  " + Str(m["name"]), Str(m["status"]),
                    Str(m["nodeName"]).empty() ? "<none>" : Str(m["nodeName"])});
  }
  PrintColumns(rows, out);
}

}  // namespace

void PrintExplanation(const nlohmann::ordered_json& e, size_t top, std::ostream& out) {
  const json& pod = e["pod"];
  out << fmt::format("Pod {}/{}: {}", Str(pod["namespace"]), Str(pod["name"]), Str(pod["status"]));
  if (!Str(pod["nodeName"]).empty()) out << " on " << Str(pod["nodeName"]);
  out << fmt::format(" when the run ended at {} ({} scheduling attempt(s))\n", Str(e["time"]),
                     pod["attempts"].get<int>());
  if (!Str(pod["message"]).empty()) out << "  " << Str(pod["message"]) << "\n";
  if (!e["resourceClaims"].empty()) {
    out << "\nResource claims\n";
    for (const json& c : e["resourceClaims"]) {
      out << fmt::format("  {}: {}{}", Str(c["name"]),
                         Str(c["claim"]).empty() ? "" : Str(c["claim"]) + ", ", Str(c["state"]));
      for (const json& d : c["devices"]) out << "\n    " << Str(d);
      out << "\n";
    }
  }
  const json& a = e["attempt"];
  if (a.is_null()) {
    out << "\nNo scheduling attempt: " << Str(e["noAttempt"]) << ".\n";
    PrintGroup(e["podGroup"], out);
    return;
  }
  out << fmt::format("\nLast attempt: #{} at {}, profile {}\n", a["number"].get<int>(),
                     Str(a["time"]), Str(a["profile"]));
  if (!Str(a["selectedNode"]).empty()) {
    const int64_t ties = a["ties"].get<int64_t>();
    out << fmt::format("  Chose {}{}\n", Str(a["selectedNode"]),
                       ties > 1 ? fmt::format(" (one of {} nodes tied at the top score, picked "
                                              "at random with the run's seed)",
                                              ties)
                                : "");
  }
  if (Str(a["result"]) != "Success" || !Str(a["message"]).empty()) {
    out << fmt::format("  Result: {}: {}\n", Str(a["result"]), Str(a["message"]));
  }
  PrintOutcomes("PreFilter", a["preFilter"], out);
  PrintNodes(a, out);
  PrintFilter(a["filter"], top, out);
  PrintOutcomes("PreScore", a["preScore"], out);
  PrintScore(a["score"], Str(a["selectedNode"]), top, out);
  const json& post = a["postFilter"];
  if (!post["plugins"].empty()) {
    PrintOutcomes("PostFilter", post["plugins"], out);
    for (const json& p : post["plugins"]) {
      if (!p.contains("notes")) continue;
      out << "  " << Str(p["plugin"]) << ":\n";
      for (const json& note : p["notes"]) out << "    " << Str(note) << "\n";
    }
    if (!Str(post["nominatedNode"]).empty()) {
      out << "    nominated node: " << Str(post["nominatedNode"]) << "\n";
    }
  }
  if (!a["steps"].empty()) {
    out << "\nAfter the choice of node\n";
    std::vector<std::vector<std::string>> rows{{"  TIME", "STEP", "RESULT", "MESSAGE"}};
    for (const json& s : a["steps"]) {
      rows.push_back({"  " + Str(s["time"]), Str(s["step"]), Str(s["result"]), Str(s["message"])});
    }
    PrintColumns(rows, out);
  }
  PrintGroup(e["podGroup"], out);
}

}  // namespace muster::report
