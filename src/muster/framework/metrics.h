#pragma once

// The scheduler's Prometheus metrics under kube-scheduler's names, labels and buckets (upstream
// pkg/scheduler/metrics), in one registry per scheduler. `muster run` serves it on /metrics;
// simulate and bench fill it through the same calls, so tests read it without a cluster.
// Plugins reach it through Handle::metrics() and may register families of their own in
// registry() (Coscheduling's gang metrics).
//
// Durations of computation (an attempt, an extension point, a plugin) are wall time, measured
// with Stopwatch: a virtual clock stands still while the scheduler computes. Durations a pod
// waits (the scheduling SLI) are the injected clock's, so that a simulation reports them in
// its own time.
//
// Thread-safe: the binder threads observe PreBind and Bind, /metrics is read from the HTTP
// server's thread. Series are created once (up front, or on first use under a lock) and then
// updated through pointers.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "muster/framework/status.h"

namespace muster::framework {

// Values of the extension_point label.
enum class ExtensionPoint : uint8_t {
  kPreEnqueue,
  kPreFilter,
  kPreFilterExtensionAddPod,
  kPreFilterExtensionRemovePod,
  kFilter,
  kPostFilter,
  kPreScore,
  kScore,
  kScoreExtensionNormalize,
  kReserve,
  kUnreserve,
  kPermit,
  kPreBind,
  kBind,
  kPostBind,
};
inline constexpr size_t kNumExtensionPoints = 15;
std::string_view ExtensionPointName(ExtensionPoint point);

// Values of the result label of scheduling attempts.
enum class AttemptResult : uint8_t { kScheduled, kUnschedulable, kError };

// Values of the queue label of pending pods and incoming pods.
enum class QueueName : uint8_t { kActive, kBackoff, kUnschedulable, kGated };

// Upstream's ExponentialBuckets: `count` bounds, the first `start`, each `factor` times the last.
prometheus::Histogram::BucketBoundaries ExponentialBuckets(double start, double factor, int count);
// The SLI's layout, 10ms to about 88 minutes: for how long pods (or groups) wait.
const prometheus::Histogram::BucketBoundaries& SliBuckets();

// Wall time since construction.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double Seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  uint64_t Nanos() const {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - start_)
                                     .count());
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// The clock that times the Filter and Score plugins of a sampled cycle. They are timed per
// block of nodes, hundreds of reads a cycle, and a read of the CPU's time-stamp counter takes a
// third of steady_clock's (11 against 28 ns on a VM's kvm-clock). Its ticks are turned into
// seconds at a rate measured against steady_clock since the process started. Elsewhere (not x86)
// a tick is steady_clock's nanosecond.
inline uint64_t PluginTicks() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
#endif
}
// Seconds per tick of PluginTicks. Thread-safe.
double SecondsPerPluginTick();
// Ticks from `since` to `now`, 0 if the counter went back (a thread moved between cores whose
// counters differ).
inline uint64_t TicksSince(uint64_t since, uint64_t now) { return now > since ? now - since : 0; }

// Time and calls of the Filter and Score plugins of one sampled cycle, by the plugin's position
// at its point, summed over nodes from any thread. They run over blocks of nodes, so one call
// per node is not timed alone: each node counts as a call taking the block's mean time.
struct PluginTally {
  static constexpr size_t kMaxPlugins = 64;
  static constexpr size_t kNumCodes = 7;
  std::array<std::atomic<uint64_t>, kMaxPlugins> filter_ticks{};  // PluginTicks
  std::array<std::array<std::atomic<uint64_t>, kNumCodes>, kMaxPlugins> filter_calls{};
  std::array<std::atomic<uint64_t>, kMaxPlugins> score_ticks{};
  std::array<std::atomic<uint64_t>, kMaxPlugins> score_calls{};
};

class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // The series labelled with one profile (scheduler name).
  class Profile {
   public:
    // scheduler_schedule_attempts_total and scheduler_scheduling_attempt_duration_seconds.
    void Attempt(AttemptResult result, double seconds);
    // scheduler_framework_extension_point_duration_seconds.
    void ExtensionPoint(ExtensionPoint point, Code code, double seconds);

   private:
    friend class Metrics;
    Profile(Metrics& owner, std::string name);
    Metrics& owner_;
    std::string name_;
    std::array<prometheus::Counter*, 3> attempts_{};
    std::array<prometheus::Histogram*, 3> attempt_duration_{};
    // By point and status code, created on first use.
    static constexpr size_t kNumCodes = 7;
    std::array<std::atomic<prometheus::Histogram*>, kNumExtensionPoints * kNumCodes> points_{};
  };

  // The series of `profile`, created on the first call; the reference stays valid.
  Profile& ForProfile(const std::string& profile);

  // Whether this scheduling cycle times each plugin (upstream samples 10% of cycles; here every
  // tenth, so that runs are repeatable).
  bool SamplePluginsThisCycle() {
    return cycles_.fetch_add(1, std::memory_order_relaxed) % kPluginSamplePeriod == 0;
  }
  // scheduler_plugin_execution_duration_seconds: `count` calls of `plugin` at `point` that
  // returned `code`, each taking `seconds`.
  void PluginExecution(std::string_view plugin, ExtensionPoint point, Code code, double seconds,
                       uint64_t count = 1);

  // A pod bound: scheduler_pod_scheduling_attempts and
  // scheduler_pod_scheduling_sli_duration_seconds.
  void PodScheduled(int attempts, double sli_seconds);
  // scheduler_scheduling_algorithm_duration_seconds: Filter and Score of one cycle.
  void SchedulingAlgorithm(double seconds) { algorithm_->Observe(seconds); }
  // scheduler_preemption_attempts_total and scheduler_preemption_victims.
  void PreemptionAttempt() { preemption_attempts_->Increment(); }
  void PreemptionVictims(size_t victims) { preemption_victims_->Observe(double(victims)); }
  // scheduler_permit_wait_duration_seconds{result}: result "allowed" or "rejected".
  void PermitWait(bool allowed, double seconds) {
    (allowed ? permit_allowed_ : permit_rejected_)->Observe(seconds);
  }
  // scheduler_queue_incoming_pods_total{queue, event}.
  void QueueIncoming(QueueName queue, std::string_view event);
  // scheduler_plugin_evaluation_total{plugin, extension_point, profile}: the series a plugin's
  // evaluations at `point` (PreFilter, Filter, PreScore or Score) are counted in, created on the
  // first call; the pointer stays valid. Upstream counts each call that did not Skip, and at
  // Filter and Score each node the plugin ran on.
  prometheus::Counter* PluginEvaluations(std::string_view plugin, ExtensionPoint point,
                                         std::string_view profile);
  // scheduler_queueing_hint_execution_duration_seconds{plugin, event, hint}: one call of a
  // plugin's queueing hint for `event`, which answered `hint` ("Queue", "QueueSkip" or "Error").
  void QueueingHint(std::string_view plugin, std::string_view event, std::string_view hint,
                    double seconds);
  // scheduler_event_handling_duration_seconds{event}: the scheduler's handling of one cluster
  // event (its cache, its queue), labelled as upstream labels it ("NodeAdd",
  // "UnscheduledPodUpdate").
  void EventHandled(std::string_view event, double seconds);
  // scheduler_goroutines{operation}: the threads at work on `operation` ("binding", "Filter",
  // "Score", "prioritizing_extender" or a plugin's name), counted by whoever does it through the
  // counter returned (created on the first call). The counter may outlive the metrics: a binding
  // still held by a timer when the scheduler stops counts itself out after it.
  std::shared_ptr<std::atomic<int64_t>> Goroutines(std::string_view operation);
  // scheduler_unschedulable_pods{plugin, profile}: the pods in the queue whose last attempt
  // `plugin` turned away (or gated at PreEnqueue), moved by `delta`.
  void UnschedulableReason(std::string_view plugin, std::string_view profile, double delta);
  // scheduler_pending_pods{queue}.
  void SetPending(QueueName queue, size_t n) {
    pending_[static_cast<size_t>(queue)]->Set(double(n));
  }
  // scheduler_scheduler_cache_size{type}.
  void SetCacheSize(size_t nodes, size_t pods, size_t assumed_pods);

  prometheus::Registry& registry() { return *registry_; }
  // Every series in the Prometheus text format (version 0.0.4).
  std::string Text() const;

 private:
  static constexpr uint64_t kPluginSamplePeriod = 10;

  // Orders tuple keys as std::less<> would, reading each std::string member as a
  // std::string_view, so that a lookup by a tuple of string_views copies nothing. (libstdc++'s
  // comparison of a tuple of strings with a tuple of string_views does not compile with clang 14.)
  struct TupleLess {
    using is_transparent = void;
    template <typename... A, typename... B>
    bool operator()(const std::tuple<A...>& a, const std::tuple<B...>& b) const {
      return Views(a) < Views(b);
    }
    template <typename T>
    static const T& View(const T& x) {
      return x;
    }
    static std::string_view View(const std::string& s) { return s; }
    template <typename... A>
    static auto Views(const std::tuple<A...>& t) {
      return std::apply([](const A&... x) { return std::tuple(View(x)...); }, t);
    }
  };

  std::shared_ptr<prometheus::Registry> registry_;
  std::atomic<uint64_t> cycles_{0};

  prometheus::Family<prometheus::Counter>* attempts_family_;
  prometheus::Family<prometheus::Histogram>* attempt_duration_family_;
  prometheus::Family<prometheus::Histogram>* extension_point_family_;
  prometheus::Family<prometheus::Histogram>* plugin_family_;
  prometheus::Family<prometheus::Histogram>* sli_family_;
  prometheus::Family<prometheus::Counter>* incoming_family_;
  prometheus::Family<prometheus::Gauge>* unschedulable_family_;
  prometheus::Family<prometheus::Counter>* evaluation_family_;
  prometheus::Family<prometheus::Histogram>* hint_family_;
  prometheus::Family<prometheus::Histogram>* event_family_;
  prometheus::Family<prometheus::Gauge>* goroutines_family_;
  prometheus::Histogram* pod_attempts_;
  prometheus::Histogram* algorithm_;
  prometheus::Counter* preemption_attempts_;
  prometheus::Histogram* preemption_victims_;
  prometheus::Histogram* permit_allowed_;
  prometheus::Histogram* permit_rejected_;
  std::array<prometheus::Gauge*, 4> pending_{};
  std::array<prometheus::Gauge*, 3> cache_size_{};

  mutable std::mutex mu_;  // guards the maps and lazy creation below
  std::map<std::string, std::unique_ptr<Profile>, std::less<>> profiles_;
  std::map<std::tuple<std::string, ExtensionPoint, Code>, prometheus::Histogram*, TupleLess>
      plugins_;
  std::map<std::tuple<QueueName, std::string>, prometheus::Counter*, TupleLess> incoming_;
  std::map<std::tuple<std::string, std::string>, prometheus::Gauge*, TupleLess> unschedulable_;
  std::map<std::tuple<std::string, ExtensionPoint, std::string>, prometheus::Counter*, TupleLess>
      evaluations_;
  std::map<std::tuple<std::string, std::string, std::string>, prometheus::Histogram*, TupleLess>
      hints_;
  std::map<std::string, prometheus::Histogram*, std::less<>> events_;
  // The threads at work by operation, counted by the workers and copied into their gauges when
  // the metrics are read.
  struct Busy {
    std::atomic<int64_t> count{0};
    prometheus::Gauge* gauge;
  };
  std::map<std::string, std::shared_ptr<Busy>, std::less<>> goroutines_;
  std::array<prometheus::Histogram*, 16> sli_{};  // by attempts label: 1..14, "15+"
};

}  // namespace muster::framework
