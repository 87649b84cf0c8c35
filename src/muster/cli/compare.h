#pragma once

// `muster compare`: the same cluster and workload simulated on two sides, A and B, that differ
// by their scheduler configuration (--config twice) or by objects of their own (--a-file,
// --b-file: each object takes the place of the input's object of the same kind, namespace and
// name, or is added), over one or more seeds; the outcomes side by side (report/comparison.h).

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "muster/cli/load_simulation.h"

namespace muster::cli {

struct CompareFlags {
  // What both sides simulate: -f (or --kubeconfig, read once; or the built-in demo), --until,
  // --seed (the first seed), --max-pods, --validate.
  SimulationInput input;
  // --config: none (both sides use the input's configuration or the default profile), one (both
  // use it), or two (A's, then B's).
  std::vector<std::string> configs;
  std::vector<std::string> a_files;  // --a-file
  std::vector<std::string> b_files;  // --b-file
  uint64_t seeds = 1;                // --seeds: runs per side, seeds seed..seed+N-1
  // --label: node labels to total utilisation by, besides the zone and the instance type.
  std::vector<std::string> labels;
  std::string output = "table";  // -o table|json
  std::string report;            // --report FILE
  bool progress = false;         // a progress line on stderr (a terminal)
};

// Runs both sides on every seed and prints the comparison. Returns 0 (sides that differ are
// not an error); 2 for bad input, on either side; 1 when the cluster could not be read or the
// report not written.
int RunCompare(const CompareFlags& flags, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace muster::cli
