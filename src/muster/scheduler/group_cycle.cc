#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "muster/framework/log.h"
#include "muster/scheduler/cycle.h"
#include "muster/scheduler/group_placement.h"

// The whole-group cycle. A pod whose profile has a GroupPlugin naming its group is not placed
// alone: its group's pending members come out of the queue with it and are placed one after
// another against one snapshot, each assumed in the cache before the next is placed, so that
// each sees the members placed before it (their room, their labels for spread and affinity).
// Then one decision for the group:
//   - minMember or more placed (counting members bound before): every placed member is
//     reserved, then permitted (Coscheduling's Permit finds them all reserved and lets them
//     through at once), and bound; members beyond the quorum that do not fit fail on their own;
//   - fewer: every placement is undone before anything else runs, so the group holds nothing,
//     and every member goes back to the queue with one message saying why the group cannot be
//     placed, which is also the PodGroup's Scheduled=False condition and an Event on it.
// The cycle runs on the scheduling thread like a pod's: nothing else sees the cache between the
// first member's placement and the decision.

namespace muster::scheduler {

struct Scheduler::GroupMember {
  framework::QueuedPodInfo queued;
  std::unique_ptr<framework::CycleState> state;
  Diagnosis diagnosis;
  Status status;
};

void Scheduler::ScheduleGroup(const framework::Framework& fwk, framework::GroupPlugin& plugin,
                              framework::QueuedPodInfo popped, const framework::Gang& gang) {
  const int32_t min_member = gang.min_count;
  const std::string gang_key = gang.Key();
  const framework::Stopwatch started;
  last_attempted_ = popped.info->Key();
  gangs_waiting_.erase(gang_key);  // its members are here: a later wait is a new one
  if (log::V(3)) {
    log::Info(3, "Attempting to schedule pod group",
              {{"podGroup", gang_key}, {"pod", last_attempted_}, {"minMember", min_member}});
  }

  // The members to place: the popped pod and its siblings still pending in the queue (not
  // gated), in queue order. Members on a node already (bound, or assumed: binding, or waiting
  // at Permit for another plugin) count towards the quorum.
  std::vector<framework::QueuedPodInfo> pending;
  const std::string popped_key = popped.info->Key();
  pending.push_back(std::move(popped));
  int32_t assigned = 0;
  for (const api::Pod* p : gang.members) {
    if (!p->spec.node_name.empty() || cache_.IsAssumedPod(*p)) {
      ++assigned;
      continue;
    }
    std::string key = p->metadata.Key();
    if (key == popped_key || ProfileFor(*p) != &fwk) continue;
    // A member PreEnqueue held (its gang short of members when it arrived) is asked again:
    // the gang that let this one through lets it through too, unless a gate of its own holds it.
    if (queue_.IsGated(key)) queue_.Activate({key});
    if (std::optional<framework::QueuedPodInfo> taken = queue_.Take(key)) {
      pending.push_back(std::move(*taken));
    }
  }
  std::sort(pending.begin(), pending.end(),
            [&](const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) {
              const int c = fwk.QueueSortCompare(a, b);
              return c != 0 ? c < 0 : a.info->Key() < b.info->Key();
            });
  // The members in the cycle's order, for a preemption trial after the cycle.
  std::vector<framework::PodInfoPtr> order;
  for (const framework::QueuedPodInfo& q : pending) {
    ++stats_.attempts;
    store_.CountAttempt(api::PodName::Of(q.info->pod));
    order.push_back(q.info);
  }
  const bool sample = metrics_.SamplePluginsThisCycle();
  auto new_state = [&](const framework::QueuedPodInfo& q) {
    return NewCycleState(fwk, *q.info, sample);
  };

  // The group as a whole first (enough members, minResources), while it is short of quorum.
  // (A composite group's tree is judged group by group as it is placed.)
  const bool composite = gang.composite();
  Status group_status;
  const auto attempted = static_cast<int32_t>(pending.size());
  if (!composite && assigned < min_member) {
    cache_.UpdateSnapshot(snapshot_);
    group_status = plugin.PreFilterGroup(gang, snapshot_.List());
    if (group_status.IsSuccess() && assigned + attempted < min_member) {
      group_status = Status::Unresolvable(fmt::format("{}/{} members can be scheduled now ({} {})",
                                                      assigned + attempted, gang.members.size(),
                                                      gang.quorum_name, min_member));
    }
  }

  // A gang with a topology constraint is placed in one domain of its key, chosen for the gang
  // as a whole; the restriction lasts this cycle.
  struct EndPlacement {
    Scheduler& s;
    ~EndPlacement() {
      s.placement_.clear();
      s.placement_name_.clear();
    }
  } end_placement{*this};
  std::string domain_note;
  if (group_status.IsSuccess() && !composite && !gang.topology_key.empty()) {
    group_status = ChooseDomain(fwk, gang, pending, assigned, &domain_note);
  }

  std::vector<std::shared_ptr<BindingContext>> placed;
  std::vector<GroupMember> failed;
  // The Reserve plugins other than the gang's own reserve each member as it is placed, so that
  // the next member's cycle sees what it holds (DynamicResources' devices, VolumeBinding's
  // volumes), as each member's own cycle would upstream; the gang's plugin reserves once the
  // group is whole (framework::ReserveScope). A failure unreserves the member and turns it away.
  const framework::ReserveScope members_scope = framework::ReserveScope::AllBut(plugin.Name());
  auto reserve_member = [&](BindingContext& ctx) {
    const Status r =
        fwk.RunReservePluginsReserve(*ctx.state, *ctx.assumed, ctx.node, members_scope);
    TraceStep(*ctx.state, clock_.Now(), "Reserve", r);
    if (r.IsSuccess()) return true;
    Unassume(ctx, r, /*room_freed=*/false);
    return false;
  };
  auto unreserve_member = [&](BindingContext& ctx) {
    fwk.RunReservePluginsUnreserve(*ctx.state, *ctx.assumed, ctx.node, members_scope);
  };
  auto reserve_group = [&](BindingContext& ctx) {
    const Status r = fwk.RunReservePluginsReserve(*ctx.state, *ctx.assumed, ctx.node,
                                                  framework::ReserveScope::Only(plugin.Name()));
    if (r.IsSuccess()) return true;
    TraceStep(*ctx.state, clock_.Now(), "Reserve", r);
    Unassume(ctx, r, /*room_freed=*/false);
    return false;
  };
  // Places one member: assumed at once, so that the next member's snapshot has it on its node.
  auto place = [&](GroupMember& m) {
    api::Symbol host;
    m.diagnosis = Diagnosis();
    m.status = SchedulePod(fwk, *m.state, *m.queued.info, &host, &m.diagnosis);
    if (!m.status.IsSuccess()) return false;
    metrics_.SchedulingAlgorithm(started.Seconds());
    if (log::V(4)) {
      log::Info(4, "Selected node for pod group member",
                {{"pod", m.queued.info->Key()},
                 {"podGroup", gang_key},
                 {"node", host.str()},
                 {"feasibleNodes", m.diagnosis.feasible_nodes}});
    }
    std::shared_ptr<BindingContext> ctx =
        Assume(fwk, std::move(m.state), std::move(m.queued), host, started);
    if (ctx != nullptr && reserve_member(*ctx)) {
      ctx->evaluated_nodes = m.diagnosis.evaluated_nodes;
      ctx->feasible_nodes = m.diagnosis.feasible_nodes;
      placed.push_back(std::move(ctx));
    }
    return true;  // placed, or requeued by Assume or Reserve
  };
  // The members that did not fit, summarised by reason, in the order first seen, each reason
  // as the pod's own message words it: "3 members do not: 0/6 nodes are available: 6
  // Insufficient cpu" (members counted apart from nodes). *error: one failed with an error.
  auto summarize = [](const std::vector<const GroupMember*>& members, bool* error) {
    std::vector<std::pair<std::string, std::vector<const GroupMember*>>> reasons;
    for (const GroupMember* member : members) {
      const GroupMember& m = *member;
      *error |= !m.diagnosis.fit_error && !m.status.IsRejected();
      std::string why = m.diagnosis.fit_error
                            ? fmt::format("0/{} nodes are available: {}", m.diagnosis.num_all_nodes,
                                          m.diagnosis.Reasons())
                            : m.status.Message();
      auto it = std::find_if(reasons.begin(), reasons.end(),
                             [&](const auto& r) { return r.first == why; });
      if (it == reasons.end()) {
        reasons.emplace_back(std::move(why), std::vector<const GroupMember*>{&m});
      } else {
        it->second.push_back(&m);
      }
    }
    std::vector<std::string> parts;
    for (const auto& [why, failed] : reasons) {
      if (reasons.size() == 1) {
        parts.push_back(why);
      } else if (failed.size() == 1) {
        parts.push_back(
            fmt::format("{} ({})", why, failed.front()->queued.info->pod.metadata.name));
      } else {
        parts.push_back(fmt::format("{} ({} members)", why, failed.size()));
      }
    }
    return fmt::format("{} {}: {}", members.size(),
                       members.size() == 1 ? "member does not" : "members do not",
                       fmt::join(parts, "; "));
  };

  // A composite group's tree (KEP-6012), placed by a TreePlacer (group_placement.h): its
  // members assumed and reserved as a gang's are, undone when their subtree falls short.
  // Nothing is kept unless the root is placed.
  std::vector<GroupMember> tree_members;  // the placer's members, by index
  std::unique_ptr<TreePlacer> tree;
  bool tree_placed = false;
  std::string tree_message;
  // Whether a member was turned away by the nodes (not by the group's own checks): what
  // preemption can help.
  bool turned_away_by_nodes = false;
  if (composite) {
    for (framework::QueuedPodInfo& q : pending) {
      std::unique_ptr<framework::CycleState> state = new_state(q);
      tree_members.push_back({std::move(q), std::move(state), {}, {}});
    }
    TreePlacer::Hooks hooks;
    hooks.place = [&](size_t i) {
      GroupMember& m = tree_members[i];
      m.state = new_state(m.queued);
      const size_t before = placed.size();
      if (!place(m)) return TreePlacer::Tried::kFailed;
      return placed.size() > before ? TreePlacer::Tried::kPlaced : TreePlacer::Tried::kGone;
    };
    hooks.undo = [&](size_t i) {
      std::shared_ptr<BindingContext> ctx = std::move(placed.back());
      placed.pop_back();
      unreserve_member(*ctx);
      cache_.ForgetPod(ctx->assumed->pod);
      tree_members[i] = GroupMember{std::move(ctx->queued), std::move(ctx->state), {}, {}};
    };
    hooks.why_not = [&](std::span<const size_t> members) {
      std::vector<const GroupMember*> of;
      for (const size_t i : members) of.push_back(&tree_members[i]);
      bool error = false;
      return summarize(of, &error);
    };
    tree = std::make_unique<TreePlacer>(*this, gang, std::move(hooks));
    for (size_t i = 0; i < tree_members.size(); ++i) tree->Add(i, *tree_members[i].queued.info);
    tree_placed = tree->Place(&tree_message);
    // Who is not placed fails with what became of its group; a member of a placed group that
    // did not fit fails as one beyond a gang's quorum does, on its own.
    for (auto& [name, g] : tree->groups()) {
      for (const size_t i : g.pool) {
        GroupMember& m = tree_members[i];
        turned_away_by_nodes |= m.diagnosis.fit_error;
        if (!g.placed || m.status.IsSuccess()) {
          m.diagnosis.fit_error = false;  // the group's verdict, not the member's
          m.status = Status(Code::kUnschedulable,
                            g.placed || g.message.empty()
                                ? tree_message
                                : fmt::format("pod group {}: {}", name.str(), g.message))
                         .WithPlugin(std::string(plugin.Name()));
        }
        failed.push_back(std::move(m));
      }
    }
  } else if (group_status.IsSuccess()) {
    bool placed_after_failure = false;
    for (framework::QueuedPodInfo& q : pending) {
      std::unique_ptr<framework::CycleState> state = new_state(q);
      GroupMember m{std::move(q), std::move(state), {}, {}};
      if (place(m)) {
        placed_after_failure |= !failed.empty();
      } else {
        failed.push_back(std::move(m));
      }
    }
    // With the quorum placed, a member that failed before others were placed tries again
    // beside them (their room is taken, but their labels may be what its affinity needs), so
    // that each failure has seen the whole group's placement.
    while (placed_after_failure && assigned + static_cast<int32_t>(placed.size()) >= min_member) {
      placed_after_failure = false;
      std::vector<GroupMember> retry = std::move(failed);
      failed.clear();
      for (GroupMember& m : retry) {
        m.state = new_state(m.queued);
        if (place(m)) {
          placed_after_failure = true;
        } else {
          failed.push_back(std::move(m));
        }
      }
    }
  } else {
    for (framework::QueuedPodInfo& q : pending) {
      std::unique_ptr<framework::CycleState> state = new_state(q);
      failed.push_back({std::move(q), std::move(state), {}, {}});
    }
  }

  const auto fit = assigned + static_cast<int32_t>(placed.size());
  // For `muster explain`: the group's picture, in the record of each member whose attempt is
  // recorded (taken now: the placements move on below). `unplaced` says why the group was not
  // placed, for the members it turns away.
  std::vector<std::shared_ptr<framework::AttemptTrace>> group_traces;
  for (const std::shared_ptr<BindingContext>& ctx : placed) {
    if (ctx->state->trace != nullptr) group_traces.push_back(ctx->state->trace);
  }
  for (const GroupMember& m : failed) {
    if (m.state != nullptr && m.state->trace != nullptr) group_traces.push_back(m.state->trace);
  }
  framework::AttemptTrace::Group picture;
  if (!group_traces.empty()) {
    picture.name = gang_key;
    picture.min_member = min_member;
    picture.total_members = static_cast<int32_t>(gang.members.size());
    picture.assigned_before = assigned;
    picture.attempted = attempted;
    for (const std::shared_ptr<BindingContext>& ctx : placed) {
      picture.placed.emplace_back(ctx->assumed->pod.metadata.name, ctx->node.string());
    }
    for (const GroupMember& m : failed) {
      picture.failed.emplace_back(m.queued.info->pod.metadata.name,
                                  m.diagnosis.fit_error  ? m.diagnosis.Reasons()
                                  : m.status.IsSuccess() ? group_status.Message()
                                                         : m.status.Message());
    }
  }
  auto trace_group = [&](bool scheduled, const std::string& message, const Status* unplaced) {
    picture.scheduled = scheduled;
    picture.message = message;
    for (const std::shared_ptr<framework::AttemptTrace>& trace : group_traces) {
      trace->group = picture;
      if (unplaced != nullptr) {
        trace->result = unplaced->code();
        trace->message = unplaced->Message();
      }
    }
  };
  // Each group's condition (a composite group has none: its groups have).
  auto set_conditions = [&](bool scheduled, const std::string& message, bool error) {
    if (!composite) {
      SetGroupCondition(gang, scheduled, message, error);
      return;
    }
    gang.ForEachGroup([&](const framework::Gang& leaf) {
      const TreePlacer::Group& g = tree->groups()[leaf.name];
      const bool placed_leaf = scheduled && g.placed;
      SetGroupCondition(leaf, placed_leaf, scheduled && !g.message.empty() ? g.message : message,
                        error);
    });
  };
  const bool whole = composite ? tree_placed : group_status.IsSuccess() && fit >= min_member;
  if (whole) {
    // Reserve every member before any is permitted, so that Permit sees the whole group.
    std::vector<std::shared_ptr<BindingContext>> reserved;
    for (std::shared_ptr<BindingContext>& ctx : placed) {
      if (reserve_group(*ctx)) reserved.push_back(std::move(ctx));
    }
    const auto kept = assigned + static_cast<int32_t>(reserved.size());
    if (composite ? reserved.size() == placed.size() : kept >= min_member) {
      const size_t reserved_count = reserved.size();
      for (std::shared_ptr<BindingContext>& ctx : reserved) Permit(std::move(ctx));
      if (assigned < min_member) plugin.GroupCycleDone(gang, /*placed=*/true);
      std::string message = composite
                                ? fmt::format("{}: {} members placed; {}", gang.name.str(),
                                              reserved_count, tree_message)
                                : fmt::format("{}/{} members placed ({} {})", fit,
                                              assigned + attempted, gang.quorum_name, min_member);
      if (!composite && !placement_name_.empty()) message += " in " + placement_name_;
      trace_group(/*scheduled=*/true, message, nullptr);
      set_conditions(/*scheduled=*/true, message, /*error=*/false);
    } else {
      // A Reserve plugin turned members away and the group fell short after all.
      const Status short_of =
          Status::Unschedulable(fmt::format("{}/{} members reserved ({} {})", kept,
                                            assigned + attempted, gang.quorum_name, min_member));
      trace_group(/*scheduled=*/false, short_of.Message(), &short_of);
      for (const std::shared_ptr<BindingContext>& ctx : reserved) {
        Unassume(*ctx, short_of, /*room_freed=*/false);
      }
      plugin.GroupCycleDone(gang, /*placed=*/false);
      set_conditions(/*scheduled=*/false, short_of.Message(), /*error=*/false);
    }
    // Beyond the quorum: each member that does not fit fails as a pod on its own would, having
    // seen the group placed.
    for (GroupMember& m : failed) {
      queue_.AttemptSawCurrentState(m.queued.info->Key());
      FailAttempt(fwk, *m.state, started, std::move(m.queued), std::move(m.status), m.diagnosis);
    }
    return;
  }

  // Short of quorum: undo every placement before anything else looks at the cluster.
  for (const std::shared_ptr<BindingContext>& ctx : placed) {
    unreserve_member(*ctx);
    cache_.ForgetPod(ctx->assumed->pod);
  }

  // One explanation for the group. The members that did not fit are summarised by reason, in
  // the order first seen, each reason as the pod's own message words it: "3 members do not:
  // 0/6 nodes are available: 6 Insufficient cpu" (members counted apart from nodes).
  std::string message;
  bool error = false;
  if (composite) {
    message = tree_message;
  } else if (!group_status.IsSuccess()) {
    message = group_status.Message();
    error = !group_status.IsRejected();
  } else {
    std::vector<const GroupMember*> not_fit;
    for (const GroupMember& m : failed) not_fit.push_back(&m);
    message = fmt::format("{}{}/{} members fit ({} {}); {}", domain_note, fit, assigned + attempted,
                          gang.quorum_name, min_member, summarize(not_fit, &error));
  }

  // Preemption for the gang as a whole, when its members were turned away by the nodes (not by
  // the group's own checks): victims across nodes for the quorum, or none at all. With a
  // GroupPostFilterPlugin in the profile, members never preempt one by one.
  framework::GroupPostFilterPlugin* const group_post_filter = fwk.group_post_filter();
  const std::string_view group_post_filter_name = fwk.group_post_filter_name();
  std::vector<framework::TrialPlacement> nominations;
  // A member keeps the node an earlier preemption nominated for it (its placement in this
  // cycle, undone, released it), unless the gang's preemption now names another.
  auto nomination_of = [&](const framework::PodInfo& pod) {
    framework::PostFilterResult nominated;
    if (const api::Symbol earlier = pod.pod.status.nominated_node_name; !earlier.empty()) {
      nominated = {earlier, framework::NominatingMode::kOverride};
    }
    for (const framework::TrialPlacement& p : nominations) {
      if (p.pod->Key() == pod.Key()) nominated = {p.node, framework::NominatingMode::kOverride};
    }
    return nominated;
  };
  if (!composite) {
    turned_away_by_nodes = std::any_of(failed.begin(), failed.end(),
                                       [](const GroupMember& m) { return m.diagnosis.fit_error; });
  }
  if (group_post_filter != nullptr && group_status.IsSuccess() && !error && turned_away_by_nodes) {
    std::vector<const framework::PodInfo*> members;
    for (const framework::PodInfoPtr& p : order) members.push_back(p.get());
    framework::AttemptTrace* first_trace =
        group_traces.empty() ? nullptr : group_traces.front().get();
    const Status preempted = PreemptForGroup(*group_post_filter, fwk, gang, members, assigned,
                                             first_trace, &nominations);
    // For `muster explain`: each traced member's PostFilter is the gang's preemption, with
    // what it found and the node it nominated for that member.
    std::vector<std::string> notes;
    if (first_trace != nullptr) notes = std::exchange(first_trace->post_filter_notes, {});
    auto record = [&](const std::shared_ptr<framework::AttemptTrace>& trace,
                      const framework::PodInfo& pod) {
      if (trace == nullptr) return;
      trace->post_filter.push_back(
          {std::string(group_post_filter_name), preempted.code(), preempted.Message(), notes});
      if (const framework::PostFilterResult n = nomination_of(pod);
          n.mode == framework::NominatingMode::kOverride) {
        trace->post_filter_nominated = n.nominated_node_name.string();
      }
    };
    for (const std::shared_ptr<BindingContext>& ctx : placed) {
      record(ctx->state->trace, *ctx->queued.info);
    }
    for (const GroupMember& m : failed) {
      if (m.state != nullptr) record(m.state->trace, *m.queued.info);
    }
    if (preempted.code() != Code::kUnschedulableAndUnresolvable && !preempted.Message().empty()) {
      message += "; " + preempted.Message();
    }
    error |= preempted.IsError();
  }

  // Every member waits on what turned any of them away, and on the group's own events.
  Diagnosis waits_on;
  waits_on.unschedulable_plugins.insert(std::string(plugin.Name()));
  for (const GroupMember& m : failed) {
    waits_on.unschedulable_plugins.insert(m.diagnosis.unschedulable_plugins.begin(),
                                          m.diagnosis.unschedulable_plugins.end());
    waits_on.pending_plugins.insert(m.diagnosis.pending_plugins.begin(),
                                    m.diagnosis.pending_plugins.end());
  }
  const Status status =
      error ? Status::Error(message)
            : Status(Code::kUnschedulable, message).WithPlugin(std::string(plugin.Name()));
  trace_group(/*scheduled=*/false, message, &status);
  const api::Time backoff_until =
      gang.backoff > api::Duration::zero() ? clock_.Now() + gang.backoff : api::Time{};
  auto requeue = [&](framework::QueuedPodInfo queued,
                     const framework::PostFilterResult* nomination) {
    const std::string key = queued.info->Key();
    queued.backoff_until = backoff_until;
    HandleSchedulingFailure(fwk, started, std::move(queued), status, &waits_on, nomination);
    queue_.Done(key);
  };
  // (Reserve never ran for them: there is nothing to unreserve.)
  for (const std::shared_ptr<BindingContext>& ctx : placed) {
    const framework::PostFilterResult nomination = nomination_of(*ctx->queued.info);
    requeue(std::move(ctx->queued), &nomination);
  }
  // Without a GroupPostFilterPlugin, PostFilter for each member that fit nowhere, with the
  // group's placements undone, each seeing the nominations of those before it, as their own
  // cycles would.
  const bool post_filter_each = group_post_filter == nullptr && fwk.HasPostFilterPlugins();
  if (!placed.empty() || post_filter_each) cache_.UpdateSnapshot(snapshot_);
  for (GroupMember& m : failed) {
    framework::PostFilterResult nomination = nomination_of(*m.queued.info);
    if (m.diagnosis.fit_error && post_filter_each) {
      fwk.RunPostFilterPlugins(*m.state, *m.queued.info, m.diagnosis.statuses, &nomination);
    }
    fwk.ObservePluginTally(*m.state);
    requeue(std::move(m.queued), &nomination);
  }
  plugin.GroupCycleDone(gang, /*placed=*/false);
  if (log::V(2)) {
    log::Info(2, "Unable to schedule pod group; waiting",
              {{"podGroup", gang_key}, {"err", message}});
  }
  client_.RecordEvent(framework::EventRecord{gang.object, "Warning", "FailedScheduling",
                                             "Scheduling", message, std::nullopt,
                                             fwk.scheduler_name()});
  set_conditions(/*scheduled=*/false, message, error);
}

Status Scheduler::ChooseDomain(const framework::Framework& fwk, const framework::Gang& gang,
                               const std::vector<framework::QueuedPodInfo>& pending,
                               int32_t assigned, std::string* note) {
  cache_.UpdateSnapshot(snapshot_);
  const api::Symbol key = gang.topology_key;
  // Members already on a node hold the gang to their domain.
  std::set<std::string> held;
  std::map<std::string, std::vector<api::Symbol>> domains =
      DomainsOf(snapshot_, key, {}, gang.members, &held);
  if (held.size() > 1) {
    return Status::Unresolvable(fmt::format("more than 1 domain of {} found for pod group: {}",
                                            key.str(), fmt::join(held, ", ")));
  }
  if (domains.empty()) {
    return Status::Unresolvable(
        fmt::format("no node has the label {} of the pod group's topology constraint", key.str()));
  }
  auto restrict = [&](const std::string& value, const std::vector<api::Symbol>& nodes) {
    Restrict(placement_, placement_name_, key, value, nodes);
  };
  if (domains.size() == 1) {
    restrict(domains.begin()->first, domains.begin()->second);
    return Status::OK();
  }
  std::vector<api::Symbol> scalars;
  for (const framework::QueuedPodInfo& q : pending) AddScalars(*q.info, &scalars);
  // Each domain tried: the members placed one after another, each seeing those before it (as
  // the cycle places them), then undone.
  struct Trial {
    const std::string* value;
    const std::vector<api::Symbol>* nodes;
    int32_t fit;
    double free_share;
  };
  std::vector<const framework::PodInfo*> members;
  for (const framework::QueuedPodInfo& q : pending) members.push_back(q.info.get());
  std::vector<Trial> trials;
  for (const auto& [value, nodes] : domains) {
    restrict(value, nodes);
    double free_share = 0;
    // Captured by name: clang 14 (the fuzz build's) does not capture structured bindings.
    const std::vector<api::Symbol>& domain_nodes = nodes;
    const std::vector<framework::TrialPlacement> placed = TrialPlace(
        fwk, members, {}, [&] { free_share = FreeShare(snapshot_, domain_nodes, scalars); });
    trials.push_back({&value, &nodes, static_cast<int32_t>(placed.size()), free_share});
  }
  cache_.UpdateSnapshot(snapshot_);
  auto quorum = [&](const Trial& t) { return assigned + t.fit >= gang.min_count; };
  const Trial* best = nullptr;
  for (const Trial& t : trials) {
    if (best == nullptr) {
      best = &t;
    } else if (quorum(t) != quorum(*best)) {
      if (quorum(t)) best = &t;
    } else if (quorum(t) ? t.free_share < best->free_share
                         : (t.fit > best->fit ||
                            (t.fit == best->fit && t.free_share < best->free_share))) {
      best = &t;
    }
  }
  restrict(*best->value, *best->nodes);
  if (!quorum(*best)) {
    *note = fmt::format(
        "no domain of {} has room for the gang ({} {}); in {}, where the most "
        "fit: ",
        key.str(), gang.quorum_name, gang.min_count, placement_name_);
  }
  return Status::OK();
}

std::vector<framework::TrialPlacement> Scheduler::TrialPlace(
    const framework::Framework& fwk, std::span<const framework::PodInfo* const> members,
    std::span<const framework::TrialPlacement> fixed, const std::function<void()>& while_placed) {
  // The cycle's own restriction (a topology domain) is set aside while a member is held to its
  // fixed node, and back for the next.
  std::unordered_set<uint32_t> placement;
  if (!fixed.empty()) placement = placement_;
  std::vector<framework::TrialPlacement> placed;
  std::vector<framework::PodInfoPtr> assumed;
  auto place = [&](const framework::PodInfo* member, const api::Symbol* node) {
    if (node != nullptr) placement_ = {node->id()};
    framework::CycleState state;
    Diagnosis diagnosis;
    api::Symbol host;
    const bool fits = SchedulePod(fwk, state, *member, &host, &diagnosis).IsSuccess();
    if (node != nullptr) placement_ = placement;
    if (!fits) return;
    framework::PodInfoPtr on_node = framework::PodInfo::OnNode(*member, host);
    if (!cache_.AssumePod(on_node).IsSuccess()) return;
    assumed.push_back(std::move(on_node));
    placed.push_back({member, host});
  };
  // With `fixed`, in its order (a composite group's tree placed group by group, not in the
  // members' order).
  if (fixed.empty()) {
    for (const framework::PodInfo* member : members) place(member, nullptr);
  } else {
    for (const framework::TrialPlacement& p : fixed) place(p.pod, &p.node);
  }
  cache_.UpdateSnapshot(snapshot_);
  if (while_placed) while_placed();
  for (const framework::PodInfoPtr& p : assumed) cache_.ForgetPod(p->pod);
  cache_.UpdateSnapshot(snapshot_);
  return placed;
}

void Scheduler::SetGroupCondition(const framework::Gang& gang, bool scheduled,
                                  const std::string& message, bool error) {
  WriteGroupCondition(gang, scheduled,
                      scheduled ? "Scheduled"
                      : error   ? "SchedulerError"
                                : "Unschedulable",
                      message);
}

void Scheduler::WriteGroupCondition(const framework::Gang& gang, bool scheduled,
                                    std::string_view reason, const std::string& message) {
  if (gang.condition_type.empty()) return;
  const api::Condition* now = api::FindCondition(gang.conditions, gang.condition_type);
  if (!scheduled && gang.condition_stays_true && now != nullptr && now->status.str() == "True")
    return;
  api::Condition condition;
  condition.type = api::Symbol(gang.condition_type);
  condition.status = api::Symbol(scheduled ? "True" : "False");
  condition.reason = std::string(reason);
  condition.message = message;
  condition.last_transition_time = clock_.Now();
  if (api::ConditionChanges(gang.conditions, condition)) {
    client_.UpdateGroupCondition(gang.object, gang.conditions, condition);
  }
}

}  // namespace muster::scheduler
