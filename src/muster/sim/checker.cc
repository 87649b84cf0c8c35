#include "muster/sim/checker.h"

#include <algorithm>

#include <fmt/format.h>

#include "muster/api/dra.h"
#include "muster/api/gang.h"
#include "muster/api/pod_claims.h"
#include "muster/api/pod_resources.h"
#include "muster/api/time.h"
#include "muster/framework/profile.h"
#include "muster/scheduler/waiting_pods.h"

namespace muster::sim {
namespace {

using scheduler::SchedulingQueue;

std::string GroupKey(api::Symbol ns, api::Symbol name) {
  return fmt::format("{}/{}", ns.str(), name.str());
}

// The cluster's objects by namespace and name, for api::EvictionUnit.
struct GroupObjects {
  const cluster::MemoryCluster& cluster;
  template <typename T>
  const T* Get(api::Symbol ns, api::Symbol name) const {
    return cluster.Get<T>(GroupKey(ns, name));
  }
};

bool Bound(const api::Pod& pod) { return !pod.spec.node_name.empty(); }

// Whether the scheduler preempted the pod (the DisruptionTarget condition it is deleted with).
bool PreemptedByScheduler(const api::Pod& pod) {
  const api::Condition* c = api::FindCondition(pod.status.conditions, "DisruptionTarget");
  return c != nullptr && c->status.str() == "True" && c->reason == "PreemptionByScheduler";
}

// Whether PreFilter's result leaves `node` among the nodes to filter.
bool Admits(const framework::PreFilterResult& result, api::Symbol node) {
  return result.AllNodes() || std::find(result.node_names->begin(), result.node_names->end(),
                                        node) != result.node_names->end();
}

// Where the scheduler keeps a pending pod, for messages.
std::string_view PlaceName(SchedulingQueue::Where where) {
  switch (where) {
    case SchedulingQueue::Where::kActive:
      return "activeQ";
    case SchedulingQueue::Where::kBackoff:
      return "backoffQ";
    case SchedulingQueue::Where::kUnschedulable:
      return "the unschedulable pods";
    case SchedulingQueue::Where::kInFlight:
      return "flight";
  }
  return "?";
}

}  // namespace

std::string Violation::String() const {
  return fmt::format("at {}, after {}: {}", api::FormatDuration(at), event, message);
}

Checker::Checker(const cluster::MemoryCluster& cluster, scheduler::Scheduler& scheduler,
                 framework::Clock& clock, api::Time epoch,
                 const api::SchedulerConfiguration* config, const framework::Registry& registry,
                 const api::Plugins& default_plugins)
    : cluster_(cluster), scheduler_(scheduler), clock_(clock), epoch_(epoch) {
  std::vector<std::string> errors;
  profiles_ = framework::CreateProfiles(config, registry, default_plugins, *this, &errors);
}

Checker::~Checker() = default;

void Checker::Event(std::string what) { last_event_ = std::move(what); }

void Checker::Fail(std::string message) {
  if (violation_) return;
  violation_ = Violation{clock_.Now() - epoch_, last_event_, std::move(message)};
}

// ---- the cluster's events ----

void Checker::Tally(const api::Pod& pod, int sign) {
  if (!Bound(pod) || pod.IsTerminal()) return;
  api::Resource& r = bound_requests_[pod.spec.node_name.string()];
  if (sign > 0) {
    r.Add(api::PodFitRequests(pod));
  } else {
    r.Sub(api::PodFitRequests(pod));
  }
}

void Checker::Added(const api::PodPtr& pod) {
  Event(fmt::format("create pod {}", pod->metadata.Key()));
  Tally(*pod, +1);
  if (Bound(*pod) && !pod->IsTerminal()) cache_.AddPod(*pod);
}

void Checker::Updated(const api::PodPtr& old_ptr, const api::PodPtr& new_ptr) {
  const api::Pod& old_pod = *old_ptr;
  const api::Pod& new_pod = *new_ptr;
  const std::string key = new_pod.metadata.Key();
  if (Bound(old_pod) && new_pod.spec.node_name != old_pod.spec.node_name) {
    Event(fmt::format("bind {} to {}", key, new_pod.spec.node_name.str()));
    Fail(fmt::format("pod {} was bound to {} and is now bound to {}", key,
                     old_pod.spec.node_name.str(), new_pod.spec.node_name.str()));
  } else if (!Bound(old_pod) && Bound(new_pod)) {
    Event(fmt::format("bind {} to {}", key, new_pod.spec.node_name.str()));
    // The checks see the cluster as it was just before: the pod is not in the cache yet.
    CheckBinding(old_pod, new_pod.spec.node_name);
  } else {
    Event(fmt::format("update pod {}", key));
  }
  Tally(old_pod, -1);
  Tally(new_pod, +1);
  const bool was_cached = Bound(old_pod) && !old_pod.IsTerminal();
  const bool cached = Bound(new_pod) && !new_pod.IsTerminal();
  if (was_cached && cached) {
    cache_.UpdatePod(old_pod, new_pod);
  } else if (was_cached) {
    cache_.RemovePod(old_pod);
  } else if (cached) {
    cache_.AddPod(new_pod);
  }
}

void Checker::Deleted(const api::PodPtr& pod) {
  Event(fmt::format("delete pod {}", pod->metadata.Key()));
  Tally(*pod, -1);
  if (Bound(*pod) && !pod->IsTerminal()) cache_.RemovePod(*pod);
  if (Bound(*pod) && PreemptedByScheduler(*pod)) {
    const api::GangRef unit = EvictionUnit(*pod);
    if (!unit.empty()) {
      // The rest of what it is evicted with (its gang, or a composite group's tree) goes with
      // it, at this instant.
      const std::string key = GroupKey(pod->metadata.namespace_, unit.name);
      for (const auto& [k, other] : cluster_.pods()) {
        // (A member on a node that is gone is no longer the scheduler's to see.)
        if (other->metadata.namespace_ == pod->metadata.namespace_ && Bound(*other) &&
            !other->IsTerminal() && !other->metadata.deletion_timestamp &&
            k != pod->metadata.Key() && allocatable_.contains(other->spec.node_name.str()) &&
            !api::GangOf(*other).empty() && EvictionUnit(*other) == unit) {
          must_go_with_gang_.emplace(k, key);
        }
      }
    }
  }
}

const api::CompositePodGroup* Checker::RootOf(const std::string& group_key) const {
  const auto* group = cluster_.Get<api::SchedulingPodGroup>(group_key);
  if (group == nullptr) return nullptr;
  const api::Symbol ns = group->metadata.namespace_;
  const api::CompositePodGroup* root = nullptr;
  api::Symbol parent = group->spec.parent;
  for (int i = 0; !parent.empty(); ++i) {
    // A missing parent or a loop makes no tree to hold to a quorum (the scheduler holds its
    // members back).
    if (i == api::kMaxGroupParents) return nullptr;
    root = cluster_.Get<api::CompositePodGroup>(GroupKey(ns, parent));
    if (root == nullptr) return nullptr;
    parent = root->spec.parent;
  }
  return root;
}

bool Checker::TreeWhole(const api::CompositePodGroup& composite, int depth, int32_t* whole,
                        int32_t* children) const {
  const api::Symbol ns = composite.metadata.namespace_;
  const api::Symbol name(composite.metadata.name);
  *whole = 0;
  *children = 0;
  for (const auto& [key, group] : cluster_.Objects<api::SchedulingPodGroup>()) {
    if (group->metadata.namespace_ != ns || group->spec.parent != name) continue;
    ++*children;
    // (A basic group is whole with one member bound.)
    const auto bound = group_bound_.find(key);
    const auto min_count = min_count_.find(key);
    if (bound != group_bound_.end() && bound->second > 0 &&
        (min_count == min_count_.end() || bound->second >= min_count->second)) {
      ++*whole;
    }
  }
  for (const auto& [key, child] : cluster_.Objects<api::CompositePodGroup>()) {
    if (child->metadata.namespace_ != ns || child->spec.parent != name) continue;
    ++*children;
    int32_t w = 0;
    int32_t c = 0;
    if (depth < api::kMaxGroupParents && TreeWhole(*child, depth + 1, &w, &c)) ++*whole;
  }
  return *whole >= composite.spec.policy.min_count.value_or(1);
}

api::GangRef Checker::EvictionUnit(const api::Pod& pod) const {
  return api::EvictionUnit(pod, GroupObjects{cluster_});
}

void Checker::Added(const api::Shared<api::Node>& node_ptr) {
  const api::Node& node = *node_ptr;
  Event(fmt::format("create node {}", node.metadata.name));
  allocatable_[node.metadata.name] = api::Resource::FromList(node.status.allocatable);
  cache_.AddNode(node);
}

void Checker::Updated(const api::Shared<api::Node>&, const api::Shared<api::Node>& node_ptr) {
  const api::Node& node = *node_ptr;
  Event(fmt::format("update node {}", node.metadata.name));
  allocatable_[node.metadata.name] = api::Resource::FromList(node.status.allocatable);
  cache_.UpdateNode(node);
}

void Checker::Deleted(const api::Shared<api::Node>& node_ptr) {
  const api::Node& node = *node_ptr;
  Event(fmt::format("delete node {}", node.metadata.name));
  allocatable_.erase(node.metadata.name);
  cache_.RemoveNode(node);
}

void Checker::GangDefined(api::Symbol ns, const api::GangDefinition& gang) {
  std::string key = GroupKey(ns, gang.name);
  Event(fmt::format("define gang {} (minCount {})", key, gang.min_count));
  min_count_[std::move(key)] = gang.min_count;
}

void Checker::GangRemoved(api::Symbol ns, api::Symbol name) {
  const std::string key = GroupKey(ns, name);
  Event(fmt::format("remove gang {}", key));
  min_count_.erase(key);
  // The gang, and its instances by replica key ("<key>/<replica>").
  auto instance = [&](const std::string& k) { return k == key || k.starts_with(key + "/"); };
  std::erase_if(group_bound_, [&](const auto& e) { return instance(e.first); });
  std::erase_if(group_min_count_, [&](const auto& e) { return instance(e.first); });
  std::erase_if(groups_first_bound_now_, instance);
}

void Checker::Attempted(std::string_view pod_key) {
  Event(fmt::format("the scheduling cycle of {}", pod_key));
}

// ---- at each binding ----

void Checker::CheckBinding(const api::Pod& pod, api::Symbol node) {
  CheckRoom(pod, node);
  CheckFilters(pod, node);
  CheckClaims(pod, node);
  // Gangs are a promise of a profile with a group plugin for their API only.
  const framework::Framework* fwk = scheduler_.ProfileFor(pod);
  if (fwk == nullptr || !fwk->HandlesGang(api::GangOf(pod))) return;
  // A Workload's gang with a replica key is an instance of the pod group that defines it.
  const api::GangRef gang = api::GangOf(pod);
  const std::string group = GroupKey(pod.metadata.namespace_, gang.name);
  auto definition =
      min_count_.find(GroupKey(pod.metadata.namespace_, api::GangDefinitionName(gang)));
  if (definition != min_count_.end()) {
    group_min_count_[group] = definition->second;
  } else if (RootOf(group) != nullptr) {
    group_min_count_[group] = 1;  // a basic group of a composite group's tree
  } else {
    return;
  }
  if (group_bound_[group]++ == 0) groups_first_bound_now_.insert(group);
}

void Checker::CheckRoom(const api::Pod& pod, api::Symbol node_name) {
  auto node = allocatable_.find(node_name.string());
  if (node == allocatable_.end()) {
    Fail(fmt::format("pod {} is bound to node {}, which does not exist", pod.metadata.Key(),
                     node_name.str()));
    return;
  }
  const api::Resource& allocatable = node->second;
  const api::Resource request = api::PodFitRequests(pod);
  api::Resource after = bound_requests_[node_name.string()];
  after.Add(request);
  // As the Fit filter: the pod count always, every other resource when the pod requests it.
  auto over = [&](std::string_view name, int64_t requested, int64_t used, int64_t limit) {
    if (requested > 0 && used > limit) {
      Fail(fmt::format("binding pod {} to node {} puts {} requests at {}, over allocatable {}",
                       pod.metadata.Key(), node_name.str(), name, used, limit));
    }
  };
  over("pods", 1, after.allowed_pod_number, allocatable.allowed_pod_number);
  over("cpu (millicores)", request.milli_cpu, after.milli_cpu, allocatable.milli_cpu);
  over("memory", request.memory, after.memory, allocatable.memory);
  over("ephemeral-storage", request.ephemeral_storage, after.ephemeral_storage,
       allocatable.ephemeral_storage);
  // An extended resource the node has none of is served by devices, through the claim the
  // scheduler made for the pod (checked with its other claims).
  const api::PodExtendedResourceClaimStatus* devices = pod.status.extended_resource_claim.get();
  auto served_by_devices = [&](api::Symbol name) {
    return devices != nullptr && allocatable.Scalar(name) <= 0 &&
           std::any_of(devices->request_mappings.begin(), devices->request_mappings.end(),
                       [&](const auto& m) { return m.resource_name == name; });
  };
  for (const auto& [name, value] : request.scalar) {
    if (served_by_devices(name)) continue;
    over(name.str(), value, after.Scalar(name), allocatable.Scalar(name));
  }
}

void Checker::CheckClaims(const api::Pod& pod, api::Symbol node_name) {
  // Promises of VolumeBinding's and DynamicResources' PreBind only.
  const framework::Framework* fwk = Profile(pod);
  if (fwk == nullptr) return;
  const auto& pre_bind = fwk->plugins().pre_bind;
  auto has = [&](std::string_view name) {
    return std::any_of(pre_bind.begin(), pre_bind.end(),
                       [&](const framework::PreBindPlugin* p) { return p->Name() == name; });
  };
  if (has("DynamicResources")) CheckResourceClaims(pod, node_name);
  if (!has("VolumeBinding")) return;
  for (const api::Volume& v : pod.spec.volumes) {
    std::string name;
    if (v.claim_name) {
      name = v.claim_name->string();
    } else if (v.ephemeral) {
      name = pod.metadata.name + "-" + v.name;
    } else {
      continue;
    }
    const std::string key = pod.metadata.namespace_.string() + "/" + name;
    const auto* claim = cluster_.Get<api::PersistentVolumeClaim>(key);
    if (claim == nullptr || !claim->FullyBound()) {
      Fail(fmt::format("pod {} was bound to node {} while its claim {} was {}", pod.metadata.Key(),
                       node_name.str(), key, claim == nullptr ? "missing" : "not bound"));
      return;
    }
  }
}

void Checker::CheckResourceClaims(const api::Pod& pod, api::Symbol node_name) {
  const api::Node* node = cluster_.Get<api::Node>(node_name.string());
  for (const auto& [entry, name] : api::PodClaimEntries(pod)) {
    if (!name) {
      Fail(fmt::format("pod {} was bound to node {} before its claim {} was made",
                       pod.metadata.Key(), node_name.str(), entry.str()));
      continue;
    }
    if (name->empty()) continue;  // none needed
    const std::string key = pod.metadata.namespace_.string() + "/" + name->string();
    const api::ResourceClaim* claim = cluster_.Get<api::ResourceClaim>(key);
    if (claim == nullptr || !claim->Allocated() || !claim->ReservedFor(pod.metadata.uid)) {
      Fail(fmt::format("pod {} was bound to node {} while its resource claim {} was {}",
                       pod.metadata.Key(), node_name.str(), key,
                       claim == nullptr      ? "missing"
                       : !claim->Allocated() ? "not allocated"
                                             : "not reserved for it"));
      return;
    }
    const std::optional<api::NodeSelector>& on = claim->status.allocation->node_selector;
    if (on && node != nullptr && !on->Matches(node->metadata.labels, node_name)) {
      Fail(
          fmt::format("pod {} was bound to node {}, which the devices of its resource claim {} "
                      "do not reach",
                      pod.metadata.Key(), node_name.str(), key));
      return;
    }
  }
  // No device in two claims (admin access aside).
  std::map<std::string, std::string> holder;
  for (const auto& [key, claim] : cluster_.Objects<api::ResourceClaim>()) {
    if (!claim->status.allocation) continue;
    for (const api::DeviceRequestAllocationResult& d : claim->status.allocation->devices) {
      if (d.admin_access) continue;
      const std::string device = d.DeviceName();
      auto [it, fresh] = holder.emplace(device, key);
      if (!fresh && it->second != key) {
        Fail(fmt::format("device {} is allocated to both resource claims {} and {}", device,
                         it->second, key));
        return;
      }
    }
  }
}

const framework::Framework* Checker::Profile(const api::Pod& pod) const {
  for (const auto& p : profiles_) {
    if (p->scheduler_name() == pod.spec.scheduler_name.str()) return p.get();
  }
  return nullptr;
}

void Checker::CheckFilters(const api::Pod& pod, api::Symbol node_name) {
  const framework::Framework* fwk = Profile(pod);
  if (fwk == nullptr) return;  // another scheduler's pod
  cache_.UpdateSnapshot(snapshot_);
  const framework::NodeInfo* node = snapshot_.Get(node_name);
  if (node == nullptr) return;  // CheckRoom has said so
  const framework::PodInfoPtr info = framework::PodInfo::Make(pod);
  framework::CycleState state;
  framework::PreFilterResult result;
  std::string rejector;
  framework::Status s = fwk->RunPreFilterPlugins(state, *info, &result, &rejector);
  if (s.IsSuccess() && !Admits(result, node_name)) {
    s = framework::Status(framework::Code::kUnschedulableAndUnresolvable,
                          "node is not among PreFilter's result");
    rejector = "PreFilter";
  }
  if (s.IsSuccess()) {
    s = fwk->RunFilterPlugins(state, *info, *node);
    rejector = s.plugin();
  }
  if (!s.IsSuccess()) {
    Fail(fmt::format("pod {} was bound to node {}, which fails its filters: {}: {}",
                     pod.metadata.Key(), node_name.str(), rejector, s.Message()));
  }
}

// ---- after each turn ----

void Checker::AfterTurn() {
  if (!violation_) CheckNominations();
  if (!violation_) CheckPlaces();
}

void Checker::CheckPlaces() {
  const SchedulingQueue& queue = scheduler_.queue();
  const scheduler::Cache& cache = scheduler_.cache();
  size_t expected_in_cache = 0;
  size_t expected_in_queue = 0;
  for (const auto& [key, ptr] : cluster_.pods()) {
    const api::Pod& pod = *ptr;
    const std::optional<SchedulingQueue::Where> where = queue.Location(key);
    const framework::PodInfo* cached = cache.GetPod(api::PodName::Of(pod));
    const bool assumed = cached != nullptr && cache.IsAssumedPod(pod);
    const bool waiting = scheduler_.waiting_pods().Get(scheduler::PodUid(pod)) != nullptr;
    if (pod.IsTerminal()) {
      if (where || cached != nullptr || waiting) {
        return Fail(fmt::format("pod {} has finished ({}) but the scheduler still holds it", key,
                                api::PodPhaseName(pod.status.phase)));
      }
      continue;
    }
    if (Bound(pod)) {
      ++expected_in_cache;
      if (cached == nullptr) {
        return Fail(fmt::format("pod {} is bound to {} but not in the scheduler's cache", key,
                                pod.spec.node_name.str()));
      }
      if (assumed) {
        return Fail(fmt::format("pod {} is bound to {} and assumed again (a second binding)", key,
                                pod.spec.node_name.str()));
      }
      if (cached->pod.spec.node_name != pod.spec.node_name) {
        return Fail(fmt::format("pod {} is bound to {} but cached on {}", key,
                                pod.spec.node_name.str(), cached->pod.spec.node_name.str()));
      }
      if (where || waiting) {
        return Fail(fmt::format("pod {} is bound to {} and still {}", key, pod.spec.node_name.str(),
                                waiting ? "waiting at Permit" : "in the scheduling queue"));
      }
      continue;
    }
    if (!scheduler_.Responsible(pod)) {
      if (where || cached != nullptr) {
        return Fail(
            fmt::format("pod {} names scheduler {}, not one of this scheduler's "
                        "profiles, but the scheduler holds it",
                        key, pod.spec.scheduler_name.str()));
      }
      continue;
    }
    // A pending pod of the scheduler's: queued, or in flight and assumed (waiting at Permit or
    // binding), and nowhere else.
    if (!where) {
      return Fail(
          fmt::format("pod {} is pending but the scheduler has dropped it: it is not "
                      "queued, waiting at Permit or binding",
                      key));
    }
    ++expected_in_queue;
    if (*where != SchedulingQueue::Where::kInFlight) {
      if (cached != nullptr || waiting) {
        return Fail(fmt::format("pod {} is in {} and also {}", key, PlaceName(*where),
                                waiting ? "waiting at Permit" : "assumed in the cache"));
      }
      continue;
    }
    if (!assumed) {
      return Fail(
          fmt::format("pod {} is in flight after its scheduling cycle ended, but neither "
                      "waiting at Permit nor binding",
                      key));
    }
    ++expected_in_cache;
  }
  if (cache.PodCount() != expected_in_cache) {
    return Fail(
        fmt::format("the scheduler's cache holds {} pods; the cluster has {} bound or "
                    "assumed (a pod that is gone or finished is still cached)",
                    cache.PodCount(), expected_in_cache));
  }
  if (queue.NumPods() != expected_in_queue) {
    return Fail(
        fmt::format("the scheduling queue holds {} pods; the cluster has {} pending "
                    "(a pod that is gone or bound is still queued)",
                    queue.NumPods(), expected_in_queue));
  }
}

void Checker::CheckNominations() {
  // A nomination keeps room on a node for a pod that preemption made it for, until that pod
  // reaches a node or goes: room kept for any other pod is room no pod can use.
  for (const auto& [key, node] : scheduler_.queue().NominatedPods()) {
    const api::Pod* stored = cluster_.Get<api::Pod>(key);
    if (stored == nullptr) {
      return Fail(fmt::format("pod {} is nominated to {} but no longer exists", key, node));
    }
    const api::Pod& pod = *stored;
    if (Bound(pod) || pod.IsTerminal() || !scheduler_.Responsible(pod)) {
      return Fail(
          fmt::format("pod {} is nominated to {} but is not a pending pod of the "
                      "scheduler's (it is {})",
                      key, node,
                      Bound(pod) ? "bound to " + pod.spec.node_name.string()
                                 : std::string(api::PodPhaseName(pod.status.phase))));
    }
  }
}

// ---- at the end of a run ----

void Checker::EndOfRun() {
  if (violation_) return;
  Event("the end of the run");
  cache_.UpdateSnapshot(snapshot_);
  const SchedulingQueue& queue = scheduler_.queue();
  for (const auto& [key, ptr] : cluster_.pods()) {
    const api::Pod& pod = *ptr;
    if (Bound(pod) || pod.IsTerminal() || queue.IsGated(key)) continue;
    const framework::Framework* own = scheduler_.ProfileFor(pod);
    // A gang member may fit alone and still wait for its group: gangs are the group checks'.
    if (own == nullptr || own->HandlesGang(api::GangOf(pod))) {
      continue;
    }
    const framework::Framework* fwk = Profile(pod);
    if (fwk == nullptr) continue;
    if (const std::optional<std::string> node = FitsSomewhere(*fwk, pod)) {
      return Fail(
          fmt::format("pod {} is left pending, but it passes PreFilter and Filter on node "
                      "{} as the cluster ends (counting the nominated pods): its last "
                      "rejection no longer holds and nothing retried it",
                      key, *node));
    }
  }
}

std::optional<std::string> Checker::FitsSomewhere(const framework::Framework& fwk,
                                                  const api::Pod& pod) {
  const framework::PodInfoPtr info = framework::PodInfo::Make(pod);
  framework::CycleState state;
  framework::PreFilterResult result;
  std::string rejector;
  if (!fwk.RunPreFilterPlugins(state, *info, &result, &rejector).IsSuccess()) return std::nullopt;
  for (const framework::NodeInfo* node : snapshot_.List()) {
    if (!Admits(result, node->name())) continue;
    const std::vector<framework::PodInfoPtr> nominated =
        scheduler_.queue().NominatedPodsForNode(node->name());
    if (fwk.RunFilterPluginsWithNominatedPods(state, *info, *node, nominated).IsSuccess()) {
      return node->name().string();
    }
  }
  return std::nullopt;
}

// ---- after each instant ----

void Checker::EndOfInstant() {
  std::set<std::string> roots;
  for (const std::string& key : groups_first_bound_now_) {
    const int bound = group_bound_[key];
    if (const int32_t min_count = group_min_count_[key]; bound < min_count) {
      Fail(fmt::format("gang {} bound {} member(s), fewer than its minCount {}", key, bound,
                       min_count));
    }
    if (const api::CompositePodGroup* root = RootOf(key)) {
      roots.insert(GroupKey(root->metadata.namespace_, api::Symbol(root->metadata.name)));
    }
  }
  groups_first_bound_now_.clear();
  // A group of a composite group's tree binds only with its root's quorum whole (counting
  // what was bound before).
  for (const std::string& key : roots) {
    const api::CompositePodGroup* root = cluster_.Get<api::CompositePodGroup>(key);
    if (root == nullptr) continue;  // deleted in the same instant
    int32_t whole = 0;
    int32_t children = 0;
    TreeWhole(*root, 0, &whole, &children);
    if (const int32_t need = root->spec.policy.min_count.value_or(1); whole < need) {
      Fail(
          fmt::format("composite pod group {} bound members with {} of its {} groups whole, "
                      "fewer than its minGroupCount {}",
                      key, whole, children, need));
    }
  }
  for (const auto& [member, gang] : must_go_with_gang_) {
    const api::Pod* stored = cluster_.Get<api::Pod>(member);
    if (stored == nullptr) continue;
    const api::Pod& pod = *stored;
    if (Bound(pod) && !pod.IsTerminal() && !pod.metadata.deletion_timestamp) {
      Fail(
          fmt::format("preemption took part of gang {}, which is evicted whole: {} still runs "
                      "on {}",
                      gang, member, pod.spec.node_name.str()));
      break;
    }
  }
  must_go_with_gang_.clear();
}

}  // namespace muster::sim
