#pragma once

// The scheduling queue (upstream internal/queue PriorityQueue): pods waiting to be scheduled.
//   activeQ: ready to be scheduled, ordered by the profiles' QueueSort.
//   backoffQ: failed recently; each waits out its backoff (initial * 2^(attempts-1), capped).
//     With SchedulerPopFromBackoffQ (KEP-5142, on since 1.33) backoffs end on whole seconds,
//     pods ending in the same second go in activeQ's order, and when activeQ is empty the
//     scheduler takes the next pod rejected by plugins from backoffQ rather than wait; pods
//     backing off after an error, or turned away until a time, wait theirs out.
//   unschedulable: rejected by plugins; moved back when a cluster event that one of its
//     rejecting plugins registered for occurs (and that plugin's hint says Queue), or after
//     max_in_unschedulable at the latest. Pods rejected by PreEnqueue (gated) wait here too,
//     marked gated, and never reach a scheduling cycle until PreEnqueue passes.
// Events that arrive while a pod is in a scheduling or binding cycle are remembered, so that a
// pod failing after the event is not parked waiting for an event that already happened.
//
// Not thread-safe: used from the scheduling thread.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "muster/framework/clock.h"
#include "muster/framework/events.h"
#include "muster/framework/interface.h"
#include "muster/framework/metrics.h"

namespace muster::scheduler {

struct QueueOptions {
  api::Duration initial_backoff = std::chrono::seconds(1);
  api::Duration max_backoff = std::chrono::seconds(10);
  api::Duration max_in_unschedulable = std::chrono::minutes(5);
  // How often unschedulable pods are checked against max_in_unschedulable (upstream 30s).
  api::Duration flush_period = std::chrono::seconds(30);
  // The SchedulerPopFromBackoffQ feature gate (beta, on since 1.33).
  bool pop_from_backoff = true;
};

// What the queue needs to know of the profiles.
class QueueProfiles {
 public:
  virtual ~QueueProfiles() = default;
  // The queue order (the same QueueSort in every profile), as QueueSortPlugin::Compare.
  virtual int Compare(const framework::QueuedPodInfo& a,
                      const framework::QueuedPodInfo& b) const = 0;
  // QueueSortPlugin::OrdersByPriorityThenTimestamp of that QueueSort.
  virtual bool OrdersByPriorityThenTimestamp() const { return false; }
  virtual framework::Status PreEnqueue(const api::Pod& pod) const = 0;
  // Whether `plugin` registered, in any profile, for an event matching `event`.
  virtual bool Interested(const std::string& plugin,
                          const framework::ClusterEvent& event) const = 0;
  // The hints `plugin` registered in the pod's profile for events matching `event`.
  virtual void ForEachHint(
      const api::Pod& pod, const std::string& plugin, const framework::ClusterEvent& event,
      const std::function<void(const framework::QueueingHintFn&)>& fn) const = 0;
};

class SchedulingQueue {
 public:
  enum class Where { kActive, kBackoff, kUnschedulable, kInFlight };

  SchedulingQueue(QueueOptions options, const QueueProfiles& profiles, framework::Clock& clock);
  ~SchedulingQueue();

  // A new pending pod. Runs PreEnqueue: gated pods wait aside.
  void Add(framework::PodInfoPtr pod);
  // A pending pod changed (labels, gates, resources...). With `status_only` the queue just keeps
  // the new copy: a status change is no reason to retry.
  void Update(const api::Pod& old_pod, framework::PodInfoPtr new_pod, bool status_only = false);
  void Delete(const api::Pod& pod);

  // The next pod to schedule, or nullopt when activeQ is empty. The pod is in flight until Done.
  std::optional<framework::QueuedPodInfo> Pop();
  // Takes this pod (namespace/name) out of activeQ, backoffQ or the unschedulable pods, as Pop
  // would, for a cycle that places it with the pod popped (a group's members); nullopt when
  // the queue does not hold it or holds it gated.
  std::optional<framework::QueuedPodInfo> Take(const std::string& key);
  void Done(const std::string& pod_key);

  // A failed attempt: `info` carries the rejecting plugins (none for an Error). The pod goes
  // to backoffQ or activeQ when an event since it was popped makes it worth retrying (or it
  // failed with an error), else to the unschedulable pods.
  void AddUnschedulableIfNotPresent(framework::QueuedPodInfo info);

  // A cluster event: moves the unschedulable pods it may help (except `exclude_key`, a pod
  // that must not be moved by its own event).
  void MoveAllToActiveOrBackoffQueue(const framework::ClusterEvent& event,
                                     const framework::EventObjects& objects,
                                     const std::string& exclude_key = "");
  // Moves these pods (namespace/name) to activeQ from wherever they wait.
  void Activate(const std::vector<std::string>& pod_keys);
  // The pod in flight, when its attempt fails, waits in backoffQ until at least `at` and is
  // retried then, whatever events come (Handle::RetryAt); it keeps the queue from settling while
  // the cluster has changed since `version`.
  void RetryAt(const std::string& pod_key, api::Time at, uint64_t version);
  // These pods' QueueSort order changed: activeQ re-sorts them.
  void Reorder(std::span<const std::string> pod_keys);

  // The cluster changed (an object was added, deleted, or changed in more than its status): a
  // pod attempted before this may get another answer now.
  void ClusterChanged() { ++change_seq_; }
  uint64_t change_seq() const { return change_seq_; }
  // The in-flight pod's attempt saw the cluster as it is now, changes made during its cycle
  // included (a group member that failed after the group's other members were placed).
  void AttemptSawCurrentState(const std::string& key);
  // Whether the queue has nothing new to try: no pod in activeQ or in flight, and every other
  // pod either attempted since the cluster last changed (a retry would repeat the same answer)
  // or gated (only an update, itself a change, can release it). A pod parked unschedulable
  // before the last change still needs its retry, whether an event or the periodic flush brings
  // it: its rejection may have been one that time undoes (a group backing off).
  bool Settled() const;
  size_t NumActive() const;
  // Whether Pop has a pod to offer: one in activeQ, or one plugins rejected in backoffQ.
  bool CanPop() const;
  size_t NumBackoff() const;
  // Pods parked unschedulable, gated ones included (NumGated of them).
  size_t NumUnschedulable() const { return unschedulable_.size(); }
  size_t NumGated() const { return num_gated_; }
  // Every pod the queue holds, in flight included.
  size_t NumPods() const { return pods_.size(); }
  // Where scheduler_queue_incoming_pods_total is counted; nullptr: nowhere.
  void SetMetrics(framework::Metrics* metrics) { metrics_ = metrics; }
  bool Contains(const std::string& key) const { return pods_.contains(key); }
  std::optional<Where> Location(const std::string& key) const;
  // Whether the pod is held by PreEnqueue.
  bool IsGated(const std::string& key) const;
  // The pod, when PreEnqueue holds it, and in *message what it was last turned away with (as
  // the gate observer heard it; empty without an observer); nullptr when it is not held.
  const framework::QueuedPodInfo* Held(const std::string& key,
                                       std::string* message = nullptr) const;
  // Told when PreEnqueue turns a pod away with a message other than the one it was last turned
  // away with (the first time, or after the reason changed); not told again while the same
  // message holds it, so that what the observer does is bounded per pod and reason. Verdicts
  // of `unobserved` (SchedulingGates, whose condition the API server sets) are not told, nor
  // kept: a pod held by them costs nothing more.
  using GateObserver =
      std::function<void(const framework::QueuedPodInfo&, const framework::Status&)>;
  void SetGateObserver(GateObserver observer, std::string unobserved) {
    gate_observer_ = std::move(observer);
    unobserved_gate_ = std::move(unobserved);
  }
  // Each pod PreEnqueue holds with a verdict the observer was told of: the message, and since
  // when that message has held it. In no particular order.
  void ForEachHeld(const std::function<void(const framework::QueuedPodInfo&, const std::string&,
                                            api::Time)>& fn) const;
  // Every pod the queue holds (not in flight), by key, for reports.
  std::vector<const framework::QueuedPodInfo*> PendingPods() const;

  // Nominated pods (upstream nominator): pods that preemption made room for.
  void AddNominatedPod(framework::PodInfoPtr pod, api::Symbol node);
  void DeleteNominatedPodIfExists(const api::Pod& pod);
  // A pending pod changed (upstream's updateNominatedPod): a nominatedNodeName added, changed or
  // cleared on the pod replaces the one kept here; without one on either copy, the nomination
  // kept here (made by this scheduler, perhaps not yet written) stands.
  void UpdateNominatedPod(const api::Pod& old_pod, framework::PodInfoPtr new_pod);
  // Every nomination, as (pod namespace/name, node), in nomination order (for the checker).
  std::vector<std::pair<std::string, std::string>> NominatedPods() const;
  // Nominated to `node`, in nomination order.
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(api::Symbol node) const;
  // The node `pod` is nominated to here (a nomination the informer may not show yet), else the
  // pod's own field.
  api::Symbol NominatedNodeOf(const api::Pod& pod) const;
  bool HasNominatedPods() const { return !nominated_.empty(); }

 private:
  struct Entry;
  class Heap;
  enum class Strategy { kSkip, kAfterBackoff, kImmediately };
  struct RecordedEvent;

  Entry* Find(const std::string& key) const;
  // Out of wherever it waits and in flight until Done.
  framework::QueuedPodInfo StartFlight(Entry* e);
  void Detach(Entry* e);
  // To activeQ, running PreEnqueue first; gated pods go to unschedulable instead.
  void MoveToActive(Entry* e);
  void MoveToBackoff(Entry* e);
  void MoveToUnschedulable(Entry* e);
  void Requeue(Entry* e, Strategy strategy);
  Strategy WorthRequeuing(const Entry& e, const framework::ClusterEvent& event,
                          const framework::EventObjects& objects) const;
  bool IsBackingOff(const Entry& e) const;
  // When the pod's backoff ends (aligned to its window with pop_from_backoff), and when it may
  // leave backoffQ: the end of the window, or backoff_until, whichever is later.
  api::Time BackoffExpiry(const Entry& e) const;
  api::Time BackoffCompletes(const Entry& e) const;
  // Which backoffQ the pod waits in.
  Heap& BackoffHeap(const Entry& e) const;
  void FlushBackoffCompleted();
  void FlushUnschedulableLeftover();
  void ScheduleFlush();

  // The event behind the moves made while it is in scope (the event label of
  // scheduler_queue_incoming_pods_total).
  class Cause {
   public:
    Cause(SchedulingQueue* q, std::string_view event) : q_(q), saved_(q->cause_) {
      q->cause_ = event;
    }
    ~Cause() { q_->cause_ = saved_; }

   private:
    SchedulingQueue* q_;
    std::string_view saved_;
  };
  void Incoming(framework::QueueName queue) {
    if (metrics_ != nullptr) metrics_->QueueIncoming(queue, cause_);
  }

  QueueOptions options_;
  const QueueProfiles& profiles_;
  framework::Clock& clock_;

  std::unordered_map<std::string, std::unique_ptr<Entry>> pods_;
  std::unique_ptr<Heap> active_;
  // backoffQ: the pods plugins rejected (upstream podBackoffQ), which an idle scheduler may take
  // early, and those that failed with an error or wait for a time (podErrorBackoffQ).
  std::unique_ptr<Heap> backoff_;
  std::unique_ptr<Heap> error_backoff_;
  std::map<std::string, Entry*> unschedulable_;  // ordered: moves happen in a stable order
  // The unschedulable pods by rejecting plugin ("" for none), so that an event visits only the
  // pods a plugin that cares about it rejected: gated pods are not walked for every binding.
  std::map<std::string, std::map<std::string, Entry*>, std::less<>> unschedulable_by_plugin_;
  void IndexUnschedulable(Entry* e, bool add);
  // scheduler_unschedulable_pods: the pod counted (or no longer) under each plugin that turned
  // it away or holds it.
  void CountReasons(Entry* e, bool count);
  uint64_t sequence_ = 0;  // insertion order, the final tie-break
  uint64_t event_sequence_ = 0;
  uint64_t change_seq_ = 0;
  std::deque<RecordedEvent> in_flight_events_;
  // popped_at_event of each pod in flight: the oldest bounds the events still worth keeping.
  std::multiset<uint64_t> in_flight_since_;
  void EndInFlight(Entry& e);
  GateObserver gate_observer_;
  std::string unobserved_gate_;
  // What PreEnqueue last turned each pod away with, as told to the gate observer, and since
  // when, until it lets the pod through: kept aside, so that a pod never held costs no bytes.
  struct HeldWith {
    std::string message;
    api::Time since;
  };
  std::unordered_map<const Entry*, HeldWith> gate_messages_;
  std::optional<framework::Clock::TimerId> backoff_timer_;
  api::Time backoff_timer_at_{};
  bool flush_scheduled_ = false;
  size_t num_gated_ = 0;
  framework::Metrics* metrics_ = nullptr;
  std::string_view cause_ = "Unknown";
  std::vector<std::pair<framework::PodInfoPtr, api::Symbol>> nominated_;
};

}  // namespace muster::scheduler
