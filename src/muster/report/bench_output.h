#pragma once

// `muster bench`'s results in the forms of DESIGN.md's contract.

#include <iosfwd>
#include <span>

#include "muster/bench/run_workload.h"

namespace muster::report {

// `-o table`: one row per result, with upstream's threshold and muster's target beside it, then
// a note for each result that needs one (pods left unbound, idle time, errors).
void PrintTable(std::span<const bench::Result> results, std::ostream& out);
// `-o json`: {"results": [...]}.
void PrintJson(std::span<const bench::Result> results, std::ostream& out);

}  // namespace muster::report
