#pragma once

// Runs a bench workload on the in-memory cluster with the real scheduler (the default profile,
// or Coscheduling's), as upstream's scheduler_perf runs one against an API server: operations
// in order, each createPods waiting until its pods are bound (the scheduler places the initial
// pods too), and the measured createPods timed from its first pod's creation until its last
// pod is bound.
//
// Time: the cluster and scheduler run on a virtual clock that follows the wall clock, so
// backoffs, Permit timeouts and the background operations (churn, paced deletions) happen at
// their real rates while the scheduler works. When the scheduler has nothing to do and is only
// waiting for a timer, the clock jumps to it instead of sleeping; that skipped time is reported
// (Result::waited) and is not part of Result::seconds.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/time.h"
#include "muster/bench/workloads.h"

namespace muster::bench {

struct Progress {
  std::string_view workload;
  std::string_view phase;  // "initial" or "measured"
  int64_t bound = 0;       // pods of the current createPods bound so far
  int64_t total = 0;
  double elapsed_seconds = 0;  // since the workload started
};

struct RunOptions {
  std::optional<int32_t> nodes;     // the workload's node count when unset
  std::optional<int32_t> pods;      // the workload's measured pod count when unset
  uint64_t seed = 0;                // node and pod name suffixes, the scheduler's tie-breaks
  std::string gang_mode = "Group";  // Coscheduling's mode (args.mode) in the gang workloads
  // Called about four times a second while the workload runs.
  std::function<void(const Progress&)> progress;
};

struct Result {
  std::string workload;
  int32_t nodes = 0;           // created by createNodes (churned nodes not counted)
  int64_t initial_pods = 0;    // created by the createPods before the measured one
  int64_t measured_pods = 0;   // bound by the measured createPods
  int64_t created_pods = 0;    // created by the measured createPods (more than measured
                               // when some cannot fit, as in GangContended)
  double seconds = 0;          // first measured pod created -> last one bound
  double pods_per_second = 0;  // measured_pods / seconds
  double p50_latency_ms = 0;   // scheduling attempts of measured pods (ScheduleOne, wall time)
  double p99_latency_ms = 0;
  uint64_t attempts = 0;       // scheduling attempts of measured pods
  int64_t peak_rss_bytes = 0;  // getrusage high-water mark during the workload
  // Resident memory the nodes and the pods added, per object (0 when it could not be read).
  int64_t bytes_per_node = 0;
  int64_t bytes_per_pod = 0;
  api::Duration waited{};  // virtual time skipped while measuring (see above)
  std::optional<double> upstream_threshold;
  std::optional<double> target;
  // Why the run is not a valid measurement: pods left unbound, a gang bound below minMember.
  std::vector<std::string> errors;
};

// Runs `workload` and returns what it measured; never throws for a failed run (see errors).
Result RunWorkload(const Workload& workload, const RunOptions& options);

}  // namespace muster::bench
