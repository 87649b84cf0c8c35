#include "muster/plugins/gangscheduling/gang_scheduling.h"

#include <fmt/format.h>

#include <algorithm>

#include "muster/api/gang.h"
#include "muster/framework/client.h"

namespace muster::plugins::gangscheduling {

using framework::QueueingHint;
using framework::Status;

namespace {

// Whether the pod names a group of Kubernetes' gang API.
bool InGroup(const api::Pod& pod) {
  return !pod.spec.scheduling_group.empty() || !pod.spec.workload_ref.name.empty();
}

}  // namespace

std::unique_ptr<framework::Plugin> GangScheduling::New(const framework::PluginArgs& /*args*/,
                                                       framework::Handle& handle,
                                                       std::string* /*error*/) {
  return std::make_unique<GangScheduling>(handle);
}

bool GangScheduling::Handles(const api::GangRef& gang) const {
  return gang.Of<api::SchedulingPodGroup>() || gang.Of<api::Workload>();
}

std::optional<GangScheduling::Group> GangScheduling::GroupOfPod(const api::Pod& pod,
                                                                std::string* why) const {
  const api::Symbol ns = pod.metadata.namespace_;
  if (!pod.spec.scheduling_group.empty()) {
    const auto* group =
        handle_.lister().Get<api::SchedulingPodGroup>(ns, pod.spec.scheduling_group);
    if (group == nullptr) {
      *why = fmt::format("waiting for pod's pod group \"{}\" to appear in scheduling queue",
                         pod.spec.scheduling_group.str());
      return std::nullopt;
    }
    return Group{&group->spec.policy, group, nullptr};
  }
  const api::PodSpec::WorkloadReference& ref = pod.spec.workload_ref;
  if (ref.name.empty()) return std::nullopt;
  const auto* workload = handle_.lister().Get<api::Workload>(ns, ref.name);
  if (workload == nullptr) {
    *why = fmt::format("waiting for pod's workload \"{}\" to appear in scheduling queue",
                       ref.name.str());
    return std::nullopt;
  }
  if (!workload->DefinesGroups()) {
    *why = fmt::format(
        "workload \"{}\" is {}: its pod group templates make PodGroups, which pods name in "
        "spec.schedulingGroup, not the workload in spec.workloadRef",
        ref.name.str(), workload->api_version);
    return std::nullopt;
  }
  const api::PodGroupTemplate* group = workload->Group(ref.pod_group.str());
  if (group == nullptr) {
    *why = fmt::format("pod group \"{}\" doesn't exist for a workload \"{}\"", ref.pod_group.str(),
                       ref.name.str());
    return std::nullopt;
  }
  return Group{&group->policy, nullptr, workload};
}

std::vector<const api::Pod*> GangScheduling::Members(const api::Pod& pod,
                                                     const api::GangRef& gang) const {
  std::vector<const api::Pod*> members = handle_.lister().PodsInGang(pod.metadata.namespace_, gang);
  std::erase_if(members, [](const api::Pod* p) {
    return p->IsTerminal() || p->metadata.deletion_timestamp.has_value();
  });
  return members;
}

Status GangScheduling::PreEnqueue(const api::Pod& pod) {
  if (!InGroup(pod)) return Status::OK();
  std::string why;
  const std::optional<Group> group = GroupOfPod(pod, &why);
  if (!group) return Status::Unresolvable(std::move(why));
  if (!group->policy->gang()) return Status::OK();
  std::vector<const api::Pod*> members = Members(pod, api::GangOf(pod));
  // The pod itself counts, whether or not the lister holds it yet.
  const bool listed = std::any_of(members.begin(), members.end(), [&](const api::Pod* p) {
    return p->metadata.name == pod.metadata.name;
  });
  const auto count = static_cast<int64_t>(members.size()) + (listed ? 0 : 1);
  if (count < *group->policy->min_count) {
    return Status::Unresolvable(
        "waiting for minCount pods from a gang to appear in scheduling queue");
  }
  return Status::OK();
}

std::optional<framework::Gang> GangScheduling::GroupOf(const framework::PodInfo& pod_info) {
  const api::Pod& pod = pod_info.pod;
  std::string why;
  const std::optional<Group> group = GroupOfPod(pod, &why);
  if (!group || !group->policy->gang()) return std::nullopt;
  framework::Gang gang;
  gang.namespace_ = pod.metadata.namespace_;
  gang.name = pod_info.gang.name;
  gang.min_count = *group->policy->min_count;
  gang.members = Members(pod, pod_info.gang);
  gang.quorum_name = "minCount";
  if (!group->policy->topology_keys.empty()) gang.topology_key = group->policy->topology_keys[0];
  if (const api::SchedulingPodGroup* pg = group->pod_group) {
    gang.object = framework::ReferenceTo(pg->metadata, "PodGroup", pg->api_version);
    gang.conditions = pg->status.conditions;
    gang.condition_type = pg->ScheduledCondition();
    gang.condition_stays_true = true;
  } else {
    // A v1alpha1 Workload has no status: its events say what happened.
    gang.object =
        framework::ReferenceTo(group->workload->metadata, "Workload", group->workload->api_version);
    gang.condition_type = {};
  }
  return gang;
}

Status GangScheduling::PreFilterGroup(const framework::Gang& gang,
                                      std::span<framework::NodeInfo* const> /*nodes*/) {
  const auto members = static_cast<int32_t>(gang.members.size());
  if (members < gang.min_count) {
    return Status::Unresolvable(
        "waiting for minCount pods from a gang to appear in scheduling queue");
  }
  const int32_t gated = members - api::SchedulableMembers(gang.members);
  if (members - gated < gang.min_count) {
    return Status::Unresolvable(
        fmt::format("{}/{} members have scheduling gates; {} can be scheduled (minCount {})", gated,
                    members, members - gated, gang.min_count));
  }
  return Status::OK();
}

std::vector<framework::ClusterEventWithHint> GangScheduling::EventsToRegister() const {
  auto pod_added = [this](const api::Pod& pod, const framework::EventObjects& e, Status*) {
    return OnPodAdded(pod, e);
  };
  auto group_changed = [this](const api::Pod& pod, const framework::EventObjects& e, Status*) {
    return OnGroupChanged(pod, e);
  };
  return {
      {framework::ClusterEvent{framework::EventResource::kPod, framework::kAdd, "PodAdd"},
       pod_added},
      {framework::ClusterEvent{framework::EventResource::Of<api::SchedulingPodGroup>(),
                               framework::kAdd | framework::kUpdate, "PodGroupAddOrUpdate"},
       group_changed},
      {framework::ClusterEvent{framework::EventResource::Of<api::Workload>(),
                               framework::kAdd | framework::kUpdate, "WorkloadAddOrUpdate"},
       group_changed},
  };
}

QueueingHint GangScheduling::OnPodAdded(const api::Pod& pod,
                                        const framework::EventObjects& event) const {
  const api::Pod* added = event.new_pod;
  if (added == nullptr || added->metadata.namespace_ != pod.metadata.namespace_ || !InGroup(pod)) {
    return QueueingHint::kSkip;
  }
  const api::GangRef gang = api::GangOf(pod);
  if (api::GangOf(*added) != gang) return QueueingHint::kSkip;
  // A member held at PreEnqueue is worth a retry only once its gang has minCount pods: asking
  // every held member at every arrival would cost the square of the gang.
  std::string why;
  const std::optional<Group> group = GroupOfPod(pod, &why);
  if (!group || !group->policy->gang()) return QueueingHint::kQueue;
  return static_cast<int64_t>(Members(pod, gang).size()) >= *group->policy->min_count
             ? QueueingHint::kQueue
             : QueueingHint::kSkip;
}

QueueingHint GangScheduling::OnGroupChanged(const api::Pod& pod,
                                            const framework::EventObjects& event) const {
  const api::ObjectMeta& meta = api::MetaOf(event.new_object);
  if (meta.namespace_ != pod.metadata.namespace_) return QueueingHint::kSkip;
  const api::Symbol name(meta.name);
  if (const api::SchedulingPodGroup* group = event.New<api::SchedulingPodGroup>()) {
    if (name != pod.spec.scheduling_group) return QueueingHint::kSkip;
    // An update helps only when it lowers minCount (mutable from 1.37 on), as upstream's hint;
    // the scheduler's own condition writes do not.
    const api::SchedulingPodGroup* old = event.Old<api::SchedulingPodGroup>();
    if (old == nullptr) return QueueingHint::kQueue;
    const api::PodGroupPolicy& before = old->spec.policy;
    const api::PodGroupPolicy& after = group->spec.policy;
    const bool lowered = after.min_count.value_or(1) < before.min_count.value_or(1) ||
                         (before.gang() && !after.gang());
    return lowered ? QueueingHint::kQueue : QueueingHint::kSkip;
  }
  if (name != pod.spec.workload_ref.name) return QueueingHint::kSkip;
  // A v1alpha1 Workload's pod groups are immutable: only its creation helps.
  return event.Old<api::Workload>() == nullptr ? QueueingHint::kQueue : QueueingHint::kSkip;
}

}  // namespace muster::plugins::gangscheduling
