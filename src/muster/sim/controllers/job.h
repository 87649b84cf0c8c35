#pragma once

// kube-controller-manager's Job controller (pkg/controller/job: syncJob and manageJob), for
// simulate: a Job runs as many pods as its parallelism allows and its completions still need
// (an Indexed Job's for its lowest indexes that neither succeeded nor have a pod), replaces a
// failed pod after the pod failure backoff, completes once its completions succeeded (without
// completions, once one pod did) and no pod runs, and fails past its backoffLimit or on a
// FailJob rule of its pod failure policy. A pod deleted before it succeeded is a failure.
// Below the controller, its rules that need no cluster (tested alone): what a pod failure policy
// makes of a failed pod, how long a Job waits before replacing failed pods, and how a set of
// completion indexes is written.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "muster/api/time.h"
#include "muster/api/types.h"
#include "muster/sim/controllers/controller.h"
#include "muster/sim/controllers/workload.h"

namespace muster::sim::controllers {

// A Job's status as its controller keeps it (batch/v1 JobStatus), for reports.
struct JobRecord {
  std::string namespace_;
  std::string name;
  bool indexed = false;
  bool suspended = false;
  int32_t active = 0;
  int32_t succeeded = 0;
  int32_t failed = 0;             // the failures counted toward backoffLimit
  std::string completed_indexes;  // Indexed: "0-2,5"
  // Once it finished: Complete or Failed, with upstream's reason and message.
  std::optional<api::Condition> finished;
};

class JobController {
 public:
  explicit JobController(const Context& context);
  ~JobController();

  // The Job `job`, as the controller keeps it from now on; it makes its pods once created
  // (Workload::Create). `job` must outlive the controller (the simulation's manifests do).
  Workload& Add(const api::Job& job);
  // The Jobs created so far, by namespace/name.
  std::vector<JobRecord> Jobs() const;

 private:
  class Job;

  const Context& context_;
  std::vector<std::unique_ptr<Job>> jobs_;
};

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
