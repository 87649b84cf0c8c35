#include "muster/plugins/coscheduling/coscheduling.h"

#include <algorithm>

#include <fmt/format.h>

#include "muster/api/gang.h"
#include "muster/framework/framework.h"
#include "muster/framework/metrics.h"
#include "muster/plugins/args.h"
#include "muster/plugins/helper/gang.h"

namespace muster::plugins::coscheduling {

using framework::Status;

namespace {

const api::Symbol kLabel(api::kPodGroupLabel);
const api::Symbol kLegacyLabel(api::kLegacyPodGroupLabel);

// A pod with a scheduling gate still counts as a member, but not as one that can be scheduled.
bool Gated(const api::Pod& pod) { return !pod.spec.scheduling_gates.empty(); }

// The PodGroup a pod belongs to, when its gang is of this API (empty otherwise).
api::Symbol GroupName(const framework::PodInfo& pod) {
  return pod.gang.Of<api::PodGroup>() ? pod.gang.name : api::Symbol();
}

}  // namespace

std::optional<CoschedulingArgs> DecodeArgs(const framework::PluginArgs& args, std::string* error) {
  ArgsErrors errors(args.error_prefix);
  ArgsObject root(errors, args.args, "",
                  {"apiVersion", "kind", "mode", "permitWaitingTimeSeconds",
                   "podGroupBackoffSeconds", "podGroupRejectPercentage"});
  CheckArgsKind(root, kName);
  CoschedulingArgs out;
  if (auto v = root.String("mode")) {
    if (*v == "Group") {
      out.mode = Mode::kGroup;
    } else if (*v == "PerPod") {
      out.mode = Mode::kPerPod;
    } else {
      errors.Add("mode", fmt::format("Unsupported value: \"{}\": supported values: \"Group\", "
                                     "\"PerPod\"",
                                     *v));
    }
  }
  if (auto v = root.Int("permitWaitingTimeSeconds", INT64_MIN, INT64_MAX)) {
    out.permit_waiting_time_seconds = *v;
  }
  if (auto v = root.Int("podGroupBackoffSeconds", INT64_MIN, INT64_MAX)) {
    out.pod_group_backoff_seconds = *v;
  }
  if (auto v = root.Int("podGroupRejectPercentage", INT64_MIN, INT64_MAX)) {
    out.pod_group_reject_percentage = *v;
  }
  // Upstream ValidateCoschedulingArgs.
  if (out.permit_waiting_time_seconds < 0) {
    errors.Add("permitWaitingTimeSeconds", fmt::format("Invalid value: {}: must be greater than 0",
                                                       out.permit_waiting_time_seconds));
  }
  if (out.pod_group_backoff_seconds < 0) {
    errors.Add("podGroupBackoffSeconds", fmt::format("Invalid value: {}: must be greater than 0",
                                                     out.pod_group_backoff_seconds));
  }
  if (out.pod_group_reject_percentage < 0 || out.pod_group_reject_percentage > 100) {
    errors.Add("podGroupRejectPercentage",
               fmt::format("Invalid value: {}: must be between 0 and 100",
                           out.pod_group_reject_percentage));
  }
  if (!errors.empty()) {
    *error = errors.Joined();
    return std::nullopt;
  }
  return out;
}

// Gang metrics of muster's own, beside kube-scheduler's, labelled with the profile:
//   muster_podgroups_waiting                 groups the scheduler tried and that are short of
//                                            quorum: PerPod, with pods held at Permit; Group,
//                                            whose last group cycle fell short (nothing held).
//                                            A group waiting for its pods to exist (Group mode,
//                                            held at PreEnqueue) has not been tried: not counted;
//   muster_podgroup_time_to_quorum_seconds   from a group's first pod held at Permit to quorum
//                                            (the injected clock's time);
//   muster_podgroup_quorum_failures_total    groups whose held pods were released before quorum,
//                                            by the point that released them (PostFilter: a
//                                            member fit nowhere; Unreserve: a member failed later
//                                            or the wait timed out).
// In Group mode nothing is held at Permit: a group "waits" from its first cycle that fell short
// of quorum until one places it (time to quorum 0 when the first does), and each cycle that
// falls short counts as a failure at point GroupCycle.
struct Coscheduling::GangMetrics {
  prometheus::Gauge* waiting;
  prometheus::Histogram* time_to_quorum;
  prometheus::Counter* failed_post_filter;
  prometheus::Counter* failed_unreserve;
  prometheus::Counter* failed_group_cycle;
};

Coscheduling::Coscheduling(CoschedulingArgs args, framework::Handle& handle)
    : args_(args), handle_(handle) {
  framework::Metrics* metrics = handle.metrics();
  if (metrics == nullptr) return;
  const std::string profile = handle.framework().scheduler_name();
  prometheus::Registry& r = metrics->registry();
  auto& failures = prometheus::BuildCounter()
                       .Name("muster_podgroup_quorum_failures_total")
                       .Help(
                           "PodGroups whose pods held at Permit were released before quorum, "
                           "by the extension point that released them.")
                       .Register(r);
  metrics_ = std::make_unique<GangMetrics>(GangMetrics{
      &prometheus::BuildGauge()
           .Name("muster_podgroups_waiting")
           .Help("PodGroups tried and short of minMember: in mode PerPod, with pods held at "
                 "Permit; in mode Group, whose last group cycle fell short (nothing is held). "
                 "Groups still waiting for their pods to exist are not counted.")
           .Register(r)
           .Add({{"profile", profile}}),
      &prometheus::BuildHistogram()
           .Name("muster_podgroup_time_to_quorum_seconds")
           .Help("Time from a PodGroup's first pod held at Permit to minMember pods assigned, "
                 "in seconds.")
           .Register(r)
           .Add({{"profile", profile}}, framework::SliBuckets()),
      &failures.Add({{"point", "PostFilter"}, {"profile", profile}}),
      &failures.Add({{"point", "Unreserve"}, {"profile", profile}}),
      &failures.Add({{"point", "GroupCycle"}, {"profile", profile}}),
  });
}

Coscheduling::~Coscheduling() = default;

void Coscheduling::StopWaiting(uint64_t group, WaitEnd end) {
  auto it = waiting_since_.find(group);
  if (it == waiting_since_.end()) return;
  const api::Time since = it->second;
  waiting_since_.erase(it);
  if (metrics_ == nullptr) return;
  metrics_->waiting->Set(static_cast<double>(waiting_since_.size()));
  switch (end) {
    case WaitEnd::kQuorum:
      metrics_->time_to_quorum->Observe(
          std::chrono::duration<double>(handle_.clock().Now() - since).count());
      break;
    case WaitEnd::kRejectedInPostFilter:
      metrics_->failed_post_filter->Increment();
      break;
    case WaitEnd::kRejectedInUnreserve:
      metrics_->failed_unreserve->Increment();
      break;
    case WaitEnd::kRejectedInGroupCycle:
      break;  // counted for every failed cycle, by GroupCycleDone
  }
}

std::unique_ptr<framework::Plugin> Coscheduling::New(const framework::PluginArgs& args,
                                                     framework::Handle& handle,
                                                     std::string* error) {
  std::optional<CoschedulingArgs> decoded = DecodeArgs(args, error);
  if (!decoded) return nullptr;
  return std::make_unique<Coscheduling>(*decoded, handle);
}

const api::PodGroup* Coscheduling::PodGroupOf(const framework::PodInfo& pod) const {
  const api::Symbol group = GroupName(pod);
  if (group.empty()) return nullptr;
  return handle_.lister().Get<api::PodGroup>(pod.pod.metadata.namespace_, group);
}

std::vector<const api::Pod*> Coscheduling::GroupPods(api::Symbol ns, api::Symbol group) const {
  std::vector<const api::Pod*> pods;
  for (api::Symbol label : {kLabel, kLegacyLabel}) {
    for (const api::Pod* p : handle_.lister().PodsWithLabel(ns, label, group)) {
      if (p->IsTerminal() || p->metadata.deletion_timestamp) continue;
      if (label == kLegacyLabel && p->metadata.labels.Has(kLabel)) continue;  // counted already
      pods.push_back(p);
    }
  }
  return pods;
}

int Coscheduling::CountAssigned(api::Symbol ns, api::Symbol group) {
  auto reserved = reserved_.find(api::PairId(ns, group));
  int count = 0;
  for (const api::Pod* p : GroupPods(ns, group)) {
    if (p->spec.node_name.empty()) continue;
    ++count;
    if (reserved != reserved_.end()) reserved->second.erase(p->metadata.name);  // counted as bound
  }
  if (reserved != reserved_.end()) count += static_cast<int>(reserved->second.size());
  return count;
}

Status Coscheduling::Reserve(framework::CycleState&, const framework::PodInfo& pod_info,
                             api::Symbol) {
  const api::Pod& pod = pod_info.pod;
  const api::Symbol group = GroupName(pod_info);
  if (!group.empty()) {
    reserved_[api::PairId(pod.metadata.namespace_, group)].insert(pod.metadata.name);
  }
  return Status::OK();
}

std::optional<Coscheduling::SortTime> Coscheduling::GroupTime(const framework::PodInfo& pod) const {
  const api::Symbol name = GroupName(pod);
  if (name.empty()) return std::nullopt;
  // A group that failed sorts by its last failure, behind the groups that have not failed
  // since (upstream's fix of head-of-line blocking, scheduler-plugins afaa22f2).
  if (!last_failed_.empty()) {
    auto it = last_failed_.find(api::PairId(pod.pod.metadata.namespace_, name));
    if (it != last_failed_.end()) return it->second;
  }
  const api::PodGroup* group = PodGroupOf(pod);
  if (group == nullptr || !group->metadata.creation_timestamp) return std::nullopt;
  return SortTime{*group->metadata.creation_timestamp, 0};
}

void Coscheduling::MarkFailed(api::Symbol ns, api::Symbol group) {
  // On a virtual clock a failure can happen at the very instant groups were created: the
  // sequence number puts it after them, and after earlier failures, as real time would.
  last_failed_[api::PairId(ns, group)] = SortTime{handle_.clock().Now(), ++failures_};
  Reorder(ns, group);
}

void Coscheduling::ClearFailed(api::Symbol ns, api::Symbol group) {
  if (last_failed_.erase(api::PairId(ns, group)) > 0) Reorder(ns, group);
}

void Coscheduling::Reorder(api::Symbol ns, api::Symbol group) {
  std::vector<std::string> pending;
  for (const api::Pod* p : GroupPods(ns, group)) {
    if (p->spec.node_name.empty()) pending.push_back(p->metadata.Key());
  }
  if (!pending.empty()) handle_.QueueOrderChanged(pending);
}

bool Coscheduling::Less(const framework::QueuedPodInfo& a,
                        const framework::QueuedPodInfo& b) const {
  return Compare(a, b) < 0;
}

int Coscheduling::Compare(const framework::QueuedPodInfo& a,
                          const framework::QueuedPodInfo& b) const {
  const int32_t pa = a.info->priority, pb = b.info->priority;
  if (const int c = framework::ThreeWay(pb, pa); c != 0) return c;
  // Siblings (one namespace, one group) have the same group time: looked up once, as heap
  // operations compare siblings all the time.
  const api::Symbol group = GroupName(*a.info);
  const bool siblings = !group.empty() && group == GroupName(*b.info) &&
                        a.pod().metadata.namespace_ == b.pod().metadata.namespace_;
  const std::optional<SortTime> ga = GroupTime(*a.info);
  const std::optional<SortTime> gb = siblings ? ga : GroupTime(*b.info);
  // A pod outside any (existing) group sorts by its own first attempt.
  const SortTime ta = ga.value_or(SortTime{a.initial_attempt_timestamp, 0});
  const SortTime tb = gb.value_or(SortTime{b.initial_attempt_timestamp, 0});
  if (const int c = framework::ThreeWay(ta.time, tb.time); c != 0) return c;
  if (const int c = framework::ThreeWay(ta.failure, tb.failure); c != 0) return c;
  // Upstream compares the "namespace/name" keys; within one namespace the names decide alone,
  // without building the keys.
  const api::ObjectMeta& ma = a.pod().metadata;
  const api::ObjectMeta& mb = b.pod().metadata;
  if (ma.namespace_ == mb.namespace_) return ma.name.compare(mb.name);
  return ma.Key().compare(mb.Key());
}

bool Coscheduling::Before(const std::unordered_map<uint64_t, api::Time>& until,
                          uint64_t group) const {
  auto it = until.find(group);
  return it != until.end() && handle_.clock().Now() < it->second;
}

std::string Coscheduling::MinResourcesGap(api::Symbol ns, api::Symbol name,
                                          const api::ResourceList& min_resources,
                                          int32_t min_member,
                                          std::span<framework::NodeInfo* const> nodes) const {
  if (min_resources.empty()) return "";
  // minResources (with pods = minMember) against the cluster's free capacity, counting this
  // group's own pods as free: summed over nodes until the request is covered.
  api::Resource need = api::Resource::FromList(min_resources);
  need.allowed_pod_number = min_member;
  for (const framework::NodeInfo* node : nodes) {
    if (node->node() == nullptr) continue;
    api::Resource free = node->allocatable();
    free.allowed_pod_number = node->allocatable().allowed_pod_number;
    const api::Resource& used = node->requested();
    free.milli_cpu -= used.milli_cpu;
    free.memory -= used.memory;
    free.ephemeral_storage -= used.ephemeral_storage;
    free.allowed_pod_number -= static_cast<int64_t>(node->pods().size());
    for (const auto& [resource, value] : used.scalar) free.AddScalar(resource, -value);
    for (const framework::PodInfoPtr& p : node->pods()) {
      if (p->pod.metadata.namespace_ == ns && GroupName(*p) == name) {
        free.milli_cpu += p->requests.milli_cpu;
        free.memory += p->requests.memory;
        free.ephemeral_storage += p->requests.ephemeral_storage;
        free.allowed_pod_number += 1;
        for (const auto& [resource, value] : p->requests.scalar) free.AddScalar(resource, value);
      }
    }
    need.milli_cpu -= std::max<int64_t>(free.milli_cpu, 0);
    need.memory -= std::max<int64_t>(free.memory, 0);
    need.ephemeral_storage -= std::max<int64_t>(free.ephemeral_storage, 0);
    need.allowed_pod_number -= std::max<int64_t>(free.allowed_pod_number, 0);
    for (auto& [resource, value] : need.scalar)
      value -= std::max<int64_t>(free.Scalar(resource), 0);
  }
  std::vector<std::string> gap;
  if (need.milli_cpu > 0) {
    gap.push_back(fmt::format(
        "cpu:{}",
        api::Quantity::FromMilli(need.milli_cpu, api::QuantityFormat::kDecimalSI).String()));
  }
  if (need.memory > 0) {
    gap.push_back(fmt::format(
        "memory:{}",
        api::Quantity::FromValue(need.memory, api::QuantityFormat::kBinarySI).String()));
  }
  if (need.ephemeral_storage > 0) {
    gap.push_back(fmt::format(
        "ephemeral-storage:{}",
        api::Quantity::FromValue(need.ephemeral_storage, api::QuantityFormat::kBinarySI).String()));
  }
  if (need.allowed_pod_number > 0) gap.push_back(fmt::format("pods:{}", need.allowed_pod_number));
  for (const auto& [resource, value] : need.scalar) {
    if (value > 0) gap.push_back(fmt::format("{}:{}", resource.str(), value));
  }
  return fmt::format("{}", fmt::join(gap, " "));
}

Status Coscheduling::PreFilter(framework::CycleState&, const framework::PodInfo& pod_info,
                               std::span<framework::NodeInfo* const> nodes,
                               framework::PreFilterResult*) {
  // In Group mode the group cycle made these checks, for the group (PreFilterGroup).
  if (args_.mode == Mode::kGroup) return Status::OK();
  const api::Pod& pod = pod_info.pod;
  const api::PodGroup* group = PodGroupOf(pod_info);
  // Not in a group, or its PodGroup does not exist (Permit turns the latter away).
  if (group == nullptr) return Status::OK();
  const api::Symbol name = GroupName(pod_info);
  const uint64_t id = api::PairId(pod.metadata.namespace_, name);
  // Failures here are UnschedulableAndUnresolvable: preemption cannot form a group.
  if (Before(backed_off_, id)) {
    // The backoff is a time, not an event to wait for: the pod is retried when it ends.
    handle_.RetryAt(pod.metadata.Key(), backed_off_[id], backed_off_version_[id]);
    return Status::Unresolvable(fmt::format("podGroup {} failed recently", group->metadata.Key()));
  }
  const std::vector<const api::Pod*> members = GroupPods(pod.metadata.namespace_, name);
  const int32_t min_member = group->spec.min_member;
  if (static_cast<int32_t>(members.size()) < min_member) {
    return Status::Unresolvable(fmt::format(
        "pre-filter pod {} cannot find enough sibling pods, current pods number: {}, minMember of "
        "group: {}",
        pod.metadata.name, members.size(), min_member));
  }
  const auto ungated =
      std::count_if(members.begin(), members.end(), [](const api::Pod* p) { return !Gated(*p); });
  if (ungated < min_member) {
    return Status::Unresolvable(fmt::format(
        "pre-filter pod {} cannot find enough sibling pods without scheduling gates, current "
        "ungated pods number: {}, minMember of group: {}",
        pod.metadata.name, ungated, min_member));
  }
  if (group->spec.min_resources.empty() || Before(permitted_, id)) return Status::OK();
  if (std::string gap =
          MinResourcesGap(group->metadata.namespace_, api::Symbol(group->metadata.name),
                          group->spec.min_resources, min_member, nodes);
      !gap.empty()) {
    return Status::Unresolvable(fmt::format("resource gap: map[{}]", gap));
  }
  permitted_[id] = handle_.clock().Now() + std::chrono::seconds(args_.permit_waiting_time_seconds);
  return Status::OK();
}

bool Coscheduling::HasMembers(const api::PodGroup& group) const {
  // One answer per group per state of the cluster: a pod's arrival asks it of the new pod
  // (PreEnqueue) and then of each held sibling (its hint, PreEnqueue again).
  const uint64_t id = api::PodGroupId(group);
  const uint64_t version = handle_.ClusterVersion();
  if (has_members_.id == id && has_members_.version == version &&
      has_members_.min_member == group.spec.min_member) {
    return has_members_.answer;
  }
  const bool answer = MembersReady(group);
  has_members_ = {id, version, group.spec.min_member, answer};
  return answer;
}

bool Coscheduling::MembersReady(const api::PodGroup& group) const {
  const std::vector<const api::Pod*> members =
      GroupPods(group.metadata.namespace_, api::Symbol(group.metadata.name));
  const int32_t min_member = group.spec.min_member;
  return static_cast<int32_t>(members.size()) >= min_member &&
         api::SchedulableMembers(members) >= min_member;
}

Status Coscheduling::PreEnqueue(const api::Pod& pod) {
  if (args_.mode != Mode::kGroup) return Status::OK();
  const api::Symbol name = api::PodGroupName(pod);
  if (name.empty()) return Status::OK();
  const auto* group = handle_.lister().Get<api::PodGroup>(pod.metadata.namespace_, name);
  // A missing PodGroup is Permit's to report, as upstream does.
  if (group == nullptr || HasMembers(*group)) return Status::OK();
  // Worded without the count, which changes with every arrival: the pod's condition is written
  // once per message. The PodGroup's own condition carries the count.
  return Status::Unresolvable(
      fmt::format("waiting for PodGroup {} to have minMember ({}) pods that can be scheduled",
                  group->metadata.Key(), group->spec.min_member));
}

framework::QueueingHint Coscheduling::OnPodAdded(const api::Pod& pod,
                                                 const framework::EventObjects& event) const {
  const api::Pod* added = event.new_pod;
  if (added == nullptr || added->metadata.namespace_ != pod.metadata.namespace_) {
    return framework::QueueingHint::kSkip;
  }
  const api::Symbol name = api::PodGroupName(pod);
  if (name.empty() || api::PodGroupName(*added) != name) return framework::QueueingHint::kSkip;
  const auto* group = handle_.lister().Get<api::PodGroup>(pod.metadata.namespace_, name);
  // Without its PodGroup the pod waits for the group, not for siblings.
  if (group == nullptr) return framework::QueueingHint::kSkip;
  return HasMembers(*group) ? framework::QueueingHint::kQueue : framework::QueueingHint::kSkip;
}

int Coscheduling::RejectWaitingSiblings(const api::Pod& pod, api::Symbol group,
                                        const char* message) {
  int rejected = 0;
  handle_.waiting_pods().Iterate([&](framework::WaitingPod& w) {
    if (w.pod().metadata.namespace_ == pod.metadata.namespace_ &&
        api::PodGroupName(w.pod()) == group) {
      w.Reject(kName, message);
      ++rejected;
    }
  });
  return rejected;
}

void Coscheduling::BackOff(const api::Pod& pod, const api::PodGroup& group, bool released) {
  const uint64_t id = api::PodGroupId(group);
  // A backoff under way is not restarted (upstream adds to its cache only when absent).
  if (Before(backed_off_, id)) return;
  if (args_.pod_group_backoff_seconds == 0 && !released) return;
  if (static_cast<int32_t>(
          GroupPods(pod.metadata.namespace_, api::Symbol(group.metadata.name)).size()) <
      group.spec.min_member) {
    return;
  }
  const api::Duration backoff = args_.pod_group_backoff_seconds > 0
                                    ? std::chrono::seconds(args_.pod_group_backoff_seconds)
                                    : handle_.pod_initial_backoff();
  backed_off_[id] = handle_.clock().Now() + backoff;
  backed_off_version_[id] = handle_.ClusterVersion();
}

Status Coscheduling::PostFilter(framework::CycleState&, const framework::PodInfo& pod_info,
                                const framework::NodeToStatus&, framework::PostFilterResult*) {
  // In Group mode nothing waits at Permit short of quorum: the group cycle decides for the
  // group as a whole.
  if (args_.mode == Mode::kGroup) return Status(framework::Code::kUnschedulable);
  const api::Pod& pod = pod_info.pod;
  const api::PodGroup* group = PodGroupOf(pod_info);
  if (group == nullptr) return Status::Unschedulable("can not find pod group");
  const api::Symbol name = GroupName(pod_info);
  const uint64_t id = api::PairId(pod.metadata.namespace_, name);
  const int32_t min_member = group->spec.min_member;
  const int assigned = CountAssigned(pod.metadata.namespace_, name);
  // Enough of the group is placed already: this pod failing does not break the gang.
  if (assigned >= min_member) return Status(framework::Code::kUnschedulable);
  // Nearly there: let the remaining pods try rather than give up the whole group.
  if (int64_t{min_member - assigned} * 100 <= args_.pod_group_reject_percentage * min_member) {
    return Status(framework::Code::kUnschedulable);
  }
  // The group cannot form now: release every sibling waiting at Permit.
  // Before the rejections: each rejected sibling's Unreserve would otherwise claim the failure.
  StopWaiting(id, WaitEnd::kRejectedInPostFilter);
  const int released = RejectWaitingSiblings(pod, name, "optimistic rejection in PostFilter");
  BackOff(pod, *group, released > 0);
  permitted_.erase(id);
  MarkFailed(pod.metadata.namespace_, name);
  return Status::Unschedulable(
      fmt::format("PodGroup {} gets rejected due to Pod {} is unschedulable even after PostFilter",
                  group->metadata.Key(), pod.metadata.name));
}

Status Coscheduling::Permit(framework::CycleState&, const framework::PodInfo& pod_info, api::Symbol,
                            api::Duration* timeout) {
  const api::Pod& pod = pod_info.pod;
  const api::Symbol group_name = GroupName(pod_info);
  if (group_name.empty()) return Status::OK();
  const api::PodGroup* group = PodGroupOf(pod_info);
  if (group == nullptr) return Status::Unschedulable("PodGroup not found");
  // The others assigned (this pod is counted when Reserve recorded it), plus this pod.
  int assigned = CountAssigned(pod.metadata.namespace_, group_name);
  if (auto it = reserved_.find(api::PairId(pod.metadata.namespace_, group_name));
      it != reserved_.end() && it->second.contains(pod.metadata.name)) {
    --assigned;
  }
  const uint64_t id = api::PairId(pod.metadata.namespace_, group_name);
  if (assigned + 1 >= group->spec.min_member) {
    handle_.waiting_pods().Iterate([&](framework::WaitingPod& w) {
      if (w.pod().metadata.namespace_ == pod.metadata.namespace_ &&
          api::PodGroupName(w.pod()) == group_name) {
        w.Allow(kName);
      }
    });
    StopWaiting(id, WaitEnd::kQuorum);
    ClearFailed(pod.metadata.namespace_, group_name);
    return Status::OK();
  }
  if (waiting_since_.emplace(id, handle_.clock().Now()).second && metrics_ != nullptr) {
    metrics_->waiting->Set(static_cast<double>(waiting_since_.size()));
  }
  *timeout = std::chrono::seconds(args_.permit_waiting_time_seconds);
  if (group->spec.schedule_timeout_seconds && *group->spec.schedule_timeout_seconds > 0) {
    *timeout = std::chrono::seconds(*group->spec.schedule_timeout_seconds);
  }
  // The group's first pod to wait brings its siblings forward, so that they are tried together
  // (upstream activates siblings for the first assigned pod only: scheduler-plugins#682).
  if (assigned > 0) return Status(framework::Code::kWait);
  std::vector<std::string> siblings;
  for (const api::Pod* p : GroupPods(pod.metadata.namespace_, group_name)) {
    if (p->metadata.name != pod.metadata.name && p->spec.node_name.empty()) {
      siblings.push_back(p->metadata.Key());
    }
  }
  if (!siblings.empty()) handle_.ActivatePods(siblings);
  return Status(framework::Code::kWait);
}

void Coscheduling::Unreserve(framework::CycleState&, const framework::PodInfo& pod_info,
                             api::Symbol) {
  const api::Pod& pod = pod_info.pod;
  const api::Symbol group_name = GroupName(pod_info);
  if (group_name.empty()) return;
  const uint64_t id = api::PairId(pod.metadata.namespace_, group_name);
  if (auto it = reserved_.find(id); it != reserved_.end()) it->second.erase(pod.metadata.name);
  const api::PodGroup* group = PodGroupOf(pod_info);
  if (group == nullptr) return;
  StopWaiting(id, WaitEnd::kRejectedInUnreserve);
  RejectWaitingSiblings(pod, group_name, "rejection in Unreserve");
  BackOff(pod, *group, /*released=*/true);  // this pod's own reservation, at least
  permitted_.erase(id);
  MarkFailed(pod.metadata.namespace_, group_name);
}

std::optional<framework::Gang> Coscheduling::GroupOf(const framework::PodInfo& pod) {
  if (args_.mode != Mode::kGroup) return std::nullopt;
  const api::PodGroup* group = PodGroupOf(pod);
  if (group == nullptr) return std::nullopt;
  framework::Gang gang;
  gang.namespace_ = group->metadata.namespace_;
  gang.name = api::Symbol(group->metadata.name);
  gang.min_count = group->spec.min_member;
  gang.min_resources = group->spec.min_resources;
  gang.members = GroupPods(gang.namespace_, gang.name);
  if (args_.pod_group_backoff_seconds > 0) {
    gang.backoff = std::chrono::seconds(args_.pod_group_backoff_seconds);
  }
  if (group->spec.schedule_timeout_seconds) {
    gang.timeout = std::chrono::seconds(*group->spec.schedule_timeout_seconds);
  }
  gang.object = framework::ReferenceTo(*group);
  gang.conditions = group->status.conditions;
  if (auto key = group->metadata.annotations.find(std::string(api::kTopologyKeyAnnotation));
      key != group->metadata.annotations.end()) {
    gang.topology_key = api::Symbol(key->second);
  }
  return gang;
}

Status Coscheduling::PreFilterGroup(const framework::Gang& gang,
                                    std::span<framework::NodeInfo* const> nodes) {
  const int32_t min_member = gang.min_count;
  const auto members = static_cast<int32_t>(gang.members.size());
  // Failures here are UnschedulableAndUnresolvable: preemption cannot form a group.
  if (members < min_member) {
    return Status::Unresolvable(
        fmt::format("{} member(s) exist (minMember {})", members, min_member));
  }
  if (Status s = helper::CheckSchedulableMembers(gang, "minMember"); !s.IsSuccess()) return s;
  if (std::string gap =
          MinResourcesGap(gang.namespace_, gang.name, gang.min_resources, min_member, nodes);
      !gap.empty()) {
    return Status::Unresolvable(
        fmt::format("minResources do not fit the cluster's free capacity: short of map[{}]", gap));
  }
  return Status::OK();
}

void Coscheduling::GroupCycleDone(const framework::Gang& gang, bool placed) {
  const api::Symbol ns = gang.namespace_;
  const api::Symbol name = gang.name;
  const uint64_t id = api::PairId(ns, name);
  const bool first = waiting_since_.emplace(id, handle_.clock().Now()).second;
  if (placed) {
    StopWaiting(id, WaitEnd::kQuorum);
    ClearFailed(ns, name);
    return;
  }
  MarkFailed(ns, name);
  if (metrics_ == nullptr) return;
  if (first) metrics_->waiting->Set(static_cast<double>(waiting_since_.size()));
  metrics_->failed_group_cycle->Increment();
}

std::vector<framework::ClusterEventWithHint> Coscheduling::EventsToRegister() const {
  return {
      {framework::ClusterEvent{framework::EventResource::kPod, framework::kAdd, "PodAdd"},
       [this](const api::Pod& pod, const framework::EventObjects& e, Status*) {
         return OnPodAdded(pod, e);
       }},
      {framework::ClusterEvent{framework::EventResource::Of<api::PodGroup>(),
                               framework::kAdd | framework::kUpdate, "PodGroupAddOrUpdate"},
       nullptr},
  };
}

}  // namespace muster::plugins::coscheduling
