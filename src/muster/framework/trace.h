#pragma once

// The record of one scheduling attempt, for `muster explain`: what every plugin said about the
// pod and each node, in the attempt the scheduler made. The framework runtime and the scheduler
// write it as they go, only when the attempt's CycleState carries one (CycleState::trace); no
// attempt does unless someone asked to explain that pod, so the hot path pays a pointer test.
//
// The numbers are the ones the scheduler used: each Filter verdict is recorded where the
// framework gets it from the plugin, each score where it weighs it, not computed again.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "muster/api/time.h"
#include "muster/framework/status.h"

namespace muster::framework {

class AttemptTrace {
 public:
  // One plugin's outcome at a point that runs once per attempt (PreFilter, PostFilter, ...).
  struct Outcome {
    std::string plugin;
    Code code = Code::kSuccess;
    std::string message;
    // What the plugin says it tried (PostFilter: preemption's candidates and victims).
    std::vector<std::string> notes;
  };
  // One Filter plugin's verdict on one node.
  struct Verdict {
    int plugin = 0;  // position in filter_plugins
    Code code = Code::kSuccess;
    std::string reason;
  };
  struct NodeFilter {
    // In run order; the first rejection ends the list (later plugins did not run).
    std::vector<Verdict> verdicts;
    // Pods nominated to the node that Filter counted as already there (upstream's first pass of
    // RunFilterPluginsWithNominatedPods); 0 when none were.
    int nominated_pods = 0;
    bool rejected_with_nominated = false;  // the rejection came in that first pass
  };
  // One Score plugin's numbers, node by node in scored_nodes' order.
  struct ScoreColumn {
    std::string plugin;
    int32_t weight = 1;
    bool normalizes = false;
    std::vector<int64_t> raw;         // as Score returned them
    std::vector<int64_t> normalized;  // after NormalizeScore (raw when the plugin has none)
  };
  // A step after the node is chosen: Reserve, Permit, the wait at Permit, PreBind, Bind.
  struct Step {
    api::Time time{};
    std::string step;
    Code code = Code::kSuccess;
    std::string message;
  };
  // The group cycle the attempt was part of (Coscheduling's whole-group cycle).
  struct Group {
    std::string name;  // namespace/name
    int32_t min_member = 0;
    int32_t total_members = 0;
    int32_t assigned_before = 0;  // members on a node already when the cycle began
    int32_t attempted = 0;        // members the cycle tried to place
    std::vector<std::pair<std::string, std::string>> placed;  // member, node
    std::vector<std::pair<std::string, std::string>> failed;  // member, why
    bool scheduled = false;
    std::string message;  // the group's Scheduled condition message
  };

  // ---- the framework's records ----
  std::vector<Outcome> pre_filter;
  // The profile's Filter plugins in order, and those PreFilter told to skip.
  std::vector<std::string> filter_plugins;
  std::vector<std::string> skipped_filter_plugins;
  std::vector<Outcome> pre_score;
  std::vector<std::string> scored_nodes;
  std::vector<ScoreColumn> scores;
  std::vector<int64_t> totals;  // per scored node, the weighted sum the scheduler compared
  std::vector<Outcome> post_filter;
  // Where a PostFilter plugin writes what it tried, as it runs; the framework moves the lines
  // into the plugin's Outcome::notes when it returns.
  std::vector<std::string> post_filter_notes;
  std::optional<std::string> post_filter_nominated;  // the node a PostFilter nominated, if any
  // The PreBind plugins that acted (did not skip) since the scheduler last took them into
  // `steps`: the volumes bound, the claims written, before the pod is bound.
  std::vector<Outcome> pre_bind;
  // Set while PostFilter runs: the Filter calls of preemption's dry run are what-ifs on other
  // states, not the attempt's verdicts.
  bool in_post_filter = false;

  // Thread-safe: Filter runs in parallel over nodes. Plugins run in list order, so a verdict of
  // a plugin at or before the node's last one starts the node's record again: the node's final
  // evaluation is the one kept (the second pass with nominated pods, or the general pass after
  // the nominated node was tried first).
  void RecordFilter(const std::string& node, int plugin, const Status& verdict);
  // Filter counts `nominated_pods` on the node in its first pass; `passed` says how it ended.
  void NominatedPass(const std::string& node, int nominated_pods, bool passed);
  const std::map<std::string, NodeFilter>& filtered() const { return filtered_; }

  // ---- the scheduler's records ----
  int attempt = 0;  // the pod's attempts so far, this one included
  api::Time time{};
  std::string profile;
  int32_t all_nodes = 0;
  int32_t nodes_to_find = 0;   // numFeasibleNodesToFind (percentageOfNodesToScore)
  int32_t nodes_filtered = 0;  // how many Filter examined before it had found enough
  int32_t nodes_feasible = 0;
  std::optional<int32_t> percentage_of_nodes_to_score;  // the one in force, when configured
  std::string nominated_node;  // tried first, when the pod carried a nomination
  std::optional<Status> nominated_node_status;
  std::string selected_node;
  int64_t ties = 0;  // nodes that shared the top score
  Code result = Code::kSuccess;
  std::string message;  // the FitError or error message; empty when a node was chosen
  std::vector<Step> steps;
  std::optional<Group> group;

 private:
  std::mutex mu_;
  std::map<std::string, NodeFilter> filtered_;
};

}  // namespace muster::framework
