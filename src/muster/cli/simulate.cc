#include "muster/cli/simulate.h"

#include <ostream>

#include <fmt/format.h>

#include "muster/api/manifests.h"
#include "muster/cli/config_file.h"
#include "muster/cli/demo.h"
#include "muster/cli/validate.h"
#include "muster/plugins/registry.h"
#include "muster/report/simulation.h"
#include "muster/sim/simulation.h"

namespace muster::cli {
namespace {

int BadInput(const std::vector<std::string>& errors, std::ostream& err) {
  for (const std::string& e : errors) err << "error: " << e << "\n";
  err << fmt::format("{} error(s); nothing was simulated\n", errors.size());
  return kExitBadInput;
}

}  // namespace

int RunSimulate(const SimulateFlags& flags, std::istream& in, std::ostream& out,
                std::ostream& err) {
  if (flags.output != "table" && flags.output != "wide" && flags.output != "json" &&
      flags.output != "yaml") {
    err << fmt::format("error: -o: unknown output format \"{}\" (want table, wide, json or yaml)\n",
                       flags.output);
    return kExitBadInput;
  }
  sim::SimulationOptions options;
  options.seed = flags.seed;
  options.check = flags.check;
  if (!flags.until.empty()) {
    auto d = api::ParseDuration(flags.until);
    if (!d || d->count() < 0) {
      err << fmt::format("error: --until: invalid duration \"{}\" (want e.g. 90s, 5m)\n",
                         flags.until);
      return kExitBadInput;
    }
    options.until = *d;
  }

  api::LoadResult loaded;
  if (flags.paths.empty()) {
    err << "muster: no -f given: running the built-in demo (seed 000's coscheduling demo; see "
           "examples/coscheduling)\n";
    api::DecodeText(kDemoManifests, std::string(kDemoName), loaded);
    if (flags.config.empty()) api::DecodeText(kDemoConfig, std::string(kDemoName) + " config", loaded);
    api::FinishLoad(loaded);
  } else {
    loaded = api::LoadManifests(flags.paths, in);
  }
  for (const std::string& w : loaded.warnings) err << "warning: " << w << "\n";
  if (!loaded.ok()) return BadInput(loaded.errors, err);

  // The scheduler configuration: --config, else one KubeSchedulerConfiguration among the inputs.
  std::vector<std::string> errors;
  const std::optional<api::SchedulerConfiguration> config =
      ResolveConfig(flags.config, loaded.manifests, in, &errors);
  if (!errors.empty()) return BadInput(errors, err);

  std::unique_ptr<sim::Simulation> simulation = sim::Simulation::Create(
      std::move(loaded.manifests), config ? &*config : nullptr, options,
      plugins::InTreeRegistry(), plugins::DefaultPlugins(), &errors);
  if (simulation == nullptr) return BadInput(errors, err);
  simulation->Run();
  for (const std::string& w : simulation->warnings()) err << "warning: " << w << "\n";

  if (flags.output == "json") {
    report::PrintJson(*simulation, out);
  } else if (flags.output == "yaml") {
    report::PrintYaml(*simulation, out);
  } else {
    report::PrintTable(*simulation, flags.output == "wide", out);
  }
  if (const std::optional<sim::Violation> v = simulation->violation()) {
    err << "error: invariant violated " << v->String() << "\n"
        << "the simulation stopped at the end of that turn; the outcome above is the cluster then\n";
    return kExitRuntimeError;
  }
  return kExitOk;
}

}  // namespace muster::cli
