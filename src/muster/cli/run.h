#pragma once

#include <iosfwd>
#include <string>

namespace muster::cli {

struct RunFlags {
  std::string kubeconfig;            // --kubeconfig
  std::string context;               // --context
  std::string config;                // --config FILE
  bool leader_elect = false;         // --leader-elect (when given)
  bool leader_elect_given = false;
  std::string metrics_bind_address;  // --metrics-bind-address
  int verbosity = 0;                 // -v N, as klog's
};

// `muster run`: schedules a real cluster through its API server until SIGTERM or SIGINT.
// Returns the exit status: 0 when stopped, 1 on a runtime failure, 2 on bad input.
int RunRun(const RunFlags& flags, std::ostream& err);

}  // namespace muster::cli
