// The scheduler's Prometheus metrics, read as /metrics would serve them, after simulations: the
// same registry `muster run` serves, filled by the same code, without a cluster.

#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "muster/api/manifests.h"
#include "muster/cli/config_file.h"
#include "muster/plugins/registry.h"
#include "muster/sim/simulation.h"

namespace {

namespace fs = std::filesystem;

const fs::path kSource(MUSTER_SOURCE_DIR);

// Each sample of the text format by its series ("name{labels}", labels sorted as prometheus-cpp
// writes them), and its value.
std::map<std::string, double> Samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

// Simulates `manifests` (paths under the source tree) with `config` ("" for the default profile).
std::map<std::string, double> Simulate(const std::vector<std::string>& manifests,
                                       const std::string& config, std::string* text = nullptr) {
  std::vector<std::string> paths;
  for (const std::string& m : manifests) paths.push_back((kSource / m).string());
  std::istringstream no_stdin;
  muster::api::LoadResult loaded = muster::api::LoadManifests(paths, no_stdin);
  EXPECT_TRUE(loaded.ok()) << loaded.errors.front();
  std::vector<std::string> errors;
  std::optional<muster::api::SchedulerConfiguration> cfg;
  if (!config.empty()) {
    cfg = muster::cli::LoadConfigFile((kSource / config).string(), no_stdin, &errors);
    EXPECT_TRUE(cfg.has_value());
  }
  std::unique_ptr<muster::sim::Simulation> sim = muster::sim::Simulation::Create(
      std::move(loaded.manifests), cfg ? &*cfg : nullptr, muster::sim::SimulationOptions{.seed = 1},
      muster::plugins::InTreeRegistry(), muster::plugins::DefaultPlugins(), &errors);
  EXPECT_NE(sim, nullptr);
  if (sim == nullptr) return {};
  sim->Run();
  const std::string served = sim->scheduler().metrics().Text();
  if (text != nullptr) *text = served;
  return Samples(served);
}

double At(const std::map<std::string, double>& samples, const std::string& series) {
  auto it = samples.find(series);
  EXPECT_NE(it, samples.end()) << "no series " << series;
  return it == samples.end() ? -1 : it->second;
}

TEST(Metrics, TheSeedDemoCountsAttemptsQueuesAndTheGang) {
  std::string text;
  const auto m = Simulate({"examples/coscheduling"}, "examples/config/coscheduling.yaml", &text);
  // Three pods bound; the other three tried and turned away.
  EXPECT_EQ(
      At(m, R"(scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"})"),
      3);
  EXPECT_GE(
      At(m,
         R"(scheduler_schedule_attempts_total{profile="default-scheduler",result="unschedulable"})"),
      3);
  EXPECT_EQ(
      At(m, R"(scheduler_schedule_attempts_total{profile="default-scheduler",result="error"})"), 0);
  EXPECT_EQ(
      At(m,
         R"(scheduler_scheduling_attempt_duration_seconds_count{profile="default-scheduler",result="scheduled"})"),
      3);
  EXPECT_EQ(At(m, "scheduler_pod_scheduling_attempts_count"), 3);
  // Each bound pod on its first attempt, so all three SLI observations carry attempts="1".
  EXPECT_EQ(At(m, R"(scheduler_pod_scheduling_sli_duration_seconds_count{attempts="1"})"), 3);
  // Every pod entered the queue when it was created: the gang's first two members aside (held
  // at PreEnqueue, their PodGroup short of minMember 3), the others in activeQ; the third's
  // arrival made the gang whole and moved the two held ones to activeQ with it.
  EXPECT_EQ(At(m, R"(scheduler_queue_incoming_pods_total{event="PodAdd",queue="unschedulable"})"),
            2);
  EXPECT_EQ(At(m, R"(scheduler_queue_incoming_pods_total{event="PodAdd",queue="active"})"), 4);
  EXPECT_EQ(
      At(m, R"(scheduler_queue_incoming_pods_total{event="UnscheduledPodAdd",queue="active"})"), 2);
  EXPECT_GE(
      At(m,
         R"(scheduler_queue_incoming_pods_total{event="ScheduleAttemptFailure",queue="unschedulable"})"),
      3);
  // At the end the three left over wait for a cluster event; nothing else is queued.
  EXPECT_EQ(At(m, R"(scheduler_pending_pods{queue="unschedulable"})"), 3);
  EXPECT_EQ(At(m, R"(scheduler_pending_pods{queue="active"})"), 0);
  EXPECT_EQ(At(m, R"(scheduler_pending_pods{queue="gated"})"), 0);
  EXPECT_EQ(At(m, R"(scheduler_scheduler_cache_size{type="nodes"})"), 3);
  EXPECT_EQ(At(m, R"(scheduler_scheduler_cache_size{type="assumed_pods"})"), 0);
  // The gang, placed whole in one group cycle: one quorum, no group waiting, and Permit let
  // each of the three through at once, nothing held waiting.
  EXPECT_EQ(At(m, R"(muster_podgroup_time_to_quorum_seconds_count{profile="default-scheduler"})"),
            1);
  EXPECT_EQ(At(m, R"(muster_podgroup_time_to_quorum_seconds_sum{profile="default-scheduler"})"), 0);
  EXPECT_EQ(At(m, R"(muster_podgroups_waiting{profile="default-scheduler"})"), 0);
  EXPECT_EQ(
      At(m,
         R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Permit",profile="default-scheduler",status="Success"})"),
      3);
  EXPECT_EQ(text.find(R"(extension_point="Permit",profile="default-scheduler",status="Wait")"),
            std::string::npos);
  // Reserve once for each member placed: the other Reserve plugins as the member was placed,
  // Coscheduling's once the gang was whole, measured as one run of the point. The cycle was
  // sampled (below), so each plugin's calls were timed too.
  EXPECT_EQ(
      At(m,
         R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Reserve",profile="default-scheduler",status="Success"})"),
      3);
  EXPECT_EQ(
      At(m,
         R"(scheduler_plugin_execution_duration_seconds_count{extension_point="Reserve",plugin="VolumeBinding",status="Success"})"),
      3);
  EXPECT_EQ(
      At(m,
         R"(scheduler_plugin_execution_duration_seconds_count{extension_point="Reserve",plugin="Coscheduling",status="Success"})"),
      3);
  EXPECT_EQ(
      At(m,
         R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Bind",profile="default-scheduler",status="Success"})"),
      3);
  // The first cycle, the group's, is sampled: NodeResourcesFit passed the first member on all
  // three nodes, the second on the two left with room, the third on the last one.
  EXPECT_EQ(
      At(m,
         R"(scheduler_plugin_execution_duration_seconds_count{extension_point="Filter",plugin="NodeResourcesFit",status="Success"})"),
      3 + 2 + 1);
  // The text format: HELP and TYPE lines, cumulative buckets up to +Inf.
  EXPECT_NE(text.find("# TYPE scheduler_schedule_attempts_total counter"), std::string::npos);
  EXPECT_NE(text.find("# TYPE scheduler_pending_pods gauge"), std::string::npos);
  EXPECT_NE(text.find(R"(scheduler_pod_scheduling_attempts_bucket{le="+Inf"} 3)"),
            std::string::npos);
}

// scheduler_unschedulable_pods: the pods waiting in the queue by the plugins that turned them
// away (each counted once per plugin), and those held at PreEnqueue by the gating plugin; a pod
// that was then scheduled counts no more.
TEST(Metrics, UnschedulablePodsByPlugin) {
  const auto cordoned = Simulate({"tests/scenarios/cordoned-node/cluster.yaml"}, "");
  // too-big: more cpu than the small node has, and the big one cordoned.
  EXPECT_EQ(
      At(cordoned,
         R"(scheduler_unschedulable_pods{plugin="NodeResourcesFit",profile="default-scheduler"})"),
      1);
  EXPECT_EQ(
      At(cordoned,
         R"(scheduler_unschedulable_pods{plugin="NodeUnschedulable",profile="default-scheduler"})"),
      1);
  const auto gated = Simulate({"tests/scenarios/scheduling-gates/all.yaml"}, "");
  // held waits at its gates; released was held too, then scheduled.
  EXPECT_EQ(
      At(gated,
         R"(scheduler_unschedulable_pods{plugin="SchedulingGates",profile="default-scheduler"})"),
      1);
}

TEST(Metrics, PreemptionCountsItsAttemptAndVictims) {
  const auto m = Simulate({"tests/scenarios/preemption/all.yaml"}, "");
  EXPECT_EQ(At(m, "scheduler_preemption_attempts_total"), 1);
  EXPECT_EQ(At(m, "scheduler_preemption_victims_count"), 1);
  EXPECT_EQ(At(m, R"(scheduler_preemption_victims_bucket{le="1"})"), 1);
  // The urgent pod was turned away once (and preempted), then bound; so was the victim, once.
  EXPECT_EQ(
      At(m, R"(scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"})"),
      2);
  EXPECT_EQ(At(m, R"(scheduler_pod_scheduling_sli_duration_seconds_count{attempts="2"})"), 1);
}

TEST(Metrics, AGroupThatCannotFormCountsAQuorumFailure) {
  // Group mode: each group cycle short of quorum counts; the group still waits at the end.
  const auto m = Simulate({"tests/scenarios/gang-too-large-beside-fitting/all.yaml"},
                          "tests/scenarios/gang-too-large-beside-fitting/scheduler.yaml");
  EXPECT_GE(
      At(m,
         R"(muster_podgroup_quorum_failures_total{point="GroupCycle",profile="default-scheduler"})"),
      1);
  EXPECT_EQ(
      At(m,
         R"(muster_podgroup_quorum_failures_total{point="PostFilter",profile="default-scheduler"})"),
      0);
  EXPECT_EQ(At(m, R"(muster_podgroups_waiting{profile="default-scheduler"})"), 1);
  EXPECT_EQ(At(m, R"(muster_podgroup_time_to_quorum_seconds_count{profile="default-scheduler"})"),
            1)
      << "the small group formed";
}

TEST(Metrics, APerPodGroupThatCannotFormCountsAPostFilterQuorumFailure) {
  // PerPod mode (upstream's): members held at Permit are released by PostFilter.
  const auto m = Simulate({"tests/scenarios/gang-perpod-starvation/all.yaml"},
                          "tests/scenarios/gang-perpod-starvation/scheduler.yaml");
  EXPECT_GE(
      At(m,
         R"(muster_podgroup_quorum_failures_total{point="PostFilter",profile="default-scheduler"})"),
      1);
  EXPECT_EQ(
      At(m,
         R"(muster_podgroup_quorum_failures_total{point="GroupCycle",profile="default-scheduler"})"),
      0);
  EXPECT_EQ(At(m, R"(muster_podgroups_waiting{profile="default-scheduler"})"), 0);
  EXPECT_GE(At(m, R"(scheduler_permit_wait_duration_seconds_count{result="allowed"})"), 7);
}

}  // namespace
