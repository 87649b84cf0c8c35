#pragma once

// The scheduler (upstream pkg/scheduler Scheduler): informer handlers feeding the cache and the
// queue, and scheduleOne, the scheduling cycle followed by the binding cycle. One instance serves
// every profile. Driven from one thread: the cluster layer calls the On* handlers and
// ScheduleOne; timers (backoff, Permit timeouts) arrive through the Clock on the same thread.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>


#include "muster/api/scheduler_config.h"
#include "muster/framework/framework.h"
#include "muster/framework/loop_pool.h"
#include "muster/scheduler/cache.h"
#include "muster/scheduler/queue.h"

namespace muster::scheduler {

struct SchedulerOptions {
  QueueOptions queue;
  int parallelism = 16;
  std::optional<int32_t> percentage_of_nodes_to_score;  // global; a profile's own wins
  uint64_t seed = 0;  // ties between equally scored nodes are broken with this
};

// Counters for reports and benchmarks.
struct SchedulerStats {
  uint64_t attempts = 0;
  uint64_t scheduled = 0;
  uint64_t unschedulable = 0;
  uint64_t errors = 0;
};

class Scheduler final : public framework::SchedulerServices,
                        public QueueProfiles,
                        public framework::WaitingPods,
                        public framework::ObjectLister {
 public:
  // Builds the profiles of `config` (nullptr: the default profile) from `registry`. Returns
  // nullptr with *errors filled when the configuration is invalid.
  static std::unique_ptr<Scheduler> Create(const api::SchedulerConfiguration* config,
                                           const framework::Registry& registry,
                                           const api::Plugins& default_plugins,
                                           framework::Clock& clock,
                                           framework::ClusterClient& client, uint64_t seed,
                                           std::vector<std::string>* errors);
  ~Scheduler() override;

  // ---- informer events ----
  void OnPodAdd(const api::PodPtr& pod);
  void OnPodUpdate(const api::PodPtr& old_pod, const api::PodPtr& new_pod);
  void OnPodDelete(const api::PodPtr& pod);
  void OnNodeAdd(const api::Node& node);
  void OnNodeUpdate(const api::Node& old_node, const api::Node& new_node);
  void OnNodeDelete(const api::Node& node);
  void OnPodGroupAdd(const api::PodGroup& group);
  void OnPodGroupUpdate(const api::PodGroup& old_group, const api::PodGroup& new_group);
  void OnPodGroupDelete(const api::PodGroup& group);
  void OnNamespaceAdd(const api::Namespace& ns);
  void OnPodDisruptionBudgetAdd(const api::PodDisruptionBudget& pdb);

  // Runs one scheduling cycle when activeQ has a pod; false when it had none.
  bool ScheduleOne();
  bool HasActivePods() const { return queue_.NumActive() > 0; }
  // The pod the last ScheduleOne attempted (namespace/name).
  const std::string& last_attempted() const { return last_attempted_; }
  // Whether another cycle could change anything before the cluster changes: false while a pod
  // is active, waiting at Permit or binding, or backing off without having been tried since the
  // cluster last changed. Pods parked unschedulable wait for an event; a time-driven front end
  // (the simulation) stops once this holds and it has nothing left to do itself.
  bool Settled() const { return queue_.Settled(); }
  size_t NumWaitingPods() const { return waiting_.size(); }

  const SchedulingQueue& queue() const { return queue_; }
  const SchedulerStats& stats() const { return stats_; }
  // Scheduling attempts of a pod so far (namespace/name).
  int Attempts(const std::string& pod_key) const;
  // Whether `pod` is one this scheduler's profiles schedule.
  bool Responsible(const api::Pod& pod) const;
  const framework::Framework* ProfileFor(const api::Pod& pod) const;

  // ---- SchedulerServices ----
  const framework::Snapshot& snapshot() const override { return snapshot_; }
  framework::Clock& clock() override { return clock_; }
  framework::WaitingPods& waiting_pods() override { return *this; }
  framework::ClusterClient& client() override { return client_; }
  const framework::ObjectLister& lister() const override { return *this; }
  void ActivatePods(std::span<const std::string> pod_keys) override;
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(api::Symbol node) const override {
    return queue_.NominatedPodsForNode(node);
  }
  int parallelism() const override { return options_.parallelism; }
  api::Duration pod_initial_backoff() const override { return options_.queue.initial_backoff; }

  // ---- QueueProfiles ----
  int Compare(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;
  framework::Status PreEnqueue(const api::Pod& pod) const override;
  bool Interested(const std::string& plugin, const framework::ClusterEvent& event) const override;
  void ForEachHint(const api::Pod& pod, const std::string& plugin,
                   const framework::ClusterEvent& event,
                   const std::function<void(const framework::QueueingHintFn&)>& fn) const override;

  // ---- WaitingPods ----
  void Iterate(const std::function<void(framework::WaitingPod&)>& fn) override;
  framework::WaitingPod* Get(std::string_view uid) override;

  // ---- ObjectLister ----
  std::vector<const api::Pod*> PodsWithLabel(api::Symbol ns, api::Symbol key,
                                             api::Symbol value) const override;
  const api::PodGroup* GetPodGroup(api::Symbol ns, api::Symbol name) const override;
  std::vector<const api::PodDisruptionBudget*> PodDisruptionBudgets(
      api::Symbol ns) const override;
  const api::Namespace* GetNamespace(api::Symbol name) const override;

 private:
  class WaitingPodImpl;
  struct Diagnosis;
  struct BindingContext;

  Scheduler(SchedulerOptions options, framework::Clock& clock, framework::ClusterClient& client);

  framework::Status SchedulePod(const framework::Framework& fwk, framework::CycleState& state,
                                const framework::PodInfo& pod, api::Symbol* host,
                                Diagnosis* diagnosis);
  std::vector<framework::NodeInfo*> FindNodesThatFitPod(const framework::Framework& fwk,
                                                        framework::CycleState& state,
                                                        const framework::PodInfo& pod,
                                                        Diagnosis* diagnosis,
                                                        framework::Status* error);
  int32_t NumFeasibleNodesToFind(const framework::Framework& fwk, int32_t num_nodes) const;
  void HandleSchedulingFailure(framework::QueuedPodInfo info, const framework::Status& status,
                               const Diagnosis* diagnosis,
                               const framework::PostFilterResult* nomination);
  void StartBindingCycle(std::shared_ptr<BindingContext> ctx);
  void RunBindingCycle(std::shared_ptr<BindingContext> ctx);
  void FailBindingCycle(const std::shared_ptr<BindingContext>& ctx,
                        const framework::Status& status);
  void RejectWaitingPod(const std::string& uid, const std::string& plugin,
                        const std::string& message);
  void AllowWaitingPod(const std::string& uid, const std::string& plugin);
  // Stores the pod as the informer reports it, returning its PodInfo, which the queue and the
  // cache share.
  const framework::PodInfoPtr& StorePod(const api::PodPtr& pod);
  void ForgetStoredPod(const api::Pod& pod);
  // Adds `stored` (an element of pods_, whose address the index keeps) to label_index_, or
  // removes it.
  void IndexLabels(const framework::PodInfoPtr& stored, bool add);
  void MoveAll(const framework::ClusterEvent& event, const framework::EventObjects& objects,
               const std::string& exclude_key = "");

  SchedulerOptions options_;
  framework::Clock& clock_;
  framework::ClusterClient& client_;
  std::vector<std::unique_ptr<framework::Framework>> profiles_;
  std::map<std::string, framework::Framework*, std::less<>> profile_by_name_;
  // Per profile: plugin name -> events it registered.
  std::map<const framework::Framework*,
           std::map<std::string, std::vector<framework::ClusterEventWithHint>, std::less<>>>
      hints_;
  // Plugin name -> every event it registered, across profiles (for the queue's event filter).
  std::map<std::string, std::vector<framework::ClusterEvent>, std::less<>> registered_events_;
  Cache cache_;
  framework::Snapshot snapshot_;
  std::unique_ptr<SchedulingQueue> queue_storage_;
  SchedulingQueue& queue_;
  std::mt19937_64 rng_;
  // The threads of the cycle's parallel loops (Filter, Score, and the plugins' own): `parallelism`
  // at most, and no more than the machine's cores.
  framework::LoopPool pool_;
  size_t next_start_node_index_ = 0;
  // Filter's verdicts, one per node, reused from cycle to cycle.
  std::vector<framework::Status> filter_statuses_;
  SchedulerStats stats_;
  std::unordered_map<std::string, int> attempts_;
  std::string last_attempted_;

  // Informer stores.
  std::unordered_map<std::string, framework::PodInfoPtr> pods_;  // every pod by namespace/name
  // (namespace, label key, label value) -> the stored pods with that label, by namespace/name:
  // their slots in pods_, which stay put as a pod is updated.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>,
           std::map<std::string, const framework::PodInfoPtr*>>
      label_index_;
  // By api::PairId(namespace, name): looked up on every queue comparison under Coscheduling.
  std::unordered_map<uint64_t, api::PodGroup> pod_groups_;
  std::map<std::string, api::PodDisruptionBudget> pdbs_;
  std::map<api::Symbol, api::Namespace> namespaces_;

  // Pods at Permit, by uid, in the order they started waiting.
  std::map<std::string, std::unique_ptr<WaitingPodImpl>> waiting_;
  std::vector<std::string> waiting_order_;
};

}  // namespace muster::scheduler
