#include "muster/cli/bench.h"

#include <ostream>

#include <fmt/format.h>

#include "muster/bench/run_workload.h"
#include "muster/bench/workloads.h"
#include "muster/cli/progress.h"
#include "muster/cli/validate.h"
#include "muster/report/bench_output.h"

namespace muster::cli {
namespace {

std::string KnownWorkloads() {
  std::string names;
  for (const bench::Workload& w : bench::Workloads()) {
    if (!names.empty()) names += ", ";
    names += w.name;
  }
  return names;
}

}  // namespace

int RunBench(const BenchFlags& flags, std::ostream& out, std::ostream& err) {
  if (flags.output != "table" && flags.output != "json") {
    err << fmt::format("error: -o: unknown output format \"{}\" (want table or json)\n",
                       flags.output);
    return kExitBadInput;
  }
  for (const auto& [flag, value] : {std::pair{"--nodes", flags.nodes}, {"--pods", flags.pods}}) {
    if (value && *value < 1) {
      err << fmt::format("error: {}: must be at least 1, got {}\n", flag, *value);
      return kExitBadInput;
    }
  }
  if (flags.gang_mode != "Group" && flags.gang_mode != "PerPod") {
    err << fmt::format("error: --gang-mode: \"{}\" is neither Group nor PerPod\n", flags.gang_mode);
    return kExitBadInput;
  }
  if (flags.list) {
    // Each workload's shape at its default scale (--nodes and --pods scale it).
    out << fmt::format("{:<31} {:>6} {:>8} {:<26} {:>8} {:>8}  {}\n", "WORKLOAD", "NODES",
                       "MEASURED", "PROFILE", "UPSTREAM", "TARGET", "SOURCE");
    for (const bench::Workload& w : bench::Workloads()) {
      const char* profile = w.profile == bench::Profile::kDefault ? "default"
                            : w.profile == bench::Profile::kCoscheduling
                                ? "Coscheduling"
                                : "Coscheduling with backoff";
      auto rate = [](const std::optional<double>& v) {
        return v ? fmt::format("{:.0f}", *v) : std::string("-");
      };
      out << fmt::format("{:<31} {:>6} {:>8} {:<26} {:>8} {:>8}  {}\n", w.name, w.default_nodes,
                         w.default_pods, profile, rate(w.upstream_threshold), rate(w.target),
                         w.source);
    }
    return kExitOk;
  }
  std::vector<const bench::Workload*> selected;
  for (const std::string& name : flags.workloads) {
    const bench::Workload* w = bench::FindWorkload(name);
    if (w == nullptr) {
      err << fmt::format("error: unknown workload \"{}\"; workloads: {}\n", name, KnownWorkloads());
      return kExitBadInput;
    }
    selected.push_back(w);
  }
  if (selected.empty()) {
    for (const bench::Workload& w : bench::Workloads()) {
      if (!w.at_scale) selected.push_back(&w);
    }
  }

  // A terminal gets one line rewritten in place; a log gets nothing but the results.
  ProgressLine progress(err, flags.progress);
  bench::RunOptions options;
  options.nodes = flags.nodes;
  options.pods = flags.pods;
  options.gang_mode = flags.gang_mode;
  options.progress = [&](const bench::Progress& p) {
    if (!progress.Due()) return;
    progress.Update(fmt::format("{}: {} pods {}/{} bound, {:.0f}s, {:.0f} pods/s", p.workload,
                                p.phase, p.bound, p.total, p.elapsed_seconds,
                                p.elapsed_seconds > 0 ? p.bound / p.elapsed_seconds : 0.0));
  };

  std::vector<bench::Result> results;
  bool failed = false;
  for (const bench::Workload* w : selected) {
    progress.Restart();
    results.push_back(bench::RunWorkload(*w, options));
    progress.Clear();
    // A workload keeps its pods to what its nodes hold: --pods beyond that is said, not dropped.
    if (const bench::Result& r = results.back(); flags.pods && r.created_pods < *flags.pods) {
      err << fmt::format(
          "warning: {}: measured {} pods, not the {} of --pods: on {} node(s) the workload "
          "holds no more (give more --nodes)\n",
          w->name, r.created_pods, *flags.pods, r.nodes);
    }
    for (const std::string& e : results.back().errors) {
      err << fmt::format("error: {}: {}\n", w->name, e);
      failed = true;
    }
  }
  if (flags.output == "json") {
    report::PrintJson(results, out);
  } else {
    report::PrintTable(results, out);
  }
  return failed ? kExitRuntimeError : kExitOk;
}

}  // namespace muster::cli
