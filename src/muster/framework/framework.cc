#include "muster/framework/framework.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <optional>

#include <fmt/format.h>

#include "muster/framework/group_preemption.h"
#include "muster/framework/parallel.h"
#include "muster/framework/trace.h"

namespace muster::framework {
namespace {

// A status a point may not return becomes an Error naming the plugin, as upstream's AsStatus.
Status AsError(std::string_view point, std::string_view plugin, const Status& s) {
  return Status::Error(fmt::format("running {} plugin \"{}\": {}", point, plugin, s.Message()))
      .WithPlugin(plugin);
}

// Upstream's words for a Score or NormalizeScore plugin's error: `<what>: plugin "X" failed
// with: <its message>`.
Status ScoreError(std::string_view what, std::string_view plugin, const Status& s) {
  return Status::Error(fmt::format("{}: plugin \"{}\" failed with: {}", what, plugin, s.Message()))
      .WithPlugin(plugin);
}

// The attempt's trace while it records its own verdicts (not those of preemption's what-ifs).
AttemptTrace* Recording(const CycleState& state) {
  AttemptTrace* trace = state.trace.get();
  return trace != nullptr && !trace->in_post_filter ? trace : nullptr;
}

void RecordOutcome(std::vector<AttemptTrace::Outcome>& outcomes, std::string_view plugin,
                   const Status& s, std::string message = {}) {
  if (message.empty()) message = s.Message();
  outcomes.push_back(AttemptTrace::Outcome{std::string(plugin), s.code(), std::move(message)});
}

}  // namespace

std::pair<GroupPlugin*, std::optional<Gang>> Framework::GroupOf(const PodInfo& pod) const {
  if (pod.gang.empty()) return {nullptr, std::nullopt};
  for (GroupPlugin* plugin : group_plugins_) {
    if (!plugin->Handles(pod.gang)) continue;
    if (std::optional<Gang> gang = plugin->GroupOf(pod)) return {plugin, std::move(gang)};
  }
  return {nullptr, std::nullopt};
}

bool Framework::HandlesGang(const api::GangRef& gang) const {
  return std::any_of(group_plugins_.begin(), group_plugins_.end(),
                     [&](const GroupPlugin* p) { return p->Handles(gang); });
}

void Framework::SetPlugins(ProfilePlugins plugins, std::vector<std::unique_ptr<Plugin>> owned) {
  plugins_ = std::move(plugins);
  owned_ = std::move(owned);
  group_plugins_.clear();
  for (const auto& p : owned_) {
    if (auto* group = dynamic_cast<GroupPlugin*>(p.get())) group_plugins_.push_back(group);
  }
  group_post_filter_ = nullptr;
  group_post_filter_as_post_filter_ = nullptr;
  for (PostFilterPlugin* p : plugins_.post_filter) {
    if (auto* group = dynamic_cast<GroupPostFilterPlugin*>(p)) {
      group_post_filter_ = group;
      group_post_filter_as_post_filter_ = p;
      break;
    }
  }
  auto position = [](std::string_view name, const auto& list, auto plugin_of) {
    for (size_t i = 0; i < list.size(); ++i) {
      if (plugin_of(list[i])->Name() == name) return static_cast<int>(i);
    }
    return -1;
  };
  filter_of_pre_filter_.clear();
  for (const PreFilterPlugin* pl : plugins_.pre_filter) {
    filter_of_pre_filter_.push_back(
        position(pl->Name(), plugins_.filter, [](const FilterPlugin* f) { return f; }));
  }
  score_of_pre_score_.clear();
  for (const PreScorePlugin* pl : plugins_.pre_score) {
    score_of_pre_score_.push_back(
        position(pl->Name(), plugins_.score, [](const auto& entry) { return entry.first; }));
  }
  pre_filter_evaluations_.clear();
  filter_evaluations_.clear();
  pre_score_evaluations_.clear();
  score_evaluations_.clear();
  if (metrics_ != nullptr) {
    auto series = [&](std::string_view plugin, ExtensionPoint point) {
      return metrics_->PluginEvaluations(plugin, point, scheduler_name_);
    };
    for (const auto* pl : plugins_.pre_filter) {
      pre_filter_evaluations_.push_back(series(pl->Name(), ExtensionPoint::kPreFilter));
    }
    for (const auto* pl : plugins_.filter) {
      filter_evaluations_.push_back(series(pl->Name(), ExtensionPoint::kFilter));
    }
    for (const auto* pl : plugins_.pre_score) {
      pre_score_evaluations_.push_back(series(pl->Name(), ExtensionPoint::kPreScore));
    }
    for (const auto& [pl, weight] : plugins_.score) {
      score_evaluations_.push_back(series(pl->Name(), ExtensionPoint::kScore));
    }
    // Plugins and their loops live no longer than the metrics: plain pointers serve.
    filter_busy_ = metrics_->Goroutines(ExtensionPointName(ExtensionPoint::kFilter)).get();
    score_busy_ = metrics_->Goroutines(ExtensionPointName(ExtensionPoint::kScore)).get();
  }
}

const Plugin* Framework::FindPlugin(std::string_view name) const {
  for (const auto& p : owned_) {
    if (p->Name() == name) return p.get();
  }
  return nullptr;
}

std::vector<std::pair<std::string, std::vector<ClusterEventWithHint>>> Framework::EventsToRegister()
    const {
  std::vector<std::pair<std::string, std::vector<ClusterEventWithHint>>> out;
  for (const auto& p : owned_) {
    if (const auto* ext = dynamic_cast<const EnqueueExtensions*>(p.get())) {
      out.emplace_back(std::string(p->Name()), ext->EventsToRegister());
    }
  }
  return out;
}

Status Framework::RunPreEnqueuePlugins(const api::Pod& pod) const {
  if (plugins_.pre_enqueue.empty()) return Status::OK();
  return Measured(ExtensionPoint::kPreEnqueue, [&] {
    for (PreEnqueuePlugin* pl : plugins_.pre_enqueue) {
      Status s = pl->PreEnqueue(pod);
      if (s.IsSuccess()) continue;
      if (s.IsRejected()) return s.WithPlugin(pl->Name());
      return AsError("PreEnqueue", pl->Name(), s);
    }
    return Status::OK();
  });
}

Status Framework::RunPreFilterPlugins(CycleState& state, const PodInfo& pod,
                                      PreFilterResult* result, std::string* rejector) const {
  return Measured(ExtensionPoint::kPreFilter,
                  [&] { return PreFilterPoint(state, pod, result, rejector); });
}

Status Framework::PreFilterPoint(CycleState& state, const PodInfo& pod, PreFilterResult* result,
                                 std::string* rejector) const {
  const auto& nodes = snapshot().List();
  Status unschedulable;
  if (AttemptTrace* trace = Recording(state)) {
    trace->filter_plugins.clear();
    for (const FilterPlugin* pl : plugins_.filter) trace->filter_plugins.emplace_back(pl->Name());
  }
  for (size_t i = 0; i < plugins_.pre_filter.size(); ++i) {
    PreFilterPlugin* pl = plugins_.pre_filter[i];
    PreFilterResult r;
    Status s = Timed(state, ExtensionPoint::kPreFilter, pl->Name(),
                     [&] { return pl->PreFilter(state, pod, nodes, &r); });
    if (AttemptTrace* trace = Recording(state)) {
      std::string subset;
      if (s.IsSuccess() && !r.AllNodes()) {
        subset = "only node(s)";
        for (api::Symbol name : *r.node_names) {
          subset += fmt::format("{} {}", name == r.node_names->front() ? "" : ",", name.str());
        }
      }
      RecordOutcome(trace->pre_filter, pl->Name(), s, std::move(subset));
    }
    if (s.IsSkip()) {
      state.skip_filter_plugins.push_back(pl->Name());
      if (filter_of_pre_filter_[i] >= 0) state.skip_filter_at.set(filter_of_pre_filter_[i]);
      continue;
    }
    if (!pre_filter_evaluations_.empty()) pre_filter_evaluations_[i]->Increment();
    if (!s.IsSuccess()) {
      s.WithPlugin(pl->Name());
      if (s.code() == Code::kUnschedulableAndUnresolvable) {
        *rejector = std::string(pl->Name());
        return s;
      }
      if (s.code() == Code::kUnschedulable) {
        // Preemption may still help, so every PreFilter must run (upstream issue 119770).
        // The last one speaks, as upstream overwrites its status with each.
        unschedulable = s;
        *rejector = std::string(pl->Name());
        continue;
      }
      *rejector = std::string(pl->Name());
      return AsError("PreFilter", pl->Name(), s);
    }
    if (!r.AllNodes()) {
      result->narrowed_by.insert(
          std::upper_bound(result->narrowed_by.begin(), result->narrowed_by.end(), pl->Name()),
          std::string(pl->Name()));
    }
    result->Merge(r);
    if (!result->AllNodes() && result->node_names->empty()) {
      const std::vector<std::string>& plugins = result->narrowed_by;
      std::string msg;
      if (plugins.size() == 1) {
        msg = fmt::format("node(s) didn't satisfy plugin {}", plugins[0]);
      } else {
        msg = fmt::format("node(s) didn't satisfy plugin(s) [{}] simultaneously",
                          fmt::join(plugins, " "));
      }
      // No one plugin rejected: the plugins that narrowed the nodes did, together.
      *rejector = fmt::format("{}", fmt::join(plugins, ","));
      return Status::Unresolvable(std::move(msg));
    }
  }
  return unschedulable;
}

Status Framework::RunPreFilterExtensionAddPod(CycleState& state, const PodInfo& pod,
                                              const PodInfo& to_add, const NodeInfo& node) const {
  for (PreFilterPlugin* pl : plugins_.pre_filter) {
    const PreFilterExtensions* ext = pl->Extensions();
    if (ext == nullptr || state.SkipFilter(pl->Name())) continue;
    Status s = Timed(state, ExtensionPoint::kPreFilterExtensionAddPod, pl->Name(),
                     [&] { return ext->AddPod(state, pod, to_add, node); });
    if (!s.IsSuccess()) {
      return Status::Error(
          fmt::format("running AddPod on PreFilter plugin \"{}\": {}", pl->Name(), s.Message()));
    }
  }
  return Status::OK();
}

Status Framework::RunPreFilterExtensionRemovePod(CycleState& state, const PodInfo& pod,
                                                 const PodInfo& to_remove,
                                                 const NodeInfo& node) const {
  for (PreFilterPlugin* pl : plugins_.pre_filter) {
    const PreFilterExtensions* ext = pl->Extensions();
    if (ext == nullptr || state.SkipFilter(pl->Name())) continue;
    Status s = Timed(state, ExtensionPoint::kPreFilterExtensionRemovePod, pl->Name(),
                     [&] { return ext->RemovePod(state, pod, to_remove, node); });
    if (!s.IsSuccess()) {
      return Status::Error(
          fmt::format("running RemovePod on PreFilter plugin \"{}\": {}", pl->Name(), s.Message()));
    }
  }
  return Status::OK();
}

namespace {

// The Filter plugins not skipped this cycle, as set bits of their positions: nodes visit only
// those (most pods skip most filters).
uint64_t FiltersToRun(const CycleState& state, size_t n) {
  uint64_t run = ~state.skip_filter_at.to_ullong();
  if (n < 64) run &= (uint64_t{1} << n) - 1;
  return run;
}

// A Filter plugin's failure as the framework reports it: stamped with the plugin, or wrapped as
// an error. Stamped in place and moved: Filter statuses are often shared copies.
Status Stamped(const FilterPlugin& plugin, Status&& s) {
  if (!s.IsRejected()) {
    return Status::Error(
               fmt::format("running \"{}\" filter plugin: {}", plugin.Name(), s.Message()))
        .WithPlugin(plugin.Name());
  }
  s.WithPlugin(plugin.Name());
  return std::move(s);
}

}  // namespace

Status Framework::RunFilterPlugins(const CycleState& state, const PodInfo& pod,
                                   const NodeInfo& node) const {
  for (uint64_t run = FiltersToRun(state, plugins_.filter.size()); run != 0; run &= run - 1) {
    const int at = std::countr_zero(run);
    const FilterPlugin& pl = *plugins_.filter[at];
    PluginTally* tally = state.plugin_tally.get();
    const uint64_t started = tally != nullptr ? PluginTicks() : 0;
    Status s = pl.Filter(state, pod, node);
    if (tally != nullptr) {
      tally->filter_ticks[at].fetch_add(TicksSince(started, PluginTicks()),
                                        std::memory_order_relaxed);
      tally->filter_calls[at][static_cast<size_t>(s.code())].fetch_add(1,
                                                                       std::memory_order_relaxed);
    }
    if (AttemptTrace* trace = Recording(state)) trace->RecordFilter(node.name().string(), at, s);
    if (!filter_evaluations_.empty()) filter_evaluations_[at]->Increment();
    if (!s.IsSuccess()) return Stamped(pl, std::move(s));
  }
  return Status::OK();
}

uint64_t Framework::RunFilterPlugins(const CycleState& state, const PodInfo& pod,
                                     std::span<const NodeInfo* const> nodes,
                                     std::span<Status> statuses, FilterEvaluations& evaluated,
                                     bool* error) const {
  // A block small enough for its nodes to stay in cache from one plugin to the next.
  std::array<const NodeInfo*, kFilterBlock> passing;  // the nodes every plugin so far passed
  std::array<uint8_t, kFilterBlock> at;               // passing[j] is nodes[at[j]]
  // The plugins' verdicts on passing[j]: all Success between plugins and between calls, so one
  // per thread serves every call (filtering runs per block of nodes, many times per pod).
  thread_local std::array<Status, kFilterBlock> verdicts;
  const uint64_t to_run = FiltersToRun(state, plugins_.filter.size());
  PluginTally* tally = state.plugin_tally.get();
  AttemptTrace* trace = Recording(state);
  // In a sampled cycle, each plugin's time and passes over this block, added to the tally at
  // the end. One reading of the clock ends a plugin's time and starts the next one's, unless
  // work of the framework's own came between (rejections stamped, a trace written).
  struct Spent {
    std::array<uint64_t, PluginTally::kMaxPlugins> ticks;
    std::array<uint64_t, PluginTally::kMaxPlugins> passed;
  };
  std::optional<Spent> spent;
  if (tally != nullptr) spent.emplace(Spent{{}, {}});
  assert(nodes.size() <= kFilterBlock);
  size_t m = nodes.size();
  for (size_t j = 0; j < m; ++j) {
    passing[j] = nodes[j];
    at[j] = static_cast<uint8_t>(j);
  }
  uint64_t tick = tally != nullptr ? PluginTicks() : 0;
  for (uint64_t run = to_run; run != 0 && m > 0; run &= run - 1) {
    const int plugin_at = std::countr_zero(run);
    const FilterPlugin& pl = *plugins_.filter[plugin_at];
    const size_t rejected =
        pl.FilterNodes(state, pod, std::span(passing.data(), m), std::span(verdicts.data(), m));
    if (spent) {
      // The rejections are counted by code below, where they are stamped.
      const uint64_t now = PluginTicks();
      spent->ticks[plugin_at] += TicksSince(tick, now);
      spent->passed[plugin_at] += m - rejected;
      tick = now;
    }
    evaluated[plugin_at] += m;
    if (trace != nullptr) {
      for (size_t j = 0; j < m; ++j) {
        trace->RecordFilter(passing[j]->name().string(), plugin_at, verdicts[j]);
      }
      if (spent) tick = PluginTicks();
    }
    if (rejected == 0) continue;
    size_t kept = 0;
    // A verdict that stamping left as it was already names the plugin, and so does every copy
    // of it: most rejections in a block are copies of one status, stamped once.
    const void* stamped = nullptr;
    for (size_t j = 0; j < m; ++j) {
      if (verdicts[j].IsSuccess()) {
        passing[kept] = passing[j];
        at[kept++] = at[j];
        continue;
      }
      if (tally != nullptr) {
        tally->filter_calls[plugin_at][static_cast<size_t>(verdicts[j].code())].fetch_add(
            1, std::memory_order_relaxed);
      }
      *error |= verdicts[j].IsError();
      Status& out = statuses[at[j]];
      const void* identity = verdicts[j].identity();
      if (identity != nullptr && identity == stamped) {
        out = std::move(verdicts[j]);
      } else {
        out = Stamped(pl, std::move(verdicts[j]));
        if (out.identity() == identity) stamped = identity;
      }
      verdicts[j] = Status();
    }
    m = kept;
    if (spent) tick = PluginTicks();
  }
  uint64_t passed = 0;
  for (size_t j = 0; j < m; ++j) passed |= uint64_t{1} << at[j];
  if (!spent) return passed;
  for (uint64_t run = to_run; run != 0; run &= run - 1) {
    const int plugin_at = std::countr_zero(run);
    if (spent->ticks[plugin_at] != 0) {
      tally->filter_ticks[plugin_at].fetch_add(spent->ticks[plugin_at], std::memory_order_relaxed);
    }
    if (spent->passed[plugin_at] != 0) {
      tally->filter_calls[plugin_at][static_cast<size_t>(Code::kSuccess)].fetch_add(
          spent->passed[plugin_at], std::memory_order_relaxed);
    }
  }
  return passed;
}

void Framework::CountFilterEvaluations(FilterEvaluations& evaluated) const {
  for (size_t i = 0; i < filter_evaluations_.size(); ++i) {
    if (evaluated[i] != 0) filter_evaluations_[i]->Increment(static_cast<double>(evaluated[i]));
    evaluated[i] = 0;
  }
}

Status Framework::RunFilterPluginsWithNominatedPods(const CycleState& state, const PodInfo& pod,
                                                    const NodeInfo& node,
                                                    std::span<const PodInfoPtr> nominated) const {
  // Only the pods nominated with a priority at least the pod's own count, and not the pod itself
  // (it is nominated to the node it tries first), as upstream's addNominatedPods.
  const std::string key = pod.Key();
  auto counts = [&](const PodInfoPtr& p) { return p->priority >= pod.priority && p->Key() != key; };
  if (std::none_of(nominated.begin(), nominated.end(), counts)) {
    return RunFilterPlugins(state, pod, node);
  }
  // Pass 1: as if the nominated pods of higher or equal priority were already running there, so
  // that this pod does not take the room preemption made for them.
  std::unique_ptr<CycleState> with_nominated = state.Clone();
  NodeInfo node_with_nominated = node;
  int added = 0;
  for (const PodInfoPtr& p : nominated) {
    if (!counts(p)) continue;
    ++added;
    node_with_nominated.AddPod(p);
    Status s = RunPreFilterExtensionAddPod(*with_nominated, pod, *p, node_with_nominated);
    if (!s.IsSuccess()) return s;
  }
  Status first = RunFilterPlugins(*with_nominated, pod, node_with_nominated);
  if (AttemptTrace* trace = Recording(state)) {
    trace->NominatedPass(node.name().string(), added, first.IsSuccess());
  }
  if (!first.IsSuccess()) return first;
  // Pass 2: without them, since they may never arrive (inter-pod affinity with them must not
  // be what makes this pod fit).
  return RunFilterPlugins(state, pod, node);
}

Status Framework::RunPostFilterPlugins(CycleState& state, const PodInfo& pod,
                                       const NodeToStatus& statuses,
                                       PostFilterResult* result) const {
  return Measured(ExtensionPoint::kPostFilter,
                  [&] { return PostFilterPoint(state, pod, statuses, result); });
}

Status Framework::PostFilterPoint(CycleState& state, const PodInfo& pod,
                                  const NodeToStatus& statuses, PostFilterResult* result) const {
  std::vector<std::string> reasons;
  std::string rejector;
  AttemptTrace* trace = Recording(state);
  for (PostFilterPlugin* pl : plugins_.post_filter) {
    PostFilterResult r;
    if (trace != nullptr) trace->in_post_filter = true;
    Status s = Timed(state, ExtensionPoint::kPostFilter, pl->Name(),
                     [&] { return pl->PostFilter(state, pod, statuses, &r); });
    // A plugin that stood aside (Unschedulable, saying nothing and nominating nothing, as
    // Coscheduling does in Group mode) is not part of explain's record of the attempt.
    const bool stood_aside =
        s.code() == Code::kUnschedulable && s.reasons().empty() && r.mode == NominatingMode::kNoop;
    if (trace != nullptr) {
      trace->in_post_filter = false;
      if (!stood_aside || !trace->post_filter_notes.empty()) {
        RecordOutcome(trace->post_filter, pl->Name(), s);
        trace->post_filter.back().notes = std::move(trace->post_filter_notes);
      }
      trace->post_filter_notes.clear();
      if (r.mode == NominatingMode::kOverride) {
        trace->post_filter_nominated = r.nominated_node_name.string();
      }
    }
    if (s.IsSuccess()) {
      *result = r;
      return s;
    }
    if (s.code() == Code::kUnschedulableAndUnresolvable) {
      *result = r;
      return s.WithPlugin(pl->Name());
    }
    // An error keeps the plugin's own words (upstream's AsStatus(s.AsError())).
    if (!s.IsRejected()) return Status::Error(s.Message()).WithPlugin(pl->Name());
    if (r.mode != NominatingMode::kNoop) *result = r;
    reasons.insert(reasons.end(), s.reasons().begin(), s.reasons().end());
    if (rejector.empty()) rejector = std::string(pl->Name());
  }
  return Status(Code::kUnschedulable, std::move(reasons)).WithPlugin(rejector);
}

Status Framework::RunPreScorePlugins(CycleState& state, const PodInfo& pod,
                                     std::span<NodeInfo* const> nodes) const {
  return Measured(ExtensionPoint::kPreScore, [&] {
    for (size_t i = 0; i < plugins_.pre_score.size(); ++i) {
      PreScorePlugin* pl = plugins_.pre_score[i];
      Status s = Timed(state, ExtensionPoint::kPreScore, pl->Name(),
                       [&] { return pl->PreScore(state, pod, nodes); });
      if (AttemptTrace* trace = Recording(state)) RecordOutcome(trace->pre_score, pl->Name(), s);
      if (s.IsSkip()) {
        if (score_of_pre_score_[i] >= 0) state.skip_score_at.set(score_of_pre_score_[i]);
        continue;
      }
      if (!pre_score_evaluations_.empty()) pre_score_evaluations_[i]->Increment();
      if (!s.IsSuccess()) return AsError("PreScore", pl->Name(), s);
    }
    return Status::OK();
  });
}

void ScoreTops::Note(size_t begin, std::span<const int64_t> totals) {
  Block block{totals.empty() ? 0 : totals[0], 0};
  for (const int64_t total : totals) {
    if (total > block.top) block = Block{total, 0};
    block.count += total == block.top;
  }
  blocks_[begin / kBlock] = block;
}

void ScoreTops::Recount(std::span<const int64_t> totals) {
  Reset(totals.size());
  for (size_t b = 0; b < totals.size(); b += kBlock) {
    Note(b, totals.subspan(b, std::min(kBlock, totals.size() - b)));
  }
}

int64_t ScoreTops::Top() const {
  if (blocks_.empty()) return 0;
  int64_t top = blocks_[0].top;
  for (const Block& block : blocks_) top = std::max(top, block.top);
  return top;
}

int64_t ScoreTops::Ties(int64_t top) const {
  int64_t ties = 0;
  for (const Block& block : blocks_) {
    if (block.top == top) ties += block.count;
  }
  return ties;
}

size_t ScoreTops::NthTie(std::span<const int64_t> totals, int64_t top, int64_t k) const {
  for (size_t b = 0; b < blocks_.size(); ++b) {
    if (blocks_[b].top != top) continue;
    if (k >= blocks_[b].count) {
      k -= blocks_[b].count;
      continue;
    }
    for (size_t i = b * kBlock;; ++i) {
      if (totals[i] == top && k-- == 0) return i;
    }
  }
  return totals.size();  // k >= Ties(top): not reached by a caller that keeps the contract
}

Status Framework::RunScorePlugins(const CycleState& state, const PodInfo& pod,
                                  std::span<NodeInfo* const> nodes, std::vector<int64_t>* totals,
                                  ScoreTops* tops) const {
  return Measured(ExtensionPoint::kScore,
                  [&] { return ScorePoint(state, pod, nodes, totals, tops); });
}

Status Framework::ScorePoint(const CycleState& state, const PodInfo& pod,
                             std::span<NodeInfo* const> nodes, std::vector<int64_t>* totals,
                             ScoreTops* tops) const {
  std::vector<const std::pair<ScorePlugin*, int32_t>*> active;
  std::vector<size_t> position;  // of active[p] in the profile's Score list
  // What the plugins that skipped with a uniform score add to every node's total.
  int64_t uniform = 0;
  for (size_t i = 0; i < plugins_.score.size(); ++i) {
    if (!state.skip_score_at[i]) {
      active.push_back(&plugins_.score[i]);
      position.push_back(i);
    } else if (auto score = plugins_.score[i].first->UniformScoreWhenSkipped()) {
      uniform += score->second * plugins_.score[i].second;
    }
  }
  PluginTally* tally = state.plugin_tally.get();
  AttemptTrace* trace = Recording(state);
  std::vector<size_t> column;  // active[p]'s column in the trace
  if (trace != nullptr) {
    trace->scored_nodes.clear();
    for (const NodeInfo* node : nodes) trace->scored_nodes.push_back(node->name().string());
    trace->scores.clear();
    // In profile order: the uniform columns too, filled in here (the others as they score).
    for (size_t i = 0; i < plugins_.score.size(); ++i) {
      const auto& [plugin, weight] = plugins_.score[i];
      std::optional<std::pair<int64_t, int64_t>> score;
      if (state.skip_score_at[i] && !(score = plugin->UniformScoreWhenSkipped())) continue;
      if (!state.skip_score_at[i]) column.push_back(trace->scores.size());
      trace->scores.push_back(AttemptTrace::ScoreColumn{
          std::string(plugin->Name()), weight, plugin->HasNormalizeScore(),
          std::vector<int64_t>(nodes.size(), score ? score->first : 0),
          std::vector<int64_t>(nodes.size(), score ? score->second : 0)});
    }
  }
  const size_t n = nodes.size();
  if (active.empty()) {
    totals->assign(n, uniform);
    if (tops != nullptr) tops->Recount(*totals);
    return Status::OK();
  }
  // The loop below writes every total (each block's by the thread that scored it), unless a
  // plugin fails, and then none is read.
  totals->resize(n);
  // A plugin that normalizes needs every node's score before any is final: its scores are kept
  // whole, in `flat` (the k-th such plugin's score of nodes[i] is flat[k * n + i]), and weighed
  // after the loop. The others' are checked and weighed in the loop, a block of nodes at a time.
  std::vector<size_t> flat_at(active.size(), SIZE_MAX);
  size_t normalizing = 0;
  for (size_t p = 0; p < active.size(); ++p) {
    if (active[p]->first->HasNormalizeScore()) flat_at[p] = normalizing++ * n;
  }
  std::vector<NodeScore> flat(normalizing * n);
  std::atomic<bool> failed{false};
  std::vector<Status> errors(active.size());
  std::vector<std::atomic<bool>> out_of_range(active.size());
  // The blocks' highest totals are final in the loop when no plugin normalizes.
  if (tops != nullptr) tops->Reset(n);
  const bool tops_in_loop = tops != nullptr && normalizing == 0;
  // Each block of nodes goes through every plugin in turn while its nodes are still in cache,
  // its totals summed on the stack and written once (ranges are whole blocks: ScoreTops').
  auto score_range = [&](size_t begin, size_t end) {
    constexpr size_t kBlock = ScoreTops::kBlock;
    std::array<NodeScore, kBlock> block;
    std::array<int64_t, kBlock> sum;
    // In a sampled cycle, each plugin's time and nodes over this range, added to the tally once
    // (as the filters' are). The clock is read after each plugin, and again only where the
    // framework's own work came between (the totals summed, a trace written).
    struct Spent {
      std::array<uint64_t, PluginTally::kMaxPlugins> ticks;
      std::array<uint64_t, PluginTally::kMaxPlugins> calls;
    };
    std::optional<Spent> spent;
    if (tally != nullptr) spent.emplace(Spent{{}, {}});
    auto add_spent = [&] {
      if (!spent) return;
      for (size_t p = 0; p < active.size(); ++p) {
        tally->score_ticks[position[p]].fetch_add(spent->ticks[p], std::memory_order_relaxed);
        tally->score_calls[position[p]].fetch_add(spent->calls[p], std::memory_order_relaxed);
      }
    };
    for (size_t b = begin; b < end; b += kBlock) {
      const size_t len = std::min(kBlock, end - b);
      // The block's nodes are all asked for before the first plugin reads one.
      for (size_t j = 0; j < len; ++j) PrefetchHotLines(nodes[b + j]);
      std::fill_n(sum.begin(), len, uniform);
      uint64_t tick = spent ? PluginTicks() : 0;
      for (size_t p = 0; p < active.size(); ++p) {
        ScorePlugin* const plugin = active[p]->first;
        const int64_t weight = active[p]->second;
        const std::span<NodeScore> scores = flat_at[p] == SIZE_MAX
                                                ? std::span(block.data(), len)
                                                : std::span(flat).subspan(flat_at[p] + b, len);
        Status s = plugin->ScoreNodes(state, pod, nodes.subspan(b, len), scores);
        if (spent) {
          const uint64_t now = PluginTicks();
          spent->ticks[p] += TicksSince(tick, now);
          spent->calls[p] += len;
          tick = now;
        }
        if (!s.IsSuccess()) {
          if (!failed.exchange(true)) errors[p] = s;
          add_spent();
          return;
        }
        if (trace != nullptr) {
          // Each range writes its own nodes' entries.
          for (size_t j = 0; j < len; ++j) trace->scores[column[p]].raw[b + j] = scores[j].score;
          if (spent) tick = PluginTicks();
        }
        if (flat_at[p] != SIZE_MAX) continue;
        bool invalid = false;
        for (size_t j = 0; j < len; ++j) {
          // Summed in unsigned arithmetic, which wraps where signed would overflow: an invalid
          // score (reported below) may be anything, and its node's total is never read.
          const int64_t score = scores[j].score;
          invalid |= score < kMinNodeScore || score > kMaxNodeScore;
          const uint64_t weighed = static_cast<uint64_t>(score) * static_cast<uint64_t>(weight);
          sum[j] = static_cast<int64_t>(static_cast<uint64_t>(sum[j]) + weighed);
        }
        if (invalid) out_of_range[p].store(true, std::memory_order_relaxed);
        if (spent) tick = PluginTicks();
      }
      std::copy_n(sum.begin(), len, totals->begin() + static_cast<std::ptrdiff_t>(b));
      if (tops_in_loop) tops->Note(b, std::span(sum.data(), len));
    }
    add_spent();
  };
  ParallelRanges(0, n, score_range, ScoreTops::kBlock, score_busy_);
  if (!score_evaluations_.empty()) {
    for (size_t p = 0; p < active.size(); ++p) {
      score_evaluations_[position[p]]->Increment(static_cast<double>(n));
    }
  }
  if (failed) {
    for (size_t p = 0; p < active.size(); ++p) {
      if (!errors[p].IsSuccess()) {
        return ScoreError("running Score plugins", active[p]->first->Name(), errors[p]);
      }
    }
  }
  // In plugin order, as if each plugin were normalized and weighed in turn: the first invalid
  // score is the one reported.
  for (size_t p = 0; p < active.size(); ++p) {
    ScorePlugin* const plugin = active[p]->first;
    const int32_t weight = active[p]->second;
    std::span<NodeScore> scores;
    std::vector<NodeScore> rescored;
    if (flat_at[p] != SIZE_MAX) {
      scores = std::span(flat).subspan(flat_at[p], n);
      Status s = Timed(state, ExtensionPoint::kScoreExtensionNormalize, plugin->Name(),
                       [&] { return plugin->NormalizeScore(state, pod, scores); });
      if (!s.IsSuccess())
        return ScoreError("running Normalize on Score plugins", plugin->Name(), s);
    } else if (out_of_range[p]) {
      // Scored again, in node order, to name the first invalid score (scores are the same each
      // time: the cycle's state does not change while it scores).
      rescored.resize(n);
      scores = rescored;
      Status s = plugin->ScoreNodes(state, pod, nodes, scores);
      if (!s.IsSuccess()) return ScoreError("running Score plugins", plugin->Name(), s);
    } else {
      if (trace != nullptr) trace->scores[column[p]].normalized = trace->scores[column[p]].raw;
      continue;  // weighed in the loop
    }
    if (trace != nullptr) {
      for (size_t i = 0; i < n; ++i) trace->scores[column[p]].normalized[i] = scores[i].score;
    }
    for (size_t i = 0; i < n; ++i) {
      const int64_t score = scores[i].score;
      if (score < kMinNodeScore || score > kMaxNodeScore) {
        return Status::Error(
                   fmt::format("applying score defaultWeights on Score plugins: plugin \"{}\" "
                               "returns an invalid score {}, it should in the range of [{}, {}] "
                               "after normalizing",
                               plugin->Name(), score, kMinNodeScore, kMaxNodeScore))
            .WithPlugin(plugin->Name());
      }
      (*totals)[i] += score * weight;
    }
  }
  if (tops != nullptr && !tops_in_loop) tops->Recount(*totals);
  if (trace != nullptr) trace->totals = *totals;
  return Status::OK();
}

Status Framework::RunReservePluginsReserve(CycleState& state, const PodInfo& pod, api::Symbol node,
                                           ReserveScope scope) const {
  auto run = [&] {
    for (ReservePlugin* pl : plugins_.reserve) {
      if (!scope.Covers(pl->Name())) continue;
      Status s = Timed(state, ExtensionPoint::kReserve, pl->Name(),
                       [&] { return pl->Reserve(state, pod, node); });
      if (s.IsSuccess()) continue;
      if (s.IsRejected()) return s.WithPlugin(pl->Name());
      return AsError("Reserve", pl->Name(), s);
    }
    return Status::OK();
  };
  // The group's plugin alone finishes the Reserve its member's placement measured already.
  if (scope.only) return run();
  return Measured(ExtensionPoint::kReserve, run);
}

void Framework::RunReservePluginsUnreserve(CycleState& state, const PodInfo& pod, api::Symbol node,
                                           ReserveScope scope) const {
  auto run = [&] {
    for (auto it = plugins_.reserve.rbegin(); it != plugins_.reserve.rend(); ++it) {
      if (!scope.Covers((*it)->Name())) continue;
      Timed(state, ExtensionPoint::kUnreserve, (*it)->Name(), [&] {
        (*it)->Unreserve(state, pod, node);
        return Status::OK();
      });
    }
    return Status::OK();
  };
  if (scope.only) {
    run();
    return;
  }
  Measured(ExtensionPoint::kUnreserve, run);
}

Status Framework::RunPermitPlugins(
    CycleState& state, const PodInfo& pod, api::Symbol node,
    std::vector<std::pair<std::string, api::Duration>>* waiting) const {
  return Measured(ExtensionPoint::kPermit, [&] { return PermitPoint(state, pod, node, waiting); });
}

Status Framework::PermitPoint(CycleState& state, const PodInfo& pod, api::Symbol node,
                              std::vector<std::pair<std::string, api::Duration>>* waiting) const {
  waiting->clear();
  for (PermitPlugin* pl : plugins_.permit) {
    api::Duration timeout{0};
    Status s = Timed(state, ExtensionPoint::kPermit, pl->Name(),
                     [&] { return pl->Permit(state, pod, node, &timeout); });
    if (s.IsSuccess()) continue;
    if (s.IsRejected()) {
      waiting->clear();
      return s.WithPlugin(pl->Name());
    }
    if (s.IsWait()) {
      waiting->emplace_back(std::string(pl->Name()), std::min(timeout, kMaxPermitTimeout));
      continue;
    }
    waiting->clear();
    return AsError("Permit", pl->Name(), s);
  }
  if (!waiting->empty()) {
    return Status(Code::kWait,
                  fmt::format("one or more plugins asked to wait and no plugin rejected pod \"{}\"",
                              pod.pod.metadata.name));
  }
  return Status::OK();
}

Status Framework::RunPreBindPreFlights(const CycleState& state, const PodInfo& pod,
                                       api::Symbol node) const {
  bool acts = false;
  for (const PreBindPlugin* pl : plugins_.pre_bind) {
    Status s = pl->PreBindPreFlight(state, pod, node);
    if (s.IsSkip()) continue;
    if (!s.IsSuccess()) {
      return Status::Error(
                 fmt::format("running PreBindPreFlight \"{}\": {}", pl->Name(), s.Message()))
          .WithPlugin(pl->Name());
    }
    acts = true;
  }
  return acts ? Status::OK() : Status(Code::kSkip);
}

Status Framework::RunPreBindPlugins(CycleState& state, const PodInfo& pod, api::Symbol node,
                                    size_t* next) const {
  return Measured(ExtensionPoint::kPreBind, [&] {
    for (size_t i = next != nullptr ? *next : 0; i < plugins_.pre_bind.size(); ++i) {
      PreBindPlugin* pl = plugins_.pre_bind[i];
      Status s = Timed(state, ExtensionPoint::kPreBind, pl->Name(),
                       [&] { return pl->PreBind(state, pod, node); });
      if (s.IsSkip()) continue;
      if (state.trace != nullptr) {
        state.trace->pre_bind.push_back({std::string(pl->Name()), s.code(), s.Message(), {}});
      }
      if (s.IsSuccess()) continue;
      if (s.IsWait() && next != nullptr) {
        *next = i;
        return s.WithPlugin(pl->Name());
      }
      if (s.IsRejected()) return s.WithPlugin(pl->Name());
      return AsError("PreBind", pl->Name(), s);
    }
    if (next != nullptr) *next = plugins_.pre_bind.size();
    return Status::OK();
  });
}

Status Framework::RunPreBindWait(size_t index, CycleState& state, const PodInfo& pod,
                                 api::Symbol node, api::Duration waited) const {
  PreBindPlugin* pl = plugins_.pre_bind.at(index);
  Status s = pl->PreBindWait(state, pod, node, waited);
  if (s.IsSuccess() || s.IsWait()) return s;
  if (s.IsRejected()) return s.WithPlugin(pl->Name());
  return AsError("PreBind", pl->Name(), s);
}

Status Framework::RunBindPlugins(CycleState& state, const PodInfo& pod, api::Symbol node) const {
  return Measured(ExtensionPoint::kBind, [&] {
    Status last(Code::kSkip);
    for (BindPlugin* pl : plugins_.bind) {
      last = Timed(state, ExtensionPoint::kBind, pl->Name(),
                   [&] { return pl->Bind(state, pod, node); });
      if (last.IsSkip()) continue;
      if (last.IsSuccess()) return last;
      if (last.IsRejected()) return last.WithPlugin(pl->Name());
      return AsError("Bind", pl->Name(), last);
    }
    return last;
  });
}

void Framework::RunPostBindPlugins(CycleState& state, const PodInfo& pod, api::Symbol node) const {
  Measured(ExtensionPoint::kPostBind, [&] {
    for (PostBindPlugin* pl : plugins_.post_bind) {
      Timed(state, ExtensionPoint::kPostBind, pl->Name(), [&] {
        pl->PostBind(state, pod, node);
        return Status::OK();
      });
    }
    return Status::OK();
  });
}

void Framework::ObservePluginTally(const CycleState& state) const {
  PluginTally* tally = state.plugin_tally.get();
  if (tally == nullptr || metrics_ == nullptr) return;
  const double per_tick = SecondsPerPluginTick();
  for (size_t i = 0; i < plugins_.filter.size() && i < PluginTally::kMaxPlugins; ++i) {
    uint64_t calls = 0;
    for (const auto& c : tally->filter_calls[i]) calls += c.load(std::memory_order_relaxed);
    if (calls == 0) continue;
    const double mean = static_cast<double>(tally->filter_ticks[i].exchange(0)) * per_tick /
                        static_cast<double>(calls);
    for (size_t code = 0; code < PluginTally::kNumCodes; ++code) {
      metrics_->PluginExecution(plugins_.filter[i]->Name(), ExtensionPoint::kFilter,
                                static_cast<Code>(code), mean,
                                tally->filter_calls[i][code].exchange(0));
    }
  }
  for (size_t i = 0; i < plugins_.score.size() && i < PluginTally::kMaxPlugins; ++i) {
    const uint64_t calls = tally->score_calls[i].exchange(0);
    if (calls == 0) continue;
    const double mean = static_cast<double>(tally->score_ticks[i].exchange(0)) * per_tick /
                        static_cast<double>(calls);
    metrics_->PluginExecution(plugins_.score[i].first->Name(), ExtensionPoint::kScore,
                              Code::kSuccess, mean, calls);
  }
}

}  // namespace muster::framework
