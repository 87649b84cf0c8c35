#include "muster/cli/capacity.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "muster/api/gang.h"
#include "muster/api/pod_resources.h"
#include "muster/cli/validate.h"
#include "muster/plugins/registry.h"
#include "muster/sim/simulation.h"

namespace muster::cli {
namespace {

using json = nlohmann::ordered_json;

// One copy of the template: its pods and the gang object they name (none for a lone pod).
struct Unit {
  std::string kind;  // Pod, PodGroup or Workload
  std::string name;  // namespace/name of the pod or of the gang's object
  std::vector<api::Pod> pods;
  std::optional<api::PodGroup> pod_group;
  std::optional<api::SchedulingPodGroup> scheduling_pod_group;
  std::optional<api::Workload> workload;
  int32_t quorum = 0;      // the gang's minMember (minCount); 0 for a lone pod
  api::Resource requests;  // of all its pods, as the Fit filter counts them
};

// The copies made, in creation order: each one's pod keys.
using Copies = std::vector<std::vector<std::string>>;

// A copy's name for an object of the template: "<name>-<copy>", the number as wide as the last
// one's (web-01 ... web-25), so that names sort as the copies were made: the queue takes pods
// created at the same time in name order.
std::string CopyName(std::string_view name, uint64_t copy, int width = 1) {
  return fmt::format("{}-{:0{}}", name, copy, width);
}

// Reads the template's objects out of `m` (those decoded from `file`), taking them out of its
// order: what is left is the cluster. Errors name the template and the object.
std::optional<Unit> TakeTemplate(api::Manifests& m, const std::string& file,
                                 std::vector<std::string>* errors) {
  Unit unit;
  std::vector<api::ObjectEntry> rest;
  std::vector<const api::Pod*> pods;
  int gangs = 0;
  for (const api::ObjectEntry& e : m.order) {
    if (e.source.file != file) {
      rest.push_back(e);
      continue;
    }
    const std::string where = e.source.ToString();
    if (e.row == api::kRowOf<api::Pod>) {
      pods.push_back(&m.pods[e.index]);
    } else if (e.row == api::kRowOf<api::PodGroup>) {
      unit.pod_group = m.pod_groups[e.index];
      unit.kind = "PodGroup";
      unit.name = unit.pod_group->metadata.Key();
      unit.quorum = unit.pod_group->spec.min_member;
      ++gangs;
    } else if (e.row == api::kRowOf<api::SchedulingPodGroup>) {
      const api::SchedulingPodGroup& g = m.scheduling_pod_groups[e.index];
      if (!g.spec.parent.empty()) {
        errors->push_back(fmt::format(
            "{} (PodGroup {}): spec.parentCompositePodGroupName: capacity counts copies of one "
            "gang, not of a CompositePodGroup's tree",
            where, g.metadata.Key()));
        return std::nullopt;
      }
      unit.scheduling_pod_group = g;
      unit.kind = "PodGroup";
      unit.name = g.metadata.Key();
      unit.quorum = g.spec.policy.min_count.value_or(0);
      ++gangs;
    } else if (e.row == api::kRowOf<api::Workload>) {
      const api::Workload& w = m.workloads[e.index];
      if (!w.DefinesGroups()) {
        // A template of PodGroups: the copies of the PodGroup made from it share it.
        rest.push_back(e);
        continue;
      }
      unit.workload = w;
      unit.kind = "Workload";
      unit.name = w.metadata.Key();
      ++gangs;
    } else if (e.row == api::kRowOf<api::PriorityClass> || e.row == api::kRowOf<api::Namespace>) {
      rest.push_back(e);  // what the copies need, once
    } else {
      errors->push_back(fmt::format(
          "{}: a {} in the template: capacity counts copies of a Pod, or of a gang (a PodGroup "
          "or a v1alpha1 Workload with its pods)",
          where, e.kind));
      return std::nullopt;
    }
  }
  if (pods.empty()) {
    errors->push_back(
        fmt::format("{}: the template has no Pod: capacity counts copies of a "
                    "Pod, or of a gang with its pods",
                    file));
    return std::nullopt;
  }
  if (gangs > 1) {
    errors->push_back(fmt::format("{}: the template has {} gangs: give one", file, gangs));
    return std::nullopt;
  }
  for (const api::Pod* p : pods) {
    const api::GangRef gang = api::GangOf(*p);
    const api::Symbol ns = p->metadata.namespace_;
    bool ours = false;
    if (unit.pod_group) {
      ours = gang.Of<api::PodGroup>() && gang.name.str() == unit.pod_group->metadata.name &&
             ns == unit.pod_group->metadata.namespace_;
    } else if (unit.scheduling_pod_group) {
      ours = gang.Of<api::SchedulingPodGroup>() &&
             gang.name.str() == unit.scheduling_pod_group->metadata.name &&
             ns == unit.scheduling_pod_group->metadata.namespace_;
    } else if (unit.workload) {
      ours = gang.Of<api::Workload>() &&
             p->spec.workload_ref.name.str() == unit.workload->metadata.name &&
             ns == unit.workload->metadata.namespace_;
    } else {
      ours = gang.empty();
    }
    if (!ours) {
      errors->push_back(fmt::format(
          "{}: pod {} {}: the template's pods are one Pod alone or the members of its one gang",
          file, p->metadata.Key(),
          gang.empty() ? "is in no gang of the template"
                       : "names a gang the template does not hold"));
      return std::nullopt;
    }
  }
  if (unit.kind.empty()) {
    if (pods.size() > 1) {
      errors->push_back(fmt::format(
          "{}: the template has {} pods and no gang: give one Pod, or a gang with its pods", file,
          pods.size()));
      return std::nullopt;
    }
    unit.kind = "Pod";
    unit.name = pods.front()->metadata.Key();
  }
  for (const api::Pod* p : pods) unit.pods.push_back(*p);
  // One pod stands for the quorum: as many members as it asks for.
  if (unit.pods.size() == 1 && unit.quorum > 1) {
    const api::Pod member = unit.pods.front();
    unit.pods.clear();
    for (int32_t i = 0; i < unit.quorum; ++i) {
      unit.pods.push_back(member);
      unit.pods.back().metadata.name = CopyName(member.metadata.name, i);
    }
  } else if (unit.quorum > static_cast<int32_t>(unit.pods.size())) {
    errors->push_back(
        fmt::format("{}: {} {} has {} pods in the template, fewer than its quorum "
                    "({}): no copy could ever be placed",
                    file, unit.kind, unit.name, unit.pods.size(), unit.quorum));
    return std::nullopt;
  }
  for (const api::Pod& p : unit.pods) unit.requests.Add(api::PodFitRequests(p));
  m.order = std::move(rest);
  return unit;
}

// The most copies of `unit` the cluster's free resources could hold: for each resource it
// requests, the cluster's free total over the copy's request (bound pods count as used). An
// upper bound: a copy may not fit where the room is split between nodes.
uint64_t MostCopies(const api::Manifests& m, const Unit& unit) {
  std::map<std::string, api::Resource> free;
  for (const api::Node& n : m.nodes) {
    free[n.metadata.name] = api::Resource::FromList(n.status.allocatable);
  }
  for (const api::ObjectEntry& e : m.order) {
    if (e.row != api::kRowOf<api::Pod>) continue;
    const api::Pod& p = m.pods[e.index];
    if (p.spec.node_name.empty()) continue;
    const auto it = free.find(p.spec.node_name.string());
    if (it != free.end()) it->second.Sub(api::PodFitRequests(p));
  }
  uint64_t most = std::numeric_limits<uint64_t>::max();
  auto limit = [&](int64_t want, auto free_of) {
    if (want <= 0) return;
    uint64_t total = 0;
    for (const auto& [name, r] : free)
      total += static_cast<uint64_t>(std::max<int64_t>(free_of(r), 0));
    most = std::min(most, total / static_cast<uint64_t>(want));
  };
  const api::Resource& want = unit.requests;
  limit(want.milli_cpu, [](const api::Resource& r) { return r.milli_cpu; });
  limit(want.memory, [](const api::Resource& r) { return r.memory; });
  limit(want.ephemeral_storage, [](const api::Resource& r) { return r.ephemeral_storage; });
  limit(want.allowed_pod_number, [](const api::Resource& r) { return r.allowed_pod_number; });
  for (const auto& [name, value] : want.scalar) {
    limit(value, [name = name](const api::Resource& r) { return r.Scalar(name); });
  }
  return most;
}

// When the copies arrive: once the cluster's own pods, created at the start, have had their
// first attempt (the scheduler's cycles take no virtual time), so that the copies count the room
// the cluster leaves rather than race its pods for it.
constexpr std::string_view kCopiesArrive = "1s";

// Marks `meta` to be created when the copies arrive, unless the template says when.
void ArriveWithTheCopies(api::ObjectMeta& meta) {
  meta.annotations.try_emplace(std::string(sim::kCreateAfter), std::string(kCopiesArrive));
}

// Appends copy `c` of `object` (renamed, arriving with the copies) to `m`; returns its name.
template <typename T>
std::string AppendCopy(api::Manifests& m, T object, uint64_t c, int width,
                       const api::Source& source) {
  object.metadata.name = CopyName(object.metadata.name, c, width);
  if (!object.metadata.uid.empty()) object.metadata.uid = CopyName(object.metadata.uid, c, width);
  ArriveWithTheCopies(object.metadata);
  std::string name = object.metadata.name;
  std::vector<T>& objects = m.*api::KindOf<T>().objects;
  objects.push_back(std::move(object));
  m.order.push_back({api::KindOf<T>().name, api::kRowOf<T>, objects.size() - 1, source});
  return name;
}

// Appends `copies` copies of `unit` to `m`, each created after the cluster, never preempting.
Copies AddCopies(api::Manifests& m, const Unit& unit, uint64_t copies, const std::string& file) {
  Copies out;
  out.reserve(copies);
  const api::Source source{file, 1};
  const auto width = static_cast<int>(std::to_string(copies).size());
  for (uint64_t c = 1; c <= copies; ++c) {
    std::string gang;
    if (unit.pod_group) {
      gang = AppendCopy(m, *unit.pod_group, c, width, source);
    } else if (unit.scheduling_pod_group) {
      gang = AppendCopy(m, *unit.scheduling_pod_group, c, width, source);
    } else if (unit.workload) {
      gang = AppendCopy(m, *unit.workload, c, width, source);
    }
    std::vector<std::string>& keys = out.emplace_back();
    for (const api::Pod& template_pod : unit.pods) {
      api::Pod p = template_pod;
      p.spec.preemption_policy = api::PreemptionPolicy::kNever;
      if (unit.pod_group) {
        for (const std::string_view label : {api::kPodGroupLabel, api::kLegacyPodGroupLabel}) {
          if (p.metadata.labels.Has(api::Symbol(label))) {
            p.metadata.labels.Set(api::Symbol(label), api::Symbol(gang));
          }
        }
      } else if (unit.scheduling_pod_group) {
        p.spec.scheduling_group = api::Symbol(gang);
      } else if (unit.workload) {
        p.spec.workload_ref.name = api::Symbol(gang);
      }
      const std::string name = AppendCopy(m, std::move(p), c, width, source);
      keys.push_back(fmt::format("{}/{}", template_pod.metadata.namespace_.str(), name));
    }
  }
  return out;
}

// "cpu 500m, memory 128Mi": what one copy requests.
std::string DescribeRequests(const api::Resource& r) {
  std::vector<std::string> parts;
  for (const auto& [name, q] : r.ToList()) {
    if (name.str() == "pods") continue;
    parts.push_back(fmt::format("{} {}", name.str(), q.String()));
  }
  return parts.empty() ? "nothing" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string Ordinal(uint64_t n) {
  const uint64_t tens = n % 100;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : n % 10 == 1              ? "st"
                       : n % 10 == 2              ? "nd"
                       : n % 10 == 3              ? "rd"
                                                  : "th";
  return fmt::format("{}{}", n, suffix);
}

// Why one pod of the copy that did not fit stayed pending: its message, and per node the first
// plugin that rejected it in its last attempt.
struct WhyNot {
  std::string pod;
  std::string message;
  std::vector<std::tuple<std::string, std::string, std::string>> nodes;  // node, plugin, reason
};

}  // namespace

int RunCapacity(const CapacityFlags& flags, std::istream& in, std::ostream& out,
                std::ostream& err) {
  if (flags.output != "table" && flags.output != "json") {
    err << fmt::format("error: -o: unknown output format \"{}\" (want table or json)\n",
                       flags.output);
    return kExitBadInput;
  }
  if (flags.template_path.empty()) {
    err << "error: TEMPLATE: give the pod (or the gang with its pods) to count copies of\n";
    return kExitBadInput;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(flags.template_path, ec)) {
    err << fmt::format(
        "error: TEMPLATE: {} is a directory: give the file of the pod (or of the "
        "gang with its pods)\n",
        flags.template_path);
    return kExitBadInput;
  }
  const std::string file = flags.template_path == "-" ? "<stdin>" : flags.template_path;
  if (flags.template_path == "-" && std::find(flags.input.paths.begin(), flags.input.paths.end(),
                                              "-") != flags.input.paths.end()) {
    err << "error: TEMPLATE: stdin is read once: give the template or the cluster as -, not "
           "both\n";
    return kExitBadInput;
  }
  SimulationInput input = flags.input;
  input.added_paths.push_back(flags.template_path);
  const uint64_t max_pods = input.max_pods.value_or(DefaultMaxPods());

  std::optional<Unit> unit;
  Copies copies;
  // Fewer copies were made than the free resources could hold, and one (--max or --max-pods).
  bool capped = false;
  auto amend = [&](api::Manifests& m, std::vector<std::string>* errors) {
    unit = TakeTemplate(m, file, errors);
    if (!unit) return;
    const uint64_t bound = MostCopies(m, *unit);
    uint64_t count = bound == std::numeric_limits<uint64_t>::max() ? bound : bound + 1;
    // What --max-pods leaves beside the cluster's own pods, and --max.
    uint64_t cluster_pods = 0;
    for (const api::ObjectEntry& e : m.order) cluster_pods += e.row == api::kRowOf<api::Pod>;
    const uint64_t room =
        max_pods > cluster_pods ? (max_pods - cluster_pods) / unit->pods.size() : 0;
    const uint64_t most = std::min(room, flags.max.value_or(room));
    if (count > most) {
      count = most;
      capped = true;
    }
    if (count == 0) {
      errors->push_back(
          fmt::format("--max-pods ({}): no room for a copy of {} {} beside the cluster's {} pods",
                      max_pods, unit->kind, unit->name, cluster_pods));
      return;
    }
    copies = AddCopies(m, *unit, count, file);
  };
  sim::SimulationOptions options;
  LoadedSimulation loaded = LoadSimulation(input, options, in, err, amend);
  if (loaded.simulation == nullptr) return loaded.runtime_error ? kExitRuntimeError : kExitBadInput;
  sim::Simulation& simulation = *loaded.simulation;
  simulation.Run();
  for (const std::string& w : simulation.warnings()) err << "warning: " << w << "\n";

  // Placed whole: every pod of the copy on a node.
  auto node_of = [](const sim::Simulation& s, const std::string& key) -> std::string {
    const api::Pod* p = s.cluster().Get<api::Pod>(key);
    return p == nullptr ? std::string() : p->spec.node_name.string();
  };
  uint64_t fit = 0;
  std::optional<uint64_t> first_failed;
  std::map<std::string, uint64_t> per_node;  // pods of whole copies
  for (uint64_t c = 0; c < copies.size(); ++c) {
    const std::vector<std::string>& keys = copies[c];
    const bool whole = std::all_of(keys.begin(), keys.end(), [&](const std::string& k) {
      return !node_of(simulation, k).empty();
    });
    if (whole) {
      ++fit;
      for (const std::string& k : keys) ++per_node[node_of(simulation, k)];
    } else if (!first_failed) {
      first_failed = c;
    }
  }

  // Why the first copy that did not fit did not: simulated again (the same run, as the seed
  // decides every tie), recording its pods' attempts.
  std::optional<WhyNot> why;
  if (first_failed) {
    const std::vector<std::string>& keys = copies[*first_failed];
    const std::set<std::string> traced(keys.begin(), keys.end());
    sim::SimulationOptions again;
    again.seed = flags.input.seed;
    again.until = simulation.options().until;
    again.traced = [&traced](const api::Pod& p) { return traced.contains(p.metadata.Key()); };
    std::vector<std::string> errors;
    std::unique_ptr<sim::Simulation> second = sim::Simulation::Create(
        simulation.manifests(), loaded.config ? &*loaded.config : nullptr, std::move(again),
        plugins::InTreeRegistry(), plugins::DefaultPlugins(), &errors);
    if (second == nullptr) {
      for (const std::string& e : errors) err << "error: " << e << "\n";
      return kExitRuntimeError;
    }
    second->Run();
    const auto& traces = second->scheduler().traces();
    // The pod to show: the first pending one that no node took in its last attempt (a gang's
    // member that found a node, turned away with the gang, says less), else the first pending.
    auto found_no_node = [&](const std::string& key) {
      const auto it = traces.find(key);
      return it != traces.end() && it->second != nullptr && it->second->selected_node.empty();
    };
    std::vector<std::string> pending;
    for (const std::string& key : keys) {
      if (node_of(*second, key).empty()) pending.push_back(key);
    }
    std::stable_partition(pending.begin(), pending.end(), found_no_node);
    for (const std::string& key : pending) {
      WhyNot w;
      w.pod = key;
      if (const api::Pod* p = second->cluster().Get<api::Pod>(key)) {
        if (const api::Condition* c = api::FindCondition(p->status.conditions, "PodScheduled")) {
          w.message = c->message;
        }
      }
      const auto it = traces.find(key);
      if (it != traces.end() && it->second != nullptr) {
        const framework::AttemptTrace& t = *it->second;
        for (const auto& [node, filter] : t.filtered()) {
          if (filter.verdicts.empty()) continue;
          const framework::AttemptTrace::Verdict& v = filter.verdicts.back();
          if (v.code == framework::Code::kSuccess) continue;
          const std::string plugin =
              v.plugin >= 0 && static_cast<size_t>(v.plugin) < t.filter_plugins.size()
                  ? t.filter_plugins[static_cast<size_t>(v.plugin)]
                  : std::string();
          w.nodes.emplace_back(node, plugin, v.reason);
        }
        if (w.nodes.empty()) {
          for (const framework::AttemptTrace::Outcome& o : t.pre_filter) {
            if (o.code == framework::Code::kSuccess) continue;
            w.nodes.emplace_back("", o.plugin, o.message);
            break;
          }
        }
      }
      why = std::move(w);
      break;
    }
  }

  const auto& node_objects = simulation.cluster().Objects<api::Node>();
  const size_t nodes = node_objects.size();
  const std::string what = fmt::format("{} {}", unit->kind, unit->name);
  const size_t per_copy = unit->pods.size();
  if (flags.output == "json") {
    json j;
    j["template"] = {{"kind", unit->kind},
                     {"name", unit->name},
                     {"pods", per_copy},
                     {"requests", DescribeRequests(unit->requests)}};
    j["nodes"] = nodes;
    j["fit"] = fit;
    j["pods"] = fit * per_copy;
    j["tried"] = copies.size();
    j["limited"] = capped && !first_failed;
    json placements = json::array();
    for (const auto& [node, pods] : per_node)
      placements.push_back({{"node", node}, {"pods", pods}});
    j["placements"] = std::move(placements);
    if (first_failed) {
      json next = {{"copy", *first_failed + 1}};
      if (why) {
        next["pod"] = why->pod;
        next["message"] = why->message;
        json rejected = json::array();
        for (const auto& [node, plugin, reason] : why->nodes) {
          rejected.push_back({{"node", node}, {"plugin", plugin}, {"reason", reason}});
        }
        next["nodes"] = std::move(rejected);
      }
      j["next"] = std::move(next);
    } else {
      j["next"] = nullptr;
    }
    out << j.dump(2) << "\n";
    return kExitOk;
  }

  out << fmt::format("{} ({} pod{}, requesting {}) on {} node{}:\n", what, per_copy,
                     per_copy == 1 ? "" : "s", DescribeRequests(unit->requests), nodes,
                     nodes == 1 ? "" : "s");
  const std::string copies_word = unit->kind == "Pod" ? "more fit" : "more fit whole";
  if (per_copy == 1) {
    out << fmt::format("  {} {}\n", fit, copies_word);
  } else {
    out << fmt::format("  {} {} ({} pods)\n", fit, copies_word, fit * per_copy);
  }
  if (first_failed) {
    out << fmt::format("  the {} does not", Ordinal(*first_failed + 1));
    if (why && per_copy > 1) out << fmt::format(" ({} stays pending)", why->pod);
    out << fmt::format(": {}\n", why && !why->message.empty() ? why->message : "not placed");
  } else {
    out << fmt::format("  more may fit: {} copies were tried ({})\n", copies.size(),
                       flags.max ? "--max" : "--max-pods");
  }
  // Per node: the pods of the copies placed there, and what turned the next one away.
  std::map<std::string, std::pair<std::string, std::string>> rejected;
  if (why) {
    for (const auto& [node, plugin, reason] : why->nodes) rejected[node] = {plugin, reason};
  }
  std::vector<std::string> names;
  for (const auto& [key, node] : node_objects) names.push_back(node->metadata.name);
  std::sort(names.begin(), names.end());
  size_t width = 4;
  for (const std::string& n : names) width = std::max(width, n.size());
  out << fmt::format("\n{:<{}}  {:>5}  {}\n", "NODE", width, "PODS",
                     first_failed ? "FIRST REJECTION OF THE NEXT" : "");
  for (const std::string& n : names) {
    std::string reason;
    if (const auto it = rejected.find(n); it != rejected.end()) {
      reason = fmt::format("{}: {}", it->second.first, it->second.second);
    } else if (const auto all = rejected.find(""); all != rejected.end()) {
      reason = fmt::format("{}: {}", all->second.first, all->second.second);
    } else if (first_failed) {
      reason = "-";
    }
    const auto placed = per_node.find(n);
    out << fmt::format("{:<{}}  {:>5}  {}\n", n, width,
                       placed == per_node.end() ? 0 : placed->second, reason);
  }
  return kExitOk;
}

}  // namespace muster::cli
