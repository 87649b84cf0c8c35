#pragma once

// The scheduler's per-cycle records, shared by the pod cycle (schedule_one.cc) and the group
// cycle (group_cycle.cc). Private to the scheduler.

#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "muster/scheduler/scheduler.h"

namespace muster::scheduler {

using framework::Code;
using framework::Status;

// What Filter found: each rejected node's status, and which plugins rejected.
struct Scheduler::Diagnosis {
  framework::NodeToStatus statuses;
  std::set<std::string> unschedulable_plugins;
  std::set<std::string> pending_plugins;
  std::string pre_filter_msg;
  std::string post_filter_msg;
  int32_t num_all_nodes = 0;
  // The nodes Filter looked at and those that passed (the log's evaluatedNodes, feasibleNodes).
  int32_t evaluated_nodes = 0;
  int32_t feasible_nodes = 0;
  // Nodes Filter rejected whose statuses were not kept because the pod fit elsewhere.
  int32_t rejected_unkept = 0;
  bool fit_error = false;  // the pod fits no node (as opposed to an error)

  void AddPluginStatus(const Status& s) {
    const std::string& plugin = s.plugin();
    if (plugin.empty()) return;
    if (s.code() == Code::kPending) {
      pending_plugins.insert(plugin);
    } else if (s.IsRejected() && plugin != last_unschedulable) {
      // Rejected nodes mostly name the plugin the one before did: a compare instead of a
      // lookup in the set for each of thousands of nodes.
      unschedulable_plugins.insert(plugin);
      last_unschedulable = plugin;
    }
  }
  std::string last_unschedulable;

  // Upstream FitError.Error(): "0/3 nodes are available: 1 node(s) had ..., 2 Insufficient cpu."
  std::string FitErrorMessage() const {
    std::string msg = fmt::format("0/{} nodes are available:", num_all_nodes);
    if (std::string reasons = Reasons(); !reasons.empty()) msg += fmt::format(" {}.", reasons);
    if (!post_filter_msg.empty()) msg += fmt::format(" {}", post_filter_msg);
    return msg;
  }
  // Why the pod fits no node, without the lead-in: PreFilter's message, or the rejections by
  // node ("1 node(s) had untolerated taint(s), 2 Insufficient cpu").
  std::string Reasons() const {
    if (!pre_filter_msg.empty()) return pre_filter_msg;
    return fmt::format("{}", fmt::join(statuses.ReasonCounts(num_all_nodes), ", "));
  }
};

// Adds a step after the choice of node to the attempt's record, when it is recorded.
inline void TraceStep(const framework::CycleState& state, api::Time now, std::string_view step,
                      const Status& s, std::string message = {}) {
  if (framework::AttemptTrace* trace = state.trace.get()) {
    if (message.empty()) message = s.Message();
    trace->steps.push_back(
        framework::AttemptTrace::Step{now, std::string(step), s.code(), std::move(message)});
  }
}

// A pod between Assume and the end of its binding cycle.
struct Scheduler::BindingContext {
  const framework::Framework* fwk = nullptr;
  std::unique_ptr<framework::CycleState> state;
  framework::QueuedPodInfo queued;
  framework::PodInfoPtr assumed;  // the pod with spec.nodeName set
  api::Symbol node;
  framework::Stopwatch started;  // when its scheduling attempt began
  int32_t evaluated_nodes = 0;   // for the log, as Diagnosis's
  int32_t feasible_nodes = 0;
  // Whether the pod is bound for its node past Permit: from then on the cluster counts as
  // changed by it (see Scheduler::Permit), and again if it lets the node go.
  bool committed = false;
  // The PreBind plugin to run next, or the one the binding waits on (see PreBindPlugin).
  size_t pre_bind_next = 0;
  // Nominated to its node as its binding began (SchedulerOptions::nominate_expected_node).
  bool nominated = false;
  // scheduler_goroutines{operation="binding"}: counts this binding while it is under way (it
  // may outlive the scheduler, held by a timer).
  std::shared_ptr<framework::BusyCount> binding;

  BindingContext() = default;
  BindingContext(const BindingContext&) = delete;
  BindingContext& operator=(const BindingContext&) = delete;
  ~BindingContext() {
    if (binding != nullptr) binding->fetch_sub(1, std::memory_order_relaxed);
  }
};

}  // namespace muster::scheduler
