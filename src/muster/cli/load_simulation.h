#pragma once

// What `simulate` and `explain` share: from the input flags to a simulation ready to run.

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "muster/api/manifests.h"
#include "muster/api/scheduler_config.h"
#include "muster/cli/progress.h"
#include "muster/sim/simulation.h"

namespace muster::cli {

// The flags that say what to simulate.
struct SimulationInput {
  std::vector<std::string> paths;  // empty: the built-in demo
  std::string config;              // --config FILE
  std::string until;               // --until DURATION
  uint64_t seed = 0;
  // --validate: unknown and duplicate fields are errors, warnings or nothing.
  api::FieldValidation field_validation = api::FieldValidation::kStrict;
  // --max-pods: the most pods the manifests may ask for (nullopt: DefaultMaxPods()).
  std::optional<uint64_t> max_pods;
  // --kubeconfig: a live cluster read once (cluster/kube/cluster_read.h), its objects simulated
  // before the manifests in `paths` (which may then be none); --context picks the kubeconfig's
  // context; --save-snapshot writes what was read; --scheduler-name keeps only the pending pods
  // of those names.
  std::string kubeconfig;
  std::string context;
  std::string save_snapshot;
  std::vector<std::string> scheduler_names;
  // Read after the cluster (the -f paths, the live read, or without either the built-in demo):
  // what a command adds to it (capacity's template).
  std::vector<std::string> added_paths;
  // Read last: objects that take the place of those of the same kind, namespace and name
  // (api::LoadManifests' overrides; compare's --a-file and --b-file).
  std::vector<std::string> overrides;
  // The live cluster already read (ReadClusterSnapshot), used instead of reading it again.
  std::optional<api::NamedText> snapshot;
  // Whether running the built-in demo is said on `err` (a second load of the same input need
  // not say it again).
  bool announce_demo = true;
};

// What a simulated pod costs at most, measured (`simulate -o json` of 100,000 pods: 7.1 KiB each
// at its peak), rounded up.
inline constexpr uint64_t kBytesPerSimulatedPod = 8 * 1024;

// --max-pods' default: as many pods as half this machine's memory holds at
// kBytesPerSimulatedPod (1.5 million on 24 GiB).
uint64_t DefaultMaxPods();

struct LoadedSimulation {
  std::unique_ptr<sim::Simulation> simulation;
  // The configuration it runs with (none: the default profile).
  std::optional<api::SchedulerConfiguration> config;
  // Without a simulation: whether the cluster could not be read or the snapshot not written
  // (exit 1) rather than the input being bad (exit 2).
  bool runtime_error = false;
  // What the input's overrides replaced (api::LoadResult::replaced).
  std::vector<std::string> replaced;
};

// Reads the cluster `input.kubeconfig` names, once, into `*snapshot` (and input.save_snapshot
// when given), saying what it read on `err`. Returns the exit status: 0; 2 when the kubeconfig
// cannot be used; 1 when the cluster cannot be read or the snapshot written.
int ReadClusterSnapshot(const SimulationInput& input, api::NamedText* snapshot, std::ostream& err);

// The flags that only mean something with --kubeconfig, as an error when given without it.
std::optional<std::string> ClusterFlagWithoutKubeconfig(const SimulationInput& input);

// What a command changes in the loaded manifests before the simulation is built from them
// (capacity adds its replicas): each error is one line, and bad input.
using AmendManifests =
    std::function<void(api::Manifests& manifests, std::vector<std::string>* errors)>;

// Loads the manifests (or, without paths and without a cluster to read, the built-in demo,
// saying so on `err`) and the configuration, and builds the simulation with `options` (its until
// and seed taken from `input`), after `amend` when given. On bad input, prints every error and
// "nothing was simulated" on `err` and returns no simulation.
LoadedSimulation LoadSimulation(const SimulationInput& input, sim::SimulationOptions options,
                                std::istream& in, std::ostream& err,
                                const AmendManifests& amend = {});

// SimulationOptions::progress for `line`: virtual time, pods bound and pending, the rate.
std::function<void(const sim::Simulation&)> SimulationProgress(ProgressLine& line);

}  // namespace muster::cli
