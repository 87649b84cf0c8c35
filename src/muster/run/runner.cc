#include "muster/run/runner.h"

#include <fmt/format.h>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <random>
#include <thread>

#include "muster/cluster/kube/http.h"
#include "muster/cluster/kube/kube_cluster.h"
#include "muster/cluster/kube/leader_election.h"
#include "muster/cluster/kube/rest_config.h"
#include "muster/framework/real_clock.h"
#include "muster/host/host.h"
#include "muster/host/podgroup_controller.h"

namespace muster::run {
namespace {

using Steady = std::chrono::steady_clock;

// /healthz, /readyz and /metrics on their own thread.
class HealthServer {
 public:
  HealthServer(const std::atomic<bool>& ready, const framework::Metrics& metrics)
      : ready_(ready), metrics_(metrics) {}
  ~HealthServer() { Stop(); }

  // "host:port", ":port" or "port"; false with *error when it cannot listen there.
  bool Start(const std::string& address, std::string* error) {
    std::string host = "0.0.0.0";
    std::string port = address;
    if (const size_t colon = address.rfind(':'); colon != std::string::npos) {
      host = address.substr(0, colon);
      port = address.substr(colon + 1);
      if (host.empty()) host = "0.0.0.0";
    }
    int p = 0;
    try {
      p = std::stoi(port);
    } catch (...) {
      *error = fmt::format("--metrics-bind-address {}: not host:port", address);
      return false;
    }
    server_.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
    server_.Get("/livez", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
    server_.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
      if (ready_.load()) {
        res.set_content("ok", "text/plain");
      } else {
        res.status = 503;
        res.set_content("not ready: informers syncing or not leading", "text/plain");
      }
    });
    server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(metrics_.Text(), "text/plain; version=0.0.4; charset=utf-8");
    });
    if (!server_.bind_to_port(host.c_str(), p)) {
      *error = fmt::format("--metrics-bind-address {}: cannot listen there", address);
      return false;
    }
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    spdlog::info("serving /metrics, /healthz and /readyz on {}", address);
    return true;
  }

  void Stop() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  httplib::Server& server() { return server_; }

 private:
  const std::atomic<bool>& ready_;
  const framework::Metrics& metrics_;
  httplib::Server server_;
  std::thread thread_;
};

// Schedules while the run lasts: the real clock waits for a timer or a watch event whenever no
// pod is ready.
class ServePolicy final : public host::RunPolicy {
 public:
  ServePolicy(framework::RealClock& clock, std::function<bool()> over)
      : clock_(clock), over_(std::move(over)) {}
  bool Done() override { return over_(); }
  bool Idle() override {
    clock_.Wait();
    return true;
  }

 private:
  framework::RealClock& clock_;
  std::function<bool()> over_;
};

}  // namespace

int Run(const RunOptions& options, const std::atomic<bool>& stop,
        std::function<void(std::function<void()>)> set_wake) {
  const api::SchedulerConfiguration defaults;
  const api::SchedulerConfiguration& config = options.config ? *options.config : defaults;

  cluster::kube::RestConfigOptions rest_options;
  rest_options.kubeconfig =
      options.kubeconfig.empty() ? config.client_connection.kubeconfig : options.kubeconfig;
  rest_options.context = options.context;
  std::string error;
  std::optional<cluster::kube::RestConfig> rest =
      cluster::kube::LoadRestConfig(rest_options, &error);
  if (!rest) {
    spdlog::error("{}", error);
    return kRunBadInput;
  }
  rest->qps = config.client_connection.qps;
  rest->burst = config.client_connection.burst;
  for (const std::string& w : rest->warnings) spdlog::warn("{}", w);
  spdlog::info("API server {} ({}), qps {} burst {}", rest->server, rest->source, rest->qps,
               rest->burst);

  const bool leader_elect = options.leader_elect.value_or(config.leader_election.leader_elect);
  const std::string identity =
      options.identity.empty() ? cluster::kube::LeaderElector::DefaultIdentity() : options.identity;

  cluster::kube::Http http(*rest);
  framework::RealClock clock;
  set_wake([&clock] { clock.Wake(); });
  cluster::kube::KubeClusterOptions cluster_options;
  cluster_options.reporting_instance = identity;
  // With leader election, a write (a binding above all) is sent only while the lease is held and
  // renewed within its deadline: not in the moments between the deadline passing and the
  // scheduler stopping, nor while it stops.
  std::atomic<const cluster::kube::LeaderElector*> lease{nullptr};
  if (leader_elect) {
    cluster_options.write_budget = [&lease] {
      const cluster::kube::LeaderElector* e = lease.load();
      return e != nullptr ? e->LeaseTimeLeft() : std::chrono::milliseconds(0);
    };
  }
  cluster::kube::KubeCluster cluster(http, clock, cluster_options);

  std::vector<std::string> errors;
  std::unique_ptr<host::Host> host =
      host::Host::Create(cluster, clock, options.config, std::random_device{}(), &errors);
  if (host == nullptr) {
    for (const std::string& e : errors) spdlog::error("{}", e);
    return kRunBadInput;
  }
  host->scheduler().SetBindRunner([&cluster](std::function<framework::Status()> work,
                                             std::function<void(framework::Status)> done) {
    cluster.RunBind(std::move(work), std::move(done));
  });
  host::PodGroupController pod_groups(
      cluster, [&clock](std::function<void()> fn) { clock.Post(std::move(fn)); });
  cluster.AddObserver(&pod_groups);

  std::atomic<bool> ready{false};
  HealthServer health(ready, *host->scheduler().metrics());
  if (!options.metrics_bind_address.empty() &&
      !health.Start(options.metrics_bind_address, &error)) {
    spdlog::error("{}", error);
    return kRunBadInput;
  }

  if (framework::Status s = cluster.Start(); !s.IsSuccess()) {
    spdlog::error("{}", s.Message());
    return kRunFailed;
  }

  // The end of the run: asked to stop, or a failure (a fatal informer error, the lease lost),
  // recorded once and reported when the run is over.
  std::atomic<bool> lost{false};
  std::string failure;
  auto over = [&] {
    if (failure.empty() && !cluster.fatal().empty()) failure = cluster.fatal();
    if (failure.empty() && lost.load()) {
      failure = "leader election lost: muster stops scheduling and exits";
    }
    return !failure.empty() || stop.load();
  };
  auto exit_code = [&] {
    if (failure.empty()) return kRunOk;
    spdlog::error("{}", failure);
    return kRunFailed;
  };

  // WaitForCacheSync: the stores fill, the scheduler hears of every object, nothing is
  // scheduled yet.
  const Steady::time_point began = Steady::now();
  Steady::time_point next_note = began + std::chrono::seconds(10);
  while (!cluster.Synced()) {
    if (over()) {
      cluster.Stop();
      return exit_code();
    }
    clock.Wait(clock.Now() + std::chrono::seconds(1));
    clock.RunDue();
    if (Steady::now() > next_note) {
      spdlog::info("waiting for the informers to sync");
      next_note += std::chrono::seconds(10);
    }
  }
  spdlog::info("informers synced in {}ms: {} nodes, {} pods",
               std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - began).count(),
               cluster.num_nodes(), cluster.num_pods());

  std::unique_ptr<cluster::kube::LeaderElector> elector;
  std::atomic<bool> leading{!leader_elect};
  if (leader_elect) {
    cluster::kube::LeaderElectionConfig le;
    le.lease_namespace = config.leader_election.resource_namespace;
    le.lease_name = config.leader_election.resource_name;
    le.identity = identity;
    auto ms = [](api::Duration d) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(d);
    };
    le.lease_duration = ms(config.leader_election.lease_duration);
    le.renew_deadline = ms(config.leader_election.renew_deadline);
    le.retry_period = ms(config.leader_election.retry_period);
    elector = std::make_unique<cluster::kube::LeaderElector>(
        http, le,
        [&] {
          leading.store(true);
          clock.Wake();
        },
        [&] {
          if (!stop.load()) lost.store(true);
          leading.store(false);
          clock.Wake();
        });
    lease.store(elector.get());
    elector->Start();
    // Until elected, the informers keep the scheduler's view current; nothing is scheduled.
    while (!leading.load() && !over()) {
      ready.store(false);
      clock.Wait(clock.Now() + std::chrono::seconds(1));
      clock.RunDue();
    }
  }
  if (!over()) {
    ready.store(true);
    spdlog::info("scheduling pods of {}", fmt::join(host->scheduler().scheduler_names(), ", "));
    // A lapsed lease ends scheduling at once, before the elector's own thread says so.
    ServePolicy policy(clock, [&] { return over() || (leader_elect && !elector->LeaseValid()); });
    host->Run(policy);
  }
  ready.store(false);

  // Stop: no new cycles; binds in flight finish (their outcome reaches the scheduler), writes
  // are flushed, the lease is given up.
  spdlog::info("stopping: finishing binds in flight");
  cluster.Flush();
  clock.RunDue();
  if (elector != nullptr) elector->Stop();
  cluster.Stop();
  health.Stop();
  spdlog::info("stopped: {} pods bound, {} attempts", host->scheduler().stats().scheduled,
               host->scheduler().stats().attempts);
  over();  // a lease that lapsed while stopping is a failure all the same
  return exit_code();
}

}  // namespace muster::run
