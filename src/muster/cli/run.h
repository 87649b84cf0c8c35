#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "muster/api/scheduler_config.h"

namespace muster::cli {

// `muster run`'s flags, kube-scheduler's where they mean the same.
struct RunFlags {
  std::string kubeconfig;  // --kubeconfig
  std::string context;     // --context
  std::string config;      // --config FILE
  // Leader election, as kube-scheduler's flags: each one given wins over the configuration's
  // leaderElection, with or without --config.
  std::optional<bool> leader_elect;               // --leader-elect
  std::optional<std::string> lease_duration;      // --leader-elect-lease-duration (15s)
  std::optional<std::string> renew_deadline;      // --leader-elect-renew-deadline (10s)
  std::optional<std::string> retry_period;        // --leader-elect-retry-period (2s)
  std::optional<std::string> resource_lock;       // --leader-elect-resource-lock (leases)
  std::optional<std::string> resource_name;       // --leader-elect-resource-name
  std::optional<std::string> resource_namespace;  // --leader-elect-resource-namespace
  // The client's rate limit: kube-scheduler applies them only without --config.
  std::optional<double> kube_api_qps;  // --kube-api-qps
  std::optional<int> kube_api_burst;   // --kube-api-burst
  // Serving (run/serving.h).
  int secure_port = 10259;                // --secure-port; 0: none
  std::string bind_address = "0.0.0.0";   // --bind-address
  std::string tls_cert_file;              // --tls-cert-file
  std::string tls_private_key_file;       // --tls-private-key-file
  std::string authentication_kubeconfig;  // --authentication-kubeconfig
  std::string authorization_kubeconfig;   // --authorization-kubeconfig
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
  std::string metrics_bind_address;     // plain HTTP, only when given
  int verbosity = 0;                    // -v N, as klog's
  std::string logging_format = "text";  // --logging-format text|json
};

// kube-scheduler's --leader-elect-* flags that take a value, each written once: the flag, the
// leaderElection field of the configuration it sets (for messages), where RunFlags keeps it,
// what it sets, and its help. main.cc registers them from this table, run.cc applies them.
struct LeaderElectFlag {
  std::string_view flag;   // "--leader-elect-lease-duration"
  std::string_view field;  // "leaseDuration"
  std::optional<std::string> RunFlags::*value;
  std::variant<api::Duration api::LeaderElectionConfig::*, std::string api::LeaderElectionConfig::*>
      sets;
  std::string_view help;
};
const std::vector<LeaderElectFlag>& LeaderElectFlags();

// `muster run`: schedules a real cluster through its API server until SIGTERM or SIGINT.
// Returns the exit status: 0 when stopped, 1 on a runtime failure, 2 on bad input.
int RunRun(const RunFlags& flags, std::ostream& err);

}  // namespace muster::cli
