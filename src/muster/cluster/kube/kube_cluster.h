#pragma once

// A real Kubernetes cluster behind the Cluster interface: informers (list, then watch from the
// list's resourceVersion) feed the observers on the scheduler's thread, exactly as the memory
// cluster does, and the scheduler's writes go to the API server (pods/binding, the pods/status
// condition, deletions, podgroups/status, events.k8s.io Events).
//
// Threads: each informer lists and watches on its own thread, decodes there, and posts each
// change to the scheduler's thread through the RealClock, where the local stores are updated
// and the observers told. Binds run on a pool of binder threads (RunBind); the other writes on
// one writer thread, in the order they were made. The stores and the observers belong to the
// scheduler's thread alone.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "muster/cluster/cluster.h"
#include "muster/cluster/kube/http.h"
#include "muster/framework/real_clock.h"

namespace muster::cluster::kube {

// Threads that run queued work in order (one thread) or side by side (several), holding at most
// `capacity` items waiting.
class WorkQueue {
 public:
  explicit WorkQueue(int threads, size_t capacity = std::numeric_limits<size_t>::max());
  ~WorkQueue();  // finishes what was queued, then joins
  // False, and `work` dropped, when `capacity` items are waiting.
  bool Submit(std::function<void()> work);
  // Waits until everything submitted so far has run.
  void Drain();

 private:
  void Loop();
  std::mutex mu_;
  std::condition_variable cv_, idle_cv_;
  std::deque<std::function<void()>> queue_;
  const size_t capacity_;
  int running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

struct KubeClusterOptions {
  // Who posts the Events (reportingController / reportingInstance).
  std::string reporting_controller = "muster";
  std::string reporting_instance = "muster";
  // Binds in flight at once.
  int binders = 16;
  // Asked right before each write (binding, status, event, deletion) is sent, on the thread
  // that sends it: how long it may take (what is left of the leader lease); zero or less drops
  // it, so that an instance whose lease has lapsed writes nothing more, as kube-scheduler exits
  // at once. Unset: every write is sent, with 30s to answer.
  std::function<std::chrono::milliseconds()> write_budget;
};

class KubeCluster final : public Cluster {
 public:
  KubeCluster(Http& http, framework::RealClock& clock, KubeClusterOptions options = {});
  ~KubeCluster() override;
  KubeCluster(const KubeCluster&) = delete;
  KubeCluster& operator=(const KubeCluster&) = delete;

  void AddObserver(ClusterObserver* observer) override { observers_.push_back(observer); }

  // Checks that the server answers and lets muster read what it watches, finds which PodGroup
  // API groups it serves, then starts the informers. An error is one line naming what failed
  // (the server, the verb and resource muster may not use...). Warnings go to the log.
  framework::Status Start();
  // Scheduler's thread: every informer has delivered its first list (WaitForCacheSync).
  bool Synced() const;
  // Stops the informers and waits for the writes and binds in flight.
  void Stop();
  // Scheduler's thread: an error that ends the run (the server refused the credentials or a
  // permission while watching), or empty.
  const std::string& fatal() const { return fatal_; }

  // Runs `work` on a binder thread, then `done` with its status on the scheduler's thread
  // (Scheduler::SetBindRunner).
  void RunBind(std::function<framework::Status()> work,
               std::function<void(framework::Status)> done);
  // Waits until the writes made so far are done (tests, shutdown).
  void Flush();

  // The informers' stores' sizes (scheduler's thread), for the log.
  size_t num_pods() const;
  size_t num_nodes() const;

  // ---- framework::ClusterClient (the scheduler's writes) ----
  // Synchronous: on a binder thread under RunBind.
  framework::Status Bind(const api::Pod& pod, api::Symbol node) override;
  // The rest are queued to the writer thread; they return at once.
  framework::Status UpdatePodCondition(const api::Pod& pod, const api::Condition& condition,
                                       const std::optional<std::string>& nominated_node) override;
  framework::Status NominatePod(const api::Pod& pod, api::Symbol node) override;
  framework::Status DeletePod(const api::Pod& pod) override;
  framework::Status UpdatePodGroupStatus(const api::PodGroup& group,
                                         const api::PodGroup::Status& status) override;
  framework::Status BindVolume(const api::PersistentVolume& pv) override;
  framework::Status SelectNode(const api::PersistentVolumeClaim& pvc, api::Symbol node) override;
  framework::Status UpdateClaimStatus(const api::ResourceClaim& claim) override;
  framework::Status CreateClaim(const api::ResourceClaim& claim,
                                api::ResourceClaim* created) override;
  framework::Status DeleteClaim(const api::ResourceClaim& claim) override;
  framework::Status SetExtendedResourceClaimStatus(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) override;
  framework::Status UpdateGroupCondition(const framework::ObjectReference& object,
                                         const std::vector<api::Condition>& current,
                                         const api::Condition& condition) override;
  void RecordEvent(framework::EventRecord event) override;
  bool Serves(std::string_view resource) const override {
    return !unserved_.contains(std::string(resource));
  }
  // Writes the event series due (client-go's broadcaster does so on its own timers: counts
  // every 30 minutes, a series ending after 6 minutes without a repeat). `muster run` calls it
  // every minute.
  void TidyEvents();

  struct Stores;       // the local stores (kube_cluster.cc)
  class InformerBase;  // one informer thread

 private:
  template <typename T>
  void AddInformer(std::string path, std::string api_version);
  // A write retried while the server answers 429, 5xx or not at all (safe for idempotent
  // writes), logged once per `object` when it fails for good.
  // A merge patch of the volume binding's, sent and waited for (BindVolume, SelectNode).
  framework::Status PatchForBinding(const std::string& path, const std::string& body,
                                    const std::string& what);
  Response Write(std::string_view method, const std::string& path, const std::string& body,
                 std::string_view content_type, const std::string& object, bool retry);

  Http& http_;
  framework::RealClock& clock_;
  KubeClusterOptions options_;
  std::vector<ClusterObserver*> observers_;
  std::unique_ptr<Stores> stores_;
  std::vector<std::unique_ptr<InformerBase>> informers_;
  // The optional kinds' resources the server does not serve (Start, before any informer runs).
  std::set<std::string> unserved_;
  std::atomic<bool> stop_{false};
  std::string fatal_;
  WorkQueue binders_;
  WorkQueue writer_;  // statuses, conditions, deletions: each one matters
  // Events, best effort as client-go's broadcaster: on their own thread, so that a burst of them
  // never holds a status back, and at most kMaxQueuedEvents waiting (client-go's
  // maxQueuedEvents); more are dropped, counted and logged.
  static constexpr size_t kMaxQueuedEvents = 1000;
  WorkQueue event_writer_;
  std::atomic<int64_t> dropped_events_{0};
  static constexpr auto kDropLogEvery = std::chrono::seconds(30);
  std::atomic<int64_t> last_drop_logged_{0};  // when dropping was last logged (Time's ticks)
  // Events posted, for their series: by client-go's key (action, reason, controller, regarding,
  // related). Event writer thread only.
  struct PostedEvent {
    std::string name;
    std::string namespace_;
    int32_t count = 1;
    api::Time first;
    api::Time last_observed;
    bool unwritten = false;  // a count not written yet
  };
  std::map<std::string, PostedEvent> events_;
  api::Time last_series_refresh_{};
  api::Time last_series_finish_{};
  // PATCHes the series' count; false when the event is gone (expired or deleted).
  bool WriteSeries(PostedEvent& posted);
  // Writes the counts of series due a refresh and forgets events whose series is over, as
  // client-go's broadcaster does on its timers; `all` writes every unwritten count now.
  void TidyEventSeries(api::Time now, bool all);
  // How long the next write may take (KubeClusterOptions::write_budget, at most 30s).
  std::chrono::milliseconds WriteBudget() const;
  std::mutex failed_mu_;
  std::set<std::string> failed_;  // objects whose failing write was logged
  // Queues a PATCH of the pod's status; one `before_binding` (a failure condition, a
  // nomination) is dropped once the pod's binding is under way and holds the binding back while
  // it is sent.
  void SubmitPodStatus(const api::Pod& pod, std::string path, std::string body,
                       bool before_binding);
  // Uids of the pods this instance has sent a binding for (and not seen it fail): a
  // PodScheduled=False condition still queued for one of them is stale and is not written, as
  // upstream writes a failure only for a pod still unassigned. (One entry per pod bound, until
  // the pod is deleted.)
  // And the uids whose failure condition or nomination is being written: a binding waits for
  // that write to be answered, so that the two never cross on the way to the server.
  std::mutex binding_mu_;
  std::condition_variable binding_cv_;
  std::unordered_set<std::string> binding_;
  std::unordered_multiset<std::string> failing_;
};

}  // namespace muster::cluster::kube
