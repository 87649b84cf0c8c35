#pragma once

// The outcome of a simulation in the forms of DESIGN.md's `muster simulate` contract.

#include <iosfwd>
#include <string>
#include <vector>

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

// The devices of one pool of a ResourceSlice driver (Dynamic Resource Allocation), and how many
// are allocated: the report's device utilisation.
struct DevicePoolUsage {
  std::string driver;
  std::string pool;
  std::string nodes;  // the node its slices are on, or "node selector", "all nodes", "per device"
  int64_t devices = 0;
  int64_t allocated = 0;
};
// Every pool, by driver and name, as the run left them.
std::vector<DevicePoolUsage> DeviceUsage(const cluster::MemoryCluster& cluster);

// Notes on the run's extenders for the person who ran it: an extender whose first filter answer
// turned every node away, which is what one that keeps state between runs does on the second.
std::vector<std::string> ExtenderNotes(const sim::Simulation& sim);

// The STATUS column: Pending, SchedulingGated, Running, Succeeded, Failed.
std::string PodStatusText(const sim::Simulation& sim, const api::Pod& pod);
// kubectl's age format ("37s", "2m5s", "3h10m", "4d").
std::string HumanDuration(api::Duration d);

}  // namespace muster::report
