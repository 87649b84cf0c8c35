// The muster command: parses flags and hands each subcommand to its runner.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "muster/api/feature_gates.h"
#include "muster/cli/bench.h"
#include "muster/cli/capacity.h"
#include "muster/cli/compare.h"
#include "muster/cli/completion.h"
#include "muster/cli/explain.h"
#include "muster/cli/out_of_memory.h"
#include "muster/cli/progress.h"
#include "muster/cli/run.h"
#include "muster/cli/simulate.h"
#include "muster/cli/validate.h"

// The commit, written at every build (cmake/commit_header.cmake).
#if __has_include("muster_commit.h")
#include "muster_commit.h"
#endif

#ifndef MUSTER_VERSION
#define MUSTER_VERSION "dev"
#define MUSTER_BUILD_KIND "unknown"
#endif
#ifndef MUSTER_GIT_COMMIT
#define MUSTER_GIT_COMMIT "unknown"
#endif

namespace {

const std::string kVersion =
    "muster " MUSTER_VERSION " (commit " MUSTER_GIT_COMMIT ", " MUSTER_BUILD_KIND " build)";

// kubectl's and kube-scheduler's spellings all work: `--flag value`, `--flag=value`, `-f value`
// and `-f=value` (CLI11 takes the first three; the last is split here).
std::vector<std::string> Arguments(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() > 3 && a[0] == '-' && a[1] != '-' && a[2] == '=') {
      args.push_back(a.substr(0, 2));
      args.push_back(a.substr(3));
    } else {
      args.push_back(a);
    }
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  return args;
}

// A whole number from `min` to 2^64-1, checked on the flag's text before CLI11 converts it
// (which would clamp a number too large, and describe a negative one with a 309-digit bound).
CLI::Validator WholeNumber(uint64_t min) {
  return CLI::Validator(
      [min](std::string& text) -> std::string {
        uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, ec] = std::from_chars(text.data(), end, value);
        if (ec == std::errc::result_out_of_range) {
          return fmt::format("{} is too large: the most is {}", text,
                             std::numeric_limits<uint64_t>::max());
        }
        if (ec != std::errc() || stop != end) {
          return fmt::format("{} is not a whole number{}", text, min > 0 ? " above 0" : "");
        }
        if (value < min) return fmt::format("must be at least {}, got {}", min, text);
        return "";
      },
      min > 0 ? "POSITIVE" : "NONNEGATIVE");
}

// A flag that names a file to write may not be empty.
const CLI::Validator kFileName(
    [](std::string& text) -> std::string {
      return text.empty() ? "a file name is required, not an empty string" : "";
    },
    "");

int Main(int argc, char** argv) {
  CLI::App app{"muster: a Kubernetes scheduler with gang scheduling", "muster"};
  app.require_subcommand(1);
  // A flag given twice takes its last value, as kubectl's and kube-scheduler's (pflag) do.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.set_version_flag("--version", kVersion, "Print the version and exit");
  CLI::App* version = app.add_subcommand("version", "Print the version and exit");
  std::string completion_shell;
  CLI::App* completion = app.add_subcommand(
      "completion",
      "Print a shell completion script: source <(muster completion bash), or for zsh "
      "eval \"$(muster completion zsh)\"");
  completion->add_option("shell", completion_shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}));

  std::vector<std::string> validate_paths;
  CLI::App* validate = app.add_subcommand(
      "validate", "Decode manifests and print one line per object, or the errors (exit 2)");
  validate
      ->add_option("-f,--filename", validate_paths,
                   "A file, a directory (its *.yaml, *.yml, *.json) or - for stdin")
      ->required()
      ->take_all();
  std::string validate_config;
  validate->add_option("--config", validate_config,
                       "A KubeSchedulerConfiguration file, checked as simulate and run check it");

  // kubectl's --validate: what unknown and duplicate fields in the manifests are.
  std::string validate_fields = "strict";
  auto add_validate_flag = [&](CLI::App* sub) {
    sub->add_option("--validate", validate_fields,
                    "Unknown and duplicate fields in the manifests: strict (errors, as kubectl's "
                    "default), warn or ignore; a KubeSchedulerConfiguration is always strict")
        ->check(
            [](const std::string& v) {
              return muster::api::ParseFieldValidation(v)
                         ? std::string()
                         : "must be strict, warn or ignore (or kubectl's true or false)";
            },
            "strict|warn|ignore")
        ->default_val("strict");
  };
  add_validate_flag(validate);

  muster::cli::SimulateFlags simulate_flags;
  CLI::App* simulate = app.add_subcommand(
      "simulate",
      "Schedule manifests on an in-memory cluster with a virtual clock and print the outcome");
  simulate
      ->add_option("-f,--filename", simulate_flags.paths,
                   "Manifests: a file, a directory or - for stdin (repeatable); without it, "
                   "the built-in demo")
      ->take_all();
  simulate->add_option("--config", simulate_flags.config, "A KubeSchedulerConfiguration file");
  simulate->add_option("--until", simulate_flags.until,
                       "Stop at this virtual time (e.g. 90s) even if more could happen");
  simulate->add_option("-o,--output", simulate_flags.output, "table, wide, json or yaml");
  // Unsigned values: a negative one would wrap round rather than be refused.
  simulate->add_option("--seed", simulate_flags.seed, "Seed for tie-breaking and generated names")
      ->check(WholeNumber(0));
  simulate->add_flag("--check", simulate_flags.check,
                     "Check the scheduler's invariants after every event (no overcommitted node, "
                     "no pod bound against its filters or lost, no gang bound below minMember); "
                     "stop at the first broken one and exit 1");
  simulate
      ->add_option("--report", simulate_flags.report,
                   "Also write an HTML report of the run to FILE: pods over time, node "
                   "utilisation, PodGroup timelines, why pods are pending, the configuration. "
                   "One self-contained file with inline SVG charts: it loads nothing")
      ->type_name("FILE")
      ->check(kFileName);
  simulate
      ->add_option("--max-pods", simulate_flags.max_pods,
                   "Refuse input that asks for more pods in all (Pods, replicas, a Job's "
                   "completions); default: what half this machine's memory holds")
      ->check(WholeNumber(1));
  // The flags that read a live cluster once (simulate and explain).
  auto add_cluster_flags = [&](CLI::App* cmd, std::string& kubeconfig, std::string& context,
                               std::string& save_snapshot,
                               std::vector<std::string>& scheduler_names) {
    cmd->add_option("--kubeconfig", kubeconfig,
                    "Read a live cluster through this kubeconfig, once and read-only, and "
                    "simulate it with the -f manifests: its nodes, its pods (bound ones keep "
                    "their nodes, pending ones are scheduled) and what the scheduler reads");
    cmd->add_option("--context", context, "The kubeconfig context to read (with --kubeconfig)");
    cmd->add_option("--save-snapshot", save_snapshot,
                    "Write what was read from the cluster to FILE, a JSON List that -f reads "
                    "back to the same simulation (with --kubeconfig)")
        ->type_name("FILE")
        ->check(kFileName);
    cmd->add_option("--scheduler-name", scheduler_names,
                    "Keep only the cluster's pending pods of this schedulerName (repeatable; "
                    "with --kubeconfig; default: all of them)");
  };
  add_cluster_flags(simulate, simulate_flags.kubeconfig, simulate_flags.context,
                    simulate_flags.save_snapshot, simulate_flags.scheduler_names);

  add_validate_flag(simulate);

  muster::cli::ExplainFlags explain_flags;
  CLI::App* explain = app.add_subcommand(
      "explain",
      "Simulate as `simulate` does and show one pod's last scheduling attempt: each node's "
      "Filter verdicts, each plugin's scores, the node chosen or why none was, preemption, "
      "and its PodGroup");
  explain->add_option("pod", explain_flags.pod, "The pod: NAME or NAMESPACE/NAME");
  explain
      ->add_option("-f,--filename", explain_flags.input.paths,
                   "Manifests: a file, a directory or - for stdin (repeatable); without it, "
                   "the built-in demo")
      ->take_all();
  explain->add_option("--config", explain_flags.input.config, "A KubeSchedulerConfiguration file");
  explain->add_option("--until", explain_flags.input.until,
                      "Stop at this virtual time (e.g. 90s): the last attempt before it");
  // --seed and --max-pods, as simulate's (explain and capacity).
  auto add_seed_and_max_pods = [&](CLI::App* cmd, muster::cli::SimulationInput& input) {
    cmd->add_option("--seed", input.seed,
                    "Seed for tie-breaking and generated names (as simulate's)")
        ->check(WholeNumber(0));
    cmd->add_option("--max-pods", input.max_pods,
                    "Refuse input that asks for more pods in all (as simulate's)")
        ->check(WholeNumber(1));
  };
  add_seed_and_max_pods(explain, explain_flags.input);
  explain->add_option("-o,--output", explain_flags.output, "table or json");
  explain
      ->add_option("--top", explain_flags.top,
                   "Nodes shown in the tables (the best scored; rejected nodes beyond it are "
                   "summarised by reason); -o json has every node")
      ->check(WholeNumber(0));
  add_cluster_flags(explain, explain_flags.input.kubeconfig, explain_flags.input.context,
                    explain_flags.input.save_snapshot, explain_flags.input.scheduler_names);

  add_validate_flag(explain);

  muster::cli::CapacityFlags capacity_flags;
  CLI::App* capacity = app.add_subcommand(
      "capacity",
      "Count how many more copies of a pod, or of a whole gang, the cluster holds now: where "
      "they go, and why the next one does not fit");
  capacity->add_option("template", capacity_flags.template_path,
                       "The pod to count copies of (a file, or - for stdin), or a gang: a "
                       "PodGroup with its pods (one pod stands for its whole quorum)");
  // One value an -f (repeatable), so that `capacity -f cluster/ web.yaml` leaves the template
  // its own.
  capacity
      ->add_option("-f,--filename", capacity_flags.input.paths,
                   "The cluster: a file, a directory or - (repeatable); without it or "
                   "--kubeconfig, the built-in demo's")
      ->allow_extra_args(false);
  capacity->add_option("--config", capacity_flags.input.config,
                       "A KubeSchedulerConfiguration file");
  capacity->add_option("--until", capacity_flags.input.until,
                       "Stop the simulation at this virtual time (as simulate's)");
  add_seed_and_max_pods(capacity, capacity_flags.input);
  capacity
      ->add_option("--max", capacity_flags.max,
                   "Try at most this many copies (default: as many as the free resources "
                   "could hold, and one more)")
      ->check(WholeNumber(1));
  capacity->add_option("-o,--output", capacity_flags.output, "table or json");
  add_cluster_flags(capacity, capacity_flags.input.kubeconfig, capacity_flags.input.context,
                    capacity_flags.input.save_snapshot, capacity_flags.input.scheduler_names);
  add_validate_flag(capacity);

  muster::cli::CompareFlags compare_flags;
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Simulate the same cluster and workload on two sides, A and B (two scheduler "
      "configurations, or objects of their own), and show what differs: placements, pending "
      "pods and why, gangs' time to quorum, utilisation by node and label, preemptions");
  compare
      ->add_option("-f,--filename", compare_flags.input.paths,
                   "What both sides simulate: a file, a directory or - (repeatable); without "
                   "it or --kubeconfig, the built-in demo")
      ->take_all();
  compare
      ->add_option("--config", compare_flags.configs,
                   "A KubeSchedulerConfiguration file: give it twice, A's then B's (once: both "
                   "sides')")
      ->allow_extra_args(false);
  compare
      ->add_option("--a-file", compare_flags.a_files,
                   "Objects of side A only: each takes the place of the input's object of the "
                   "same kind, namespace and name, or is added (repeatable)")
      ->allow_extra_args(false);
  compare
      ->add_option("--b-file", compare_flags.b_files,
                   "Objects of side B only, as --a-file (repeatable)")
      ->allow_extra_args(false);
  compare
      ->add_option("--seeds", compare_flags.seeds,
                   "Run each side with this many seeds (--seed on) and compare what differs "
                   "beyond what the tie-breaking seed moves (default 1)")
      ->check(WholeNumber(1));
  add_seed_and_max_pods(compare, compare_flags.input);
  compare->add_option("--until", compare_flags.input.until,
                      "Stop each run at this virtual time (as simulate's)");
  compare
      ->add_option("--label", compare_flags.labels,
                   "A node label to total utilisation by (repeatable), besides "
                   "topology.kubernetes.io/zone and node.kubernetes.io/instance-type")
      ->allow_extra_args(false);
  compare->add_option("-o,--output", compare_flags.output, "table or json");
  compare
      ->add_option("--report", compare_flags.report,
                   "Also write an HTML page: the comparison's tables, then each side's first run "
                   "as simulate's report shows it, in two columns")
      ->type_name("FILE")
      ->check(kFileName);
  add_cluster_flags(compare, compare_flags.input.kubeconfig, compare_flags.input.context,
                    compare_flags.input.save_snapshot, compare_flags.input.scheduler_names);
  add_validate_flag(compare);

  muster::cli::BenchFlags bench_flags;
  CLI::App* bench = app.add_subcommand(
      "bench",
      "Run upstream scheduler_perf's workloads and the gang workloads on an in-memory "
      "cluster and print the scheduling throughput");
  bench
      ->add_option("workloads", bench_flags.workloads,
                   "Workloads to run (default: all but those at scale)")
      ->take_all();
  bench->add_option("--nodes", bench_flags.nodes, "Scale the runs to this many nodes");
  bench->add_option("--pods", bench_flags.pods, "Scale the runs to this many measured pods");
  bench->add_option("-o,--output", bench_flags.output, "table or json");
  bench->add_flag("--list", bench_flags.list,
                  "List the workloads with their shape (nodes, measured pods, profile, upstream's "
                  "threshold, muster's target) and run nothing");
  bench->add_option("--gang-mode", bench_flags.gang_mode,
                    "Coscheduling's mode in the gang workloads: Group (the default) or PerPod");

  muster::cli::RunFlags run_flags;
  CLI::App* run = app.add_subcommand(
      "run",
      "Schedule a real cluster through its API server: the pods whose spec.schedulerName names "
      "one of the configuration's profiles");
  run->footer(
      "Beside kube-scheduler (a second scheduler): give muster a profile of its own name and its "
      "own Lease,\n"
      "as examples/config/second-scheduler.yaml does (schedulerName: muster), and set\n"
      "spec.schedulerName: muster on the pods it should place; the others stay kube-scheduler's:\n"
      "  muster run --kubeconfig ~/.kube/config --config examples/config/second-scheduler.yaml\n"
      "Without --config muster is the default-scheduler profile: it replaces kube-scheduler.\n"
      "In a cluster: kubectl apply -f deploy/ (its ServiceAccount, RBAC, config and Deployment).");
  run->add_option("--kubeconfig", run_flags.kubeconfig,
                  "A kubeconfig (default: KUBECONFIG, ~/.kube/config, then in-cluster)");
  run->add_option("--context", run_flags.context, "The kubeconfig context to use");
  run->add_option("--config", run_flags.config, "A KubeSchedulerConfiguration file");
  bool leader_elect = true;
  CLI::Option* leader_elect_flag =
      run->add_option("--leader-elect", leader_elect,
                      "Take part in leader election on a Lease before scheduling (default: the "
                      "configuration's leaderElection.leaderElect, true)")
          ->expected(0, 1)
          ->default_str("true");
  // kube-scheduler's --leader-elect-* flags: each one given wins over the configuration's.
  const std::vector<muster::cli::LeaderElectFlag>& leader_table = muster::cli::LeaderElectFlags();
  std::vector<std::string> leader_values(leader_table.size());
  std::vector<CLI::Option*> leader_flags;
  for (size_t i = 0; i < leader_table.size(); ++i) {
    leader_flags.push_back(run->add_option(std::string(leader_table[i].flag), leader_values[i],
                                           std::string(leader_table[i].help)));
  }
  double kube_api_qps = 0;
  int kube_api_burst = 0;
  CLI::Option* qps_flag =
      run->add_option("--kube-api-qps", kube_api_qps,
                      "Requests a second to the API server (default 50; ignored with --config, as "
                      "kube-scheduler ignores it: set clientConnection.qps)");
  CLI::Option* burst_flag =
      run->add_option("--kube-api-burst", kube_api_burst,
                      "Burst of requests to the API server (default 100; ignored with --config)");
  run->add_option("--secure-port", run_flags.secure_port,
                  "Serve /healthz, /livez, /readyz and /metrics over HTTPS on this port, "
                  "authenticated and authorized by the API server (0: not at all)")
      ->default_val(10259);
  run->add_option("--bind-address", run_flags.bind_address,
                  "The address the secure port listens on")
      ->default_val("0.0.0.0");
  run->add_option("--tls-cert-file", run_flags.tls_cert_file,
                  "The serving certificate (PEM, with its chain); without it, a self-signed one");
  run->add_option("--tls-private-key-file", run_flags.tls_private_key_file,
                  "The serving certificate's private key (PEM)");
  run->add_option("--authentication-kubeconfig", run_flags.authentication_kubeconfig,
                  "A kubeconfig for the TokenReviews that authenticate requests (default: the "
                  "scheduler's own connection)");
  run->add_option("--authorization-kubeconfig", run_flags.authorization_kubeconfig,
                  "A kubeconfig for the SubjectAccessReviews that authorize requests (default: "
                  "the scheduler's own connection)");
  run->add_option("--authorization-always-allow-paths", run_flags.always_allow_paths,
                  "Paths served without authentication or authorization")
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->default_str("/healthz,/readyz,/livez");
  run->add_option("--metrics-bind-address", run_flags.metrics_bind_address,
                  "Also serve the same paths over plain HTTP, without authentication, here "
                  "(host:port); only when given");
  run->add_option("-v,--v", run_flags.verbosity,
                  "Log verbosity, as klog's: 2 a line per bind and per unschedulable attempt, "
                  "3 each attempt, 4 queue moves, 6 each API request, 8 its headers (credentials "
                  "masked)");
  run->add_option("--logging-format", run_flags.logging_format, "text (klog's) or json")
      ->default_val("text");
  std::string feature_gates;
  for (CLI::App* sub : {validate, simulate, explain, capacity, compare, bench, run}) {
    sub->set_version_flag("--version", kVersion, "Print the version and exit");
    sub->add_option("--feature-gates", feature_gates,
                    "Kubernetes feature gates as kube-scheduler takes them (key=value pairs, "
                    "comma-separated); 1.37's defaults otherwise, see the README's \"Which "
                    "Kubernetes\"");
  }

  try {
    std::vector<std::string> args = Arguments(argc, argv);
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : muster::cli::kExitBadInput;
  }
  if (version->parsed()) {
    std::cout << kVersion << "\n";
    return 0;
  }
  if (completion->parsed()) {
    return muster::cli::WriteCompletion(app, completion_shell, std::cout)
               ? 0
               : muster::cli::kExitBadInput;
  }
  // The gates are the process's before anything is decoded or scheduled (upstream's
  // DefaultFeatureGate, set from --feature-gates).
  if (!feature_gates.empty()) {
    muster::api::FeatureGates gates = muster::api::Features();
    std::string error;
    std::vector<std::string> warnings;
    if (!gates.Apply(feature_gates, &error, &warnings)) {
      std::cerr << "error: --feature-gates: " << error << "\n";
      return muster::cli::kExitBadInput;
    }
    for (const std::string& w : warnings) std::cerr << "warning: " << w << "\n";
    muster::api::SetFeatures(gates);
  }
  const muster::api::FieldValidation field_validation =
      *muster::api::ParseFieldValidation(validate_fields);
  simulate_flags.field_validation = field_validation;
  explain_flags.input.field_validation = field_validation;
  capacity_flags.input.field_validation = field_validation;
  compare_flags.input.field_validation = field_validation;
  if (leader_elect_flag->count() > 0) run_flags.leader_elect = leader_elect;
  for (size_t i = 0; i < leader_table.size(); ++i) {
    if (leader_flags[i]->count() > 0) run_flags.*leader_table[i].value = leader_values[i];
  }
  if (qps_flag->count() > 0) run_flags.kube_api_qps = kube_api_qps;
  if (burst_flag->count() > 0) run_flags.kube_api_burst = kube_api_burst;

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
      // Two names that are not files: two pods, or a file that does not exist.
      if (paths.size() > 1 && paths.back() != "-" && !std::filesystem::exists(paths.back())) {
        std::cerr << fmt::format(
            "error: explain: \"{}\" is no file, and explain takes one POD (here \"{}\"): "
            "explain one pod at a time\n",
            paths.back(), explain_flags.pod);
        return muster::cli::kExitBadInput;
      }
    }
    if (explain_flags.pod.empty()) {
      std::cerr << "error: explain: POD is required (NAME or NAMESPACE/NAME)\n";
      return muster::cli::kExitBadInput;
    }
    explain_flags.progress = muster::cli::StderrIsTerminal();
    return muster::cli::RunExplain(explain_flags, std::cin, std::cout, std::cerr);
  }
  if (capacity->parsed()) {
    return muster::cli::RunCapacity(capacity_flags, std::cin, std::cout, std::cerr);
  }
  if (compare->parsed()) {
    compare_flags.progress = muster::cli::StderrIsTerminal();
    return muster::cli::RunCompare(compare_flags, std::cin, std::cout, std::cerr);
  }
  if (bench->parsed()) {
    bench_flags.progress = muster::cli::StderrIsTerminal();
    return muster::cli::RunBench(bench_flags, std::cout, std::cerr);
  }
  if (validate->parsed()) {
    return muster::cli::RunValidate(validate_paths, validate_config, field_validation, std::cin,
                                    std::cout, std::cerr);
  }
  return muster::cli::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  muster::cli::InstallOutOfMemoryHandler();
  // A failure no command expected is a message and exit status 1, not an abort.
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return muster::cli::kExitRuntimeError;
  }
}
