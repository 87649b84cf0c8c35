#include "muster/cli/run.h"

#include <csignal>
#include <iostream>
#include <ostream>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "muster/cli/config_file.h"
#include "muster/cli/validate.h"
#include "muster/framework/log.h"
#include "muster/run/logging.h"
#include "muster/run/runner.h"

namespace muster::cli {
namespace {

// The flag that sets a leaderElection field, for messages (the field when none does).
std::string FlagOfField(const std::string& field) {
  for (const LeaderElectFlag& f : LeaderElectFlags()) {
    if (f.field == field) return std::string(f.flag);
  }
  return field;
}

// The leader election to run with: the configuration's, each flag given winning (as
// kube-scheduler's ApplyLeaderElectionTo), validated as kube-scheduler validates it. Errors name
// the flag, or the configuration's field when no flag set it.
std::optional<api::LeaderElectionConfig> LeaderElection(const RunFlags& flags,
                                                        const api::SchedulerConfiguration* config,
                                                        std::vector<std::string>* errors) {
  api::LeaderElectionConfig le = config ? config->leader_election : api::LeaderElectionConfig{};
  if (flags.leader_elect) le.leader_elect = *flags.leader_elect;
  std::set<std::string> from_flags;
  for (const LeaderElectFlag& f : LeaderElectFlags()) {
    const std::optional<std::string>& given = flags.*f.value;
    if (!given) continue;
    from_flags.insert(std::string(f.field));
    if (const auto* duration = std::get_if<api::Duration api::LeaderElectionConfig::*>(&f.sets)) {
      if (std::optional<api::Duration> d = api::ParseDuration(*given)) {
        le.** duration = *d;
      } else {
        errors->push_back(fmt::format("{} {}: not a duration (e.g. 15s, 1m30s)", f.flag, *given));
      }
    } else {
      le.*std::get<std::string api::LeaderElectionConfig::*>(f.sets) = *given;
    }
  }
  if (!errors->empty()) return std::nullopt;
  if (le.leader_elect) {
    for (const auto& [field, why] : api::LeaderElectionProblems(le)) {
      if (from_flags.contains(field) || config == nullptr) {
        errors->push_back(fmt::format("{}: {}", FlagOfField(field), why));
      } else {
        errors->push_back(fmt::format("{}: leaderElection.{}: {}", config->source, field, why));
      }
    }
  }
  if (!errors->empty()) return std::nullopt;
  return le;
}

}  // namespace

const std::vector<LeaderElectFlag>& LeaderElectFlags() {
  using L = api::LeaderElectionConfig;
  static const std::vector<LeaderElectFlag> flags = {
      {"--leader-elect-lease-duration", "leaseDuration", &RunFlags::lease_duration,
       &L::lease_duration, "How long a lease lasts without renewal (default 15s)"},
      {"--leader-elect-renew-deadline", "renewDeadline", &RunFlags::renew_deadline,
       &L::renew_deadline,
       "How long the leader tries to renew before it stops leading (default 10s)"},
      {"--leader-elect-retry-period", "retryPeriod", &RunFlags::retry_period, &L::retry_period,
       "How long between tries to take or renew the lease (default 2s)"},
      {"--leader-elect-resource-lock", "resourceLock", &RunFlags::resource_lock, &L::resource_lock,
       "The lock's kind: leases, the only one client-go still has"},
      {"--leader-elect-resource-name", "resourceName", &RunFlags::resource_name, &L::resource_name,
       "The Lease's name (default kube-scheduler)"},
      {"--leader-elect-resource-namespace", "resourceNamespace", &RunFlags::resource_namespace,
       &L::resource_namespace, "The Lease's namespace (default kube-system)"},
  };
  return flags;
}

int RunRun(const RunFlags& flags, std::ostream& err) {
  run::LogFormat format = run::LogFormat::kText;
  if (!run::ParseLogFormat(flags.logging_format, &format)) {
    err << "error: --logging-format " << flags.logging_format << ": must be text or json\n";
    return kExitBadInput;
  }
  if (flags.verbosity < 0) {
    err << "error: -v " << flags.verbosity << ": must be 0 or more\n";
    return kExitBadInput;
  }
  run::InstallLog(format, flags.verbosity);

  std::optional<api::SchedulerConfiguration> config;
  std::vector<std::string> errors;
  if (!flags.config.empty()) {
    config = LoadConfigFile(flags.config, std::cin, &errors);
    if (!config) {
      for (const std::string& e : errors) err << "error: " << e << "\n";
      return kExitBadInput;
    }
  }
  std::optional<api::LeaderElectionConfig> election =
      LeaderElection(flags, config ? &*config : nullptr, &errors);
  if (flags.kube_api_burst && *flags.kube_api_burst < 0) {
    errors.push_back(
        fmt::format("--kube-api-burst {}: must be non-negative", *flags.kube_api_burst));
  }
  if (flags.secure_port < 0 || flags.secure_port > 65535) {
    errors.push_back(fmt::format(
        "--secure-port {}: must be between 0 and 65535 (0: no secure serving)", flags.secure_port));
  }
  if (flags.tls_cert_file.empty() != flags.tls_private_key_file.empty()) {
    errors.push_back("--tls-cert-file and --tls-private-key-file: give both or neither");
  }
  if (!errors.empty()) {
    for (const std::string& e : errors) err << "error: " << e << "\n";
    return kExitBadInput;
  }

  if (!config) {
    log::Warning(
        "No --config given: scheduling the pods of schedulerName default-scheduler with the "
        "default profile, as kube-scheduler does; beside a running kube-scheduler, give a "
        "configuration with a profile of another name (examples/config/second-scheduler.yaml)");
  } else if (flags.kube_api_qps || flags.kube_api_burst) {
    log::Warning(
        "--kube-api-qps and --kube-api-burst are ignored with --config, as kube-scheduler "
        "ignores them: set clientConnection.qps and burst in the configuration");
  }

  run::RunOptions options;
  options.kubeconfig = flags.kubeconfig;
  options.context = flags.context;
  options.config = config ? &*config : nullptr;
  options.leader_election = election;
  if (!config) {
    if (flags.kube_api_qps) options.qps = *flags.kube_api_qps;
    if (flags.kube_api_burst) options.burst = *flags.kube_api_burst;
  }
  options.serving.secure_port = flags.secure_port;
  options.serving.bind_address = flags.bind_address;
  options.serving.tls_cert_file = flags.tls_cert_file;
  options.serving.tls_private_key_file = flags.tls_private_key_file;
  options.serving.always_allow_paths = flags.always_allow_paths;
  options.serving.insecure_address = flags.metrics_bind_address;
  options.authentication_kubeconfig = flags.authentication_kubeconfig;
  options.authorization_kubeconfig = flags.authorization_kubeconfig;

  // SIGTERM and SIGINT are taken by a thread of their own (sigwait), which asks the loop to
  // stop: nothing runs inside a signal handler. Blocked before any other thread starts, so every
  // thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::atomic<bool> stop{false};
  std::mutex wake_mu;
  std::function<void()> wake;
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig == SIGTERM || sig == SIGINT) {
      if (!stop.exchange(true)) {
        log::Infof(0, "received {}: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
      }
    }
    std::lock_guard lock(wake_mu);
    if (wake) wake();
  });
  const int code = run::Run(options, stop, [&](std::function<void()> fn) {
    std::lock_guard lock(wake_mu);
    wake = std::move(fn);
  });
  {
    std::lock_guard lock(wake_mu);
    wake = nullptr;
  }
  // The waiter is still in sigwait when the run ended by itself: wake it with a signal of the
  // set, which it takes as the stop it no longer matters for.
  if (!stop.exchange(true)) pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  return code;
}

}  // namespace muster::cli
