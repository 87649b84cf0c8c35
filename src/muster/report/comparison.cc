#include "muster/report/comparison.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <unordered_map>

#include <fmt/format.h>

#include "muster/api/gang.h"
#include "muster/report/simulation_output.h"
#include "muster/report/text.h"

namespace muster::report {
namespace {

using json = nlohmann::ordered_json;

// The label a Deployment puts on the pods of its ReplicaSets.
const api::Symbol& PodTemplateHash() {
  static const api::Symbol hash("pod-template-hash");
  return hash;
}

// "ReplicaSet default/web", or "Deployment default/web" for the pods of a ReplicaSet a
// Deployment made (named "<deployment>-<pod-template-hash>", the hash drawn from the seed, so
// that the same Deployment is one workload over every seed); empty for a pod without a
// controller.
std::string WorkloadOf(const api::Pod& pod) {
  const api::OwnerReference* owner = pod.metadata.ControllerRef();
  if (owner == nullptr) return "";
  const std::string ns = pod.metadata.namespace_.string();
  if (owner->kind == "ReplicaSet") {
    if (const api::Symbol* hash = pod.metadata.labels.Get(PodTemplateHash())) {
      const std::string suffix = "-" + hash->string();
      if (owner->name.size() > suffix.size() && owner->name.ends_with(suffix)) {
        return fmt::format("Deployment {}/{}", ns,
                           owner->name.substr(0, owner->name.size() - suffix.size()));
      }
    }
  }
  return fmt::format("{} {}/{}", owner->kind, ns, owner->name);
}

// ---- Spreads: a figure's values over a side's runs ----

struct Spread {
  double mean = 0;
  double min = 0;
  double max = 0;
  int runs = 0;  // how many runs had a value
};

Spread SpreadOf(const std::vector<double>& values) {
  Spread s;
  if (values.empty()) return s;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  double total = 0;
  for (double v : values) total += v;
  s.mean = total / static_cast<double>(values.size());
  s.runs = static_cast<int>(values.size());
  return s;
}

// The rule of the whole comparison: the two sides' values do not overlap. Values within a
// thousandth are the same (a mean of percentages is not exact).
bool Apart(const Spread& a, const Spread& b) {
  if (a.runs == 0 || b.runs == 0) return a.runs != b.runs;
  constexpr double kSame = 1e-3;
  return a.min > b.max + kSame || b.min > a.max + kSame;
}

double Round(double v) { return std::round(v * 1000) / 1000; }

json SpreadJson(const Spread& s) {
  if (s.runs == 0) return nullptr;
  json j;
  j["mean"] = Round(s.mean);
  j["min"] = Round(s.min);
  j["max"] = Round(s.max);
  j["runs"] = s.runs;
  return j;
}

double Seconds(api::Duration d) { return std::chrono::duration<double>(d).count(); }

// A figure of each run of a side, the runs in which it has none left out.
template <typename Fn>
Spread Over(const std::vector<RunOutcome>& runs, Fn&& value) {
  std::vector<double> values;
  for (const RunOutcome& run : runs) {
    if (const std::optional<double> v = value(run)) values.push_back(*v);
  }
  return SpreadOf(values);
}

// {"a": spread, "b": spread, "differs": bool}
json Pair(const Spread& a, const Spread& b) {
  json j;
  j["a"] = SpreadJson(a);
  j["b"] = SpreadJson(b);
  j["differs"] = Apart(a, b);
  return j;
}

// ---- Resources ----

// The resources a comparison shows utilisation of: cpu and memory, and every extended resource
// (a GPU) some node has and some run's pods request.
std::vector<std::string> ResourcesShown(const std::vector<const RunOutcome*>& runs) {
  std::set<std::string> requested;
  for (const RunOutcome* run : runs) {
    for (const RunNode& n : run->nodes) {
      for (const auto& [name, amount] : n.requested.scalar) {
        if (amount > 0 && n.allocatable.Scalar(name) > 0) requested.insert(name.string());
      }
    }
  }
  std::vector<std::string> out = {"cpu", "memory"};
  out.insert(out.end(), requested.begin(), requested.end());
  return out;
}

int64_t Amount(const api::Resource& r, const std::string& resource) {
  if (resource == "cpu") return r.milli_cpu;
  if (resource == "memory") return r.memory;
  return r.Scalar(api::Symbol(resource));
}

// Requested over allocatable of `nodes`, in percent; nullopt when they have none of it.
std::optional<double> Utilisation(const std::vector<const RunNode*>& nodes,
                                  const std::string& resource) {
  int64_t requested = 0, allocatable = 0;
  for (const RunNode* n : nodes) {
    requested += Amount(n->requested, resource);
    allocatable += Amount(n->allocatable, resource);
  }
  if (allocatable <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(requested) / static_cast<double>(allocatable);
}

// ---- Summary ----

// A gang with its quorum bound (a gang of minCount 0 needs one member, as History has it).
bool AtQuorum(const RunGang& g) { return g.bound >= std::max(g.min_count, 1); }

struct Metric {
  std::string name;
  Unit unit;
  std::function<std::optional<double>(const RunOutcome&)> value;
};

std::optional<double> Percentile(std::vector<double> values, double p) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

std::vector<double> BindLatencies(const RunOutcome& run) {
  std::vector<double> out;
  for (const RunPod& p : run.pods) {
    if (p.bind_latency) out.push_back(Seconds(*p.bind_latency));
  }
  return out;
}

std::vector<Metric> Metrics(const std::vector<std::string>& resources) {
  auto count = [](std::string_view status) {
    return [status](const RunOutcome& run) -> std::optional<double> {
      return static_cast<double>(std::count_if(
          run.pods.begin(), run.pods.end(), [&](const RunPod& p) { return p.status == status; }));
    };
  };
  std::vector<Metric> metrics = {
      {"pods", Unit::kCount,
       [](const RunOutcome& run) { return std::optional<double>(run.pods.size()); }},
      {"bound", Unit::kCount,
       [](const RunOutcome& run) -> std::optional<double> {
         return static_cast<double>(std::count_if(run.pods.begin(), run.pods.end(),
                                                  [](const RunPod& p) { return !p.node.empty(); }));
       }},
      {"pending", Unit::kCount,
       [](const RunOutcome& run) -> std::optional<double> {
         return static_cast<double>(std::count_if(
             run.pods.begin(), run.pods.end(),
             [](const RunPod& p) { return p.node.empty() && p.status == "Pending"; }));
       }},
      {"gated", Unit::kCount, count("SchedulingGated")},
      {"running", Unit::kCount, count("Running")},
      {"succeeded", Unit::kCount, count("Succeeded")},
      {"failed", Unit::kCount, count("Failed")},
      {"preempted", Unit::kCount,
       [](const RunOutcome& run) { return std::optional<double>(run.preempted.size()); }},
      {"gangsAtQuorum", Unit::kCount,
       [](const RunOutcome& run) -> std::optional<double> {
         return static_cast<double>(std::count_if(run.gangs.begin(), run.gangs.end(),
                                                  [](const RunGang& g) { return AtQuorum(g); }));
       }},
      {"bindLatencyP50", Unit::kSeconds,
       [](const RunOutcome& run) { return Percentile(BindLatencies(run), 0.5); }},
      {"bindLatencyP90", Unit::kSeconds,
       [](const RunOutcome& run) { return Percentile(BindLatencies(run), 0.9); }},
      {"bindLatencyMax", Unit::kSeconds,
       [](const RunOutcome& run) { return Percentile(BindLatencies(run), 1.0); }},
      {"end", Unit::kSeconds,
       [](const RunOutcome& run) { return std::optional<double>(Seconds(run.end)); }},
      {"attempts", Unit::kCount,
       [](const RunOutcome& run) { return std::optional<double>(run.attempts); }},
  };
  for (const std::string& resource : resources) {
    metrics.push_back({resource, Unit::kPercent, [resource](const RunOutcome& run) {
                         std::vector<const RunNode*> nodes;
                         for (const RunNode& n : run.nodes) nodes.push_back(&n);
                         return Utilisation(nodes, resource);
                       }});
  }
  return metrics;
}

// ---- Pods ----

// A pod's outcomes on one side, over the runs in which it exists.
struct PodSide {
  int runs = 0;
  int bound = 0;
  std::map<std::string, int> nodes;     // node -> runs bound there
  std::map<std::string, int> statuses;  // status -> runs
  std::map<std::string, int> messages;  // unschedulable message -> runs
  std::string workload;
};

json PodSideJson(const PodSide& s) {
  json j;
  j["runs"] = s.runs;
  j["bound"] = s.bound;
  j["nodes"] = s.nodes;
  // The most frequent status and message (the first by name on a tie).
  auto top = [](const std::map<std::string, int>& m) {
    auto it = std::max_element(m.begin(), m.end(),
                               [](const auto& x, const auto& y) { return x.second < y.second; });
    return it == m.end() ? std::string() : it->first;
  };
  j["status"] = top(s.statuses);
  j["message"] = top(s.messages);
  return j;
}

// How a pod's outcomes differ: "presence" (it exists in every run of one side and in none of
// the other), "binding" (bound in every run of one side and in none of the other), "placement"
// (bound in every run of both, never on a node of the other side's), or "".
std::string PodDifference(const PodSide& a, const PodSide& b, int runs) {
  if ((a.runs == runs && b.runs == 0) || (b.runs == runs && a.runs == 0)) return "presence";
  if (a.runs == 0 || b.runs == 0) return "";
  auto all = [](const PodSide& s) { return s.bound == s.runs; };
  if ((all(a) && b.bound == 0) || (all(b) && a.bound == 0)) return "binding";
  if (all(a) && all(b)) {
    for (const auto& [node, n] : a.nodes) {
      if (b.nodes.contains(node)) return "";
    }
    return "placement";
  }
  return "";
}

json PodsJson(const ComparedSide& a, const ComparedSide& b) {
  const int runs = static_cast<int>(a.runs.size());
  // Each run's pods are in key order: walk them all at once, one key at a time, so that what is
  // held is one pod's outcomes, not every pod's.
  struct Cursor {
    const std::vector<RunPod>* pods;
    size_t at = 0;
    bool side_a;
  };
  std::vector<Cursor> cursors;
  for (const RunOutcome& run : a.runs) cursors.push_back({&run.pods, 0, true});
  for (const RunOutcome& run : b.runs) cursors.push_back({&run.pods, 0, false});
  int compared = 0;
  json items = json::array();
  while (true) {
    const std::string* key = nullptr;
    for (const Cursor& c : cursors) {
      if (c.at < c.pods->size() && (key == nullptr || (*c.pods)[c.at].key < *key)) {
        key = &(*c.pods)[c.at].key;
      }
    }
    if (key == nullptr) break;
    PodSide sides[2];
    const std::string pod = *key;
    for (Cursor& c : cursors) {
      if (c.at >= c.pods->size() || (*c.pods)[c.at].key != pod) continue;
      const RunPod& p = (*c.pods)[c.at++];
      PodSide& s = sides[c.side_a ? 0 : 1];
      ++s.runs;
      if (!p.node.empty()) {
        ++s.bound;
        ++s.nodes[p.node];
      }
      ++s.statuses[p.status];
      if (!p.message.empty()) ++s.messages[p.message];
      s.workload = p.workload;
    }
    const PodSide& pa = sides[0];
    const PodSide& pb = sides[1];
    // A pod is compared as itself when it has the same name in every run of a side: named in
    // the input, or the same seed on both sides. The others (a ReplicaSet's pods over several
    // seeds) are compared through their workload.
    if (pa.runs != runs && pb.runs != runs) continue;
    ++compared;
    const std::string difference = PodDifference(pa, pb, runs);
    if (difference.empty()) continue;
    json j;
    j["pod"] = pod;
    j["workload"] = pa.runs > 0 ? pa.workload : pb.workload;
    j["differs"] = difference;
    j["a"] = PodSideJson(pa);
    j["b"] = PodSideJson(pb);
    items.push_back(std::move(j));
  }
  json out;
  out["compared"] = compared;
  out["differing"] = items.size();
  out["items"] = std::move(items);
  return out;
}

// ---- Workloads ----

// A workload's pods in one run.
struct WorkloadCount {
  int32_t pods = 0;
  int32_t bound = 0;
  std::map<std::string, int32_t> nodes;
};

std::map<std::string, WorkloadCount> CountWorkloads(const RunOutcome& run) {
  std::map<std::string, WorkloadCount> out;
  for (const RunPod& p : run.pods) {
    if (p.workload.empty()) continue;
    WorkloadCount& w = out[p.workload];
    ++w.pods;
    if (p.node.empty()) continue;
    ++w.bound;
    ++w.nodes[p.node];
  }
  return out;
}

json WorkloadsJson(const ComparedSide& a, const ComparedSide& b) {
  // Per side, per run: each workload's counts.
  std::vector<std::map<std::string, WorkloadCount>> counts[2];
  std::set<std::string> names;
  for (int i = 0; i < 2; ++i) {
    for (const RunOutcome& run : (i == 0 ? a : b).runs) {
      counts[i].push_back(CountWorkloads(run));
      for (const auto& [name, w] : counts[i].back()) names.insert(name);
    }
  }
  // A figure of a workload over each side's runs (0 in a run without its pods).
  auto spread = [&](int side, const std::string& name, auto&& value) {
    std::vector<double> values;
    for (const auto& run : counts[side]) {
      auto it = run.find(name);
      values.push_back(it == run.end() ? 0 : static_cast<double>(value(it->second)));
    }
    return SpreadOf(values);
  };
  json out = json::array();
  for (const std::string& name : names) {
    json j;
    j["workload"] = name;
    bool differs = false;
    auto figure = [&](json& into, const char* key, auto&& value) {
      const Spread sa = spread(0, name, value), sb = spread(1, name, value);
      into[key] = Pair(sa, sb);
      differs = differs || Apart(sa, sb);
    };
    figure(j, "pods", [](const WorkloadCount& w) { return w.pods; });
    figure(j, "bound", [](const WorkloadCount& w) { return w.bound; });
    // Its pods per node, over the nodes either side used.
    std::set<std::string> nodes;
    for (const auto& side : counts) {
      for (const auto& run : side) {
        if (auto it = run.find(name); it != run.end()) {
          for (const auto& [node, n] : it->second.nodes) nodes.insert(node);
        }
      }
    }
    json per_node = json::array();
    for (const std::string& node : nodes) {
      json n;
      n["node"] = node;
      const Spread sa = spread(0, name, [&](const WorkloadCount& w) {
        auto it = w.nodes.find(node);
        return it == w.nodes.end() ? 0 : it->second;
      });
      const Spread sb = spread(1, name, [&](const WorkloadCount& w) {
        auto it = w.nodes.find(node);
        return it == w.nodes.end() ? 0 : it->second;
      });
      n.update(Pair(sa, sb));
      differs = differs || Apart(sa, sb);
      per_node.push_back(std::move(n));
    }
    j["nodes"] = std::move(per_node);
    j["differs"] = differs;
    out.push_back(std::move(j));
  }
  return out;
}

// ---- Gangs ----

json GangsJson(const ComparedSide& a, const ComparedSide& b) {
  std::set<std::string> keys;
  for (const auto* side : {&a, &b}) {
    for (const RunOutcome& run : side->runs) {
      for (const RunGang& g : run.gangs) keys.insert(g.key);
    }
  }
  json out = json::array();
  for (const std::string& key : keys) {
    auto gang = [&](const RunOutcome& run) -> const RunGang* {
      auto it = std::lower_bound(run.gangs.begin(), run.gangs.end(), key,
                                 [](const RunGang& g, const std::string& k) { return g.key < k; });
      return it != run.gangs.end() && it->key == key ? &*it : nullptr;
    };
    json j;
    j["podGroup"] = key;
    bool differs = false;
    auto figure = [&](const char* name, auto&& value) {
      const Spread sa = Over(a.runs, value), sb = Over(b.runs, value);
      j[name] = Pair(sa, sb);
      differs = differs || Apart(sa, sb);
    };
    figure("minCount", [&](const RunOutcome& run) -> std::optional<double> {
      const RunGang* g = gang(run);
      return g == nullptr ? std::nullopt : std::optional<double>(g->min_count);
    });
    figure("bound", [&](const RunOutcome& run) -> std::optional<double> {
      const RunGang* g = gang(run);
      return g == nullptr ? std::nullopt : std::optional<double>(g->bound);
    });
    figure("atQuorum", [&](const RunOutcome& run) -> std::optional<double> {
      const RunGang* g = gang(run);
      return g == nullptr ? std::nullopt : std::optional<double>(AtQuorum(*g));
    });
    figure("quorumAfter", [&](const RunOutcome& run) -> std::optional<double> {
      const RunGang* g = gang(run);
      if (g == nullptr || !g->quorum_after) return std::nullopt;
      return Seconds(*g->quorum_after);
    });
    figure("allBoundAfter", [&](const RunOutcome& run) -> std::optional<double> {
      const RunGang* g = gang(run);
      if (g == nullptr || !g->all_bound_after) return std::nullopt;
      return Seconds(*g->all_bound_after);
    });
    j["differs"] = differs;
    out.push_back(std::move(j));
  }
  return out;
}

// ---- Nodes and labels ----

// The node figures, pods then each resource's utilisation, of the nodes `select` gives of a
// run.
using NodeSelection = std::function<std::vector<const RunNode*>(const RunOutcome&)>;

bool NodeFigures(json& j, const ComparedSide& a, const ComparedSide& b,
                 const std::vector<std::string>& resources, const NodeSelection& select) {
  std::vector<std::vector<const RunNode*>> chosen[2];
  for (int i = 0; i < 2; ++i) {
    for (const RunOutcome& run : (i == 0 ? a : b).runs) chosen[i].push_back(select(run));
  }
  bool differs = false;
  auto figure = [&](const std::string& name, auto&& value) {
    Spread s[2];
    for (int i = 0; i < 2; ++i) {
      std::vector<double> values;
      for (const auto& nodes : chosen[i]) {
        if (const std::optional<double> v = value(nodes)) values.push_back(*v);
      }
      s[i] = SpreadOf(values);
    }
    j[name] = Pair(s[0], s[1]);
    differs = differs || Apart(s[0], s[1]);
  };
  figure("pods", [](const std::vector<const RunNode*>& nodes) -> std::optional<double> {
    if (nodes.empty()) return std::nullopt;
    int32_t pods = 0;
    for (const RunNode* n : nodes) pods += n->pods;
    return pods;
  });
  for (const std::string& resource : resources) {
    figure(resource,
           [&](const std::vector<const RunNode*>& nodes) { return Utilisation(nodes, resource); });
  }
  j["differs"] = differs;
  return differs;
}

json NodesJson(const ComparedSide& a, const ComparedSide& b,
               const std::vector<std::string>& resources) {
  std::set<std::string> names;
  for (const auto* side : {&a, &b}) {
    for (const RunOutcome& run : side->runs) {
      for (const RunNode& n : run.nodes) names.insert(n.name);
    }
  }
  json items = json::array();
  int differing = 0;
  for (const std::string& name : names) {
    json j;
    j["node"] = name;
    differing += NodeFigures(j, a, b, resources, [&](const RunOutcome& run) {
      // Each run's nodes are in name order.
      auto it = std::lower_bound(run.nodes.begin(), run.nodes.end(), name,
                                 [](const RunNode& n, const std::string& k) { return n.name < k; });
      return it != run.nodes.end() && it->name == name ? std::vector<const RunNode*>{&*it}
                                                       : std::vector<const RunNode*>{};
    });
    items.push_back(std::move(j));
  }
  json out;
  out["resources"] = resources;
  out["differing"] = differing;
  out["items"] = std::move(items);
  return out;
}

json LabelsJson(const ComparedSide& a, const ComparedSide& b,
                const std::vector<std::string>& resources) {
  json out = json::array();
  const std::vector<std::string>& keys = a.runs.front().label_keys;
  for (size_t k = 0; k < keys.size(); ++k) {
    // value -> nodes (of the side with more, when a side's own objects changed the nodes)
    std::map<std::string, int> values;
    bool any = false;
    for (const auto* side : {&a, &b}) {
      std::map<std::string, int> of_side;
      for (const RunNode& n : side->runs.front().nodes) {
        ++of_side[n.labels[k]];
        any = any || !n.labels[k].empty();
      }
      for (const auto& [value, nodes] : of_side) values[value] = std::max(values[value], nodes);
    }
    if (!any) continue;
    json label;
    label["label"] = keys[k];
    json rows = json::array();
    for (const auto& [value, nodes] : values) {
      json j;
      j["value"] = value;
      j["nodes"] = nodes;
      NodeFigures(j, a, b, resources, [&](const RunOutcome& run) {
        std::vector<const RunNode*> out;
        for (const RunNode& n : run.nodes) {
          if (n.labels[k] == value) out.push_back(&n);
        }
        return out;
      });
      rows.push_back(std::move(j));
    }
    label["values"] = std::move(rows);
    out.push_back(std::move(label));
  }
  return out;
}

json PreemptedJson(const RunOutcome& run) {
  json out = json::array();
  for (const auto& [victim, by] : run.preempted) out.push_back({{"pod", victim}, {"by", by}});
  return out;
}

json SideJson(const ComparedSide& side) {
  json j;
  j["name"] = side.name;
  j["config"] = side.config;
  j["files"] = side.files;
  j["replaced"] = side.replaced;
  return j;
}

}  // namespace

RunOutcome Outcome(const sim::Simulation& sim, const std::vector<std::string>& label_keys) {
  const cluster::MemoryCluster& c = sim.cluster();
  RunOutcome out;
  out.seed = sim.options().seed;
  out.end = sim.End();
  out.label_keys = label_keys;
  // Each gang's members' latest binding, for allBoundAfter.
  std::unordered_map<std::string, api::Duration> last_bound;
  for (const auto& [key, record] : sim.records()) out.attempts += record.attempts;
  out.pods.reserve(c.pods().size());
  for (const auto& [key, stored] : c.pods()) {
    const api::Pod& pod = *stored;
    RunPod p;
    p.key = key;
    p.workload = WorkloadOf(pod);
    p.node = pod.spec.node_name.string();
    p.status = PodStatusText(sim, pod);
    if (const api::Condition* cond = api::FindCondition(pod.status.conditions, "PodScheduled");
        cond != nullptr && cond->status.str() == "False" && p.node.empty()) {
      p.message = cond->message;
    }
    // From its creation to its binding, for the pods the scheduler placed (not those created
    // bound). A pod read from a live cluster was created before the simulation began: from then.
    auto record = sim.records().find(key);
    if (record != sim.records().end() && record->second.attempts > 0) {
      if (const std::optional<api::Duration> bound = record->second.scheduled_at;
          bound && !p.node.empty()) {
        const std::optional<api::Time>& created = pod.metadata.creation_timestamp;
        const api::Duration from = created && *created >= sim::kSimulationEpoch &&
                                           *created <= sim::kSimulationEpoch + *bound
                                       ? *created - sim::kSimulationEpoch
                                       : api::Duration::zero();
        p.bind_latency = *bound - from;
        if (const api::GangRef gang = api::GangOf(pod); !gang.name.empty()) {
          api::Duration& last =
              last_bound[fmt::format("{}/{}", pod.metadata.namespace_.str(), gang.name.str())];
          last = std::max(last, *bound);
        }
      }
    }
    out.pods.push_back(std::move(p));
  }
  for (const auto& [key, g] : sim.history().groups()) {
    if (!g.created) continue;
    RunGang gang;
    gang.key = key;
    gang.min_count = g.min_count;
    gang.members = g.members;
    gang.bound = g.bound;
    const api::Duration start = std::max(*g.created, g.first_member.value_or(*g.created));
    if (g.quorum) gang.quorum_after = std::max(*g.quorum - start, api::Duration::zero());
    if (auto it = last_bound.find(key);
        it != last_bound.end() && g.members > 0 && g.bound == g.members) {
      gang.all_bound_after = std::max(it->second - start, api::Duration::zero());
    }
    out.gangs.push_back(std::move(gang));
  }
  for (const auto& [name, node] : c.Objects<api::Node>()) {
    RunNode n;
    n.name = name;
    for (const std::string& label : label_keys) {
      const api::Symbol* value = node->metadata.labels.Get(api::Symbol(label));
      n.labels.push_back(value == nullptr ? "" : value->string());
    }
    n.allocatable = api::Resource::FromList(node->status.allocatable);
    if (const sim::NodeUsage* usage = sim.history().node(api::Symbol(name))) {
      n.requested = usage->requested;
      n.pods = static_cast<int32_t>(usage->requested.allowed_pod_number);
    }
    out.nodes.push_back(std::move(n));
  }
  for (const cluster::StoredEvent& e : c.events()) {
    if (e.record.reason != "Preempted" || e.record.regarding.kind != "Pod") continue;
    out.preempted.emplace_back(e.record.regarding.Key(),
                               e.record.related ? e.record.related->Key() : "");
  }
  return out;
}

json BuildComparison(const ComparedSide& a, const ComparedSide& b) {
  std::vector<const RunOutcome*> all;
  for (const auto* side : {&a, &b}) {
    for (const RunOutcome& run : side->runs) all.push_back(&run);
  }
  const std::vector<std::string> resources = ResourcesShown(all);
  json out;
  out["apiVersion"] = "muster.dev/v1alpha1";
  out["kind"] = "SimulationComparison";
  json seeds = json::array();
  for (const RunOutcome& run : a.runs) seeds.push_back(run.seed);
  out["seeds"] = std::move(seeds);
  out["sides"] = json::array({SideJson(a), SideJson(b)});
  json summary = json::array();
  for (const Metric& m : Metrics(resources)) {
    json j;
    j["metric"] = m.name;
    const json pair = Pair(Over(a.runs, m.value), Over(b.runs, m.value));
    j.update(pair);
    summary.push_back(std::move(j));
  }
  out["summary"] = std::move(summary);
  out["pods"] = PodsJson(a, b);
  out["podGroups"] = GangsJson(a, b);
  out["workloads"] = WorkloadsJson(a, b);
  out["nodes"] = NodesJson(a, b, resources);
  out["labels"] = LabelsJson(a, b, resources);
  out["preempted"] = {{"seed", a.runs.front().seed},
                      {"a", PreemptedJson(a.runs.front())},
                      {"b", PreemptedJson(b.runs.front())}};
  return out;
}

// ---- The terminal ----

std::string SpreadText(const json& spread, Unit unit) {
  if (spread.is_null()) return "-";
  auto one = [&](double v) {
    switch (unit) {
      case Unit::kSeconds:
        return api::FormatDuration(
            std::chrono::round<api::Duration>(std::chrono::duration<double>(v)));
      case Unit::kPercent:
        return fmt::format("{:.0f}%", v);
      case Unit::kCount:
        break;
    }
    return v == std::floor(v) ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
  };
  const double mean = spread["mean"], min = spread["min"], max = spread["max"];
  if (min == max) return one(min);
  return fmt::format("{} [{}-{}]", one(mean), one(min), one(max));
}

namespace {

constexpr size_t kMaxRows = 20;

// PrintColumns without the spaces a row with an empty last cell ends with.
void Columns(const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  std::ostringstream table;
  PrintColumns(rows, table);
  std::istringstream lines(std::move(table).str());
  for (std::string line; std::getline(lines, line);) {
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << "\n";
  }
}

std::string Mark(const json& j) { return j["differs"].get<bool>() ? "differs" : ""; }

// "node-1 x2, node-2" (runs bound on each node); "-" when never bound.
std::string NodesText(const json& side, int runs) {
  if (side["runs"] == 0) return "(absent)";
  const json& nodes = side["nodes"];
  std::string out;
  for (const auto& [node, n] : nodes.items()) {
    if (!out.empty()) out += ", ";
    out += node;
    if (runs > 1) out += fmt::format(" x{}", n.get<int>());
  }
  const int bound = side["bound"];
  const int present = side["runs"];
  const std::string status = side["status"];
  if (bound == 0) return status;
  if (bound < present) out += fmt::format("; {} x{}", "Pending", present - bound);
  return out;
}

void Heading(std::ostream& out, const std::string& text) { out << "\n" << text << "\n"; }

}  // namespace

std::string ConfigurationText(const json& side) {
  const std::string config = side["config"];
  return config.empty() ? "the default profile" : "the configuration of " + config;
}

std::string MetricLabel(const std::string& metric) {
  static const std::map<std::string, std::string> kLabels = {{"pods", "pods"},
                                                             {"bound", "bound"},
                                                             {"pending", "pending"},
                                                             {"gated", "gated"},
                                                             {"running", "running"},
                                                             {"succeeded", "succeeded"},
                                                             {"failed", "failed"},
                                                             {"preempted", "preempted"},
                                                             {"gangsAtQuorum", "gangs at quorum"},
                                                             {"bindLatencyP50", "time to bind p50"},
                                                             {"bindLatencyP90", "time to bind p90"},
                                                             {"bindLatencyMax", "time to bind max"},
                                                             {"end", "last change"},
                                                             {"attempts", "attempts"}};
  auto label = kLabels.find(metric);
  return label != kLabels.end() ? label->second : metric + " requested";
}

Unit MetricUnit(const std::string& metric, const std::vector<std::string>& resources) {
  if (metric.starts_with("bindLatency") || metric == "end") return Unit::kSeconds;
  if (std::find(resources.begin(), resources.end(), metric) != resources.end()) {
    return Unit::kPercent;
  }
  return Unit::kCount;
}

void PrintComparison(const json& c, std::ostream& out) {
  const json& sides = c["sides"];
  const int runs = static_cast<int>(c["seeds"].size());
  std::vector<std::string> seeds;
  for (const json& s : c["seeds"]) seeds.push_back(std::to_string(s.get<uint64_t>()));
  out << fmt::format(
      "Compared over {} ({}): a figure differs when the two sides' values do not "
      "overlap.\n",
      runs == 1 ? "one seed" : fmt::format("{} seeds", runs), fmt::join(seeds, ", "));
  for (const json& side : sides) {
    out << fmt::format("  {}: {}", side["name"].get<std::string>(), ConfigurationText(side));
    for (const json& line : side["replaced"]) out << "; " << line.get<std::string>();
    std::vector<std::string> replaced_files;
    for (const json& f : side["files"]) replaced_files.push_back(f);
    if (side["replaced"].empty() && !replaced_files.empty()) {
      out << fmt::format("; with {}", fmt::join(replaced_files, ", "));
    }
    out << "\n";
  }
  const std::string a = sides[0]["name"], b = sides[1]["name"];
  const std::string note = runs > 1 ? " (mean [min-max] over the seeds)" : "";

  Heading(out, "SUMMARY" + note);
  std::vector<std::vector<std::string>> rows = {{"", a, b, ""}};
  const std::vector<std::string> resources = c["nodes"]["resources"];
  for (const json& m : c["summary"]) {
    const std::string metric = m["metric"];
    const Unit unit = MetricUnit(metric, resources);
    rows.push_back(
        {MetricLabel(metric), SpreadText(m["a"], unit), SpreadText(m["b"], unit), Mark(m)});
  }
  Columns(rows, out);

  const json& pods = c["pods"];
  if (pods["compared"] == 0) {
    out << "\nNo pod has the same name in every run (a controller names its pods from the seed): "
           "see the workloads.\n";
  } else if (pods["differing"] == 0) {
    out << fmt::format("\nNo pod differs ({} compared).\n", pods["compared"].get<int>());
  } else {
    Heading(out, fmt::format("PODS THAT DIFFER ({} of {} compared)", pods["differing"].get<int>(),
                             pods["compared"].get<int>()));
    rows = {{"POD", a, b, "DIFFERS"}};
    std::map<std::string, int> why[2];
    size_t shown = 0;
    for (const json& p : pods["items"]) {
      for (int i = 0; i < 2; ++i) {
        const json& side = p[i == 0 ? "a" : "b"];
        const std::string message = side["message"];
        if (!message.empty()) ++why[i][message];
      }
      if (shown++ >= kMaxRows) continue;
      rows.push_back({p["pod"], NodesText(p["a"], runs), NodesText(p["b"], runs), p["differs"]});
    }
    Columns(rows, out);
    if (shown > kMaxRows)
      out << fmt::format("and {} more (-o json lists them)\n", shown - kMaxRows);
    for (int i = 0; i < 2; ++i) {
      for (const auto& [message, n] : why[i]) {
        out << fmt::format("{} pending, {} of the pods that differ: {}\n", i == 0 ? a : b, n,
                           message);
      }
    }
  }

  if (!c["podGroups"].empty()) {
    Heading(out, "PODGROUPS" + note);
    rows = {{"PODGROUP", "MIN " + a, "MIN " + b, "BOUND " + a, "BOUND " + b, "QUORUM " + a,
             "QUORUM " + b, "ALL BOUND " + a, "ALL BOUND " + b, ""}};
    size_t shown = 0;
    for (const json& g : c["podGroups"]) {
      if (shown++ >= kMaxRows) continue;
      auto quorum = [&](const char* side, const char* figure) {
        const json& spread = g[figure][side];
        if (spread.is_null()) return std::string("never");
        std::string text = SpreadText(spread, Unit::kSeconds);
        if (const int reached = spread["runs"]; reached < runs) {
          text += fmt::format(" (in {} of {} runs)", reached, runs);
        }
        return text;
      };
      rows.push_back({g["podGroup"], SpreadText(g["minCount"]["a"], Unit::kCount),
                      SpreadText(g["minCount"]["b"], Unit::kCount),
                      SpreadText(g["bound"]["a"], Unit::kCount),
                      SpreadText(g["bound"]["b"], Unit::kCount), quorum("a", "quorumAfter"),
                      quorum("b", "quorumAfter"), quorum("a", "allBoundAfter"),
                      quorum("b", "allBoundAfter"), Mark(g)});
    }
    Columns(rows, out);
    if (shown > kMaxRows)
      out << fmt::format("and {} more (-o json lists them)\n", shown - kMaxRows);
  }

  if (!c["workloads"].empty()) {
    Heading(out, "WORKLOADS" + note);
    rows = {{"WORKLOAD", "PODS " + a, "PODS " + b, "BOUND " + a, "BOUND " + b, "NODES " + a,
             "NODES " + b, ""}};
    size_t shown = 0;
    for (const json& w : c["workloads"]) {
      if (shown++ >= kMaxRows) continue;
      // The nodes its pods went to, the busiest first: "node-1 2, node-2 1", or past four
      // "12 nodes, most on node-1 5.3 [0-16], ...".
      auto nodes = [&](const char* side) {
        std::vector<std::pair<double, const json*>> used;
        for (const json& n : w["nodes"]) {
          if (!n[side].is_null() && n[side]["max"] > 0) used.emplace_back(n[side]["mean"], &n);
        }
        std::stable_sort(used.begin(), used.end(),
                         [](const auto& x, const auto& y) { return x.first > y.first; });
        std::vector<std::string> parts;
        for (const auto& [mean, n] : used) {
          if (parts.size() == 3 && used.size() > 4) break;
          parts.push_back(fmt::format("{} {}", (*n)["node"].get<std::string>(),
                                      SpreadText((*n)[side], Unit::kCount)));
        }
        if (parts.empty()) return std::string("-");
        const std::string list = fmt::format("{}", fmt::join(parts, ", "));
        return used.size() > 4 ? fmt::format("{} nodes, most on {}", used.size(), list) : list;
      };
      rows.push_back({w["workload"], SpreadText(w["pods"]["a"], Unit::kCount),
                      SpreadText(w["pods"]["b"], Unit::kCount),
                      SpreadText(w["bound"]["a"], Unit::kCount),
                      SpreadText(w["bound"]["b"], Unit::kCount), nodes("a"), nodes("b"), Mark(w)});
    }
    Columns(rows, out);
    if (shown > kMaxRows)
      out << fmt::format("and {} more (-o json lists them)\n", shown - kMaxRows);
  }

  // Node figures: pods, then each resource's requested share.
  auto figure_header = [&](const std::string& first) {
    std::vector<std::string> header = {first, "PODS " + a, "PODS " + b};
    for (const std::string& r : resources) {
      std::string upper = r;
      std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
      header.push_back(upper + " " + a);
      header.push_back(upper + " " + b);
    }
    header.push_back("");
    return header;
  };
  auto figure_row = [&](const std::string& first, const json& j) {
    std::vector<std::string> row = {first, SpreadText(j["pods"]["a"], Unit::kCount),
                                    SpreadText(j["pods"]["b"], Unit::kCount)};
    for (const std::string& r : resources) {
      row.push_back(SpreadText(j[r]["a"], Unit::kPercent));
      row.push_back(SpreadText(j[r]["b"], Unit::kPercent));
    }
    row.push_back(Mark(j));
    return row;
  };
  const json& nodes = c["nodes"];
  const int node_count = static_cast<int>(nodes["items"].size());
  if (nodes["differing"] == 0) {
    out << fmt::format("\nNo node differs ({} compared).\n", node_count);
  } else {
    Heading(out, fmt::format("NODES THAT DIFFER ({} of {}, requested at the end{})",
                             nodes["differing"].get<int>(), node_count,
                             runs > 1 ? "; mean [min-max] over the seeds" : ""));
    rows = {figure_header("NODE")};
    size_t shown = 0;
    for (const json& n : nodes["items"]) {
      if (!n["differs"].get<bool>() || shown++ >= kMaxRows) continue;
      rows.push_back(figure_row(n["node"], n));
    }
    Columns(rows, out);
    if (shown > kMaxRows)
      out << fmt::format("and {} more (-o json lists them)\n", shown - kMaxRows);
  }

  for (const json& label : c["labels"]) {
    Heading(out, fmt::format("BY {}{}", label["label"].get<std::string>(), note));
    rows = {figure_header("VALUE")};
    size_t shown = 0;
    for (const json& v : label["values"]) {
      if (shown++ >= kMaxRows) continue;
      const std::string value = v["value"];
      rows.push_back(figure_row(value.empty() ? "(unset)" : value, v));
    }
    Columns(rows, out);
    if (shown > kMaxRows)
      out << fmt::format("and {} more (-o json lists them)\n", shown - kMaxRows);
  }

  const json& preempted = c["preempted"];
  if (!preempted["a"].empty() || !preempted["b"].empty()) {
    Heading(out, runs > 1 ? fmt::format("PREEMPTED (seed {})", preempted["seed"].get<uint64_t>())
                          : std::string("PREEMPTED"));
    rows = {{"SIDE", "POD", "TO MAKE ROOM FOR"}};
    size_t shown = 0;
    for (const auto& [side, name] : {std::pair{"a", a}, std::pair{"b", b}}) {
      for (const json& p : preempted[side]) {
        if (shown++ >= kMaxRows) continue;
        rows.push_back({name, p["pod"], p["by"]});
      }
    }
    Columns(rows, out);
    if (shown > kMaxRows)
      out << fmt::format("and {} more (-o json lists them)\n", shown - kMaxRows);
  }
}

}  // namespace muster::report
