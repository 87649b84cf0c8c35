#include "muster/plugins/defaultpreemption/default_preemption.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "muster/framework/extender.h"
#include "muster/framework/framework.h"
#include "muster/framework/log.h"
#include "muster/framework/metrics.h"
#include "muster/framework/parallel.h"
#include "muster/framework/trace.h"

namespace muster::plugins::defaultpreemption {
namespace {

using framework::Code;
using framework::NodeInfo;
using framework::PodInfo;
using framework::PodInfoPtr;
using framework::Status;

// Nodes evaluated per batch of the dry run, and the size below which a batch runs sequentially
// (node by node, stopping as soon as enough candidates are found).
constexpr size_t kBatchSize = 64;

constexpr std::string_view kPodScheduled = "PodScheduled";
constexpr std::string_view kDisruptionTarget = "DisruptionTarget";
constexpr std::string_view kReasonPreemptionByScheduler = "PreemptionByScheduler";

api::Time StartTimeOr(const api::Pod& pod, api::Time now) {
  return pod.status.start_time.value_or(now);
}

// How long a deletion this plugin asked for may take to show in the informer before it is taken
// as failed: twice the minute `muster run`'s writer retries a write that fails.
constexpr api::Duration kEvictionShowsWithin = std::chrono::minutes(2);

// Upstream podTerminatingByPreemption: being deleted, with the DisruptionTarget condition the
// scheduler sets on the victims it preempts.
bool DeletedByPreemption(const api::Pod& pod) {
  if (!pod.metadata.deletion_timestamp) return false;
  for (const api::Condition& c : pod.status.conditions) {
    if (c.type.str() == kDisruptionTarget) {
      return c.status.str() == "True" && c.reason == kReasonPreemptionByScheduler;
    }
  }
  return false;
}

// The scheduler keys a pod without a uid by namespace/name.
std::string PodKey(const api::Pod& pod) {
  return pod.metadata.uid.empty() ? pod.metadata.Key() : pod.metadata.uid;
}

// Upstream util.GetEarliestPodStartTime: the earliest start among the highest-priority victims.
api::Time EarliestStartOfHighestPriority(const Candidate& c, api::Time now) {
  int32_t max_priority = c.victims.front()->pod.Priority();
  api::Time earliest = StartTimeOr(c.victims.front()->pod, now);
  for (const PodInfoPtr& v : c.victims) {
    const int32_t p = v->pod.Priority();
    const api::Time start = StartTimeOr(v->pod, now);
    if (p == max_priority) {
      earliest = std::min(earliest, start);
    } else if (p > max_priority) {
      max_priority = p;
      earliest = start;
    }
  }
  return earliest;
}

// k8s.io/apimachinery's aggregate error text: one message as is, several (deduplicated, in
// order) as "[a, b]".
std::string AggregateErrors(const std::vector<std::string>& errors) {
  if (errors.size() == 1) return errors.front();
  std::vector<std::string> distinct;
  for (const std::string& e : errors) {
    if (std::find(distinct.begin(), distinct.end(), e) == distinct.end()) distinct.push_back(e);
  }
  if (distinct.size() == 1) return distinct.front();
  return fmt::format("[{}]", fmt::join(distinct, ", "));
}

// Upstream FitError.Error() for preemption's own diagnosis: "0/N nodes are available: <count>
// <reason>, ... ." with the reasons sorted as strings; nodes without a status count with
// `absent`'s reasons.
std::string FitErrorMessage(int32_t num_all_nodes, const framework::NodeToStatus& statuses) {
  const std::vector<std::string> parts = statuses.ReasonCounts(num_all_nodes);
  std::string msg = fmt::format("0/{} nodes are available:", num_all_nodes);
  if (!parts.empty()) msg += fmt::format(" {}.", fmt::join(parts, ", "));
  return msg;
}

// The pod's current PodScheduled condition, re-sent unchanged when only its nomination is cleared
// (ClusterClient writes the two together).
api::Condition CurrentPodScheduledCondition(const api::Pod& pod) {
  for (const api::Condition& c : pod.status.conditions) {
    if (c.type.str() == kPodScheduled) return c;
  }
  api::Condition c;
  c.type = api::Symbol(kPodScheduled);
  c.status = api::Symbol("False");
  c.reason = "Unschedulable";
  return c;
}

}  // namespace

bool MoreImportantPod(const api::Pod& a, const api::Pod& b, api::Time now) {
  const int32_t pa = a.Priority();
  const int32_t pb = b.Priority();
  if (pa != pb) return pa > pb;
  return StartTimeOr(a, now) < StartTimeOr(b, now);
}

namespace {

// Counts `pod`'s eviction against each budget that matches it (allowed[i] for pdbs[i]); true
// when that takes one below zero.
bool ExceedsBudget(const api::Pod& pod, std::span<const api::PodDisruptionBudget* const> pdbs,
                   std::vector<int64_t>& allowed) {
  bool violated = false;
  // A pod without labels matches no budget.
  if (pod.metadata.labels.empty()) return false;
  for (size_t i = 0; i < pdbs.size(); ++i) {
    const api::PodDisruptionBudget& pdb = *pdbs[i];
    if (pdb.metadata.namespace_ != pod.metadata.namespace_) continue;
    // A missing or empty selector selects nothing; an ill-formed one matches nothing.
    if (!pdb.selector || pdb.selector->Empty() || !pdb.selector->Matches(pod.metadata.labels)) {
      continue;
    }
    // An eviction the API server has processed already counts in disruptionsAllowed: this
    // pod's is no new disruption of the budget (upstream does not decrement twice).
    if (std::binary_search(pdb.status.disrupted_pods.begin(), pdb.status.disrupted_pods.end(),
                           pod.metadata.name)) {
      continue;
    }
    if (--allowed[i] < 0) violated = true;
  }
  return violated;
}

std::vector<int64_t> DisruptionsAllowed(std::span<const api::PodDisruptionBudget* const> pdbs) {
  std::vector<int64_t> allowed(pdbs.size());
  for (size_t i = 0; i < pdbs.size(); ++i) allowed[i] = pdbs[i]->status.disruptions_allowed;
  return allowed;
}

// Upstream FilterVictimsWithPDBViolation: FilterPodsWithPDBViolation for victims. A victim
// violates when any of its pods does; *violations[k] counts the pods of violating[k] that do.
void FilterVictimsWithPDBViolation(std::span<const Victim* const> victims,
                                   std::span<const api::PodDisruptionBudget* const> pdbs,
                                   std::vector<const Victim*>* violating,
                                   std::vector<int64_t>* violations,
                                   std::vector<const Victim*>* non_violating) {
  std::vector<int64_t> allowed = DisruptionsAllowed(pdbs);
  for (const Victim* v : victims) {
    int64_t count = 0;
    for (const PodInfoPtr& p : v->pods) count += ExceedsBudget(p->pod, pdbs, allowed) ? 1 : 0;
    if (count > 0) {
      violating->push_back(v);
      violations->push_back(count);
    } else {
      non_violating->push_back(v);
    }
  }
}

// Upstream's reprieve, for a node's dry run and a gang's trial alike: the possible victims, the
// most important first and those whose eviction would exceed a budget before the others, each
// given back through `give_back` (*reprieved: the preemptor still fits with it back). Those not
// reprieved go to *chosen, the most important first, and the pods of theirs beyond a budget
// count in *num_pdb_violations. Stops at give_back's first failure.
// (A template: the dry run calls it for every node, and a std::function of give_back would
// allocate each time.)
template <typename GiveBack>
Status ReprieveVictims(
    std::vector<const Victim*> potential, std::span<const api::PodDisruptionBudget* const> pdbs,
    api::Time now, const std::function<bool(const api::Pod&, const api::Pod&)>& more_important_pod,
    const GiveBack& give_back, std::vector<const Victim*>* chosen, int64_t* num_pdb_violations) {
  auto more_important = [&](const Victim* a, const Victim* b) {
    // Two pods (the common case) compare by the pod order alone.
    if (!a->gang && !b->gang) return more_important_pod(a->pods.front()->pod, b->pods.front()->pod);
    return MoreImportantVictim(*a, *b, now, more_important_pod);
  };
  std::stable_sort(potential.begin(), potential.end(), more_important);
  std::vector<const Victim*> violating;
  std::vector<int64_t> violations;
  std::vector<const Victim*> non_violating;
  FilterVictimsWithPDBViolation(potential, pdbs, &violating, &violations, &non_violating);
  for (size_t i = 0; i < violating.size() + non_violating.size(); ++i) {
    const bool violates = i < violating.size();
    const Victim& v = violates ? *violating[i] : *non_violating[i - violating.size()];
    bool reprieved = false;
    if (Status s = give_back(v, &reprieved); !s.IsSuccess()) return s;
    if (reprieved) continue;
    chosen->push_back(&v);
    if (violates) *num_pdb_violations += violations[i];
  }
  // Victims from the two groups interleave in importance.
  if (!violating.empty() && !non_violating.empty()) {
    std::stable_sort(chosen->begin(), chosen->end(), more_important);
  }
  return Status::OK();
}

}  // namespace

void FilterPodsWithPDBViolation(std::span<const PodInfoPtr> pods,
                                std::span<const api::PodDisruptionBudget* const> pdbs,
                                std::vector<PodInfoPtr>* violating,
                                std::vector<PodInfoPtr>* non_violating) {
  std::vector<int64_t> allowed = DisruptionsAllowed(pdbs);
  for (const PodInfoPtr& p : pods) {
    (ExceedsBudget(p->pod, pdbs, allowed) ? violating : non_violating)->push_back(p);
  }
}

bool EvictedWhole(const api::Pod& pod, const framework::ObjectLister& lister, api::GangRef* gang) {
  const api::GangRef unit = api::EvictionUnit(pod, lister);
  if (!unit.empty() && gang != nullptr) *gang = unit;
  return !unit.empty();
}

const Victim* WholeGangs::Of(const api::Pod& pod) const {
  if (of_pod.empty()) return nullptr;
  auto it = of_pod.find(pod.metadata.Key());
  return it == of_pod.end() ? nullptr : &gangs[it->second];
}

WholeGangs FindWholeGangs(int32_t priority, std::span<NodeInfo* const> nodes,
                          const framework::Snapshot& snapshot,
                          const framework::ObjectLister& lister) {
  WholeGangs found;
  // Without any PodGroup there is no gang to look for (the common case costs nothing more).
  if (lister.objects().Of<api::PodGroup>().size() == 0 &&
      lister.objects().Of<api::SchedulingPodGroup>().size() == 0) {
    return found;
  }
  // Each pod's unit, worked out once per gang (the walk up a tree looks objects up).
  struct Unit {
    api::Symbol ns;
    api::GangRef unit;  // what it is evicted with
    std::optional<int32_t> priority;
  };
  std::map<std::tuple<uint32_t, uint8_t, uint32_t>, Unit> units;  // by the pod's own gang
  auto unit_of = [&](const api::Pod& pod) -> const Unit* {
    const api::GangRef gang = api::GangOf(pod);
    if (gang.empty()) return nullptr;
    const api::Symbol ns = pod.metadata.namespace_;
    auto [it, added] = units.try_emplace({ns.id(), gang.kind, gang.name.id()}, Unit{ns, {}, {}});
    if (added) it->second.unit = api::EvictionUnit(pod, lister, &it->second.priority);
    return it->second.unit.empty() ? nullptr : &it->second;
  };
  // The units, by namespace and unit: first among the possible victims on `nodes`...
  std::vector<std::pair<api::Symbol, api::GangRef>> keys;
  std::vector<std::optional<int32_t>> priorities;
  for (const NodeInfo* node : nodes) {
    if (node->min_pod_priority() >= priority) continue;
    for (const PodInfoPtr& p : node->pods()) {
      if (p->pod.Priority() >= priority) continue;
      const Unit* u = unit_of(p->pod);
      if (u == nullptr) continue;
      const std::pair<api::Symbol, api::GangRef> key{u->ns, u->unit};
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        keys.push_back(key);
        priorities.push_back(u->priority);
      }
    }
  }
  if (keys.empty()) return found;
  // ...then their members on every node.
  found.gangs.resize(keys.size());
  found.members.resize(keys.size());
  for (const NodeInfo* node : snapshot.List()) {
    for (const PodInfoPtr& p : node->pods()) {
      const Unit* u = unit_of(p->pod);
      if (u == nullptr) continue;
      const std::pair<api::Symbol, api::GangRef> key{u->ns, u->unit};
      auto it = std::find(keys.begin(), keys.end(), key);
      if (it == keys.end()) continue;
      const auto i = static_cast<size_t>(it - keys.begin());
      Victim& v = found.gangs[i];
      v.priority =
          found.members[i].empty() ? p->pod.Priority() : std::max(v.priority, p->pod.Priority());
      v.gang = true;
      v.composite = u->unit.Of<api::CompositePodGroup>();
      found.members[i].push_back(p);
      found.of_pod.emplace(p->Key(), i);
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    found.gangs[i].pods = found.members[i];
    if (priorities[i]) found.gangs[i].priority = *priorities[i];
  }
  return found;
}

bool MoreImportantVictim(
    const Victim& a, const Victim& b, api::Time now,
    const std::function<bool(const api::Pod&, const api::Pod&)>& more_important_pod) {
  if (!a.gang && !b.gang) return more_important_pod(a.pods.front()->pod, b.pods.front()->pod);
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.gang != b.gang) return a.gang;
  if (a.composite != b.composite) return a.composite;
  if (a.pods.size() != b.pods.size()) return a.pods.size() > b.pods.size();
  auto earliest = [now](const Victim& v) {
    api::Time t = StartTimeOr(v.pods.front()->pod, now);
    for (const PodInfoPtr& p : v.pods) t = std::min(t, StartTimeOr(p->pod, now));
    return t;
  };
  return earliest(a) < earliest(b);
}

const Candidate* PickOneNodeForPreemption(std::span<const Candidate> candidates, api::Time now) {
  if (candidates.empty()) return nullptr;
  using Score = std::function<int64_t(const Candidate&)>;
  const Score scores[] = {
      [](const Candidate& c) { return -c.num_pdb_violations; },
      [](const Candidate& c) { return -int64_t{c.victims.front()->pod.Priority()}; },
      [](const Candidate& c) {
        // Shifting every priority to be non-negative keeps a node with a few negative-priority
        // victims from winning over one with fewer victims of the same priority.
        int64_t sum = 0;
        for (const PodInfoPtr& v : c.victims) {
          sum += int64_t{v->pod.Priority()} + int64_t{std::numeric_limits<int32_t>::max()} + 1;
        }
        return -sum;
      },
      [](const Candidate& c) { return -static_cast<int64_t>(c.victims.size()); },
      [now](const Candidate& c) {
        return static_cast<int64_t>(
            EarliestStartOfHighestPriority(c, now).time_since_epoch().count());
      },
  };
  std::vector<const Candidate*> remaining;
  remaining.reserve(candidates.size());
  for (const Candidate& c : candidates) remaining.push_back(&c);
  for (const Score& score : scores) {
    std::vector<const Candidate*> best;
    int64_t max_score = std::numeric_limits<int64_t>::min();
    for (const Candidate* c : remaining) {
      const int64_t s = score(*c);
      if (s > max_score) {
        max_score = s;
        best.clear();
      }
      if (s == max_score) best.push_back(c);
    }
    if (best.size() == 1) return best.front();
    remaining = std::move(best);
  }
  return remaining.front();
}

std::unique_ptr<DefaultPreemption> DefaultPreemption::Create(const DefaultPreemptionArgs& args,
                                                             framework::Handle& handle,
                                                             std::string* error) {
  const std::vector<api::FieldError> errors = Validate(args);
  if (!errors.empty()) {
    *error = JoinFieldErrors(errors);
    return nullptr;
  }
  return std::unique_ptr<DefaultPreemption>(new DefaultPreemption(args, handle));
}

std::unique_ptr<framework::Plugin> DefaultPreemption::New(const framework::PluginArgs& args,
                                                          framework::Handle& handle,
                                                          std::string* error) {
  DefaultPreemptionArgs decoded;
  if (!LoadDefaultPreemptionArgs(args, &decoded, error)) return nullptr;
  return std::unique_ptr<DefaultPreemption>(new DefaultPreemption(decoded, handle));
}

DefaultPreemption::DefaultPreemption(const DefaultPreemptionArgs& args, framework::Handle& handle)
    : args_(args),
      handle_(handle),
      is_eligible_pod_([](const NodeInfo&, const PodInfo&, const api::Pod&) { return true; }),
      more_important_pod_([this](const api::Pod& a, const api::Pod& b) {
        return MoreImportantPod(a, b, handle_.clock().Now());
      }),
      no_victims_(Status::Unresolvable(std::string(kNoVictims))),
      not_helpful_(Status::Unresolvable(std::string(kNotHelpful))) {
  if (framework::Metrics* m = handle.metrics()) busy_ = m->Goroutines(Name()).get();
}

Status DefaultPreemption::PostFilter(framework::CycleState& state, const PodInfo& pod,
                                     const framework::NodeToStatus& statuses,
                                     framework::PostFilterResult* result) {
  // Every non-empty message goes out as "preemption: <message>", as upstream's PostFilter wraps
  // the evaluator's status.
  auto wrap = [](Code code, std::string_view message) {
    return Status(code, fmt::format("preemption: {}", message));
  };
  // Every call is an attempt, whatever its outcome (upstream counts them the same way).
  framework::Metrics* metrics = handle_.metrics();
  if (metrics != nullptr) metrics->PreemptionAttempt();
  ForgetEvictionsSeen();

  std::string reason;
  const Status& nominated_status = statuses.Get(handle_.NominatedNodeOf(pod.pod));
  if (!PodEligibleToPreemptOthers(pod.pod, nominated_status, &reason)) {
    return wrap(Code::kUnschedulable, reason);
  }

  const framework::Snapshot& snapshot = handle_.snapshot();
  const std::vector<NodeInfo*>& all_nodes = snapshot.List();
  if (all_nodes.empty()) return wrap(Code::kError, "no nodes available");
  // Only nodes Filter found merely Unschedulable can be helped by evicting pods. A pod turned
  // away before Filter (by PreFilter) has no such node, and no node need be looked up.
  auto might_help = [](const Status& s) { return s.code() == Code::kUnschedulable; };
  std::vector<NodeInfo*> potential;
  std::vector<NodeInfo*> hopeless;
  if (might_help(statuses.absent) ||
      std::any_of(statuses.entries().begin(), statuses.entries().end(),
                  [&](const auto& entry) { return might_help(entry.second); })) {
    for (NodeInfo* node : all_nodes) {
      (might_help(statuses.Get(node->name())) ? potential : hopeless).push_back(node);
    }
  }

  std::vector<Candidate> candidates;
  framework::NodeToStatus dry_run_statuses;
  dry_run_statuses.absent = not_helpful_;
  std::vector<std::string> errors;
  if (potential.empty()) {
    // Nothing to try.
  } else if (snapshot.MinPodPriority() >= pod.pod.Priority()) {
    // No pod anywhere has a lower priority than this one: each node's dry run would find no
    // victims. The same verdicts, without visiting the nodes.
    dry_run_statuses.absent = no_victims_;
    for (const NodeInfo* node : hopeless) dry_run_statuses.Set(node->name(), not_helpful_);
  } else {
    const WholeGangs gangs =
        FindWholeGangs(pod.pod.Priority(), potential, snapshot, handle_.lister());
    // (A gang lives in one namespace: its members' budgets are among these.)
    const std::vector<const api::PodDisruptionBudget*> pdbs =
        RelevantPDBs(pod.pod.Priority(), potential);
    const auto n = static_cast<int32_t>(potential.size());
    candidates =
        DryRunPreemption(state, pod, potential, pdbs, Offset(pod.pod, n), CalculateNumCandidates(n),
                         &dry_run_statuses, &errors, gangs.gangs.empty() ? nullptr : &gangs);
  }
  // For `muster explain`: what the dry run looked at and found.
  framework::AttemptTrace* trace = state.trace.get();
  auto victims_of = [](const Candidate& c) {
    std::vector<std::string> names;
    for (const PodInfoPtr& v : c.victims) names.push_back(v->Key());
    return fmt::format("{}", fmt::join(names, ", "));
  };
  if (trace != nullptr) {
    trace->post_filter_notes.push_back(
        potential.empty()
            ? std::string("no node where evicting pods might help: Filter's rejections are all "
                          "unresolvable")
            : fmt::format("{} node(s) where evicting pods might help, {} where it cannot",
                          potential.size(), hopeless.size()));
    if (!potential.empty() && snapshot.MinPodPriority() >= pod.pod.Priority()) {
      trace->post_filter_notes.push_back(
          "no pod of lower priority runs anywhere: no node has victims");
    }
    if (!candidates.empty()) {
      std::vector<std::string> listed;
      for (size_t i = 0; i < candidates.size() && i < 5; ++i) {
        listed.push_back(fmt::format("{} ({} victim(s): {})", candidates[i].node.str(),
                                     candidates[i].victims.size(), victims_of(candidates[i])));
      }
      trace->post_filter_notes.push_back(
          fmt::format("{} candidate node(s): {}{}", candidates.size(), fmt::join(listed, "; "),
                      candidates.size() > listed.size() ? "; ..." : ""));
    }
  }
  if (candidates.empty()) {
    if (!errors.empty()) return wrap(Code::kError, AggregateErrors(errors));
    // Clears a nomination the pod may hold from an earlier preemption that no longer helps.
    *result = framework::PostFilterResult{api::Symbol(), framework::NominatingMode::kOverride};
    return wrap(Code::kUnschedulable,
                FitErrorMessage(static_cast<int32_t>(all_nodes.size()), dry_run_statuses));
  }

  if (Status s = CallExtenders(pod, &candidates); !s.IsSuccess()) {
    // As upstream: no nominating info, so a nomination the pod holds stays.
    return wrap(s.code(), s.Message());
  }
  if (trace != nullptr && !handle_.extenders().empty()) {
    std::vector<std::string> kept;
    for (const Candidate& c : candidates) kept.push_back(c.node.string());
    trace->post_filter_notes.push_back(fmt::format("after the extenders: {} candidate node(s){}{}",
                                                   candidates.size(), kept.empty() ? "" : ": ",
                                                   fmt::join(kept, ", ")));
  }
  const Candidate* best = SelectCandidate(candidates);
  if (best == nullptr || best->node.empty()) return wrap(Code::kUnschedulable, kNoCandidate);
  if (metrics != nullptr) metrics->PreemptionVictims(best->victims.size());
  if (trace != nullptr) {
    trace->post_filter_notes.push_back(
        fmt::format("chose {}: evicting {}", best->node.str(), victims_of(*best)));
  }
  if (Status s = PrepareCandidate(*best, pod); !s.IsSuccess()) {
    return wrap(s.code(), s.Message());
  }
  *result = framework::PostFilterResult{best->node, framework::NominatingMode::kOverride};
  return Status::OK();
}

Status DefaultPreemption::PostFilterGroup(const framework::Gang& gang,
                                          std::span<const PodInfo* const> pending,
                                          framework::GroupTrial& trial,
                                          framework::AttemptTrace* trace,
                                          framework::GroupPostFilterResult* result) {
  auto wrap = [](Code code, std::string_view message) {
    return Status(code, fmt::format("pod group preemption: {}", message));
  };
  auto note = [&](std::string text) {
    if (trace != nullptr) trace->post_filter_notes.push_back(std::move(text));
  };
  framework::Metrics* metrics = handle_.metrics();
  if (metrics != nullptr) metrics->PreemptionAttempt();
  if (pending.empty()) return wrap(Code::kUnschedulable, "no pending member");
  ForgetEvictionsSeen();

  // The gang's priority and preemption policy: its PodGroup's where it sets them (a composite
  // group's tree: its root's, as upstream).
  const api::Pod& first = pending.front()->pod;
  const api::GangRef ref = api::GangOf(first);
  const api::PodGroupPolicy* policy = nullptr;
  if (gang.composite()) {
    if (const auto* root =
            handle_.lister().Get<api::CompositePodGroup>(gang.namespace_, gang.name)) {
      policy = &root->spec.policy;
    }
  } else if (ref.Of<api::SchedulingPodGroup>()) {
    if (const auto* group =
            handle_.lister().Get<api::SchedulingPodGroup>(gang.namespace_, ref.name)) {
      policy = &group->spec.policy;
    }
  }
  int32_t priority = first.Priority();
  bool never = policy != nullptr && policy->preemption_policy == api::PreemptionPolicy::kNever;
  for (const PodInfo* m : pending) {
    priority = std::min(priority, m->pod.Priority());
    never |= m->pod.spec.preemption_policy == api::PreemptionPolicy::kNever;
  }
  if (policy != nullptr && policy->priority) priority = *policy->priority;
  if (never) return wrap(Code::kUnschedulable, kNotEligiblePreemptNever);
  const framework::Snapshot& snapshot = trial.snapshot();
  // The room an earlier preemption is making for a member has not been freed yet: wait for it.
  for (const PodInfo* m : pending) {
    const api::Symbol nominated = handle_.NominatedNodeOf(m->pod);
    const NodeInfo* node = nominated.empty() ? nullptr : snapshot.Get(nominated);
    if (node == nullptr) continue;
    for (const PodInfoPtr& p : node->pods()) {
      if (p->pod.Priority() < priority && TerminatingByPreemption(p->pod)) {
        return wrap(Code::kUnschedulable, kNotEligibleTerminating);
      }
    }
  }

  // The possible victims, on every node: each pod of lower priority, each gang evicted whole
  // (of lower priority, every member eligible) as one. The gang's own members are not.
  const std::span<NodeInfo* const> nodes = snapshot.List();
  const WholeGangs gangs = FindWholeGangs(priority, nodes, snapshot, handle_.lister());
  // (A composite group's tree: a pod of any of its groups.)
  std::vector<api::GangRef> own_groups;
  gang.ForEachGroup([&](const framework::Gang& group) {
    own_groups.push_back({ref.kind, group.name});
  });
  auto own = [&](const api::Pod& p) {
    if (p.metadata.namespace_ != gang.namespace_) return false;
    const api::GangRef g = api::GangOf(p);
    return g == ref || std::find(own_groups.begin(), own_groups.end(), g) != own_groups.end();
  };
  std::deque<PodInfoPtr> single_pods;
  std::deque<Victim> singles;
  std::vector<const Victim*> potential;
  for (const NodeInfo* node : nodes) {
    if (node->min_pod_priority() >= priority) continue;
    for (const PodInfoPtr& p : node->pods()) {
      if (own(p->pod)) continue;
      if (const Victim* whole = gangs.Of(p->pod)) {
        if (whole->priority >= priority ||
            std::find(potential.begin(), potential.end(), whole) != potential.end()) {
          continue;
        }
        const bool eligible =
            std::all_of(whole->pods.begin(), whole->pods.end(), [&](const PodInfoPtr& member) {
              const NodeInfo* at = snapshot.Get(member->pod.spec.node_name);
              return at != nullptr && is_eligible_pod_(*at, *member, first);
            });
        if (eligible) potential.push_back(whole);
      } else if (p->pod.Priority() < priority && is_eligible_pod_(*node, *p, first)) {
        const PodInfoPtr& one = single_pods.emplace_back(p);
        potential.push_back(&singles.emplace_back(Victim{{&one, 1}, p->pod.Priority(), false}));
      }
    }
  }
  if (potential.empty()) {
    note(fmt::format("no pod (nor gang) of priority below {} may be preempted", priority));
    return wrap(Code::kUnschedulableAndUnresolvable,
                "No preemption victims found for incoming preemptor");
  }

  const std::vector<const api::PodDisruptionBudget*> pdbs = RelevantPDBs(priority, nodes);
  // Everything that may be evicted out: unless the quorum then fits, nothing is evicted.
  for (const Victim* v : potential) {
    for (const PodInfoPtr& p : v->pods) trial.TakeOut(p->pod);
  }
  const framework::TrialResult trial_result = trial.PlaceMembers({});
  const std::vector<framework::TrialPlacement>& placements = trial_result.placements;
  const auto fit = trial.assigned() + static_cast<int32_t>(placements.size());
  const auto total = trial.assigned() + static_cast<int32_t>(pending.size());
  if (gang.composite()) {
    note(fmt::format(
        "{} possible victim(s) of priority below {}; without them the composite "
        "group {}: {}/{} members placed",
        potential.size(), priority, trial_result.whole ? "fits" : "does not fit", fit, total));
    if (!trial_result.whole) {
      return wrap(Code::kUnschedulable,
                  fmt::format("the composite group would not fit even with every pod of lower "
                              "priority evicted ({}): nothing evicted",
                              trial_result.why));
    }
  } else {
    // (A gang held to one domain: why no domain would hold it, from the trial.)
    const std::string& why = trial_result.why;
    note(fmt::format(
        "{} possible victim(s) of priority below {}; without them {}", potential.size(), priority,
        why.empty()
            ? fmt::format("{}/{} members fit ({} {})", fit, total, gang.quorum_name, gang.min_count)
            : why));
    if (!trial_result.whole) {
      return wrap(Code::kUnschedulable,
                  fmt::format("the gang would not fit even with every pod of lower priority "
                              "evicted ({}): nothing evicted",
                              why.empty() ? fmt::format("{}/{} members fit, {} {}", fit, total,
                                                        gang.quorum_name, gang.min_count)
                                          : why));
    }
  }

  // Given back one by one; each stays when every placed member still fits on its node.
  std::vector<const Victim*> chosen;
  int64_t num_pdb_violations = 0;
  ReprieveVictims(
      std::move(potential), pdbs, handle_.clock().Now(), more_important_pod_,
      [&](const Victim& v, bool* reprieved) {
        for (const PodInfoPtr& p : v.pods) trial.PutBack(p->pod);
        *reprieved = trial.PlaceMembers(placements).whole;
        if (!*reprieved) {
          for (const PodInfoPtr& p : v.pods) trial.TakeOut(p->pod);
        }
        return Status::OK();
      },
      &chosen, &num_pdb_violations);
  std::vector<PodInfoPtr> victims;
  std::vector<api::Symbol> victim_nodes;
  for (const Victim* v : chosen) {
    for (const PodInfoPtr& p : v->pods) {
      victims.push_back(p);
      if (std::find(victim_nodes.begin(), victim_nodes.end(), p->pod.spec.node_name) ==
          victim_nodes.end()) {
        victim_nodes.push_back(p->pod.spec.node_name);
      }
    }
  }
  if (metrics != nullptr) metrics->PreemptionVictims(victims.size());
  std::vector<std::string> names;
  for (const PodInfoPtr& p : victims) names.push_back(p->Key());
  note(fmt::format(
      "evicting {} pod(s){}{}{}", victims.size(), names.empty() ? "" : ": ", fmt::join(names, ", "),
      num_pdb_violations > 0 ? fmt::format(" ({} beyond a PodDisruptionBudget)", num_pdb_violations)
                             : std::string()));
  if (Status s = Evict(victims, gang.object, gang.Key()); !s.IsSuccess()) {
    return wrap(s.code(), s.Message());
  }
  // Pods of lower priority nominated to the members' nodes may no longer fit there (as
  // PrepareCandidate).
  framework::ClusterClient& client = handle_.client();
  std::vector<api::Symbol> member_nodes;
  for (const framework::TrialPlacement& p : placements) {
    if (std::find(member_nodes.begin(), member_nodes.end(), p.node) != member_nodes.end()) continue;
    member_nodes.push_back(p.node);
    for (const PodInfoPtr& q : handle_.NominatedPodsForNode(p.node)) {
      if (q->pod.Priority() >= priority || own(q->pod)) continue;
      client.UpdatePodCondition(q->pod, CurrentPodScheduledCondition(q->pod), std::string());
    }
  }
  result->nominations = placements;
  return Status(Code::kSuccess,
                fmt::format("pod group preemption: {} pod(s) evicted on {} node(s) to make room "
                            "for {} member(s)",
                            victims.size(), victim_nodes.size(), placements.size()));
}

bool DefaultPreemption::PodEligibleToPreemptOthers(const api::Pod& pod,
                                                   const Status& nominated_node_status,
                                                   std::string* reason) const {
  if (pod.spec.preemption_policy == api::PreemptionPolicy::kNever) {
    *reason = std::string(kNotEligiblePreemptNever);
    return false;
  }
  // A member of a Kubernetes PodGroup whose preemptionPolicy is Never (1.37) preempts nothing
  // either, as upstream's e2e test of PodGroupPreemptionPolicy has it.
  if (!pod.spec.scheduling_group.empty()) {
    const auto* group = handle_.lister().Get<api::SchedulingPodGroup>(pod.metadata.namespace_,
                                                                      pod.spec.scheduling_group);
    if (group != nullptr && group->spec.policy.preemption_policy == api::PreemptionPolicy::kNever) {
      *reason = std::string(kNotEligiblePreemptNever);
      return false;
    }
  }
  const api::Symbol nominated = handle_.NominatedNodeOf(pod);
  if (nominated.empty()) return true;
  // Filter says evictions cannot help on the nominated node: look for another.
  if (nominated_node_status.code() == Code::kUnschedulableAndUnresolvable) return true;
  if (const NodeInfo* node = handle_.snapshot().Get(nominated)) {
    for (const PodInfoPtr& p : node->pods()) {
      if (IsPreemptionAllowed(*node, *p, pod) && TerminatingByPreemption(p->pod)) {
        // The room an earlier preemption is making has not been freed yet: wait for it.
        *reason = std::string(kNotEligibleTerminating);
        return false;
      }
    }
  }
  return true;
}

bool DefaultPreemption::TerminatingByPreemption(const api::Pod& pod) const {
  if (DeletedByPreemption(pod)) return true;
  if (evicted_.empty()) return false;
  const std::string key = PodKey(pod);
  return std::any_of(evicted_.begin(), evicted_.end(),
                     [&](const Evicted& e) { return e.key == key; });
}

void DefaultPreemption::ForgetEvictionsSeen() {
  if (evicted_.empty()) return;
  const framework::Snapshot& snapshot = handle_.snapshot();
  const api::Time now = handle_.clock().Now();
  std::erase_if(evicted_, [&](const Evicted& e) {
    if (now - e.at >= kEvictionShowsWithin) return true;
    const NodeInfo* node = snapshot.Get(e.node);
    if (node == nullptr) return true;
    for (const PodInfoPtr& p : node->pods()) {
      if (PodKey(p->pod) == e.key) return p->pod.metadata.deletion_timestamp.has_value();
    }
    return true;
  });
}

int32_t DefaultPreemption::CalculateNumCandidates(int32_t num_nodes) const {
  int64_t n = int64_t{num_nodes} * args_.min_candidate_nodes_percentage / 100;
  n = std::max<int64_t>(n, args_.min_candidate_nodes_absolute);
  return static_cast<int32_t>(std::min<int64_t>(n, num_nodes));
}

int32_t DefaultPreemption::Offset(const api::Pod& pod, int32_t num_nodes) {
  if (num_nodes <= 0) return 0;
  // FNV-1a over the key, then SplitMix64's finaliser to spread similar keys apart.
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : pod.metadata.Key()) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 31;
  return static_cast<int32_t>(h % static_cast<uint64_t>(num_nodes));
}

bool DefaultPreemption::IsPreemptionAllowed(const NodeInfo& node, const PodInfo& victim,
                                            const api::Pod& preemptor) const {
  return victim.pod.Priority() < preemptor.Priority() && is_eligible_pod_(node, victim, preemptor);
}

bool DefaultPreemption::HasPossibleVictim(const NodeInfo& node, const api::Pod& preemptor) const {
  if (node.min_pod_priority() >= preemptor.Priority()) return false;
  for (const PodInfoPtr& p : node.pods()) {
    if (IsPreemptionAllowed(node, *p, preemptor)) return true;
  }
  return false;
}

std::vector<PodInfoPtr> DefaultPreemption::NominatedPodsToRespect(const PodInfo& pod,
                                                                  api::Symbol node) const {
  std::vector<PodInfoPtr> out;
  const int32_t priority = pod.pod.Priority();
  const std::string key = pod.Key();
  for (PodInfoPtr& p : handle_.NominatedPodsForNode(node)) {
    if (p->pod.Priority() >= priority && p->Key() != key) out.push_back(std::move(p));
  }
  return out;
}

std::vector<const api::PodDisruptionBudget*> DefaultPreemption::RelevantPDBs(
    int32_t priority, std::span<NodeInfo* const> nodes) const {
  // Budgets only ever match pods of their own namespace, so the namespaces of the possible
  // victims are all the lister needs to be asked about.
  std::unordered_set<api::Symbol> namespaces;
  std::vector<const api::PodDisruptionBudget*> pdbs;
  for (const NodeInfo* node : nodes) {
    if (node->min_pod_priority() >= priority) continue;
    for (const PodInfoPtr& p : node->pods()) {
      if (p->pod.Priority() >= priority || p->pod.metadata.labels.empty()) continue;
      if (!namespaces.insert(p->pod.metadata.namespace_).second) continue;
      for (const api::PodDisruptionBudget* pdb :
           handle_.lister().List<api::PodDisruptionBudget>(p->pod.metadata.namespace_)) {
        pdbs.push_back(pdb);
      }
    }
  }
  return pdbs;
}

Status DefaultPreemption::SelectVictimsOnNode(framework::CycleState& state, const PodInfo& pod,
                                              NodeInfo& node,
                                              std::span<const api::PodDisruptionBudget* const> pdbs,
                                              std::vector<PodInfoPtr>* victims,
                                              int64_t* num_pdb_violations,
                                              const WholeGangs* gangs) const {
  const framework::Framework& fwk = handle_.framework();
  const framework::Snapshot& snapshot = handle_.snapshot();
  victims->clear();
  *num_pdb_violations = 0;
  // A victim's pods on this node leave (and come back to) the node being evaluated; a gang's
  // members elsewhere only go through the PreFilter extensions, with their own node.
  auto remove = [&](const Victim& v) {
    for (const PodInfoPtr& p : v.pods) {
      const NodeInfo* at = &node;
      if (p->pod.spec.node_name != node.name()) {
        at = snapshot.Get(p->pod.spec.node_name);
        if (at == nullptr) continue;
      } else if (!node.RemovePod(p->pod)) {
        return Status::Error(fmt::format("no corresponding pod {} in pods of node {}",
                                         p->pod.metadata.name, node.name().str()));
      }
      if (Status s = fwk.RunPreFilterExtensionRemovePod(state, pod, *p, *at); !s.IsSuccess()) {
        return s;
      }
    }
    return Status::OK();
  };
  auto add = [&](const Victim& v) {
    for (const PodInfoPtr& p : v.pods) {
      const NodeInfo* at = &node;
      if (p->pod.spec.node_name != node.name()) {
        at = snapshot.Get(p->pod.spec.node_name);
        if (at == nullptr) continue;
      } else {
        node.AddPod(p);
      }
      if (Status s = fwk.RunPreFilterExtensionAddPod(state, pod, *p, *at); !s.IsSuccess()) {
        return s;
      }
    }
    return Status::OK();
  };

  // First evict everything that may be evicted and see whether the pod fits at all. A gang
  // evicted whole may be evicted only when each of its members may be, each on its node.
  // The pods alone, each with its victim (a view of it), kept apart from the node's list, which
  // the dry run changes.
  struct Single {
    PodInfoPtr pod;
    Victim victim;
  };
  std::vector<Single> singles;
  std::vector<const Victim*> potential;
  auto gang_allowed = [&](const Victim& v) {
    if (v.priority >= pod.pod.Priority()) return false;
    for (const PodInfoPtr& p : v.pods) {
      const NodeInfo* at =
          p->pod.spec.node_name == node.name() ? &node : snapshot.Get(p->pod.spec.node_name);
      if (at == nullptr || !is_eligible_pod_(*at, *p, pod.pod)) return false;
    }
    return true;
  };
  singles.reserve(node.pods().size());
  potential.reserve(node.pods().size());
  for (const PodInfoPtr& p : node.pods()) {
    if (const Victim* gang = gangs != nullptr ? gangs->Of(p->pod) : nullptr) {
      if (std::find(potential.begin(), potential.end(), gang) == potential.end() &&
          gang_allowed(*gang)) {
        potential.push_back(gang);
      }
    } else if (IsPreemptionAllowed(node, *p, pod.pod)) {
      Single& one = singles.emplace_back(Single{p, Victim{{}, p->pod.Priority(), false}});
      one.victim.pods = {&one.pod, 1};
      potential.push_back(&one.victim);
    }
  }
  for (const Victim* v : potential) {
    if (Status s = remove(*v); !s.IsSuccess()) return s;
  }
  if (potential.empty()) return no_victims_;
  // Affinity of the pod to some of the victims is not considered (the pod is checked without
  // them), as upstream: affinity to pods of lower priority is not a supported configuration.
  const std::vector<PodInfoPtr> nominated = NominatedPodsToRespect(pod, node.name());
  if (Status s = fwk.RunFilterPluginsWithNominatedPods(state, pod, node, nominated);
      !s.IsSuccess()) {
    return s;
  }

  // Then give back as many as still let the pod fit.
  std::vector<const Victim*> chosen;
  if (Status s = ReprieveVictims(
          std::move(potential), pdbs, handle_.clock().Now(), more_important_pod_,
          [&](const Victim& v, bool* reprieved) {
            if (Status s = add(v); !s.IsSuccess()) return s;
            *reprieved =
                fwk.RunFilterPluginsWithNominatedPods(state, pod, node, nominated).IsSuccess();
            return *reprieved ? Status::OK() : remove(v);
          },
          &chosen, num_pdb_violations);
      !s.IsSuccess()) {
    return s;
  }
  for (const Victim* v : chosen) victims->insert(victims->end(), v->pods.begin(), v->pods.end());
  return Status::OK();
}

std::vector<Candidate> DefaultPreemption::DryRunPreemption(
    const framework::CycleState& state, const PodInfo& pod, std::span<NodeInfo* const> nodes,
    std::span<const api::PodDisruptionBudget* const> pdbs, int32_t offset, int32_t num_candidates,
    framework::NodeToStatus* statuses, std::vector<std::string>* errors,
    const WholeGangs* gangs) const {
  struct Outcome {
    Status status;
    std::vector<PodInfoPtr> victims;
    int64_t num_pdb_violations = 0;
  };
  const size_t n = nodes.size();
  const size_t wanted = static_cast<size_t>(std::max(num_candidates, 0));
  auto node_at = [&](size_t i) -> const NodeInfo& {
    return *nodes[(static_cast<size_t>(std::max(offset, 0)) + i) % n];
  };
  auto evaluate = [&](size_t i, Outcome& out) {
    // With nothing to evict the verdict is known without copying the node and the state.
    if (!HasPossibleVictim(node_at(i), pod.pod)) {
      out.status = no_victims_;
      return;
    }
    NodeInfo copy = node_at(i);
    std::unique_ptr<framework::CycleState> state_copy = state.Clone();
    out.status = SelectVictimsOnNode(*state_copy, pod, copy, pdbs, &out.victims,
                                     &out.num_pdb_violations, gangs);
  };

  std::vector<Candidate> non_violating;
  std::vector<Candidate> violating;
  // Takes node i's outcome; true once enough candidates are found.
  auto take = [&](size_t i, Outcome& out) {
    const api::Symbol name = node_at(i).name();
    if (out.status.IsSuccess() && !out.victims.empty()) {
      std::vector<Candidate>& list = out.num_pdb_violations == 0 ? non_violating : violating;
      if (list.size() < wanted) {
        list.push_back(Candidate{name, std::move(out.victims), out.num_pdb_violations});
      }
      return !non_violating.empty() && non_violating.size() + violating.size() >= wanted;
    }
    if (out.status.IsSuccess()) {
      out.status = Status::Error(
          fmt::format("expected at least one victim pod on node {}", api::GoQuote(name.str())));
    }
    if (out.status.IsError()) errors->push_back(out.status.Message());
    statuses->Set(name, std::move(out.status));
    return false;
  };

  bool done = false;
  std::vector<Outcome> batch;
  for (size_t start = 0; start < n && !done;) {
    const size_t size = std::min(n - start, std::max(kBatchSize, wanted));
    if (size < kBatchSize) {
      for (size_t i = start; i < start + size && !done; ++i) {
        Outcome out;
        evaluate(i, out);
        done = take(i, out);
      }
    } else {
      batch.assign(size, Outcome{});
      framework::ParallelRanges(
          0, size,
          [&](size_t begin, size_t end) {
            for (size_t j = begin; j != end; ++j) evaluate(start + j, batch[j]);
          },
          /*chunk=*/4, busy_);
      for (size_t j = 0; j < size && !done; ++j) done = take(start + j, batch[j]);
    }
    start += size;
  }
  non_violating.insert(non_violating.end(), std::make_move_iterator(violating.begin()),
                       std::make_move_iterator(violating.end()));
  return non_violating;
}

Status DefaultPreemption::CallExtenders(const framework::PodInfo& pod,
                                        std::vector<Candidate>* candidates) const {
  const std::span<framework::Extender* const> extenders = handle_.extenders();
  if (extenders.empty() || candidates->empty()) return Status::OK();
  const framework::Snapshot& snapshot = handle_.snapshot();
  framework::NodeToVictims victims;
  for (const Candidate& c : *candidates) {
    framework::ExtenderVictims& v = victims[c.node.string()];
    for (const PodInfoPtr& p : c.victims) v.pods.push_back(&p->pod);
    v.num_pdb_violations = c.num_pdb_violations;
  }
  auto node_of = [&](std::string_view name) -> const NodeInfo* {
    return snapshot.Get(api::Symbol(name));
  };
  for (framework::Extender* extender : extenders) {
    if (!extender->SupportsPreemption() || !extender->IsInterested(pod.pod)) continue;
    framework::NodeToVictims kept;
    if (Status s = extender->ProcessPreemption(pod.pod, victims, node_of, &kept); !s.IsSuccess()) {
      if (extender->IsIgnorable()) {
        if (log::V(2)) {
          log::Info(2, "Skipped extender as it returned error and has ignorable flag set",
                    {{"extender", extender->Name()}, {"err", s.Message()}});
        }
        continue;
      }
      return Status::Error(s.Message());
    }
    for (auto it = kept.begin(); it != kept.end();) {
      if (!it->second.pods.empty()) {
        ++it;
        continue;
      }
      if (!extender->IsIgnorable()) {
        return Status::Error(
            fmt::format("expected at least one victim pod on node \"{}\"", it->first));
      }
      log::Info(0, "Ignored node for which the extender didn't report victims",
                {{"node", it->first}, {"extender", extender->Name()}});
      it = kept.erase(it);
    }
    // The next extender works on what this one kept.
    victims = std::move(kept);
    if (victims.empty()) break;
  }
  // Back to candidates, in the order the dry run found them; a node the extenders added (one
  // they were not asked about) comes after, in name order.
  std::vector<Candidate> trimmed;
  // An extender names only nodes of the snapshot and pods on them (the HTTP extender checks
  // it); anything else is an error rather than a candidate without its victims.
  auto take = [&](api::Symbol node, const framework::ExtenderVictims& v) {
    const NodeInfo* info = snapshot.Get(node);
    if (info == nullptr) {
      return Status::Error(fmt::format("nodeinfo not found for node name \"{}\"", node.str()));
    }
    Candidate c{node, {}, v.num_pdb_violations};
    for (const api::Pod* p : v.pods) {
      // A gang evicted whole has members on other nodes than the candidate.
      const NodeInfo* on = p->spec.node_name.empty() || p->spec.node_name == node
                               ? info
                               : snapshot.Get(p->spec.node_name);
      if (on == nullptr) on = info;
      auto it = std::find_if(on->pods().begin(), on->pods().end(), [&](const PodInfoPtr& q) {
        return &q->pod == p || q->pod.metadata.uid == p->metadata.uid;
      });
      if (it == on->pods().end()) {
        return Status::Error(fmt::format("extender victim {} is not found on node {}",
                                         p->metadata.Key(), node.str()));
      }
      c.victims.push_back(*it);
    }
    std::stable_sort(c.victims.begin(), c.victims.end(),
                     [&](const PodInfoPtr& a, const PodInfoPtr& b) {
                       return more_important_pod_(a->pod, b->pod);
                     });
    trimmed.push_back(std::move(c));
    return Status::OK();
  };
  for (const Candidate& c : *candidates) {
    auto it = victims.find(c.node.string());
    if (it == victims.end()) continue;
    if (Status s = take(c.node, it->second); !s.IsSuccess()) return s;
    victims.erase(it);
  }
  for (const auto& [node, v] : victims) {
    if (Status s = take(api::Symbol(node), v); !s.IsSuccess()) return s;
  }
  *candidates = std::move(trimmed);
  return Status::OK();
}

const Candidate* DefaultPreemption::SelectCandidate(std::span<const Candidate> candidates) const {
  if (candidates.empty()) return nullptr;
  if (candidates.size() == 1) return &candidates.front();
  return PickOneNodeForPreemption(candidates, handle_.clock().Now());
}

Status DefaultPreemption::PrepareCandidate(const Candidate& candidate, const PodInfo& pod) {
  if (Status s = Evict(candidate.victims, framework::ReferenceTo(pod.pod), pod.pod.metadata.Key());
      !s.IsSuccess()) {
    return s;
  }
  framework::ClusterClient& client = handle_.client();
  // Pods of lower priority nominated to this node may no longer fit there: dropping their
  // nomination lets them look elsewhere without waiting for this preemption to finish. A failure
  // only delays that, so it is not reported.
  const int32_t priority = pod.pod.Priority();
  for (const PodInfoPtr& p : handle_.NominatedPodsForNode(candidate.node)) {
    if (p->pod.Priority() >= priority) continue;
    client.UpdatePodCondition(p->pod, CurrentPodScheduledCondition(p->pod), std::string());
  }
  return Status::OK();
}

Status DefaultPreemption::Evict(std::span<const PodInfoPtr> victims,
                                const framework::ObjectReference& preemptor,
                                std::string_view preemptor_name) {
  framework::ClusterClient& client = handle_.client();
  for (const PodInfoPtr& v : victims) {
    const api::Pod& victim = v->pod;
    // Its graceful deletion has started already (or been asked for): another request would
    // change nothing.
    if (victim.metadata.deletion_timestamp) continue;
    const std::string uid = PodKey(victim);
    if (framework::WaitingPod* waiting = handle_.waiting_pods().Get(uid)) {
      // Not bound yet: rejecting it at Permit frees its room without a deletion.
      waiting->Reject(kName, "preempted");
    } else if (TerminatingByPreemption(victim)) {
      continue;
    } else if (Status s = client.DeletePod(victim); !s.IsSuccess()) {
      return Status::Error(s.Message());
    } else {
      evicted_.push_back({uid, victim.spec.node_name, handle_.clock().Now()});
    }
    const api::Symbol node = victim.spec.node_name;
    if (log::V(2)) {
      log::Info(2, "Preemptor pod preempted victim pod",
                {{"preemptor", std::string(preemptor_name)},
                 {"victim", victim.metadata.Key()},
                 {"node", node.str()}});
    }
    // Upstream's note names the preemptor by uid; a person reads names, and the uid is in
    // `related`.
    client.RecordEvent(framework::EventRecord{
        framework::ReferenceTo(victim), "Normal", "Preempted", "Preempting",
        fmt::format("Preempted by {} on node {}", preemptor_name, node.str()), preemptor,
        handle_.framework().scheduler_name()});
  }
  return Status::OK();
}

}  // namespace muster::plugins::defaultpreemption
