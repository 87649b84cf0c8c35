#pragma once

// The rules of upstream's Job controller (pkg/controller/job) that need no cluster: what a pod
// failure policy makes of a failed pod, how long a Job waits before replacing failed pods, and
// how a set of completion indexes is written. The simulation's controller (simulation.cc)
// applies them as its pods finish.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "muster/api/time.h"
#include "muster/api/types.h"

namespace muster::sim::controllers {

// What a Job makes of one failed pod (upstream matchPodFailurePolicy).
struct PodFailureVerdict {
  // Whether it counts toward backoffLimit (status.failed): not when an Ignore rule matched.
  bool counts = true;
  // When a FailJob rule matched: the message of the Job's Failed condition.
  std::optional<std::string> fail_job;
};

// The first rule that matches the pod decides; without a policy, or when none matches, the
// failure counts. Only onPodConditions rules can match here: simulated pods have no container
// exit codes for onExitCodes to look at.
PodFailureVerdict MatchPodFailurePolicy(const std::optional<api::PodFailurePolicy>& policy,
                                        const api::Pod& pod);

// How long after its latest failure a Job waits before it creates pods again, given the failures
// since its last success: 10s for the first, doubling with each, at most 10 minutes (upstream's
// DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff). Zero without failures.
api::Duration PodFailureBackoff(int32_t failures);

// status.completedIndexes: the indexes set in `done`, ascending, a run of three or more written
// "first-last" and a pair "first,last" ("1,3-5,7,8").
std::string FormatIndexes(const std::vector<bool>& done);

}  // namespace muster::sim::controllers
