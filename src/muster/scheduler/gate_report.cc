#include <algorithm>

#include <fmt/format.h>

#include "muster/api/gang.h"
#include "muster/framework/log.h"
#include "muster/scheduler/scheduler.h"

// What PreEnqueue holds back, said where a person looks (KEP-5501, SchedulerPreEnqueuePodStatus).
// A pod that a PreEnqueue plugin turns away never reaches a scheduling cycle, so no
// FailedScheduling and no Unschedulable condition would ever say why it is Pending. Once the
// same verdict has held it for kGateReportDelay (a verdict lifted sooner, as a gang's arriving
// members lift theirs, writes nothing), the pod gets PodScheduled=False with reason
// NotReadyForScheduling and the plugin's message; the queue tells again only when the message
// changes, so a pod costs one write per reason, however many events re-run PreEnqueue.
//
// A gang held for want of members (or of members without scheduling gates) says so on its own
// object: its condition with the count, rewritten as the count changes (at most once per
// member's report), and one Normal event when the wait begins. Its members get the condition but
// no event of their own: a job of 256 pods arriving slowly makes one event, not 256 or 256².
// SchedulingGates' verdict is the API server's to report (reason SchedulingGated) and is left to
// it.

namespace muster::scheduler {

using framework::Status;

namespace {

constexpr api::Duration kGateReportDelay = std::chrono::seconds(5);
constexpr std::string_view kNotReadyForScheduling = "NotReadyForScheduling";

}  // namespace

void Scheduler::OnGated(const framework::QueuedPodInfo&, const Status&) {
  // One timer for every report: the first held pod arms it, and each sweep arms it again for
  // the next report due. A gang's members held for a moment cost no timer each.
  if (!gate_sweep_) {
    gate_sweep_ = clock_.AddTimer(clock_.Now() + kGateReportDelay, [this] { SweepGated(); });
  }
}

void Scheduler::SweepGated() {
  gate_sweep_.reset();
  const api::Time now = clock_.Now();
  // Due now: held since (last sweep - delay, now - delay]; each held verdict is reported once.
  std::vector<std::pair<std::string, std::string>> due;
  std::optional<api::Time> next;
  queue_.ForEachHeld(
      [&](const framework::QueuedPodInfo& info, const std::string& message, api::Time since) {
        const api::Time at = since + kGateReportDelay;
        if (at > now) {
          next = next ? std::min(*next, at) : at;
        } else if (at > last_gate_sweep_) {
          due.emplace_back(info.info->Key(), message);
        }
      });
  last_gate_sweep_ = now;
  // In the pods' order: what is written does not depend on the hash map's.
  std::sort(due.begin(), due.end());
  for (const auto& [key, message] : due) ReportGated(key, message);
  // The next due, earlier than any sweep armed meanwhile, which it replaces (that sweep's
  // pods are among those it finds).
  if (next) {
    if (gate_sweep_) clock_.CancelTimer(*gate_sweep_);
    gate_sweep_ = clock_.AddTimer(*next, [this] { SweepGated(); });
  }
}

void Scheduler::ReportGated(const std::string& key, const std::string& message) {
  std::string now;
  const framework::QueuedPodInfo* held = queue_.Held(key, &now);
  const framework::PodInfoPtr* stored = store_.FindPod(api::PodName::Parse(key));
  if (held == nullptr || now != message || stored == nullptr ||
      !(*stored)->pod.spec.node_name.empty()) {
    return;
  }
  const api::Pod& pod = (*stored)->pod;
  const framework::Framework* fwk = profiles_.For(pod);
  if (fwk == nullptr) return;
  if (log::V(2)) {
    log::Info(2, "Pod not ready for scheduling",
              {{"pod", key}, {"plugin", held->gating_plugin}, {"reason", message}});
  }
  // The gang the pod waits with, when its own gang plugin holds it.
  const auto [group_plugin, gang] = fwk->GroupOf(**stored);
  const bool gang_wait = gang && group_plugin->Name() == held->gating_plugin;

  api::Condition condition;
  condition.type = api::Symbol("PodScheduled");
  condition.status = api::Symbol("False");
  condition.reason = std::string(kNotReadyForScheduling);
  condition.message = message;
  condition.last_transition_time = clock_.Now();
  if (const api::Condition* old = api::FindCondition(pod.status.conditions, condition.type.str());
      old != nullptr && old->status == condition.status) {
    condition.last_transition_time = old->last_transition_time;
  }
  if (api::ConditionChanges(pod.status.conditions, condition)) {
    client_.UpdatePodCondition(pod, condition, std::nullopt);
    if (!gang_wait) {
      client_.RecordEvent(framework::EventRecord{framework::ReferenceTo(pod), "Normal",
                                                 std::string(kNotReadyForScheduling), "Scheduling",
                                                 message, std::nullopt, fwk->scheduler_name()});
    }
  }
  if (gang_wait) ReportGangWaiting(*gang, fwk->scheduler_name());
}

void Scheduler::ReportGangWaiting(const framework::Gang& gang, const std::string& scheduler_name) {
  const auto members = static_cast<int32_t>(gang.members.size());
  const int32_t ready = api::SchedulableMembers(gang.members);
  std::string message;
  if (members < gang.min_count) {
    message = fmt::format("waiting for pods: {}/{} exist ({} {})", members, gang.min_count,
                          gang.quorum_name, gang.min_count);
  } else {
    message = fmt::format(
        "waiting for pods without scheduling gates: {}/{} can be scheduled, {} gated ({} {})",
        ready, gang.min_count, members - ready, gang.quorum_name, gang.min_count);
  }
  // What this wait last said: the lister's copy of the group may not have caught up with it
  // yet, when several members' reports come due together.
  const auto [said, first] = gangs_waiting_.try_emplace(gang.Key());
  if (!first && said->second == message) return;
  said->second = message;
  WriteGroupCondition(gang, /*scheduled=*/false, kNotReadyForScheduling, message);
  if (!first) return;
  const api::Condition* now = api::FindCondition(gang.conditions, gang.condition_type);
  if (now != nullptr && now->reason == kNotReadyForScheduling) return;  // said before a restart
  client_.RecordEvent(framework::EventRecord{gang.object, "Normal",
                                             std::string(kNotReadyForScheduling), "Scheduling",
                                             message, std::nullopt, scheduler_name});
}

}  // namespace muster::scheduler
