#include "muster/scheduler/scheduler.h"

#include <algorithm>
#include <bit>
#include <span>

#include <fmt/format.h>

#include "muster/framework/parallel.h"
#include "muster/scheduler/events.h"

namespace muster::scheduler {

using framework::ClusterEvent;
using framework::Code;
using framework::EventObjects;
using framework::EventResource;
using framework::Status;

namespace {

// Upstream minFeasibleNodesToFind and minFeasibleNodesPercentageToFind.
constexpr int32_t kMinFeasibleNodesToFind = 100;
constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;
// The fewest nodes filtered per parallel round before checking whether enough feasible ones
// were found.
constexpr size_t kFilterChunk = 256;
// Nodes filtered together, one plugin after another while they stay in cache.
constexpr size_t kFilterBlock = 64;

const ClusterEvent kAssignedPodAdd{EventResource::kAssignedPod, framework::kAdd, "AssignedPodAdd"};
const ClusterEvent kAssignedPodDelete{EventResource::kAssignedPod, framework::kDelete,
                                      "AssignedPodDelete"};
const ClusterEvent kUnscheduledPodAdd{EventResource::kPod, framework::kAdd, "UnscheduledPodAdd"};
const ClusterEvent kUnscheduledPodDelete{EventResource::kPod, framework::kDelete,
                                         "UnscheduledPodDelete"};
const ClusterEvent kNodeAdd{EventResource::kNode, framework::kAdd, "NodeAdd"};
const ClusterEvent kNodeDelete{EventResource::kNode, framework::kDelete, "NodeDelete"};

bool Assigned(const api::Pod& pod) { return !pod.spec.node_name.empty(); }

std::string PodUid(const api::Pod& pod) {
  return pod.metadata.uid.empty() ? pod.metadata.Key() : pod.metadata.uid;
}

}  // namespace

// What Filter found: each rejected node's status, and which plugins rejected.
struct Scheduler::Diagnosis {
  framework::NodeToStatus statuses;
  std::set<std::string> unschedulable_plugins;
  std::set<std::string> pending_plugins;
  std::string pre_filter_msg;
  std::string post_filter_msg;
  int32_t num_all_nodes = 0;
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
    if (!pre_filter_msg.empty()) {
      msg += fmt::format(" {}.", pre_filter_msg);
    } else {
      const std::vector<std::string> parts = statuses.ReasonCounts(num_all_nodes);
      if (!parts.empty()) msg += fmt::format(" {}.", fmt::join(parts, ", "));
    }
    if (!post_filter_msg.empty()) msg += fmt::format(" {}", post_filter_msg);
    return msg;
  }
};

// A pod between Assume and the end of its binding cycle.
struct Scheduler::BindingContext {
  const framework::Framework* fwk = nullptr;
  std::unique_ptr<framework::CycleState> state;
  framework::QueuedPodInfo queued;
  framework::PodInfoPtr assumed;  // the pod with spec.nodeName set
  api::Symbol node;
};

class Scheduler::WaitingPodImpl final : public framework::WaitingPod {
 public:
  WaitingPodImpl(Scheduler& s, std::shared_ptr<BindingContext> ctx) : s_(s), ctx_(std::move(ctx)) {}

  const api::Pod& pod() const override { return ctx_->assumed->pod; }
  api::Symbol node() const override { return ctx_->node; }
  std::vector<std::string> PendingPlugins() const override {
    std::vector<std::string> names;
    for (const auto& [name, timer] : pending_) names.push_back(name);
    return names;
  }
  void Allow(std::string_view plugin) override { s_.AllowWaitingPod(uid(), std::string(plugin)); }
  void Reject(std::string_view plugin, std::string message) override {
    s_.RejectWaitingPod(uid(), std::string(plugin), message);
  }

  std::string uid() const { return PodUid(ctx_->assumed->pod); }

  Scheduler& s_;
  std::shared_ptr<BindingContext> ctx_;
  std::map<std::string, framework::Clock::TimerId> pending_;
};

Scheduler::Scheduler(SchedulerOptions options, framework::Clock& clock,
                     framework::ClusterClient& client)
    : options_(options),
      clock_(clock),
      client_(client),
      queue_storage_(std::make_unique<SchedulingQueue>(options.queue, *this, clock)),
      queue_(*queue_storage_),
      rng_(options.seed),
      pool_(std::clamp(options.parallelism, 1, framework::LoopPool::AvailableCores())) {}

Scheduler::~Scheduler() {
  for (auto& [uid, w] : waiting_) {
    for (auto& [plugin, timer] : w->pending_) clock_.CancelTimer(timer);
  }
}

std::unique_ptr<Scheduler> Scheduler::Create(const api::SchedulerConfiguration* config,
                                             const framework::Registry& registry,
                                             const api::Plugins& default_plugins,
                                             framework::Clock& clock,
                                             framework::ClusterClient& client, uint64_t seed,
                                             std::vector<std::string>* errors) {
  SchedulerOptions options;
  options.seed = seed;
  if (config != nullptr) {
    options.parallelism = config->parallelism;
    options.percentage_of_nodes_to_score = config->percentage_of_nodes_to_score;
    options.queue.initial_backoff = std::chrono::seconds(config->pod_initial_backoff_seconds);
    options.queue.max_backoff = std::chrono::seconds(config->pod_max_backoff_seconds);
  }
  std::unique_ptr<Scheduler> s(new Scheduler(options, clock, client));
  s->profiles_ = framework::CreateProfiles(config, registry, default_plugins, *s, errors);
  if (config != nullptr && !config->source.empty()) {
    // Every error names the file: an args error already carries its full location; the others
    // get the configuration's.
    const std::string context = config->source + " (KubeSchedulerConfiguration): ";
    for (std::string& e : *errors) {
      const size_t at = e.find(config->source);
      e = at == std::string::npos ? context + e : e.substr(at);
    }
  }
  if (!errors->empty() || s->profiles_.empty()) return nullptr;
  for (const auto& p : s->profiles_) {
    s->profile_by_name_[p->scheduler_name()] = p.get();
    auto& by_plugin = s->hints_[p.get()];
    for (auto& [plugin, events] : p->EventsToRegister()) {
      for (const framework::ClusterEventWithHint& e : events) {
        s->registered_events_[plugin].push_back(e.event);
      }
      by_plugin[plugin] = std::move(events);
    }
  }
  return s;
}

const framework::Framework* Scheduler::ProfileFor(const api::Pod& pod) const {
  auto it = profile_by_name_.find(pod.spec.scheduler_name);
  return it == profile_by_name_.end() ? nullptr : it->second;
}

bool Scheduler::Responsible(const api::Pod& pod) const { return ProfileFor(pod) != nullptr; }

int Scheduler::Attempts(const std::string& pod_key) const {
  auto it = attempts_.find(pod_key);
  return it == attempts_.end() ? 0 : it->second;
}

// ---- informer stores ----

void Scheduler::IndexLabels(const framework::PodInfoPtr& stored, bool add) {
  const api::ObjectMeta& meta = stored->pod.metadata;
  const std::string key = meta.Key();
  for (const auto& [k, v] : meta.labels) {
    auto index = std::make_tuple(meta.namespace_.id(), k.id(), v.id());
    if (add) {
      label_index_[index].emplace(key, &stored);
    } else if (auto it = label_index_.find(index); it != label_index_.end()) {
      it->second.erase(key);
      if (it->second.empty()) label_index_.erase(it);
    }
  }
}

const framework::PodInfoPtr& Scheduler::StorePod(const api::PodPtr& object) {
  framework::PodInfoPtr info = framework::PodInfo::Make(object);
  const api::Pod& pod = *object;
  const std::string key = pod.metadata.Key();
  auto it = pods_.find(key);
  if (it == pods_.end()) {
    it = pods_.emplace(key, std::move(info)).first;
    IndexLabels(it->second, true);
  } else if (it->second->pod.metadata.labels == pod.metadata.labels) {
    it->second = std::move(info);  // same labels, same slot: the index stands
  } else {
    IndexLabels(it->second, false);
    it->second = std::move(info);
    IndexLabels(it->second, true);
  }
  return it->second;
}

void Scheduler::ForgetStoredPod(const api::Pod& pod) {
  auto it = pods_.find(pod.metadata.Key());
  if (it == pods_.end()) return;
  IndexLabels(it->second, false);
  pods_.erase(it);
}

std::vector<const api::Pod*> Scheduler::PodsWithLabel(api::Symbol ns, api::Symbol key,
                                                      api::Symbol value) const {
  std::vector<const api::Pod*> out;
  auto it = label_index_.find(std::make_tuple(ns.id(), key.id(), value.id()));
  if (it == label_index_.end()) return out;
  out.reserve(it->second.size());
  for (const auto& [name, stored] : it->second) out.push_back(&(*stored)->pod);
  return out;
}

const api::PodGroup* Scheduler::GetPodGroup(api::Symbol ns, api::Symbol name) const {
  auto it = pod_groups_.find(api::PairId(ns, name));
  return it == pod_groups_.end() ? nullptr : &it->second;
}

std::vector<const api::PodDisruptionBudget*> Scheduler::PodDisruptionBudgets(
    api::Symbol ns) const {
  std::vector<const api::PodDisruptionBudget*> out;
  for (const auto& [key, pdb] : pdbs_) {
    if (pdb.metadata.namespace_ == ns) out.push_back(&pdb);
  }
  return out;
}

const api::Namespace* Scheduler::GetNamespace(api::Symbol name) const {
  auto it = namespaces_.find(name);
  return it == namespaces_.end() ? nullptr : &it->second;
}

void Scheduler::MoveAll(const ClusterEvent& event, const EventObjects& objects,
                        const std::string& exclude_key) {
  queue_.MoveAllToActiveOrBackoffQueue(event, objects, exclude_key);
}

// ---- informer events ----

void Scheduler::OnPodAdd(const api::PodPtr& added) {
  queue_.ClusterChanged();
  const framework::PodInfoPtr& info = StorePod(added);
  const api::Pod& pod = *added;
  EventObjects objects;
  objects.new_pod = &pod;
  if (Assigned(pod)) {
    if (pod.IsTerminal()) return;
    cache_.AddPod(info);
    queue_.DeleteNominatedPodIfExists(pod);
    MoveAll(kAssignedPodAdd, objects);
    return;
  }
  if (!Responsible(pod) || pod.IsTerminal()) return;
  queue_.Add(info);
  MoveAll(kUnscheduledPodAdd, objects, pod.metadata.Key());
}

void Scheduler::OnPodUpdate(const api::PodPtr& old_ptr, const api::PodPtr& new_ptr) {
  const framework::PodInfoPtr& info = StorePod(new_ptr);
  const api::Pod& old_pod = *old_ptr;
  const api::Pod& new_pod = *new_ptr;
  EventObjects objects;
  objects.old_pod = &old_pod;
  objects.new_pod = &new_pod;
  const std::string key = new_pod.metadata.Key();
  // A change of status only is not an event for a pending pod (the scheduler's own PodScheduled
  // condition, a nomination), as upstream's isPodUpdated ignores status, nor a change that could
  // help one when the pod runs on (the kubelet's Running): a pod that finishes is one.
  const bool status_only = Assigned(old_pod) == Assigned(new_pod) &&
                           new_pod.IsTerminal() == old_pod.IsTerminal() &&
                           PodUpdateActions(old_pod, new_pod) == framework::kUpdatePodOther &&
                           old_pod.metadata.annotations == new_pod.metadata.annotations;
  if (!status_only) queue_.ClusterChanged();
  if (Assigned(new_pod)) {
    if (!Assigned(old_pod)) {
      // Bound: it leaves the queue and joins the cache (confirming an assumed pod).
      queue_.Delete(old_pod);
      if (new_pod.IsTerminal()) {
        cache_.RemovePod(new_pod);
        return;
      }
      cache_.AddPod(info);
      MoveAll(kAssignedPodAdd, objects);
      return;
    }
    if (new_pod.IsTerminal()) {
      // A finished pod no longer holds its node's resources.
      if (!old_pod.IsTerminal()) {
        cache_.RemovePod(old_pod);
        MoveAll(kAssignedPodDelete, EventObjects{&old_pod, nullptr});
      }
      return;
    }
    cache_.UpdatePod(old_pod, info);
    const uint32_t actions = PodUpdateActions(old_pod, new_pod);
    MoveAll(ClusterEvent{EventResource::kAssignedPod, actions, "AssignedPodUpdate"}, objects);
    return;
  }
  if (!Responsible(new_pod)) return;
  if (new_pod.IsTerminal()) {
    queue_.Delete(new_pod);
    return;
  }
  // A nomination cleared (by preemption of a higher-priority pod, or by hand) releases the room
  // the nominator kept for the pod.
  if (!old_pod.status.nominated_node_name.empty() && new_pod.status.nominated_node_name.empty()) {
    queue_.DeleteNominatedPodIfExists(new_pod);
  }
  queue_.Update(old_pod, info, status_only);
}

void Scheduler::OnPodDelete(const api::PodPtr& deleted) {
  queue_.ClusterChanged();
  const api::Pod& pod = *deleted;
  ForgetStoredPod(pod);
  EventObjects objects;
  objects.old_pod = &pod;
  if (Assigned(pod)) {
    cache_.RemovePod(pod);
    if (!pod.IsTerminal()) MoveAll(kAssignedPodDelete, objects);
    return;
  }
  queue_.Delete(pod);
  if (auto it = waiting_.find(PodUid(pod)); it != waiting_.end()) {
    RejectWaitingPod(PodUid(pod), "", "pod deleted");
  }
  MoveAll(kUnscheduledPodDelete, objects);
}

void Scheduler::OnNodeAdd(const api::Node& node) {
  queue_.ClusterChanged();
  cache_.AddNode(node);
  EventObjects objects;
  objects.new_node = &node;
  MoveAll(kNodeAdd, objects);
}

void Scheduler::OnNodeUpdate(const api::Node& old_node, const api::Node& new_node) {
  queue_.ClusterChanged();
  cache_.UpdateNode(new_node);
  const uint32_t actions = NodeUpdateActions(old_node, new_node);
  if (actions == 0) return;
  EventObjects objects;
  objects.old_node = &old_node;
  objects.new_node = &new_node;
  MoveAll(ClusterEvent{EventResource::kNode, actions, "NodeUpdate"}, objects);
}

void Scheduler::OnNodeDelete(const api::Node& node) {
  queue_.ClusterChanged();
  cache_.RemoveNode(node);
  EventObjects objects;
  objects.old_node = &node;
  MoveAll(kNodeDelete, objects);
}

void Scheduler::OnPodGroupAdd(const api::PodGroup& group) {
  queue_.ClusterChanged();
  pod_groups_[api::PodGroupId(group)] = group;
  EventObjects objects;
  objects.new_group = &group;
  MoveAll(ClusterEvent{EventResource::kPodGroup, framework::kAdd, "PodGroupAdd"}, objects);
}

void Scheduler::OnPodGroupUpdate(const api::PodGroup& old_group, const api::PodGroup& new_group) {
  queue_.ClusterChanged();
  pod_groups_[api::PodGroupId(new_group)] = new_group;
  EventObjects objects;
  objects.old_group = &old_group;
  objects.new_group = &new_group;
  MoveAll(ClusterEvent{EventResource::kPodGroup, framework::kUpdateOther, "PodGroupUpdate"},
          objects);
}

void Scheduler::OnPodGroupDelete(const api::PodGroup& group) {
  queue_.ClusterChanged();
  pod_groups_.erase(api::PodGroupId(group));
}

void Scheduler::OnNamespaceAdd(const api::Namespace& ns) {
  queue_.ClusterChanged();
  namespaces_[api::Symbol(ns.metadata.name)] = ns;
}

void Scheduler::OnPodDisruptionBudgetAdd(const api::PodDisruptionBudget& pdb) {
  queue_.ClusterChanged();
  pdbs_[pdb.metadata.Key()] = pdb;
}

// ---- queue hooks ----

int Scheduler::Compare(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const {
  return profiles_.front()->QueueSortCompare(a, b);
}

Status Scheduler::PreEnqueue(const api::Pod& pod) const {
  const framework::Framework* fwk = ProfileFor(pod);
  return fwk == nullptr ? Status::OK() : fwk->RunPreEnqueuePlugins(pod);
}

bool Scheduler::Interested(const std::string& plugin, const ClusterEvent& event) const {
  auto it = registered_events_.find(plugin);
  if (it == registered_events_.end()) return false;
  for (const ClusterEvent& registered : it->second) {
    if (registered.Matches(event)) return true;
  }
  return false;
}

void Scheduler::ForEachHint(const api::Pod& pod, const std::string& plugin,
                            const ClusterEvent& event,
                            const std::function<void(const framework::QueueingHintFn&)>& fn) const {
  const framework::Framework* fwk = ProfileFor(pod);
  if (fwk == nullptr) return;
  auto p = hints_.find(fwk);
  if (p == hints_.end()) return;
  auto it = p->second.find(plugin);
  if (it == p->second.end()) return;
  for (const framework::ClusterEventWithHint& h : it->second) {
    if (h.event.Matches(event)) fn(h.hint);
  }
}

void Scheduler::ActivatePods(std::span<const std::string> pod_keys) {
  queue_.Activate(std::vector<std::string>(pod_keys.begin(), pod_keys.end()));
}

// ---- scheduling cycle ----

int32_t Scheduler::NumFeasibleNodesToFind(const framework::Framework& fwk,
                                          int32_t num_nodes) const {
  if (num_nodes < kMinFeasibleNodesToFind) return num_nodes;
  int32_t percentage = fwk.percentage_of_nodes_to_score().value_or(
      options_.percentage_of_nodes_to_score.value_or(0));
  if (percentage == 0) {
    percentage = std::max(50 - num_nodes / 125, kMinFeasibleNodesPercentageToFind);
  }
  const int32_t n = static_cast<int32_t>(int64_t{num_nodes} * percentage / 100);
  return std::max(n, kMinFeasibleNodesToFind);
}

std::vector<framework::NodeInfo*> Scheduler::FindNodesThatFitPod(const framework::Framework& fwk,
                                                                 framework::CycleState& state,
                                                                 const framework::PodInfo& pod,
                                                                 Diagnosis* diagnosis,
                                                                 Status* error) {
  const std::vector<framework::NodeInfo*>& all_nodes = snapshot_.List();
  framework::PreFilterResult pre_result;
  std::string rejector;
  Status s = fwk.RunPreFilterPlugins(state, pod, &pre_result, &rejector);
  if (!s.IsSuccess()) {
    if (!s.IsRejected()) {
      *error = s;
      return {};
    }
    diagnosis->statuses.absent = s;
    diagnosis->pre_filter_msg = s.Message();
    if (s.plugin().empty()) s.WithPlugin(rejector);
    diagnosis->AddPluginStatus(s);
    return {};
  }

  // A pod nominated by an earlier preemption tries its nominated node first.
  if (const api::Symbol nominated = pod.pod.status.nominated_node_name; !nominated.empty()) {
    if (framework::NodeInfo* node = snapshot_.Get(nominated)) {
      Status ns = fwk.RunFilterPluginsWithNominatedPods(state, pod, *node,
                                                        queue_.NominatedPodsForNode(nominated));
      if (ns.IsSuccess()) return {node};
      if (ns.IsError()) {
        *error = ns;
        return {};
      }
    }
  }

  std::vector<framework::NodeInfo*> candidates;
  const std::vector<framework::NodeInfo*>* nodes = &all_nodes;
  if (!pre_result.AllNodes()) {
    for (api::Symbol name : *pre_result.node_names) {
      if (framework::NodeInfo* info = snapshot_.Get(name)) candidates.push_back(info);
    }
    nodes = &candidates;
    diagnosis->statuses.absent = Status::Unresolvable(
        fmt::format("node(s) didn't satisfy plugin(s) [{}]", rejector));
  }
  const size_t n = nodes->size();
  if (n == 0) return {};
  const size_t to_find = static_cast<size_t>(NumFeasibleNodesToFind(fwk, static_cast<int32_t>(n)));
  const bool has_nominated = queue_.HasNominatedPods();

  // Filter from the round-robin start, a chunk at a time (each chunk in parallel), until enough
  // feasible nodes are found. Results are taken in node order, so runs are deterministic.
  // The statuses are the scheduler's, kept from cycle to cycle (each range resets its own), and
  // each block of nodes reports which passed in a bit mask: the thread that filtered a block
  // also reads its verdicts, and the caller's work per round is per block, not per node.
  if (filter_statuses_.size() < n) filter_statuses_.resize(n);
  const std::span<Status> statuses(filter_statuses_.data(), n);
  struct Block {
    size_t begin;
    uint64_t passed;  // bit j: node begin + j passed every filter
    bool error;
  };
  std::vector<Block> blocks;
  bool failed = false;
  size_t examined = 0;
  size_t found = 0;
  const int32_t priority = pod.priority;
  // The i-th node from the round-robin start (i < n), without a division per node.
  const size_t start = next_start_node_index_ % n;
  auto node_at = [&](size_t i) {
    const size_t at = start + i;
    return (*nodes)[at < n ? at : at - n];
  };
  auto filter_nominated = [&](size_t i) {
    const framework::NodeInfo& node = *node_at(i);
    std::vector<framework::PodInfoPtr> nominated;
    for (auto& p : queue_.NominatedPodsForNode(node.name())) {
      if (p->priority >= priority && p->Key() != pod.Key()) nominated.push_back(p);
    }
    statuses[i] = fwk.RunFilterPluginsWithNominatedPods(state, pod, node, nominated);
  };
  while (examined < n && found < to_find && !failed) {
    // As many nodes as should yield the rest at the share found feasible so far (twice as many
    // as so far when none was): on a nearly full cluster, a few rounds rather than one per
    // kFilterChunk. The nodes chosen do not depend on it, only how many are filtered in vain.
    const size_t wanted = to_find - found;
    const size_t expected = found == 0 ? std::max(wanted, examined) : wanted * examined / found;
    const size_t end = std::min(n, examined + std::max(kFilterChunk, expected));
    const size_t first_block = blocks.size();
    blocks.resize(first_block + (end - examined + kFilterBlock - 1) / kFilterBlock);
    // Ranges of whole blocks (ParallelRanges' chunks), each block filtered by one plugin after
    // another (RunFilterPlugins on many nodes).
    framework::ParallelRanges(
        examined, end,
        [&](size_t begin, size_t stop) {
          std::array<const framework::NodeInfo*, kFilterBlock> nodes_in_block;
          for (size_t b = begin; b < stop; b += kFilterBlock) {
            const size_t len = std::min(kFilterBlock, stop - b);
            const std::span<Status> out = statuses.subspan(b, len);
            if (has_nominated) {
              for (size_t j = 0; j < len; ++j) filter_nominated(b + j);
            } else {
              // RunFilterPlugins writes only the failures.
              std::fill(out.begin(), out.end(), Status());
              for (size_t j = 0; j < len; ++j) nodes_in_block[j] = node_at(b + j);
              fwk.RunFilterPlugins(state, pod, std::span(nodes_in_block.data(), len), out);
            }
            uint64_t passed = 0;
            bool error = false;
            for (size_t j = 0; j < len; ++j) {
              passed |= uint64_t{out[j].IsSuccess()} << j;
              error |= out[j].IsError();
            }
            blocks[first_block + (b - examined) / kFilterBlock] = Block{b, passed, error};
          }
        },
        kFilterBlock);
    for (size_t k = first_block; k < blocks.size(); ++k) {
      found += static_cast<size_t>(std::popcount(blocks[k].passed));
      failed |= blocks[k].error;
    }
    examined = end;
  }
  if (failed) {
    for (size_t i = 0; i < examined; ++i) {
      if (statuses[i].IsError()) {
        *error = statuses[i];
        return {};
      }
    }
  }
  // The first to_find feasible nodes in order; the nodes up to the last of them were processed.
  std::vector<framework::NodeInfo*> result;
  result.reserve(std::min(found, to_find));
  size_t processed = examined;
  for (const Block& block : blocks) {
    for (uint64_t passed = block.passed; passed != 0; passed &= passed - 1) {
      const size_t i = block.begin + static_cast<size_t>(std::countr_zero(passed));
      result.push_back(node_at(i));
      if (result.size() == to_find) {
        processed = i + 1;
        break;
      }
    }
    if (result.size() == to_find) break;
  }
  // Only a pod that fits nowhere reports why: a pod that fits leaves the rejections unread.
  if (result.empty()) {
    diagnosis->statuses.Reserve(examined);
    for (size_t i = 0; i < examined; ++i) {
      diagnosis->AddPluginStatus(statuses[i]);
      diagnosis->statuses.Set(node_at(i)->name(), std::move(statuses[i]));
    }
  }
  next_start_node_index_ = (next_start_node_index_ + processed) % all_nodes.size();
  return result;
}

Status Scheduler::SchedulePod(const framework::Framework& fwk, framework::CycleState& state,
                              const framework::PodInfo& pod, api::Symbol* host,
                              Diagnosis* diagnosis) {
  cache_.UpdateSnapshot(snapshot_);
  diagnosis->num_all_nodes = static_cast<int32_t>(snapshot_.NumNodes());
  if (snapshot_.NumNodes() == 0) {
    // Upstream's ErrNoNodesAvailable: an error (retried after backoff), not a fit failure.
    return Status::Error("no nodes available to schedule pods");
  }
  Status error;
  std::vector<framework::NodeInfo*> feasible = FindNodesThatFitPod(fwk, state, pod, diagnosis, &error);
  if (!error.IsSuccess()) return error;
  if (feasible.empty()) {
    diagnosis->fit_error = true;
    return Status(Code::kUnschedulable);  // the caller words it, after PostFilter
  }
  if (feasible.size() == 1) {
    *host = feasible[0]->name();
    return Status::OK();
  }
  std::vector<int64_t> totals;
  if (fwk.HasScorePlugins()) {
    Status s = fwk.RunPreScorePlugins(state, pod, feasible);
    if (!s.IsSuccess()) return s;
    s = fwk.RunScorePlugins(state, pod, feasible, &totals);
    if (!s.IsSuccess()) return s;
  } else {
    totals.assign(feasible.size(), 1);
  }
  // The highest score wins; ties are broken uniformly at random with the seeded generator, as
  // upstream's selectHost. Upstream draws once per tie (reservoir sampling); one draw among the
  // counted ties picks with the same odds, and most nodes tie on a lightly loaded cluster.
  const int64_t top = *std::max_element(totals.begin(), totals.end());
  const auto ties = std::count(totals.begin(), totals.end(), top);
  auto pick = std::uniform_int_distribution<std::ptrdiff_t>(0, ties - 1)(rng_);  // the pick-th tie
  size_t best = 0;
  for (;; ++best) {
    if (totals[best] != top) continue;
    if (pick == 0) break;
    --pick;
  }
  *host = feasible[best]->name();
  return Status::OK();
}

bool Scheduler::ScheduleOne() {
  framework::LoopPool::Use use(&pool_);
  std::optional<framework::QueuedPodInfo> popped = queue_.Pop();
  if (!popped) return false;
  framework::QueuedPodInfo queued = std::move(*popped);
  const framework::PodInfo& pod = *queued.info;
  const std::string key = pod.Key();
  const framework::Framework* fwk = ProfileFor(pod.pod);
  if (fwk == nullptr || cache_.IsAssumedPod(pod.pod)) {
    queue_.Done(key);
    return true;
  }
  ++stats_.attempts;
  ++attempts_[key];
  last_attempted_ = key;

  auto state = std::make_unique<framework::CycleState>();
  Diagnosis diagnosis;
  api::Symbol host;
  Status s = SchedulePod(*fwk, *state, pod, &host, &diagnosis);
  if (!s.IsSuccess()) {
    framework::PostFilterResult nomination;
    if (diagnosis.fit_error) {
      if (fwk->HasPostFilterPlugins()) {
        // Preemption (or another PostFilter) may make room for a later cycle; its outcome is
        // appended to the message, as upstream appends PostFilterMsg.
        Status pf = fwk->RunPostFilterPlugins(*state, pod, diagnosis.statuses, &nomination);
        diagnosis.post_filter_msg = pf.Message();
      }
      s = Status(Code::kUnschedulable, diagnosis.FitErrorMessage());
    }
    HandleSchedulingFailure(std::move(queued), s, &diagnosis, &nomination);
    queue_.Done(key);
    return true;
  }

  // Assume: the pod counts on its node from now on, before the binding is confirmed.
  framework::PodInfoPtr assumed = framework::PodInfo::OnNode(pod, host);
  auto ctx = std::make_shared<BindingContext>();
  ctx->fwk = fwk;
  ctx->state = std::move(state);
  ctx->queued = std::move(queued);
  ctx->assumed = std::move(assumed);
  ctx->node = host;
  if (Status a = cache_.AssumePod(ctx->assumed); !a.IsSuccess()) {
    HandleSchedulingFailure(std::move(ctx->queued), a, nullptr, nullptr);
    queue_.Done(key);
    return true;
  }
  Status r = fwk->RunReservePluginsReserve(*ctx->state, *ctx->assumed, host);
  if (!r.IsSuccess()) {
    fwk->RunReservePluginsUnreserve(*ctx->state, *ctx->assumed, host);
    cache_.ForgetPod(ctx->assumed->pod);
    HandleSchedulingFailure(std::move(ctx->queued), r, nullptr, nullptr);
    queue_.Done(key);
    return true;
  }
  std::vector<std::pair<std::string, api::Duration>> waiting;
  Status p = fwk->RunPermitPlugins(*ctx->state, *ctx->assumed, host, &waiting);
  if (!p.IsSuccess() && !p.IsWait()) {
    fwk->RunReservePluginsUnreserve(*ctx->state, *ctx->assumed, host);
    cache_.ForgetPod(ctx->assumed->pod);
    HandleSchedulingFailure(std::move(ctx->queued), p, nullptr, nullptr);
    queue_.Done(key);
    return true;
  }
  if (p.IsWait()) {
    auto w = std::make_unique<WaitingPodImpl>(*this, ctx);
    const std::string uid = w->uid();
    for (const auto& [plugin, timeout] : waiting) {
      const std::string message = fmt::format("rejected due to timeout after waiting {} at plugin {}",
                                              api::FormatDuration(timeout), plugin);
      w->pending_[plugin] = clock_.AddTimer(clock_.Now() + timeout, [this, uid, plugin, message] {
        RejectWaitingPod(uid, plugin, message);
      });
    }
    waiting_order_.push_back(uid);
    waiting_.emplace(uid, std::move(w));
    return true;
  }
  StartBindingCycle(std::move(ctx));
  return true;
}

void Scheduler::HandleSchedulingFailure(framework::QueuedPodInfo info, const Status& status,
                                        const Diagnosis* diagnosis,
                                        const framework::PostFilterResult* nomination) {
  const bool error = !status.IsRejected();
  info.unschedulable_plugins.clear();
  info.pending_plugins.clear();
  if (error) {
    ++stats_.errors;
  } else {
    ++stats_.unschedulable;
    if (diagnosis != nullptr) {
      info.unschedulable_plugins.assign(diagnosis->unschedulable_plugins.begin(),
                                        diagnosis->unschedulable_plugins.end());
      info.pending_plugins.assign(diagnosis->pending_plugins.begin(),
                                  diagnosis->pending_plugins.end());
    } else if (!status.plugin().empty()) {
      if (status.code() == Code::kPending) {
        info.pending_plugins.push_back(status.plugin());
      } else {
        info.unschedulable_plugins.push_back(status.plugin());
      }
    }
  }
  const framework::PodInfoPtr attempted = info.info;  // info moves to the queue below
  const api::Pod& pod = attempted->pod;
  // The pod may have been deleted or bound meanwhile: then there is nothing to requeue.
  auto stored = pods_.find(pod.metadata.Key());
  if (stored == pods_.end() || Assigned(stored->second->pod)) return;
  queue_.AddUnschedulableIfNotPresent(std::move(info));

  std::optional<std::string> nominated;
  if (nomination != nullptr && nomination->mode == framework::NominatingMode::kOverride) {
    nominated = nomination->nominated_node_name.string();
    if (!nomination->nominated_node_name.empty()) {
      queue_.AddNominatedPod(stored->second,
                             nomination->nominated_node_name);
    }
  }
  const std::string message = status.Message();
  client_.RecordEvent(framework::EventRecord{"Pod", pod.metadata.namespace_.string(),
                                             pod.metadata.name, "Warning", "FailedScheduling",
                                             "Scheduling", message});
  api::PodCondition condition;
  condition.type = "PodScheduled";
  condition.status = "False";
  condition.reason = error ? "SchedulerError" : "Unschedulable";
  condition.message = message;
  condition.last_transition_time = clock_.Now();
  // As upstream's updatePod: the API server hears only of a changed condition or nomination. A
  // pod turned away again with the same message keeps its condition, transition time and all.
  const api::Pod& current = stored->second->pod;
  const auto old =
      std::find_if(current.status.conditions.begin(), current.status.conditions.end(),
                   [&](const api::PodCondition& c) { return c.type == condition.type; });
  const bool condition_changed =
      old == current.status.conditions.end() || old->status != condition.status ||
      old->reason != condition.reason || old->message != condition.message;
  if (old != current.status.conditions.end() && old->status == condition.status) {
    condition.last_transition_time = old->last_transition_time;
  }
  const bool nomination_changed =
      nominated && *nominated != current.status.nominated_node_name.str();
  if (condition_changed || nomination_changed) {
    client_.UpdatePodCondition(current, condition, nominated);
  }
}

// ---- binding cycle ----

void Scheduler::StartBindingCycle(std::shared_ptr<BindingContext> ctx) {
  // Binding runs as its own event, after the scheduling cycle, as upstream runs it concurrently.
  clock_.AddTimer(clock_.Now(), [this, ctx] { RunBindingCycle(ctx); });
}

void Scheduler::RunBindingCycle(std::shared_ptr<BindingContext> ctx) {
  const framework::Framework& fwk = *ctx->fwk;
  const framework::PodInfo& pod = *ctx->assumed;
  const std::string key = pod.Key();
  // The pod may have been deleted while it waited.
  if (!pods_.contains(key)) {
    fwk.RunReservePluginsUnreserve(*ctx->state, pod, ctx->node);
    cache_.ForgetPod(pod.pod);
    queue_.Done(key);
    return;
  }
  Status s = fwk.RunPreBindPlugins(*ctx->state, pod, ctx->node);
  if (s.IsSuccess()) s = fwk.RunBindPlugins(*ctx->state, pod, ctx->node);
  if (!s.IsSuccess()) {
    FailBindingCycle(ctx, s.IsSkip() ? Status::Error("no bind plugin bound the pod") : s);
    return;
  }
  cache_.FinishBinding(pod.pod);
  ++stats_.scheduled;
  client_.RecordEvent(framework::EventRecord{
      "Pod", pod.pod.metadata.namespace_.string(), pod.pod.metadata.name, "Normal", "Scheduled",
      "Binding",
      fmt::format("Successfully assigned {} to {}", key, ctx->node.str())});
  fwk.RunPostBindPlugins(*ctx->state, pod, ctx->node);
  queue_.Done(key);
}

void Scheduler::FailBindingCycle(const std::shared_ptr<BindingContext>& ctx, const Status& status) {
  const framework::Framework& fwk = *ctx->fwk;
  const framework::PodInfo& pod = *ctx->assumed;
  fwk.RunReservePluginsUnreserve(*ctx->state, pod, ctx->node);
  cache_.ForgetPod(pod.pod);
  const std::string key = pod.Key();
  HandleSchedulingFailure(ctx->queued, status, nullptr, nullptr);
  // The node's room is free again: other pods may fit now (not this one: it was just rejected).
  EventObjects objects;
  objects.old_pod = &pod.pod;
  MoveAll(kAssignedPodDelete, objects, status.IsRejected() ? key : "");
  queue_.Done(key);
}

// ---- waiting pods ----

void Scheduler::Iterate(const std::function<void(framework::WaitingPod&)>& fn) {
  // Copy the order: fn may allow or reject, which removes pods.
  const std::vector<std::string> order = waiting_order_;
  for (const std::string& uid : order) {
    auto it = waiting_.find(uid);
    if (it != waiting_.end()) fn(*it->second);
  }
}

framework::WaitingPod* Scheduler::Get(std::string_view uid) {
  auto it = waiting_.find(std::string(uid));
  return it == waiting_.end() ? nullptr : it->second.get();
}

void Scheduler::AllowWaitingPod(const std::string& uid, const std::string& plugin) {
  auto it = waiting_.find(uid);
  if (it == waiting_.end()) return;
  WaitingPodImpl& w = *it->second;
  auto p = w.pending_.find(plugin);
  if (p == w.pending_.end()) return;
  clock_.CancelTimer(p->second);
  w.pending_.erase(p);
  if (!w.pending_.empty()) return;
  std::shared_ptr<BindingContext> ctx = w.ctx_;
  waiting_.erase(it);
  std::erase(waiting_order_, uid);
  StartBindingCycle(std::move(ctx));
}

void Scheduler::RejectWaitingPod(const std::string& uid, const std::string& plugin,
                                 const std::string& message) {
  auto it = waiting_.find(uid);
  if (it == waiting_.end()) return;
  std::shared_ptr<BindingContext> ctx = it->second->ctx_;
  for (auto& [name, timer] : it->second->pending_) clock_.CancelTimer(timer);
  waiting_.erase(it);
  std::erase(waiting_order_, uid);
  Status status = Status::Unschedulable(message);
  if (!plugin.empty()) status.WithPlugin(plugin);
  FailBindingCycle(ctx, status);
}

}  // namespace muster::scheduler
