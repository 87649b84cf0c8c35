#pragma once

// One scheduler serving one cluster on one clock: the part that `muster simulate`, `muster
// bench` and `muster run` share. The host builds the scheduler from a KubeSchedulerConfiguration,
// subscribes its informer handlers to the cluster's events before any other observer (so that
// the scheduler sees each change before a controller reacts to it, as its informers would), and
// drives it: timers that are due, then one scheduling cycle, again and again. A front end is a
// choice of cluster, clock and RunPolicy:
//
//   simulate  the in-memory cluster, a virtual clock that jumps to its next timer, and the stop
//             rule "nothing left to do and the scheduler settled";
//   bench     the in-memory cluster, a virtual clock that follows the wall clock, and "the pods
//             of this step are bound";
//   run       a real API server, the real clock, and "until told to stop".
//
// Single-threaded, as the scheduler is: everything happens on the thread that calls Run or Step.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/scheduler_config.h"
#include "muster/cluster/cluster.h"
#include "muster/framework/clock.h"
#include "muster/framework/registry.h"
#include "muster/scheduler/scheduler.h"

namespace muster::host {

// What a front end decides about a run: when it is over, and how time moves on while the
// scheduler has no pod ready.
class RunPolicy {
 public:
  virtual ~RunPolicy() = default;
  // Before each turn of the loop, ahead of the timers (bench's clock catches up with the wall
  // clock here).
  virtual void BeforeTurn() {}
  // Whether the run is over; asked each turn, after the due timers have fired.
  virtual bool Done() = 0;
  // After a scheduling attempt of `pod_key` (namespace/name) that took `took` of wall time.
  virtual void Attempted(std::string_view /*pod_key*/, std::chrono::nanoseconds /*took*/) {}
  // No pod is ready: move time on (a virtual clock jumps to its next timer, a real one waits
  // for it or for an event). False when nothing more can happen, which ends the run.
  virtual bool Idle() = 0;
};

// Checks a KubeSchedulerConfiguration exactly as Host::Create does (the same code: it builds the
// profiles, and with them every plugin's args, against an empty in-memory cluster), without
// running anything. Returns every error, each naming the configuration's file; none when valid.
// `muster validate` uses it, so that it accepts what `simulate` and `run` accept and no more.
std::vector<std::string> ValidateConfiguration(const api::SchedulerConfiguration& config,
                                               const framework::Registry& registry,
                                               const api::Plugins& default_plugins);

class Host {
 public:
  // Builds the scheduler's profiles from `config` (nullptr: upstream's default profile) and
  // subscribes it to `cluster`, which it also writes to. Returns nullptr with *errors filled
  // when the configuration is invalid. The cluster and the clock must outlive the host.
  static std::unique_ptr<Host> Create(cluster::Cluster& cluster, framework::LoopClock& clock,
                                      const api::SchedulerConfiguration* config, uint64_t seed,
                                      const framework::Registry& registry,
                                      const api::Plugins& default_plugins,
                                      std::vector<std::string>* errors);
  // The same with the in-tree plugins and upstream's default profile.
  static std::unique_ptr<Host> Create(cluster::Cluster& cluster, framework::LoopClock& clock,
                                      const api::SchedulerConfiguration* config, uint64_t seed,
                                      std::vector<std::string>* errors);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  scheduler::Scheduler& scheduler() { return *scheduler_; }
  const scheduler::Scheduler& scheduler() const { return *scheduler_; }

  // Where the host's warnings go (simulate's list, run's log): for now one, once per run and
  // gang API, when a PodGroup (or Workload) appears while no profile enables the gang plugin of
  // its API, so that its pods would be scheduled one by one without anyone saying so.
  void SetWarn(std::function<void(const std::string&)> warn);

  // Turns until `policy` says the run is over: fires the due timers, then runs one scheduling
  // cycle when a pod is ready, or asks the policy to move time on when none is.
  void Run(RunPolicy& policy);

 private:
  class Informers;
  Host(framework::LoopClock& clock, std::unique_ptr<scheduler::Scheduler> scheduler);

  framework::LoopClock& clock_;
  std::unique_ptr<scheduler::Scheduler> scheduler_;
  std::unique_ptr<Informers> informers_;
};

}  // namespace muster::host
