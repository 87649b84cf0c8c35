#pragma once

// `muster explain`: one pod's last scheduling attempt, from the record the scheduler kept of it
// (framework/trace.h), as a SchedulingExplanation object (-o json) or tables (-o table).

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "muster/framework/trace.h"
#include "muster/sim/simulation.h"

namespace muster::report {

// The explanation of `pod` after `sim` ran: the pod as it ended, the attempt `trace` recorded
// (nullptr: the pod was never attempted; the explanation says why, as far as it can tell), and
// for a pod of a PodGroup, the group's picture.
nlohmann::ordered_json BuildExplanation(const sim::Simulation& sim, const api::Pod& pod,
                                        const framework::AttemptTrace* trace);

// The explanation as tables for people: node lists are cut to the `top` best scored nodes, and
// rejected nodes beyond `top` are summarised by reason.
void PrintExplanation(const nlohmann::ordered_json& explanation, size_t top, std::ostream& out);

}  // namespace muster::report
