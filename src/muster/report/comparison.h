#pragma once

// `muster compare`: runs of one cluster and workload on two sides (two scheduler configurations,
// or the same one with some objects replaced), side by side. Each run is reduced to a RunOutcome
// as soon as it ends, so that no simulation of a large cluster is kept for the comparison. The
// runs of a side are one per seed, and every figure is compared by one rule: it differs when the
// values the two sides took over the seeds do not overlap. A difference within what the
// tie-breaking seed alone moves is then not reported as the configuration's; with one seed, any
// difference is one.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "muster/api/resources.h"
#include "muster/api/time.h"
#include "muster/sim/simulation.h"

namespace muster::report {

// A pod at the end of a run.
struct RunPod {
  std::string key;       // namespace/name
  std::string workload;  // "ReplicaSet default/web" (a Deployment's pods name the Deployment)
  std::string node;      // empty: not bound
  std::string status;    // as simulate's STATUS column
  std::string message;   // why it is unschedulable, when it is
  // From its creation to its binding.
  std::optional<api::Duration> bind_latency;
};

// A gang (a PodGroup of either API, a Workload's pod group) at the end of a run.
struct RunGang {
  std::string key;  // namespace/name
  int32_t min_count = 0;
  int32_t members = 0;
  int32_t bound = 0;
  // From the later of its creation and its first member's to its quorum (minCount bound), and
  // to its last member's binding when every member is bound.
  std::optional<api::Duration> quorum_after;
  std::optional<api::Duration> all_bound_after;
};

// A node at the end of a run: what the pods bound there and not finished request.
struct RunNode {
  std::string name;
  std::vector<std::string> labels;  // the values of RunOutcome's label keys ("" when unset)
  api::Resource allocatable;
  api::Resource requested;
  int32_t pods = 0;
};

struct RunOutcome {
  uint64_t seed = 0;
  api::Duration end{};  // the cluster's last change
  int64_t attempts = 0;
  std::vector<RunPod> pods;    // by key
  std::vector<RunGang> gangs;  // by key
  std::vector<RunNode> nodes;  // by name
  std::vector<std::string> label_keys;
  // Each pod preemption evicted, with the pod it made room for.
  std::vector<std::pair<std::string, std::string>> preempted;
};

// Reads what compare needs of a finished run; `label_keys` are the node labels to keep.
RunOutcome Outcome(const sim::Simulation& sim, const std::vector<std::string>& label_keys);

struct ComparedSide {
  std::string name;    // "A", "B"
  std::string config;  // where its configuration came from (ConfigText's source); empty: none
  std::vector<std::string> replaced;  // what its own files replaced (api::LoadResult::replaced)
  std::vector<std::string> files;     // its own files
  std::vector<RunOutcome> runs;       // one per seed, in the seeds' order
};

// The comparison as `muster compare -o json` prints it (kind SimulationComparison). Both sides
// must have run the same seeds.
nlohmann::ordered_json BuildComparison(const ComparedSide& a, const ComparedSide& b);

// The terminal's tables: the summary, the pods that differ with why each side's are pending,
// the gangs, the workloads, the nodes that differ, utilisation by label, preemptions.
void PrintComparison(const nlohmann::ordered_json& comparison, std::ostream& out);

// A figure's values over a side's runs: "3", or "2.5 [2-3]" over several runs (`time`: seconds,
// printed as durations; `percent`: with a % sign).
enum class Unit { kCount, kSeconds, kPercent };
std::string SpreadText(const nlohmann::ordered_json& spread, Unit unit);

// A summary metric's name as the tables show it ("gangsAtQuorum": "gangs at quorum"; a resource:
// "cpu requested"), and its unit (`resources`: the document's nodes.resources).
std::string MetricLabel(const std::string& metric);
Unit MetricUnit(const std::string& metric, const std::vector<std::string>& resources);

// A side's configuration (an item of the document's "sides"), as a phrase.
std::string ConfigurationText(const nlohmann::ordered_json& side);

}  // namespace muster::report
