#pragma once

// One profile (upstream frameworkImpl): its configured plugins per extension point, with score
// weights, running each point with upstream's rules. It is also the Handle its plugins get,
// forwarding the scheduler-wide services.

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/scheduler_config.h"
#include "muster/framework/handle.h"
#include "muster/framework/interface.h"
#include "muster/framework/metrics.h"
#include "muster/framework/parallel.h"
#include "muster/framework/registry.h"

namespace muster::framework {

class GroupPostFilterPlugin;

// What the scheduler provides to every profile: the Handle minus the profile itself.
class SchedulerServices {
 public:
  virtual ~SchedulerServices() = default;
  virtual const Snapshot& snapshot() const = 0;
  virtual Clock& clock() = 0;
  virtual WaitingPods& waiting_pods() = 0;
  virtual ClusterClient& client() = 0;
  virtual const ObjectLister& lister() const = 0;
  virtual void ActivatePods(std::span<const std::string> pod_keys) = 0;
  virtual void RetryAt(const std::string& pod_key, api::Time at, uint64_t version) {
    (void)pod_key, (void)at, (void)version;
  }
  virtual uint64_t ClusterVersion() const { return 0; }
  virtual void QueueOrderChanged(std::span<const std::string> pod_keys) { (void)pod_keys; }
  virtual std::vector<PodInfoPtr> NominatedPodsForNode(api::Symbol node) const = 0;
  virtual api::Symbol NominatedNodeOf(const api::Pod& pod) const {
    return pod.status.nominated_node_name;
  }
  virtual int parallelism() const = 0;
  virtual api::Duration pod_initial_backoff() const { return std::chrono::seconds(1); }
  virtual Metrics* metrics() { return nullptr; }
  virtual std::span<Extender* const> extenders() const { return {}; }
};

// The plugins of one profile per extension point, in run order.
struct ProfilePlugins {
  std::vector<PreEnqueuePlugin*> pre_enqueue;
  QueueSortPlugin* queue_sort = nullptr;
  std::vector<PreFilterPlugin*> pre_filter;
  std::vector<FilterPlugin*> filter;
  std::vector<PostFilterPlugin*> post_filter;
  std::vector<PreScorePlugin*> pre_score;
  std::vector<std::pair<ScorePlugin*, int32_t>> score;  // with weight
  std::vector<ReservePlugin*> reserve;
  std::vector<PermitPlugin*> permit;
  std::vector<PreBindPlugin*> pre_bind;
  std::vector<BindPlugin*> bind;
  std::vector<PostBindPlugin*> post_bind;
};

// The nodes each Filter plugin ran on, by its position, gathered over a loop's blocks of nodes
// by one thread.
using FilterEvaluations = std::array<uint64_t, CycleState::kMaxPluginsPerPoint>;

// Where the highest total scores lie, noted while the nodes are scored: for each block of
// kBlock nodes (block k holds nodes k * kBlock onwards), its highest total and how many of its
// nodes have it. Choosing among the nodes with the highest total then reads the blocks and one
// block's totals, not every node's total again, on the one thread that chooses.
class ScoreTops {
 public:
  static constexpr size_t kBlock = 64;

  struct Block {
    int64_t top = 0;
    int64_t count = 0;
  };

  // Notes the block that starts at node `begin` (a multiple of kBlock) with these totals.
  // Blocks are noted concurrently, each by one thread, once Reset has sized them.
  void Note(size_t begin, std::span<const int64_t> totals);
  // Sizes the blocks for n nodes; each is then noted once.
  void Reset(size_t n) { blocks_.resize((n + kBlock - 1) / kBlock); }
  // Notes every block again from all the totals (once something else changed them).
  void Recount(std::span<const int64_t> totals);

  // The highest total of all; 0 when there are no nodes.
  int64_t Top() const;
  // How many nodes have total `top` (Top()).
  int64_t Ties(int64_t top) const;
  // The position of the k-th node (from 0, in node order) whose total is `top`: k < Ties(top).
  size_t NthTie(std::span<const int64_t> totals, int64_t top, int64_t k) const;

 private:
  std::vector<Block> blocks_;
};

// The Reserve plugins a run of Reserve or Unreserve covers, in the profile's order: every one
// (a pod's own cycle), or, in a group's cycle (scheduler/group_cycle.cc), every one but the
// group's plugin as each member is placed, so that the next member sees what it holds, and the
// group's plugin alone once the group is whole.
struct ReserveScope {
  static ReserveScope All() { return {}; }
  static ReserveScope AllBut(std::string_view name) { return {name, /*only=*/false}; }
  static ReserveScope Only(std::string_view name) { return {name, /*only=*/true}; }
  bool Covers(std::string_view name) const { return plugin.empty() || (name == plugin) == only; }

  std::string_view plugin;  // empty: every plugin
  bool only = false;
};

class Framework final : public Handle {
 public:
  Framework(std::string scheduler_name, std::optional<int32_t> percentage_of_nodes_to_score,
            SchedulerServices& services)
      : scheduler_name_(std::move(scheduler_name)),
        percentage_of_nodes_to_score_(percentage_of_nodes_to_score),
        services_(services),
        metrics_(services.metrics()),
        profile_metrics_(metrics_ != nullptr ? &metrics_->ForProfile(scheduler_name_) : nullptr) {}

  // Installs the instantiated plugins (see CreateProfiles).
  void SetPlugins(ProfilePlugins plugins, std::vector<std::unique_ptr<Plugin>> owned);

  const std::string& scheduler_name() const { return scheduler_name_; }
  std::optional<int32_t> percentage_of_nodes_to_score() const {
    return percentage_of_nodes_to_score_;
  }
  const ProfilePlugins& plugins() const { return plugins_; }
  // Whether a group plugin of the profile places the gangs of `gang`'s kind (see GroupPlugin).
  bool HandlesGang(const api::GangRef& gang) const;
  // The profile's group plugin that names `pod`'s gang, and the gang; {nullptr, nullopt} when
  // none does (the pod is placed on its own). Each gang API has its plugin (Coscheduling,
  // GangScheduling), asked in the profile's order.
  std::pair<GroupPlugin*, std::optional<Gang>> GroupOf(const PodInfo& pod) const;
  // Every plugin of the profile by name (each instantiated once).
  const Plugin* FindPlugin(std::string_view name) const;
  // The profile's GroupPostFilterPlugin (group_preemption.h): the first of its PostFilter
  // plugins that is one, found when the plugins are installed; nullptr when none is.
  GroupPostFilterPlugin* group_post_filter() const { return group_post_filter_; }
  // That plugin's name; empty when there is none.
  std::string_view group_post_filter_name() const {
    return group_post_filter_as_post_filter_ == nullptr ? std::string_view()
                                                        : group_post_filter_as_post_filter_->Name();
  }
  // The events each EnqueueExtensions plugin registered, by plugin name.
  std::vector<std::pair<std::string, std::vector<ClusterEventWithHint>>> EventsToRegister() const;

  // ---- extension points ----
  // First non-success wins (the pod is gated).
  Status RunPreEnqueuePlugins(const api::Pod& pod) const;
  int QueueSortCompare(const QueuedPodInfo& a, const QueuedPodInfo& b) const {
    return plugins_.queue_sort->Compare(a, b);
  }
  bool QueueSortOrdersByPriorityThenTimestamp() const {
    return plugins_.queue_sort->OrdersByPriorityThenTimestamp();
  }
  // Runs PreFilter plugins in order; Skip marks the plugin's Filter skipped; a rejection stops
  // and names the plugin in *rejector; results are intersected into *result.
  Status RunPreFilterPlugins(CycleState& state, const PodInfo& pod, PreFilterResult* result,
                             std::string* rejector) const;
  Status RunPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod, const PodInfo& to_add,
                                     const NodeInfo& node) const;
  Status RunPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod,
                                        const PodInfo& to_remove, const NodeInfo& node) const;
  // Stops at the node's first failure. Thread-safe: runs concurrently over nodes.
  Status RunFilterPlugins(const CycleState& state, const PodInfo& pod, const NodeInfo& node) const;
  // The same for up to kFilterBlock nodes at once: bit i of the result is set when every plugin
  // passed nodes[i]; where one rejected it, statuses[i] gets its status (the others are left as
  // they were), and *error is set when any of those is an Error. Each plugin filters, all at
  // once, the nodes every plugin before it passed; evaluated[k] (one per Filter plugin) gains
  // the number of nodes the k-th ran on, for CountFilterEvaluations.
  static constexpr size_t kFilterBlock = 64;
  uint64_t RunFilterPlugins(const CycleState& state, const PodInfo& pod,
                            std::span<const NodeInfo* const> nodes, std::span<Status> statuses,
                            FilterEvaluations& evaluated, bool* error) const;
  // Adds what RunFilterPlugins counted in `evaluated` to scheduler_plugin_evaluation_total, and
  // clears it: once per loop over nodes, not once per node.
  void CountFilterEvaluations(FilterEvaluations& evaluated) const;
  // Upstream RunFilterPluginsWithNominatedPods: when higher-or-equal priority pods are nominated
  // to `node`, the pod must fit both with them (pass 1) and without them (pass 2).
  // `nominated` lists the pods nominated to the node; those of lower priority and the pod itself
  // are left out. With none left, a single plain pass.
  Status RunFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                           const NodeInfo& node,
                                           std::span<const PodInfoPtr> nominated) const;
  // Runs until a plugin succeeds, or returns UnschedulableAndUnresolvable or an error; otherwise
  // Unschedulable with every plugin's reasons, naming the first plugin (upstream's rules).
  Status RunPostFilterPlugins(CycleState& state, const PodInfo& pod, const NodeToStatus& statuses,
                              PostFilterResult* result) const;
  bool HasPostFilterPlugins() const { return !plugins_.post_filter.empty(); }
  Status RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                            std::span<NodeInfo* const> nodes) const;
  bool HasScorePlugins() const { return !plugins_.score.empty(); }
  // Scores every node with every score plugin (in parallel over nodes), normalises, checks each
  // score is in [0, 100], and writes the weighted sums into totals[i] for nodes[i]; with `tops`,
  // notes where the highest totals lie.
  Status RunScorePlugins(const CycleState& state, const PodInfo& pod,
                         std::span<NodeInfo* const> nodes, std::vector<int64_t>* totals,
                         ScoreTops* tops = nullptr) const;
  // Runs the Reserve plugins `scope` covers, in order, until one fails. Each plugin is timed as
  // on any cycle; the extension point is measured once a pod: a group's plugin alone
  // (ReserveScope::Only) finishes what its member's placement measured, and is not measured
  // again. Unreserve likewise.
  Status RunReservePluginsReserve(CycleState& state, const PodInfo& pod, api::Symbol node,
                                  ReserveScope scope = ReserveScope::All()) const;
  // In reverse order.
  void RunReservePluginsUnreserve(CycleState& state, const PodInfo& pod, api::Symbol node,
                                  ReserveScope scope = ReserveScope::All()) const;
  // Success; Wait, with each waiting plugin and its timeout (capped at 15 minutes: the pod is
  // rejected when any of them expires); or the first rejection or error.
  Status RunPermitPlugins(CycleState& state, const PodInfo& pod, api::Symbol node,
                          std::vector<std::pair<std::string, api::Duration>>* waiting) const;
  // From the plugin at *next (the first when `next` is null) on: Success when all have run;
  // Wait, stamped with the plugin, when one waits (PreBindPlugin), *next then its position for
  // RunPreBindWait and, once it lets the pod go on, the call that resumes after it; or the first
  // rejection or error.
  // Upstream RunPreBindPreFlights: Success when a PreBind plugin will act for the pod, Skip
  // when none will, or the first other answer (an Error).
  Status RunPreBindPreFlights(const CycleState& state, const PodInfo& pod, api::Symbol node) const;
  Status RunPreBindPlugins(CycleState& state, const PodInfo& pod, api::Symbol node,
                           size_t* next = nullptr) const;
  // Asks the plugin at `index`, which returned Wait from PreBind, whether the pod may go on:
  // Success, Wait, or the rejection or error that ends the binding.
  Status RunPreBindWait(size_t index, CycleState& state, const PodInfo& pod, api::Symbol node,
                        api::Duration waited) const;
  // The first plugin that does not Skip decides.
  Status RunBindPlugins(CycleState& state, const PodInfo& pod, api::Symbol node) const;
  void RunPostBindPlugins(CycleState& state, const PodInfo& pod, api::Symbol node) const;

  // ---- metrics ----
  // This profile's series; nullptr when nothing records metrics.
  Metrics::Profile* profile_metrics() const { return profile_metrics_; }
  // scheduler_goroutines' counts of the threads filtering and scoring nodes (null without
  // metrics).
  BusyCount* filter_busy() const { return filter_busy_; }
  // Observes and clears what a sampled cycle's Filter and Score calls tallied.
  void ObservePluginTally(const CycleState& state) const;

  // ---- Handle ----
  const Snapshot& snapshot() const override { return services_.snapshot(); }
  Clock& clock() override { return services_.clock(); }
  WaitingPods& waiting_pods() override { return services_.waiting_pods(); }
  ClusterClient& client() override { return services_.client(); }
  const ObjectLister& lister() const override { return services_.lister(); }
  void ActivatePods(std::span<const std::string> pod_keys) override {
    services_.ActivatePods(pod_keys);
  }
  void RetryAt(const std::string& pod_key, api::Time at, uint64_t version) override {
    services_.RetryAt(pod_key, at, version);
  }
  uint64_t ClusterVersion() const override { return services_.ClusterVersion(); }
  void QueueOrderChanged(std::span<const std::string> pod_keys) override {
    services_.QueueOrderChanged(pod_keys);
  }
  std::vector<PodInfoPtr> NominatedPodsForNode(api::Symbol node) const override {
    return services_.NominatedPodsForNode(node);
  }
  api::Symbol NominatedNodeOf(const api::Pod& pod) const override {
    return services_.NominatedNodeOf(pod);
  }
  const Framework& framework() const override { return *this; }
  int parallelism() const override { return services_.parallelism(); }
  api::Duration pod_initial_backoff() const override { return services_.pod_initial_backoff(); }
  Metrics* metrics() override { return metrics_; }
  std::span<Extender* const> extenders() const override { return services_.extenders(); }

 private:
  // The points' bodies, measured by their Run* wrappers.
  Status PreFilterPoint(CycleState& state, const PodInfo& pod, PreFilterResult* result,
                        std::string* rejector) const;
  Status PostFilterPoint(CycleState& state, const PodInfo& pod, const NodeToStatus& statuses,
                         PostFilterResult* result) const;
  Status ScorePoint(const CycleState& state, const PodInfo& pod, std::span<NodeInfo* const> nodes,
                    std::vector<int64_t>* totals, ScoreTops* tops) const;
  Status PermitPoint(CycleState& state, const PodInfo& pod, api::Symbol node,
                     std::vector<std::pair<std::string, api::Duration>>* waiting) const;

  // Runs `body` (returning a Status) as the extension point `point`, timing it when metrics
  // are recorded.
  template <typename F>
  Status Measured(ExtensionPoint point, F&& body) const {
    if (profile_metrics_ == nullptr) return body();
    const Stopwatch watch;
    Status s = body();
    profile_metrics_->ExtensionPoint(point, s.code(), watch.Seconds());
    return s;
  }
  // Runs one plugin's `call` at `point`, timing it on sampled cycles.
  template <typename F>
  Status Timed(const CycleState& state, ExtensionPoint point, std::string_view plugin,
               F&& call) const {
    if (state.plugin_tally == nullptr || metrics_ == nullptr) return call();
    const Stopwatch watch;
    Status s = call();
    metrics_->PluginExecution(plugin, point, s.code(), watch.Seconds());
    return s;
  }

  std::string scheduler_name_;
  std::optional<int32_t> percentage_of_nodes_to_score_;
  SchedulerServices& services_;
  Metrics* metrics_;
  Metrics::Profile* profile_metrics_;
  ProfilePlugins plugins_;
  std::vector<GroupPlugin*> group_plugins_;
  // The profile's GroupPostFilterPlugin, and the PostFilter plugin it is.
  GroupPostFilterPlugin* group_post_filter_ = nullptr;
  const PostFilterPlugin* group_post_filter_as_post_filter_ = nullptr;
  std::vector<std::unique_ptr<Plugin>> owned_;
  // scheduler_plugin_evaluation_total's series of each plugin by its position at PreFilter,
  // Filter, PreScore and Score (empty when nothing records metrics).
  std::vector<prometheus::Counter*> pre_filter_evaluations_;
  std::vector<prometheus::Counter*> filter_evaluations_;
  std::vector<prometheus::Counter*> pre_score_evaluations_;
  std::vector<prometheus::Counter*> score_evaluations_;
  BusyCount* filter_busy_ = nullptr;
  BusyCount* score_busy_ = nullptr;
  // For each PreFilter (PreScore) plugin, the position of the same plugin in the Filter (Score)
  // list, or -1: where its Skip is recorded in CycleState::skip_filter_at (skip_score_at).
  std::vector<int> filter_of_pre_filter_;
  std::vector<int> score_of_pre_score_;
};

}  // namespace muster::framework
