#include "muster/sim/controllers/job.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "muster/api/kinds.h"

namespace muster::sim::controllers {
namespace {

constexpr api::Duration kFirstPodFailureBackoff = std::chrono::seconds(10);
constexpr api::Duration kMaxPodFailureBackoff = std::chrono::minutes(10);

// The pod's first condition that one of the patterns names, type and status alike.
const api::Condition* MatchingCondition(
    const api::Pod& pod, const std::vector<api::PodFailurePolicyOnPodConditionsPattern>& patterns) {
  for (const api::Condition& c : pod.status.conditions) {
    for (const auto& pattern : patterns) {
      if (c.type.str() == pattern.type && c.status.str() == pattern.status) return &c;
    }
  }
  return nullptr;
}

}  // namespace

PodFailureVerdict MatchPodFailurePolicy(const std::optional<api::PodFailurePolicy>& policy,
                                        const api::Pod& pod) {
  if (!policy) return {};
  for (size_t i = 0; i < policy->rules.size(); ++i) {
    const api::PodFailurePolicyRule& rule = policy->rules[i];
    const api::Condition* condition = MatchingCondition(pod, rule.on_pod_conditions);
    if (condition == nullptr) continue;
    switch (rule.action) {
      case api::PodFailurePolicyAction::kIgnore:
        return {.counts = false};
      case api::PodFailurePolicyAction::kFailJob:
        return {.fail_job = fmt::format(
                    "Pod {}/{} has condition {} matching FailJob rule at index {}",
                    pod.metadata.namespace_.str(), pod.metadata.name, condition->type.str(), i)};
      default:
        // Count, and FailIndex (which needs backoffLimitPerIndex, refused at decoding).
        return {};
    }
  }
  return {};
}

api::Duration PodFailureBackoff(int32_t failures) {
  if (failures <= 0) return api::Duration::zero();
  api::Duration backoff = kFirstPodFailureBackoff;
  for (int32_t i = 1; i < failures && backoff < kMaxPodFailureBackoff; ++i) backoff *= 2;
  return std::min(backoff, kMaxPodFailureBackoff);
}

std::string FormatIndexes(const std::vector<bool>& done) {
  std::string out;
  for (size_t first = 0; first < done.size(); ++first) {
    if (!done[first]) continue;
    size_t last = first;
    while (last + 1 < done.size() && done[last + 1]) ++last;
    if (!out.empty()) out += ",";
    out += std::to_string(first);
    if (last > first) out += fmt::format("{}{}", last == first + 1 ? "," : "-", last);
    first = last;
  }
  return out;
}

// ---- the controller (upstream syncJob and manageJob) ----

namespace {

// The Job's template, its pods labelled with the Job's name.
api::PodTemplateSpec TemplateOf(const api::Job& job) {
  api::PodTemplateSpec t = job.template_;
  t.metadata.labels.Set(api::Symbol("job-name"), api::Symbol(job.metadata.name));
  return t;
}

}  // namespace

// A Job as its controller keeps it: its spec, its status, its pods' indexes and failures.
class JobController::Job final : public Workload {
 public:
  Job(const Context& context, const api::Job& job)
      : Workload(context, api::KindOf<api::Job>().name,
                 api::KindOf<api::Job>().api_versions.front(), job.metadata, TemplateOf(job)),
        job_(job),
        parallelism_(job.suspend ? 0 : job.parallelism),
        completions_(job.completions) {
    if (Indexed()) completed_.assign(static_cast<size_t>(*job.completions), false);
  }

  JobRecord Record() const {
    JobRecord r;
    r.namespace_ = meta().namespace_.string();
    r.name = meta().name;
    r.indexed = Indexed();
    r.suspended = job_.suspend;
    r.active = static_cast<int32_t>(active_.size());
    r.succeeded = succeeded_;
    r.failed = failed_;
    if (r.indexed) r.completed_indexes = FormatIndexes(completed_);
    r.finished = finished_;
    return r;
  }

  void PodPhaseChanged(const api::Pod& pod) override {
    if (pod.status.phase == api::PodPhase::kSucceeded) {
      Succeeded(pod.metadata.Key());
    } else if (pod.status.phase == api::PodPhase::kFailed) {
      Failed(pod);
    }
  }
  // Gone before it succeeded: a failure, as upstream counts a deleted pod.
  void PodDeleted(const api::Pod& pod) override { Failed(pod); }

 private:
  bool Indexed() const { return job_.completion_mode == api::CompletionMode::kIndexed; }

  void Manage() override { SyncJob(); }

  // An Indexed Job's pod is named after its completion index too, and carries it.
  api::Pod PodFor(int index) override {
    api::Pod pod = FromTemplate();
    std::string prefix = meta().name + "-";
    if (Indexed()) {
      const std::string value = std::to_string(index);
      prefix += value + "-";
      pod.metadata.labels.Set(api::Symbol(api::kJobCompletionIndex), api::Symbol(value));
      pod.metadata.annotations[std::string(api::kJobCompletionIndex)] = value;
    }
    SetGeneratedName(pod, prefix);
    Own(pod);
    return pod;
  }

  // CreatePodFor, and an Indexed Job's pod's index recorded.
  bool CreatePod(int index) {
    if (!CreatePodFor(index)) return false;
    if (Indexed()) indexes_[active_.back()] = index;
    return true;
  }

  // Done once its completions succeeded (without completions, once one pod did) and no pod
  // runs; else it creates the pods it still wants.
  void SyncJob() {
    if (finished_) return;
    const bool done = completions_ ? succeeded_ >= *completions_ : succeeded_ > 0;
    if (done && active_.empty()) {
      Finish(api::Condition{api::Symbol("Complete"), api::Symbol("True"), "CompletionsReached",
                            "Reached expected number of succeeded pods", context_.clock.Now()});
      return;
    }
    CreatePods();
  }

  // As many pods as parallelism allows and completions still need, once the pod failure backoff
  // has passed; an Indexed Job's for its lowest indexes that neither succeeded nor have a pod.
  void CreatePods() {
    int32_t want = parallelism_;
    if (completions_) {
      want = std::min(want, *completions_ - succeeded_);
    } else if (succeeded_ > 0) {
      want = 0;  // without completions, the first success completes the Job
    }
    auto short_of = [&] { return static_cast<int32_t>(active_.size()) < want; };
    if (!short_of()) return;
    const api::Duration wait =
        last_failure_ + PodFailureBackoff(failures_since_success_) - context_.clock.Now();
    if (wait > api::Duration::zero()) {
      if (!creation_due_) {
        creation_due_ = true;
        context_.at(wait, [this] {
          creation_due_ = false;
          Sync();
        });
      }
      return;
    }
    if (!Indexed()) {
      while (short_of() && CreatePod(0)) {
      }
      return;
    }
    std::vector<bool> taken = completed_;
    for (const auto& [key, index] : indexes_) taken[static_cast<size_t>(index)] = true;
    for (size_t index = 0; index < taken.size() && short_of(); ++index) {
      if (!taken[index] && !CreatePod(static_cast<int>(index))) return;
    }
  }

  void Succeeded(const std::string& key) {
    std::erase(active_, key);
    if (auto it = indexes_.find(key); it != indexes_.end()) {
      // Each index completes once.
      completed_[static_cast<size_t>(it->second)] = true;
      indexes_.erase(it);
      succeeded_ = static_cast<int32_t>(std::count(completed_.begin(), completed_.end(), true));
    } else {
      ++succeeded_;
    }
    // A success ends the run of failures the backoff counts.
    failures_since_success_ = 0;
    SyncJob();
  }

  // A pod that failed, or went before it succeeded. Each failure counts toward backoffLimit
  // unless the pod failure policy ignores it, and past the limit (or on a FailJob rule) the Job
  // fails; else the pod is replaced after the backoff.
  void Failed(const api::Pod& pod) {
    const std::string key = pod.metadata.Key();
    std::erase(active_, key);
    indexes_.erase(key);
    if (finished_) return;
    ++failures_since_success_;
    last_failure_ = context_.clock.Now();
    const PodFailureVerdict verdict = MatchPodFailurePolicy(job_.pod_failure_policy, pod);
    if (verdict.counts) ++failed_;
    if (verdict.fail_job) {
      Finish(api::Condition{api::Symbol("Failed"), api::Symbol("True"), "PodFailurePolicy",
                            *verdict.fail_job, context_.clock.Now()});
    } else if (failed_ > job_.backoff_limit) {
      Finish(api::Condition{api::Symbol("Failed"), api::Symbol("True"), "BackoffLimitExceeded",
                            "Job has reached the specified backoff limit", context_.clock.Now()});
    } else {
      SyncJob();
    }
  }

  // The Job's final condition and upstream's event for it. A Job that failed deletes its pods
  // still running or pending, and counts them as failed, as upstream does.
  void Finish(api::Condition condition) {
    const bool failed = condition.type.str() == "Failed";
    if (failed) {
      for (const std::string& key : std::exchange(active_, {})) {
        const api::Pod* pod = context_.cluster.Get<api::Pod>(key);
        if (pod == nullptr || MatchPodFailurePolicy(job_.pod_failure_policy, *pod).counts) {
          ++failed_;
        }
        if (pod != nullptr) context_.cluster.Delete<api::Pod>(key);
      }
      indexes_.clear();
    }
    context_.cluster.RecordEvent(framework::EventRecord{
        Reference(), failed ? "Warning" : "Normal", failed ? condition.reason : "Completed", "",
        failed ? condition.message : "Job completed"});
    finished_ = std::move(condition);
  }

  const api::Job& job_;  // its spec
  const int32_t parallelism_;
  const std::optional<int32_t> completions_;
  int32_t succeeded_ = 0;
  int32_t failed_ = 0;                      // status.failed: failures counted toward backoffLimit
  std::map<std::string, int32_t> indexes_;  // Indexed: each active pod's completion index
  std::vector<bool> completed_;             // Indexed: the indexes that succeeded
  int32_t failures_since_success_ = 0;      // for the pod failure backoff
  api::Time last_failure_{};
  bool creation_due_ = false;               // a timer creates pods when the backoff ends
  std::optional<api::Condition> finished_;  // Complete or Failed
};

JobController::JobController(const Context& context) : context_(context) {}

JobController::~JobController() = default;

Workload& JobController::Add(const api::Job& job) {
  jobs_.push_back(std::make_unique<Job>(context_, job));
  return *jobs_.back();
}

std::vector<JobRecord> JobController::Jobs() const {
  std::vector<JobRecord> out;
  for (const std::unique_ptr<Job>& job : jobs_) {
    if (job->created()) out.push_back(job->Record());
  }
  std::sort(out.begin(), out.end(), [](const JobRecord& a, const JobRecord& b) {
    return std::tie(a.namespace_, a.name) < std::tie(b.namespace_, b.name);
  });
  return out;
}

}  // namespace muster::sim::controllers
