#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "muster/api/manifests.h"

namespace muster::cli {

struct SimulateFlags {
  std::vector<std::string> paths;  // empty: the built-in demo
  std::string config;              // --config FILE
  std::string until;               // --until DURATION
  std::string output = "table";    // -o table|wide|json|yaml
  uint64_t seed = 0;
  api::FieldValidation field_validation = api::FieldValidation::kStrict;  // --validate
  std::optional<uint64_t> max_pods;                                       // --max-pods
  bool check = false;     // --check: the invariant checker
  std::string report;     // --report FILE: the HTML report
  bool progress = false;  // a progress line on `err` (stderr is a terminal)
  // A live cluster to read and simulate with the manifests (load_simulation.h).
  std::string kubeconfig;                    // --kubeconfig
  std::string context;                       // --context
  std::string save_snapshot;                 // --save-snapshot FILE
  std::vector<std::string> scheduler_names;  // --scheduler-name
};

// `muster simulate`: loads the manifests (or the built-in demo; with --kubeconfig, a live
// cluster's objects and the manifests), runs the simulation and prints
// the outcome, and with --report writes the HTML report too. Returns the exit status: 0; 2 for
// bad input or usage; 1 when --check found a broken invariant (the outcome up to it is printed,
// the violation on `err`), the cluster could not be read or a file could not be written.
int RunSimulate(const SimulateFlags& flags, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace muster::cli
