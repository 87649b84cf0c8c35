#include "muster/cli/load_simulation.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <ostream>
#include <utility>

#include <fmt/format.h>
#include <unistd.h>

#include "muster/api/manifests.h"
#include "muster/cli/config_file.h"
#include "muster/cli/demo.h"
#include "muster/cli/validate.h"
#include "muster/cluster/kube/cluster_read.h"
#include "muster/cluster/kube/http.h"
#include "muster/cluster/kube/rest_config.h"
#include "muster/host/host.h"
#include "muster/plugins/registry.h"

namespace muster::cli {
namespace {

// The pods the manifests ask for, at the least: each Pod, the replicas of each ReplicaSet,
// Deployment and StatefulSet, each Job's completions (its parallelism without them). A number
// in a manifest must not decide how much memory muster takes: past `max`, the object that asks
// for the most is named, with its field, as a bad input.
std::optional<std::string> TooManyPods(const api::Manifests& m, uint64_t max) {
  uint64_t total = 0;
  uint64_t largest = 0;
  std::string largest_at;
  for (const api::ObjectEntry& e : m.order) {
    uint64_t n = 0;
    std::string what;
    auto count = [&](const auto& object, std::string_view field, int64_t pods) {
      n = static_cast<uint64_t>(std::max<int64_t>(pods, 0));
      what =
          fmt::format("{} ({} {}): {}", e.source.ToString(), e.kind, object.metadata.Key(), field);
    };
    if (e.kind == "Pod") {
      n = 1;
    } else if (e.kind == "ReplicaSet") {
      count(m.replica_sets[e.index], "spec.replicas", m.replica_sets[e.index].replicas);
    } else if (e.kind == "Deployment") {
      count(m.deployments[e.index], "spec.replicas", m.deployments[e.index].replicas);
    } else if (e.kind == "StatefulSet") {
      count(m.stateful_sets[e.index], "spec.replicas", m.stateful_sets[e.index].replicas);
    } else if (e.kind == "Job") {
      const api::Job& job = m.jobs[e.index];
      count(job, job.completions ? "spec.completions" : "spec.parallelism",
            job.completions.value_or(job.parallelism));
    }
    total += n;
    if (n > largest && !what.empty()) {
      largest = n;
      largest_at = std::move(what);
    }
  }
  if (total <= max) return std::nullopt;
  const std::string raise = fmt::format(
      "more than --max-pods ({}) allows: a simulated pod takes up to {} KiB; give a larger "
      "--max-pods to simulate it",
      max, kBytesPerSimulatedPod / 1024);
  if (largest_at.empty()) return fmt::format("the input asks for {} pods, {}", total, raise);
  const std::string rest =
      total > largest ? fmt::format(" and the rest of the input {} more", total - largest) : "";
  return fmt::format("{}: asks for {} pods{}, {}", largest_at, largest, rest, raise);
}

LoadedSimulation BadInput(const std::vector<std::string>& errors, std::ostream& err) {
  for (const std::string& e : errors) err << "error: " << e << "\n";
  err << fmt::format("{} error(s); nothing was simulated\n", errors.size());
  return {};
}

}  // namespace

int ReadClusterSnapshot(const SimulationInput& input, api::NamedText* snapshot, std::ostream& err) {
  namespace kube = cluster::kube;
  kube::RestConfigOptions rest_options;
  rest_options.kubeconfig = input.kubeconfig;
  rest_options.context = input.context;
  std::string error;
  std::optional<kube::RestConfig> rest = kube::LoadRestConfig(rest_options, &error);
  if (!rest) {
    err << "error: --kubeconfig: " << error << "\n";
    return kExitBadInput;
  }
  for (const std::string& w : rest->warnings) err << "warning: " << w << "\n";
  const std::string server = rest->server;
  kube::Http http(std::move(*rest));
  kube::ClusterReadOptions read_options;
  read_options.scheduler_names = input.scheduler_names;
  kube::ClusterRead read;
  const auto start = std::chrono::steady_clock::now();
  if (framework::Status s = kube::ReadCluster(http, read_options, &read); !s.IsSuccess()) {
    err << "error: reading the cluster: " << s.Message() << "\n";
    return kExitRuntimeError;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const std::string& w : read.warnings) err << "warning: " << w << "\n";
  err << fmt::format(
      "muster: read {} nodes, {} bound pods, {} pending pods and {} other objects from {} in "
      "{:.1f}s (nothing written)\n",
      read.nodes, read.bound_pods, read.pending_pods, read.other_objects, server, seconds);
  if (!input.save_snapshot.empty()) {
    std::ofstream file(input.save_snapshot, std::ios::binary | std::ios::trunc);
    file << read.snapshot;
    file.close();
    if (!file) {
      err << fmt::format("error: --save-snapshot: cannot write {}\n", input.save_snapshot);
      return kExitRuntimeError;
    }
  }
  *snapshot = api::NamedText{fmt::format("cluster {}", server), std::move(read.snapshot)};
  return kExitOk;
}

std::optional<std::string> ClusterFlagWithoutKubeconfig(const SimulationInput& input) {
  if (!input.kubeconfig.empty()) return std::nullopt;
  for (const auto& [flag, given] :
       {std::pair{"--context", !input.context.empty()},
        std::pair{"--save-snapshot", !input.save_snapshot.empty()},
        std::pair{"--scheduler-name", !input.scheduler_names.empty()}}) {
    if (given) return fmt::format("{}: reads a live cluster: give --kubeconfig too", flag);
  }
  return std::nullopt;
}

LoadedSimulation LoadSimulation(const SimulationInput& input, sim::SimulationOptions options,
                                std::istream& in, std::ostream& err, const AmendManifests& amend) {
  options.seed = input.seed;
  if (!input.until.empty()) {
    auto d = api::ParseDuration(input.until);
    if (!d || d->count() < 0) {
      return BadInput(
          {fmt::format("--until: invalid duration \"{}\" (want e.g. 90s, 5m)", input.until)}, err);
    }
    options.until = *d;
  }

  if (const std::optional<std::string> error = ClusterFlagWithoutKubeconfig(input)) {
    return BadInput({*error}, err);
  }
  std::vector<api::NamedText> cluster;
  if (input.snapshot) {
    cluster.push_back(*input.snapshot);
  } else if (!input.kubeconfig.empty()) {
    api::NamedText snapshot;
    if (const int code = ReadClusterSnapshot(input, &snapshot, err); code != kExitOk) {
      err << "nothing was simulated\n";
      LoadedSimulation out;
      out.runtime_error = code == kExitRuntimeError;
      return out;
    }
    cluster.push_back(std::move(snapshot));
  }

  if (input.paths.empty() && cluster.empty()) {
    if (input.announce_demo) {
      err << "muster: no -f given: running the built-in demo (seed 000's coscheduling demo; see "
             "examples/coscheduling)\n";
    }
    cluster.push_back({std::string(kDemoName), std::string(kDemoManifests)});
    if (input.config.empty()) {
      cluster.push_back({std::string(kDemoName) + " config", std::string(kDemoConfig)});
    }
  }
  std::vector<std::string> paths = input.paths;
  paths.insert(paths.end(), input.added_paths.begin(), input.added_paths.end());
  api::LoadResult loaded =
      api::LoadManifests(paths, in, input.field_validation, cluster, input.overrides);
  for (const std::string& w : loaded.warnings) err << "warning: " << w << "\n";

  // The scheduler configuration: --config, else one KubeSchedulerConfiguration among the inputs.
  // Its errors are reported with the manifests', all at once.
  LoadedSimulation out;
  out.replaced = loaded.replaced;
  std::vector<std::string> errors = loaded.errors;
  out.config = ResolveConfig(input.config, loaded.manifests, in, &errors);
  if (!errors.empty()) {
    if (out.config) {
      for (std::string& e : host::ValidateConfiguration(*out.config, plugins::InTreeRegistry(),
                                                        plugins::DefaultPlugins())) {
        errors.push_back(std::move(e));
      }
    }
    return BadInput(errors, err);
  }
  if (amend) {
    amend(loaded.manifests, &errors);
    if (!errors.empty()) return BadInput(errors, err);
  }
  if (std::optional<std::string> too_many =
          TooManyPods(loaded.manifests, input.max_pods.value_or(DefaultMaxPods()))) {
    return BadInput({*too_many}, err);
  }
  out.simulation = sim::Simulation::Create(
      std::move(loaded.manifests), out.config ? &*out.config : nullptr, options,
      plugins::InTreeRegistry(), plugins::DefaultPlugins(), &errors);
  if (out.simulation == nullptr) return BadInput(errors, err);
  return out;
}

uint64_t DefaultMaxPods() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 1'000'000;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 2 /
         kBytesPerSimulatedPod;
}

std::function<void(const sim::Simulation&)> SimulationProgress(ProgressLine& line) {
  return [&line](const sim::Simulation& simulation) {
    if (!line.Due()) return;
    const uint64_t bound = simulation.scheduler().stats().scheduled;
    line.Update(fmt::format(
        "simulating: {} of virtual time, {} pods bound, {} pending, {:.0f} "
        "pods/s",
        api::FormatDuration(simulation.Elapsed()), bound, simulation.scheduler().queue().NumPods(),
        static_cast<double>(bound) / line.Elapsed()));
  };
}

}  // namespace muster::cli
