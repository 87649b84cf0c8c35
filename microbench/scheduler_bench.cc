// Micro-benchmarks of the scheduling hot paths on a 5000-node cluster built from upstream's
// scheduler_perf templates: the default profile's Filter (per node) and Score (over the 500
// nodes the adaptive percentageOfNodesToScore gives 5000 nodes), the queue's push and pop, and
// the cache's incremental snapshot update.

#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "muster/bench/workloads.h"
#include "muster/framework/profile.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/framework/virtual_clock.h"
#include "muster/plugins/queuesort/priority_sort.h"
#include "muster/plugins/registry.h"
#include "muster/scheduler/cache.h"
#include "muster/scheduler/queue.h"

namespace muster::bench {
namespace {

constexpr int kNodes = 5000;
constexpr size_t kScored = 500;

// 5000 node-default nodes in three zones, each holding one pod of `existing` (the scheduler_perf
// workloads' initial pods), and the default profile over them.
class Cluster {
 public:
  explicit Cluster(PodTemplate existing, std::string_view existing_ns) {
    const std::vector<std::string> zones = {"moon-1", "moon-2", "moon-3"};
    for (int i = 0; i < kNodes; ++i) {
      api::Node node = MakeNode(NodeTemplate::kDefault, fmt::format("scheduler-perf-{:05}", i));
      node.metadata.labels.Set(api::Symbol("topology.kubernetes.io/zone"),
                               api::Symbol(zones[static_cast<size_t>(i) % zones.size()]));
      fake_.AddNode(node);
    }
    for (int i = 0; i < kNodes; ++i) {
      api::Pod pod = MakePod(existing, fmt::format("init-{:05}", i), existing_ns);
      pod.spec.node_name = api::Symbol(fmt::format("scheduler-perf-{:05}", i));
      fake_.AddPod(pod);
    }
    std::vector<std::string> errors;
    profiles_ = framework::CreateProfiles(nullptr, plugins::InTreeRegistry(),
                                          plugins::DefaultPlugins(), fake_, &errors);
    if (profiles_.empty()) std::abort();  // the default profile always builds
  }

  const framework::Framework& fwk() const { return *profiles_.front(); }
  const std::vector<framework::NodeInfo*>& nodes() const { return fake_.snapshot().List(); }

 private:
  testing::FakeServices fake_;
  std::vector<std::unique_ptr<framework::Framework>> profiles_;
};

struct Case {
  PodTemplate existing;
  const char* existing_ns;
  PodTemplate incoming;
  const char* incoming_ns;
};

const Case kCases[] = {
    {PodTemplate::kDefault, "namespace-1", PodTemplate::kDefault, "namespace-2"},
    {PodTemplate::kWithPodAntiAffinity, "sched-0", PodTemplate::kWithPodAntiAffinity, "sched-1"},
    {PodTemplate::kWithPodAffinity, "sched-0", PodTemplate::kWithPodAffinity, "sched-1"},
    {PodTemplate::kDefault, "namespace-1", PodTemplate::kWithNodeAffinity, "namespace-2"},
    {PodTemplate::kDefault, "namespace-1", PodTemplate::kWithTopologySpreading, "namespace-2"},
    {PodTemplate::kWithPreferredTopologySpreading, "namespace-1",
     PodTemplate::kWithPreferredTopologySpreading, "namespace-1"},
};
const char* const kCaseNames[] = {"Default",      "PodAntiAffinity",   "PodAffinity",
                                  "NodeAffinity", "TopologySpreading", "PreferredSpreading"};

// The default profile's Filter plugins on one node, per node.
void BM_Filter(benchmark::State& state) {
  const Case& c = kCases[state.range(0)];
  state.SetLabel(kCaseNames[state.range(0)]);
  const Cluster cluster(c.existing, c.existing_ns);
  const framework::PodInfoPtr pod =
      framework::PodInfo::Make(MakePod(c.incoming, "incoming", c.incoming_ns));
  framework::CycleState cycle;
  framework::PreFilterResult pre;
  std::string rejector;
  if (!cluster.fwk().RunPreFilterPlugins(cycle, *pod, &pre, &rejector).IsSuccess()) {
    state.SkipWithError("PreFilter rejected the pod");
    return;
  }
  const std::vector<framework::NodeInfo*>& nodes = cluster.nodes();
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cluster.fwk().RunFilterPlugins(cycle, *pod, *nodes[i]));
    if (++i == nodes.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Filter)->DenseRange(0, 5)->Unit(benchmark::kNanosecond);

// One scheduling cycle's scoring over 500 feasible nodes: PreFilter (whose cycle state some
// PreScore plugins read), PreScore, and Score normalised and weighted.
void BM_Score(benchmark::State& state) {
  const Case& c = kCases[state.range(0)];
  state.SetLabel(kCaseNames[state.range(0)]);
  const Cluster cluster(c.existing, c.existing_ns);
  const framework::PodInfoPtr pod =
      framework::PodInfo::Make(MakePod(c.incoming, "incoming", c.incoming_ns));
  const std::vector<framework::NodeInfo*> feasible(cluster.nodes().begin(),
                                                   cluster.nodes().begin() + kScored);
  std::vector<int64_t> totals;
  for (auto _ : state) {
    framework::CycleState cycle;
    framework::PreFilterResult pre;
    std::string rejector;
    cluster.fwk().RunPreFilterPlugins(cycle, *pod, &pre, &rejector);
    cluster.fwk().RunPreScorePlugins(cycle, *pod, feasible);
    benchmark::DoNotOptimize(cluster.fwk().RunScorePlugins(cycle, *pod, feasible, &totals));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kScored));
}
BENCHMARK(BM_Score)->DenseRange(0, 5)->Unit(benchmark::kMicrosecond);

// The scheduler's queue ordered by PrioritySort; no pod is gated and no event requeues any.
class PriorityOrder final : public scheduler::QueueProfiles {
 public:
  int Compare(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override {
    return sort_.Compare(a, b);
  }
  framework::Status PreEnqueue(const api::Pod&) const override { return framework::Status::OK(); }
  bool Interested(const std::string&, const framework::ClusterEvent&) const override {
    return false;
  }
  void ForEachHint(const api::Pod&, const std::string&, const framework::ClusterEvent&,
                   const std::function<void(const framework::QueueingHintFn&)>&) const override {}

 private:
  plugins::queuesort::PrioritySort sort_;
};

// One Add and one Pop (+ Done) with `range(0)` pods already queued.
void BM_QueuePushPop(benchmark::State& state) {
  framework::VirtualClock clock(api::Time{});
  PriorityOrder order;
  scheduler::SchedulingQueue queue(scheduler::QueueOptions{}, order, clock);
  const api::Pod prototype = MakePod(PodTemplate::kDefault, "", "namespace-1");
  std::vector<framework::PodInfoPtr> pods;
  const size_t n = static_cast<size_t>(state.range(0)) + 1024;
  for (size_t i = 0; i < n; ++i) {
    api::Pod pod = prototype;
    pod.metadata.name = fmt::format("pod-{:06}", i);
    pod.spec.priority = static_cast<int32_t>(i % 3);
    pods.push_back(framework::PodInfo::Make(std::move(pod)));
  }
  size_t next = 0;
  for (; next < static_cast<size_t>(state.range(0)); ++next) queue.Add(pods[next]);
  for (auto _ : state) {
    queue.Add(pods[next]);
    std::optional<framework::QueuedPodInfo> popped = queue.Pop();
    queue.Done(popped->info->Key());
    // The popped pod is done with; it may be queued again.
    next = next + 1 == pods.size() ? 0 : next + 1;
    while (queue.Contains(pods[next]->Key())) next = next + 1 == pods.size() ? 0 : next + 1;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_QueuePushPop)->Arg(0)->Arg(1000)->Arg(10000);

// Assume a pod on one of 5000 nodes and bring the snapshot up to date, then forget it and
// update again: what each scheduling cycle's UpdateSnapshot costs.
void BM_SnapshotUpdate(benchmark::State& state) {
  scheduler::Cache cache;
  framework::Snapshot snapshot;
  std::vector<api::Symbol> names;
  for (int i = 0; i < kNodes; ++i) {
    const std::string name = fmt::format("scheduler-perf-{:05}", i);
    cache.AddNode(MakeNode(NodeTemplate::kDefault, name));
    names.emplace_back(name);
  }
  for (int i = 0; i < kNodes; ++i) {
    api::Pod pod = MakePod(PodTemplate::kDefault, fmt::format("init-{:05}", i), "namespace-1");
    pod.spec.node_name = names[static_cast<size_t>(i)];
    cache.AddPod(pod);
  }
  cache.UpdateSnapshot(snapshot);
  const api::Pod prototype = MakePod(PodTemplate::kDefault, "assumed", "namespace-2");
  size_t i = 0;
  for (auto _ : state) {
    api::Pod pod = prototype;
    pod.spec.node_name = names[i];
    framework::PodInfoPtr info = framework::PodInfo::Make(std::move(pod));
    cache.AssumePod(info);
    cache.UpdateSnapshot(snapshot);
    cache.ForgetPod(info->pod);
    cache.UpdateSnapshot(snapshot);
    if (++i == names.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations() * 2);
}
BENCHMARK(BM_SnapshotUpdate);

}  // namespace
}  // namespace muster::bench
