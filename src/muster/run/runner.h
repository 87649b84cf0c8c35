#pragma once

// `muster run`: the third front end on the shared host. A real API server behind the cluster
// interface (cluster/kube), the real clock, and the policy "schedule until told to stop": the
// same scheduler, the same loop and the same PodGroup controller as simulate, driven by watch
// events instead of a script.

#include <atomic>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "muster/api/scheduler_config.h"
#include "muster/run/serving.h"

namespace muster::run {

struct RunOptions {
  std::string kubeconfig;  // --kubeconfig (wins over clientConnection.kubeconfig)
  std::string context;     // --context
  // The KubeSchedulerConfiguration (nullptr: upstream's default profile). Its leaderElection
  // and clientConnection sections apply, unless set below.
  const api::SchedulerConfiguration* config = nullptr;
  // The leader election to take part in: the configuration's with kube-scheduler's
  // --leader-elect* flags applied (validated by the caller); nullopt: the configuration's.
  std::optional<api::LeaderElectionConfig> leader_election;
  // --kube-api-qps and --kube-api-burst (without --config); nullopt: the configuration's.
  std::optional<double> qps;
  std::optional<int32_t> burst;
  ServingOptions serving;                 // --secure-port, --tls-*, --metrics-bind-address...
  std::string authentication_kubeconfig;  // empty: the scheduler's own connection
  std::string authorization_kubeconfig;
  // The identity in the Lease; empty: hostname_uuid.
  std::string identity;
};

// Exit statuses, as the CLI's: 0 stopped when asked, 1 a runtime failure (unreachable server,
// refused credentials or permission, lost lease), 2 bad input (kubeconfig, configuration).
inline constexpr int kRunOk = 0;
inline constexpr int kRunFailed = 1;
inline constexpr int kRunBadInput = 2;

// Runs until `stop` becomes true (then returns 0) or a failure ends the run. `wake` is set to
// a function that interrupts the loop's wait: call it after setting `stop` (from any thread,
// not from a signal handler).
int Run(const RunOptions& options, const std::atomic<bool>& stop,
        std::function<void(std::function<void()>)> set_wake);

}  // namespace muster::run
