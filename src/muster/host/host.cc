#include "muster/host/host.h"

#include <array>

#include <fmt/format.h>

#include "muster/cluster/kube/extender.h"
#include "muster/cluster/memory.h"
#include "muster/framework/virtual_clock.h"
#include "muster/plugins/registry.h"

namespace muster::host {

// The scheduler's informer handlers, fed by the cluster's object events of every kind.
class Host::Informers final : public cluster::TypedObserver<Informers> {
 public:
  explicit Informers(scheduler::Scheduler& s) : s_(s) {}

  template <typename T>
  void Added(const api::Shared<T>& object) {
    if constexpr (std::is_same_v<T, api::PodGroup>) {
      WarnOfGroup<T>(object->metadata, "Coscheduling", "examples/config/coscheduling.yaml");
    } else if constexpr (std::is_same_v<T, api::SchedulingPodGroup> ||
                         std::is_same_v<T, api::Workload>) {
      WarnOfGroup<T>(object->metadata, "GangScheduling", "the default profile");
    }
    s_.OnAdd(object);
  }
  template <typename T>
  void Updated(const api::Shared<T>& old_object, const api::Shared<T>& new_object) {
    s_.OnUpdate(old_object, new_object);
  }
  template <typename T>
  void Deleted(const api::Shared<T>& object) {
    s_.OnDelete(object);
  }

  std::function<void(const std::string&)> warn_;

 private:
  // Warns, once per gang API, when no profile places the gangs of kind T.
  template <typename T>
  void WarnOfGroup(const api::ObjectMeta& meta, std::string_view plugin, std::string_view how) {
    constexpr size_t kind = api::kClusterKindIndex<T>;
    if (warned_[kind] || !warn_) return;
    warned_[kind] = true;
    const api::GangRef gang{static_cast<uint8_t>(kind), {}};
    for (const std::string& name : s_.scheduler_names()) {
      api::Pod pod;
      pod.spec.scheduler_name = api::Symbol(name);
      const framework::Framework* fwk = s_.ProfileFor(pod);
      if (fwk != nullptr && fwk->HandlesGang(gang)) return;
    }
    warn_(fmt::format(
        "{} {}: no profile enables a gang plugin ({}), so the pods of its gangs are scheduled "
        "one by one, not all or nothing (this is said once); enable {} as {} does",
        api::KindOf<T>().name, meta.Key(), plugin, plugin, how));
  }

  scheduler::Scheduler& s_;
  std::array<bool, api::ClusterKinds::size> warned_{};
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
  // The extenders are real HTTP servers in every front end.
  if (config != nullptr) {
    scheduler->SetExtenders(cluster::kube::NewHttpExtenders(config->extenders));
  }
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
