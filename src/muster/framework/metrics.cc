#include "muster/framework/metrics.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include <prometheus/text_serializer.h>

namespace muster::framework {
namespace {

// The bucket layouts, as kube-scheduler's.
const prometheus::Histogram::BucketBoundaries& AttemptBuckets() {  // 1ms .. ~16s
  static const auto kBounds = ExponentialBuckets(0.001, 2, 15);
  return kBounds;
}
const prometheus::Histogram::BucketBoundaries& ExtensionPointBuckets() {  // 0.1ms .. ~200ms
  static const auto kBounds = ExponentialBuckets(0.0001, 2, 12);
  return kBounds;
}
const prometheus::Histogram::BucketBoundaries& PluginBuckets() {  // 10us .. ~22ms
  static const auto kBounds = ExponentialBuckets(0.00001, 1.5, 20);
  return kBounds;
}

constexpr std::array<std::string_view, 3> kResults = {"scheduled", "unschedulable", "error"};
constexpr std::array<std::string_view, 4> kQueues = {"active", "backoff", "unschedulable", "gated"};

}  // namespace

prometheus::Histogram::BucketBoundaries ExponentialBuckets(double start, double factor, int count) {
  prometheus::Histogram::BucketBoundaries bounds;
  double b = start;
  for (int i = 0; i < count; ++i) {
    bounds.push_back(b);
    b *= factor;
  }
  return bounds;
}

const prometheus::Histogram::BucketBoundaries& SliBuckets() {
  static const auto kBounds = ExponentialBuckets(0.01, 2, 20);
  return kBounds;
}

std::string_view ExtensionPointName(ExtensionPoint point) {
  static constexpr std::array<std::string_view, kNumExtensionPoints> kNames = {
      "PreEnqueue",
      "PreFilter",
      "PreFilterExtensionAddPod",
      "PreFilterExtensionRemovePod",
      "Filter",
      "PostFilter",
      "PreScore",
      "Score",
      "ScoreExtensionNormalize",
      "Reserve",
      "Unreserve",
      "Permit",
      "PreBind",
      "Bind",
      "PostBind"};
  return kNames[static_cast<size_t>(point)];
}

Metrics::Metrics() : registry_(std::make_shared<prometheus::Registry>()) {
  auto& r = *registry_;
  attempts_family_ = &prometheus::BuildCounter()
                          .Name("scheduler_schedule_attempts_total")
                          .Help(
                              "Scheduling attempts by result: 'unschedulable' when no node "
                              "fits the pod, 'error' when the scheduler itself failed.")
                          .Register(r);
  attempt_duration_family_ =
      &prometheus::BuildHistogram()
           .Name("scheduler_scheduling_attempt_duration_seconds")
           .Help("Time of one scheduling attempt, algorithm and binding included, in seconds.")
           .Register(r);
  extension_point_family_ =
      &prometheus::BuildHistogram()
           .Name("scheduler_framework_extension_point_duration_seconds")
           .Help("Time to run every plugin of one extension point, in seconds.")
           .Register(r);
  plugin_family_ = &prometheus::BuildHistogram()
                        .Name("scheduler_plugin_execution_duration_seconds")
                        .Help(
                            "Time one plugin takes at one extension point, in seconds "
                            "(sampled: one scheduling cycle in ten).")
                        .Register(r);
  sli_family_ = &prometheus::BuildHistogram()
                     .Name("scheduler_pod_scheduling_sli_duration_seconds")
                     .Help(
                         "Time from a pod's entry into the scheduling queue to its binding, "
                         "over all its attempts, in seconds.")
                     .Register(r);
  incoming_family_ = &prometheus::BuildCounter()
                          .Name("scheduler_queue_incoming_pods_total")
                          .Help(
                              "Pods added to the scheduling queues, by queue and by the event "
                              "that moved them.")
                          .Register(r);
  unschedulable_family_ = &prometheus::BuildGauge()
                               .Name("scheduler_unschedulable_pods")
                               .Help(
                                   "Pods in the scheduling queue that a plugin turned away at "
                                   "their last attempt or holds at PreEnqueue, by plugin and "
                                   "profile.")
                               .Register(r);
  evaluation_family_ = &prometheus::BuildCounter()
                            .Name("scheduler_plugin_evaluation_total")
                            .Help(
                                "Evaluations by each plugin at PreFilter and PreScore (the calls "
                                "that did not Skip) and at Filter and Score (the nodes it ran "
                                "on), by profile.")
                            .Register(r);
  hint_family_ = &prometheus::BuildHistogram()
                      .Name("scheduler_queueing_hint_execution_duration_seconds")
                      .Help(
                          "Time of one call of a plugin's queueing hint, by the cluster event "
                          "and the hint returned, in seconds.")
                      .Register(r);
  event_family_ = &prometheus::BuildHistogram()
                       .Name("scheduler_event_handling_duration_seconds")
                       .Help("Time the scheduler took to handle one cluster event, in seconds.")
                       .Register(r);
  goroutines_family_ = &prometheus::BuildGauge()
                            .Name("scheduler_goroutines")
                            .Help(
                                "Threads at work, by what they do: 'binding' the binding "
                                "cycles under way, 'Filter' and 'Score' the per-node loops, a "
                                "plugin's name its own per-node loops.")
                            .Register(r);
  pod_attempts_ = &prometheus::BuildHistogram()
                       .Name("scheduler_pod_scheduling_attempts")
                       .Help("Attempts a pod took until it was scheduled.")
                       .Register(r)
                       .Add({}, ExponentialBuckets(1, 2, 5));
  algorithm_ = &prometheus::BuildHistogram()
                    .Name("scheduler_scheduling_algorithm_duration_seconds")
                    .Help("Time of the scheduling algorithm (filtering and scoring), in seconds.")
                    .Register(r)
                    .Add({}, AttemptBuckets());
  preemption_attempts_ = &prometheus::BuildCounter()
                              .Name("scheduler_preemption_attempts_total")
                              .Help("Preemption attempts since the scheduler started.")
                              .Register(r)
                              .Add({});
  preemption_victims_ = &prometheus::BuildHistogram()
                             .Name("scheduler_preemption_victims")
                             .Help("Victims chosen by one preemption.")
                             .Register(r)
                             .Add({}, ExponentialBuckets(1, 2, 7));
  auto& permit = prometheus::BuildHistogram()
                     .Name("scheduler_permit_wait_duration_seconds")
                     .Help("Time pods waited at Permit, by result, in seconds.")
                     .Register(r);
  permit_allowed_ = &permit.Add({{"result", "allowed"}}, AttemptBuckets());
  permit_rejected_ = &permit.Add({{"result", "rejected"}}, AttemptBuckets());
  auto& pending = prometheus::BuildGauge()
                      .Name("scheduler_pending_pods")
                      .Help(
                          "Pods waiting to be scheduled, by queue: 'active' ready, 'backoff' "
                          "waiting out a backoff, 'unschedulable' waiting for a cluster event, "
                          "'gated' held by a PreEnqueue plugin and never attempted.")
                      .Register(r);
  for (size_t i = 0; i < kQueues.size(); ++i) {
    pending_[i] = &pending.Add({{"queue", std::string(kQueues[i])}});
  }
  auto& cache = prometheus::BuildGauge()
                    .Name("scheduler_scheduler_cache_size")
                    .Help("Nodes, pods and assumed pods in the scheduler's cache.")
                    .Register(r);
  cache_size_[0] = &cache.Add({{"type", "nodes"}});
  cache_size_[1] = &cache.Add({{"type", "pods"}});
  cache_size_[2] = &cache.Add({{"type", "assumed_pods"}});
}

Metrics::~Metrics() = default;

Metrics::Profile::Profile(Metrics& owner, std::string name)
    : owner_(owner), name_(std::move(name)) {
  for (size_t i = 0; i < kResults.size(); ++i) {
    const prometheus::Labels labels = {{"result", std::string(kResults[i])}, {"profile", name_}};
    attempts_[i] = &owner.attempts_family_->Add(labels);
    attempt_duration_[i] = &owner.attempt_duration_family_->Add(labels, AttemptBuckets());
  }
}

void Metrics::Profile::Attempt(AttemptResult result, double seconds) {
  attempts_[static_cast<size_t>(result)]->Increment();
  attempt_duration_[static_cast<size_t>(result)]->Observe(seconds);
}

void Metrics::Profile::ExtensionPoint(framework::ExtensionPoint point, Code code, double seconds) {
  std::atomic<prometheus::Histogram*>& slot =
      points_[static_cast<size_t>(point) * kNumCodes + static_cast<size_t>(code)];
  prometheus::Histogram* h = slot.load(std::memory_order_acquire);
  if (h == nullptr) {
    std::lock_guard lock(owner_.mu_);
    h = slot.load(std::memory_order_relaxed);
    if (h == nullptr) {
      h = &owner_.extension_point_family_->Add(
          {{"extension_point", std::string(ExtensionPointName(point))},
           {"status", std::string(CodeName(code))},
           {"profile", name_}},
          ExtensionPointBuckets());
      slot.store(h, std::memory_order_release);
    }
  }
  h->Observe(seconds);
}

Metrics::Profile& Metrics::ForProfile(const std::string& profile) {
  std::lock_guard lock(mu_);
  auto it = profiles_.find(profile);
  if (it == profiles_.end()) {
    it = profiles_.emplace(profile, std::unique_ptr<Profile>(new Profile(*this, profile))).first;
  }
  return *it->second;
}

void Metrics::PluginExecution(std::string_view plugin, ExtensionPoint point, Code code,
                              double seconds, uint64_t count) {
  if (count == 0) return;
  prometheus::Histogram* h;
  {
    std::lock_guard lock(mu_);
    auto it = plugins_.find(std::make_tuple(plugin, point, code));
    if (it == plugins_.end()) {
      prometheus::Histogram* created =
          &plugin_family_->Add({{"plugin", std::string(plugin)},
                                {"extension_point", std::string(ExtensionPointName(point))},
                                {"status", std::string(CodeName(code))}},
                               PluginBuckets());
      it = plugins_.emplace(std::make_tuple(std::string(plugin), point, code), created).first;
    }
    h = it->second;
  }
  if (count == 1) {
    h->Observe(seconds);
    return;
  }
  // `count` observations of `seconds` each, in one update.
  const auto& bounds = PluginBuckets();
  std::vector<double> increments(bounds.size() + 1, 0);
  size_t bucket = 0;
  while (bucket < bounds.size() && seconds > bounds[bucket]) ++bucket;
  increments[bucket] = static_cast<double>(count);
  h->ObserveMultiple(increments, seconds * static_cast<double>(count));
}

void Metrics::PodScheduled(int attempts, double sli_seconds) {
  pod_attempts_->Observe(attempts);
  const size_t index = attempts >= 15 ? 15 : static_cast<size_t>(std::max(attempts, 0));
  prometheus::Histogram* h;
  {
    std::lock_guard lock(mu_);
    if (sli_[index] == nullptr) {
      const std::string label = index == 15 ? "15+" : std::to_string(index);
      sli_[index] = &sli_family_->Add({{"attempts", label}}, SliBuckets());
    }
    h = sli_[index];
  }
  h->Observe(sli_seconds);
}

void Metrics::QueueIncoming(QueueName queue, std::string_view event) {
  prometheus::Counter* c;
  {
    std::lock_guard lock(mu_);
    auto it = incoming_.find(std::make_tuple(queue, event));
    if (it == incoming_.end()) {
      prometheus::Counter* created =
          &incoming_family_->Add({{"queue", std::string(kQueues[static_cast<size_t>(queue)])},
                                  {"event", std::string(event)}});
      it = incoming_.emplace(std::make_tuple(queue, std::string(event)), created).first;
    }
    c = it->second;
  }
  c->Increment();
}

void Metrics::UnschedulableReason(std::string_view plugin, std::string_view profile, double delta) {
  prometheus::Gauge* g;
  {
    std::lock_guard lock(mu_);
    auto it = unschedulable_.find(std::make_tuple(plugin, profile));
    if (it == unschedulable_.end()) {
      prometheus::Gauge* created = &unschedulable_family_->Add(
          {{"plugin", std::string(plugin)}, {"profile", std::string(profile)}});
      it = unschedulable_
               .emplace(std::make_tuple(std::string(plugin), std::string(profile)), created)
               .first;
    }
    g = it->second;
  }
  g->Increment(delta);
}

prometheus::Counter* Metrics::PluginEvaluations(std::string_view plugin, ExtensionPoint point,
                                                std::string_view profile) {
  std::lock_guard lock(mu_);
  auto it = evaluations_.find(std::make_tuple(plugin, point, profile));
  if (it == evaluations_.end()) {
    prometheus::Counter* created =
        &evaluation_family_->Add({{"plugin", std::string(plugin)},
                                  {"extension_point", std::string(ExtensionPointName(point))},
                                  {"profile", std::string(profile)}});
    it = evaluations_
             .emplace(std::make_tuple(std::string(plugin), point, std::string(profile)), created)
             .first;
  }
  return it->second;
}

void Metrics::QueueingHint(std::string_view plugin, std::string_view event, std::string_view hint,
                           double seconds) {
  prometheus::Histogram* h;
  {
    std::lock_guard lock(mu_);
    auto it = hints_.find(std::make_tuple(plugin, event, hint));
    if (it == hints_.end()) {
      prometheus::Histogram* created = &hint_family_->Add({{"plugin", std::string(plugin)},
                                                           {"event", std::string(event)},
                                                           {"hint", std::string(hint)}},
                                                          PluginBuckets());
      it = hints_
               .emplace(std::make_tuple(std::string(plugin), std::string(event), std::string(hint)),
                        created)
               .first;
    }
    h = it->second;
  }
  h->Observe(seconds);
}

void Metrics::EventHandled(std::string_view event, double seconds) {
  prometheus::Histogram* h;
  {
    std::lock_guard lock(mu_);
    auto it = events_.find(event);
    if (it == events_.end()) {
      prometheus::Histogram* created =
          &event_family_->Add({{"event", std::string(event)}}, ExtensionPointBuckets());
      it = events_.emplace(std::string(event), created).first;
    }
    h = it->second;
  }
  h->Observe(seconds);
}

std::shared_ptr<std::atomic<int64_t>> Metrics::Goroutines(std::string_view operation) {
  std::lock_guard lock(mu_);
  auto it = goroutines_.find(operation);
  if (it == goroutines_.end()) {
    auto busy = std::make_shared<Busy>();
    busy->gauge = &goroutines_family_->Add({{"operation", std::string(operation)}});
    it = goroutines_.emplace(std::string(operation), std::move(busy)).first;
  }
  return std::shared_ptr<std::atomic<int64_t>>(it->second, &it->second->count);
}

void Metrics::SetCacheSize(size_t nodes, size_t pods, size_t assumed_pods) {
  cache_size_[0]->Set(double(nodes));
  cache_size_[1]->Set(double(pods));
  cache_size_[2]->Set(double(assumed_pods));
}

std::string Metrics::Text() const {
  {
    std::lock_guard lock(mu_);
    for (const auto& [operation, busy] : goroutines_) {
      busy->gauge->Set(static_cast<double>(busy->count.load(std::memory_order_relaxed)));
    }
  }
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, registry_->Collect());
  return out.str();
}

namespace {

// Where the tick rate is measured from: both clocks read once, at startup.
struct TickOrigin {
  uint64_t ticks;
  std::chrono::steady_clock::time_point at;
};
const TickOrigin& Origin() {
  static const TickOrigin origin{PluginTicks(), std::chrono::steady_clock::now()};
  return origin;
}
[[maybe_unused]] const TickOrigin& startup_origin = Origin();

}  // namespace

double SecondsPerPluginTick() {
#if defined(__x86_64__) || defined(__i386__)
  const TickOrigin& origin = Origin();
  // A millisecond at least between the two readings, for a rate within a few parts in a
  // thousand (the process's first sampled cycle may come sooner; it waits the rest).
  constexpr std::chrono::milliseconds kLeast{1};
  std::chrono::steady_clock::time_point now;
  while ((now = std::chrono::steady_clock::now()) - origin.at < kLeast) {
  }
  const uint64_t ticks = PluginTicks();
  if (ticks <= origin.ticks) return 1e-9;
  return std::chrono::duration<double>(now - origin.at).count() /
         static_cast<double>(ticks - origin.ticks);
#else
  return 1e-9;
#endif
}

}  // namespace muster::framework
