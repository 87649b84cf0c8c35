// Whole-program tests: run the muster binary as a user would and check exit status and output.

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "program.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using muster::testing::CommandResult;
using muster::testing::Doc;
using muster::testing::kRoot;
using muster::testing::Muster;
using muster::testing::RunCommand;

// Every match of `pattern` in `text`.
std::set<std::string> AllMatches(const std::string& text, const std::string& pattern) {
  std::set<std::string> found;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    found.insert(it->str());
  }
  return found;
}

// --feature-gates on every command, as kube-scheduler takes it: a refusal exits 2 before anything
// runs; a gate muster switches changes what it decides.
TEST(FeatureGatesFlagTest, EveryCommandTakesItAndRefusesAsKubeSchedulerDoes) {
  const std::string demo = " -f " + kRoot + "/examples/coscheduling";
  for (const std::string& command : {"validate" + demo, "simulate" + demo, "explain nginx" + demo,
                                     std::string("bench --list")}) {
    SCOPED_TRACE(command);
    const CommandResult run = Muster(command + " --feature-gates=NoSuchGate=true");
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_THAT(run.output, HasSubstr("error: --feature-gates: unrecognized feature gate: "
                                      "NoSuchGate"));
  }
  const CommandResult locked =
      Muster("run --feature-gates InPlacePodVerticalScaling=false --kubeconfig /nonexistent");
  EXPECT_EQ(locked.status, 2) << locked.output;
  EXPECT_THAT(locked.output, HasSubstr("cannot set feature gate InPlacePodVerticalScaling to "
                                       "false, feature is locked to true"));
  const CommandResult internal =
      Muster("validate" + demo + " --feature-gates=SchedulerAsyncAPICalls=true");
  EXPECT_EQ(internal.status, 0) << internal.output;
  EXPECT_THAT(internal.output, HasSubstr("warning: --feature-gates: SchedulerAsyncAPICalls "
                                         "changes how kube-scheduler works"));
}

TEST(FeatureGatesFlagTest, PodLevelResourcesOffCountsTheContainers) {
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
      "  resources: {requests: {cpu: 2}}\n"
      "  containers: [{name: c, resources: {requests: {cpu: 500m}}}]\n";
  const std::string file = ::testing::TempDir() + "/muster-pod-level.yaml";
  std::ofstream(file) << pod;
  const CommandResult on = Muster("validate -f " + file);
  EXPECT_EQ(on.status, 0) << on.output;
  EXPECT_THAT(on.output, HasSubstr("requests cpu=2 "));
  const CommandResult off =
      Muster("validate -f " + file + " --feature-gates PodLevelResources=false");
  EXPECT_EQ(off.status, 0) << off.output;
  EXPECT_THAT(off.output, HasSubstr("requests cpu=500m "));
  EXPECT_THAT(off.output, HasSubstr("spec.resources: the PodLevelResources feature gate is off"));
  std::remove(file.c_str());
}

TEST(ValidateCommandTest, AcceptsTheSeedExamples) {
  CommandResult run = Muster("validate -f " + kRoot + "/examples/coscheduling -f " + kRoot +
                             "/examples/config/coscheduling.yaml");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("PodGroup"));
  EXPECT_THAT(run.output, HasSubstr("default/nginx"));
  EXPECT_THAT(run.output, HasSubstr("minMember 3"));
  EXPECT_THAT(run.output, HasSubstr("replicas 6 pod requests cpu=3,memory=500Mi priority 0"));
  EXPECT_THAT(run.output, HasSubstr("allocatable cpu=4,memory=8Gi,pods=110"));
  EXPECT_THAT(run.output, HasSubstr("6 object(s) valid"));
}

TEST(ValidateCommandTest, AcceptsEveryExampleDirectory) {
  for (const char* dir : {"coscheduling", "coscheduling-sigs", "config", "volumes", "extender",
                          "gangs", "dra", "capacity"}) {
    CommandResult run = Muster("validate -f " + kRoot + "/examples/" + dir);
    EXPECT_EQ(run.status, 0) << dir << "\n" << run.output;
  }
  // 1.37's alpha composite groups, with their gates; refused without them.
  const std::string composite = "validate -f " + kRoot + "/examples/composite";
  CommandResult run = Muster(
      composite + " --feature-gates CompositePodGroup=true,TopologyAwareWorkloadScheduling=true");
  EXPECT_EQ(run.status, 0) << run.output;
  run = Muster(composite);
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("spec.compositePodGroupTemplates: Forbidden: the "
                                    "CompositePodGroup feature gate is off"));
}

TEST(ValidateCommandTest, ReadsStdin) {
  CommandResult run = Muster("validate -f - < " + kRoot + "/examples/coscheduling/podgroup.yaml");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("1 object(s) valid"));
}

TEST(ValidateCommandTest, BadInputExitsTwoAndNamesFileDocumentAndField) {
  CommandResult run = Muster("validate -f " + kRoot + "/tests/data/bad/bad-quantity.yaml");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.output,
              HasSubstr("bad-quantity.yaml: document 2 (Pod default/web-1): "
                        "spec.containers[0].resources.requests.cpu: invalid quantity \"4 cores\""));
  EXPECT_THAT(run.output, HasSubstr("error(s)"));
  EXPECT_THAT(run.output, Not(HasSubstr("object(s) valid")));
}

TEST(ValidateCommandTest, OneBadFileRejectsEverything) {
  CommandResult run = Muster("validate -f " + kRoot + "/examples/coscheduling -f " + kRoot +
                             "/tests/data/bad/negative-min-member.yaml");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.output, HasSubstr("spec.minMember: Invalid value: -2"));
  EXPECT_THAT(run.output, Not(HasSubstr("default/nginx ")));
}

TEST(ValidateCommandTest, MalformedYaml) {
  CommandResult run = Muster("validate -f " + kRoot + "/tests/data/bad/malformed.yaml");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(
      run.output,
      HasSubstr("malformed.yaml: line 5, column 7: invalid YAML: end of sequence flow not found"));
}

TEST(ValidateCommandTest, MissingFile) {
  CommandResult run = Muster("validate -f /nonexistent/cluster.yaml");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.output, HasSubstr("/nonexistent/cluster.yaml: no such file or directory"));
}

// The error lines of a run (the lines starting "error: ").
std::string ErrorLines(const std::string& output) {
  std::string lines;
  size_t at = 0;
  while (at < output.size()) {
    size_t end = output.find('\n', at);
    if (end == std::string::npos) end = output.size();
    if (output.compare(at, 7, "error: ") == 0) lines += output.substr(at, end - at + 1);
    at = end + 1;
  }
  return lines;
}

// validate checks a configuration with the code simulate builds its scheduler with: the same
// errors, whether the configuration comes with --config or among the inputs.
TEST(ValidateCommandTest, RejectsEveryConfigurationSimulateRejects) {
  const struct {
    const char* file;
    const char* error;
  } cases[] = {
      {"negative-permit-wait.yaml",
       "profiles[0].pluginConfig[0].args.permitWaitingTimeSeconds: Invalid value: -10"},
      {"bad-plugin-args.yaml",
       "profiles[0].pluginConfig[0].args.podGroupRejectPercentage: Invalid value: 150"},
      {"unknown-plugin.yaml", "FilterPlugin \"NoSuchPlugin\" does not exist"},
  };
  for (const auto& c : cases) {
    const std::string config = kRoot + "/tests/data/bad/" + c.file;
    const std::string manifests = "-f " + kRoot + "/examples/coscheduling ";
    const CommandResult simulate = Muster("simulate " + manifests + "--config " + config);
    const CommandResult with_flag = Muster("validate " + manifests + "--config " + config);
    const CommandResult as_input = Muster("validate " + manifests + "-f " + config);
    EXPECT_EQ(simulate.status, 2) << c.file;
    EXPECT_THAT(simulate.output, HasSubstr(c.error)) << c.file;
    for (const CommandResult* v : {&with_flag, &as_input}) {
      EXPECT_EQ(v->status, 2) << c.file << "\n" << v->output;
      EXPECT_EQ(ErrorLines(v->output), ErrorLines(simulate.output)) << c.file;
      EXPECT_THAT(v->output, HasSubstr("error(s)\n"));
      EXPECT_THAT(v->output, Not(HasSubstr("object(s) valid")));
    }
  }
}

TEST(ValidateCommandTest, ChecksEveryConfigurationOfAFolder) {
  const CommandResult run = Muster("validate -f " + kRoot + "/examples/config -f " + kRoot +
                                   "/tests/data/bad/negative-permit-wait.yaml");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(ErrorLines(run.output), Not(HasSubstr("coscheduling")));
  EXPECT_THAT(run.output, HasSubstr("negative-permit-wait.yaml: document 1"));
}

TEST(SimulateCommandTest, RunsTheBuiltInDemoAndSaysSo) {
  CommandResult run = Muster("simulate -o json");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("running the built-in demo"));
  EXPECT_THAT(run.output, HasSubstr("\"running\": 3"));
  EXPECT_THAT(run.output, HasSubstr("\"pending\": 3"));
}

// The README's demo output is what `make demo` prints (line for line, in order; "..." stands for
// lines left out), so that the two cannot drift apart again.
TEST(SimulateCommandTest, TheReadmeShowsWhatTheDemoPrints) {
  const std::string s = Doc("README.md");
  const size_t intro = s.find("Three pods run and three stay Pending:");
  ASSERT_NE(intro, std::string::npos);
  const size_t open = s.find("```\n", intro);
  const size_t close = s.find("```", open + 4);
  ASSERT_NE(open, std::string::npos);
  ASSERT_NE(close, std::string::npos);
  std::istringstream block(s.substr(open + 4, close - open - 4));
  const CommandResult run = Muster("simulate");
  ASSERT_EQ(run.status, 0) << run.output;
  size_t at = 0;
  int lines = 0;
  for (std::string line; std::getline(block, line);) {
    if (line == "...") continue;
    const size_t found = run.output.find(line + "\n", at);
    ASSERT_NE(found, std::string::npos) << "README line not printed (in order): " << line << "\n"
                                        << run.output;
    at = found + line.size();
    ++lines;
  }
  EXPECT_GE(lines, 6);
}

// Every muster command of the Examples table (docs/simulating.md) runs from the checkout as
// written, ends well and warns of nothing (an example run without the configuration it needs
// would).
TEST(SimulateCommandTest, EveryExampleInTheDocsRunsAsWritten) {
  const std::string s = Doc("docs/simulating.md");
  const size_t begin = s.find("\n## Examples\n");
  ASSERT_NE(begin, std::string::npos);
  const size_t end = s.find("\n## ", begin + 1);
  std::istringstream section(s.substr(begin, end - begin));
  const std::string program = "./build/release/muster ";
  int commands = 0;
  for (std::string line; std::getline(section, line);) {
    if (!line.starts_with("| `examples/")) continue;
    // The command column: the row's second cell.
    const size_t first = line.find(" | ");
    const size_t second = line.find(" | ", first + 3);
    const std::string cell = line.substr(first + 3, second - first - 3);
    for (size_t at = cell.find("`" + program); at != std::string::npos;
         at = cell.find("`" + program, at + 1)) {
      const size_t close = cell.find('`', at + 1);
      std::string args = cell.substr(at + 1 + program.size(), close - at - 1 - program.size());
      if (cell.find("python3") != std::string::npos) continue;  // needs its extender running
      SCOPED_TRACE(args);
      // As from the checkout, wherever the test runs.
      for (size_t p = args.find(" examples/"); p != std::string::npos;
           p = args.find(" examples/", p + kRoot.size() + 2)) {
        args.insert(p + 1, kRoot + "/");
      }
      const CommandResult run = Muster(args);
      EXPECT_EQ(run.status, 0) << run.output;
      EXPECT_EQ(run.output.find("warning:"), std::string::npos) << run.output;
      ++commands;
    }
  }
  EXPECT_GE(commands, 6);
}

// `bench --list`: every workload's shape, nothing run.
TEST(BenchCommandTest, ListsTheWorkloads) {
  const CommandResult run = Muster("bench --list");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("WORKLOAD"));
  EXPECT_THAT(run.output, ::testing::ContainsRegex("SchedulingBasic +5000 +10000 +default"));
  EXPECT_THAT(run.output, ::testing::ContainsRegex("GangBasic .* Coscheduling"));
  EXPECT_THAT(run.output,
              ::testing::ContainsRegex("GangBasicAtScale +50000 +1000000 +Coscheduling"));
  EXPECT_THAT(run.output, Not(HasSubstr("PODS/S")));
}

TEST(SimulateCommandTest, UnknownPluginNamesFileAndExitsTwo) {
  CommandResult run = Muster("simulate -f " + kRoot + "/examples/coscheduling --config " + kRoot +
                             "/tests/data/bad/unknown-plugin.yaml");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.output,
              HasSubstr("unknown-plugin.yaml: document 1 (KubeSchedulerConfiguration): "
                        "profiles[0] (default-scheduler): FilterPlugin \"NoSuchPlugin\" "
                        "does not exist"));
  EXPECT_THAT(run.output, HasSubstr("nothing was simulated"));
}

TEST(SimulateCommandTest, InvalidPluginArgNamesFileAndField) {
  CommandResult run = Muster("simulate -f " + kRoot + "/examples/coscheduling --config " + kRoot +
                             "/tests/data/bad/bad-plugin-args.yaml");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.output,
              HasSubstr("bad-plugin-args.yaml: document 1 (KubeSchedulerConfiguration): "
                        "profiles[0].pluginConfig[0].args.podGroupRejectPercentage: Invalid value: "
                        "150: must be between 0 and 100"));
}

TEST(SimulateCommandTest, BadManifestExitsTwo) {
  CommandResult run = Muster("simulate -f " + kRoot + "/tests/data/bad/bad-quantity.yaml");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.output, HasSubstr("invalid quantity \"4 cores\""));
}

// A cluster snapshot (simulate --kubeconfig --save-snapshot) holds what an API server admitted:
// its pod keeps the priority it was admitted with though its class is gone since, and a field
// newer than muster passes, while a manifest naming that class is refused as the server would.
TEST(SimulateCommandTest, ASnapshotsObjectsAreTakenAsTheServerAdmittedThem) {
  const std::string dir = kRoot + "/tests/data/snapshot/";
  CommandResult run = Muster("simulate -f " + dir + "cluster.json");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, ::testing::ContainsRegex("admitted +1/1 +Running .* n1"));
  CommandResult refused = Muster("simulate -f " + dir + "cluster.json -f " + dir + "new.yaml");
  EXPECT_EQ(refused.status, 2) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("new.yaml: document 1 (Pod default/not-admitted): "
                                        "spec.priorityClassName: no PriorityClass with name "
                                        "deleted-since was found"));
  EXPECT_THAT(refused.output, Not(HasSubstr("cluster.json:")));
}

// A running pod read from a cluster holds what the kubelet gave it: in the middle of a resize up
// from 1 cpu to 3 (its status says 3 are allocated and applied), it takes 3 of the node's 4, so
// a pending pod of 2 does not fit (with the spec's 1 it would).
TEST(SimulateCommandTest, ASnapshotsResizingPodHoldsWhatTheKubeletGaveIt) {
  CommandResult run = Muster("simulate -o wide -f " + kRoot + "/tests/data/snapshot/resize.json");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, ::testing::ContainsRegex("resizing +1/1 +Running .* n1 "));
  EXPECT_THAT(run.output, ::testing::ContainsRegex(
                              "pending +0/1 +Pending .* 0/1 nodes are available: 1 Insufficient "
                              "cpu\\."));
}

// The flags that read a live cluster need the cluster; a kubeconfig that cannot be used is bad
// input (2), before anything is read.
TEST(SimulateCommandTest, ReadingAClusterNeedsAUsableKubeconfig) {
  for (const std::string flag :
       {"--context x", "--save-snapshot /tmp/x.json", "--scheduler-name default-scheduler"}) {
    CommandResult run = Muster("simulate " + flag);
    EXPECT_EQ(run.status, 2) << flag;
    EXPECT_THAT(run.output, HasSubstr("reads a live cluster: give --kubeconfig too")) << flag;
  }
  CommandResult missing = Muster("simulate --kubeconfig " + kRoot + "/no/such/kubeconfig");
  EXPECT_EQ(missing.status, 2) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("error: --kubeconfig: "));
  EXPECT_THAT(missing.output, HasSubstr("nothing was simulated"));
}

// A number in a manifest does not decide how much memory muster takes: input that asks for more
// pods than --max-pods (by default what half the machine's memory holds) is refused up front,
// naming the object and field that ask for the most, and the limit can be raised.
TEST(SimulateCommandTest, InputAskingForMorePodsThanMaxPodsIsRefused) {
  const std::string bounded = kRoot + "/tests/data/bounded/";
  CommandResult replicas = Muster("simulate -f " + bounded + "replicas.yaml");
  EXPECT_EQ(replicas.status, 2);
  EXPECT_THAT(replicas.output,
              HasSubstr("replicas.yaml: document 2 (ReplicaSet default/web): spec.replicas: asks "
                        "for 2000000000 pods, more than --max-pods ("));
  EXPECT_THAT(replicas.output, HasSubstr("nothing was simulated"));
  CommandResult job = Muster("explain -f " + bounded + "job.yaml sweep-0");
  EXPECT_EQ(job.status, 2);
  EXPECT_THAT(job.output,
              HasSubstr("job.yaml: document 1 (Job default/sweep): spec.completions: asks for "
                        "2000000000 pods"));

  const std::string demo = kRoot + "/examples/coscheduling";
  CommandResult few = Muster("simulate -f " + demo + " --max-pods 2");
  EXPECT_EQ(few.status, 2);
  EXPECT_THAT(few.output, HasSubstr("more than --max-pods (2) allows"));
  EXPECT_EQ(Muster("simulate -f " + demo + " --max-pods 1000").status, 0);
  EXPECT_EQ(Muster("simulate -f " + demo + " --max-pods 0").status, 2);
}

// A pod explain cannot find is reported as of the time every other output gives the run's
// outcome (simulate's "time"), not as of the last retry after it.
TEST(ExplainCommandTest, AnUnknownPodIsMissingAsOfTheRunsOutcome) {
  // The built-in demo: its pending pods are retried after the cluster last changed.
  const CommandResult simulated =
      RunCommand(std::string(MUSTER_BINARY) + " simulate -o json 2>/dev/null");
  ASSERT_EQ(simulated.status, 0) << simulated.output;
  const std::string time = nlohmann::json::parse(simulated.output).at("time").get<std::string>();
  const CommandResult explained = Muster("explain no-such-pod");
  EXPECT_EQ(explained.status, 2);
  EXPECT_THAT(explained.output,
              HasSubstr("error: pod \"no-such-pod\" not found in the cluster at the end of the "
                        "run (" +
                        time + ")"));
}

// Pods named only by generateName are two pods, each with its own name, which validate,
// simulate and explain agree on.
TEST(SimulateCommandTest, PodsNamedByGenerateNameAreEachTheirOwn) {
  const std::string file = kRoot + "/tests/data/generate-name.yaml";
  auto names = [](const std::string& text) {
    return AllMatches(text, "job-[bcdfghjklmnpqrstvwxz2456789]{5}");
  };
  CommandResult simulated = Muster("simulate -f " + file);
  ASSERT_EQ(simulated.status, 0) << simulated.output;
  const std::set<std::string> pods = names(simulated.output);
  ASSERT_EQ(pods.size(), 2u) << simulated.output;
  EXPECT_EQ(std::count(simulated.output.begin(), simulated.output.end(), '\n'), 3)
      << "a header and two pods\n"
      << simulated.output;

  CommandResult validated = Muster("validate -f " + file);
  ASSERT_EQ(validated.status, 0) << validated.output;
  EXPECT_EQ(names(validated.output), pods) << validated.output;

  CommandResult explained = Muster("explain -f " + file + " " + *pods.begin());
  EXPECT_EQ(explained.status, 0) << explained.output;
  EXPECT_THAT(explained.output, HasSubstr("default/" + *pods.begin()));
}

// Flags a careful user gets wrong are refused, saying what is wrong, rather than taken in some
// other sense: a seed past 64 bits or below 0, an empty report file name, two pods to explain,
// an input with nothing in it; and bench says when --pods is more than the nodes hold.
TEST(FlagsTest, WhatCannotBeMeantIsRefusedAndSaid) {
  const std::string demo = " -f " + kRoot + "/examples/coscheduling";
  const CommandResult huge = Muster("simulate --seed 99999999999999999999999" + demo);
  EXPECT_EQ(huge.status, 2);
  EXPECT_THAT(huge.output, HasSubstr("--seed: 99999999999999999999999 is too large: the most is "
                                     "18446744073709551615"));
  const CommandResult negative = Muster("explain nginx --seed -1" + demo);
  EXPECT_EQ(negative.status, 2);
  EXPECT_THAT(negative.output, HasSubstr("--seed: -1 is not a whole number"));
  EXPECT_LT(negative.output.size(), 400u) << negative.output;
  const CommandResult top = Muster("explain nginx --top 1.5" + demo);
  EXPECT_EQ(top.status, 2);
  EXPECT_THAT(top.output, HasSubstr("--top: 1.5 is not a whole number"));
  EXPECT_EQ(Muster("simulate --seed 18446744073709551615" + demo).status, 0);

  const CommandResult report = Muster("simulate --report ''" + demo);
  EXPECT_EQ(report.status, 2);
  EXPECT_THAT(report.output, HasSubstr("--report: a file name is required"));

  const CommandResult two = Muster("explain" + demo + " nginx-a nginx-b");
  EXPECT_EQ(two.status, 2);
  EXPECT_THAT(two.output, HasSubstr("\"nginx-a\" is no file, and explain takes one POD (here "
                                    "\"nginx-b\")"));

  for (const std::string& command : {"simulate -f -", "validate -f -", "explain p -f -"}) {
    SCOPED_TRACE(command);
    const CommandResult empty = Muster(command + " </dev/null");
    EXPECT_EQ(empty.status, 2) << empty.output;
    EXPECT_THAT(empty.output, HasSubstr("<stdin>: no objects passed"));
  }

  const CommandResult bench = Muster("bench SchedulingBasic --nodes 2 --pods 500");
  EXPECT_EQ(bench.status, 0) << bench.output;
  EXPECT_THAT(bench.output, ::testing::ContainsRegex(
                                "warning: SchedulingBasic: measured [0-9]+ pods, not the 500 of "
                                "--pods: on 2 node\\(s\\) the workload holds no more"));
}

// A plugin's args with two problems are two errors, each on a line of its own, counted as two.
TEST(ValidateCommandTest, EachProblemOfAPluginsArgsIsAnErrorOfItsOwn) {
  const CommandResult run =
      Muster("validate -f " + kRoot + "/tests/data/coscheduling-two-bad-args.yaml");
  EXPECT_EQ(run.status, 2);
  EXPECT_THAT(run.output, ::testing::ContainsRegex(
                              "error: [^\n]*args.permitWaitingTimeSeconds: Invalid value: -1"));
  EXPECT_THAT(run.output, ::testing::ContainsRegex(
                              "error: [^\n]*args.podGroupBackoffSeconds: Invalid value: -5"));
  EXPECT_THAT(run.output, HasSubstr("2 error(s)"));
}

// A PodGroup with no gang plugin in any profile would be scheduled pod by pod without a word:
// one warning per run names it.
TEST(SimulateCommandTest, PodGroupWithoutAGangPluginIsWarnedOnce) {
  CommandResult run = Muster("simulate -f " + kRoot + "/tests/data/two-podgroups.yaml");
  EXPECT_EQ(run.status, 0) << run.output;
  const std::string warning = "warning: PodGroup default/";
  const size_t first = run.output.find(warning);
  ASSERT_NE(first, std::string::npos) << run.output;
  EXPECT_THAT(run.output.substr(first),
              HasSubstr("no profile enables a gang plugin (Coscheduling)"));
  EXPECT_EQ(run.output.find(warning, first + 1), std::string::npos) << run.output;

  run = Muster("simulate -f " + kRoot + "/examples/coscheduling --config " + kRoot +
               "/examples/config/coscheduling.yaml");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, Not(HasSubstr("gang plugin")));
}

// kubectl's --validate: a misspelt field is an error by default (the pod would otherwise run
// where its real nodeSelector forbids), a warning with warn, nothing with ignore.
TEST(FlagsTest, ValidateSaysWhatUnknownFieldsAre) {
  const std::string file = kRoot + "/tests/data/bad/unknown-field.yaml";
  const std::string error = "document 2 (Pod default/web): unknown field \"spec.nodeSelectr\"";
  for (const char* command : {"validate", "simulate", "explain web"}) {
    const CommandResult strict = Muster(std::string(command) + " -f " + file);
    EXPECT_EQ(strict.status, 2) << command << "\n" << strict.output;
    EXPECT_THAT(strict.output, HasSubstr("error: " + file + ": " + error)) << command;
    const CommandResult warn = Muster(std::string(command) + " --validate=warn -f " + file);
    EXPECT_EQ(warn.status, 0) << command << "\n" << warn.output;
    EXPECT_THAT(warn.output, HasSubstr("warning: " + file + ": " + error)) << command;
    const CommandResult ignore = Muster(std::string(command) + " --validate ignore -f " + file);
    EXPECT_EQ(ignore.status, 0) << command << "\n" << ignore.output;
    EXPECT_THAT(ignore.output, Not(HasSubstr("nodeSelectr"))) << command;
  }
  EXPECT_EQ(Muster("validate --validate=loose -f " + file).status, 2);
}

// Every error at once, manifests and configuration, with the total and a suggestion for each
// misspelt name: one mistake does not hide the next.
TEST(ValidateCommandTest, EveryErrorAtOnce) {
  const std::string config = kRoot + "/tests/data/bad/misspelt-config.yaml";
  const std::string manifests = kRoot + "/tests/data/bad/unknown-field.yaml";
  for (const std::string& command : {std::string("validate"), std::string("simulate")}) {
    const CommandResult run = Muster(command + " -f " + manifests + " --config " + config);
    EXPECT_EQ(run.status, 2) << command;
    const std::string errors = ErrorLines(run.output);
    EXPECT_THAT(errors, HasSubstr("unknown field \"spec.nodeSelectr\"; did you mean "
                                  "\"spec.nodeSelector\"?"))
        << command;
    EXPECT_THAT(errors, HasSubstr("unknown field \"percentageOfNodeToScore\"; did you mean "
                                  "\"percentageOfNodesToScore\"?"))
        << command;
    EXPECT_THAT(errors, HasSubstr("ScorePlugin \"NodeResourceFit\" does not exist; did you mean "
                                  "\"NodeResourcesFit\"?"))
        << command;
    EXPECT_THAT(errors, HasSubstr("ScorePlugin \"ImageLocalty\" does not exist; did you mean "
                                  "\"ImageLocality\"?"))
        << command;
    EXPECT_THAT(run.output, HasSubstr("4 error(s)")) << command << "\n" << run.output;
  }
  // Two configurations: both named.
  const CommandResult two = Muster("simulate -f " + kRoot + "/examples/config/coscheduling.yaml" +
                                   " --config " + kRoot + "/examples/config/second-scheduler.yaml");
  EXPECT_EQ(two.status, 2);
  EXPECT_THAT(two.output, HasSubstr("more than one KubeSchedulerConfiguration given (" + kRoot +
                                    "/examples/config/second-scheduler.yaml: document 1, " + kRoot +
                                    "/examples/config/coscheduling.yaml: document 1)"));
}

// A kind a letter from one muster models is a typo that would make its objects vanish.
TEST(ValidateCommandTest, MisspeltKindIsAnError) {
  const CommandResult run =
      Muster("validate -f - < " + kRoot + "/tests/data/bad/misspelt-kind.yaml");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("<stdin>: document 1: kind \"PodGrop\" is not one muster "
                                    "knows; did you mean \"PodGroup\"?"));
  // With --validate=warn it is a warning, and the object is skipped as any kind muster does not
  // model.
  const CommandResult warn =
      Muster("validate --validate=warn -f - < " + kRoot + "/tests/data/bad/misspelt-kind.yaml");
  EXPECT_EQ(warn.status, 0) << warn.output;
  EXPECT_THAT(warn.output, HasSubstr("warning: <stdin>: document 1: kind \"PodGrop\""));
}

// The flags in the table of `muster run`'s flags (docs/running.md) are exactly those `run --help`
// lists.
TEST(FlagsTest, TheDocumentedRunFlagsAreRunsFlags) {
  auto flags_in = [](const std::string& text) { return AllMatches(text, "--[a-z][a-z-]*[a-z]"); };
  const std::string s = Doc("docs/running.md");
  const size_t from = s.find("\n## Flags\n");
  const size_t table = s.find("\n| flag |", from);
  const size_t end = s.find("\n\n", table + 1);
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(table, std::string::npos);
  std::set<std::string> documented = flags_in(s.substr(table, end - table));
  std::set<std::string> parsed = flags_in(Muster("run --help").output);
  parsed.erase("--help");
  EXPECT_EQ(documented, parsed);
}

// Shell completion, generated from the flags that parse: run in bash as the shell would run it.
TEST(FlagsTest, CompletionOffersWhatParses) {
  auto complete = [](const std::string& shell, const std::string& words) {
    const std::string script =
        "source <(" + std::string(MUSTER_BINARY) + " completion " + shell + "); COMP_WORDS=(" +
        words + "); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); " + "_muster; echo \"${COMPREPLY[*]}\"";
    return RunCommand("bash -c '" + script + "'").output;
  };
  EXPECT_EQ(complete("bash", "muster si"), "simulate\n");
  EXPECT_EQ(complete("bash", "muster simulate --se"), "--seed\n");
  EXPECT_EQ(complete("bash", "muster run --leader-elect-re"),
            "--leader-elect-renew-deadline --leader-elect-retry-period "
            "--leader-elect-resource-lock --leader-elect-resource-name "
            "--leader-elect-resource-namespace\n");
  EXPECT_EQ(complete("bash", "muster bench GangB"), "GangBasic GangBasicAtScale\n");
  EXPECT_EQ(complete("bash", "muster bench SchedulingBasicA"), "SchedulingBasicAtScale\n");
  EXPECT_EQ(complete("bash", "muster simulate --validate w"), "warn\n");
  EXPECT_THAT(Muster("completion zsh").output, HasSubstr("bashcompinit"));
  EXPECT_EQ(Muster("completion fish").status, 2);
}

// kubectl's spellings: `-f=path` and `--flag=value` as well as `-f path`.
TEST(FlagsTest, ValuesAfterAnEqualsSign) {
  for (const std::string& flag : {"-f=", "--filename=", "-f "}) {
    CommandResult run = Muster("validate " + flag + kRoot + "/examples/coscheduling");
    EXPECT_EQ(run.status, 0) << flag << "\n" << run.output;
    EXPECT_THAT(run.output, HasSubstr("5 object(s) valid")) << flag;
  }
  CommandResult run = Muster("simulate --seed=7 -o=json -f=" + kRoot + "/examples/coscheduling");
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("\"pods\""));
}

TEST(FlagsTest, VersionEverywhere) {
  const CommandResult top = Muster("--version");
  EXPECT_EQ(top.status, 0);
  EXPECT_THAT(top.output, ::testing::StartsWith("muster "));
  EXPECT_THAT(top.output, HasSubstr("(commit "));
  for (const char* sub : {"version", "simulate --version", "validate --version", "run --version",
                          "bench --version", "explain --version"}) {
    const CommandResult run = Muster(sub);
    EXPECT_EQ(run.status, 0) << sub;
    EXPECT_EQ(run.output, top.output) << sub;
  }
}

// The commit is read when the binary is built, not when its build directory was configured:
// a binary built at the checkout's commit names it (`make test` builds before it tests).
TEST(FlagsTest, VersionNamesTheCommitBuilt) {
  const CommandResult head =
      RunCommand("git -C '" + kRoot + "' rev-parse --short=12 HEAD 2>/dev/null");
  const std::string commit =
      head.status == 0 && head.output.size() > 12 ? head.output.substr(0, 12) : "unknown";
  EXPECT_THAT(Muster("--version").output, HasSubstr("(commit " + commit));
}

TEST(ValidateCommandTest, UsageErrorsExitTwo) {
  // Out of range: an unsigned value would wrap round.
  EXPECT_EQ(Muster("simulate --seed -1").status, 2);
  EXPECT_EQ(Muster("simulate --seed=-1").status, 2);
  EXPECT_EQ(Muster("explain nginx-0 --top -1").status, 2);
  EXPECT_EQ(Muster("bench --nodes 0").status, 2);
  EXPECT_EQ(Muster("validate").status, 2);
  EXPECT_EQ(Muster("frobnicate").status, 2);
  EXPECT_EQ(Muster("--help").status, 0);
}

// --help names the program, and run's says how to run beside kube-scheduler.
TEST(HelpTest, NamesTheProgramAndTheSecondSchedulerSetup) {
  const auto help = Muster("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.output.find("Usage: muster [OPTIONS] SUBCOMMAND"), std::string::npos)
      << help.output;
  const auto run = Muster("run --help");
  EXPECT_EQ(run.status, 0);
  EXPECT_NE(run.output.find("Usage: muster run [OPTIONS]"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("examples/config/second-scheduler.yaml"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("spec.schedulerName: muster"), std::string::npos) << run.output;
}

// ---- capacity ----

// `text` written to a file of the test's own; its path.
std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/muster-cli-" + name;
  std::ofstream(path) << text;
  return path;
}

constexpr std::string_view kSmallPod = R"(apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: web
    image: nginx
    resources: {requests: {cpu: 500m, memory: 128Mi}}
)";

// The demo cluster runs three 3-CPU nginx pods on three 4-CPU nodes: one CPU is left on each, two
// 500m pods' worth. Six more fit, two a node; the seventh is turned away by every node's Fit.
TEST(CapacityCommandTest, CountsCopiesOfAPodOnTheDemoCluster) {
  const std::string pod = WriteTemp("web.yaml", std::string(kSmallPod));
  const CommandResult run = Muster("capacity " + pod);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("Pod default/web (1 pod, requesting cpu 500m, memory 128Mi) "
                                    "on 3 nodes:"));
  EXPECT_THAT(run.output, HasSubstr("  6 more fit\n"));
  EXPECT_THAT(run.output,
              HasSubstr("the 7th does not: 0/3 nodes are available: 3 Insufficient cpu."));
  for (const std::string node : {"node-1", "node-2", "node-3"}) {
    EXPECT_THAT(run.output,
                ::testing::ContainsRegex(node + " +2 +NodeResourcesFit: Insufficient cpu"));
  }

  const CommandResult json = Muster("capacity -o json " + pod);
  ASSERT_EQ(json.status, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"fit\": 6,"));
  // The demo's nginx pods come from a ReplicaSet: none is bound before the run, so the free CPUs
  // are taken to be all twelve, room for 24 copies at most; one more makes 25.
  EXPECT_THAT(json.output, HasSubstr("\"tried\": 25,"));
  EXPECT_THAT(json.output, HasSubstr("\"copy\": 7,"));
  EXPECT_THAT(json.output, HasSubstr("\"pod\": \"default/web-07\""));

  // The same cluster from its files, given before the template: each -f takes one value.
  const CommandResult from_files =
      Muster("capacity -f " + kRoot + "/examples/coscheduling --config " + kRoot +
             "/examples/config/coscheduling.yaml " + pod);
  ASSERT_EQ(from_files.status, 0) << from_files.output;
  EXPECT_THAT(from_files.output, HasSubstr("  6 more fit\n"));
  EXPECT_THAT(from_files.output, Not(HasSubstr("warning:")));

  // --max stops short, and says more may fit.
  const CommandResult capped = Muster("capacity --max 4 " + pod);
  ASSERT_EQ(capped.status, 0) << capped.output;
  EXPECT_THAT(capped.output, HasSubstr("  4 more fit\n"));
  EXPECT_THAT(capped.output, HasSubstr("more may fit: 4 copies were tried (--max)"));
}

// The demo's nginx pod (3 CPUs) on the demo cluster: none more, and why.
TEST(CapacityCommandTest, TheDemosNginxPodNoLongerFits) {
  const std::string pod = WriteTemp("nginx.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: nginx}
spec:
  containers:
  - name: nginx
    image: nginx
    resources: {requests: {cpu: 3000m, memory: 500Mi}}
)");
  const CommandResult run = Muster("capacity " + pod);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("  0 more fit\n"));
  EXPECT_THAT(run.output,
              HasSubstr("the 1st does not: 0/3 nodes are available: 3 Insufficient cpu."));
}

// A gang counts whole. A PodGroup of minMember 2 whose one pod asks for a CPU: the demo cluster's
// three free CPUs hold one gang (two pods); the second would have one member placed and one
// not, and counts as none.
TEST(CapacityCommandTest, AGangCountsWholeOrNotAtAll) {
  const std::string gang = WriteTemp("gang.yaml", R"(apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: train}
spec: {minMember: 2, scheduleTimeoutSeconds: 10}
---
apiVersion: v1
kind: Pod
metadata:
  name: worker
  labels: {scheduling.x-k8s.io/pod-group: train}
spec:
  containers:
  - name: worker
    image: trainer
    resources: {requests: {cpu: "1"}}
)");
  const CommandResult run = Muster("capacity " + gang);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("PodGroup default/train (2 pods, requesting cpu 2) on 3 "
                                    "nodes:"));
  EXPECT_THAT(run.output, HasSubstr("  1 more fit whole (2 pods)\n"));
  EXPECT_THAT(run.output, HasSubstr("the 2nd does not"));
  const CommandResult json = Muster("capacity -o json " + gang);
  ASSERT_EQ(json.status, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"fit\": 1,"));
  EXPECT_THAT(json.output, HasSubstr("\"pods\": 2,"));
  EXPECT_THAT(json.output, HasSubstr("\"copy\": 2,"));
}

// What is not one pod or one gang is refused, naming the template and the object.
TEST(CapacityCommandTest, ATemplateThatIsNotAPodOrAGangIsRefused) {
  const std::string deployment = WriteTemp("deployment.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
)");
  CommandResult run = Muster("capacity " + deployment);
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr(deployment));
  EXPECT_THAT(run.output, HasSubstr("a Deployment in the template"));

  const std::string two = WriteTemp(
      "two.yaml",
      std::string(kSmallPod) + "---\n" +
          std::regex_replace(std::string(kSmallPod), std::regex("name: web}"), "name: web-2}"));
  run = Muster("capacity " + two);
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("the template has 2 pods and no gang"));

  run = Muster("capacity");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("TEMPLATE"));
}

// ---- compare ----

// The runs' output only: what the program says on stderr is left out.
nlohmann::json CompareJson(const std::string& args, int* status = nullptr) {
  const CommandResult run =
      RunCommand(std::string(MUSTER_BINARY) + " compare -o json " + args + " 2>/dev/null");
  if (status != nullptr) *status = run.status;
  return nlohmann::json::parse(run.output, nullptr, false);
}

// A summary figure of the comparison: {"a": {...}, "b": {...}, "differs": ...}.
nlohmann::json Metric(const nlohmann::json& comparison, const std::string& name) {
  for (const nlohmann::json& m : comparison["summary"]) {
    if (m["metric"] == name) return m;
  }
  return nullptr;
}

// Seed 003's two examples side by side: the demo (minMember 3, three of six nginx pods run) and
// the same with minMember 4 (the cluster holds three: none runs).
TEST(CompareCommandTest, TheSeedDemoWithMinMemberThreeAndFour) {
  const std::string min4 = kRoot + "/examples/compare/nginx-min-member-4.yaml";
  const CommandResult run = Muster("compare --b-file " + min4);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("PodGroup default/nginx (" + min4 +
                                    ": document 1 replaces <built-in demo>: document 4)"));
  EXPECT_THAT(run.output, ::testing::ContainsRegex("\nbound +3 +0 +differs\n"));
  EXPECT_THAT(run.output, ::testing::ContainsRegex("\npending +3 +6 +differs\n"));
  EXPECT_THAT(run.output, ::testing::ContainsRegex("\ngangs at quorum +1 +0 +differs\n"));
  EXPECT_THAT(run.output, ::testing::ContainsRegex("\nattempts +6 +6\n"));
  EXPECT_THAT(run.output, HasSubstr("PODS THAT DIFFER (3 of 6 compared)"));
  EXPECT_THAT(run.output, HasSubstr("B pending, 3 of the pods that differ: 3/6 members fit "
                                    "(minMember 4)"));
  EXPECT_THAT(run.output, ::testing::ContainsRegex("default/nginx +3 +4 +3 +0 +0s +never"));
  // docs/simulating.md shows this run's output whole, as it is printed: the block's first line
  // is the command, the rest its output.
  const std::string page = Doc("docs/simulating.md");
  const size_t intro = page.find("`minMember: 4` (`examples/compare/nginx-min-member-4.yaml`):");
  ASSERT_NE(intro, std::string::npos);
  const size_t command = page.find("```console\n$ ", intro);
  ASSERT_NE(command, std::string::npos);
  const size_t begin = page.find('\n', command + 11) + 1;
  const size_t end = page.find("```\n", begin);
  ASSERT_NE(end, std::string::npos);
  // As run from the checkout: the page names the file from there.
  EXPECT_THAT(run.output, HasSubstr(std::regex_replace(page.substr(begin, end - begin),
                                                       std::regex("examples/compare/"),
                                                       kRoot + "/examples/compare/")));
  // The demo is said once, not once a side.
  EXPECT_EQ(run.output.find("running the built-in demo"),
            run.output.rfind("running the built-in demo"));

  int status = -1;
  const nlohmann::json c = CompareJson("--b-file " + min4, &status);
  ASSERT_EQ(status, 0);
  ASSERT_TRUE(c.is_object());
  EXPECT_EQ(c["kind"], "SimulationComparison");
  EXPECT_EQ(c["seeds"], nlohmann::json::array({0}));
  EXPECT_EQ(c["sides"][1]["files"], nlohmann::json::array({min4}));
  EXPECT_EQ(c["sides"][0]["replaced"].size(), 0u);
  EXPECT_EQ(c["sides"][1]["replaced"].size(), 1u);
  EXPECT_EQ(Metric(c, "bound")["a"]["mean"], 3);
  EXPECT_EQ(Metric(c, "bound")["b"]["mean"], 0);
  EXPECT_EQ(c["pods"]["compared"], 6);
  ASSERT_EQ(c["pods"]["items"].size(), 3u);
  std::set<std::string> nodes;
  for (const nlohmann::json& p : c["pods"]["items"]) {
    EXPECT_EQ(p["differs"], "binding");
    EXPECT_EQ(p["workload"], "ReplicaSet default/nginx");
    EXPECT_EQ(p["a"]["bound"], 1);
    ASSERT_EQ(p["a"]["nodes"].size(), 1u);
    nodes.insert(p["a"]["nodes"].begin().key());
    EXPECT_EQ(p["b"]["status"], "Pending");
    EXPECT_THAT(p["b"]["message"].get<std::string>(), HasSubstr("minMember 4"));
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"node-1", "node-2", "node-3"}));
  ASSERT_EQ(c["podGroups"].size(), 1u);
  EXPECT_EQ(c["podGroups"][0]["minCount"]["a"]["mean"], 3);
  EXPECT_EQ(c["podGroups"][0]["minCount"]["b"]["mean"], 4);
  EXPECT_TRUE(c["podGroups"][0]["quorumAfter"]["b"].is_null());
  // Every node runs one 3-CPU pod of its 4 on A, none on B.
  for (const nlohmann::json& n : c["nodes"]["items"]) {
    EXPECT_EQ(n["cpu"]["a"]["mean"], 75) << n.dump();
    EXPECT_EQ(n["cpu"]["b"]["mean"], 0) << n.dump();
    EXPECT_TRUE(n["differs"].get<bool>());
  }
}

// Spreading against bin packing (examples/compare): kube-scheduler's LeastAllocated puts the four
// 2-CPU web pods on four nodes and leaves no node free for the two 8-CPU training workers;
// MostAllocated packs them on one node and the gang runs.
TEST(CompareCommandTest, SpreadingAgainstBinPackingTwoConfigurations) {
  const std::string args = "-f " + kRoot + "/examples/compare/cluster.yaml --config " + kRoot +
                           "/examples/compare/spread.yaml --config " + kRoot +
                           "/examples/compare/bin-pack.yaml";
  int status = -1;
  const nlohmann::json c = CompareJson(args, &status);
  ASSERT_EQ(status, 0);
  ASSERT_TRUE(c.is_object());
  EXPECT_EQ(Metric(c, "bound")["a"]["mean"], 4);
  EXPECT_EQ(Metric(c, "bound")["b"]["mean"], 6);
  EXPECT_EQ(Metric(c, "gangsAtQuorum")["a"]["mean"], 0);
  EXPECT_EQ(Metric(c, "gangsAtQuorum")["b"]["mean"], 1);
  // 8 of 32 CPUs against 24 of 32.
  EXPECT_EQ(Metric(c, "cpu")["a"]["mean"], 25);
  EXPECT_EQ(Metric(c, "cpu")["b"]["mean"], 75);
  ASSERT_EQ(c["workloads"].size(), 1u);
  const nlohmann::json& web = c["workloads"][0];
  EXPECT_EQ(web["workload"], "Deployment default/web");
  int a_nodes = 0, b_nodes = 0;
  for (const nlohmann::json& n : web["nodes"]) {
    a_nodes += n["a"]["max"] > 0;
    b_nodes += n["b"]["max"] > 0;
    if (n["b"]["max"] > 0) {
      EXPECT_EQ(n["b"]["mean"], 4);
    }
  }
  EXPECT_EQ(a_nodes, 4);
  EXPECT_EQ(b_nodes, 1);
  // Utilisation by zone: the zones' label is found without --label.
  ASSERT_EQ(c["labels"].size(), 1u);
  EXPECT_EQ(c["labels"][0]["label"], "topology.kubernetes.io/zone");
  EXPECT_EQ(c["labels"][0]["values"].size(), 2u);
  for (const nlohmann::json& p : c["pods"]["items"]) {
    if (p["pod"].get<std::string>().starts_with("default/train-")) {
      EXPECT_EQ(p["differs"], "binding");
      EXPECT_EQ(p["a"]["bound"], 0);
    } else {
      EXPECT_EQ(p["differs"], "placement") << p.dump();
    }
  }

  // Over five seeds the web pods' names change with the seed: they are compared through their
  // Deployment, the training workers by name. Spreading puts one web pod a node in every run.
  const nlohmann::json seeds = CompareJson(args + " --seeds 5 --seed 7", &status);
  ASSERT_EQ(status, 0);
  EXPECT_EQ(seeds["seeds"], nlohmann::json::array({7, 8, 9, 10, 11}));
  EXPECT_EQ(seeds["pods"]["compared"], 2);
  for (const nlohmann::json& n : seeds["workloads"][0]["nodes"]) {
    EXPECT_EQ(n["a"], nlohmann::json({{"mean", 1.0}, {"min", 1.0}, {"max", 1.0}, {"runs", 5}}))
        << n.dump();
  }
  EXPECT_TRUE(Metric(seeds, "gangsAtQuorum")["differs"].get<bool>());

  // The table says the same; and the same input gives the same bytes.
  const CommandResult table = Muster("compare " + args);
  ASSERT_EQ(table.status, 0) << table.output;
  EXPECT_THAT(table.output, ::testing::ContainsRegex("\nbound +4 +6 +differs\n"));
  EXPECT_THAT(table.output, HasSubstr("BY topology.kubernetes.io/zone"));
  EXPECT_EQ(Muster("compare " + args).output, table.output);
}

// --report: one page with the comparison's tables and each side's report, ids their own.
TEST(CompareCommandTest, ReportHasTheComparisonAndBothSides) {
  const std::string page = ::testing::TempDir() + "/muster-compare.html";
  const CommandResult run = Muster("compare --b-file " + kRoot +
                                   "/examples/compare/nginx-min-member-4.yaml --report " + page);
  ASSERT_EQ(run.status, 0) << run.output;
  std::ifstream file(page);
  std::stringstream text;
  text << file.rdbuf();
  const std::string html = text.str();
  EXPECT_THAT(html, HasSubstr("<h1>muster compare</h1>"));
  EXPECT_THAT(html, HasSubstr("id=\"pods-differing\""));
  EXPECT_THAT(html, HasSubstr("id=\"a-nodes\""));
  EXPECT_THAT(html, HasSubstr("id=\"b-nodes\""));
  EXPECT_THAT(html, HasSubstr("<tr class=\"differs\">"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  const std::set<std::string> ids = AllMatches(html, " id=\"[^\"]+\"");
  size_t count = 0;
  for (size_t at = html.find(" id=\""); at != std::string::npos; at = html.find(" id=\"", at + 1)) {
    ++count;
  }
  EXPECT_EQ(ids.size(), count) << "an id is used twice";
}

// What compare refuses: sides that do not differ, a third --config, an unknown output, stdin
// twice, an --a-file that does not exist (named); each exits 2 and simulates nothing.
TEST(CompareCommandTest, RefusesSidesThatCannotBeCompared) {
  const std::string config = kRoot + "/examples/compare/spread.yaml";
  CommandResult run = Muster("compare");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("compare needs two sides that differ"));
  run = Muster("compare --config " + config);
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("compare needs two sides that differ"));
  run = Muster("compare --config " + config + " --config " + config + " --config " + config);
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--config: given 3 times"));
  run = Muster("compare -o yaml --config " + config + " --config " + config);
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("unknown output format \"yaml\""));
  run = Muster("compare -f - --a-file - < /dev/null");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("- (stdin) may be given once"));
  run = Muster("compare --a-file /nonexistent/side.yaml");
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("/nonexistent/side.yaml: no such file or directory"));
  EXPECT_THAT(run.output, HasSubstr("nothing was simulated"));
  run = Muster("compare --seeds 0 --config " + config + " --config " + config);
  EXPECT_EQ(run.status, 2) << run.output;
}

}  // namespace
