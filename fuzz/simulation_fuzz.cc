// A whole simulation on any text, as `muster simulate --check -f -` runs it: the manifests are
// decoded, the configuration among them resolved, the simulation built (refused past --max-pods)
// and run to a bounded virtual time with the invariant checker on, and its outcome printed as
// every output format prints it. Bad input must end in errors; good input in a result within
// the bounds; neither in a crash, a hang, an out-of-memory or a broken invariant.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>

#include "muster/cli/load_simulation.h"
#include "muster/report/simulation_output.h"

namespace cli = muster::cli;
namespace sim = muster::sim;

namespace {

// What one input may ask for: a few hundred pods and a day of virtual time keep every run
// within the fuzzer's timeout, and far timers (a day, a century) are still reached by jumps.
constexpr uint64_t kMaxPods = 300;
constexpr const char* kUntil = "24h";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream err;
  cli::SimulationInput input;
  input.paths = {"-"};
  input.until = kUntil;
  input.max_pods = kMaxPods;
  sim::SimulationOptions options;
  options.check = true;
  cli::LoadedSimulation loaded = cli::LoadSimulation(input, options, in, err);
  if (!loaded.simulation) {
    // Refused: said on err, never in silence.
    if (err.str().empty()) __builtin_trap();
    return 0;
  }
  sim::Simulation& simulation = *loaded.simulation;
  simulation.Run();
  if (simulation.violation()) {
    // A broken invariant is a bug the fuzzer found: stop here, with the message in its log.
    fprintf(stderr, "invariant broken: %s\n", simulation.violation()->String().c_str());
    __builtin_trap();
  }
  std::ostringstream out;
  muster::report::PrintTable(simulation, /*wide=*/true, out);
  muster::report::PrintJson(simulation, out);
  muster::report::PrintYaml(simulation, out);
  return 0;
}
