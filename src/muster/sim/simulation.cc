#include "muster/sim/simulation.h"

#include <algorithm>

#include <fmt/format.h>

#include "muster/api/kinds.h"
#include "muster/sim/annotations.h"

namespace muster::sim {

Simulation::Simulation(api::Manifests manifests, SimulationOptions options)
    : options_(options),
      manifests_(std::move(manifests)),
      clock_(kSimulationEpoch),
      cluster_(clock_),
      context_{
          .cluster = cluster_,
          .clock = clock_,
          .at = [this](api::Duration after, std::function<void()> fn) { At(after, std::move(fn)); },
          .create_pod = [this](api::Pod pod) { return CreatePodNow(std::move(pod)); },
          .seed = options_.seed} {}

Simulation::~Simulation() = default;

std::unique_ptr<Simulation> Simulation::Create(api::Manifests manifests,
                                               const api::SchedulerConfiguration* config,
                                               SimulationOptions options,
                                               const framework::Registry& registry,
                                               const api::Plugins& default_plugins,
                                               std::vector<std::string>* errors) {
  std::unique_ptr<Simulation> sim(new Simulation(std::move(manifests), options));
  sim->cluster_.SeedNames(options.seed);
  // The host subscribes the scheduler first: its informers see each change before the
  // controllers react to it.
  sim->host_ = host::Host::Create(sim->cluster_, sim->clock_, config, options.seed, registry,
                                  default_plugins, errors);
  if (sim->host_ == nullptr) return nullptr;
  if (options.traced) sim->host_->scheduler().TracePods(options.traced);
  sim->host_->SetWarn([raw = sim.get()](const std::string& w) { raw->warnings_.push_back(w); });
  sim->priorities_ = std::make_unique<api::PriorityResolver>(sim->manifests_.priority_classes);
  sim->cluster_.AddObserver(sim.get());
  Simulation* raw = sim.get();
  sim->pod_groups_ = std::make_unique<host::PodGroupController>(
      sim->cluster_,
      [raw](std::function<void()> fn) { raw->At(api::Duration::zero(), std::move(fn)); });
  sim->cluster_.AddObserver(sim->pod_groups_.get());
  sim->volumes_ = std::make_unique<controllers::VolumeController>(sim->context_);
  sim->cluster_.AddObserver(sim->volumes_.get());
  sim->claims_ = std::make_unique<controllers::ClaimController>(sim->context_);
  sim->cluster_.AddObserver(sim->claims_.get());
  sim->drivers_ = std::make_unique<DeviceDriver>(sim->cluster_, sim->clock_, sim->context_.at);
  sim->cluster_.AddObserver(sim->drivers_.get());
  // The controllers of workloads hear of their pods from the simulation (Updated, Deleted).
  sim->replica_sets_ = std::make_unique<controllers::ReplicaSetController>(sim->context_);
  sim->deployments_ =
      std::make_unique<controllers::DeploymentController>(sim->context_, *sim->replica_sets_);
  sim->stateful_sets_ =
      std::make_unique<controllers::StatefulSetController>(sim->context_, *sim->volumes_);
  sim->jobs_ = std::make_unique<controllers::JobController>(sim->context_);
  sim->history_ = std::make_unique<History>(sim->clock_, kSimulationEpoch);
  sim->cluster_.AddObserver(sim->history_.get());
  if (options.check) {
    sim->checker_ = std::make_unique<Checker>(sim->cluster_, sim->host_->scheduler(), sim->clock_,
                                              kSimulationEpoch, config, registry, default_plugins);
    sim->cluster_.AddObserver(sim->checker_.get());
  }
  return sim;
}

void Simulation::At(api::Duration offset, std::function<void()> fn) {
  ++pending_actions_;
  clock_.AddTimer(clock_.Now() + offset, [this, fn = std::move(fn)] {
    --pending_actions_;
    fn();
  });
}

void Simulation::ScheduleCreations() {
  auto schedule = [this](const api::ObjectMeta& meta, std::function<void()> create) {
    At(AnnotatedDuration(meta, kCreateAfter).value_or(api::Duration::zero()), std::move(create));
  };
  // A workload, which its controller keeps, is created when due; its pods' events go to it.
  auto start = [&](controllers::Workload& w) {
    workload_by_uid_[w.meta().uid] = &w;
    schedule(w.meta(), [raw = &w] { raw->Create(); });
  };
  // Whether the object being visited was read from an API server (a cluster snapshot's): a pod
  // was admitted there and is created as it is.
  bool served = false;
  // What the simulation does with each kind. The objects are read when their creation is due,
  // from manifests_, which outlives every timer.
  const api::Overloaded act{
      [&](const api::Pod& pod) {
        schedule(pod.metadata, [this, &pod, admitted = served] {
          if (std::string err = CreatePodNow(pod, admitted); !err.empty()) {
            cluster_.RecordEvent(framework::EventRecord{framework::ReferenceTo(pod), "Warning",
                                                        "FailedCreate", "Create", err});
          }
        });
      },
      [&](const api::ReplicaSet& rs) { start(replica_sets_->Add(rs)); },
      [&](const api::Deployment& d) { start(deployments_->Add(d)); },
      [&](const api::Job& j) { start(jobs_->Add(j)); },
      [&](const api::StatefulSet& s) { start(stateful_sets_->Add(s)); },
      // Priority classes act through each pod's admission (priorities_) and the configuration
      // through Create; the scheduler reads none of the other kinds.
      [](const api::PriorityClass&) {}, [](const api::Binding&) {}, [](const api::Event&) {},
      [](const api::Lease&) {}, [](const api::SchedulerConfiguration&) {},
      // Every other kind a cluster holds is created when due, and deleted after delete-after.
      // (clang-format 14 takes the requires-clause for the end of a namespace.)
      // clang-format off
      [&]<typename T>(const T& object) requires api::kIsClusterKind<T> {
        schedule(object.metadata, [this, &object] {
          const std::string key = object.metadata.Key();
          const std::optional<api::Duration> after =
              AnnotatedDuration(object.metadata, kDeleteAfter);
          cluster_.Create(object);
          if (after) At(*after, [this, key] { cluster_.Delete<T>(key); });
        });
      },
  };
  for (const api::ObjectEntry& e : manifests_.order) {
    served = e.served;
    api::Visit(manifests_, e, act);
  }
}
// clang-format on

std::string Simulation::CreatePodNow(api::Pod pod, bool admitted) {
  if (!admitted) {
    if (std::string err = priorities_->Admit(pod); !err.empty()) return err;
  }
  const std::string key = pod.metadata.Key();
  const api::ObjectMeta meta = pod.metadata;
  if (!cluster_.Create(std::move(pod)).IsSuccess()) return "";
  records_.try_emplace(key);
  if (const std::optional<api::Duration> after = AnnotatedDuration(meta, kUngateAfter)) {
    At(*after, [this, key] {
      const api::Pod* p = cluster_.Get<api::Pod>(key);
      if (p == nullptr || p->spec.scheduling_gates.empty()) return;
      api::Pod ungated = *p;
      ungated.spec.scheduling_gates.clear();
      cluster_.Update(ungated);
    });
  }
  if (const std::optional<api::Duration> after = AnnotatedDuration(meta, kDeleteAfter)) {
    At(*after, [this, key] { cluster_.Delete<api::Pod>(key); });
  }
  return "";
}

bool Simulation::IsGated(const api::Pod& pod) const {
  return !pod.spec.scheduling_gates.empty() && pod.spec.node_name.empty();
}

void Simulation::Added(const api::PodPtr& pod) {
  if (!pod->spec.node_name.empty() && pod->status.phase == api::PodPhase::kPending) {
    // Created already bound (spec.nodeName): the kubelet starts it.
    Updated(std::make_shared<const api::Pod>(), pod);
  }
}

void Simulation::Updated(const api::PodPtr& old_ptr, const api::PodPtr& new_ptr) {
  const api::Pod& old_pod = *old_ptr;
  const api::Pod& new_pod = *new_ptr;
  const bool bound = old_pod.spec.node_name.empty() && !new_pod.spec.node_name.empty();
  const bool phase_changed = old_pod.status.phase != new_pod.status.phase;
  const std::string key = new_pod.metadata.Key();
  if (bound) {
    PodRecord& r = records_[key];
    if (!r.scheduled_at) r.scheduled_at = clock_.Now() - kSimulationEpoch;
    // The kubelet: a bound pod starts running at once; with run-for it succeeds after that.
    At(api::Duration::zero(), [this, key] {
      const api::Pod* p = cluster_.Get<api::Pod>(key);
      if (p == nullptr || p->status.phase != api::PodPhase::kPending) return;
      api::Pod running = *p;
      running.status.phase = api::PodPhase::kRunning;
      running.status.start_time = clock_.Now();
      for (const char* type : {"Initialized", "ContainersReady", "Ready"}) {
        running.status.conditions.push_back(
            api::Condition{api::Symbol(type), api::Symbol("True"), "", "", clock_.Now()});
      }
      cluster_.Update(running);
      if (const std::optional<api::Duration> run_for =
              AnnotatedDuration(running.metadata, kRunFor)) {
        At(*run_for, [this, key] {
          const api::Pod* q = cluster_.Get<api::Pod>(key);
          if (q == nullptr || q->status.phase != api::PodPhase::kRunning) return;
          api::Pod done = *q;
          done.status.phase = api::PodPhase::kSucceeded;
          for (api::Condition& c : done.status.conditions) {
            if (c.type.str() == "Ready" || c.type.str() == "ContainersReady") {
              c.status = api::Symbol("False");
              c.reason = "PodCompleted";
            }
          }
          cluster_.Update(done);
        });
      }
    });
  }
  // The controller of the workload that made the pod.
  if (!phase_changed) return;
  if (controllers::Workload* owner = ActiveOwner(new_pod)) owner->PodPhaseChanged(new_pod);
}

controllers::Workload* Simulation::ActiveOwner(const api::Pod& pod) {
  const api::OwnerReference* owner = pod.metadata.ControllerRef();
  if (owner == nullptr) return nullptr;
  auto it = workload_by_uid_.find(owner->uid);
  if (it == workload_by_uid_.end()) return nullptr;
  return it->second->Counts(pod.metadata.Key()) ? it->second : nullptr;
}

void Simulation::Deleted(const api::PodPtr& pod) {
  if (controllers::Workload* owner = ActiveOwner(*pod)) owner->PodDeleted(*pod);
}

// The simulation's stop rule: the run ends when no creation, deletion, ungating or run-for is
// due and the scheduler has settled (see Scheduler::Settled), or at --until. Time jumps from
// timer to timer.
class Simulation::Policy final : public host::RunPolicy {
 public:
  explicit Policy(Simulation& sim)
      : sim_(sim),
        limit_(sim.options_.until ? std::optional(kSimulationEpoch + *sim.options_.until)
                                  : std::nullopt) {}

  bool Done() override {
    if (sim_.options_.progress && (++turns_ & (kTurnsPerProgress - 1)) == 0) {
      sim_.options_.progress(sim_);
    }
    if (Checker* checker = sim_.checker_.get()) {
      checker->AfterTurn();
      if (checker->violation()) return true;
    }
    // The scheduler's cluster version says whether anything it reads changed.
    const uint64_t version = sim_.host_->scheduler().ClusterVersion();
    if (sim_.clock_.Now() != instant_ || version != instant_version_) {
      instant_ = sim_.clock_.Now();
      instant_version_ = version;
      attempts_at_instant_ = 0;
    }
    if (attempts_at_instant_ > kMaxAttemptsPerPodAtInstant * (sim_.cluster_.pods().size() + 1)) {
      // A safeguard, not the stop rule: scheduling going round in circles at one instant with
      // no cluster change would never let time move. Backoffs make that impossible; should it
      // happen anyway, the run says so and ends rather than hang.
      sim_.warnings_.push_back(fmt::format(
          "scheduling repeated {} times at {} without a cluster change; the run ends there "
          "(please report this with the manifests)",
          attempts_at_instant_, api::FormatDuration(sim_.Elapsed())));
      return true;
    }
    return sim_.pending_actions_ == 0 && sim_.host_->scheduler().Settled();
  }
  void Attempted(std::string_view pod_key, std::chrono::nanoseconds) override {
    ++attempts_at_instant_;
    sim_.last_attempt_ = sim_.clock_.Now();
    if (sim_.checker_) sim_.checker_->Attempted(pod_key);
  }
  bool Idle() override {
    if (Checker* checker = sim_.checker_.get()) {
      checker->EndOfInstant();
      if (checker->violation()) return false;
    }
    std::optional<api::Time> next = sim_.clock_.NextTimer();
    if (!next) return false;
    // Settled, the scheduler would only retry pods whose answer cannot change before the
    // cluster does (the queue's periodic flush of pods unschedulable for five minutes): time
    // jumps over those retries to the next timer that can change something, and a housekeeping
    // timer due meanwhile fires once on arrival. Idle time costs nothing, however long.
    // Settled looks at every pending pod: asked only when a housekeeping timer comes first.
    if (const std::optional<api::Time> alive = sim_.clock_.NextKeepAliveTimer();
        alive && *alive != *next && sim_.host_->scheduler().Settled()) {
      next = alive;
    }
    if (limit_ && *next > *limit_) {
      sim_.clock_.AdvanceTo(*limit_);
      return false;
    }
    sim_.clock_.AdvanceTo(*next);
    return true;
  }

 private:
  Simulation& sim_;
  const std::optional<api::Time> limit_;
  api::Time instant_{};
  uint64_t instant_version_ = UINT64_MAX;
  size_t attempts_at_instant_ = 0;
  static constexpr uint64_t kTurnsPerProgress = 1024;  // a power of two
  uint64_t turns_ = 0;
};

void Simulation::Run() {
  ScheduleCreations();
  Policy policy(*this);
  host_->Run(policy);
  if (checker_) {
    checker_->EndOfInstant();
    if (pending_actions_ == 0 && host_->scheduler().Settled()) checker_->EndOfRun();
  }
  for (auto& [key, record] : records_) record.attempts = host_->scheduler().Attempts(key);
}

}  // namespace muster::sim
