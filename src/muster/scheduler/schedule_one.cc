#include <algorithm>
#include <array>
#include <bit>
#include <future>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "muster/framework/log.h"
#include "muster/framework/parallel.h"
#include "muster/scheduler/cycle.h"
#include "muster/scheduler/scheduler.h"
#include "muster/scheduler/update_actions.h"

// The scheduling cycle (upstream schedule_one.go): pop a pod, find the nodes that fit it, score
// them, assume it on the best, reserve and permit; then the binding cycle, on its own event. A
// pod that fails before Assume goes back to the queue with its diagnosis; one that fails after
// leaves through Unassume.

namespace muster::scheduler {

using framework::ClusterEvent;
using framework::Code;
using framework::EventObjects;
using framework::Status;

namespace {

// Upstream minFeasibleNodesToFind and minFeasibleNodesPercentageToFind.
constexpr int32_t kMinFeasibleNodesToFind = 100;
constexpr int32_t kMinFeasibleNodesPercentageToFind = 5;
// The fewest nodes filtered per parallel round before checking whether enough feasible ones
// were found.
constexpr size_t kFilterChunk = 256;
// Nodes filtered together, one plugin after another while they stay in cache; each block's
// verdicts are one word's bits.
constexpr size_t kFilterBlock = framework::Framework::kFilterBlock;
static_assert(kFilterBlock == 64);

}  // namespace

int32_t Scheduler::NumFeasibleNodesToFind(const framework::Framework& fwk,
                                          int32_t num_nodes) const {
  if (num_nodes < kMinFeasibleNodesToFind) return num_nodes;
  int32_t percentage = fwk.percentage_of_nodes_to_score().value_or(
      options_.percentage_of_nodes_to_score.value_or(0));
  if (percentage == 0) {
    percentage = std::max(50 - num_nodes / 125, kMinFeasibleNodesPercentageToFind);
  }
  const int32_t n = static_cast<int32_t>(int64_t{num_nodes} * percentage / 100);
  return std::max(n, kMinFeasibleNodesToFind);
}

std::vector<framework::NodeInfo*> Scheduler::FindNodesThatFitPod(const framework::Framework& fwk,
                                                                 framework::CycleState& state,
                                                                 const framework::PodInfo& pod,
                                                                 Diagnosis* diagnosis,
                                                                 Status* error) {
  framework::PreFilterResult pre_result;
  std::string rejector;
  Status s = fwk.RunPreFilterPlugins(state, pod, &pre_result, &rejector);
  if (!s.IsSuccess()) {
    if (!s.IsRejected()) {
      *error = s;
      return {};
    }
    diagnosis->statuses.absent = s;
    diagnosis->pre_filter_msg = s.Message();
    if (!s.plugin().empty()) {
      diagnosis->AddPluginStatus(s);
    } else {
      // The plugins that narrowed the nodes to none, together.
      diagnosis->unschedulable_plugins.insert(pre_result.narrowed_by.begin(),
                                              pre_result.narrowed_by.end());
    }
    return {};
  }

  // A pod nominated by an earlier preemption tries its nominated node first (when its gang's
  // topology domain has it).
  if (const api::Symbol nominated = pod.pod.status.nominated_node_name;
      !nominated.empty() && (placement_.empty() || placement_.contains(nominated.id()))) {
    if (framework::NodeInfo* node = snapshot_.Get(nominated)) {
      Status ns = fwk.RunFilterPluginsWithNominatedPods(state, pod, *node,
                                                        queue_.NominatedPodsForNode(nominated));
      if (framework::AttemptTrace* trace = state.trace.get()) {
        trace->nominated_node = nominated.string();
        trace->nominated_node_status = ns;
      }
      if (ns.IsSuccess()) {
        if (!ExtendersFilter(pod.pod)) return {node};
        // The extenders have their say on the nominated node too (upstream
        // evaluateNominatedNode); a failure there falls through to the search over all nodes.
        Diagnosis ignored;
        Status extender_error;
        std::vector<framework::NodeInfo*> kept =
            FindNodesThatPassExtenders(pod, {node}, state, &ignored, &extender_error);
        if (!kept.empty()) return kept;
        if (!extender_error.IsSuccess()) {
          log::Error(
              "Evaluation failed on nominated node",
              {{"pod", pod.Key()}, {"node", nominated.str()}, {"err", extender_error.Message()}});
        }
      }
      if (ns.IsError()) {
        *error = ns;
        return {};
      }
    }
  }

  std::vector<framework::NodeInfo*> candidates;
  const std::vector<framework::NodeInfo*>* nodes = &snapshot_.List();
  if (!pre_result.AllNodes()) {
    for (api::Symbol name : *pre_result.node_names) {
      if (framework::NodeInfo* info = snapshot_.Get(name)) candidates.push_back(info);
    }
    nodes = &candidates;
    // The nodes left out count as rejected by the plugins that left them out, as upstream's
    // SetAbsentNodesStatus: in the FitError and for the events that may bring the pod back.
    diagnosis->statuses.absent = Status::Unresolvable(fmt::format(
        "node(s) didn't satisfy plugin(s) [{}]", fmt::join(pre_result.narrowed_by, " ")));
    diagnosis->unschedulable_plugins.insert(pre_result.narrowed_by.begin(),
                                            pre_result.narrowed_by.end());
  }
  std::vector<framework::NodeInfo*> in_domain;
  if (!placement_.empty()) {
    // A member of a gang with a topology constraint sees only its domain's nodes (the others
    // count as absent, as those PreFilter leaves out).
    for (framework::NodeInfo* node : *nodes) {
      if (placement_.contains(node->name().id())) in_domain.push_back(node);
    }
    if (in_domain.size() != nodes->size() && pre_result.AllNodes()) {
      diagnosis->statuses.absent = Status::Unresolvable(
          fmt::format("node(s) outside the pod group's topology domain {}", placement_name_));
    }
    nodes = &in_domain;
  }
  if (nodes->empty()) return {};
  const auto to_find =
      static_cast<size_t>(NumFeasibleNodesToFind(fwk, static_cast<int32_t>(nodes->size())));
  if (framework::AttemptTrace* trace = state.trace.get()) {
    trace->nodes_to_find = static_cast<int32_t>(to_find);
    trace->percentage_of_nodes_to_score = fwk.percentage_of_nodes_to_score()
                                              ? fwk.percentage_of_nodes_to_score()
                                              : options_.percentage_of_nodes_to_score;
  }
  // The Filter point is timed as one pass over the nodes, as upstream's.
  const framework::Stopwatch watch;
  const bool extenders_filter = ExtendersFilter(pod.pod);
  std::vector<framework::NodeInfo*> feasible =
      FilterNodes(fwk, state, pod, *nodes, to_find, extenders_filter, diagnosis, error);
  if (framework::Metrics::Profile* m = fwk.profile_metrics()) {
    m->ExtensionPoint(framework::ExtensionPoint::kFilter, error->code(), watch.Seconds());
  }
  if (!extenders_filter || !error->IsSuccess() || feasible.empty()) return feasible;
  const size_t before = feasible.size();
  feasible = FindNodesThatPassExtenders(pod, std::move(feasible), state, diagnosis, error);
  if (feasible.size() != before) {
    // Extenders register for no events: a pod they turned nodes away for is retried on any.
    diagnosis->unschedulable_plugins.insert(std::string(framework::kExtenderName));
  }
  return feasible;
}

namespace {

// How explain names an extender among the plugins: "Extender <urlPrefix>".
std::string TraceName(const framework::Extender& extender) {
  return fmt::format("{} {}", framework::kExtenderName, extender.Name());
}

}  // namespace

bool Scheduler::ExtendersFilter(const api::Pod& pod) const {
  return std::any_of(extenders_.begin(), extenders_.end(), [&](const framework::Extender* e) {
    return e->IsFilter() && e->IsInterested(pod);
  });
}

std::vector<framework::NodeInfo*> Scheduler::FindNodesThatPassExtenders(
    const framework::PodInfo& pod, std::vector<framework::NodeInfo*> feasible,
    framework::CycleState& state, Diagnosis* diagnosis, Status* error) {
  framework::AttemptTrace* trace = state.trace.get();
  for (framework::Extender* extender : extenders_) {
    if (feasible.empty()) break;
    if (!extender->IsFilter() || !extender->IsInterested(pod.pod)) continue;
    framework::ExtenderFilterResult result;
    Status s = extender->Filter(pod.pod, feasible, &result);
    if (!s.IsSuccess()) {
      if (trace != nullptr) {
        trace->pre_filter.push_back(framework::AttemptTrace::Outcome{
            TraceName(*extender),
            s.code(),
            fmt::format("{}{}", s.Message(),
                        extender->IsIgnorable() ? " (ignorable: skipped)" : ""),
            {}});
      }
      if (extender->IsIgnorable()) {
        log::Info(0, "Skipping extender as it returned error and has ignorable flag set",
                  {{"pod", pod.Key()}, {"extender", extender->Name()}, {"err", s.Message()}});
        continue;
      }
      *error = s;
      return {};
    }
    for (const auto& [node, message] : result.failed_and_unresolvable) {
      diagnosis->statuses.Set(api::Symbol(node),
                              Status(Code::kUnschedulableAndUnresolvable, message));
    }
    for (const auto& [node, message] : result.failed) {
      // An unresolvable verdict on the same node wins.
      if (result.failed_and_unresolvable.contains(node)) continue;
      diagnosis->statuses.Set(api::Symbol(node), Status(Code::kUnschedulable, message));
    }
    if (trace != nullptr) {
      // A column of explain's Filter table of its own, after the plugins.
      const int index = static_cast<int>(trace->filter_plugins.size());
      trace->filter_plugins.push_back(TraceName(*extender));
      for (const framework::NodeInfo* node : feasible) {
        const std::string name = node->name().string();
        Status verdict = Status::OK();
        if (auto it = result.failed_and_unresolvable.find(name);
            it != result.failed_and_unresolvable.end()) {
          verdict = Status(Code::kUnschedulableAndUnresolvable, it->second);
        } else if (auto f = result.failed.find(name); f != result.failed.end()) {
          verdict = Status(Code::kUnschedulable, f->second);
        } else if (std::find(result.passed.begin(), result.passed.end(), node) ==
                   result.passed.end()) {
          verdict = Status(Code::kUnschedulable, "not among the nodes the extender kept");
        }
        trace->RecordFilter(name, index, verdict);
      }
    }
    feasible = std::move(result.passed);
  }
  return feasible;
}

// Filters from the round-robin start, a chunk at a time (each chunk in parallel), until `to_find`
// feasible nodes are found, and returns the first `to_find` feasible ones in node order; the
// next cycle starts after the last node that decided them. Results are taken in node order, so
// runs are deterministic whatever the threads' timing. Only a pod that fits nowhere gets its
// diagnosis: a pod that fits leaves the rejections unread.
std::vector<framework::NodeInfo*> Scheduler::FilterNodes(
    const framework::Framework& fwk, framework::CycleState& state, const framework::PodInfo& pod,
    const std::vector<framework::NodeInfo*>& nodes, size_t to_find, bool keep_rejections,
    Diagnosis* diagnosis, Status* error) {
  const size_t n = nodes.size();
  const bool has_nominated = queue_.HasNominatedPods();

  // The statuses are the scheduler's, kept from cycle to cycle, and each block of nodes
  // reports which passed in a bit mask: statuses[i] is this cycle's only where node i's bit is
  // clear (a rejection), and the caller's work per round is per block, not per node.
  if (filter_statuses_.size() < n) filter_statuses_.resize(n);
  const std::span<Status> statuses(filter_statuses_.data(), n);
  struct Block {
    size_t begin;
    uint64_t passed;  // bit j: node begin + j passed every filter
    uint8_t len;      // nodes in the block, 1 to kFilterBlock
    bool error;       // some rejection in it is an Error
  };
  std::vector<Block> blocks;
  // What each Filter plugin ran on, gathered by each thread in its own row and counted into the
  // metric once: the threads adding to shared counters range by range cost more than the count.
  framework::LoopPool* pool = framework::LoopPool::Current();
  filter_evaluations_.assign(pool != nullptr ? static_cast<size_t>(pool->threads()) : 1,
                             framework::FilterEvaluations{});
  const size_t filters = fwk.plugins().filter.size();
  bool failed = false;
  size_t examined = 0;
  size_t found = 0;
  // The i-th node from the round-robin start (i < n), without a division per node.
  const size_t start = next_start_node_index_ % n;
  auto node_at = [&](size_t i) {
    const size_t at = start + i;
    return nodes[at < n ? at : at - n];
  };
  auto filter_nominated = [&](size_t i) {
    const framework::NodeInfo& node = *node_at(i);
    statuses[i] = fwk.RunFilterPluginsWithNominatedPods(state, pod, node,
                                                        queue_.NominatedPodsForNode(node.name()));
  };
  while (examined < n && found < to_find && !failed) {
    // As many nodes as should yield the rest at the share found feasible so far (twice as many
    // as so far when none was): on a nearly full cluster, a few rounds rather than one per
    // kFilterChunk. The nodes chosen do not depend on it, only how many are filtered in vain.
    const size_t wanted = to_find - found;
    const size_t expected = found == 0 ? std::max(wanted, examined) : wanted * examined / found;
    const size_t end = std::min(n, examined + std::max(kFilterChunk, expected));
    const size_t first_block = blocks.size();
    blocks.resize(first_block + (end - examined + kFilterBlock - 1) / kFilterBlock);
    // Ranges of whole blocks (ParallelRanges' chunks), each block filtered by one plugin after
    // another (RunFilterPlugins on many nodes).
    framework::ParallelRanges(
        examined, end,
        [&](size_t begin, size_t stop) {
          std::array<const framework::NodeInfo*, kFilterBlock> nodes_in_block;
          framework::FilterEvaluations evaluated{};
          for (size_t b = begin; b < stop; b += kFilterBlock) {
            const size_t len = std::min(kFilterBlock, stop - b);
            const std::span<Status> out = statuses.subspan(b, len);
            uint64_t passed = 0;
            bool error = false;
            if (has_nominated) {
              for (size_t j = 0; j < len; ++j) {
                filter_nominated(b + j);
                passed |= uint64_t{out[j].IsSuccess()} << j;
                error |= out[j].IsError();
              }
            } else {
              // The block's nodes are all asked for before the first plugin reads one.
              for (size_t j = 0; j < len; ++j) {
                nodes_in_block[j] = node_at(b + j);
                framework::PrefetchHotLines(nodes_in_block[j]);
              }
              passed = fwk.RunFilterPlugins(state, pod, std::span(nodes_in_block.data(), len), out,
                                            evaluated, &error);
            }
            blocks[first_block + (b - examined) / kFilterBlock] =
                Block{b, passed, static_cast<uint8_t>(len), error};
          }
          // (Outside a pool one thread runs the loop: the first row.)
          framework::FilterEvaluations& mine =
              filter_evaluations_[std::min(static_cast<size_t>(framework::LoopPool::ThreadIndex()),
                                           filter_evaluations_.size() - 1)];
          for (size_t k = 0; k < filters; ++k) mine[k] += evaluated[k];
        },
        kFilterBlock, fwk.filter_busy());
    for (size_t k = first_block; k < blocks.size(); ++k) {
      found += static_cast<size_t>(std::popcount(blocks[k].passed));
      failed |= blocks[k].error;
    }
    examined = end;
  }
  for (framework::FilterEvaluations& evaluated : filter_evaluations_) {
    fwk.CountFilterEvaluations(evaluated);
  }
  // Node i was rejected in this cycle (statuses[i] is its verdict).
  auto rejections = [&](const Block& block, auto&& f) {
    const uint64_t all = block.len == kFilterBlock ? ~uint64_t{0} : (uint64_t{1} << block.len) - 1;
    for (uint64_t rejected = ~block.passed & all; rejected != 0; rejected &= rejected - 1) {
      f(block.begin + static_cast<size_t>(std::countr_zero(rejected)));
    }
  };
  if (failed) {
    // The first Error in node order.
    for (const Block& block : blocks) {
      if (!block.error) continue;
      std::optional<size_t> first;
      rejections(block, [&](size_t i) {
        if (!first && statuses[i].IsError()) first = i;
      });
      *error = statuses[*first];
      return {};
    }
  }
  // The first to_find feasible nodes in order; the nodes up to the last of them were processed.
  std::vector<framework::NodeInfo*> result;
  result.reserve(std::min(found, to_find));
  size_t processed = examined;
  for (const Block& block : blocks) {
    // A whole block that passed, inside the node list (not across its end), is copied as it is:
    // on a cluster with room, most blocks.
    const size_t at = start + block.begin < n ? start + block.begin : start + block.begin - n;
    if (block.passed == ~uint64_t{0} && to_find - result.size() >= kFilterBlock &&
        at + kFilterBlock <= n) {
      const auto first = nodes.begin() + static_cast<std::ptrdiff_t>(at);
      result.insert(result.end(), first, first + kFilterBlock);
      if (result.size() == to_find) {
        processed = block.begin + kFilterBlock;
        break;
      }
      continue;
    }
    for (uint64_t passed = block.passed; passed != 0; passed &= passed - 1) {
      const size_t i = block.begin + static_cast<size_t>(std::countr_zero(passed));
      result.push_back(node_at(i));
      if (result.size() == to_find) {
        processed = i + 1;
        break;
      }
    }
    if (result.size() == to_find) break;
  }
  // Only a pod that fits nowhere reports why: a pod that fits leaves the rejections unread, and
  // only counts them (upstream's evaluatedNodes counts feasible and rejected nodes).
  // (With extenders to ask, every rejection is kept: they may turn the rest away.)
  if (result.empty() || keep_rejections) {
    diagnosis->statuses.Reserve(examined - found);
    for (const Block& block : blocks) {
      rejections(block, [&](size_t i) {
        diagnosis->AddPluginStatus(statuses[i]);
        diagnosis->statuses.Set(node_at(i)->name(), std::move(statuses[i]));
      });
    }
  } else {
    diagnosis->rejected_unkept += static_cast<int32_t>(examined - found);
  }
  next_start_node_index_ = (next_start_node_index_ + processed) % snapshot_.NumNodes();
  if (framework::AttemptTrace* trace = state.trace.get()) {
    trace->nodes_filtered = static_cast<int32_t>(examined);
    trace->nodes_feasible = static_cast<int32_t>(found);
  }
  return result;
}

Status Scheduler::SchedulePod(const framework::Framework& fwk, framework::CycleState& state,
                              const framework::PodInfo& pod, api::Symbol* host,
                              Diagnosis* diagnosis) {
  cache_.UpdateSnapshot(snapshot_);
  diagnosis->num_all_nodes = static_cast<int32_t>(snapshot_.NumNodes());
  framework::AttemptTrace* trace = state.trace.get();
  if (trace != nullptr) trace->all_nodes = diagnosis->num_all_nodes;
  if (snapshot_.NumNodes() == 0) {
    // Upstream's ErrNoNodesAvailable: unschedulable (reason Unschedulable), with no plugin to
    // blame, so retried after backoff on any event; not a fit failure (no PostFilter).
    return Status(Code::kUnschedulableAndUnresolvable, "no nodes available to schedule pods");
  }
  Status error;
  std::vector<framework::NodeInfo*> feasible =
      FindNodesThatFitPod(fwk, state, pod, diagnosis, &error);
  if (!error.IsSuccess()) return error;
  diagnosis->feasible_nodes = static_cast<int32_t>(feasible.size());
  diagnosis->evaluated_nodes = diagnosis->feasible_nodes + diagnosis->rejected_unkept +
                               static_cast<int32_t>(diagnosis->statuses.size());
  if (feasible.empty()) {
    diagnosis->fit_error = true;
    return Status(Code::kUnschedulable);  // the caller words it, after PostFilter
  }
  if (feasible.size() == 1) {
    *host = feasible[0]->name();
    if (trace != nullptr) {
      trace->selected_node = host->string();
      trace->ties = 1;
    }
    return Status::OK();
  }
  std::vector<int64_t> totals;
  framework::ScoreTops tops;
  if (fwk.HasScorePlugins() || !extenders_.empty()) {
    Status s = fwk.RunPreScorePlugins(state, pod, feasible);
    if (!s.IsSuccess()) return s;
    s = fwk.RunScorePlugins(state, pod, feasible, &totals, &tops);
    if (!s.IsSuccess()) return s;
    if (AddExtenderScores(pod, feasible, state, totals)) tops.Recount(totals);
  } else {
    totals.assign(feasible.size(), 1);
    tops.Recount(totals);
  }
  // The highest score wins; ties are broken uniformly at random with the seeded generator, as
  // upstream's selectHost. Upstream draws once per tie (reservoir sampling); one draw among the
  // counted ties picks with the same odds, and most nodes tie on a lightly loaded cluster. The
  // scoring loop noted each block's highest total, so this reads the blocks, not every node.
  const int64_t top = tops.Top();
  const int64_t ties = tops.Ties(top);
  const int64_t pick = std::uniform_int_distribution<int64_t>(0, ties - 1)(rng_);
  const size_t best = tops.NthTie(totals, top, pick);
  *host = feasible[best]->name();
  if (trace != nullptr) {
    trace->selected_node = host->string();
    trace->ties = ties;
    if (!fwk.HasScorePlugins() && extenders_.empty()) {
      trace->scored_nodes.clear();
      for (const framework::NodeInfo* node : feasible)
        trace->scored_nodes.push_back(node->name().string());
    }
    trace->totals = totals;
  }
  return Status::OK();
}

bool Scheduler::AddExtenderScores(const framework::PodInfo& pod,
                                  std::span<framework::NodeInfo* const> nodes,
                                  framework::CycleState& state, std::vector<int64_t>& totals) {
  std::vector<framework::Extender*> asked;
  for (framework::Extender* extender : extenders_) {
    if (extender->IsPrioritizer() && extender->IsInterested(pod.pod)) asked.push_back(extender);
  }
  if (asked.empty()) return false;
  struct Answer {
    Status status;
    std::vector<std::pair<std::string, int64_t>> scores;
    int64_t weight = 0;
  };
  std::vector<Answer> answers(asked.size());
  framework::BusyCount* busy = metrics_.Goroutines("prioritizing_extender").get();
  auto ask = [&](size_t i) {
    busy->fetch_add(1, std::memory_order_relaxed);
    answers[i].status =
        asked[i]->Prioritize(pod.pod, nodes, &answers[i].scores, &answers[i].weight);
    busy->fetch_sub(1, std::memory_order_relaxed);
  };
  // All at once, as upstream's goroutines: the pod waits for the slowest, not for their sum.
  std::vector<std::future<void>> others;
  for (size_t i = 1; i < asked.size(); ++i) {
    others.push_back(std::async(std::launch::async, ask, i));
  }
  ask(0);
  for (std::future<void>& f : others) f.get();

  std::unordered_map<std::string_view, size_t> position;
  for (size_t i = 0; i < nodes.size(); ++i) position.emplace(nodes[i]->name().str(), i);
  framework::AttemptTrace* trace = state.trace.get();
  constexpr int64_t kScale = framework::kMaxNodeScore / framework::kMaxExtenderPriority;
  for (size_t e = 0; e < asked.size(); ++e) {
    const Answer& answer = answers[e];
    if (!answer.status.IsSuccess()) {
      if (log::V(5)) {
        log::Info(
            5, "Failed to run extender's priority function. No score given by this extender.",
            {{"pod", pod.Key()}, {"extender", asked[e]->Name()}, {"err", answer.status.Message()}});
      }
      continue;
    }
    if (trace != nullptr) {
      // A row of explain's score table: raw 0..10, scaled to 0..100, times the weight.
      trace->scores.push_back(framework::AttemptTrace::ScoreColumn{
          TraceName(*asked[e]), static_cast<int32_t>(answer.weight), true,
          std::vector<int64_t>(nodes.size(), 0), std::vector<int64_t>(nodes.size(), 0)});
    }
    for (const auto& [host, score] : answer.scores) {
      auto it = position.find(host);
      if (it == position.end()) continue;  // not a node it was asked about
      // Saturated: the numbers are the extender's (upstream's int64 would wrap).
      int64_t added = 0;
      if (__builtin_mul_overflow(score, answer.weight, &added) ||
          __builtin_mul_overflow(added, kScale, &added) ||
          __builtin_add_overflow(totals[it->second], added, &totals[it->second])) {
        totals[it->second] = (score < 0) != (answer.weight < 0)
                                 ? std::numeric_limits<int64_t>::min()
                                 : std::numeric_limits<int64_t>::max();
      }
      if (trace != nullptr) {
        trace->scores.back().raw[it->second] = score;
        trace->scores.back().normalized[it->second] = score * kScale;
      }
    }
  }
  return true;
}

std::unique_ptr<framework::CycleState> Scheduler::NewCycleState(const framework::Framework& fwk,
                                                                const framework::PodInfo& pod,
                                                                bool sample) {
  auto state = std::make_unique<framework::CycleState>();
  if (sample) state->plugin_tally = std::make_shared<framework::PluginTally>();
  if (traced_ && traced_(pod.pod)) {
    auto trace = std::make_shared<framework::AttemptTrace>();
    const std::string key = pod.Key();
    trace->attempt = Attempts(key);
    trace->time = clock_.Now();
    trace->profile = fwk.scheduler_name();
    // The cluster's size, for an attempt rejected before SchedulePod counts it (a gang turned
    // away whole); SchedulePod sets it again.
    trace->all_nodes = static_cast<int32_t>(snapshot_.NumNodes());
    traces_[key] = trace;
    state->trace = std::move(trace);
  }
  return state;
}

bool Scheduler::ScheduleOne() {
  framework::LoopPool::Use use(&pool_);
  std::optional<framework::QueuedPodInfo> popped = queue_.Pop();
  if (!popped) return false;
  framework::QueuedPodInfo queued = std::move(*popped);
  const framework::PodInfo& pod = *queued.info;
  const std::string key = pod.Key();
  const framework::Framework* fwk = ProfileFor(pod.pod);
  if (fwk == nullptr || cache_.IsAssumedPod(pod.pod)) {
    queue_.Done(key);
    return true;
  }
  if (pod.pod.metadata.deletion_timestamp) {
    // Upstream's skipPodSchedule: a pod on its way out is not placed; its deletion takes it
    // from the queue.
    client_.RecordEvent(framework::EventRecord{
        framework::ReferenceTo(pod.pod), "Warning", "FailedScheduling", "Scheduling",
        fmt::format("skip schedule deleting pod: {}", key), std::nullopt, fwk->scheduler_name()});
    if (log::V(3)) log::Info(3, "Skip schedule deleting pod", {{"pod", key}});
    queue_.Done(key);
    return true;
  }
  if (auto [group_plugin, gang] = fwk->GroupOf(pod); gang) {
    ScheduleGroup(*fwk, *group_plugin, std::move(queued), *gang);
    return true;
  }
  ++stats_.attempts;
  store_.CountAttempt(api::PodName::Of(pod.pod));
  last_attempted_ = key;
  const framework::Stopwatch started;

  if (log::V(3)) log::Info(3, "Attempting to schedule pod", {{"pod", key}});
  std::unique_ptr<framework::CycleState> state =
      NewCycleState(*fwk, pod, metrics_.SamplePluginsThisCycle());
  Diagnosis diagnosis;
  api::Symbol host;
  Status s = SchedulePod(*fwk, *state, pod, &host, &diagnosis);
  if (!s.IsSuccess()) {
    FailAttempt(*fwk, *state, started, std::move(queued), std::move(s), diagnosis);
    return true;
  }
  metrics_.SchedulingAlgorithm(started.Seconds());
  if (log::V(4)) {
    log::Info(4, "Selected node for pod",
              {{"pod", key},
               {"node", host.str()},
               {"evaluatedNodes", diagnosis.evaluated_nodes},
               {"feasibleNodes", diagnosis.feasible_nodes},
               {"algorithmSeconds", started.Seconds()}});
  }
  std::shared_ptr<BindingContext> ctx =
      Assume(*fwk, std::move(state), std::move(queued), host, started);
  if (ctx == nullptr) return true;
  ctx->evaluated_nodes = diagnosis.evaluated_nodes;
  ctx->feasible_nodes = diagnosis.feasible_nodes;
  if (Reserve(*ctx)) Permit(std::move(ctx));
  return true;
}

void Scheduler::FailAttempt(const framework::Framework& fwk, framework::CycleState& state,
                            const framework::Stopwatch& started, framework::QueuedPodInfo queued,
                            Status status, Diagnosis& diagnosis) {
  const std::string key = queued.info->Key();
  framework::PostFilterResult nomination;
  if (diagnosis.fit_error) {
    if (fwk.HasPostFilterPlugins()) {
      // Preemption (or another PostFilter) may make room for a later cycle; its outcome is
      // appended to the message, as upstream appends PostFilterMsg.
      Status pf = fwk.RunPostFilterPlugins(state, *queued.info, diagnosis.statuses, &nomination);
      diagnosis.post_filter_msg = pf.Message();
    }
    status = Status(Code::kUnschedulable, diagnosis.FitErrorMessage());
  }
  if (framework::AttemptTrace* trace = state.trace.get()) {
    trace->result = status.code();
    trace->message = status.Message();
  }
  fwk.ObservePluginTally(state);
  HandleSchedulingFailure(fwk, started, std::move(queued), status, &diagnosis, &nomination);
  queue_.Done(key);
}

std::shared_ptr<Scheduler::BindingContext> Scheduler::Assume(
    const framework::Framework& fwk, std::unique_ptr<framework::CycleState> state,
    framework::QueuedPodInfo queued, api::Symbol host, const framework::Stopwatch& started) {
  // The pod counts on its node from now on, before the binding is confirmed.
  auto ctx = std::make_shared<BindingContext>();
  ctx->fwk = &fwk;
  ctx->state = std::move(state);
  ctx->assumed = framework::PodInfo::OnNode(*queued.info, host);
  ctx->queued = std::move(queued);
  ctx->node = host;
  ctx->started = started;
  fwk.ObservePluginTally(*ctx->state);
  // A pod that reaches a node keeps no nomination: the room it held for itself elsewhere (or on
  // this node, where it now counts as assumed) is released, as upstream's assume does.
  queue_.DeleteNominatedPodIfExists(ctx->assumed->pod);
  if (Status a = cache_.AssumePod(ctx->assumed); !a.IsSuccess()) {
    TraceStep(*ctx->state, clock_.Now(), "Assume", a);
    const std::string key = ctx->assumed->Key();
    HandleSchedulingFailure(fwk, started, std::move(ctx->queued), a, nullptr, nullptr);
    queue_.Done(key);
    return nullptr;
  }
  return ctx;
}

bool Scheduler::Reserve(const BindingContext& ctx) {
  Status r = ctx.fwk->RunReservePluginsReserve(*ctx.state, *ctx.assumed, ctx.node);
  TraceStep(*ctx.state, clock_.Now(), "Reserve", r);
  if (r.IsSuccess()) return true;
  Unassume(ctx, r, /*room_freed=*/false);
  return false;
}

void Scheduler::Permit(std::shared_ptr<BindingContext> ctx) {
  std::vector<std::pair<std::string, api::Duration>> waiting;
  Status p = ctx->fwk->RunPermitPlugins(*ctx->state, *ctx->assumed, ctx->node, &waiting);
  if (ctx->state->trace != nullptr) {
    std::string message;
    for (const auto& [plugin, timeout] : waiting) {
      message += fmt::format("{}waiting for {} (at most {})", message.empty() ? "" : "; ", plugin,
                             api::FormatDuration(timeout));
    }
    TraceStep(*ctx->state, clock_.Now(), "Permit", p, message);
  }
  if (!p.IsSuccess() && !p.IsWait()) {
    Unassume(*ctx, p, /*room_freed=*/false);
    return;
  }
  // The binding begins (upstream's bindingCycle, KEP-5278): when it will not be immediate, as
  // Permit holds the pod or a PreBind plugin has writes to make, the pod is nominated to its
  // node, so that the cluster's other components (an autoscaler) know where it is going.
  if (options_.nominate_expected_node) {
    Status pre = ctx->fwk->RunPreBindPreFlights(*ctx->state, *ctx->assumed, ctx->node);
    if (!pre.IsSuccess() && !pre.IsSkip()) {
      TraceStep(*ctx->state, clock_.Now(), "PreBindPreFlight", pre);
      Unassume(*ctx, pre, /*room_freed=*/false);
      return;
    }
    if (pre.IsSuccess() || p.IsWait()) {
      client_.NominatePod(ctx->assumed->pod, ctx->node);
      ctx->nominated = true;
    }
  }
  if (p.IsWait()) {
    const api::Time since = clock_.Now();
    auto waited = [this, since] {
      return std::chrono::duration<double>(clock_.Now() - since).count();
    };
    const framework::PodInfoPtr assumed = ctx->assumed;
    const api::Symbol node = ctx->node;
    waiting_.Add(
        assumed, node, waiting,
        [this, ctx, waited] {
          metrics_.PermitWait(/*allowed=*/true, waited());
          TraceStep(*ctx->state, clock_.Now(), "Permit", Status::OK(), "allowed");
          Commit(*ctx);
          StartBindingCycle(ctx);
        },
        [this, ctx, waited](const Status& rejected) {
          metrics_.PermitWait(/*allowed=*/false, waited());
          TraceStep(*ctx->state, clock_.Now(), "Permit", rejected);
          Unassume(*ctx, rejected, /*room_freed=*/true);
        });
    return;
  }
  Commit(*ctx);
  StartBindingCycle(std::move(ctx));
}

void Scheduler::Commit(BindingContext& ctx) {
  // The pod goes on to bind: the cluster has changed for every attempt made before now, and
  // not again when the binding is confirmed (OnPodUpdate), as every attempt since counts the
  // pod on its node. A pod held at Permit is not counted until it is let through, so that
  // members held and released again (a gang short of quorum, in PerPod mode) change nothing.
  ctx.committed = true;
  queue_.ClusterChanged();
}

void Scheduler::HandleSchedulingFailure(const framework::Framework& fwk,
                                        const framework::Stopwatch& started,
                                        framework::QueuedPodInfo info, const Status& status,
                                        const Diagnosis* diagnosis,
                                        const framework::PostFilterResult* nomination,
                                        bool nominated_at_binding) {
  const bool error = !status.IsRejected();
  if (framework::Metrics::Profile* m = fwk.profile_metrics()) {
    m->Attempt(error ? framework::AttemptResult::kError : framework::AttemptResult::kUnschedulable,
               started.Seconds());
  }
  info.unschedulable_plugins.clear();
  info.pending_plugins.clear();
  if (error) {
    ++stats_.errors;
  } else {
    ++stats_.unschedulable;
    if (diagnosis != nullptr) {
      info.unschedulable_plugins.assign(diagnosis->unschedulable_plugins.begin(),
                                        diagnosis->unschedulable_plugins.end());
      info.pending_plugins.assign(diagnosis->pending_plugins.begin(),
                                  diagnosis->pending_plugins.end());
    } else if (!status.plugin().empty()) {
      if (status.code() == Code::kPending) {
        info.pending_plugins.push_back(status.plugin());
      } else {
        info.unschedulable_plugins.push_back(status.plugin());
      }
    }
  }
  const framework::PodInfoPtr attempted = info.info;  // info moves to the queue below
  const api::Pod& pod = attempted->pod;
  // The pod may have been deleted or bound meanwhile: then there is nothing to requeue.
  const framework::PodInfoPtr* stored = store_.FindPod(api::PodName::Of(pod));
  if (stored == nullptr || !(*stored)->pod.spec.node_name.empty()) return;
  queue_.AddUnschedulableIfNotPresent(std::move(info));

  std::optional<std::string> nominated;
  if (nomination != nullptr && nomination->mode == framework::NominatingMode::kOverride) {
    nominated = nomination->nominated_node_name.string();
    if (!nomination->nominated_node_name.empty()) {
      queue_.AddNominatedPod(*stored, nomination->nominated_node_name);
    } else {
      queue_.DeleteNominatedPodIfExists(pod);
    }
  }
  const std::string message = status.Message();
  if (error) {
    log::Error("Error scheduling pod; retrying", {{"pod", pod.metadata.Key()}, {"err", message}});
  } else if (log::V(2)) {
    log::Info(2, "Unable to schedule pod; no fit; waiting",
              {{"pod", pod.metadata.Key()}, {"err", message}});
  }
  client_.RecordEvent(framework::EventRecord{
      framework::ReferenceTo(pod), "Warning", "FailedScheduling", "Scheduling",
      framework::TruncateEventNote(message), std::nullopt, fwk.scheduler_name()});
  api::Condition condition;
  condition.type = api::Symbol("PodScheduled");
  condition.status = api::Symbol("False");
  condition.reason = error ? "SchedulerError" : "Unschedulable";
  condition.message = message;
  condition.last_transition_time = clock_.Now();
  // As upstream's updatePod: the API server hears only of a changed condition or nomination. A
  // pod turned away again with the same message keeps its condition, transition time and all.
  const api::Pod& current = (*stored)->pod;
  const bool condition_changed = api::ConditionChanges(current.status.conditions, condition);
  if (const api::Condition* old =
          api::FindCondition(current.status.conditions, condition.type.str());
      old != nullptr && old->status == condition.status) {
    condition.last_transition_time = old->last_transition_time;
  }
  // A nomination made as the binding began is cleared whatever the informer has shown of it yet.
  const bool nomination_changed =
      nominated && (*nominated != current.status.nominated_node_name.str() || nominated_at_binding);
  if (condition_changed || nomination_changed) {
    client_.UpdatePodCondition(current, condition, nominated);
  }
}

// ---- binding cycle ----

void Scheduler::StartBindingCycle(std::shared_ptr<BindingContext> ctx) {
  if (binding_busy_ == nullptr) binding_busy_ = metrics_.Goroutines("binding");
  if (ctx->binding == nullptr) {
    ctx->binding = binding_busy_;
    ctx->binding->fetch_add(1, std::memory_order_relaxed);
  }
  // Binding runs as its own event, after the scheduling cycle, as upstream runs it concurrently.
  clock_.AddTimer(clock_.Now(), [this, ctx] { RunBindingCycle(ctx); });
}

void Scheduler::RunBindingCycle(std::shared_ptr<BindingContext> ctx) {
  // The pod may have been deleted while it waited.
  if (DroppedWhileBinding(*ctx)) return;
  ContinueBinding(std::move(ctx));
}

bool Scheduler::DroppedWhileBinding(const BindingContext& ctx) {
  const framework::PodInfo& pod = *ctx.assumed;
  if (store_.FindPod(api::PodName::Of(pod.pod)) != nullptr) return false;
  TraceStep(*ctx.state, clock_.Now(), "Bind", Status(Code::kSkip), "the pod was deleted");
  ctx.fwk->RunReservePluginsUnreserve(*ctx.state, pod, ctx.node);
  cache_.ForgetPod(pod.pod);
  if (ctx.committed) queue_.ClusterChanged();
  // Its room on the node is free again, as when an assigned pod goes.
  EventObjects objects;
  objects.old_pod = &pod.pod;
  MoveAll(kAssignedPodDelete, objects);
  queue_.Done(pod.Key());
  return true;
}

void Scheduler::ContinueBinding(std::shared_ptr<BindingContext> ctx) {
  auto work = [this, ctx] {
    Status s =
        ctx->fwk->RunPreBindPlugins(*ctx->state, *ctx->assumed, ctx->node, &ctx->pre_bind_next);
    if (!s.IsSuccess()) return s;
    // An extender that binds comes before the bind plugins (upstream's bind).
    bool bound = false;
    s = ExtendersBinding(ctx->assumed->pod, ctx->node, &bound);
    if (bound) return s;
    return ctx->fwk->RunBindPlugins(*ctx->state, *ctx->assumed, ctx->node);
  };
  auto done = [this, ctx](Status s) {
    if (framework::AttemptTrace* trace = ctx->state->trace.get()) {
      // The PreBind plugins that acted, each a step: what they wrote before the binding.
      for (const framework::AttemptTrace::Outcome& o : std::exchange(trace->pre_bind, {})) {
        std::string message = o.code == Code::kWait ? o.plugin + " waits for the cluster"
                              : o.message.empty()   ? o.plugin
                                                    : o.plugin + ": " + o.message;
        TraceStep(*ctx->state, clock_.Now(), "PreBind", Status(o.code), std::move(message));
      }
    }
    if (!s.IsWait()) {
      FinishBindingCycle(ctx, s);
      return;
    }
    // Asked first at once (after what the cluster does at this instant: a simulation's
    // controllers answer a write at the instant they hear of it), then each poll period.
    AwaitPreBind(ctx, clock_.Now(), api::Duration::zero());
  };
  if (bind_runner_) {
    bind_runner_(std::move(work), std::move(done));
  } else {
    done(work());
  }
}

Status Scheduler::ExtendersBinding(const api::Pod& pod, api::Symbol node, bool* bound) {
  for (framework::Extender* extender : extenders_) {
    if (!extender->IsBinder() || !extender->IsInterested(pod)) continue;
    Status s = extender->Bind(pod, node);
    if (!s.IsSuccess() && extender->IsIgnorable()) {
      log::Info(
          0, "Skipping extender in bind as it returned error and has ignorable flag set",
          {{"pod", pod.metadata.Key()}, {"extender", extender->Name()}, {"err", s.Message()}});
      continue;
    }
    *bound = true;
    // The extender wrote the Binding; a cluster it cannot reach (simulate's) takes it from here.
    if (s.IsSuccess()) s = client_.ExtenderBound(pod, node);
    return s;
  }
  return Status::OK();
}

void Scheduler::AwaitPreBind(std::shared_ptr<BindingContext> ctx, api::Time since,
                             api::Duration delay) {
  const std::string key = ctx->assumed->Key();
  const framework::Clock::TimerId timer =
      clock_.AddTimer(clock_.Now() + delay, [this, ctx, since] { PollPreBind(ctx, since); });
  awaiting_pre_bind_[key] = AwaitingPreBind{std::move(ctx), timer, since};
}

void Scheduler::AskAwaitingPreBindNow() {
  for (auto& [key, waiting] : awaiting_pre_bind_) {
    clock_.CancelTimer(waiting.timer);
    waiting.timer = clock_.AddTimer(clock_.Now(), [this, ctx = waiting.ctx, since = waiting.since] {
      PollPreBind(ctx, since);
    });
  }
}

void Scheduler::PollPreBind(const std::shared_ptr<BindingContext>& ctx, api::Time since) {
  awaiting_pre_bind_.erase(ctx->assumed->Key());
  if (DroppedWhileBinding(*ctx)) return;
  // The plugin reads the node as the cluster has it now, not as the last cycle saw it.
  cache_.UpdateSnapshot(snapshot_);
  const api::Time now = clock_.Now();
  Status s = ctx->fwk->RunPreBindWait(ctx->pre_bind_next, *ctx->state, *ctx->assumed, ctx->node,
                                      now - since);
  if (s.IsWait()) {
    AwaitPreBind(ctx, since, framework::kPreBindPollPeriod);
    return;
  }
  if (!s.IsSuccess()) {
    TraceStep(*ctx->state, now, "PreBind", s,
              fmt::format("after {}: {}", api::FormatDuration(now - since), s.Message()));
    FinishBindingCycle(ctx, s);
    return;
  }
  TraceStep(*ctx->state, now, "PreBind", s,
            fmt::format("{} waited {}", ctx->fwk->plugins().pre_bind[ctx->pre_bind_next]->Name(),
                        api::FormatDuration(now - since)));
  ++ctx->pre_bind_next;
  ContinueBinding(ctx);
}

void Scheduler::DropAwaitingPreBind(const std::string& pod_key) {
  auto it = awaiting_pre_bind_.find(pod_key);
  if (it == awaiting_pre_bind_.end()) return;
  const std::shared_ptr<BindingContext> ctx = std::move(it->second.ctx);
  clock_.CancelTimer(it->second.timer);
  awaiting_pre_bind_.erase(it);
  DroppedWhileBinding(*ctx);
}

void Scheduler::FinishBindingCycle(const std::shared_ptr<BindingContext>& ctx, const Status& s) {
  const framework::Framework& fwk = *ctx->fwk;
  const framework::PodInfo& pod = *ctx->assumed;
  const std::string key = pod.Key();
  if (!s.IsSuccess()) {
    const Status failure = s.IsSkip() ? Status::Error("no bind plugin bound the pod") : s;
    // A PreBind plugin's failure is its step's already; the binding was not tried.
    const framework::AttemptTrace* trace = ctx->state->trace.get();
    if (trace == nullptr || trace->steps.empty() || trace->steps.back().step != "PreBind" ||
        trace->steps.back().code == Code::kSuccess) {
      TraceStep(*ctx->state, clock_.Now(), "Bind", failure);
    }
    Unassume(*ctx, failure, /*room_freed=*/true);
    return;
  }
  TraceStep(*ctx->state, clock_.Now(), "Bind", s, fmt::format("bound to {}", ctx->node.str()));
  cache_.FinishBinding(pod.pod);
  ++stats_.scheduled;
  if (framework::Metrics::Profile* m = fwk.profile_metrics()) {
    m->Attempt(framework::AttemptResult::kScheduled, ctx->started.Seconds());
    metrics_.PodScheduled(
        ctx->queued.attempts,
        std::chrono::duration<double>(clock_.Now() - ctx->queued.initial_attempt_timestamp)
            .count());
  }
  if (log::V(2)) {
    log::Info(2, "Successfully bound pod to node",
              {{"pod", key},
               {"node", ctx->node.str()},
               {"evaluatedNodes", ctx->evaluated_nodes},
               {"feasibleNodes", ctx->feasible_nodes}});
  }
  if (client_.RecordsEvents()) {
    client_.RecordEvent(
        framework::EventRecord{framework::ReferenceTo(pod.pod), "Normal", "Scheduled", "Binding",
                               fmt::format("Successfully assigned {} to {}", key, ctx->node.str()),
                               std::nullopt, fwk.scheduler_name()});
  }
  fwk.RunPostBindPlugins(*ctx->state, pod, ctx->node);
  queue_.Done(key);
}

Status Scheduler::OnChosenNode(const Status& status) {
  // A rejection after the node was chosen (Reserve, Permit, the wait at Permit) is reported as
  // upstream reports it, a FitError over that one node: "0/1 nodes are available: 1 <reason>."
  if (!status.IsRejected()) return status;
  Diagnosis diagnosis;
  diagnosis.num_all_nodes = 1;
  diagnosis.statuses.absent = status;
  return Status(status.code(), diagnosis.FitErrorMessage()).WithPlugin(status.plugin());
}

void Scheduler::Unassume(const BindingContext& ctx, const Status& status, bool room_freed) {
  const framework::PodInfo& pod = *ctx.assumed;
  ctx.fwk->RunReservePluginsUnreserve(*ctx.state, pod, ctx.node);
  cache_.ForgetPod(pod.pod);
  const std::string key = pod.Key();
  // A pod that failed after its node was chosen holds no nomination (upstream's
  // clearNominatedNode): its status is cleared of one too.
  framework::PostFilterResult clear;
  clear.mode = framework::NominatingMode::kOverride;
  HandleSchedulingFailure(*ctx.fwk, ctx.started, ctx.queued, OnChosenNode(status), nullptr, &clear,
                          ctx.nominated);
  if (ctx.committed) queue_.ClusterChanged();
  if (room_freed) {
    // The node's room is free again: other pods may fit now (not this one, when it was
    // rejected: it would only be turned away again).
    EventObjects objects;
    objects.old_pod = &pod.pod;
    MoveAll(kAssignedPodDelete, objects, status.IsRejected() ? key : "");
  }
  queue_.Done(key);
}

}  // namespace muster::scheduler
