#pragma once

// `muster simulate --report FILE`: the outcome of a simulation as one self-contained HTML page.
// Its charts are inline SVG drawn by muster (charts.h), it has no script, and its
// Content-Security-Policy lets it load nothing: opened anywhere, no request leaves the page.
// The page depends only on the simulation and the options (no wall-clock time in it), so the
// same input and seed give a byte-identical file.
//
// Sections: the summary and a one-line verdict; pods by state over virtual time; node
// utilisation (requested / allocatable of each resource at the end and at its peak); a timeline
// per PodGroup; the unschedulable pods grouped by message, and the gated ones; the scheduler
// configuration; the pods. Long lists are capped (the options below) so that a run of 1,000
// nodes and 10,000 pods stays a page of a few hundred KiB.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "muster/sim/simulation.h"

namespace muster::report {

struct HtmlReportOptions {
  std::string title = "muster simulate";
  // What was simulated, as the command line named it (the -f paths, or the built-in demo).
  std::vector<std::string> inputs;
  // The scheduler configuration's YAML and where it came from ("--config FILE", or a document
  // of the inputs). Both empty: the run had none, and used the default profile.
  std::string config_source;
  std::string config_text;
  // Caps that keep the page small and legible for large runs.
  size_t max_pod_rows = 500;
  size_t max_groups = 40;
  size_t max_heatmap_nodes = 40;  // beyond it: the busiest nodes, and histograms of all
  size_t max_reasons = 30;
};

void WriteHtmlReport(const sim::Simulation& sim, const HtmlReportOptions& options,
                     std::ostream& out);

// One side of `muster compare --report`: its first run, and how to present it.
struct HtmlSide {
  const sim::Simulation& sim;
  const HtmlReportOptions& options;
};

// `muster compare --report FILE`: the comparison's tables (from its -o json document, see
// report/comparison.h), then each side's first run as the report above shows it, the two in
// columns. Self-contained and byte-identical for the same input, as the report.
void WriteHtmlComparison(const nlohmann::ordered_json& comparison, const HtmlSide& a,
                         const HtmlSide& b, std::ostream& out);

}  // namespace muster::report
