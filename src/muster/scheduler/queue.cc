#include "muster/scheduler/queue.h"

#include <algorithm>

#include "muster/framework/extender.h"
#include "muster/framework/log.h"
#include "muster/scheduler/update_actions.h"

namespace muster::scheduler {

using framework::ClusterEvent;
using framework::EventObjects;
using framework::QueuedPodInfo;

struct SchedulingQueue::Entry {
  // What a heap reads of the entries it compares, first, in one cache line with the rest of
  // the entry's first bytes: the place in the heap, and in a heap given a SortKey the entry's
  // key (kUnkeyed otherwise) and the order of arrival that breaks its ties.
  static constexpr int64_t kUnkeyed = INT64_MIN;
  size_t heap_index = 0;
  uint64_t seq = 0;
  int64_t sort_rank = kUnkeyed;
  int64_t sort_at = 0;
  QueuedPodInfo info;
  std::optional<Where> where;  // nullopt while in flight and not yet requeued
  bool in_flight = false;
  bool force_activate = false;  // activated while in flight
  // scheduler_unschedulable_pods counts the pod under the plugins of its unschedulable_plugins
  // and pending_plugins: from its rejection (or gating) until its next attempt begins, as
  // upstream counts them until Pop.
  bool reasons_counted = false;
  // Set while in flight (RetryAt): the attempt's rejection lapses then; it was decided when
  // change_seq_ was retry_version.
  api::Time retry_at{};
  uint64_t retry_version = 0;
  // In backoffQ until a rejection lapses: a retry is due, unless nothing changed since the
  // rejection was decided (it would only be decided again).
  bool timed_retry = false;
  // In error_backoff_ rather than backoff_ (set when moved to backoffQ).
  bool error_backoff = false;
  uint64_t popped_at_event = 0;
  // change_seq_ when last popped; a pod never popped has seen no state at all.
  uint64_t popped_at_change = UINT64_MAX;
};

// A binary heap of entries that knows each entry's index, so that any entry can be removed or
// re-sifted. Unlike a std::priority_queue it stays usable if an ordering key changes under it
// (Coscheduling orders by group state that changes while pods wait): it then merely pops in a
// slightly stale order until the entry is next touched, as upstream's heap does.
//
// A heap given a SortKey function keeps each entry's key in the entry's first cache line and
// compares keys there: with a million pods pending, a pop descends twenty levels, and the pods
// (and the queued infos) it would read at each level are each a cache miss.
class SchedulingQueue::Heap {
 public:
  // Three-way, as QueueSortPlugin::Compare.
  using Compare = std::function<int(const Entry&, const Entry&)>;
  // The entry's place in the order as (rank, at): the smaller first. False when the order is
  // not one that a key holds (the comparison is then asked instead).
  using SortKey = std::function<bool(const Entry&, int64_t* rank, int64_t* at)>;
  explicit Heap(Compare compare, SortKey sort_key = nullptr)
      : compare_(std::move(compare)), sort_key_(std::move(sort_key)) {}

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  Entry* Top() const { return items_.front(); }

  void Push(Entry* e) {
    TakeKey(*e);
    e->heap_index = items_.size();
    items_.push_back(e);
    Up(e->heap_index);
  }
  // Floyd's deletion: the hole left by `e` goes down to a leaf, the earlier child moving up at
  // each level (one comparison a level, where sifting the last entry down from the hole takes
  // two), then the last entry fills it and sifts up, rarely far.
  void Remove(Entry* e) {
    Entry* last = items_.back();
    items_.pop_back();
    if (last == e) return;
    const size_t n = items_.size();
    size_t hole = e->heap_index;
    for (size_t child = 2 * hole + 1; child < n; child = 2 * hole + 1) {
      if (child + 1 < n && Before(*items_[child + 1], *items_[child])) ++child;
      Place(hole, items_[child]);
      hole = child;
    }
    Place(hole, last);
    Up(hole);
  }
  // Re-sifts `e` after its order changed (its key is taken again).
  void Fix(Entry* e) {
    TakeKey(*e);
    if (!Down(e->heap_index)) Up(e->heap_index);
  }
  const std::vector<Entry*>& items() const { return items_; }

 private:
  void TakeKey(Entry& e) const {
    if (!sort_key_ || !sort_key_(e, &e.sort_rank, &e.sort_at)) e.sort_rank = Entry::kUnkeyed;
  }
  bool Before(const Entry& x, const Entry& y) const {
    if (x.sort_rank != Entry::kUnkeyed && y.sort_rank != Entry::kUnkeyed) {
      if (x.sort_rank != y.sort_rank) return x.sort_rank < y.sort_rank;
      if (x.sort_at != y.sort_at) return x.sort_at < y.sort_at;
      return x.seq < y.seq;
    }
    const int c = compare_(x, y);
    return c != 0 ? c < 0 : x.seq < y.seq;
  }
  bool Before(size_t a, size_t b) const { return Before(*items_[a], *items_[b]); }
  void Place(size_t i, Entry* e) {
    items_[i] = e;
    e->heap_index = i;
  }
  void Swap(size_t a, size_t b) {
    std::swap(items_[a], items_[b]);
    items_[a]->heap_index = a;
    items_[b]->heap_index = b;
  }
  void Up(size_t i) {
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!Before(i, parent)) break;
      Swap(i, parent);
      i = parent;
    }
  }
  bool Down(size_t i) {
    const size_t start = i;
    const size_t n = items_.size();
    while (true) {
      size_t best = i;
      const size_t l = 2 * i + 1, r = 2 * i + 2;
      if (l < n && Before(l, best)) best = l;
      if (r < n && Before(r, best)) best = r;
      if (best == i) break;
      Swap(i, best);
      i = best;
    }
    return i != start;
  }

  Compare compare_;
  SortKey sort_key_;
  std::vector<Entry*> items_;
};

// An event remembered while pods were in flight, with copies of its objects.
struct SchedulingQueue::RecordedEvent {
  uint64_t seq = 0;
  ClusterEvent event;
  std::optional<api::Pod> old_pod, new_pod;
  std::optional<api::Node> old_node, new_node;
  api::AnyObject old_object, new_object;  // shared, as the cluster's objects are immutable

  EventObjects View() const {
    EventObjects o;
    o.old_pod = old_pod ? &*old_pod : nullptr;
    o.new_pod = new_pod ? &*new_pod : nullptr;
    o.old_node = old_node ? &*old_node : nullptr;
    o.new_node = new_node ? &*new_node : nullptr;
    o.old_object = old_object;
    o.new_object = new_object;
    return o;
  }
};

SchedulingQueue::SchedulingQueue(QueueOptions options, const QueueProfiles& profiles,
                                 framework::Clock& clock)
    : options_(options), profiles_(profiles), clock_(clock) {
  active_ = std::make_unique<Heap>(
      [this](const Entry& a, const Entry& b) { return profiles_.Compare(a.info, b.info); },
      [this](const Entry& e, int64_t* rank, int64_t* at) {
        if (!profiles_.OrdersByPriorityThenTimestamp()) return false;
        *rank = -int64_t{e.info.info->priority};
        *at = e.info.timestamp.time_since_epoch().count();
        return true;
      });
  // Pods whose backoff ends in the same window go in activeQ's order (upstream
  // lessBackoffCompletedWithPriority).
  backoff_ = std::make_unique<Heap>([this](const Entry& a, const Entry& b) {
    const int by_expiry = framework::ThreeWay(BackoffExpiry(a), BackoffExpiry(b));
    if (by_expiry != 0 || !options_.pop_from_backoff) return by_expiry;
    return profiles_.Compare(a.info, b.info);
  });
  error_backoff_ = std::make_unique<Heap>([this](const Entry& a, const Entry& b) {
    return framework::ThreeWay(BackoffCompletes(a), BackoffCompletes(b));
  });
}

SchedulingQueue::~SchedulingQueue() = default;

size_t SchedulingQueue::NumActive() const { return active_->size(); }

bool SchedulingQueue::CanPop() const {
  return !active_->empty() || (options_.pop_from_backoff && !backoff_->empty());
}
size_t SchedulingQueue::NumBackoff() const { return backoff_->size() + error_backoff_->size(); }

SchedulingQueue::Entry* SchedulingQueue::Find(const std::string& key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : it->second.get();
}

std::optional<SchedulingQueue::Where> SchedulingQueue::Location(const std::string& key) const {
  const Entry* e = Find(key);
  if (e == nullptr) return std::nullopt;
  if (!e->where) return Where::kInFlight;
  return e->where;
}

bool SchedulingQueue::IsGated(const std::string& key) const { return Held(key) != nullptr; }

const QueuedPodInfo* SchedulingQueue::Held(const std::string& key, std::string* message) const {
  const Entry* e = Find(key);
  if (e == nullptr || !e->info.gated || e->where != Where::kUnschedulable) return nullptr;
  if (message != nullptr) {
    auto told = gate_messages_.find(e);
    *message = told != gate_messages_.end() ? told->second.message : "";
  }
  return &e->info;
}

void SchedulingQueue::ForEachHeld(
    const std::function<void(const QueuedPodInfo&, const std::string&, api::Time)>& fn) const {
  for (const auto& [e, held] : gate_messages_) fn(e->info, held.message, held.since);
}

void SchedulingQueue::Detach(Entry* e) {
  if (!e->where) return;
  switch (*e->where) {
    case Where::kActive:
      active_->Remove(e);
      break;
    case Where::kBackoff:
      BackoffHeap(*e).Remove(e);
      break;
    case Where::kUnschedulable:
      IndexUnschedulable(e, false);
      unschedulable_.erase(e->info.info->Key());
      if (e->info.gated) --num_gated_;
      break;
    case Where::kInFlight:
      break;
  }
  e->where.reset();
}

void SchedulingQueue::CountReasons(Entry* e, bool count) {
  if (e->reasons_counted == count) return;
  e->reasons_counted = count;
  if (metrics_ == nullptr) return;
  const std::vector<std::string>& rejected = e->info.unschedulable_plugins;
  const std::string_view profile = e->info.pod().spec.scheduler_name.str();
  const double delta = count ? 1 : -1;
  for (const std::string& plugin : rejected) metrics_->UnschedulableReason(plugin, profile, delta);
  for (const std::string& plugin : e->info.pending_plugins) {
    if (std::find(rejected.begin(), rejected.end(), plugin) == rejected.end()) {
      metrics_->UnschedulableReason(plugin, profile, delta);
    }
  }
}

void SchedulingQueue::IndexUnschedulable(Entry* e, bool add) {
  const std::string key = e->info.info->Key();
  auto index = [&](const std::string& plugin) {
    if (add) {
      unschedulable_by_plugin_[plugin][key] = e;
    } else if (auto it = unschedulable_by_plugin_.find(plugin);
               it != unschedulable_by_plugin_.end()) {
      it->second.erase(key);
      if (it->second.empty()) unschedulable_by_plugin_.erase(it);
    }
  };
  if (e->info.unschedulable_plugins.empty() && e->info.pending_plugins.empty()) index("");
  for (const std::string& p : e->info.unschedulable_plugins) index(p);
  for (const std::string& p : e->info.pending_plugins) index(p);
}

namespace {

// -v=4: where each pod goes (upstream logs the same at -v=5).
void LogMove(const framework::QueuedPodInfo& info, std::string_view queue) {
  if (!log::V(4)) return;
  log::Info(4, "Pod moved to an internal scheduling queue",
            {{"pod", info.info->Key()}, {"queue", queue}});
}

}  // namespace

void SchedulingQueue::MoveToActive(Entry* e) {
  Detach(e);
  framework::Status s = profiles_.PreEnqueue(e->info.pod());
  if (!s.IsSuccess()) {
    e->info.gated = true;
    e->info.gating_plugin = s.plugin();
    const bool observed = gate_observer_ && s.plugin() != unobserved_gate_;
    auto told = observed ? gate_messages_.find(e) : gate_messages_.end();
    const bool news =
        observed && (told == gate_messages_.end() || told->second.message != s.Message());
    CountReasons(e, false);
    e->info.unschedulable_plugins = {s.plugin()};
    e->info.pending_plugins.clear();
    CountReasons(e, true);
    e->where = Where::kUnschedulable;
    unschedulable_.emplace(e->info.info->Key(), e);
    ++num_gated_;
    IndexUnschedulable(e, true);
    ScheduleFlush();
    Incoming(framework::QueueName::kUnschedulable);
    if (log::V(4)) {
      log::Info(4, "Pod gated at PreEnqueue",
                {{"pod", e->info.info->Key()}, {"plugin", s.plugin()}, {"reason", s.Message()}});
    }
    if (news) {
      gate_messages_[e] = HeldWith{s.Message(), clock_.Now()};
      gate_observer_(e->info, s);
    } else if (!observed && !gate_messages_.empty()) {
      gate_messages_.erase(e);  // held now by a verdict not observed
    }
    return;
  }
  if (e->info.gated) {
    CountReasons(e, false);
    e->info.gated = false;
    e->info.unschedulable_plugins.clear();
  }
  if (!gate_messages_.empty()) gate_messages_.erase(e);
  e->where = Where::kActive;
  active_->Push(e);
  Incoming(framework::QueueName::kActive);
  LogMove(e->info, "Active");
}

void SchedulingQueue::MoveToBackoff(Entry* e) {
  Detach(e);
  e->where = Where::kBackoff;
  // An error, not a rejection; or a rejection that lapses at a time, not with an event.
  e->error_backoff = (e->info.unschedulable_plugins.empty() && e->info.pending_plugins.empty()) ||
                     e->info.backoff_until > e->info.timestamp;
  BackoffHeap(*e).Push(e);
  clock_.AddTimer(BackoffCompletes(*e), [this] { FlushBackoffCompleted(); });
  Incoming(framework::QueueName::kBackoff);
  LogMove(e->info, "Backoff");
}

void SchedulingQueue::MoveToUnschedulable(Entry* e) {
  Detach(e);
  e->where = Where::kUnschedulable;
  unschedulable_.emplace(e->info.info->Key(), e);
  if (e->info.gated) ++num_gated_;
  IndexUnschedulable(e, true);
  ScheduleFlush();
  Incoming(framework::QueueName::kUnschedulable);
  LogMove(e->info, "Unschedulable");
}

void SchedulingQueue::Add(framework::PodInfoPtr pod) {
  const std::string key = pod->Key();
  if (Entry* existing = Find(key)) {
    existing->info.info = std::move(pod);
    if (existing->where == Where::kActive) active_->Fix(existing);
    return;
  }
  auto e = std::make_unique<Entry>();
  e->info.info = std::move(pod);
  e->info.timestamp = clock_.Now();
  e->info.initial_attempt_timestamp = e->info.timestamp;
  e->seq = ++sequence_;
  Entry* raw = e.get();
  pods_.emplace(key, std::move(e));
  const Cause cause(this, "PodAdd");
  MoveToActive(raw);
}

void SchedulingQueue::Update(const api::Pod& old_pod, framework::PodInfoPtr new_pod,
                             bool status_only) {
  Entry* e = Find(new_pod->Key());
  if (e == nullptr) {
    Add(std::move(new_pod));
    return;
  }
  e->info.info = new_pod;
  if (!e->where) return;  // in flight: the retry will see the update
  switch (*e->where) {
    case Where::kActive:
      active_->Fix(e);
      return;
    case Where::kBackoff:
      BackoffHeap(*e).Fix(e);
      return;
    case Where::kInFlight:
      return;
    case Where::kUnschedulable:
      break;
  }
  if (status_only) return;
  // An unschedulable (or gated) pod's own update may be what it was waiting for.
  const uint32_t actions = PodUpdateActions(old_pod, new_pod->pod);
  for (uint32_t bit = 1; bit <= framework::kUpdateOther; bit <<= 1) {
    if ((actions & bit) == 0) continue;
    ClusterEvent event{framework::EventResource::kPod, bit, "UnscheduledPodUpdate"};
    EventObjects objects;
    objects.old_pod = &old_pod;
    objects.new_pod = &new_pod->pod;
    const Strategy strategy = WorthRequeuing(*e, event, objects);
    if (strategy != Strategy::kSkip) {
      const Cause cause(this, "UnscheduledPodUpdate");
      Requeue(e, strategy);
      if (e->where != Where::kUnschedulable) return;
    }
  }
}

void SchedulingQueue::Delete(const api::Pod& pod) {
  // A nomination goes with the pod, whether or not the queue still holds it (a pod bound after
  // its scheduling cycle ended has left the queue already).
  DeleteNominatedPodIfExists(pod);
  const std::string key = pod.metadata.Key();
  Entry* e = Find(key);
  if (e == nullptr) return;
  Detach(e);
  if (e->in_flight) EndInFlight(*e);
  CountReasons(e, false);
  gate_messages_.erase(e);
  pods_.erase(key);
}

std::optional<QueuedPodInfo> SchedulingQueue::Pop() {
  // Rather than wait while pods back off, take the next of those plugins rejected (upstream's
  // popBackoff when activeQ is empty), through PreEnqueue as every move to activeQ.
  if (options_.pop_from_backoff && active_->empty() && !backoff_->empty()) {
    const Cause cause(this, "PopFromBackoffQ");
    while (active_->empty() && !backoff_->empty()) MoveToActive(backoff_->Top());
  }
  if (active_->empty()) return std::nullopt;
  return StartFlight(active_->Top());
}

std::optional<QueuedPodInfo> SchedulingQueue::Take(const std::string& key) {
  Entry* e = Find(key);
  if (e == nullptr || !e->where || e->info.gated) return std::nullopt;
  return StartFlight(e);
}

QueuedPodInfo SchedulingQueue::StartFlight(Entry* e) {
  Detach(e);
  CountReasons(e, false);
  e->info.attempts++;
  e->info.attempted = true;
  e->in_flight = true;
  e->force_activate = false;
  e->retry_at = api::Time{};
  e->timed_retry = false;
  e->popped_at_event = event_sequence_;
  e->popped_at_change = change_seq_;
  in_flight_since_.insert(e->popped_at_event);
  return e->info;
}

void SchedulingQueue::AttemptSawCurrentState(const std::string& key) {
  if (Entry* e = Find(key); e != nullptr && e->in_flight) e->popped_at_change = change_seq_;
}

void SchedulingQueue::EndInFlight(Entry& e) {
  e.in_flight = false;
  in_flight_since_.erase(in_flight_since_.find(e.popped_at_event));
}

void SchedulingQueue::Done(const std::string& pod_key) {
  Entry* e = Find(pod_key);
  if (e != nullptr && e->in_flight) {
    EndInFlight(*e);
    // Scheduled: it leaves the queue.
    if (!e->where) pods_.erase(pod_key);
  }
  if (in_flight_since_.empty()) {
    in_flight_events_.clear();
    return;
  }
  // Events that every pod still in flight has seen pass are no longer needed.
  const uint64_t oldest = *in_flight_since_.begin();
  while (!in_flight_events_.empty() && in_flight_events_.front().seq <= oldest) {
    in_flight_events_.pop_front();
  }
}

void SchedulingQueue::AddUnschedulableIfNotPresent(QueuedPodInfo info) {
  Entry* e = Find(info.info->Key());
  if (e == nullptr || e->where) return;  // deleted meanwhile, or already requeued
  e->info = std::move(info);
  e->info.timestamp = clock_.Now();
  CountReasons(e, true);
  Strategy strategy = Strategy::kSkip;
  if (e->info.unschedulable_plugins.empty() && e->info.pending_plugins.empty()) {
    strategy = Strategy::kAfterBackoff;  // an error, not a rejection: retry after backoff
  } else if (e->retry_at > e->info.timestamp) {
    // Turned away until a time, not until an event: backoffQ until then, then a retry.
    e->info.backoff_until = std::max(e->info.backoff_until, e->retry_at);
    e->timed_retry = true;
    strategy = Strategy::kAfterBackoff;
  } else if (e->force_activate) {
    strategy = Strategy::kAfterBackoff;
  } else {
    for (const RecordedEvent& r : in_flight_events_) {
      if (r.seq <= e->popped_at_event) continue;
      strategy = std::max(strategy, WorthRequeuing(*e, r.event, r.View()));
      if (strategy == Strategy::kImmediately) break;
    }
  }
  const Cause cause(this, "ScheduleAttemptFailure");
  Requeue(e, strategy);
}

void SchedulingQueue::Requeue(Entry* e, Strategy strategy) {
  switch (strategy) {
    case Strategy::kSkip:
      if (e->where != Where::kUnschedulable) MoveToUnschedulable(e);
      return;
    case Strategy::kAfterBackoff:
      if (IsBackingOff(*e)) {
        MoveToBackoff(e);
      } else {
        MoveToActive(e);
      }
      return;
    case Strategy::kImmediately:
      MoveToActive(e);
      return;
  }
}

SchedulingQueue::Strategy SchedulingQueue::WorthRequeuing(const Entry& e, const ClusterEvent& event,
                                                          const EventObjects& objects) const {
  const QueuedPodInfo& info = e.info;
  if (info.unschedulable_plugins.empty() && info.pending_plugins.empty()) {
    return Strategy::kAfterBackoff;
  }
  if (event.resource == framework::EventResource::kWildCard) return Strategy::kAfterBackoff;
  Strategy strategy = Strategy::kSkip;
  auto consider = [&](const std::string& plugin, bool pending) {
    if (plugin == framework::kExtenderName) {
      // Extenders register for no events: any event may change their answer.
      strategy = std::max(strategy, Strategy::kAfterBackoff);
      return;
    }
    profiles_.ForEachHint(info.pod(), plugin, event, [&](const framework::QueueingHintFn& hint) {
      if (strategy == Strategy::kImmediately) return;
      // No hint is upstream's default one, which answers Queue (and is timed too).
      framework::QueueingHint h = framework::QueueingHint::kQueue;
      const std::optional<framework::Stopwatch> watch =
          metrics_ != nullptr ? std::optional<framework::Stopwatch>(std::in_place) : std::nullopt;
      framework::Status error;
      if (hint) {
        h = hint(info.pod(), objects, &error);
        if (!error.IsSuccess()) h = framework::QueueingHint::kQueue;
      }
      if (metrics_ != nullptr) {
        const std::string_view label = !error.IsSuccess()                    ? "Error"
                                       : h == framework::QueueingHint::kSkip ? "QueueSkip"
                                                                             : "Queue";
        metrics_->QueueingHint(plugin, event.label, label, watch->Seconds());
      }
      if (h == framework::QueueingHint::kSkip) return;
      strategy = pending ? Strategy::kImmediately : std::max(strategy, Strategy::kAfterBackoff);
    });
  };
  for (const std::string& plugin : info.pending_plugins) consider(plugin, true);
  if (strategy == Strategy::kImmediately) return strategy;
  for (const std::string& plugin : info.unschedulable_plugins) consider(plugin, false);
  return strategy;
}

void SchedulingQueue::MoveAllToActiveOrBackoffQueue(const ClusterEvent& event,
                                                    const EventObjects& objects,
                                                    const std::string& exclude_key) {
  if (!in_flight_since_.empty()) {
    RecordedEvent r;
    r.seq = ++event_sequence_;
    r.event = event;
    if (objects.old_pod) r.old_pod = *objects.old_pod;
    if (objects.new_pod) r.new_pod = *objects.new_pod;
    if (objects.old_node) r.old_node = *objects.old_node;
    if (objects.new_node) r.new_node = *objects.new_node;
    r.old_object = objects.old_object;
    r.new_object = objects.new_object;
    in_flight_events_.push_back(std::move(r));
  }
  // The candidates in pod-key order (as unschedulable_ holds them): every pod for a wildcard
  // event, else those rejected by a plugin that registered for this event (or by none).
  std::map<std::string, Entry*> selected;
  if (event.resource == framework::EventResource::kWildCard) {
    selected = unschedulable_;
  } else {
    for (const auto& [plugin, entries] : unschedulable_by_plugin_) {
      if (plugin.empty() || plugin == framework::kExtenderName ||
          profiles_.Interested(plugin, event)) {
        selected.insert(entries.begin(), entries.end());
      }
    }
  }
  std::vector<Entry*> candidates;
  candidates.reserve(selected.size());
  for (const auto& [key, e] : selected) {
    if (key != exclude_key) candidates.push_back(e);
  }
  const Cause cause(this, event.label);
  for (Entry* e : candidates) {
    const Strategy strategy = WorthRequeuing(*e, event, objects);
    if (strategy != Strategy::kSkip) {
      Requeue(e, strategy);
    }
  }
}

void SchedulingQueue::Activate(const std::vector<std::string>& pod_keys) {
  const Cause cause(this, "ForceActivate");
  for (const std::string& key : pod_keys) {
    Entry* e = Find(key);
    if (e == nullptr) continue;
    if (!e->where) {
      if (e->in_flight) e->force_activate = true;
      continue;
    }
    if (*e->where == Where::kUnschedulable || *e->where == Where::kBackoff) {
      MoveToActive(e);
    }
  }
}

void SchedulingQueue::RetryAt(const std::string& pod_key, api::Time at, uint64_t version) {
  Entry* e = Find(pod_key);
  if (e == nullptr || !e->in_flight || at < e->retry_at) return;
  e->retry_at = at;
  e->retry_version = version;
}

void SchedulingQueue::Reorder(std::span<const std::string> pod_keys) {
  for (const std::string& key : pod_keys) {
    Entry* e = Find(key);
    if (e != nullptr && e->where == Where::kActive) active_->Fix(e);
  }
}

namespace {

// Backoffs end in windows of a whole second with SchedulerPopFromBackoffQ (upstream
// backoffQOrderingWindowDuration): the start of the window holding `t`.
constexpr api::Duration kBackoffWindow = std::chrono::seconds(1);

api::Time WindowOf(api::Time t) {
  api::Duration into = t.time_since_epoch() % kBackoffWindow;
  if (into < api::Duration::zero()) into += kBackoffWindow;
  return t - into;
}

}  // namespace

bool SchedulingQueue::IsBackingOff(const Entry& e) const {
  return BackoffCompletes(e) > clock_.Now();
}

api::Time SchedulingQueue::BackoffExpiry(const Entry& e) const {
  if (e.info.attempts == 0) return e.info.timestamp;
  api::Duration d = options_.initial_backoff;
  for (int i = 1; i < e.info.attempts; ++i) {
    if (d > options_.max_backoff - d) {
      d = options_.max_backoff;
      break;
    }
    d += d;
  }
  const api::Time end = e.info.timestamp + std::min(d, options_.max_backoff);
  return options_.pop_from_backoff ? WindowOf(end) : end;
}

api::Time SchedulingQueue::BackoffCompletes(const Entry& e) const {
  api::Time done = BackoffExpiry(e);
  // A pod whose backoff ends in a window is still backing off until the window is over
  // (upstream isPodBackingoff), as the whole window is flushed at once.
  if (options_.pop_from_backoff && e.info.attempts != 0) done += kBackoffWindow;
  return std::max(done, e.info.backoff_until);
}

SchedulingQueue::Heap& SchedulingQueue::BackoffHeap(const Entry& e) const {
  return e.error_backoff ? *error_backoff_ : *backoff_;
}

void SchedulingQueue::FlushBackoffCompleted() {
  const api::Time now = clock_.Now();
  const Cause cause(this, "BackoffComplete");
  for (Heap* heap : {backoff_.get(), error_backoff_.get()}) {
    // backoff_ is ordered by the window its backoffs end in, error_backoff_ by when they
    // complete: in either, the first still backing off ends the flush.
    while (!heap->empty() && BackoffCompletes(*heap->Top()) <= now) MoveToActive(heap->Top());
  }
}

void SchedulingQueue::ScheduleFlush() {
  if (flush_scheduled_) return;
  flush_scheduled_ = true;
  clock_.AddTimer(
      clock_.Now() + options_.flush_period, [this] { FlushUnschedulableLeftover(); },
      /*keeps_alive=*/false);
}

void SchedulingQueue::FlushUnschedulableLeftover() {
  flush_scheduled_ = false;
  const api::Time now = clock_.Now();
  std::vector<Entry*> stale;
  for (const auto& [key, e] : unschedulable_) {
    if (!e->info.gated && now - e->info.timestamp > options_.max_in_unschedulable) {
      stale.push_back(e);
    }
  }
  const Cause cause(this, "UnschedulableTimeout");
  for (Entry* e : stale) {
    Requeue(e, Strategy::kAfterBackoff);
  }
  if (!unschedulable_.empty()) ScheduleFlush();
}

bool SchedulingQueue::Settled() const {
  if (!active_->empty() || !in_flight_since_.empty()) return false;
  for (const Heap* heap : {backoff_.get(), error_backoff_.get()}) {
    for (const Entry* e : heap->items()) {
      if (e->popped_at_change != change_seq_) return false;
      if (e->timed_retry && e->retry_version != change_seq_) return false;
    }
  }
  for (const auto& [key, e] : unschedulable_) {
    if (!e->info.gated && e->popped_at_change != change_seq_) return false;
  }
  return true;
}

std::vector<const QueuedPodInfo*> SchedulingQueue::PendingPods() const {
  std::vector<const QueuedPodInfo*> out;
  for (const auto& [key, e] : pods_) {
    if (e->where) out.push_back(&e->info);
  }
  return out;
}

void SchedulingQueue::AddNominatedPod(framework::PodInfoPtr pod, api::Symbol node) {
  DeleteNominatedPodIfExists(pod->pod);
  nominated_.emplace_back(std::move(pod), node);
}

void SchedulingQueue::DeleteNominatedPodIfExists(const api::Pod& pod) {
  if (nominated_.empty()) return;
  const std::string key = pod.metadata.Key();
  std::erase_if(nominated_, [&](const auto& n) { return n.first->Key() == key; });
}

void SchedulingQueue::UpdateNominatedPod(const api::Pod& old_pod, framework::PodInfoPtr new_pod) {
  const api::Symbol was = old_pod.status.nominated_node_name;
  const api::Symbol now = new_pod->pod.status.nominated_node_name;
  if (was.empty() && now.empty()) {
    // The nomination preemption made may not have reached the API server yet: it stands, with
    // the pod's new copy.
    const std::string key = new_pod->Key();
    for (auto& [pod, node] : nominated_) {
      if (pod->Key() == key) pod = std::move(new_pod);
    }
    return;
  }
  // Added, changed or cleared on the pod: the pod's own field is the truth.
  DeleteNominatedPodIfExists(old_pod);
  if (!now.empty()) nominated_.emplace_back(std::move(new_pod), now);
}

std::vector<std::pair<std::string, std::string>> SchedulingQueue::NominatedPods() const {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(nominated_.size());
  for (const auto& [pod, node] : nominated_) out.emplace_back(pod->Key(), node.string());
  return out;
}

api::Symbol SchedulingQueue::NominatedNodeOf(const api::Pod& pod) const {
  const std::string key = pod.metadata.Key();
  for (const auto& [nominated, node] : nominated_) {
    if (nominated->Key() == key) return node;
  }
  return pod.status.nominated_node_name;
}

std::vector<framework::PodInfoPtr> SchedulingQueue::NominatedPodsForNode(api::Symbol node) const {
  std::vector<framework::PodInfoPtr> out;
  for (const auto& [pod, n] : nominated_) {
    if (n == node) out.push_back(pod);
  }
  return out;
}

}  // namespace muster::scheduler
