#pragma once

// `muster simulate --report FILE`: the HTML report (report/html.h) of a run, written to FILE.

#include <cstdio>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/manifests.h"
#include "muster/report/html.h"
#include "muster/sim/simulation.h"

namespace muster::cli {

// The scheduler configuration's text for the report, and where it came from.
struct ConfigText {
  std::string source;  // "--config FILE", or the input document: "jobs.yaml: document 3"
  std::string text;    // empty: there was none
};

// The configuration a run used, as text: --config's file as written (`config_path`; "-" is
// stdin), else the one KubeSchedulerConfiguration among `inputs`: its file as written when it
// holds nothing else, otherwise that document re-emitted as YAML (its comments lost). `texts`
// holds the inputs that are not files, by the name they were decoded under ("<stdin>", the
// built-in demo's).
ConfigText FindConfigText(const std::string& config_path, const api::Manifests& inputs,
                          const std::map<std::string, std::string_view>& texts);

// The report's options for a run of `paths` (after the live cluster of `kubeconfig` when given;
// without either, the built-in demo) with --config `config_path` (empty: the one among
// `inputs`, if any): what was simulated and the configuration's text. `stdin_text` is what was
// read from stdin, for a configuration given as "-".
report::HtmlReportOptions ReportOptionsFor(const std::vector<std::string>& paths,
                                           const std::string& kubeconfig,
                                           const std::string& config_path,
                                           const api::Manifests& inputs,
                                           const std::string& stdin_text);

// The report's file. Open it before the run, so that a path that cannot be written fails before
// the work is done; write it after.
class ReportFile {
 public:
  ReportFile() = default;
  ReportFile(const ReportFile&) = delete;
  ReportFile& operator=(const ReportFile&) = delete;
  ~ReportFile();

  // Creates or truncates `path`. On failure prints "error: --report: cannot write PATH: REASON"
  // on `err` and returns false.
  bool Open(const std::string& path, std::ostream& err);
  // Writes the report and closes the file; false (with the same error) when that fails.
  bool Write(const sim::Simulation& sim, const report::HtmlReportOptions& options,
             std::ostream& err);
  // Writes a page made elsewhere (compare's) and closes the file, as Write.
  bool WritePage(const std::string& page, std::ostream& err);

 private:
  bool Fail(int error, std::ostream& err);

  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace muster::cli
