#include "muster/cli/simulate.h"

#include <algorithm>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "muster/cli/load_simulation.h"
#include "muster/cli/progress.h"
#include "muster/cli/report_file.h"
#include "muster/cli/validate.h"
#include "muster/report/simulation_output.h"
#include "muster/sim/simulation.h"

namespace muster::cli {

int RunSimulate(const SimulateFlags& flags, std::istream& in, std::ostream& out,
                std::ostream& err) {
  if (flags.output != "table" && flags.output != "wide" && flags.output != "json" &&
      flags.output != "yaml") {
    err << fmt::format("error: -o: unknown output format \"{}\" (want table, wide, json or yaml)\n",
                       flags.output);
    return kExitBadInput;
  }
  sim::SimulationOptions options;
  options.check = flags.check;
  ProgressLine progress(err, flags.progress);
  if (flags.progress) options.progress = SimulationProgress(progress);

  // The report shows the configuration as written, so it keeps what it reads from stdin.
  const bool reads_stdin = flags.config == "-" || std::find(flags.paths.begin(), flags.paths.end(),
                                                            "-") != flags.paths.end();
  std::string stdin_text;
  std::istringstream stdin_copy;
  if (!flags.report.empty() && reads_stdin) {
    std::ostringstream ss;
    ss << in.rdbuf();
    stdin_text = std::move(ss).str();
    stdin_copy.str(stdin_text);
  }
  std::istream& input = stdin_text.empty() ? in : stdin_copy;

  SimulationInput input_flags{flags.paths, flags.config,           flags.until,
                              flags.seed,  flags.field_validation, flags.max_pods};
  input_flags.kubeconfig = flags.kubeconfig;
  input_flags.context = flags.context;
  input_flags.save_snapshot = flags.save_snapshot;
  input_flags.scheduler_names = flags.scheduler_names;
  LoadedSimulation loaded = LoadSimulation(input_flags, std::move(options), input, err);
  if (loaded.simulation == nullptr) return loaded.runtime_error ? kExitRuntimeError : kExitBadInput;
  sim::Simulation* simulation = loaded.simulation.get();
  ReportFile report;
  if (!flags.report.empty() && !report.Open(flags.report, err)) return kExitRuntimeError;
  simulation->Run();
  progress.Clear();
  for (const std::string& w : simulation->warnings()) err << "warning: " << w << "\n";
  for (const std::string& n : report::ExtenderNotes(*simulation)) err << "note: " << n << "\n";

  if (flags.output == "json") {
    report::PrintJson(*simulation, out);
  } else if (flags.output == "yaml") {
    report::PrintYaml(*simulation, out);
  } else {
    report::PrintTable(*simulation, flags.output == "wide", out);
    if (const std::optional<api::Duration> retried = simulation->RetriedUntil()) {
      err << "note: the cluster last changed at " << api::FormatDuration(simulation->End())
          << "; pending pods were retried until " << api::FormatDuration(*retried)
          << " without effect\n";
    }
  }
  if (!flags.report.empty()) {
    const report::HtmlReportOptions report_options = ReportOptionsFor(
        flags.paths, flags.kubeconfig, flags.config, simulation->manifests(), stdin_text);
    if (!report.Write(*simulation, report_options, err)) return kExitRuntimeError;
  }
  if (const std::optional<sim::Violation> v = simulation->violation()) {
    err << "error: invariant violated " << v->String() << "\n"
        << "the simulation stopped at the end of that turn; the outcome above is the cluster "
           "then\n";
    return kExitRuntimeError;
  }
  return kExitOk;
}

}  // namespace muster::cli
