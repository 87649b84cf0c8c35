#pragma once

// The outcome of a simulation in the forms of DESIGN.md's `muster simulate` contract.

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "muster/sim/simulation.h"

namespace muster::report {

// The SimulationResult object (apiVersion muster.dev/v1alpha1): pods, podGroups, nodes, events,
// summary. Pods and groups sorted by namespace/name, nodes by name, events by time.
nlohmann::ordered_json BuildResult(const sim::Simulation& sim);

// kubectl-style tables: pods (NAME READY STATUS RESTARTS AGE NODE; `wide` adds NOMINATED NODE,
// PODGROUP, ATTEMPTS and MESSAGE) and, when there are any, PodGroups.
void PrintTable(const sim::Simulation& sim, bool wide, std::ostream& out);
void PrintJson(const sim::Simulation& sim, std::ostream& out);
void PrintYaml(const sim::Simulation& sim, std::ostream& out);

// The STATUS column: Pending, SchedulingGated, Running, Succeeded, Failed.
std::string PodStatusText(const sim::Simulation& sim, const api::Pod& pod);
// kubectl's age format ("37s", "2m5s", "3h10m", "4d").
std::string HumanDuration(api::Duration d);

}  // namespace muster::report
