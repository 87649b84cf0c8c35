#include "muster/plugins/defaultpreemption/default_preemption.h"

#include <algorithm>
#include <limits>
#include <map>
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

// Upstream podTerminatingByPreemption: being deleted, with the DisruptionTarget condition the
// scheduler sets on the victims it preempts.
bool TerminatingByPreemption(const api::Pod& pod) {
  if (!pod.metadata.deletion_timestamp) return false;
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == kDisruptionTarget) {
      return c.status == "True" && c.reason == kReasonPreemptionByScheduler;
    }
  }
  return false;
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
api::PodCondition CurrentPodScheduledCondition(const api::Pod& pod) {
  for (const api::PodCondition& c : pod.status.conditions) {
    if (c.type == kPodScheduled) return c;
  }
  api::PodCondition c;
  c.type = std::string(kPodScheduled);
  c.status = "False";
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

void FilterPodsWithPDBViolation(std::span<const PodInfoPtr> pods,
                                std::span<const api::PodDisruptionBudget* const> pdbs,
                                std::vector<PodInfoPtr>* violating,
                                std::vector<PodInfoPtr>* non_violating) {
  std::vector<int64_t> allowed(pdbs.size());
  for (size_t i = 0; i < pdbs.size(); ++i) allowed[i] = pdbs[i]->status.disruptions_allowed;
  for (const PodInfoPtr& p : pods) {
    const api::Pod& pod = p->pod;
    bool violated = false;
    // A pod without labels matches no budget.
    if (!pod.metadata.labels.empty()) {
      for (size_t i = 0; i < pdbs.size(); ++i) {
        const api::PodDisruptionBudget& pdb = *pdbs[i];
        if (pdb.metadata.namespace_ != pod.metadata.namespace_) continue;
        // A missing or empty selector selects nothing; an ill-formed one matches nothing.
        if (!pdb.selector || pdb.selector->Empty() || !pdb.selector->Matches(pod.metadata.labels)) {
          continue;
        }
        // An eviction the API server has processed already counts in disruptionsAllowed:
        // this pod's is no new disruption of the budget (upstream does not decrement twice).
        if (std::binary_search(pdb.status.disrupted_pods.begin(), pdb.status.disrupted_pods.end(),
                               pod.metadata.name)) {
          continue;
        }
        if (--allowed[i] < 0) violated = true;
      }
    }
    (violated ? violating : non_violating)->push_back(p);
  }
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
      not_helpful_(Status::Unresolvable(std::string(kNotHelpful))) {}

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

  std::string reason;
  const Status& nominated_status = statuses.Get(pod.pod.status.nominated_node_name);
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
    const std::vector<const api::PodDisruptionBudget*> pdbs = RelevantPDBs(pod.pod, potential);
    const auto n = static_cast<int32_t>(potential.size());
    candidates = DryRunPreemption(state, pod, potential, pdbs, Offset(pod.pod, n),
                                  CalculateNumCandidates(n), &dry_run_statuses, &errors);
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
  const api::Symbol nominated = pod.status.nominated_node_name;
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
    const api::Pod& pod, std::span<NodeInfo* const> nodes) const {
  // Budgets only ever match pods of their own namespace, so the namespaces of the possible
  // victims are all the lister needs to be asked about.
  std::unordered_set<api::Symbol> namespaces;
  std::vector<const api::PodDisruptionBudget*> pdbs;
  const int32_t priority = pod.Priority();
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
                                              int64_t* num_pdb_violations) const {
  const framework::Framework& fwk = handle_.framework();
  victims->clear();
  *num_pdb_violations = 0;
  auto remove = [&](const PodInfoPtr& p) {
    if (!node.RemovePod(p->pod)) {
      return Status::Error(fmt::format("no corresponding pod {} in pods of node {}",
                                       p->pod.metadata.name, node.name().str()));
    }
    return fwk.RunPreFilterExtensionRemovePod(state, pod, *p, node);
  };
  auto add = [&](const PodInfoPtr& p) {
    node.AddPod(p);
    return fwk.RunPreFilterExtensionAddPod(state, pod, *p, node);
  };

  // First evict everything that may be evicted and see whether the pod fits at all.
  std::vector<PodInfoPtr> potential;
  for (const PodInfoPtr& p : node.pods()) {
    if (IsPreemptionAllowed(node, *p, pod.pod)) potential.push_back(p);
  }
  for (const PodInfoPtr& p : potential) {
    if (Status s = remove(p); !s.IsSuccess()) return s;
  }
  if (potential.empty()) return no_victims_;
  // Affinity of the pod to some of the victims is not considered (the pod is checked without
  // them), as upstream: affinity to pods of lower priority is not a supported configuration.
  const std::vector<PodInfoPtr> nominated = NominatedPodsToRespect(pod, node.name());
  if (Status s = fwk.RunFilterPluginsWithNominatedPods(state, pod, node, nominated);
      !s.IsSuccess()) {
    return s;
  }

  // Then give back as many as still let the pod fit, the most important first, those whose
  // eviction would violate a budget before the others.
  auto more_important = [this](const PodInfoPtr& a, const PodInfoPtr& b) {
    return more_important_pod_(a->pod, b->pod);
  };
  std::stable_sort(potential.begin(), potential.end(), more_important);
  std::vector<PodInfoPtr> violating;
  std::vector<PodInfoPtr> non_violating;
  FilterPodsWithPDBViolation(potential, pdbs, &violating, &non_violating);
  auto reprieve = [&](const PodInfoPtr& p, bool* fits) {
    if (Status s = add(p); !s.IsSuccess()) return s;
    *fits = fwk.RunFilterPluginsWithNominatedPods(state, pod, node, nominated).IsSuccess();
    if (*fits) return Status::OK();
    if (Status s = remove(p); !s.IsSuccess()) return s;
    victims->push_back(p);
    return Status::OK();
  };
  for (const PodInfoPtr& p : violating) {
    bool fits = false;
    if (Status s = reprieve(p, &fits); !s.IsSuccess()) return s;
    if (!fits) ++*num_pdb_violations;
  }
  for (const PodInfoPtr& p : non_violating) {
    bool fits = false;
    if (Status s = reprieve(p, &fits); !s.IsSuccess()) return s;
  }
  // Victims from the two groups interleave in importance.
  if (!violating.empty() && !non_violating.empty()) {
    std::stable_sort(victims->begin(), victims->end(), more_important);
  }
  return Status::OK();
}

std::vector<Candidate> DefaultPreemption::DryRunPreemption(
    const framework::CycleState& state, const PodInfo& pod, std::span<NodeInfo* const> nodes,
    std::span<const api::PodDisruptionBudget* const> pdbs, int32_t offset, int32_t num_candidates,
    framework::NodeToStatus* statuses, std::vector<std::string>* errors) const {
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
    out.status =
        SelectVictimsOnNode(*state_copy, pod, copy, pdbs, &out.victims, &out.num_pdb_violations);
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
          /*chunk=*/4);
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
      auto it = std::find_if(info->pods().begin(), info->pods().end(), [&](const PodInfoPtr& q) {
        return &q->pod == p || q->pod.metadata.uid == p->metadata.uid;
      });
      if (it == info->pods().end()) {
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
  framework::ClusterClient& client = handle_.client();
  for (const PodInfoPtr& v : candidate.victims) {
    const api::Pod& victim = v->pod;
    // Its graceful deletion has started already: another request would change nothing.
    if (victim.metadata.deletion_timestamp) continue;
    // The scheduler keys a pod without a uid by namespace/name.
    const std::string uid =
        victim.metadata.uid.empty() ? victim.metadata.Key() : victim.metadata.uid;
    if (framework::WaitingPod* waiting = handle_.waiting_pods().Get(uid)) {
      // Not bound yet: rejecting it at Permit frees its room without a deletion.
      waiting->Reject(kName, "preempted");
    } else if (Status s = client.DeletePod(victim); !s.IsSuccess()) {
      return Status::Error(s.Message());
    }
    if (log::V(2)) {
      log::Info(2, "Preemptor pod preempted victim pod",
                {{"preemptor", pod.pod.metadata.Key()},
                 {"victim", victim.metadata.Key()},
                 {"node", candidate.node.str()}});
    }
    // Upstream's note names the preemptor by uid; a person reads names, and the uid is in
    // `related`.
    client.RecordEvent(framework::EventRecord{
        framework::ReferenceTo(victim), "Normal", "Preempted", "Preempting",
        fmt::format("Preempted by {} on node {}", pod.pod.metadata.Key(), candidate.node.str()),
        framework::ReferenceTo(pod.pod), pod.pod.spec.scheduler_name});
  }

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

}  // namespace muster::plugins::defaultpreemption
