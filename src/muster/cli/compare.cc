#include "muster/cli/compare.h"

#include <algorithm>
#include <memory>
#include <ostream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "muster/cli/progress.h"
#include "muster/cli/report_file.h"
#include "muster/cli/validate.h"
#include "muster/plugins/registry.h"
#include "muster/report/comparison.h"
#include "muster/report/html.h"
#include "muster/report/simulation_output.h"

namespace muster::cli {
namespace {

// What a run's outcome keeps of a pod at most (report::RunPod with its strings), for the bound
// on --seeds: every run of both sides is kept until the comparison is made.
constexpr uint64_t kBytesPerComparedPod = 512;

// The node labels utilisation is always totalled by, when nodes have them.
const std::vector<std::string>& WellKnownLabels() {
  static const std::vector<std::string> labels = {"topology.kubernetes.io/zone",
                                                  "node.kubernetes.io/instance-type"};
  return labels;
}

int BadInput(const std::string& error, std::ostream& err) {
  err << "error: " << error << "\nnothing was simulated\n";
  return kExitBadInput;
}

// One side's runs, and its first run's simulation while a report needs it.
struct Side {
  report::ComparedSide compared;
  std::unique_ptr<sim::Simulation> first;
  report::HtmlReportOptions report_options;
};

}  // namespace

int RunCompare(const CompareFlags& flags, std::istream& in, std::ostream& out, std::ostream& err) {
  if (flags.output != "table" && flags.output != "json") {
    err << fmt::format("error: -o: unknown output format \"{}\" (want table or json)\n",
                       flags.output);
    return kExitBadInput;
  }
  if (flags.configs.size() > 2) {
    return BadInput(fmt::format("--config: given {} times; compare takes A's and B's, at most two",
                                flags.configs.size()),
                    err);
  }
  if (flags.configs.size() < 2 && flags.a_files.empty() && flags.b_files.empty()) {
    return BadInput(
        "compare needs two sides that differ: --config A.yaml --config B.yaml, or --a-file / "
        "--b-file with objects that replace the input's (or add to it) on one side",
        err);
  }
  // Each side reads its inputs again: stdin is read once and given to both.
  int stdin_uses = 0;
  for (const auto* list : {&flags.input.paths, &flags.configs, &flags.a_files, &flags.b_files}) {
    stdin_uses += static_cast<int>(std::count(list->begin(), list->end(), "-"));
  }
  if (stdin_uses > 1) return BadInput("- (stdin) may be given once", err);
  std::string stdin_text;
  if (stdin_uses == 1) {
    std::ostringstream ss;
    ss << in.rdbuf();
    stdin_text = std::move(ss).str();
  }

  SimulationInput common = flags.input;
  if (const std::optional<std::string> error = ClusterFlagWithoutKubeconfig(common)) {
    return BadInput(*error, err);
  }
  if (!common.kubeconfig.empty()) {
    api::NamedText snapshot;
    if (const int code = ReadClusterSnapshot(common, &snapshot, err); code != kExitOk) {
      err << "nothing was simulated\n";
      return code;
    }
    common.snapshot = std::move(snapshot);
  }
  std::vector<std::string> label_keys = WellKnownLabels();
  for (const std::string& label : flags.labels) {
    if (std::find(label_keys.begin(), label_keys.end(), label) == label_keys.end()) {
      label_keys.push_back(label);
    }
  }

  ReportFile report_file;
  if (!flags.report.empty() && !report_file.Open(flags.report, err)) return kExitRuntimeError;
  ProgressLine progress(err, flags.progress);
  Side sides[2];
  for (int i = 0; i < 2; ++i) {
    Side& side = sides[i];
    side.compared.name = i == 0 ? "A" : "B";
    SimulationInput input = common;
    input.config = flags.configs.size() == 2   ? flags.configs[i]
                   : flags.configs.size() == 1 ? flags.configs[0]
                                               : "";
    input.overrides = i == 0 ? flags.a_files : flags.b_files;
    input.announce_demo = i == 0;
    side.compared.files = input.overrides;
    sim::SimulationOptions options;
    if (flags.progress) options.progress = SimulationProgress(progress);
    std::istringstream stdin_copy(stdin_text);
    LoadedSimulation loaded =
        LoadSimulation(input, options, stdin_uses == 1 ? stdin_copy : in, err);
    if (loaded.simulation == nullptr) {
      return loaded.runtime_error ? kExitRuntimeError : kExitBadInput;
    }
    side.compared.replaced = loaded.replaced;
    side.report_options = ReportOptionsFor(common.paths, common.kubeconfig, input.config,
                                           loaded.simulation->manifests(), stdin_text);
    side.report_options.title = "muster compare: " + side.compared.name;
    side.report_options.inputs.insert(side.report_options.inputs.end(), input.overrides.begin(),
                                      input.overrides.end());
    side.compared.config =
        side.report_options.config_text.empty() ? "" : side.report_options.config_source;

    // The other seeds' runs start from the same decoded input, with the same options (--until).
    const api::Manifests manifests =
        flags.seeds > 1 ? loaded.simulation->manifests() : api::Manifests{};
    options = loaded.simulation->options();
    for (uint64_t k = 0; k < flags.seeds; ++k) {
      std::unique_ptr<sim::Simulation> run;
      if (k == 0) {
        run = std::move(loaded.simulation);
      } else {
        options.seed = input.seed + k;
        std::vector<std::string> errors;
        run =
            sim::Simulation::Create(manifests, loaded.config ? &*loaded.config : nullptr, options,
                                    plugins::InTreeRegistry(), plugins::DefaultPlugins(), &errors);
        // The same input and configuration were accepted for the first seed.
        if (run == nullptr) {
          for (const std::string& e : errors) err << "error: " << e << "\n";
          return kExitRuntimeError;
        }
      }
      run->Run();
      progress.Clear();
      if (k == 0) {
        for (const std::string& w : run->warnings()) {
          err << fmt::format("warning: {}: {}\n", side.compared.name, w);
        }
        for (const std::string& n : report::ExtenderNotes(*run)) {
          err << fmt::format("note: {}: {}\n", side.compared.name, n);
        }
      }
      side.compared.runs.push_back(report::Outcome(*run, label_keys));
      // Every run of both sides is kept until the end: bound what they take.
      if (i == 0 && k == 0) {
        const uint64_t per_run =
            std::max<uint64_t>(side.compared.runs.back().pods.size(), 1) * kBytesPerComparedPod;
        const uint64_t most = DefaultMaxPods() * kBytesPerSimulatedPod / per_run / 2;
        if (flags.seeds > most) {
          return BadInput(
              fmt::format("--seeds {}: keeping that many runs of {} pods a side would take more "
                          "than half this machine's memory; give at most {}",
                          flags.seeds, side.compared.runs.back().pods.size(), most),
              err);
        }
      }
      if (k == 0 && !flags.report.empty()) side.first = std::move(run);
    }
  }

  const nlohmann::ordered_json comparison =
      report::BuildComparison(sides[0].compared, sides[1].compared);
  if (flags.output == "json") {
    out << comparison.dump(2) << "\n";
  } else {
    report::PrintComparison(comparison, out);
  }
  if (!flags.report.empty()) {
    std::ostringstream page;
    report::WriteHtmlComparison(comparison, {*sides[0].first, sides[0].report_options},
                                {*sides[1].first, sides[1].report_options}, page);
    if (!report_file.WritePage(std::move(page).str(), err)) return kExitRuntimeError;
  }
  return kExitOk;
}

}  // namespace muster::cli
