#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace muster::cli {

struct BenchFlags {
  std::vector<std::string> workloads;  // empty: every workload
  std::optional<int32_t> nodes;        // --nodes N
  std::optional<int32_t> pods;         // --pods N
  std::string output = "table";        // -o table|json
  std::string gang_mode = "Group";     // --gang-mode Group|PerPod: Coscheduling's mode
  bool progress = false;               // a progress line on `err` (stderr is a terminal)
  bool list = false;                   // --list: the workloads and their shape, nothing run
};

// `muster bench`: runs the workloads and prints what each measured, with a progress line on
// `err` while a run is long (with flags.progress). Returns 0; 1 when a run is not valid (pods left
// unbound, a gang bound below minMember), its errors on `err`; 2 for bad usage (an unknown workload
// is listed with the known ones).
int RunBench(const BenchFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace muster::cli
