#include "muster/cli/run.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <csignal>
#include <iostream>
#include <ostream>
#include <thread>

#include "muster/cli/config_file.h"
#include "muster/cli/validate.h"
#include "muster/run/runner.h"

namespace muster::cli {
namespace {

// klog's -v levels to spdlog's: 0-1 info and above, 2-3 debug, 4+ trace.
spdlog::level::level_enum Level(int v) {
  if (v >= 4) return spdlog::level::trace;
  if (v >= 2) return spdlog::level::debug;
  return spdlog::level::info;
}

}  // namespace

int RunRun(const RunFlags& flags, std::ostream& err) {
  auto logger = spdlog::stderr_logger_mt("muster");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %^%l%$ %v", spdlog::pattern_time_type::utc);
  spdlog::set_level(Level(flags.verbosity));

  std::optional<api::SchedulerConfiguration> config;
  if (!flags.config.empty()) {
    std::vector<std::string> errors;
    config = LoadConfigFile(flags.config, std::cin, &errors);
    if (!config) {
      for (const std::string& e : errors) err << "error: " << e << "\n";
      return kExitBadInput;
    }
  }

  run::RunOptions options;
  options.kubeconfig = flags.kubeconfig;
  options.context = flags.context;
  options.config = config ? &*config : nullptr;
  if (flags.leader_elect_given) options.leader_elect = flags.leader_elect;
  options.metrics_bind_address = flags.metrics_bind_address;

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
        spdlog::info("received {}: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
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
