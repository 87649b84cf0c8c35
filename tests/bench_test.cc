// `muster bench` scaled down: every workload runs to the end with the real scheduler, places
// every pod it can, keeps gangs whole, and prints DESIGN.md's JSON. No timing is asserted.

#include "muster/cli/bench.h"

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "muster/bench/run_workload.h"
#include "muster/bench/workloads.h"
#include "muster/report/bench_output.h"

namespace muster::bench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr int32_t kNodes = 50;
constexpr int32_t kPods = 100;

RunOptions Small(int32_t pods = kPods) {
  RunOptions options;
  options.nodes = kNodes;
  options.pods = pods;
  return options;
}

class EveryWorkloadTest : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryWorkloadTest, RunsToTheEndWithEverySchedulablePodBound) {
  const Workload* w = FindWorkload(GetParam());
  ASSERT_NE(w, nullptr);
  const Result r = RunWorkload(*w, Small());
  EXPECT_THAT(r.errors, ::testing::IsEmpty());
  EXPECT_EQ(r.workload, w->name);
  EXPECT_GT(r.measured_pods, 0);
  EXPECT_GT(r.nodes, 0);
  EXPECT_GT(r.attempts, 0u);
  EXPECT_GT(r.seconds, 0);
  EXPECT_GT(r.peak_rss_bytes, 0);
  if (w->name != "GangContended") {
    EXPECT_EQ(r.measured_pods, r.created_pods);
  }
}

std::vector<std::string> Names() {
  std::vector<std::string> names;
  for (const Workload& w : Workloads()) names.push_back(w.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Bench, EveryWorkloadTest, ::testing::ValuesIn(Names()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(BenchWorkloadsTest, MirrorUpstreamCounts) {
  struct Want {
    const char* name;
    int32_t nodes;
    int64_t initial;
    int64_t measured;
    std::optional<double> threshold;
  };
  const std::vector<Want> wants = {
      {"SchedulingBasic", 5000, 1000, 10000, 680},
      {"SchedulingPodAntiAffinity", 5000, 1000, 2000, 60},
      {"SchedulingPodAffinity", 5000, 5000, 5000, 35},
      {"SchedulingPreferredPodAffinity", 5000, 5000, 5000, 90},
      {"SchedulingNodeAffinity", 5000, 5000, 10000, 220},
      {"TopologySpreading", 5000, 5000, 5000, 460},
      {"PreferredTopologySpreading", 5000, 5000, 5000, 340},
      {"Unschedulable", 5000, 100, 10000, 590},
      {"SchedulingWhileGated", 1, 30000, 20000, 910},  // 10000 gated + 20000 deleted later
      {"PreemptionBasic", 1000, 4000, 1000, std::nullopt},
      {"SchedulingWithMixedChurn", 5000, 0, 10000, 710},
      {"GangBasic", 5000, 0, 16000, std::nullopt},
  };
  for (const Want& want : wants) {
    SCOPED_TRACE(want.name);
    const Workload* w = FindWorkload(want.name);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->upstream_threshold, want.threshold);
    int32_t nodes = 0;
    int64_t initial = 0, measured = 0;
    for (const Op& op : w->plan(w->default_nodes, w->default_pods)) {
      if (const auto* n = std::get_if<CreateNodes>(&op)) nodes += n->count;
      if (const auto* p = std::get_if<CreatePods>(&op))
        (p->measured ? measured : initial) += p->count;
    }
    EXPECT_EQ(nodes, want.nodes);
    EXPECT_EQ(initial, want.initial);
    EXPECT_EQ(measured, want.measured);
  }
}

// The two workloads at scale: SchedulingBasic's and GangBasic's plans at 50,000 nodes and a
// million measured pods, and the only ones `muster bench` skips unless named.
TEST(BenchWorkloadsTest, AtScaleAreTheBasicPlansAtFiftyThousandNodes) {
  std::vector<std::string> at_scale;
  for (const Workload& w : Workloads()) {
    if (w.at_scale) at_scale.push_back(w.name);
  }
  EXPECT_THAT(at_scale, ::testing::ElementsAre("SchedulingBasicAtScale", "GangBasicAtScale"));
  for (const auto& [name, basic] : {std::pair{"SchedulingBasicAtScale", "SchedulingBasic"},
                                    {"GangBasicAtScale", "GangBasic"}}) {
    SCOPED_TRACE(name);
    const Workload* w = FindWorkload(name);
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->plan, FindWorkload(basic)->plan);
    EXPECT_EQ(w->profile, FindWorkload(basic)->profile);
    EXPECT_EQ(w->default_nodes, 50000);
    EXPECT_EQ(w->default_pods, 1000000);
    EXPECT_FALSE(w->upstream_threshold.has_value());
    int64_t measured = 0;
    for (const Op& op : w->plan(w->default_nodes, w->default_pods)) {
      if (const auto* p = std::get_if<CreatePods>(&op); p != nullptr && p->measured)
        measured += p->count;
    }
    EXPECT_EQ(measured, 1000000);
  }
}

TEST(BenchWorkloadsTest, GangContendedOffersMoreThanFits) {
  const Workload* w = FindWorkload("GangContended");
  ASSERT_NE(w, nullptr);
  const std::vector<Op> ops = w->plan(w->default_nodes, w->default_pods);
  const auto& pods = std::get<CreatePods>(ops.back());
  ASSERT_TRUE(pods.expect_bound.has_value());
  EXPECT_EQ(pods.count, 18000);
  EXPECT_EQ(*pods.expect_bound, 15000);  // three 1200m pods on each of 5000 4-cpu nodes
}

TEST(BenchWorkloadsTest, GangContendedKeepsGroupsWholeWhenSomeCannotFit) {
  // 50 nodes hold 150 pods; 200 pods asked: a 16-pod group finds 6 free slots and must wait.
  const Result r = RunWorkload(*FindWorkload("GangContended"), Small(200));
  EXPECT_THAT(r.errors, ::testing::IsEmpty());
  EXPECT_EQ(r.created_pods, 208);
  EXPECT_EQ(r.measured_pods, 144);
}

TEST(BenchWorkloadsTest, GangContendedMayFillTheClusterWithOtherGroupsThanPredicted) {
  // 160 nodes hold 480 pods, and a first-fit pass in group order predicts all 480 bound. The
  // scheduler re-sorts groups that failed, places another set of whole groups and stops 4 pods
  // short, with room left for no group (the smallest has 8): the phase is done, not stalled.
  RunOptions options;
  options.nodes = 160;
  options.pods = 576;
  const Result r = RunWorkload(*FindWorkload("GangContended"), options);
  EXPECT_THAT(r.errors, ::testing::IsEmpty());
  EXPECT_GE(r.measured_pods, 480 - 7);
  EXPECT_LE(r.measured_pods, 480);
}

TEST(BenchWorkloadsTest, TemplatesMatchUpstream) {
  const api::Node node = MakeNode(NodeTemplate::kDefault, "scheduler-perf-abcde");
  EXPECT_EQ(node.status.allocatable.Get("cpu")->MilliValue(), 4000);
  EXPECT_EQ(node.status.allocatable.Get("memory")->Value(), int64_t{32} << 30);
  EXPECT_EQ(node.status.allocatable.Get("pods")->Value(), 110);
  EXPECT_EQ(node.metadata.labels.Get(api::Symbol("kubernetes.io/hostname"))->str(),
            "scheduler-perf-abcde");

  const api::Pod pod = MakePod(PodTemplate::kDefault, "pod-abcde", "namespace-1");
  ASSERT_EQ(pod.spec.containers.size(), 1u);
  EXPECT_EQ(pod.spec.containers[0].resources.requests.Get("cpu")->MilliValue(), 100);
  EXPECT_EQ(pod.spec.containers[0].resources.requests.Get("memory")->Value(), 500 << 20);

  const api::Pod anti = MakePod(PodTemplate::kWithPodAntiAffinity, "a", "sched-1");
  ASSERT_TRUE(anti.spec.affinity && anti.spec.affinity->pod_anti_affinity);
  const api::PodAffinityTerm& term = anti.spec.affinity->pod_anti_affinity->required.at(0);
  EXPECT_EQ(term.topology_key.str(), "kubernetes.io/hostname");
  EXPECT_EQ(term.namespaces.size(), 2u);

  const api::Pod spread = MakePod(PodTemplate::kWithTopologySpreading, "s", "namespace-2");
  ASSERT_EQ(spread.spec.topology_spread_constraints.size(), 1u);
  EXPECT_EQ(spread.spec.topology_spread_constraints[0].max_skew, 5);

  EXPECT_EQ(MakePod(PodTemplate::kHighPriorityLargeCpu, "h", "n").Priority(), 10);
  EXPECT_FALSE(MakePod(PodTemplate::kGated, "g", "n").spec.scheduling_gates.empty());
}

TEST(BenchOutputTest, JsonFollowsTheContract) {
  std::vector<Result> results = {RunWorkload(*FindWorkload("SchedulingBasic"), Small()),
                                 RunWorkload(*FindWorkload("GangBasic"), Small())};
  std::ostringstream out;
  report::PrintJson(results, out);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  ASSERT_TRUE(doc.contains("results"));
  ASSERT_EQ(doc["results"].size(), 2u);
  const std::set<std::string> want = {
      "workload",      "nodes",        "initialPods",  "measuredPods", "seconds",
      "podsPerSecond", "p50LatencyMs", "p99LatencyMs", "peakRssBytes", "upstreamThreshold",
      "attempts",      "target",       "belowTarget"};  // muster's additions
  for (const nlohmann::json& r : doc["results"]) {
    std::set<std::string> keys;
    for (const auto& [key, value] : r.items()) keys.insert(key);
    EXPECT_EQ(keys, want);
    EXPECT_TRUE(r["seconds"].is_number());
    EXPECT_TRUE(r["podsPerSecond"].is_number_integer());
    EXPECT_TRUE(r["peakRssBytes"].is_number_integer());
  }
  EXPECT_EQ(doc["results"][0]["workload"], "SchedulingBasic");
  EXPECT_EQ(doc["results"][0]["nodes"], kNodes);
  EXPECT_EQ(doc["results"][0]["measuredPods"], kPods);
  EXPECT_EQ(doc["results"][0]["upstreamThreshold"], 680);
  // Every measured pod of SchedulingBasic fits on its first attempt.
  EXPECT_EQ(doc["results"][0]["attempts"], kPods);
  EXPECT_TRUE(doc["results"][1]["upstreamThreshold"].is_null());
  // muster's target: 30x upstream's threshold, and whether the run fell short of it.
  EXPECT_EQ(doc["results"][0]["target"], 20400);
  EXPECT_EQ(doc["results"][0]["belowTarget"],
            doc["results"][0]["podsPerSecond"].get<int64_t>() < 20400);
}

// The table marks a result below its target and says what its columns mean.
TEST(BenchOutputTest, TableMarksShortfallsAndExplainsItsColumns) {
  Result fast = RunWorkload(*FindWorkload("SchedulingBasic"), Small());
  Result slow = fast;
  slow.workload = "Slow";
  slow.pods_per_second = *slow.target / 2;
  fast.pods_per_second = *fast.target * 2;
  std::ostringstream out;
  const std::vector<Result> results = {fast, slow};
  report::PrintTable(results, out);
  const std::string text = out.str();
  auto row = [&](const std::string& workload) {
    const size_t at = text.find("\n" + workload + " ");
    return at == std::string::npos ? std::string()
                                   : text.substr(at + 1, text.find('\n', at + 1) - at - 1);
  };
  EXPECT_THAT(row("SchedulingBasic"), HasSubstr(" 2.0x "));
  EXPECT_THAT(row("SchedulingBasic"), Not(HasSubstr("*")));
  EXPECT_THAT(row("Slow"), HasSubstr(" 0.5x* "));
  EXPECT_THAT(text, HasSubstr("* below its target"));
  EXPECT_THAT(text, HasSubstr("PEAK RSS: the process's peak resident memory so far"));
  EXPECT_THAT(text, HasSubstr("B/POD: resident memory added from then to the end of the run, per "
                              "pod created"));
}

TEST(BenchCommandTest, UnknownWorkloadIsBadUsageAndListsTheNames) {
  cli::BenchFlags flags;
  flags.workloads = {"NoSuchWorkload"};
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunBench(flags, out, err), 2);
  EXPECT_THAT(err.str(), HasSubstr("unknown workload \"NoSuchWorkload\""));
  EXPECT_THAT(err.str(), HasSubstr("SchedulingBasic"));
  EXPECT_THAT(err.str(), HasSubstr("GangContended"));
}

TEST(BenchCommandTest, PrintsJsonForTheChosenWorkloads) {
  cli::BenchFlags flags;
  flags.workloads = {"TopologySpreading"};
  flags.nodes = kNodes;
  flags.pods = kPods;
  flags.output = "json";
  std::ostringstream out, err;
  EXPECT_EQ(cli::RunBench(flags, out, err), 0) << err.str();
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["workload"], "TopologySpreading");
}

}  // namespace
}  // namespace muster::bench
