#include "muster/host/host.h"

#include <fmt/format.h>

#include "muster/cluster/memory.h"
#include "muster/framework/virtual_clock.h"
#include "muster/plugins/registry.h"

namespace muster::host {

// The scheduler's informer handlers, fed by the cluster's object events.
class Host::Informers final : public cluster::ClusterObserver {
 public:
  explicit Informers(scheduler::Scheduler& s) : s_(s) {
    for (const std::string& name : s.scheduler_names()) {
      api::Pod pod;
      pod.spec.scheduler_name = name;
      const framework::Framework* fwk = s.ProfileFor(pod);
      if (fwk != nullptr && fwk->group_plugin() != nullptr) gangs_ = true;
    }
  }
  void OnPodAdd(const api::PodPtr& pod) override { s_.OnPodAdd(pod); }
  void OnPodUpdate(const api::PodPtr& o, const api::PodPtr& n) override { s_.OnPodUpdate(o, n); }
  void OnPodDelete(const api::PodPtr& pod) override { s_.OnPodDelete(pod); }
  void OnNodeAdd(const api::Node& node) override { s_.OnNodeAdd(node); }
  void OnNodeUpdate(const api::Node& o, const api::Node& n) override { s_.OnNodeUpdate(o, n); }
  void OnNodeDelete(const api::Node& node) override { s_.OnNodeDelete(node); }
  void OnPodGroupAdd(const api::PodGroup& g) override {
    if (!gangs_ && !warned_ && warn_) {
      warned_ = true;
      warn_(fmt::format(
          "PodGroup {}: no profile enables a gang plugin (Coscheduling), so the pods of "
          "PodGroups are scheduled one by one, not all or nothing (this is said once); enable "
          "Coscheduling in the configuration as examples/config/coscheduling.yaml does",
          g.metadata.Key()));
    }
    s_.OnPodGroupAdd(g);
  }
  void OnPodGroupUpdate(const api::PodGroup& o, const api::PodGroup& n) override {
    s_.OnPodGroupUpdate(o, n);
  }
  void OnPodGroupDelete(const api::PodGroup& g) override { s_.OnPodGroupDelete(g); }
  void OnNamespaceAdd(const api::Namespace& ns) override { s_.OnNamespaceAdd(ns); }
  void OnPodDisruptionBudgetAdd(const api::PodDisruptionBudget& pdb) override {
    s_.OnPodDisruptionBudgetAdd(pdb);
  }

  std::function<void(const std::string&)> warn_;

 private:
  scheduler::Scheduler& s_;
  bool gangs_ = false;  // a profile has a gang plugin
  bool warned_ = false;
};

Host::Host(framework::LoopClock& clock, std::unique_ptr<scheduler::Scheduler> scheduler)
    : clock_(clock),
      scheduler_(std::move(scheduler)),
      informers_(std::make_unique<Informers>(*scheduler_)) {}

Host::~Host() = default;

void Host::SetWarn(std::function<void(const std::string&)> warn) {
  informers_->warn_ = std::move(warn);
}

std::unique_ptr<Host> Host::Create(cluster::Cluster& cluster, framework::LoopClock& clock,
                                   const api::SchedulerConfiguration* config, uint64_t seed,
                                   const framework::Registry& registry,
                                   const api::Plugins& default_plugins,
                                   std::vector<std::string>* errors) {
  std::unique_ptr<scheduler::Scheduler> scheduler =
      scheduler::Scheduler::Create(config, registry, default_plugins, clock, cluster, seed, errors);
  if (scheduler == nullptr) return nullptr;
  std::unique_ptr<Host> host(new Host(clock, std::move(scheduler)));
  cluster.AddObserver(host->informers_.get());
  return host;
}

std::unique_ptr<Host> Host::Create(cluster::Cluster& cluster, framework::LoopClock& clock,
                                   const api::SchedulerConfiguration* config, uint64_t seed,
                                   std::vector<std::string>* errors) {
  return Create(cluster, clock, config, seed, plugins::InTreeRegistry(), plugins::DefaultPlugins(),
                errors);
}

std::vector<std::string> ValidateConfiguration(const api::SchedulerConfiguration& config,
                                               const framework::Registry& registry,
                                               const api::Plugins& default_plugins) {
  framework::VirtualClock clock(api::Time{});
  cluster::MemoryCluster cluster(clock);
  std::vector<std::string> errors;
  Host::Create(cluster, clock, &config, /*seed=*/0, registry, default_plugins, &errors);
  return errors;
}

void Host::Run(RunPolicy& policy) {
  using Steady = std::chrono::steady_clock;
  while (true) {
    policy.BeforeTurn();
    clock_.RunDue();
    scheduler_->PublishGauges();
    if (policy.Done()) return;
    if (!scheduler_->HasActivePods()) {
      if (!policy.Idle()) return;
      continue;
    }
    const uint64_t attempts = scheduler_->stats().attempts;
    const Steady::time_point begin = Steady::now();
    scheduler_->ScheduleOne();
    const Steady::time_point end = Steady::now();
    // A popped pod that was meanwhile assumed or left the scheduler's profiles is no attempt.
    if (scheduler_->stats().attempts != attempts) {
      policy.Attempted(scheduler_->last_attempted(), end - begin);
    }
  }
}

}  // namespace muster::host
