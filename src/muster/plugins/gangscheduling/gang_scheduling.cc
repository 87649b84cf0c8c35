#include "muster/plugins/gangscheduling/gang_scheduling.h"

#include <algorithm>

#include <fmt/format.h>

#include "muster/api/gang.h"
#include "muster/framework/client.h"
#include "muster/plugins/helper/gang.h"

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
  return Members(pod.metadata.namespace_, gang);
}

std::vector<const api::Pod*> GangScheduling::Members(api::Symbol ns,
                                                     const api::GangRef& gang) const {
  std::vector<const api::Pod*> members = handle_.lister().PodsInGang(ns, gang);
  std::erase_if(members, [](const api::Pod* p) {
    return p->IsTerminal() || p->metadata.deletion_timestamp.has_value();
  });
  return members;
}

// ---- Composite pod groups ----

namespace {

// A hierarchy is at most 4 levels deep (WorkloadMaxTreeDepth); parents followed further loop.
constexpr int kMaxParents = 16;

api::GangRef GroupRef(api::Symbol name) {
  return api::GangRef{static_cast<uint8_t>(api::kClusterKindIndex<api::SchedulingPodGroup>), name};
}

}  // namespace

const api::CompositePodGroup* GangScheduling::RootOf(api::Symbol ns, api::Symbol parent,
                                                     std::string* why) const {
  const api::CompositePodGroup* at = nullptr;
  for (int i = 0; !parent.empty(); ++i) {
    at = handle_.lister().Get<api::CompositePodGroup>(ns, parent);
    if (at == nullptr) {
      *why = fmt::format(
          "failed to build hierarchy snapshot: composite pod group object not found in state "
          "for compositepodgroup/{}/{}",
          ns.str(), parent.str());
      return nullptr;
    }
    if (i == kMaxParents) {
      *why = fmt::format(
          "failed to build hierarchy snapshot: the parents of composite pod group {}/{} loop",
          ns.str(), parent.str());
      return nullptr;
    }
    parent = at->spec.parent;
  }
  return at;
}

const api::CompositePodGroup* GangScheduling::RootOfPod(const api::Pod& pod, bool* missing) const {
  if (pod.spec.scheduling_group.empty()) return nullptr;
  const auto* group = handle_.lister().Get<api::SchedulingPodGroup>(pod.metadata.namespace_,
                                                                    pod.spec.scheduling_group);
  if (group == nullptr || group->spec.parent.empty()) return nullptr;
  std::string why;
  const api::CompositePodGroup* root = RootOf(pod.metadata.namespace_, group->spec.parent, &why);
  if (missing != nullptr) *missing = root == nullptr;
  return root;
}

std::vector<GangScheduling::Child> GangScheduling::ChildrenOf(
    const api::CompositePodGroup& composite) const {
  const api::Symbol ns = composite.metadata.namespace_;
  const api::Symbol name(composite.metadata.name);
  std::vector<Child> children;
  for (const api::SchedulingPodGroup* g : handle_.lister().List<api::SchedulingPodGroup>(ns)) {
    if (g->spec.parent == name) children.push_back({g, nullptr});
  }
  for (const api::CompositePodGroup* c : handle_.lister().List<api::CompositePodGroup>(ns)) {
    if (c->spec.parent == name) children.push_back({nullptr, c});
  }
  auto meta = [](const Child& c) -> const api::ObjectMeta& {
    return c.group != nullptr ? c.group->metadata : c.composite->metadata;
  };
  std::sort(children.begin(), children.end(), [&](const Child& a, const Child& b) {
    const api::ObjectMeta& x = meta(a);
    const api::ObjectMeta& y = meta(b);
    if (x.creation_timestamp != y.creation_timestamp) {
      return x.creation_timestamp < y.creation_timestamp;
    }
    return x.name < y.name;
  });
  return children;
}

bool GangScheduling::TreeReady(const api::CompositePodGroup& composite, const api::Pod& pod) const {
  int32_t ready = 0;
  for (const Child& child : ChildrenOf(composite)) {
    if (child.composite != nullptr) {
      ready += TreeReady(*child.composite, pod) ? 1 : 0;
      continue;
    }
    const api::Symbol name(child.group->metadata.name);
    const std::vector<const api::Pod*> members =
        Members(composite.metadata.namespace_, GroupRef(name));
    auto count = static_cast<int64_t>(members.size());
    if (pod.spec.scheduling_group == name &&
        std::none_of(members.begin(), members.end(),
                     [&](const api::Pod* p) { return p->metadata.name == pod.metadata.name; })) {
      ++count;
    }
    ready += count >= child.group->spec.policy.min_count.value_or(1) ? 1 : 0;
  }
  return ready >= composite.spec.policy.min_count.value_or(1);
}

framework::Gang GangScheduling::LeafGang(const api::SchedulingPodGroup& group) const {
  framework::Gang gang;
  gang.namespace_ = group.metadata.namespace_;
  gang.name = api::Symbol(group.metadata.name);
  gang.min_count = group.spec.policy.min_count.value_or(1);
  gang.members = Members(gang.namespace_, GroupRef(gang.name));
  gang.quorum_name = "minCount";
  if (!group.spec.policy.topology_keys.empty()) {
    gang.topology_key = group.spec.policy.topology_keys[0];
  }
  gang.object = framework::ReferenceTo(group.metadata, "PodGroup", group.api_version);
  gang.conditions = group.status.conditions;
  gang.condition_type = group.ScheduledCondition();
  gang.condition_stays_true = true;
  return gang;
}

framework::Gang GangScheduling::TreeGang(const api::CompositePodGroup& composite) const {
  framework::Gang gang;
  gang.namespace_ = composite.metadata.namespace_;
  gang.name = api::Symbol(composite.metadata.name);
  gang.min_count = composite.spec.policy.min_count.value_or(1);
  gang.quorum_name = "minGroupCount";
  if (!composite.spec.policy.topology_keys.empty()) {
    gang.topology_key = composite.spec.policy.topology_keys[0];
  }
  // Events go to it; 1.37's scheduler writes no condition on a composite group.
  gang.object =
      framework::ReferenceTo(composite.metadata, "CompositePodGroup", composite.api_version);
  gang.condition_type = {};
  for (const Child& child : ChildrenOf(composite)) {
    gang.children.push_back(child.group != nullptr ? LeafGang(*child.group)
                                                   : TreeGang(*child.composite));
    const std::vector<const api::Pod*>& members = gang.children.back().members;
    gang.members.insert(gang.members.end(), members.begin(), members.end());
  }
  return gang;
}

Status GangScheduling::PreEnqueue(const api::Pod& pod) {
  if (!InGroup(pod)) return Status::OK();
  std::string why;
  const std::optional<Group> group = GroupOfPod(pod, &why);
  if (!group) return Status::Unresolvable(std::move(why));
  if (group->pod_group != nullptr && !group->pod_group->spec.parent.empty()) {
    // A member of a tree waits for the whole tree, from its root.
    const api::CompositePodGroup* root =
        RootOf(pod.metadata.namespace_, group->pod_group->spec.parent, &why);
    if (root == nullptr) return Status::Unresolvable(std::move(why));
    if (!TreeReady(*root, pod)) {
      return Status::Unresolvable(fmt::format(
          "waiting for composite pod group \"{}\" tree to meet quorum", root->metadata.name));
    }
    return Status::OK();
  }
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
  if (group && group->pod_group != nullptr && !group->pod_group->spec.parent.empty()) {
    const api::CompositePodGroup* root =
        RootOf(pod.metadata.namespace_, group->pod_group->spec.parent, &why);
    if (root == nullptr) return std::nullopt;
    return TreeGang(*root);
  }
  if (!group || !group->policy->gang()) return std::nullopt;
  if (group->pod_group != nullptr) return LeafGang(*group->pod_group);
  // A v1alpha1 Workload's gang, one per replica key; the Workload has no status: its events say
  // what happened.
  framework::Gang gang;
  gang.namespace_ = pod.metadata.namespace_;
  gang.name = pod_info.gang.name;
  gang.min_count = *group->policy->min_count;
  gang.members = Members(pod, pod_info.gang);
  gang.quorum_name = "minCount";
  if (!group->policy->topology_keys.empty()) gang.topology_key = group->policy->topology_keys[0];
  gang.object =
      framework::ReferenceTo(group->workload->metadata, "Workload", group->workload->api_version);
  gang.condition_type = {};
  return gang;
}

Status GangScheduling::PreFilterGroup(const framework::Gang& gang,
                                      std::span<framework::NodeInfo* const> /*nodes*/) {
  if (static_cast<int32_t>(gang.members.size()) < gang.min_count) {
    return Status::Unresolvable(
        "waiting for minCount pods from a gang to appear in scheduling queue");
  }
  return helper::CheckSchedulableMembers(gang, "minCount");
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
      // A composite group's spec cannot change: only its creation helps.
      {framework::ClusterEvent{framework::EventResource::Of<api::CompositePodGroup>(),
                               framework::kAdd, "CompositePodGroupAdd"},
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
  // A member of a tree is worth a retry once its tree can meet its quorum (the added pod may be
  // of another group of the tree).
  auto tree_ready = [&](const api::CompositePodGroup& root) {
    if (ready_memo_.added != added || ready_memo_.root != &root ||
        ready_memo_.added_key != added->metadata.name) {
      ready_memo_ = {added, added->metadata.name, &root, TreeReady(root, *added)};
    }
    return ready_memo_.ready ? QueueingHint::kQueue : QueueingHint::kSkip;
  };
  if (api::GangOf(*added) != gang) {
    const api::CompositePodGroup* root = RootOfPod(pod);
    if (root == nullptr || RootOfPod(*added) != root) return QueueingHint::kSkip;
    return tree_ready(*root);
  }
  if (const api::CompositePodGroup* root = RootOfPod(pod)) return tree_ready(*root);
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
  // A group or composite group added to the tree of the pod's group (or its missing parent).
  auto joins_tree = [&](api::Symbol parent) {
    bool missing = false;
    const api::CompositePodGroup* root = RootOfPod(pod, &missing);
    if (root == nullptr) return missing;  // a missing parent may be this one
    std::string why;
    return !parent.empty() && RootOf(pod.metadata.namespace_, parent, &why) == root;
  };
  if (const api::CompositePodGroup* composite = event.New<api::CompositePodGroup>()) {
    return joins_tree(api::Symbol(composite->metadata.name)) ? QueueingHint::kQueue
                                                             : QueueingHint::kSkip;
  }
  if (const api::SchedulingPodGroup* group = event.New<api::SchedulingPodGroup>()) {
    if (name != pod.spec.scheduling_group) {
      return event.Old<api::SchedulingPodGroup>() == nullptr && joins_tree(group->spec.parent)
                 ? QueueingHint::kQueue
                 : QueueingHint::kSkip;
    }
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
