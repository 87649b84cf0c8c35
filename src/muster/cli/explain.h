#pragma once

#include <iosfwd>
#include <string>

#include "muster/cli/load_simulation.h"

namespace muster::cli {

struct ExplainFlags {
  SimulationInput input;
  std::string pod;               // namespace/name, or name
  std::string output = "table";  // -o table|json
  size_t top = 10;               // --top: nodes shown in tables
  bool progress = false;         // a progress line on `err` (stderr is a terminal)
};

// `muster explain`: runs the simulation, recording the scheduling attempts of one pod, and
// prints its last attempt: every node's Filter verdicts, every score, the node chosen or why
// none was, PostFilter (preemption), the steps after the choice, and its PodGroup. Returns 0; 2
// for bad input, or a pod that is not in the cluster at the end of the run; 1 when a live
// cluster (--kubeconfig) could not be read.
int RunExplain(const ExplainFlags& flags, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace muster::cli
