// The muster command: parses flags and hands each subcommand to its runner.

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "muster/cli/bench.h"
#include "muster/cli/explain.h"
#include "muster/cli/progress.h"
#include "muster/cli/run.h"
#include "muster/cli/simulate.h"
#include "muster/cli/validate.h"

int main(int argc, char** argv) {
  CLI::App app{"muster: a Kubernetes scheduler with gang scheduling"};
  app.require_subcommand(1);

  std::vector<std::string> validate_paths;
  CLI::App* validate = app.add_subcommand(
      "validate", "Decode manifests and print one line per object, or the errors (exit 2)");
  validate->add_option("-f,--filename", validate_paths,
                       "A file, a directory (its *.yaml, *.yml, *.json) or - for stdin")
      ->required()
      ->take_all();
  std::string validate_config;
  validate->add_option("--config", validate_config,
                       "A KubeSchedulerConfiguration file, checked as simulate and run check it");

  muster::cli::SimulateFlags simulate_flags;
  CLI::App* simulate = app.add_subcommand(
      "simulate",
      "Schedule manifests on an in-memory cluster with a virtual clock and print the outcome");
  simulate->add_option("-f,--filename", simulate_flags.paths,
                       "Manifests: a file, a directory or - for stdin (repeatable); without it, "
                       "the built-in demo")
      ->take_all();
  simulate->add_option("--config", simulate_flags.config, "A KubeSchedulerConfiguration file");
  simulate->add_option("--until", simulate_flags.until,
                       "Stop at this virtual time (e.g. 90s) even if more could happen");
  simulate->add_option("-o,--output", simulate_flags.output, "table, wide, json or yaml");
  simulate->add_option("--seed", simulate_flags.seed, "Seed for tie-breaking and generated names");
  simulate->add_flag("--check", simulate_flags.check,
                     "Check the scheduler's invariants after every event (no overcommitted node, "
                     "no pod bound against its filters or lost, no gang bound below minMember); "
                     "stop at the first broken one and exit 1");
  simulate->add_option("--report", simulate_flags.report,
                       "Also write an HTML report of the run to FILE: pods over time, node "
                       "utilisation, PodGroup timelines, why pods are pending, the configuration. "
                       "One self-contained file with inline SVG charts: it loads nothing")
      ->type_name("FILE");

  muster::cli::ExplainFlags explain_flags;
  CLI::App* explain = app.add_subcommand(
      "explain",
      "Simulate as `simulate` does and show one pod's last scheduling attempt: each node's "
      "Filter verdicts, each plugin's scores, the node chosen or why none was, preemption, "
      "and its PodGroup");
  explain->add_option("pod", explain_flags.pod, "The pod: NAME or NAMESPACE/NAME");
  explain->add_option("-f,--filename", explain_flags.input.paths,
                      "Manifests: a file, a directory or - for stdin (repeatable); without it, "
                      "the built-in demo")
      ->take_all();
  explain->add_option("--config", explain_flags.input.config, "A KubeSchedulerConfiguration file");
  explain->add_option("--until", explain_flags.input.until,
                      "Stop at this virtual time (e.g. 90s): the last attempt before it");
  explain->add_option("--seed", explain_flags.input.seed,
                      "Seed for tie-breaking and generated names (as simulate's)");
  explain->add_option("-o,--output", explain_flags.output, "table or json");
  explain->add_option("--top", explain_flags.top,
                      "Nodes shown in the tables (the best scored; rejected nodes beyond it are "
                      "summarised by reason); -o json has every node");

  muster::cli::BenchFlags bench_flags;
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Run upstream scheduler_perf's workloads and the gang workloads on an in-memory "
      "cluster and print the scheduling throughput");
  bench->add_option("workloads", bench_flags.workloads, "Workloads to run (default: all)");
  bench->add_option("--nodes", bench_flags.nodes, "Scale the runs to this many nodes");
  bench->add_option("--pods", bench_flags.pods, "Scale the runs to this many measured pods");
  bench->add_option("-o,--output", bench_flags.output, "table or json");
  bench->add_option("--gang-mode", bench_flags.gang_mode,
                    "Coscheduling's mode in the gang workloads: Group (the default) or PerPod");

  muster::cli::RunFlags run_flags;
  CLI::App* run = app.add_subcommand(
      "run",
      "Schedule a real cluster through its API server: the pods whose spec.schedulerName names "
      "one of the configuration's profiles");
  run->add_option("--kubeconfig", run_flags.kubeconfig,
                  "A kubeconfig (default: KUBECONFIG, ~/.kube/config, then in-cluster)");
  run->add_option("--context", run_flags.context, "The kubeconfig context to use");
  run->add_option("--config", run_flags.config, "A KubeSchedulerConfiguration file");
  run->add_option("--leader-elect", run_flags.leader_elect,
                  "Take part in leader election on a Lease before scheduling (default: the "
                  "configuration's leaderElection.leaderElect, true)")
      ->expected(0, 1)
      ->default_str("true")
      ->each([&](const std::string&) { run_flags.leader_elect_given = true; });
  run->add_option("--metrics-bind-address", run_flags.metrics_bind_address,
                  "Serve /metrics, /healthz and /readyz here (host:port)");
  run->add_option("-v,--v", run_flags.verbosity, "Log verbosity, as klog's (0-10)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : muster::cli::kExitBadInput;
  }

  if (simulate->parsed()) {
    simulate_flags.progress = muster::cli::StderrIsTerminal();
    return muster::cli::RunSimulate(simulate_flags, std::cin, std::cout, std::cerr);
  }
  if (run->parsed()) return muster::cli::RunRun(run_flags, std::cerr);
  if (explain->parsed()) {
    // `-f PATH... POD`: -f takes every argument after it, the pod too. The last one is the pod
    // when it names no file.
    std::vector<std::string>& paths = explain_flags.input.paths;
    if (explain_flags.pod.empty() && paths.size() > 1 && !std::filesystem::exists(paths.back())) {
      explain_flags.pod = paths.back();
      paths.pop_back();
    }
    if (explain_flags.pod.empty()) {
      std::cerr << "error: explain: POD is required (NAME or NAMESPACE/NAME)\n";
      return muster::cli::kExitBadInput;
    }
    explain_flags.progress = muster::cli::StderrIsTerminal();
    return muster::cli::RunExplain(explain_flags, std::cin, std::cout, std::cerr);
  }
  if (bench->parsed()) {
    bench_flags.progress = muster::cli::StderrIsTerminal();
    return muster::cli::RunBench(bench_flags, std::cout, std::cerr);
  }
  if (validate->parsed()) {
    return muster::cli::RunValidate(validate_paths, validate_config, std::cin, std::cout, std::cerr);
  }
  return muster::cli::kExitBadInput;
}
