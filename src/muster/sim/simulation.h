#pragma once

// `muster simulate`'s engine: an in-memory cluster on a virtual clock, the scheduler with its
// profiles, the controllers a cluster runs (controllers/: ReplicaSet, Deployment, StatefulSet,
// Job, volumes, resource claims), which it wires to the cluster, DRA drivers, and a kubelet that
// runs bound pods. Everything happens as timers on the virtual clock, so a run is deterministic
// for a given input and seed, and an hour of cluster time takes milliseconds.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "muster/api/manifests.h"
#include "muster/api/priority.h"
#include "muster/cluster/memory.h"
#include "muster/framework/registry.h"
#include "muster/framework/virtual_clock.h"
#include "muster/host/host.h"
#include "muster/host/podgroup_controller.h"
#include "muster/scheduler/scheduler.h"
#include "muster/sim/annotations.h"
#include "muster/sim/checker.h"
#include "muster/sim/controllers/claim.h"
#include "muster/sim/controllers/controller.h"
#include "muster/sim/controllers/deployment.h"
#include "muster/sim/controllers/job.h"
#include "muster/sim/controllers/replicaset.h"
#include "muster/sim/controllers/statefulset.h"
#include "muster/sim/controllers/volume.h"
#include "muster/sim/controllers/workload.h"
#include "muster/sim/device_driver.h"
#include "muster/sim/history.h"

namespace muster::sim {

// Simulated time starts here; reports show times relative to it.
inline const api::Time kSimulationEpoch =
    std::chrono::sys_days(std::chrono::year(2025) / 1 / 1) + std::chrono::hours(0);

// The safeguard in Run: attempts per pod at one instant with no cluster change.
inline constexpr size_t kMaxAttemptsPerPodAtInstant = 100;

class Simulation;

struct SimulationOptions {
  std::optional<api::Duration> until;
  uint64_t seed = 0;
  // Run the invariant checker (checker.h); the run stops at the first violation.
  bool check = false;
  // Record the scheduling attempts of the pods it selects (Scheduler::TracePods), for explain.
  std::function<bool(const api::Pod&)> traced;
  // Called every so many turns of the scheduling loop (for a progress line; it must not change
  // the simulation).
  std::function<void(const Simulation&)> progress;
};

// What happened to one pod, for reports.
struct PodRecord {
  std::optional<api::Duration> scheduled_at;
  int attempts = 0;
};

class Simulation final : public cluster::TypedObserver<Simulation> {
 public:
  // Builds the cluster and scheduler for `manifests`; `config` is the scheduler configuration
  // (nullptr: the default profile). Returns nullptr with *errors filled on a bad configuration.
  static std::unique_ptr<Simulation> Create(api::Manifests manifests,
                                            const api::SchedulerConfiguration* config,
                                            SimulationOptions options,
                                            const framework::Registry& registry,
                                            const api::Plugins& default_plugins,
                                            std::vector<std::string>* errors);
  ~Simulation() override;

  // Runs until nothing more can happen, or to options.until.
  void Run();

  // How far the virtual clock went: to the last timer the run saw through, or --until.
  api::Duration Elapsed() const { return clock_.Now() - kSimulationEpoch; }
  // When the cluster last changed (an object created, written or deleted): the time the run's
  // outcome is reported as of. What came after was the scheduler retrying pending pods (the
  // periodic flush of unschedulable pods) without effect, which is not the workload's time.
  api::Duration End() const {
    return std::max(cluster_.last_change(), kSimulationEpoch) - kSimulationEpoch;
  }
  // The last attempt, when pending pods were retried after End() without effect; nullopt
  // otherwise.
  std::optional<api::Duration> RetriedUntil() const {
    if (last_attempt_ <= kSimulationEpoch + End()) return std::nullopt;
    return last_attempt_ - kSimulationEpoch;
  }
  const SimulationOptions& options() const { return options_; }
  // The input it was created with, as decoded.
  const api::Manifests& manifests() const { return manifests_; }
  const cluster::MemoryCluster& cluster() const { return cluster_; }
  const scheduler::Scheduler& scheduler() const { return host_->scheduler(); }
  // Per pod (namespace/name).
  const std::map<std::string, PodRecord>& records() const { return records_; }
  bool IsGated(const api::Pod& pod) const;
  // The Jobs created so far, by namespace/name.
  std::vector<controllers::JobRecord> Jobs() const { return jobs_->Jobs(); }
  // Pod counts over time, PodGroup milestones and node peaks (history.h), for the HTML report.
  const History& history() const { return *history_; }
  // What the user should hear of the run itself (printed on stderr).
  const std::vector<std::string>& warnings() const { return warnings_; }
  // With options.check: the invariant the run stopped at, if one broke.
  std::optional<Violation> violation() const {
    return checker_ ? checker_->violation() : std::nullopt;
  }

  // ---- ClusterObserver (TypedObserver): the kubelet, and the controllers of workloads ----
  void Added(const api::PodPtr& pod);
  void Updated(const api::PodPtr& old_pod, const api::PodPtr& new_pod);
  void Deleted(const api::PodPtr& pod);

 private:
  class Policy;

  Simulation(api::Manifests manifests, SimulationOptions options);
  void ScheduleCreations();
  void At(api::Duration offset_from_now, std::function<void()> fn);
  // Creates the pod, after priority admission unless it was `admitted` (by the API server it
  // was read from); returns admission's refusal (empty: admitted).
  std::string CreatePodNow(api::Pod pod, bool admitted = false);
  // The workload whose pod `pod` is, while it counts the pod; else nullptr.
  controllers::Workload* ActiveOwner(const api::Pod& pod);

  SimulationOptions options_;
  api::Manifests manifests_;
  framework::VirtualClock clock_;
  cluster::MemoryCluster cluster_;
  std::unique_ptr<host::Host> host_;
  // What the controllers are given: the cluster, the clock, the simulation's timers and pods.
  controllers::Context context_;
  std::unique_ptr<host::PodGroupController> pod_groups_;
  std::unique_ptr<controllers::VolumeController> volumes_;
  std::unique_ptr<controllers::ClaimController> claims_;
  std::unique_ptr<DeviceDriver> drivers_;
  std::unique_ptr<Checker> checker_;
  std::unique_ptr<History> history_;
  std::unique_ptr<api::PriorityResolver> priorities_;
  // The controllers of workloads, which keep them, and the workloads by uid (whatever their
  // kind: the last with a uid has it), for their pods' events.
  std::unique_ptr<controllers::ReplicaSetController> replica_sets_;
  std::unique_ptr<controllers::DeploymentController> deployments_;
  std::unique_ptr<controllers::StatefulSetController> stateful_sets_;
  std::unique_ptr<controllers::JobController> jobs_;
  std::map<std::string, controllers::Workload*> workload_by_uid_;
  std::map<std::string, PodRecord> records_;
  api::Time last_attempt_{};  // the virtual time of the last scheduling attempt
  // Sim-driven timers still to fire (creations, deletions, run-for, ungating).
  size_t pending_actions_ = 0;
  std::vector<std::string> warnings_;
};

}  // namespace muster::sim
