#include "muster/sim/simulation.h"

#include <algorithm>

#include <fmt/format.h>

#include "muster/api/generated_name.h"
#include "muster/api/kinds.h"
#include "muster/sim/annotations.h"
#include "muster/sim/controllers/job.h"

namespace muster::sim {
namespace {

// Upstream's alphabet for generated name suffixes (no vowels, no look-alike digits).

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

// A controller's object and the pods it owns.
struct Simulation::Workload {
  // Which controller runs it (a Deployment runs through a ReplicaSet), and its kind's row.
  enum class Controller { kReplicaSet, kJob, kStatefulSet } controller;
  std::string_view kind;
  std::string_view api_version;
  api::ObjectMeta meta;
  api::PodTemplateSpec pod_template;
  int32_t replicas = 0;  // ReplicaSet, StatefulSet
  int32_t parallelism = 1;
  std::optional<int32_t> completions;
  bool ordered = false;                             // StatefulSet OrderedReady
  std::vector<api::ClaimTemplate> claim_templates;  // StatefulSet volumeClaimTemplates
  std::vector<std::pair<api::Symbol, api::Symbol>> selector_labels;  // and their claims' labels
  const api::Job* job = nullptr;  // a Job's spec (manifests_ outlives every workload)
  std::mt19937_64 rng;
  std::vector<std::string> active;  // pod keys not yet finished
  int32_t succeeded = 0;
  int32_t next_ordinal = 0;
  bool created = false;        // its creation came
  bool cannot_create = false;  // the API server refused a pod: it tries no more
  // ---- a Job's controller ----
  int32_t failed = 0;                      // status.failed: failures counted toward backoffLimit
  std::map<std::string, int32_t> indexes;  // Indexed: each active pod's completion index
  std::vector<bool> completed;             // Indexed: the indexes that succeeded
  int32_t failures_since_success = 0;      // for the pod failure backoff
  api::Time last_failure{};
  bool creation_due = false;               // a timer creates pods when the backoff ends
  std::optional<api::Condition> finished;  // Complete or Failed

  template <typename T>
  static std::unique_ptr<Workload> Of(Controller controller) {
    auto w = std::make_unique<Workload>();
    w->controller = controller;
    w->kind = api::KindOf<T>().name;
    w->api_version = api::KindOf<T>().api_versions.front();
    return w;
  }
  bool Indexed() const {
    return job != nullptr && job->completion_mode == api::CompletionMode::kIndexed;
  }
};

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
  sim->drivers_ = std::make_unique<DeviceDriver>(
      sim->cluster_, sim->clock_,
      [raw](api::Duration after, std::function<void()> fn) { raw->At(after, std::move(fn)); });
  sim->cluster_.AddObserver(sim->drivers_.get());
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
  auto start = [&](std::unique_ptr<Workload> w) {
    w->rng.seed(Fnv1a(w->meta.Key()) ^ options_.seed);
    if (w->meta.uid.empty()) w->meta.uid = fmt::format("uid-{}-{}", w->kind, w->meta.Key());
    Workload* raw = w.get();
    workload_by_uid_[w->meta.uid] = raw;
    workloads_.push_back(std::move(w));
    schedule(raw->meta, [this, raw] {
      raw->created = true;
      CreateWorkloadPods(*raw);
    });
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
      [&](const api::ReplicaSet& rs) {
        auto w = Workload::Of<api::ReplicaSet>(Workload::Controller::kReplicaSet);
        w->meta = rs.metadata;
        w->pod_template = rs.template_;
        w->replicas = rs.replicas;
        start(std::move(w));
      },
      [&](const api::Deployment& d) {
        // A Deployment's pods belong to a ReplicaSet named after the pod template's hash.
        auto w = Workload::Of<api::ReplicaSet>(Workload::Controller::kReplicaSet);
        w->meta = d.metadata;
        std::mt19937_64 hash_rng(Fnv1a(d.metadata.Key()) ^ options_.seed);
        w->meta.name = d.metadata.name + "-" + api::GeneratedNameSuffix(hash_rng, 10);
        w->pod_template = d.template_;
        w->pod_template.metadata.labels.Set(
            api::Symbol("pod-template-hash"),
            api::Symbol(w->meta.name.substr(d.metadata.name.size() + 1)));
        w->replicas = d.replicas;
        start(std::move(w));
      },
      [&](const api::Job& j) {
        auto w = Workload::Of<api::Job>(Workload::Controller::kJob);
        w->meta = j.metadata;
        w->pod_template = j.template_;
        w->parallelism = j.suspend ? 0 : j.parallelism;
        w->completions = j.completions;
        w->job = &j;
        if (w->Indexed()) w->completed.assign(static_cast<size_t>(*j.completions), false);
        w->pod_template.metadata.labels.Set(api::Symbol("job-name"), api::Symbol(j.metadata.name));
        start(std::move(w));
      },
      [&](const api::StatefulSet& s) {
        auto w = Workload::Of<api::StatefulSet>(Workload::Controller::kStatefulSet);
        w->meta = s.metadata;
        w->pod_template = s.template_;
        w->replicas = s.replicas;
        w->ordered = s.pod_management_policy == api::PodManagementPolicy::kOrderedReady;
        w->claim_templates = s.volume_claim_templates;
        w->selector_labels = s.selector.match_labels;
        start(std::move(w));
      },
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

api::Pod Simulation::PodFor(Workload& w, int ordinal) {
  api::Pod pod;
  pod.metadata.labels = w.pod_template.metadata.labels;
  pod.metadata.annotations = w.pod_template.metadata.annotations;
  pod.metadata.annotations.erase(std::string(kCreateAfter));
  pod.metadata.namespace_ = w.meta.namespace_;
  if (w.controller == Workload::Controller::kStatefulSet) {
    pod.metadata.name = fmt::format("{}-{}", w.meta.name, ordinal);
    pod.metadata.labels.Set(api::Symbol("statefulset.kubernetes.io/pod-name"),
                            api::Symbol(pod.metadata.name));
  } else {
    // An Indexed Job's pod is named after its completion index too, and carries it.
    std::string prefix = w.meta.name + "-";
    if (w.Indexed()) {
      const std::string index = std::to_string(ordinal);
      prefix += index + "-";
      pod.metadata.labels.Set(api::Symbol(api::kJobCompletionIndex), api::Symbol(index));
      pod.metadata.annotations[std::string(api::kJobCompletionIndex)] = index;
    }
    do {
      pod.metadata.name = prefix + api::GeneratedNameSuffix(w.rng);
    } while (cluster_.Get<api::Pod>(pod.metadata.Key()) != nullptr);
  }
  api::OwnerReference owner;
  owner.api_version = std::string(w.api_version);
  owner.kind = std::string(w.kind);
  owner.name = w.meta.name;
  owner.uid = w.meta.uid;
  owner.controller = true;
  owner.block_owner_deletion = true;
  pod.metadata.owner_references.push_back(owner);
  pod.spec = w.pod_template.spec;
  // A StatefulSet's pod mounts its own claim of each template, `<template>-<pod>`, which the
  // controller creates first (and keeps: the default retention policy).
  for (const api::ClaimTemplate& t : w.claim_templates) {
    api::PersistentVolumeClaim claim;
    claim.metadata.name = fmt::format("{}-{}", t.name, pod.metadata.name);
    claim.metadata.namespace_ = pod.metadata.namespace_;
    claim.metadata.labels = t.labels;
    for (const auto& [key, value] : w.selector_labels) claim.metadata.labels.Set(key, value);
    claim.metadata.annotations = t.annotations;
    claim.spec = t.spec;
    api::Volume volume;
    volume.name = t.name;
    volume.claim_name = api::Symbol(claim.metadata.name);
    volume.source.kind = "persistentVolumeClaim";
    std::erase_if(pod.spec.volumes, [&](const api::Volume& v) { return v.name == t.name; });
    pod.spec.volumes.push_back(std::move(volume));
    volumes_->CreateClaim(std::move(claim));
  }
  return pod;
}

bool Simulation::CreatePodFor(Workload& w, int ordinal) {
  api::Pod pod = PodFor(w, ordinal);
  const std::string key = pod.metadata.Key();
  const std::string name = pod.metadata.name;
  if (std::string refused = CreatePodNow(std::move(pod)); !refused.empty()) {
    RefusedPod(w, name, refused);
    return false;
  }
  w.active.push_back(key);
  if (w.Indexed()) w.indexes[key] = ordinal;
  return true;
}

// The controller's Warning, in upstream's words for its kind, when the API server refuses a pod
// (the template names a PriorityClass that does not exist). The workload tries no more: nothing
// in a simulation would make a later try succeed.
void Simulation::RefusedPod(Workload& w, const std::string& pod, const std::string& why) {
  w.cannot_create = true;
  const std::string error = fmt::format("pods \"{}\" is forbidden: {}", pod, why);
  const std::string message =
      w.controller == Workload::Controller::kStatefulSet
          ? fmt::format("create Pod {} in StatefulSet {} failed error: {}", pod, w.meta.name, error)
          : "Error creating: " + error;
  cluster_.RecordEvent(framework::EventRecord{
      framework::ReferenceTo(w.meta, std::string(w.kind), std::string(w.api_version)), "Warning",
      "FailedCreate", "Create", message});
}

void Simulation::CreateWorkloadPods(Workload& w) {
  if (w.cannot_create) return;
  if (w.controller == Workload::Controller::kReplicaSet) {
    while (static_cast<int32_t>(w.active.size()) + w.succeeded < w.replicas && CreatePodFor(w, 0)) {
    }
  } else if (w.controller == Workload::Controller::kJob) {
    SyncJob(w);
  } else if (w.controller == Workload::Controller::kStatefulSet) {
    if (!w.ordered) {
      while (w.next_ordinal < w.replicas && CreatePodFor(w, w.next_ordinal)) ++w.next_ordinal;
    } else if (w.next_ordinal < w.replicas) {
      // OrderedReady: the next ordinal only once every earlier one runs.
      for (const std::string& key : w.active) {
        const api::Pod* p = cluster_.Get<api::Pod>(key);
        if (p == nullptr || p->status.phase != api::PodPhase::kRunning) return;
      }
      if (CreatePodFor(w, w.next_ordinal)) ++w.next_ordinal;
    }
  }
}

// ---- the Job controller (upstream syncJob and manageJob) ----

// Done once its completions succeeded (without completions, once one pod did) and no pod runs;
// else it creates the pods it still wants.
void Simulation::SyncJob(Workload& w) {
  if (w.finished) return;
  const bool done = w.completions ? w.succeeded >= *w.completions : w.succeeded > 0;
  if (done && w.active.empty()) {
    FinishJob(w, api::Condition{api::Symbol("Complete"), api::Symbol("True"), "CompletionsReached",
                                "Reached expected number of succeeded pods", clock_.Now()});
    return;
  }
  CreateJobPods(w);
}

// As many pods as parallelism allows and completions still need, once the pod failure backoff
// has passed; an Indexed Job's for its lowest indexes that neither succeeded nor have a pod.
void Simulation::CreateJobPods(Workload& w) {
  int32_t want = w.parallelism;
  if (w.completions) {
    want = std::min(want, *w.completions - w.succeeded);
  } else if (w.succeeded > 0) {
    want = 0;  // without completions, the first success completes the Job
  }
  auto short_of = [&] { return static_cast<int32_t>(w.active.size()) < want; };
  if (!short_of()) return;
  const api::Duration wait =
      w.last_failure + controllers::PodFailureBackoff(w.failures_since_success) - clock_.Now();
  if (wait > api::Duration::zero()) {
    if (!w.creation_due) {
      w.creation_due = true;
      At(wait, [this, &w] {
        w.creation_due = false;
        CreateWorkloadPods(w);
      });
    }
    return;
  }
  if (!w.Indexed()) {
    while (short_of() && CreatePodFor(w, 0)) {
    }
    return;
  }
  std::vector<bool> taken = w.completed;
  for (const auto& [key, index] : w.indexes) taken[static_cast<size_t>(index)] = true;
  for (size_t index = 0; index < taken.size() && short_of(); ++index) {
    if (!taken[index] && !CreatePodFor(w, static_cast<int>(index))) return;
  }
}

void Simulation::JobPodSucceeded(Workload& w, const std::string& key) {
  std::erase(w.active, key);
  if (auto it = w.indexes.find(key); it != w.indexes.end()) {
    // Each index completes once.
    w.completed[static_cast<size_t>(it->second)] = true;
    w.indexes.erase(it);
    w.succeeded = static_cast<int32_t>(std::count(w.completed.begin(), w.completed.end(), true));
  } else {
    ++w.succeeded;
  }
  // A success ends the run of failures the backoff counts.
  w.failures_since_success = 0;
  SyncJob(w);
}

void Simulation::PodFailed(Workload& w, const api::Pod& pod) {
  const std::string key = pod.metadata.Key();
  if (w.controller == Workload::Controller::kStatefulSet) {
    // Upstream deletes a failed pod and creates its ordinal again once it is gone (OnPodDelete).
    cluster_.Delete<api::Pod>(key);
    return;
  }
  std::erase(w.active, key);
  if (w.controller == Workload::Controller::kJob) {
    JobPodFailed(w, pod);
  } else {
    CreateWorkloadPods(w);
  }
}

// Each failure counts toward backoffLimit unless the pod failure policy ignores it, and past
// the limit (or on a FailJob rule) the Job fails; else the pod is replaced after the backoff.
void Simulation::JobPodFailed(Workload& w, const api::Pod& pod) {
  w.indexes.erase(pod.metadata.Key());
  if (w.finished) return;
  ++w.failures_since_success;
  w.last_failure = clock_.Now();
  const controllers::PodFailureVerdict verdict =
      controllers::MatchPodFailurePolicy(w.job->pod_failure_policy, pod);
  if (verdict.counts) ++w.failed;
  if (verdict.fail_job) {
    FinishJob(w, api::Condition{api::Symbol("Failed"), api::Symbol("True"), "PodFailurePolicy",
                                *verdict.fail_job, clock_.Now()});
  } else if (w.failed > w.job->backoff_limit) {
    FinishJob(w, api::Condition{api::Symbol("Failed"), api::Symbol("True"), "BackoffLimitExceeded",
                                "Job has reached the specified backoff limit", clock_.Now()});
  } else {
    SyncJob(w);
  }
}

// The Job's final condition and upstream's event for it. A Job that failed deletes its pods
// still running or pending, and counts them as failed, as upstream does.
void Simulation::FinishJob(Workload& w, api::Condition condition) {
  const bool failed = condition.type.str() == "Failed";
  if (failed) {
    for (const std::string& key : std::exchange(w.active, {})) {
      const api::Pod* pod = cluster_.Get<api::Pod>(key);
      if (pod == nullptr ||
          controllers::MatchPodFailurePolicy(w.job->pod_failure_policy, *pod).counts) {
        ++w.failed;
      }
      if (pod != nullptr) cluster_.Delete<api::Pod>(key);
    }
    w.indexes.clear();
  }
  cluster_.RecordEvent(framework::EventRecord{
      framework::ReferenceTo(w.meta, std::string(w.kind), std::string(w.api_version)),
      failed ? "Warning" : "Normal", failed ? condition.reason : "Completed", "",
      failed ? condition.message : "Job completed"});
  w.finished = std::move(condition);
}

std::vector<JobRecord> Simulation::Jobs() const {
  std::vector<JobRecord> out;
  for (const std::unique_ptr<Workload>& w : workloads_) {
    if (w->job == nullptr || !w->created) continue;
    JobRecord r;
    r.namespace_ = w->meta.namespace_.string();
    r.name = w->meta.name;
    r.indexed = w->Indexed();
    r.suspended = w->job->suspend;
    r.active = static_cast<int32_t>(w->active.size());
    r.succeeded = w->succeeded;
    r.failed = w->failed;
    if (r.indexed) r.completed_indexes = controllers::FormatIndexes(w->completed);
    r.finished = w->finished;
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const JobRecord& a, const JobRecord& b) {
    return std::tie(a.namespace_, a.name) < std::tie(b.namespace_, b.name);
  });
  return out;
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
  // Controllers.
  if (!phase_changed) return;
  Workload* owner = ActiveOwner(new_pod);
  if (owner == nullptr) return;
  Workload& w = *owner;
  if (new_pod.status.phase == api::PodPhase::kSucceeded) {
    if (w.controller == Workload::Controller::kJob) {
      JobPodSucceeded(w, key);
      return;
    }
    std::erase(w.active, key);
    ++w.succeeded;
    CreateWorkloadPods(w);
  } else if (new_pod.status.phase == api::PodPhase::kFailed) {
    PodFailed(w, new_pod);
  } else if (new_pod.status.phase == api::PodPhase::kRunning && w.ordered) {
    CreateWorkloadPods(w);
  }
}

Simulation::Workload* Simulation::ActiveOwner(const api::Pod& pod) {
  const api::OwnerReference* owner = pod.metadata.ControllerRef();
  if (owner == nullptr) return nullptr;
  auto it = workload_by_uid_.find(owner->uid);
  if (it == workload_by_uid_.end()) return nullptr;
  const std::vector<std::string>& active = it->second->active;
  return std::find(active.begin(), active.end(), pod.metadata.Key()) == active.end() ? nullptr
                                                                                     : it->second;
}

void Simulation::Deleted(const api::PodPtr& deleted) {
  const api::Pod& pod = *deleted;
  Workload* owner = ActiveOwner(pod);
  if (owner == nullptr) return;
  Workload& w = *owner;
  if (w.controller == Workload::Controller::kStatefulSet) {
    // A StatefulSet recreates the same ordinal.
    std::erase(w.active, pod.metadata.Key());
    const std::string prefix = w.meta.name + "-";
    const int ordinal = std::stoi(pod.metadata.name.substr(prefix.size()));
    CreatePodFor(w, ordinal);
    return;
  }
  // Gone before it succeeded: a failure, as the Job controller counts a deleted pod.
  PodFailed(w, pod);
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
