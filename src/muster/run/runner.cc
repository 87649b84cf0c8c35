#include "muster/run/runner.h"

#include <random>
#include <thread>

#include <fmt/format.h>

#include "muster/cluster/kube/http.h"
#include "muster/cluster/kube/kube_cluster.h"
#include "muster/cluster/kube/leader_election.h"
#include "muster/cluster/kube/rest_config.h"
#include "muster/framework/log.h"
#include "muster/framework/real_clock.h"
#include "muster/host/host.h"
#include "muster/host/podgroup_controller.h"
#include "muster/run/serving.h"

namespace muster::run {
namespace {

using Steady = std::chrono::steady_clock;

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
    log::Errorf("{}", error);
    return kRunBadInput;
  }
  rest->qps = options.qps.value_or(config.client_connection.qps);
  rest->burst = options.burst.value_or(config.client_connection.burst);
  for (const std::string& w : rest->warnings) log::Warningf("{}", w);
  log::Infof(0, "API server {} ({}), qps {} burst {}", rest->server, rest->source, rest->qps,
             rest->burst);

  const api::LeaderElectionConfig& election =
      options.leader_election ? *options.leader_election : config.leader_election;
  const bool leader_elect = election.leader_elect;
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
    for (const std::string& e : errors) log::Errorf("{}", e);
    return kRunBadInput;
  }
  host->SetWarn([](const std::string& w) { log::Warning(w); });
  host->scheduler().SetBindRunner([&cluster](std::function<framework::Status()> work,
                                             std::function<void(framework::Status)> done) {
    cluster.RunBind(std::move(work), std::move(done));
  });
  host::PodGroupController pod_groups(
      cluster, [&clock](std::function<void()> fn) { clock.Post(std::move(fn)); });
  cluster.AddObserver(&pod_groups);

  // Serving: the API server authenticates and authorizes every request but the health checks,
  // through the clients of --authentication-kubeconfig and --authorization-kubeconfig (by
  // default the scheduler's own connection, each with its own rate limit).
  auto client_for = [&](const std::string& kubeconfig,
                        std::string_view flag) -> std::unique_ptr<cluster::kube::Http> {
    if (kubeconfig.empty()) return std::make_unique<cluster::kube::Http>(*rest);
    cluster::kube::RestConfigOptions o;
    o.kubeconfig = kubeconfig;
    std::optional<cluster::kube::RestConfig> r = cluster::kube::LoadRestConfig(o, &error);
    if (!r) {
      error = fmt::format("{}: {}", flag, error);
      return nullptr;
    }
    return std::make_unique<cluster::kube::Http>(*r);
  };
  std::unique_ptr<cluster::kube::Http> authn_http;
  std::unique_ptr<cluster::kube::Http> authz_http;
  std::unique_ptr<DelegatedAuth> auth;
  if (options.serving.secure_port != 0) {
    authn_http = client_for(options.authentication_kubeconfig, "--authentication-kubeconfig");
    if (authn_http == nullptr) {
      log::Errorf("{}", error);
      return kRunBadInput;
    }
    authz_http = client_for(options.authorization_kubeconfig, "--authorization-kubeconfig");
    if (authz_http == nullptr) {
      log::Errorf("{}", error);
      return kRunBadInput;
    }
    auth = std::make_unique<DelegatedAuth>(*authn_http, *authz_http);
  }
  std::atomic<bool> ready{false};
  const framework::Metrics& metrics = *host->scheduler().metrics();
  Serving serving(
      ready, [&metrics] { return metrics.Text(); }, auth.get());
  if (!serving.Start(options.serving, &error)) {
    log::Errorf("{}", error);
    return kRunBadInput;
  }

  if (framework::Status s = cluster.Start(); !s.IsSuccess()) {
    log::Errorf("{}", s.Message());
    return kRunFailed;
  }
  // The event series' counts are written on a timer of their own, as client-go's are.
  std::function<void()> tidy_events = [&] {
    cluster.TidyEvents();
    clock.AddTimer(clock.Now() + std::chrono::minutes(1), tidy_events, /*keeps_alive=*/false);
  };
  clock.AddTimer(clock.Now() + std::chrono::minutes(1), tidy_events, /*keeps_alive=*/false);

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
    log::Errorf("{}", failure);
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
      log::Infof(0, "waiting for the informers to sync");
      next_note += std::chrono::seconds(10);
    }
  }
  // Ready once synced, leading or not, as kube-scheduler's /readyz (its sched-handler-sync
  // check): a standby replica is ready to take over, and a rolling update does not wait on it.
  ready.store(true);
  log::Infof(0, "informers synced in {}ms: {} nodes, {} pods",
             std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - began).count(),
             cluster.num_nodes(), cluster.num_pods());

  std::unique_ptr<cluster::kube::LeaderElector> elector;
  std::atomic<bool> leading{!leader_elect};
  if (leader_elect) {
    cluster::kube::LeaderElectionConfig le;
    le.lease_namespace = election.resource_namespace;
    le.lease_name = election.resource_name;
    le.identity = identity;
    auto ms = [](api::Duration d) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(d);
    };
    le.lease_duration = ms(election.lease_duration);
    le.renew_deadline = ms(election.renew_deadline);
    le.retry_period = ms(election.retry_period);
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
      clock.Wait(clock.Now() + std::chrono::seconds(1));
      clock.RunDue();
    }
  }
  if (!over()) {
    log::Infof(0, "scheduling pods of {}", fmt::join(host->scheduler().scheduler_names(), ", "));
    // A lapsed lease ends scheduling at once, before the elector's own thread says so.
    ServePolicy policy(clock, [&] { return over() || (leader_elect && !elector->LeaseValid()); });
    host->Run(policy);
  }
  ready.store(false);

  // Stop: no new cycles; binds in flight finish (their outcome reaches the scheduler), writes
  // are flushed, the lease is given up.
  log::Infof(0, "stopping: finishing binds in flight");
  cluster.Flush();
  clock.RunDue();
  if (elector != nullptr) elector->Stop();
  cluster.Stop();
  serving.Stop();
  log::Infof(0, "stopped: {} pods bound, {} attempts", host->scheduler().stats().scheduled,
             host->scheduler().stats().attempts);
  over();  // a lease that lapsed while stopping is a failure all the same
  return exit_code();
}

}  // namespace muster::run
