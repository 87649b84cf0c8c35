#include "muster/report/html.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <optional>
#include <ostream>
#include <set>

#include <fmt/format.h>

#include "muster/api/gang.h"
#include "muster/cluster/memory.h"
#include "muster/report/charts.h"
#include "muster/report/comparison.h"
#include "muster/report/simulation_output.h"

namespace muster::report {
namespace {

using charts::Escape;
using charts::TimeLabel;

template <typename... Args>
void Put(std::string& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
}

// Nothing loads: no script, no fetch, no font; styles and data: images only.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'";

constexpr std::string_view kStyle = R"(
:root{--fg:#1f2937;--muted:#6b7280;--line:#e5e7eb;--bg:#f4f5f7;--card:#fff}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,
  "Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans","Liberation Sans",sans-serif}
main{max-width:1360px;margin:0 auto;padding:24px 28px 40px}
h1{font-size:22px;margin:0 0 2px;font-weight:650}
h2{font-size:16px;margin:0 0 2px;font-weight:650}
.sub{color:var(--muted);font-size:13px}
.sub code,.note code{font-size:12px}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(112px,1fr));gap:10px;
  margin:18px 0 12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card .n{font-size:26px;font-weight:650;line-height:1.15;font-variant-numeric:tabular-nums;
  white-space:nowrap}
.card .l{font-size:11.5px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}
.card.running .n{color:#0072b2}.card.pending .n{color:#a86400}.card.succeeded .n{color:#007a5a}
.card.gated .n{color:#a4507f}.card.failed .n{color:#a33d00}
.verdict{background:var(--card);border:1px solid var(--line);border-left:5px solid #009e73;
  border-radius:8px;padding:10px 16px;font-size:16px}
.verdict.warn{border-left-color:#e69f00}
section{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:18px 22px;
  margin:16px 0}
.note{color:var(--muted);font-size:12.5px;margin:2px 0 12px}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:12.5px;margin:0 0 8px}
.legend span{white-space:nowrap}
.legend i{display:inline-block;width:12px;height:12px;border-radius:2px;margin-right:6px;
  vertical-align:-1px;box-shadow:inset 0 0 0 1px rgba(0,0,0,.12)}
.legend i.mark{width:2px;background:#1f2937;border-radius:0}
svg.chart{display:block;max-width:100%;height:auto}
.hists{display:flex;flex-wrap:wrap;gap:8px 18px;margin:4px 0 14px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:12.5px}
th{text-align:left;font-weight:600;color:var(--muted);border-bottom:1px solid var(--line);
  padding:6px 8px;white-space:nowrap}
td{border-bottom:1px solid #eef0f2;padding:5px 8px;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.msg{color:#374151;max-width:560px}
tr:hover td{background:#fafbfc}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:11.5px;font-weight:600;
  white-space:nowrap}
.s-Running{background:#dcecf7;color:#005a8c}.s-Pending{background:#fbecd0;color:#7a4a00}
.s-Succeeded{background:#d5efe6;color:#00664b}.s-SchedulingGated{background:#f5e3ee;color:#8a3f69}
.s-Failed{background:#f9e0d3;color:#8f3500}.s-Unknown{background:#eceef1;color:#374151}
pre{background:#f8f9fb;border:1px solid var(--line);border-radius:6px;padding:12px 14px;
  margin:8px 0 0;overflow:auto;max-height:520px;font-size:12.5px;line-height:1.5}
footer{color:var(--muted);font-size:12px;text-align:center;margin-top:20px}
)";

std::string Thousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string Plural(int64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", Thousands(n), n == 1 ? one : many);
}

std::string Percent(double fraction) {
  const double pct = fraction * 100;
  if (pct > 0 && pct < 1) return "<1%";
  return fmt::format("{}%", static_cast<int64_t>(pct + 0.5));
}

// ---- Resources ----

// One column of the utilisation heat map: a resource and how to read and print it.
struct ResourceColumn {
  std::string name;
  api::Symbol symbol;  // for extended resources
};

int64_t Amount(const api::Resource& r, const ResourceColumn& column) {
  if (column.name == api::kResourceCPU) return r.milli_cpu;
  if (column.name == api::kResourceMemory) return r.memory;
  if (column.name == api::kResourceEphemeralStorage) return r.ephemeral_storage;
  if (column.name == api::kResourcePods) return r.allowed_pod_number;
  return r.Scalar(column.symbol);
}

// "3.5" cores, "1.5Gi" bytes, "12" of anything else.
std::string FormatAmount(const ResourceColumn& column, int64_t value) {
  auto trim = [](std::string s) {
    if (s.find('.') != std::string::npos) {
      while (s.ends_with('0')) s.pop_back();
      if (s.ends_with('.')) s.pop_back();
    }
    return s;
  };
  if (column.name == api::kResourceCPU) {
    return trim(fmt::format("{:.3f}", static_cast<double>(value) / 1000));
  }
  const bool bytes = column.name == api::kResourceMemory ||
                     column.name == api::kResourceEphemeralStorage ||
                     api::IsHugePageResourceName(column.name);
  if (!bytes) return Thousands(value);
  static constexpr std::array<std::string_view, 6> kUnits = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  double v = static_cast<double>(value);
  size_t unit = 0;
  while (unit + 1 < kUnits.size() && v >= 1024) {
    v /= 1024;
    ++unit;
  }
  return trim(fmt::format("{:.1f}", v)) + std::string(kUnits[unit]);
}

std::optional<double> Fraction(int64_t requested, int64_t allocatable) {
  if (allocatable <= 0) return requested > 0 ? std::optional(1.0) : std::nullopt;
  return static_cast<double>(requested) / static_cast<double>(allocatable);
}

// ---- What the page says, gathered once ----

struct PodFacts {
  const api::Pod* pod;
  const std::string* key;
  std::string status;
  std::string group;
  const api::Condition* unschedulable;  // PodScheduled=False, or nullptr
};

struct Facts {
  std::vector<PodFacts> pods;  // by namespace/name
  int running = 0, pending = 0, succeeded = 0, failed = 0, gated = 0;
  int64_t attempts = 0;
  bool namespaces = false;  // some object outside "default": names carry their namespace
  api::Duration end{0};     // the time axis: the run's end
};

Facts Gather(const sim::Simulation& sim) {
  Facts f;
  const cluster::MemoryCluster& c = sim.cluster();
  for (const auto& [key, stored] : c.pods()) {
    const api::Pod& pod = *stored;
    PodFacts p{&pod, &key, PodStatusText(sim, pod), api::GangOf(pod).name.string(), nullptr};
    const api::Condition* cond = api::FindCondition(pod.status.conditions, "PodScheduled");
    if (cond != nullptr && cond->status.str() == "False") p.unschedulable = cond;
    if (p.status == "SchedulingGated") {
      ++f.gated;
    } else if (pod.status.phase == api::PodPhase::kPending) {
      ++f.pending;
    } else if (pod.status.phase == api::PodPhase::kRunning) {
      ++f.running;
    } else if (pod.status.phase == api::PodPhase::kSucceeded) {
      ++f.succeeded;
    } else if (pod.status.phase == api::PodPhase::kFailed) {
      ++f.failed;
    }
    f.namespaces |= pod.metadata.namespace_.str() != api::kDefaultNamespace;
    f.pods.push_back(std::move(p));
  }
  for (const auto& [key, group_ptr] : c.Objects<api::PodGroup>()) {
    const api::PodGroup& group = *group_ptr;
    f.namespaces |= group.metadata.namespace_.str() != api::kDefaultNamespace;
  }
  for (const auto& [key, record] : sim.records()) f.attempts += record.attempts;
  f.end = sim.End();
  if (!sim.history().samples().empty()) {
    f.end = std::max(f.end, sim.history().samples().back().at);
  }
  return f;
}

std::string ObjectName(const Facts& f, std::string_view ns, std::string_view name) {
  return f.namespaces ? fmt::format("{}/{}", ns, name) : std::string(name);
}

// ---- Sections ----

void Header(std::string& out, const sim::Simulation& sim, const HtmlReportOptions& options) {
  Put(out, "<header><h1>{}</h1><div class=\"sub\">", Escape(options.title));
  std::string inputs;
  for (const std::string& input : options.inputs) {
    Put(inputs, "{}<code>{}</code>", inputs.empty() ? "" : " ", Escape(input));
  }
  if (!inputs.empty()) Put(out, "Inputs {} &middot; ", inputs);
  Put(out, "seed {}", sim.options().seed);
  if (sim.options().until) Put(out, " &middot; until {}", Escape(TimeLabel(*sim.options().until)));
  Put(out, " &middot; configuration: {}",
      options.config_text.empty() ? "the default profile"
                                  : "<code>" + Escape(options.config_source) + "</code>");
  out += "</div></header>";
}

// "3 of 6 pods pending: 1 PodGroup short of quorum; 2 unschedulable (“...”)"
std::string Verdict(const sim::Simulation& sim, const Facts& f, bool* warn) {
  const int total = static_cast<int>(f.pods.size());
  *warn = f.pending + f.gated + f.failed > 0;
  if (total == 0) return "No pods were created.";
  if (f.pending == 0 && f.gated == 0) {
    std::string s = f.succeeded == total
                        ? fmt::format("All {} ran to completion.", Plural(total, "pod", "pods"))
                        : fmt::format("All {} were scheduled.", Plural(total, "pod", "pods"));
    if (f.failed > 0) s += fmt::format(" {} failed.", Thousands(f.failed));
    return s;
  }
  // Pending members of groups short of quorum, and the other pending pods by message.
  std::set<std::string> short_groups;
  int in_short_groups = 0;
  std::map<std::string, int> messages;
  for (const PodFacts& p : f.pods) {
    if (p.status != "Pending") continue;
    if (!p.group.empty()) {
      const std::string key = p.pod->metadata.namespace_.string() + "/" + p.group;
      auto it = sim.history().groups().find(key);
      if (it != sim.history().groups().end() && it->second.created && !it->second.quorum) {
        short_groups.insert(key);
        ++in_short_groups;
        continue;
      }
    }
    ++messages[p.unschedulable ? p.unschedulable->message : ""];
  }
  std::vector<std::string> parts;
  if (!short_groups.empty()) {
    parts.push_back(
        fmt::format("{} short of quorum",
                    Plural(static_cast<int64_t>(short_groups.size()), "PodGroup", "PodGroups")));
  }
  const int others = f.pending - in_short_groups;
  if (others > 0) {
    auto top = std::max_element(messages.begin(), messages.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    // The message's first sentence: the filters' verdict, without preemption's.
    std::string_view message = top->first;
    if (size_t end = message.find(". "); end != std::string_view::npos) {
      message = message.substr(0, end + 1);
    }
    if (message.empty()) {
      parts.push_back(fmt::format("{} not tried yet", Thousands(others)));
    } else {
      parts.push_back(fmt::format("{} unschedulable ({}\u201c{}\u201d)", Thousands(others),
                                  top->second == others ? "" : "most often ", message));
    }
  }
  if (f.gated > 0) parts.push_back(fmt::format("{} gated", Thousands(f.gated)));
  std::string s =
      fmt::format("{} of {} pending", Thousands(f.pending + f.gated), Plural(total, "pod", "pods"));
  for (size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? ": " : "; ") + parts[i];
  if (f.failed > 0) s += fmt::format("; {} failed", Thousands(f.failed));
  return s;
}

void Summary(std::string& out, const sim::Simulation& sim, const Facts& f, size_t preempted) {
  out += "<div class=\"cards\">";
  auto card = [&](std::string_view cls, std::string_view label, const std::string& value) {
    Put(out, "<div class=\"card {}\"><div class=\"n\">{}</div><div class=\"l\">{}</div></div>", cls,
        Escape(value), label);
  };
  card("", "Pods", Thousands(static_cast<int64_t>(f.pods.size())));
  card("running", "Running", Thousands(f.running));
  card("pending", "Pending", Thousands(f.pending));
  card("succeeded", "Succeeded", Thousands(f.succeeded));
  card("gated", "Gated", Thousands(f.gated));
  if (f.failed > 0) card("failed", "Failed", Thousands(f.failed));
  if (preempted > 0) card("failed", "Preempted", Thousands(static_cast<int64_t>(preempted)));
  // Every gang, of whichever API: the PodGroups section lists the same.
  int64_t groups = 0;
  for (const auto& [key, g] : sim.history().groups()) groups += g.created.has_value();
  card("", "PodGroups", Thousands(groups));
  card("", "Nodes", Thousands(static_cast<int64_t>(sim.cluster().Objects<api::Node>().size())));
  card("", "Virtual time", TimeLabel(sim.End()));
  // Pending pods retried after the cluster's last change, without effect.
  if (const std::optional<api::Duration> retried = sim.RetriedUntil()) {
    card("", "Retried until", TimeLabel(*retried));
  }
  card("", "Seed", std::to_string(sim.options().seed));
  card("", "Attempts", Thousands(f.attempts));
  out += "</div>";
  bool warn = false;
  const std::string verdict = Verdict(sim, f, &warn);
  Put(out, "<div class=\"verdict{}\" id=\"verdict\">{}</div>", warn ? " warn" : "",
      Escape(verdict));
}

void PodsOverTime(std::string& out, const sim::Simulation& sim, const Facts& f) {
  const std::vector<charts::Layer> layers = {{"succeeded", charts::kGreen},
                                             {"running", charts::kBlue},
                                             {"failed", charts::kVermillion},
                                             {"pending", charts::kOrange},
                                             {"gated", charts::kPurple}};
  std::vector<charts::Step> steps;
  for (const sim::CountSample& s : sim.history().samples()) {
    steps.push_back({s.at,
                     {s.counts.succeeded, s.counts.running, s.counts.failed, s.counts.pending,
                      s.counts.gated}});
  }
  out += "<section id=\"pods-over-time\"><h2>Pods over time</h2>";
  if (f.end.count() == 0) {
    out +=
        "<p class=\"note\">Everything happened at the first instant (0s): the chart holds the "
        "state the run ended in.</p>";
  } else {
    Put(out,
        "<p class=\"note\">Pods by state over virtual time, stacked: the counts changed at {} "
        "in a run of {}. Hover for the counts.</p>",
        Plural(static_cast<int64_t>(steps.size()), "instant", "instants"),
        Escape(TimeLabel(f.end)));
  }
  const sim::PodCounts& now = sim.history().counts();
  const std::vector<int64_t> end_values = {now.succeeded, now.running, now.failed, now.pending,
                                           now.gated};
  out += "<div class=\"legend\">";
  for (size_t i = layers.size(); i-- > 0;) {
    Put(out, "<span><i style=\"background:{}\"></i>{} <b>{}</b></span>", layers[i].color,
        layers[i].name, Thousands(end_values[i]));
  }
  out += "</div>";
  out += charts::StackedStepChart(layers, steps, f.end, 1300, 300);
  out += "</section>";
}

void NodeUtilisation(std::string& out, const sim::Simulation& sim,
                     const HtmlReportOptions& options) {
  const auto& nodes = sim.cluster().Objects<api::Node>();
  const sim::History& history = sim.history();
  out += "<section id=\"nodes\"><h2>Node utilisation</h2>";
  if (nodes.empty()) {
    out += "<p class=\"note\">The cluster had no nodes at the end.</p></section>";
    return;
  }
  // The columns: cpu, memory, pods, then what else the nodes offer or the pods asked for.
  std::vector<ResourceColumn> columns = {{std::string(api::kResourceCPU), {}},
                                         {std::string(api::kResourceMemory), {}},
                                         {std::string(api::kResourcePods), {}}};
  bool storage = false;
  std::set<std::string> extended;
  std::vector<std::pair<std::string, api::Resource>> allocatable;
  api::Resource total_allocatable;
  for (const auto& [name, node] : nodes) {
    allocatable.emplace_back(name, api::Resource::FromList(node->status.allocatable));
    total_allocatable.Add(allocatable.back().second);
    for (const auto& [resource, value] : allocatable.back().second.scalar) {
      if (value > 0) extended.insert(resource.string());
    }
  }
  for (const auto& [resource, value] : history.total().peak.scalar) {
    if (value > 0) extended.insert(resource.string());
  }
  storage = history.total().peak.ephemeral_storage > 0;
  if (storage) columns.push_back({std::string(api::kResourceEphemeralStorage), {}});
  for (const std::string& name : extended) columns.push_back({name, api::Symbol(name)});

  std::vector<std::string> groups, subcolumns;
  for (const ResourceColumn& c : columns) {
    groups.push_back(c.name);
    subcolumns.push_back("end");
    subcolumns.push_back("peak");
  }
  auto cells = [&](std::string_view who, const api::Resource& alloc, const api::Resource& now,
                   const api::Resource* peak) {
    std::vector<charts::Cell> out_cells;
    for (const ResourceColumn& c : columns) {
      const int64_t a = Amount(alloc, c);
      auto cell = [&](std::string_view when, int64_t requested) {
        const std::optional<double> f = Fraction(requested, a);
        std::string title = fmt::format("{} \u00b7 {} {}: {} of {} requested", who, c.name, when,
                                        FormatAmount(c, requested), FormatAmount(c, a));
        if (f) title += " (" + Percent(*f) + ")";
        return charts::Cell{f, std::move(title)};
      };
      out_cells.push_back(cell("at the end", Amount(now, c)));
      if (peak != nullptr) {
        out_cells.push_back(cell("at its peak", Amount(*peak, c)));
      } else {
        out_cells.push_back(charts::Cell{std::nullopt, ""});
      }
    }
    return out_cells;
  };
  // The fullest resource of a node at the end, for ordering the busiest first.
  auto fullest = [&](const api::Resource& alloc, const api::Resource& now) {
    double most = 0;
    for (const ResourceColumn& c : columns) {
      most = std::max(most, Fraction(Amount(now, c), Amount(alloc, c)).value_or(0));
    }
    return most;
  };
  const api::Resource zero;
  struct NodeRow {
    const std::string* name;
    const api::Resource* alloc;
    const sim::NodeUsage* usage;
    double fullest;
  };
  std::vector<NodeRow> rows;
  for (const auto& [name, alloc] : allocatable) {
    const sim::NodeUsage* usage = history.node(api::Symbol(name));
    rows.push_back({&name, &alloc, usage, fullest(alloc, usage ? usage->requested : zero)});
  }
  const bool capped = rows.size() > options.max_heatmap_nodes;
  if (capped) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const NodeRow& a, const NodeRow& b) { return a.fullest > b.fullest; });
    rows.resize(options.max_heatmap_nodes);
  }
  std::vector<charts::HeatRow> heat;
  heat.push_back(
      {fmt::format("all {}", Plural(static_cast<int64_t>(nodes.size()), "node", "nodes")),
       "every node together: the cluster's requests over its allocatable",
       cells("all nodes", total_allocatable, history.total().requested, &history.total().peak),
       true});
  for (const NodeRow& row : rows) {
    const api::Resource& now = row.usage ? row.usage->requested : zero;
    const api::Resource& peak = row.usage ? row.usage->peak : zero;
    heat.push_back({*row.name, *row.name, cells(*row.name, *row.alloc, now, &peak), false});
  }
  Put(out,
      "<p class=\"note\">Requested over allocatable, per resource: at the end of the run and at "
      "each node&rsquo;s peak during it. {}</p>",
      capped ? fmt::format("The {} busiest of {} nodes (by their fullest resource at the end); the "
                           "histograms count every node.",
                           options.max_heatmap_nodes, Thousands(static_cast<int64_t>(nodes.size())))
             : std::string("Hover a cell for the amounts."));
  if (capped) {
    // Histograms of every node: how many are how full, at the end and at their peak.
    out += "<div class=\"hists\">";
    std::vector<std::string> bins, ticks;
    for (int b = 0; b < 10; ++b) bins.push_back(fmt::format("{}\u2013{}%", b * 10, b * 10 + 10));
    for (int t = 0; t <= 10; ++t) ticks.push_back(t % 2 == 0 ? fmt::format("{}%", t * 10) : "");
    for (const ResourceColumn& c : columns) {
      std::vector<int64_t> at_end(10), at_peak(10);
      int64_t counted = 0;
      for (const auto& [name, alloc] : allocatable) {
        const int64_t a = Amount(alloc, c);
        if (a <= 0) continue;
        ++counted;
        const sim::NodeUsage* usage = history.node(api::Symbol(name));
        auto bin = [&](int64_t requested) {
          const double f = static_cast<double>(requested) / static_cast<double>(a);
          return std::clamp(static_cast<int>(f * 10), 0, 9);
        };
        ++at_end[bin(usage ? Amount(usage->requested, c) : 0)];
        ++at_peak[bin(usage ? Amount(usage->peak, c) : 0)];
      }
      if (counted == 0) continue;
      out += charts::Histogram(
          fmt::format("{} \u00b7 {}", c.name, Plural(counted, "node", "nodes")), bins, ticks,
          {{"at the end", charts::kBlue, at_end}, {"at the peak", charts::kOrange, at_peak}},
          "nodes", 300, 150);
    }
    out += "</div><div class=\"legend\"><span><i style=\"background:" + std::string(charts::kBlue) +
           "\"></i>nodes by utilisation at the end</span><span><i "
           "style=\"background:" +
           std::string(charts::kOrange) + "\"></i>at their peak</span></div>";
  }
  out += "<div class=\"scroll\">" + charts::HeatMap(groups, subcolumns, heat, 220) + "</div>";
  out += "<div class=\"legend\" style=\"margin-top:8px\">";
  for (int pct : {0, 25, 50, 75, 100}) {
    Put(out, "<span><i style=\"background:{}\"></i>{}%</span>", charts::HeatColor(pct / 100.0),
        pct);
  }
  out += "<span><i style=\"background:#eef0f3\"></i>none allocatable</span></div>";
  out += "</section>";
}

// Dynamic Resource Allocation: each pool's devices allocated at the end, when there are any.
void DeviceUtilisation(std::string& out, const sim::Simulation& sim) {
  const std::vector<DevicePoolUsage> pools = DeviceUsage(sim.cluster());
  if (pools.empty()) return;
  out += "<section id=\"devices\"><h2>Device utilisation</h2>";
  int64_t devices = 0, allocated = 0;
  for (const DevicePoolUsage& u : pools) {
    devices += u.devices;
    allocated += u.allocated;
  }
  auto cell = [](std::string_view who, int64_t used, int64_t total) {
    std::optional<double> f;
    if (total > 0) f = static_cast<double>(used) / static_cast<double>(total);
    std::string title = fmt::format("{}: {} of {} devices allocated", who, used, total);
    if (f) title += " (" + Percent(*f) + ")";
    return charts::Cell{f, std::move(title)};
  };
  std::vector<charts::HeatRow> heat;
  heat.push_back(
      {fmt::format("all {}", Plural(static_cast<int64_t>(pools.size()), "pool", "pools")),
       "every pool together",
       {cell("all pools", allocated, devices)},
       true});
  for (const DevicePoolUsage& u : pools) {
    const std::string who = fmt::format("{} {} ({})", u.driver, u.pool, u.nodes);
    heat.push_back({u.driver + " " + u.pool, who, {cell(who, u.allocated, u.devices)}, false});
  }
  Put(out,
      "<p class=\"note\">The devices of each ResourceSlice pool allocated to claims at the end "
      "of the run: {} of {}.</p>",
      Thousands(allocated), Thousands(devices));
  out += "<div class=\"scroll\">" + charts::HeatMap({"devices"}, {"end"}, heat, 320) + "</div>";
  out += "</section>";
}

// A PodGroup's state from `from` to `to`, in the timeline's colours; its `last` state lasts
// from `from` on.
charts::Span StateSpan(const std::string& name, sim::GroupState state, api::Duration from,
                       api::Duration to, bool last) {
  const std::string during =
      last ? "from " + TimeLabel(from) : TimeLabel(from) + "\u2013" + TimeLabel(to);
  switch (state) {
    case sim::GroupState::kWaiting:
      return {from, to, charts::kOrange, fmt::format("{}: waiting for quorum {}", name, during)};
    case sim::GroupState::kQuorum:
      return {from, to, charts::kSkyBlue,
              fmt::format("{}: quorum, not yet running {}", name, during)};
    case sim::GroupState::kRunning:
      return {from, to, charts::kBlue, fmt::format("{}: running {}", name, during)};
    case sim::GroupState::kFinished:
      break;
  }
  return {from, to, charts::kGreen, fmt::format("{}: finished at {}", name, TimeLabel(from))};
}

void GroupTimelines(std::string& out, const sim::Simulation& sim, const Facts& f,
                    const HtmlReportOptions& options) {
  std::vector<const sim::GroupTimeline*> groups;
  for (const auto& [key, g] : sim.history().groups()) {
    if (g.created) groups.push_back(&g);
  }
  if (groups.empty()) return;
  const api::Duration end = f.end;
  auto stop = [&](const sim::GroupTimeline& g) { return g.deleted.value_or(end); };
  // Longest wait first: groups still short of quorum, then by time to quorum, then by name.
  auto wait = [&](const sim::GroupTimeline& g) {
    return g.quorum ? *g.quorum - *g.created : stop(g) - *g.created;
  };
  std::stable_sort(groups.begin(), groups.end(), [&](const auto* a, const auto* b) {
    if (a->quorum.has_value() != b->quorum.has_value()) return !a->quorum.has_value();
    return wait(*a) > wait(*b);
  });
  int64_t reached = 0;
  std::vector<api::Duration> waits;
  for (const sim::GroupTimeline* g : groups) {
    if (!g->quorum) continue;
    ++reached;
    waits.push_back(wait(*g));
  }
  std::sort(waits.begin(), waits.end());
  out += "<section id=\"podgroups\"><h2>PodGroups</h2><p class=\"note\">";
  // Coscheduling's PodGroups count minMember, Kubernetes' gang API minCount: "min" is either.
  Put(out, "{} of {} reached quorum (their minimum of members bound)", Thousands(reached),
      Plural(static_cast<int64_t>(groups.size()), "PodGroup", "PodGroups"));
  if (!waits.empty()) {
    Put(out, "; wait from creation to quorum: median {}, longest {}",
        Escape(TimeLabel(waits[waits.size() / 2])), Escape(TimeLabel(waits.back())));
  }
  out += ". Longest wait first.</p>";
  out += "<div class=\"legend\">";
  for (auto [color, label] : std::initializer_list<std::pair<std::string_view, std::string_view>>{
           {charts::kOrange, "waiting for quorum"},
           {charts::kSkyBlue, "quorum, not yet running"},
           {charts::kBlue, "running"},
           {charts::kGreen, "finished"}}) {
    Put(out, "<span><i style=\"background:{}\"></i>{}</span>", color, label);
  }
  out += "<span><i class=\"mark\"></i>first member created</span><span>&times; deleted</span>";
  out += "</div>";

  std::vector<charts::GanttRow> rows;
  for (size_t i = 0; i < groups.size() && i < options.max_groups; ++i) {
    const sim::GroupTimeline& g = *groups[i];
    const api::Duration created = *g.created, until = stop(g);
    charts::GanttRow row;
    const std::string name = ObjectName(f, g.namespace_, g.name);
    row.label = fmt::format("{} \u00b7 min {}", name, g.min_count);
    auto when = [](const std::optional<api::Duration>& t) {
      return t ? TimeLabel(*t) : std::string("\u2013");
    };
    row.title = fmt::format(
        "{} (min {}): created {}, first member {}, quorum {}, running {}, finished {}, "
        "deleted {}; {} member(s), {} bound, {} running, {} succeeded at the end",
        name, g.min_count, when(g.created), when(g.first_member), when(g.quorum), when(g.running),
        when(g.finished), when(g.deleted), g.members, g.bound, g.running_now, g.succeeded_now);
    // One span per state, each until the next change: a group that loses members running
    // (preempted) waits again, and runs again once they are replaced.
    for (size_t k = 0; k < g.states.size(); ++k) {
      const api::Duration from = std::clamp(g.states[k].from, created, until);
      const api::Duration to =
          k + 1 < g.states.size() ? std::clamp(g.states[k + 1].from, from, until) : until;
      row.spans.push_back(StateSpan(name, g.states[k].state, from, to, k + 1 == g.states.size()));
    }
    if (g.first_member) {
      row.marks.push_back(
          {std::max(*g.first_member, created),
           fmt::format("{}: first member created at {}", name, TimeLabel(*g.first_member))});
    }
    row.end_mark = g.deleted;
    if (g.quorum) {
      row.note = wait(g).count() == 0 ? "quorum at once" : "waited " + TimeLabel(wait(g));
    } else {
      // A gang still waiting when the cluster last changed: for how long, and, when the
      // scheduler went on retrying it after that without effect, until when.
      row.note = "no quorum after " + TimeLabel(wait(g));
      if (const std::optional<api::Duration> retried = sim.RetriedUntil()) {
        row.note += " (retried until " + TimeLabel(*retried) + ")";
      }
      row.note_alert = true;
    }
    rows.push_back(std::move(row));
  }
  out += charts::Gantt(rows, end, 1300, 260, 170);
  if (groups.size() > rows.size()) {
    Put(out, "<p class=\"note\">and {} more (the longest waits are shown).</p>",
        Thousands(static_cast<int64_t>(groups.size() - rows.size())));
  }
  out += "</section>";
}

// The pods preemption evicted: each victim's Preempted event (the victim is gone from the pod
// table, and a controller's replacement carries another name), in time order.
std::vector<const cluster::StoredEvent*> PreemptionEvents(const sim::Simulation& sim) {
  std::vector<const cluster::StoredEvent*> events;
  for (const cluster::StoredEvent& e : sim.cluster().events()) {
    if (e.record.reason == "Preempted" && e.record.regarding.kind == "Pod") events.push_back(&e);
  }
  return events;
}

void Preemptions(std::string& out, const Facts& f,
                 const std::vector<const cluster::StoredEvent*>& events,
                 const HtmlReportOptions& options) {
  if (events.empty()) return;
  std::set<std::string> preemptors;
  for (const cluster::StoredEvent* e : events) {
    if (e->record.related) preemptors.insert(e->record.related->Key());
  }
  out += "<section id=\"preemptions\"><h2>Preemptions</h2><p class=\"note\">";
  Put(out, "{} evicted to make room for {}, in time order.",
      Plural(static_cast<int64_t>(events.size()), "pod was", "pods were"),
      Plural(static_cast<int64_t>(preemptors.size()), "pod", "pods"));
  out +=
      "</p><div class=\"scroll\"><table><thead><tr><th class=\"num\">At</th><th>Pod</th>"
      "<th>Preempted by</th><th>Event</th></tr></thead><tbody>";
  for (size_t i = 0; i < events.size() && i < options.max_pod_rows; ++i) {
    const framework::EventRecord& r = events[i]->record;
    Put(out,
        "<tr><td class=\"num\">{}</td><td class=\"mono\">{}</td><td class=\"mono\">{}</td>"
        "<td class=\"msg\">{}</td></tr>",
        Escape(TimeLabel(events[i]->time - sim::kSimulationEpoch)),
        Escape(ObjectName(f, r.regarding.namespace_, r.regarding.name)),
        r.related ? Escape(ObjectName(f, r.related->namespace_, r.related->name)) : "",
        Escape(r.message));
  }
  out += "</tbody></table></div>";
  if (events.size() > options.max_pod_rows) {
    Put(out, "<p class=\"note\">and {} more (<code>-o json</code> lists every event).</p>",
        Thousands(static_cast<int64_t>(events.size() - options.max_pod_rows)));
  }
  out += "</section>";
}

void PodNames(std::string& out, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size() && i < 5; ++i) {
    Put(out, "{}<span class=\"mono\">{}</span>", i == 0 ? "" : ", ", Escape(names[i]));
  }
  if (names.size() > 5) Put(out, " and {} more", Thousands(static_cast<int64_t>(names.size() - 5)));
}

void Unschedulable(std::string& out, const Facts& f, const HtmlReportOptions& options) {
  std::map<std::string, std::vector<std::string>> by_message;
  std::map<std::string, std::vector<std::string>> by_gates;
  for (const PodFacts& p : f.pods) {
    const std::string name = ObjectName(f, p.pod->metadata.namespace_.str(), p.pod->metadata.name);
    if (p.status == "SchedulingGated") {
      std::string gates;
      for (const std::string& gate : p.pod->spec.scheduling_gates) {
        gates += (gates.empty() ? "" : ", ") + gate;
      }
      by_gates[gates].push_back(name);
    } else if (p.status == "Pending") {
      std::string message = "(not attempted yet)";
      if (p.unschedulable != nullptr) {
        message = p.unschedulable->reason.empty() || p.unschedulable->reason == "Unschedulable"
                      ? p.unschedulable->message
                      : p.unschedulable->reason + ": " + p.unschedulable->message;
      }
      by_message[message].push_back(name);
    }
  }
  out += "<section id=\"unschedulable\"><h2>Unschedulable and gated pods</h2>";
  if (by_message.empty() && by_gates.empty()) {
    out += "<p class=\"note\">Every pod was scheduled.</p></section>";
    return;
  }
  if (!by_message.empty()) {
    std::vector<std::pair<const std::string*, const std::vector<std::string>*>> reasons;
    for (const auto& [message, names] : by_message) reasons.emplace_back(&message, &names);
    std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) {
      return a.second->size() > b.second->size();
    });
    out +=
        "<p class=\"note\">Pending pods grouped by their last scheduling failure (the "
        "PodScheduled=False message).</p>";
    out +=
        "<table><thead><tr><th class=\"num\">Pods</th><th>Why</th><th>For example</th></tr></thead>"
        "<tbody>";
    for (size_t i = 0; i < reasons.size() && i < options.max_reasons; ++i) {
      Put(out, "<tr><td class=\"num\">{}</td><td class=\"msg\">{}</td><td>",
          Thousands(static_cast<int64_t>(reasons[i].second->size())), Escape(*reasons[i].first));
      PodNames(out, *reasons[i].second);
      out += "</td></tr>";
    }
    out += "</tbody></table>";
    if (reasons.size() > options.max_reasons) {
      Put(out, "<p class=\"note\">and {} other messages.</p>",
          Thousands(static_cast<int64_t>(reasons.size() - options.max_reasons)));
    }
  }
  if (!by_gates.empty()) {
    out +=
        "<p class=\"note\" style=\"margin-top:14px\">Pods held by scheduling gates: the "
        "scheduler does not try them until every gate is removed.</p>";
    out +=
        "<table><thead><tr><th class=\"num\">Pods</th><th>Gates</th><th>For example</th></tr>"
        "</thead><tbody>";
    size_t shown = 0;
    for (const auto& [gates, names] : by_gates) {
      if (shown++ == options.max_reasons) break;
      Put(out, "<tr><td class=\"num\">{}</td><td class=\"mono\">{}</td><td>",
          Thousands(static_cast<int64_t>(names.size())), Escape(gates));
      PodNames(out, names);
      out += "</td></tr>";
    }
    out += "</tbody></table>";
  }
  out += "</section>";
}

void Configuration(std::string& out, const HtmlReportOptions& options) {
  out += "<section id=\"configuration\"><h2>Scheduler configuration</h2>";
  if (options.config_text.empty()) {
    out +=
        "<p class=\"note\">Default profile: no KubeSchedulerConfiguration was given, so the "
        "scheduler ran upstream&rsquo;s default plugins.</p>";
  } else {
    Put(out, "<p class=\"note\">From <code>{}</code>.</p><pre>{}</pre>",
        Escape(options.config_source), Escape(options.config_text));
  }
  out += "</section>";
}

void PodTable(std::string& out, const sim::Simulation& sim, const Facts& f,
              const HtmlReportOptions& options) {
  out += "<section id=\"pods\"><h2>Pods</h2>";
  if (f.pods.empty()) {
    out += "<p class=\"note\">No pods.</p></section>";
    return;
  }
  if (f.pods.size() > options.max_pod_rows) {
    Put(out,
        "<p class=\"note\">The first {} of {} pods, by namespace/name (<code>-o json</code> "
        "lists every pod).</p>",
        Thousands(static_cast<int64_t>(options.max_pod_rows)),
        Thousands(static_cast<int64_t>(f.pods.size())));
  }
  out +=
      "<div class=\"scroll\"><table><thead><tr><th>Name</th><th>Status</th><th>Node</th>"
      "<th>PodGroup</th><th class=\"num\">Attempts</th><th class=\"num\">Scheduled at</th>"
      "<th>Message</th></tr></thead><tbody>";
  for (size_t i = 0; i < f.pods.size() && i < options.max_pod_rows; ++i) {
    const PodFacts& p = f.pods[i];
    auto record = sim.records().find(*p.key);
    const bool has = record != sim.records().end();
    Put(out,
        "<tr><td class=\"mono\">{}</td><td><span class=\"badge s-{}\">{}</span></td>"
        "<td class=\"mono\">{}</td><td class=\"mono\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"msg\">{}</td></tr>",
        Escape(ObjectName(f, p.pod->metadata.namespace_.str(), p.pod->metadata.name)),
        Escape(p.status), Escape(p.status), Escape(p.pod->spec.node_name.str()), Escape(p.group),
        has ? record->second.attempts : 0,
        has && record->second.scheduled_at ? Escape(TimeLabel(*record->second.scheduled_at)) : "",
        p.unschedulable ? Escape(p.unschedulable->message) : "");
  }
  out += "</tbody></table></div></section>";
}

}  // namespace

namespace {

// Everything below the header: the summary to the pod table.
void Sections(std::string& page, const sim::Simulation& sim, const HtmlReportOptions& options) {
  const Facts facts = Gather(sim);
  const std::vector<const cluster::StoredEvent*> preemptions = PreemptionEvents(sim);
  Summary(page, sim, facts, preemptions.size());
  page += "\n";
  PodsOverTime(page, sim, facts);
  page += "\n";
  NodeUtilisation(page, sim, options);
  page += "\n";
  DeviceUtilisation(page, sim);
  page += "\n";
  GroupTimelines(page, sim, facts, options);
  page += "\n";
  Preemptions(page, facts, preemptions, options);
  page += "\n";
  Unschedulable(page, facts, options);
  page += "\n";
  Configuration(page, options);
  page += "\n";
  PodTable(page, sim, facts, options);
}

void PageStart(std::string& page, const std::string& title, std::string_view more_style = "") {
  Put(page,
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}{}</style></head>\n<body><main>\n",
      kContentSecurityPolicy, Escape(title), kStyle, more_style);
}

}  // namespace

void WriteHtmlReport(const sim::Simulation& sim, const HtmlReportOptions& options,
                     std::ostream& out) {
  std::string page;
  page.reserve(256 * 1024);
  PageStart(page, options.title);
  Header(page, sim, options);
  Sections(page, sim, options);
  page +=
      "\n<footer>Written by <code>muster simulate --report</code>. The charts are inline SVG "
      "drawn by muster; the page loads nothing.</footer>\n</main></body></html>\n";
  out << page;
}

// ---- muster compare --report ----

namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view kCompareStyle = R"(
.sides{display:grid;grid-template-columns:1fr 1fr;gap:0 18px}
.sides>div{min-width:0}
.sides h2.side{font-size:18px;margin:18px 0 0}
.sides .cards{grid-template-columns:repeat(auto-fit,minmax(96px,1fr))}
tr.differs td{background:#fff6e5}
td.differs{color:#a86400;font-weight:600}
)";

// A table of text cells (escaped here); a row whose last cell is "differs" is marked.
void Table(std::string& out, const std::vector<std::vector<std::string>>& rows,
           size_t first_number_column) {
  out += "<div class=\"scroll\"><table><thead><tr>";
  for (size_t i = 0; i < rows[0].size(); ++i) {
    Put(out, "<th{}>{}</th>",
        i >= first_number_column && i + 1 < rows[0].size() ? " class=\"num\"" : "",
        Escape(rows[0][i]));
  }
  out += "</tr></thead><tbody>";
  for (size_t r = 1; r < rows.size(); ++r) {
    const bool differs = rows[r].back() == "differs";
    out += differs ? "<tr class=\"differs\">" : "<tr>";
    for (size_t i = 0; i < rows[r].size(); ++i) {
      const bool last = i + 1 == rows[r].size();
      Put(out, "<td{}>{}</td>",
          last ? (differs ? " class=\"differs\"" : "")
               : (i >= first_number_column ? " class=\"num\"" : (i == 0 ? " class=\"mono\"" : "")),
          Escape(rows[r][i]));
    }
    out += "</tr>";
  }
  out += "</tbody></table></div>";
}

// The comparison's own tables, from `muster compare -o json`'s document.
void ComparisonTables(std::string& out, const json& c, size_t max_rows) {
  const std::string a = c["sides"][0]["name"], b = c["sides"][1]["name"];
  const bool seeds = c["seeds"].size() > 1;
  const std::vector<std::string> resources = c["nodes"]["resources"];
  out += "<section id=\"summary\"><h2>Summary</h2><p class=\"note\">";
  out += seeds ? "Each figure is the mean over the seeds, with its least and greatest. "
               : "One run a side. ";
  out +=
      "A figure differs when the two sides' values do not overlap: what the tie-breaking seed "
      "alone moves is not counted as the sides' difference.</p>";
  std::vector<std::vector<std::string>> rows = {{"", a, b, ""}};
  for (const json& m : c["summary"]) {
    const std::string metric = m["metric"];
    const Unit unit = MetricUnit(metric, resources);
    rows.push_back({MetricLabel(metric), SpreadText(m["a"], unit), SpreadText(m["b"], unit),
                    m["differs"].get<bool>() ? "differs" : ""});
  }
  Table(out, rows, 1);
  out += "</section>\n";

  const json& pods = c["pods"];
  Put(out,
      "<section id=\"pods-differing\"><h2>Pods that differ</h2><p class=\"note\">{} of {} "
      "pods compared by name: pending on one side and bound on the other, or bound on no node "
      "in common.</p>",
      Thousands(pods["differing"].get<int64_t>()), Thousands(pods["compared"].get<int64_t>()));
  if (!pods["items"].empty()) {
    rows = {{"Pod", a, b, "Differs"}};
    auto cell = [&](const json& side) {
      if (side["runs"] == 0) return std::string("(absent)");
      if (side["bound"] == 0) {
        const std::string message = side["message"];
        return side["status"].get<std::string>() + (message.empty() ? "" : ": " + message);
      }
      std::vector<std::string> nodes;
      for (const auto& [node, n] : side["nodes"].items()) {
        nodes.push_back(seeds ? fmt::format("{} x{}", node, n.get<int>()) : node);
      }
      return fmt::format("{}", fmt::join(nodes, ", "));
    };
    for (const json& p : pods["items"]) {
      if (rows.size() > max_rows) break;
      rows.push_back({p["pod"], cell(p["a"]), cell(p["b"]), p["differs"]});
    }
    Table(out, rows, 99);
  }
  out += "</section>\n";

  if (!c["podGroups"].empty()) {
    out +=
        "<section id=\"podgroups-compared\"><h2>PodGroups</h2><p class=\"note\">Time to "
        "quorum and to every member bound, from the later of the group's creation and its "
        "first member's.</p>";
    rows = {{"PodGroup", "min " + a, "min " + b, "bound " + a, "bound " + b, "quorum " + a,
             "quorum " + b, "all bound " + a, "all bound " + b, ""}};
    for (const json& g : c["podGroups"]) {
      if (rows.size() > max_rows) break;
      rows.push_back({g["podGroup"], SpreadText(g["minCount"]["a"], Unit::kCount),
                      SpreadText(g["minCount"]["b"], Unit::kCount),
                      SpreadText(g["bound"]["a"], Unit::kCount),
                      SpreadText(g["bound"]["b"], Unit::kCount),
                      SpreadText(g["quorumAfter"]["a"], Unit::kSeconds),
                      SpreadText(g["quorumAfter"]["b"], Unit::kSeconds),
                      SpreadText(g["allBoundAfter"]["a"], Unit::kSeconds),
                      SpreadText(g["allBoundAfter"]["b"], Unit::kSeconds),
                      g["differs"].get<bool>() ? "differs" : ""});
    }
    Table(out, rows, 1);
    out += "</section>\n";
  }

  if (!c["workloads"].empty()) {
    out += "<section id=\"workloads\"><h2>Workloads</h2>";
    rows = {{"Workload", "pods " + a, "pods " + b, "bound " + a, "bound " + b, ""}};
    for (const json& w : c["workloads"]) {
      if (rows.size() > max_rows) break;
      rows.push_back(
          {w["workload"], SpreadText(w["pods"]["a"], Unit::kCount),
           SpreadText(w["pods"]["b"], Unit::kCount), SpreadText(w["bound"]["a"], Unit::kCount),
           SpreadText(w["bound"]["b"], Unit::kCount), w["differs"].get<bool>() ? "differs" : ""});
    }
    Table(out, rows, 1);
    out += "</section>\n";
  }

  auto figures = [&](const std::string& first, const json& items, bool only_differing) {
    std::vector<std::vector<std::string>> table = {{first, "pods " + a, "pods " + b}};
    for (const std::string& r : resources) {
      table[0].push_back(r + " " + a);
      table[0].push_back(r + " " + b);
    }
    table[0].push_back("");
    for (const json& n : items) {
      if (only_differing && !n["differs"].get<bool>()) continue;
      if (table.size() > max_rows) break;
      const std::string name = n.contains("node") ? n["node"] : n["value"];
      std::vector<std::string> row = {name.empty() ? "(unset)" : name,
                                      SpreadText(n["pods"]["a"], Unit::kCount),
                                      SpreadText(n["pods"]["b"], Unit::kCount)};
      for (const std::string& r : resources) {
        row.push_back(SpreadText(n[r]["a"], Unit::kPercent));
        row.push_back(SpreadText(n[r]["b"], Unit::kPercent));
      }
      row.push_back(n["differs"].get<bool>() ? "differs" : "");
      table.push_back(std::move(row));
    }
    return table;
  };
  Put(out,
      "<section id=\"nodes-differing\"><h2>Nodes that differ</h2><p class=\"note\">{} of "
      "{} nodes; pods and requested share of each resource at the end.</p>",
      Thousands(c["nodes"]["differing"].get<int64_t>()),
      Thousands(static_cast<int64_t>(c["nodes"]["items"].size())));
  if (c["nodes"]["differing"] != 0) Table(out, figures("Node", c["nodes"]["items"], true), 1);
  out += "</section>\n";
  for (const json& label : c["labels"]) {
    Put(out, "<section><h2>By <code>{}</code></h2>", Escape(label["label"].get<std::string>()));
    Table(out, figures("Value", label["values"], false), 1);
    out += "</section>\n";
  }
}

// A side's report sections, their ids made its own.
std::string SideSections(const HtmlSide& side, std::string_view prefix) {
  std::string sections;
  Sections(sections, side.sim, side.options);
  std::string out;
  out.reserve(sections.size() + 1024);
  const std::string id = " id=\"";
  size_t from = 0;
  for (size_t at = sections.find(id); at != std::string::npos; at = sections.find(id, from)) {
    out.append(sections, from, at + id.size() - from);
    out += prefix;
    from = at + id.size();
  }
  out.append(sections, from);
  return out;
}

}  // namespace

void WriteHtmlComparison(const nlohmann::ordered_json& comparison, const HtmlSide& a,
                         const HtmlSide& b, std::ostream& out) {
  std::string page;
  page.reserve(512 * 1024);
  PageStart(page, "muster compare", kCompareStyle);
  page += "<header><h1>muster compare</h1>";
  std::vector<std::string> seeds;
  for (const json& s : comparison["seeds"]) seeds.push_back(std::to_string(s.get<uint64_t>()));
  Put(page, "<div class=\"sub\">{} &middot; seed{} {}</div>",
      a.options.inputs.empty() ? std::string()
                               : "Inputs <code>" + Escape(a.options.inputs.front()) + "</code>",
      seeds.size() == 1 ? "" : "s", Escape(fmt::format("{}", fmt::join(seeds, ", "))));
  for (const json& side : comparison["sides"]) {
    std::string what = Escape(ConfigurationText(side));
    for (const json& f : side["files"])
      what += " &middot; <code>" + Escape(f.get<std::string>()) + "</code>";
    for (const json& r : side["replaced"]) what += "<br>" + Escape(r.get<std::string>());
    Put(page, "<div class=\"sub\"><b>{}</b>: {}</div>", Escape(side["name"].get<std::string>()),
        what);
  }
  page += "</header>\n";
  ComparisonTables(page, comparison, a.options.max_pod_rows);
  const std::string name_a = comparison["sides"][0]["name"],
                    name_b = comparison["sides"][1]["name"];
  Put(page, "<div class=\"sides\"><div><h2 class=\"side\">{} (seed {})</h2>\n", Escape(name_a),
      a.sim.options().seed);
  page += SideSections(a, "a-");
  Put(page, "</div><div><h2 class=\"side\">{} (seed {})</h2>\n", Escape(name_b),
      b.sim.options().seed);
  page += SideSections(b, "b-");
  page +=
      "</div></div>\n<footer>Written by <code>muster compare --report</code>. The charts are "
      "inline SVG drawn by muster; the page loads nothing.</footer>\n</main></body></html>\n";
  out << page;
}

}  // namespace muster::report
