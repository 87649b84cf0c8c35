#include "muster/cli/load_simulation.h"

#include <ostream>

#include <fmt/format.h>

#include "muster/api/manifests.h"
#include "muster/cli/config_file.h"
#include "muster/cli/demo.h"
#include "muster/host/host.h"
#include "muster/plugins/registry.h"

namespace muster::cli {
namespace {

LoadedSimulation BadInput(const std::vector<std::string>& errors, std::ostream& err) {
  for (const std::string& e : errors) err << "error: " << e << "\n";
  err << fmt::format("{} error(s); nothing was simulated\n", errors.size());
  return {};
}

}  // namespace

LoadedSimulation LoadSimulation(const SimulationInput& input, sim::SimulationOptions options,
                                std::istream& in, std::ostream& err) {
  options.seed = input.seed;
  if (!input.until.empty()) {
    auto d = api::ParseDuration(input.until);
    if (!d || d->count() < 0) {
      return BadInput({fmt::format("--until: invalid duration \"{}\" (want e.g. 90s, 5m)",
                                   input.until)},
                      err);
    }
    options.until = *d;
  }

  api::LoadResult loaded;
  if (input.paths.empty()) {
    err << "muster: no -f given: running the built-in demo (seed 000's coscheduling demo; see "
           "examples/coscheduling)\n";
    api::DecodeText(kDemoManifests, std::string(kDemoName), loaded);
    if (input.config.empty()) {
      api::DecodeText(kDemoConfig, std::string(kDemoName) + " config", loaded);
    }
    api::FinishLoad(loaded);
  } else {
    loaded = api::LoadManifests(input.paths, in, input.field_validation);
  }
  for (const std::string& w : loaded.warnings) err << "warning: " << w << "\n";

  // The scheduler configuration: --config, else one KubeSchedulerConfiguration among the inputs.
  // Its errors are reported with the manifests', all at once.
  LoadedSimulation out;
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
  out.simulation = sim::Simulation::Create(std::move(loaded.manifests),
                                           out.config ? &*out.config : nullptr, options,
                                           plugins::InTreeRegistry(), plugins::DefaultPlugins(),
                                           &errors);
  if (out.simulation == nullptr) return BadInput(errors, err);
  return out;
}

std::function<void(const sim::Simulation&)> SimulationProgress(ProgressLine& line) {
  return [&line](const sim::Simulation& simulation) {
    if (!line.Due()) return;
    const uint64_t bound = simulation.scheduler().stats().scheduled;
    line.Update(fmt::format("simulating: {} of virtual time, {} pods bound, {} pending, {:.0f} "
                            "pods/s",
                            api::FormatDuration(simulation.Elapsed()), bound,
                            simulation.scheduler().queue().NumPods(),
                            static_cast<double>(bound) / line.Elapsed()));
  };
}

}  // namespace muster::cli
