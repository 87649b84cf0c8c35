#include "muster/cluster/kube/kube_cluster.h"

#include <algorithm>
#include <random>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "muster/api/feature_gates.h"
#include "muster/cluster/kube/decode.h"
#include "muster/cluster/kube/discovery.h"
#include "muster/cluster/kube/encode.h"
#include "muster/framework/log.h"

namespace muster::cluster::kube {

using framework::Status;
using Json = nlohmann::json;

// ---- WorkQueue ----

WorkQueue::WorkQueue(int threads, size_t capacity) : capacity_(capacity) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

WorkQueue::~WorkQueue() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool WorkQueue::Submit(std::function<void()> work) {
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= capacity_) return false;
    queue_.push_back(std::move(work));
  }
  cv_.notify_one();
  return true;
}

void WorkQueue::Drain() {
  std::unique_lock lock(mu_);
  idle_cv_.wait(lock, [this] { return queue_.empty() && running_ == 0; });
}

void WorkQueue::Loop() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    std::function<void()> work = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    lock.unlock();
    work();
    lock.lock();
    --running_;
    if (queue_.empty() && running_ == 0) idle_cv_.notify_all();
  }
}

namespace {

std::string KeyOf(const api::ObjectMeta& meta) { return meta.Key(); }

// The ResourceClaims of namespace `ns` (resource.k8s.io/v1).
std::string ClaimsPath(api::Symbol ns) {
  return ResourcePath("resource.k8s.io/v1", "resourceclaims", ns.str());
}

Json ConditionJson(const api::Condition& c) {
  Json j = {{"type", c.type.str()}, {"status", c.status.str()}};
  if (!c.reason.empty()) j["reason"] = c.reason;
  if (!c.message.empty()) j["message"] = c.message;
  if (c.last_transition_time) j["lastTransitionTime"] = api::FormatTime(*c.last_transition_time);
  return j;
}

}  // namespace

// ---- the stores ----

// One kind's objects as the informer last delivered them, keyed by namespace/name.
template <typename T>
struct Store {
  std::map<std::string, std::shared_ptr<const T>> items;
  bool synced = false;
};

// Every cluster kind's stores: one per apiVersion served (a PodGroup comes in two API groups,
// and each informer's relist replaces its own objects only).
struct KubeCluster::Stores {
  template <typename List>
  struct Of;
  template <typename... T>
  struct Of<api::KindList<T...>> {
    using type = std::tuple<std::map<std::string, Store<T>>...>;
  };
  Of<api::ClusterKinds>::type stores;
  std::vector<const bool*> synced;  // one per informer

  template <typename T>
  Store<T>& For(const std::string& api_version) {
    return std::get<std::map<std::string, Store<T>>>(stores)[api_version];
  }
  template <typename T>
  size_t Count() const {
    size_t n = 0;
    for (const auto& [version, store] : std::get<std::map<std::string, Store<T>>>(stores)) {
      n += store.items.size();
    }
    return n;
  }
};

// ---- informers ----

class KubeCluster::InformerBase {
 public:
  virtual ~InformerBase() {
    if (thread_.joinable()) thread_.join();
  }
  virtual void Start() = 0;
  void Join() {
    {
      std::lock_guard lock(mu_);
      cv_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
  }

 protected:
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
};

namespace {

// One resource's list and watch, on its own thread (client-go's Reflector).
template <typename T>
class Informer final : public KubeCluster::InformerBase {
 public:
  // `apply` and `replace` run on the scheduler's thread.
  using Apply = std::function<void(WatchEventType, std::shared_ptr<const T>)>;
  using Replace = std::function<void(std::vector<std::shared_ptr<const T>>)>;

  Informer(Http& http, framework::RealClock& clock, std::string path, std::string api_version,
           std::string resource, const std::atomic<bool>& stop, Apply apply, Replace replace,
           std::function<void(std::string)> fatal)
      : http_(http),
        clock_(clock),
        path_(std::move(path)),
        api_version_(std::move(api_version)),
        resource_(std::move(resource)),
        stop_(stop),
        apply_(std::move(apply)),
        replace_(std::move(replace)),
        fatal_(std::move(fatal)) {}

  void Start() override {
    thread_ = std::thread([this] { Loop(); });
  }

 private:
  // client-go's backoff for a failing list or watch: 800ms, doubling, at most 30s.
  void Backoff() {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, backoff_, [this] { return stop_.load(); });
    backoff_ = std::min(backoff_ * 2, std::chrono::milliseconds(30000));
  }

  void Loop() {
    std::string rv;
    bool listed = false;
    while (!stop_.load()) {
      if (!listed) {
        if (!List(&rv)) {
          if (stopped_for_good_) return;
          Backoff();
          continue;
        }
        listed = true;
      }
      const WatchEnd end = Watch(&rv);
      if (end == WatchEnd::kGone) {
        log::Infof(0, "watch of {} expired (410 Gone): relisting", resource_);
        listed = false;
      } else if (end == WatchEnd::kFailed) {
        if (stopped_for_good_) return;
        Backoff();
      }
    }
  }

  static void Skipped(const std::string& what, const std::string& error) {
    log::Warningf("{}: ignoring an object muster cannot read: {}", what, error);
  }

  // Lists in pages; posts the whole list to the scheduler's thread as one replace.
  bool List(std::string* rv) {
    std::vector<std::shared_ptr<const T>> items;
    std::string cont;
    do {
      std::string path = fmt::format("{}?limit=500", path_);
      if (!cont.empty()) path += "&continue=" + cont;
      const Response r = http_.Do("GET", path);
      if (r.status == 410 && !cont.empty()) {  // the continue token expired: start again
        items.clear();
        cont.clear();
        continue;
      }
      if (!r.ok()) {
        Fail("list", r);
        return false;
      }
      const std::string what = "list " + resource_;
      std::optional<ListPage<T>> page = DecodeListPage<T>(r.body, api_version_, what);
      if (!page) {
        log::Warningf("list {}: the server's answer is not JSON", resource_);
        return false;
      }
      if (page->resource_version) *rv = std::move(*page->resource_version);
      cont = std::move(page->continue_token);
      for (const std::string& error : page->skipped) Skipped(what, error);
      for (T& item : page->items) items.push_back(std::make_shared<const T>(std::move(item)));
    } while (!cont.empty() && !stop_.load());
    backoff_ = std::chrono::milliseconds(800);
    Recovered("list");
    clock_.Post(
        [replace = replace_, items = std::move(items)]() mutable { replace(std::move(items)); });
    return true;
  }

  enum class WatchEnd { kClosed, kGone, kFailed };

  WatchEnd Watch(std::string* rv) {
    // The server ends a watch after timeoutSeconds; client-go picks 5 to 10 minutes.
    std::uniform_int_distribution<int> pick(300, 600);
    const std::string path =
        fmt::format("{}?watch=1&allowWatchBookmarks=true&resourceVersion={}&timeoutSeconds={}",
                    path_, *rv, pick(rng_));
    bool gone = false;
    const Response r = http_.Stream(
        path,
        [&](std::string_view line) {
          const std::string what = "watch " + resource_;
          WatchEvent<T> event = DecodeWatchEvent<T>(line, api_version_, what);
          if (event.resource_version) *rv = std::move(*event.resource_version);
          switch (event.type) {
            case WatchEventType::kNotJson:
              log::Warningf("watch {}: skipping a line that is not JSON", resource_);
              return true;
            case WatchEventType::kIgnored:
            case WatchEventType::kBookmark:
              return true;
            case WatchEventType::kError:
              if (event.code == 410) {
                gone = true;
              } else {
                log::Warningf("watch {}: the server reported an error {}: {}", resource_,
                              event.code, event.message);
              }
              return false;
            case WatchEventType::kAdded:
            case WatchEventType::kModified:
            case WatchEventType::kDeleted:
              break;
          }
          if (event.object) {
            clock_.Post([apply = apply_, t = event.type,
                         o = std::make_shared<const T>(std::move(*event.object))] { apply(t, o); });
          } else {
            Skipped(what, event.error);
          }
          backoff_ = std::chrono::milliseconds(800);
          return true;
        },
        stop_, [this] { Recovered("watch"); });
    if (gone || r.status == 410) return WatchEnd::kGone;
    if (stop_.load()) return WatchEnd::kClosed;
    if (r.status != 0 && !r.ok()) {
      Fail("watch", r);
      return WatchEnd::kFailed;
    }
    if (!r.error.empty()) {
      // A watch the server answered and the connection then lost is cut short (client-go: a
      // warning); one that never reached the server failed (client-go: an error).
      Failing(/*error=*/r.status == 0,
              r.status == 0 ? fmt::format("failed to watch {}: {}", resource_, r.error)
                            : fmt::format("watch of {} ended with: {}", resource_, r.error));
      return WatchEnd::kFailed;
    }
    return WatchEnd::kClosed;
  }

  void Fail(const char* verb, const Response& r) {
    if (r.status == 401) {
      stopped_for_good_ = true;
      fatal_(
          fmt::format("the API server refused muster's credentials ({}) while it was "
                      "{}ing {}",
                      r.Describe(), verb, resource_));
    } else if (r.status == 403) {
      stopped_for_good_ = true;
      fatal_(Forbidden(verb, resource_, r));
    } else {
      Failing(/*error=*/true, fmt::format("failed to {} {}: {}", verb, resource_, r.Describe()));
    }
  }

  // An outage is logged once per informer, not once per retry: its first failure as client-go's
  // reflector logs it (a failed list or watch as an error, a watch cut short as a warning), the
  // retries at -v=4, and the recovery once a list or watch succeeds again (at -v=4 when the
  // first retry succeeded: a watch cut and resumed at once is no outage).
  void Failing(bool error, const std::string& what) {
    if (failing_since_) {
      ++retries_failed_;
      if (log::V(4)) log::Infof(4, "{}; retrying in {}ms", what, backoff_.count());
      return;
    }
    failing_since_ = std::chrono::steady_clock::now();
    retries_failed_ = 0;
    if (error) {
      log::Errorf("{}; retrying with backoff (retries logged at -v=4)", what);
    } else {
      log::Warningf("{}; resuming (retries logged at -v=4)", what);
    }
  }
  void Recovered(const char* verb) {
    if (!failing_since_) return;
    const auto down = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - *failing_since_);
    failing_since_.reset();
    const int v = retries_failed_ > 0 ? 0 : 4;
    if (log::V(v)) {
      log::Infof(v, "{} of {} succeeded again after {:.1f}s", verb, resource_,
                 static_cast<double>(down.count()) / 1000);
    }
  }

  Http& http_;
  framework::RealClock& clock_;
  const std::string path_;
  const std::string api_version_;
  const std::string resource_;
  const std::atomic<bool>& stop_;
  Apply apply_;
  Replace replace_;
  std::function<void(std::string)> fatal_;
  std::mt19937 rng_{std::random_device{}()};
  std::chrono::milliseconds backoff_{800};
  bool stopped_for_good_ = false;
  // Since when lists or watches have been failing (Failing), until one succeeds.
  std::optional<std::chrono::steady_clock::time_point> failing_since_;
  int retries_failed_ = 0;  // retries that failed too, since failing_since_
};

}  // namespace

// ---- KubeCluster ----

KubeCluster::KubeCluster(Http& http, framework::RealClock& clock, KubeClusterOptions options)
    : http_(http),
      clock_(clock),
      options_(std::move(options)),
      stores_(std::make_unique<Stores>()),
      binders_(options_.binders),
      writer_(1),
      event_writer_(1, kMaxQueuedEvents) {}

KubeCluster::~KubeCluster() { Stop(); }

template <typename T>
void KubeCluster::AddInformer(std::string path, std::string api_version) {
  Store<T>& store = stores_->For<T>(api_version);
  stores_->synced.push_back(&store.synced);
  auto notify_add = [this](const std::shared_ptr<const T>& o) {
    const api::AnyObject added(o);
    for (ClusterObserver* obs : observers_) obs->OnAdd(added);
  };
  auto notify_update = [this](const std::shared_ptr<const T>& a,
                              const std::shared_ptr<const T>& b) {
    const api::AnyObject old_object(a), new_object(b);
    for (ClusterObserver* obs : observers_) obs->OnUpdate(old_object, new_object);
  };
  auto notify_delete = [this](const std::shared_ptr<const T>& o) {
    if constexpr (std::is_same_v<T, api::Pod>) {
      // A pod gone needs no guard against a stale failure condition any more.
      std::lock_guard lock(binding_mu_);
      binding_.erase(o->metadata.uid);
    }
    const api::AnyObject deleted(o);
    for (ClusterObserver* obs : observers_) obs->OnDelete(deleted);
  };
  auto apply = [&store, notify_add, notify_update, notify_delete](WatchEventType type,
                                                                  std::shared_ptr<const T> obj) {
    const std::string key = KeyOf(obj->metadata);
    auto it = store.items.find(key);
    if (type == WatchEventType::kDeleted) {
      if (it == store.items.end()) return;
      std::shared_ptr<const T> old = std::move(it->second);
      store.items.erase(it);
      notify_delete(old);
      return;
    }
    if (it == store.items.end()) {
      store.items.emplace(key, obj);
      notify_add(obj);
      return;
    }
    if (it->second->metadata.resource_version == obj->metadata.resource_version) return;
    std::shared_ptr<const T> old = std::exchange(it->second, obj);
    notify_update(old, obj);
  };
  // A relist: what is new is added, what changed updated, what is gone deleted (client-go's
  // Replace, delivered as the differences).
  auto replace = [&store, apply, notify_delete](std::vector<std::shared_ptr<const T>> items) {
    std::set<std::string> seen;
    for (std::shared_ptr<const T>& obj : items) {
      seen.insert(KeyOf(obj->metadata));
      apply(WatchEventType::kModified, std::move(obj));
    }
    for (auto it = store.items.begin(); it != store.items.end();) {
      if (seen.contains(it->first)) {
        ++it;
        continue;
      }
      std::shared_ptr<const T> old = std::move(it->second);
      it = store.items.erase(it);
      notify_delete(old);
    }
    store.synced = true;
  };
  auto fatal = [this](std::string message) {
    clock_.Post([this, message = std::move(message)] {
      if (fatal_.empty()) fatal_ = message;
    });
  };
  const std::string resource = path.substr(path.rfind('/') + 1);
  informers_.push_back(std::make_unique<Informer<T>>(http_, clock_, std::move(path),
                                                     std::move(api_version), resource, stop_, apply,
                                                     replace, fatal));
}

Status KubeCluster::Start() {
  if (Status s = CheckServer(http_); !s.IsSuccess()) return s;
  // Each kind the scheduler watches, in each apiVersion the server serves (the newest only, of
  // a kind whose versions are one API group's): a required kind must be served and listable;
  // an optional one (a CRD, an alpha API) is watched where the server serves it.
  std::vector<std::function<void()>> informers;
  std::vector<Unserved> unserved;
  Status status = Status::OK();
  api::ForEachClusterKind([&]<typename T>(std::type_identity<T>) {
    if (!status.IsSuccess()) return;
    const api::Kind<T>& kind = api::KindOf<T>();
    if (kind.gate && !api::Features().Enabled(*kind.gate)) return;
    std::vector<std::string> served;
    status = ServedVersions(http_, KindToReadOf<T>(), &served);
    if (!status.IsSuccess()) return;
    for (const std::string& version : served) {
      informers.push_back([this, path = ResourcePath(version, kind.resource), version] {
        AddInformer<T>(path, version);
      });
    }
    if (served.empty()) {
      unserved_.insert(std::string(kind.resource));
      unserved.push_back({kind.name, kind.api_versions.front(), kind.when_unserved});
    }
  });
  if (!status.IsSuccess()) return status;
  if (!unserved.empty()) log::Warningf("{}", UnservedMessage(unserved));
  for (const auto& add : informers) add();
  for (auto& informer : informers_) informer->Start();
  return Status::OK();
}

bool KubeCluster::Synced() const {
  if (informers_.empty()) return false;
  for (const bool* s : stores_->synced) {
    if (!*s) return false;
  }
  return true;
}

void KubeCluster::Stop() {
  stop_.store(true);
  for (auto& informer : informers_) informer->Join();
  binders_.Drain();
  writer_.Drain();
  event_writer_.Drain();
}

void KubeCluster::RunBind(std::function<Status()> work, std::function<void(Status)> done) {
  binders_.Submit([this, work = std::move(work), done = std::move(done)]() mutable {
    Status s = work();
    clock_.Post([done = std::move(done), s = std::move(s)] { done(s); });
  });
}

void KubeCluster::Flush() {
  binders_.Drain();
  // Every write queued, then the counts of the event series not written yet.
  writer_.Drain();
  event_writer_.Drain();
  event_writer_.Submit([this, now = clock_.Now()] { TidyEventSeries(now, /*all=*/true); });
  event_writer_.Drain();
}

size_t KubeCluster::num_pods() const { return stores_->Count<api::Pod>(); }

size_t KubeCluster::num_nodes() const { return stores_->Count<api::Node>(); }

std::chrono::milliseconds KubeCluster::WriteBudget() const {
  const std::chrono::milliseconds most = std::chrono::seconds(30);
  return options_.write_budget ? std::min(most, options_.write_budget()) : most;
}

Response KubeCluster::Write(std::string_view method, const std::string& path,
                            const std::string& body, std::string_view content_type,
                            const std::string& object, bool retry) {
  // Retried for about a minute (100ms, doubling, at most 5s apart), as a controller's
  // rate-limited requeue would: an API server restart should not lose a status.
  Response r;
  auto delay = std::chrono::milliseconds(100);
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::chrono::milliseconds budget = WriteBudget();
    if (budget.count() <= 0) {
      r.error = "not written: this instance no longer holds the leader lease";
      return r;
    }
    r = http_.Do(method, path, body, content_type, budget);
    const bool transient = r.status == 0 || r.status == 429 || r.status >= 500;
    if (!retry || !transient || stop_.load()) break;
    std::this_thread::sleep_for(delay);
    delay = std::min(delay * 2, std::chrono::milliseconds(5000));
  }
  if (!r.ok() && r.status != 404) {
    std::lock_guard lock(failed_mu_);
    if (failed_.insert(object).second) {
      log::Errorf("{} {} failed: {}", method, object, r.Describe());
    }
  }
  return r;
}

Status KubeCluster::Bind(const api::Pod& pod, api::Symbol node) {
  const Json body = {{"apiVersion", "v1"},
                     {"kind", "Binding"},
                     {"metadata", {{"name", pod.metadata.name}, {"uid", pod.metadata.uid}}},
                     {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node.str()}}}};
  const std::string path = fmt::format("/api/v1/namespaces/{}/pods/{}/binding",
                                       pod.metadata.namespace_.str(), pod.metadata.name);
  // Not retried: a bind that failed goes back to the scheduler, which retries it after backoff
  // (or forgets it when the pod was bound or deleted elsewhere: 409, 404).
  const std::chrono::milliseconds budget = WriteBudget();
  if (budget.count() <= 0) {
    log::Warningf("binding {} to {} not sent: this instance no longer holds the leader lease",
                  pod.metadata.Key(), node.str());
    return Status::Error("binding not sent: the leader lease has lapsed");
  }
  {
    std::unique_lock lock(binding_mu_);
    binding_cv_.wait(lock, [&] { return !failing_.contains(pod.metadata.uid); });
    binding_.insert(pod.metadata.uid);
  }
  const Response r = http_.Do("POST", path, body.dump(), "application/json", budget);
  if (r.ok()) return Status::OK();
  {
    std::lock_guard lock(binding_mu_);
    binding_.erase(pod.metadata.uid);
  }
  log::Warningf("binding {} to {} failed: {}", pod.metadata.Key(), node.str(), r.Describe());
  return Status::Error(fmt::format("binding rejected: {}", r.Describe()));
}

Status KubeCluster::PatchForBinding(const std::string& path, const std::string& body,
                                    const std::string& what) {
  // Sent from PreBind, on the binding thread, and waited for: the pod is bound only after it.
  // The resourceVersion in the patch makes the API server refuse it (409) when the object
  // changed since the scheduler read it.
  const std::chrono::milliseconds budget = WriteBudget();
  if (budget.count() <= 0) {
    return Status::Error(fmt::format("{} not updated: the leader lease has lapsed", what));
  }
  const Response r = http_.Do("PATCH", path, body, "application/merge-patch+json", budget);
  if (r.ok()) return Status::OK();
  log::Warningf("updating {} failed: {}", what, r.Describe());
  return Status::Error(fmt::format("updating {}: {}", what, r.Describe()));
}

Status KubeCluster::BindVolume(const api::PersistentVolume& pv) {
  if (!pv.spec.claim_ref)
    return Status::Error("persistentvolume " + pv.metadata.name + ": no claim");
  const api::ObjectReference& claim = *pv.spec.claim_ref;
  Json ref = {{"kind", claim.kind},
              {"namespace", claim.namespace_},
              {"name", claim.name},
              {"apiVersion", claim.api_version}};
  if (!claim.uid.empty()) ref["uid"] = claim.uid;
  if (!claim.resource_version.empty()) ref["resourceVersion"] = claim.resource_version;
  Json metadata = {{"resourceVersion", pv.metadata.resource_version}};
  const std::string bound_by(api::kBoundByControllerAnnotation);
  if (auto it = pv.metadata.annotations.find(bound_by); it != pv.metadata.annotations.end()) {
    metadata["annotations"] = {{bound_by, it->second}};
  }
  const Json body = {{"metadata", metadata}, {"spec", {{"claimRef", ref}}}};
  return PatchForBinding(fmt::format("/api/v1/persistentvolumes/{}", pv.metadata.name), body.dump(),
                         "persistentvolume " + pv.metadata.name);
}

Status KubeCluster::SelectNode(const api::PersistentVolumeClaim& pvc, api::Symbol node) {
  const Json body = {
      {"metadata",
       {{"resourceVersion", pvc.metadata.resource_version},
        {"annotations", {{std::string(api::kSelectedNodeAnnotation), node.string()}}}}}};
  return PatchForBinding(fmt::format("/api/v1/namespaces/{}/persistentvolumeclaims/{}",
                                     pvc.metadata.namespace_.str(), pvc.metadata.name),
                         body.dump(), "persistentvolumeclaim " + pvc.metadata.Key());
}

Status KubeCluster::UpdateClaimStatus(const api::ResourceClaim& claim) {
  // Two writes, as kube-scheduler makes them: the finalizers (guarded by the resourceVersion
  // the scheduler read), then the status subresource (guarded by the version the first left).
  const std::string what = "resourceclaim " + claim.metadata.Key();
  const std::string path = ClaimsPath(claim.metadata.namespace_) + "/" + claim.metadata.name;
  const std::chrono::milliseconds budget = WriteBudget();
  if (budget.count() <= 0) {
    return Status::Error(fmt::format("{} not updated: the leader lease has lapsed", what));
  }
  const Json meta = {{"metadata",
                      {{"resourceVersion", claim.metadata.resource_version},
                       {"finalizers", claim.metadata.finalizers}}}};
  const Response r = http_.Do("PATCH", path, meta.dump(), "application/merge-patch+json", budget);
  if (!r.ok()) {
    log::Warningf("updating {} failed: {}", what, r.Describe());
    return Status::Error(fmt::format("updating {}: {}", what, r.Describe()));
  }
  const Json written = Json::parse(r.body, nullptr, false);
  std::string version = claim.metadata.resource_version;
  if (written.is_object() && written.contains("metadata") &&
      written["metadata"].contains("resourceVersion")) {
    version = written["metadata"]["resourceVersion"].get<std::string>();
  }
  const Json status = {{"metadata", {{"resourceVersion", version}}},
                       {"status", EncodeClaimStatus(claim)}};
  return PatchForBinding(path + "/status", status.dump(), what);
}

Status KubeCluster::CreateClaim(const api::ResourceClaim& claim, api::ResourceClaim* created) {
  const std::string what = fmt::format("resourceclaim {}/{}*", claim.metadata.namespace_.str(),
                                       claim.metadata.generate_name);
  const std::chrono::milliseconds budget = WriteBudget();
  if (budget.count() <= 0) {
    return Status::Error(fmt::format("{} not created: the leader lease has lapsed", what));
  }
  const std::string path = ClaimsPath(claim.metadata.namespace_);
  const Response r = http_.Do("POST", path, EncodeClaim(claim).dump(), "application/json", budget);
  const Json stored = r.ok() ? Json::parse(r.body, nullptr, false) : Json();
  const Json* meta =
      stored.is_object() && stored.contains("metadata") && stored["metadata"].is_object()
          ? &stored["metadata"]
          : nullptr;
  auto field = [&](const char* name) {
    return meta != nullptr && meta->contains(name) && (*meta)[name].is_string()
               ? (*meta)[name].get<std::string>()
               : std::string();
  };
  if (!r.ok() || field("name").empty()) {
    log::Warningf("creating {} failed: {}", what, r.Describe());
    return Status::Error(fmt::format("creating {}: {}", what, r.Describe()));
  }
  *created = claim;
  created->metadata.name = field("name");
  created->metadata.uid = field("uid");
  created->metadata.resource_version = field("resourceVersion");
  created->status = {};
  return Status::OK();
}

Status KubeCluster::DeleteClaim(const api::ResourceClaim& claim) {
  const std::string what = "resourceclaim " + claim.metadata.Key();
  const std::string path = ClaimsPath(claim.metadata.namespace_) + "/" + claim.metadata.name;
  const std::chrono::milliseconds budget = WriteBudget();
  if (budget.count() <= 0) {
    return Status::Error(fmt::format("{} not deleted: the leader lease has lapsed", what));
  }
  // The scheduler's finalizer first (the claim could not go while it stays), then the claim,
  // if it is still the one the scheduler made (its uid).
  std::vector<std::string> finalizers = claim.metadata.finalizers;
  std::erase(finalizers, std::string(api::kClaimFinalizer));
  const Json meta = {{"metadata", {{"finalizers", finalizers}}}};
  Response r = http_.Do("PATCH", path, meta.dump(), "application/merge-patch+json", budget);
  if (r.ok()) {
    Json options = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
    if (!claim.metadata.uid.empty()) options["preconditions"] = {{"uid", claim.metadata.uid}};
    r = http_.Do("DELETE", path, options.dump(), "application/json", budget);
  }
  if (r.ok() || r.status == 404) return Status::OK();
  log::Warningf("deleting {} failed: {}", what, r.Describe());
  return Status::Error(fmt::format("deleting {}: {}", what, r.Describe()));
}

Status KubeCluster::SetExtendedResourceClaimStatus(
    const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) {
  const Json patch = {
      {"status", {{"extendedResourceClaimStatus", EncodeExtendedResourceClaimStatus(status)}}}};
  return PatchForBinding(fmt::format("/api/v1/namespaces/{}/pods/{}/status",
                                     pod.metadata.namespace_.str(), pod.metadata.name),
                         patch.dump(), "pod " + pod.metadata.Key());
}

Status KubeCluster::UpdatePodCondition(const api::Pod& pod, const api::Condition& condition,
                                       const std::optional<std::string>& nominated_node) {
  Json status = {{"conditions", Json::array({ConditionJson(condition)})}};
  if (nominated_node) {
    status["nominatedNodeName"] = nominated_node->empty() ? Json() : Json(*nominated_node);
  }
  const Json patch = {{"status", status}};
  const std::string path = fmt::format("/api/v1/namespaces/{}/pods/{}/status",
                                       pod.metadata.namespace_.str(), pod.metadata.name);
  // Written in the order decided, but binds go their own way: a failure decided before the pod
  // was bound must not land after its binding.
  const bool failure = condition.type.str() == "PodScheduled" && condition.status.str() == "False";
  SubmitPodStatus(pod, path, patch.dump(), failure);
  return Status::OK();
}

void KubeCluster::SubmitPodStatus(const api::Pod& pod, std::string path, std::string body,
                                  bool before_binding) {
  writer_.Submit([this, path = std::move(path), body = std::move(body),
                  object = "pod " + pod.metadata.Key(),
                  uid = before_binding ? pod.metadata.uid : std::string()] {
    if (uid.empty()) {
      Write("PATCH", path, body, "application/strategic-merge-patch+json", object, true);
      return;
    }
    // Not sent once the pod's binding is under way; the binding waits for it while it is.
    {
      std::lock_guard lock(binding_mu_);
      if (binding_.contains(uid)) return;
      failing_.insert(uid);
    }
    Write("PATCH", path, body, "application/strategic-merge-patch+json", object, true);
    {
      std::lock_guard lock(binding_mu_);
      failing_.erase(failing_.find(uid));
    }
    binding_cv_.notify_all();
  });
}

Status KubeCluster::NominatePod(const api::Pod& pod, api::Symbol node) {
  const Json patch = {
      {"status", {{"nominatedNodeName", node.empty() ? Json() : Json(node.string())}}}};
  const std::string path = fmt::format("/api/v1/namespaces/{}/pods/{}/status",
                                       pod.metadata.namespace_.str(), pod.metadata.name);
  // A nomination made before the binding must not land after it: the API server clears it then.
  SubmitPodStatus(pod, path, patch.dump(), /*before_binding=*/!node.empty());
  return Status::OK();
}

Status KubeCluster::DeletePod(const api::Pod& pod) {
  const std::string path = fmt::format("/api/v1/namespaces/{}/pods/{}",
                                       pod.metadata.namespace_.str(), pod.metadata.name);
  // As upstream's preemption: the DisruptionTarget condition first, then the deletion, made
  // only if the pod is still the one chosen (its uid).
  const api::Condition target = PreemptionCondition(options_.reporting_controller, clock_.Now());
  const Json patch = {{"status", {{"conditions", Json::array({ConditionJson(target)})}}}};
  Json options = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (!pod.metadata.uid.empty()) options["preconditions"] = {{"uid", pod.metadata.uid}};
  writer_.Submit([this, path, patch = patch.dump(), options = options.dump(),
                  object = "pod " + pod.metadata.Key()] {
    Write("PATCH", path + "/status", patch, "application/strategic-merge-patch+json", object, true);
    Write("DELETE", path, options, "application/json", object, true);
  });
  return Status::OK();
}

namespace {

// The status subresource of `object`, whose kind's REST resource is `resource`.
std::string StatusPath(const framework::ObjectReference& object, std::string_view resource) {
  return fmt::format("{}/{}/status", ResourcePath(object.api_version, resource, object.namespace_),
                     object.name);
}

}  // namespace

Status KubeCluster::UpdatePodGroupStatus(const api::PodGroup& group,
                                         const api::PodGroup::Status& status) {
  Json s = {{"phase", std::string(api::PodGroupPhaseName(status.phase))},
            {"scheduled", status.scheduled},
            {"running", status.running},
            {"succeeded", status.succeeded},
            {"failed", status.failed}};
  if (!status.occupied_by.empty()) s["occupiedBy"] = status.occupied_by;
  if (status.schedule_start_time) {
    s["scheduleStartTime"] = api::FormatTime(*status.schedule_start_time);
  }
  // In the API group the PodGroup came from (ReferenceTo's apiVersion).
  const std::string path =
      StatusPath(framework::ReferenceTo(group), api::KindOf<api::PodGroup>().resource);
  writer_.Submit([this, path, body = Json({{"status", s}}).dump(),
                  object = "podgroup " + group.metadata.Key()] {
    Write("PATCH", path, body, "application/merge-patch+json", object, true);
  });
  return Status::OK();
}

Status KubeCluster::UpdateGroupCondition(const framework::ObjectReference& object,
                                         const std::vector<api::Condition>& current,
                                         const api::Condition& condition) {
  std::string_view resource;
  api::ForKindNamed(object.kind, object.api_version,
                    [&](const auto& kind) { resource = kind.resource; });
  if (resource.empty()) {
    return Status::Error(
        fmt::format("{} {}: not a kind muster watches", object.kind, object.Key()));
  }
  // A merge patch replaces the list whole: the conditions as known, this one set.
  std::vector<api::Condition> conditions = current;
  api::SetCondition(conditions, condition);
  Json list = Json::array();
  for (const api::Condition& c : conditions) list.push_back(ConditionJson(c));
  const std::string path = StatusPath(object, resource);
  writer_.Submit([this, path, body = Json({{"status", {{"conditions", list}}}}).dump(),
                  what = fmt::format("{} {}", resource, object.Key())] {
    Write("PATCH", path, body, "application/merge-patch+json", what, true);
  });
  return Status::OK();
}

namespace {

Json ReferenceJson(const framework::ObjectReference& ref) {
  Json j = {{"apiVersion", ref.api_version}, {"kind", ref.kind}, {"name", ref.name}};
  if (!ref.namespace_.empty()) j["namespace"] = ref.namespace_;
  if (!ref.uid.empty()) j["uid"] = ref.uid;
  if (!ref.resource_version.empty()) j["resourceVersion"] = ref.resource_version;
  return j;
}

std::string ReferenceKey(const framework::ObjectReference& ref) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", ref.api_version, ref.kind, ref.namespace_,
                     ref.name, ref.uid, ref.resource_version);
}

// How often the series of repeated events are written, and how long a series lasts without a
// repeat: client-go's event broadcaster's refresh (30 minutes) and finish (6 minutes) periods.
constexpr auto kSeriesRefresh = std::chrono::minutes(30);
constexpr auto kSeriesFinish = std::chrono::minutes(6);

}  // namespace

void KubeCluster::RecordEvent(framework::EventRecord event) {
  const api::Time now = clock_.Now();
  const bool queued = event_writer_.Submit([this, event = std::move(event), now] {
    const std::string controller = event.reporting_controller.empty()
                                       ? options_.reporting_controller
                                       : event.reporting_controller;
    // One series per (action, reason, controller, regarding, related), as client-go keys it:
    // the note is not part of the key, and a repeat keeps the first note.
    const std::string key = fmt::format("{}\n{}\n{}\n{}\n{}", event.action, event.reason,
                                        controller, ReferenceKey(event.regarding),
                                        event.related ? ReferenceKey(*event.related) : "");
    TidyEventSeries(now, /*all=*/false);
    if (auto it = events_.find(key); it != events_.end()) {
      // The second occurrence starts the series and is written at once; later ones only count,
      // written when the series is refreshed or finishes.
      PostedEvent& posted = it->second;
      ++posted.count;
      posted.last_observed = now;
      posted.unwritten = true;
      if (posted.count > 2 || WriteSeries(posted)) return;
      events_.erase(it);  // the event is gone (expired, deleted): posted anew below
    }
    const framework::ObjectReference& regarding = event.regarding;
    const std::string ns = regarding.namespace_.empty() ? "default" : regarding.namespace_;
    const std::string name = fmt::format("{}.{:x}", regarding.name, now.time_since_epoch().count());
    Json body = {{"apiVersion", "events.k8s.io/v1"},
                 {"kind", "Event"},
                 {"metadata", {{"name", name}, {"namespace", ns}}},
                 {"eventTime", api::FormatMicroTime(now)},
                 {"reportingController", controller},
                 {"reportingInstance", options_.reporting_instance},
                 {"action", event.action.empty() ? event.reason : event.action},
                 {"reason", event.reason},
                 {"note", event.message.substr(0, 1024)},
                 {"type", event.type},
                 {"regarding", ReferenceJson(regarding)}};
    if (event.related) body["related"] = ReferenceJson(*event.related);
    const Response r = Write("POST", fmt::format("/apis/events.k8s.io/v1/namespaces/{}/events", ns),
                             body.dump(), "application/json", "event " + name, false);
    if (r.ok()) events_[key] = PostedEvent{name, ns, 1, now, now, false};
    // Events are best effort, as upstream's broadcaster: a cap keeps the map from growing
    // without end.
    if (events_.size() > 10000) events_.clear();
  });
  if (queued) return;
  // Logged when dropping starts, then at most every 30 seconds while it goes on, with the count
  // so far: a few lines however many are dropped.
  const int64_t dropped = dropped_events_.fetch_add(1) + 1;
  const int64_t at = now.time_since_epoch().count();
  int64_t last = last_drop_logged_.load();
  const int64_t every = std::chrono::duration_cast<api::Time::duration>(kDropLogEvery).count();
  if ((last == 0 || at - last >= every) && last_drop_logged_.compare_exchange_strong(last, at)) {
    log::Warningf(
        "{} events are waiting to be written: new ones are dropped until the API server "
        "takes them ({} dropped so far)",
        kMaxQueuedEvents, dropped);
  }
}

void KubeCluster::TidyEvents() {
  // Dropped when events fill the queue: the next tidy does the same.
  event_writer_.Submit([this, now = clock_.Now()] { TidyEventSeries(now, /*all=*/false); });
}

bool KubeCluster::WriteSeries(PostedEvent& posted) {
  const Json patch = {{"series",
                       {{"count", posted.count},
                        {"lastObservedTime", api::FormatMicroTime(posted.last_observed)}}}};
  const Response r = Write(
      "PATCH",
      fmt::format("/apis/events.k8s.io/v1/namespaces/{}/events/{}", posted.namespace_, posted.name),
      patch.dump(), "application/merge-patch+json", "event " + posted.name, false);
  posted.unwritten = false;
  return r.ok();  // false: expired or deleted, so the next repeat is posted anew
}

void KubeCluster::TidyEventSeries(api::Time now, bool all) {
  const bool refresh = all || now - last_series_refresh_ >= kSeriesRefresh;
  const bool finish = all || now - last_series_finish_ >= kSeriesFinish;
  if (refresh) last_series_refresh_ = now;
  if (finish) last_series_finish_ = now;
  if (!refresh && !finish) return;
  for (auto it = events_.begin(); it != events_.end();) {
    PostedEvent& posted = it->second;
    const bool over =
        now - (posted.count > 1 ? posted.last_observed : posted.first) >= kSeriesFinish;
    if (posted.unwritten && (refresh || over)) WriteSeries(posted);
    if (finish && over) {
      it = events_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace muster::cluster::kube
