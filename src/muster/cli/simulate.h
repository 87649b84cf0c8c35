#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace muster::cli {

struct SimulateFlags {
  std::vector<std::string> paths;  // empty: the built-in demo
  std::string config;              // --config FILE
  std::string until;               // --until DURATION
  std::string output = "table";    // -o table|wide|json|yaml
  uint64_t seed = 0;
};

// `muster simulate`: loads the manifests (or the built-in demo), runs the simulation and prints
// the outcome. Returns the exit status: 0, or 2 for bad input or usage.
int RunSimulate(const SimulateFlags& flags, std::istream& in, std::ostream& out,
                std::ostream& err);

}  // namespace muster::cli
