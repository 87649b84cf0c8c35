#include "muster/scheduler/scheduler.h"

#include <algorithm>

#include <fmt/format.h>

#include "muster/api/feature_gates.h"
#include "muster/framework/profile.h"

namespace muster::scheduler {

using framework::ClusterEvent;
using framework::EventObjects;

Scheduler::Scheduler(SchedulerOptions options, framework::Clock& clock,
                     framework::ClusterClient& client)
    : options_(options),
      clock_(clock),
      client_(client),
      queue_(options.queue, profiles_, clock),
      waiting_(clock),
      rng_(options.seed),
      pool_(std::clamp(options.parallelism, 1, framework::LoopPool::AvailableCores())) {
  queue_.SetMetrics(&metrics_);
  // SchedulingGates' verdict is the API server's to report (the SchedulingGated condition).
  queue_.SetGateObserver([this](const framework::QueuedPodInfo& info,
                                const framework::Status& status) { OnGated(info, status); },
                         "SchedulingGates");
}

void Scheduler::PublishGauges() {
  using framework::QueueName;
  const size_t gated = queue_.NumGated();
  metrics_.SetPending(QueueName::kActive, queue_.NumActive());
  metrics_.SetPending(QueueName::kBackoff, queue_.NumBackoff());
  metrics_.SetPending(QueueName::kUnschedulable, queue_.NumUnschedulable() - gated);
  metrics_.SetPending(QueueName::kGated, gated);
  metrics_.SetCacheSize(cache_.NodeCount(), cache_.PodCount(), cache_.AssumedPodCount());
}

Scheduler::~Scheduler() = default;

void Scheduler::SetExtenders(std::vector<std::shared_ptr<framework::Extender>> extenders) {
  std::stable_partition(extenders.begin(), extenders.end(),
                        [](const auto& e) { return !e->IsIgnorable(); });
  owned_extenders_ = std::move(extenders);
  extenders_.clear();
  for (const auto& e : owned_extenders_) extenders_.push_back(e.get());
}

std::unique_ptr<Scheduler> Scheduler::Create(const api::SchedulerConfiguration* config,
                                             const framework::Registry& registry,
                                             const api::Plugins& default_plugins,
                                             framework::Clock& clock,
                                             framework::ClusterClient& client, uint64_t seed,
                                             std::vector<std::string>* errors) {
  SchedulerOptions options;
  options.seed = seed;
  options.queue.pop_from_backoff = api::Features().Enabled(api::Feature::kSchedulerPopFromBackoffQ);
  options.nominate_expected_node =
      api::Features().Enabled(api::Feature::kNominatedNodeNameForExpectation);
  if (config != nullptr) {
    options.parallelism = config->parallelism;
    options.percentage_of_nodes_to_score = config->percentage_of_nodes_to_score;
    options.queue.initial_backoff = std::chrono::seconds(config->pod_initial_backoff_seconds);
    options.queue.max_backoff = std::chrono::seconds(config->pod_max_backoff_seconds);
  }
  std::unique_ptr<Scheduler> s(new Scheduler(options, clock, client));
  std::vector<std::unique_ptr<framework::Framework>> profiles =
      framework::CreateProfiles(config, registry, default_plugins, *s, errors);
  if (config != nullptr && !config->source.empty()) {
    // Every error names the file: an args error already carries its full location; the others
    // get the configuration's.
    const std::string context = config->source + " (KubeSchedulerConfiguration): ";
    for (std::string& e : *errors) {
      const size_t at = e.find(config->source);
      e = at == std::string::npos ? context + e : e.substr(at);
    }
  }
  if (!errors->empty() || profiles.empty()) return nullptr;
  s->profiles_.Set(std::move(profiles));
  return s;
}

int Scheduler::Attempts(const std::string& pod_key) const {
  return store_.Attempts(api::PodName::Parse(pod_key));
}

void Scheduler::MoveAll(const ClusterEvent& event, const EventObjects& objects,
                        const std::string& exclude_key) {
  queue_.MoveAllToActiveOrBackoffQueue(event, objects, exclude_key);
}

void Scheduler::ActivatePods(std::span<const std::string> pod_keys) {
  queue_.Activate(std::vector<std::string>(pod_keys.begin(), pod_keys.end()));
}

}  // namespace muster::scheduler
