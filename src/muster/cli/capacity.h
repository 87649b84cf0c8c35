#pragma once

// `muster capacity`: how many more copies of a pod, or of a whole gang, the cluster holds now,
// where they go, and why the next one does not fit (cluster-capacity's question, with the
// scheduler's own plugins, gangs counted whole).

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "muster/cli/load_simulation.h"

namespace muster::cli {

struct CapacityFlags {
  // The cluster: -f, --kubeconfig (or, without either, the built-in demo), --config, --seed,
  // --until, --validate, --max-pods.
  SimulationInput input;
  // TEMPLATE: a Pod, or a gang: a PodGroup (scheduler-plugins' or scheduling.k8s.io's) with its
  // pods (one pod standing for all its quorum), or a v1alpha1 Workload with its pods.
  std::string template_path;
  std::optional<uint64_t> max;   // --max: at most this many copies
  std::string output = "table";  // -o table|json
};

// Simulates the cluster with as many copies of the template as could possibly fit, and one
// more, created after everything else and never preempting, and counts those placed whole.
// When one does not fit, simulates again recording the attempts of its pods, for the FitError
// and each node's first rejecting plugin. Returns 0; 2 for bad input (the template's included);
// 1 when a live cluster could not be read.
int RunCapacity(const CapacityFlags& flags, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace muster::cli
