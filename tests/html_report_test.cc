// The HTML report of `muster simulate --report`: what the simulation records for it
// (sim/history.h) over whole runs, the page report/html.h writes, and the flag.

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/pod_resources.h"
#include "muster/cli/demo.h"
#include "muster/report/charts.h"
#include "muster/report/html.h"
#include "muster/report/simulation_output.h"
#include "muster/sim/testing/random_workload.h"
#include "program.h"
#include "simulate_text.h"

namespace muster {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::unique_ptr<sim::Simulation> Simulate(std::string_view manifests, const std::string& config) {
  std::string error;
  std::unique_ptr<sim::Simulation> s =
      testing::SimulateText(manifests, "test.yaml", config, sim::SimulationOptions{}, &error);
  EXPECT_NE(s, nullptr) << error;
  if (s != nullptr) s->Run();
  return s;
}

std::unique_ptr<sim::Simulation> Demo() {
  return Simulate(cli::kDemoManifests, std::string(cli::kDemoConfig));
}

std::string Report(const sim::Simulation& s, report::HtmlReportOptions options = {}) {
  std::ostringstream out;
  report::WriteHtmlReport(s, options, out);
  return out.str();
}

size_t Count(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::vector<std::string> Samples(const sim::History& history) {
  std::vector<std::string> out;
  for (const sim::CountSample& s : history.samples()) {
    out.push_back(fmt::format("{}: pending {} running {} succeeded {}", api::FormatDuration(s.at),
                              s.counts.pending, s.counts.running, s.counts.succeeded));
  }
  return out;
}

// A Job of four 10-second pods, two at a time, on a node with room for two.
constexpr std::string_view kJob = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "2", memory: 4Gi, pods: "10"}
---
apiVersion: batch/v1
kind: Job
metadata: {name: work}
spec:
  parallelism: 2
  completions: 4
  template:
    metadata:
      annotations: {muster.dev/run-for: 10s}
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources: {requests: {cpu: "1"}}
)";

TEST(SimulationHistoryTest, CountsPodsOverAJobsRun) {
  auto s = Simulate(kJob, testing::CoschedulingConfig("mode: Group"));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Samples(s->history()),
            (std::vector<std::string>{"0s: pending 0 running 2 succeeded 0",
                                      "10s: pending 0 running 2 succeeded 2",
                                      "20s: pending 0 running 0 succeeded 4"}));
  const sim::NodeUsage* n1 = s->history().node(api::Symbol("n1"));
  ASSERT_NE(n1, nullptr);
  EXPECT_EQ(n1->peak.milli_cpu, 2000);
  EXPECT_EQ(n1->requested.milli_cpu, 0);
}

// A gang of two whose second member comes at 12s, and a gang of three with two members.
constexpr std::string_view kGangs = R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "8", memory: 8Gi, pods: "10"}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: pair}
spec: {minMember: 2}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: trio}
spec: {minMember: 3}
---
apiVersion: v1
kind: Pod
metadata:
  name: pair-0
  labels: {scheduling.x-k8s.io/pod-group: pair}
  annotations: {muster.dev/create-after: 5s}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: pair-1
  labels: {scheduling.x-k8s.io/pod-group: pair}
  annotations: {muster.dev/create-after: 12s}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: trio-0
  labels: {scheduling.x-k8s.io/pod-group: trio}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata:
  name: trio-1
  labels: {scheduling.x-k8s.io/pod-group: trio}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
)";

TEST(SimulationHistoryTest, RecordsWhenEachGangReachedQuorum) {
  auto s = Simulate(kGangs, testing::CoschedulingConfig("mode: Group"));
  ASSERT_NE(s, nullptr);
  const sim::GroupTimeline& pair = s->history().groups().at("default/pair");
  EXPECT_EQ(pair.created, api::Duration::zero());
  EXPECT_EQ(pair.first_member, api::Duration(seconds(5)));
  ASSERT_TRUE(pair.quorum);
  // Both bind together, once the second exists.
  EXPECT_GE(*pair.quorum, api::Duration(seconds(12)));
  EXPECT_EQ(pair.quorum, s->records().at("default/pair-0").scheduled_at);
  EXPECT_EQ(pair.quorum, s->records().at("default/pair-1").scheduled_at);
  EXPECT_EQ(pair.running, pair.quorum);
  const sim::GroupTimeline& trio = s->history().groups().at("default/trio");
  EXPECT_FALSE(trio.quorum);
  EXPECT_EQ(trio.members, 2);

  const std::string page = Report(*s);
  EXPECT_THAT(page, HasSubstr("2 of 4 pods pending: 1 PodGroup short of quorum<"));
  EXPECT_THAT(page, HasSubstr(">no quorum after "));
  EXPECT_THAT(page, HasSubstr(">waited " + report::charts::TimeLabel(*pair.quorum) + "<"));
}

// The history keeps its tallies from the cluster's events; at the end they must be what the
// cluster holds, through node removals, group deletions, preemption and gates.
TEST(SimulationHistoryTest, AgreesWithTheClusterOnRandomWorkloads) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const testing::RandomWorkload w = testing::MakeRandomWorkload(seed);
    std::string error;
    auto s = testing::SimulateText(
        w.manifests, "random.yaml", w.config,
        sim::SimulationOptions{.until = std::chrono::hours(1), .seed = seed}, &error);
    ASSERT_NE(s, nullptr) << error;
    s->Run();
    SCOPED_TRACE(fmt::format("seed {} ({})", seed, w.description));
    sim::PodCounts counts;
    std::map<std::string, api::Resource> requested;
    std::map<std::string, int32_t> members;
    for (const auto& [key, pod] : s->cluster().pods()) {
      const std::string status = report::PodStatusText(*s, *pod);
      ++(status == "SchedulingGated" ? counts.gated
         : status == "Pending"       ? counts.pending
         : status == "Running"       ? counts.running
         : status == "Succeeded"     ? counts.succeeded
                                     : counts.failed);
      if (!pod->spec.node_name.empty() && !pod->IsTerminal()) {
        requested[pod->spec.node_name.string()].Add(api::PodFitRequests(*pod));
      }
      const api::Symbol group = api::PodGroupName(*pod);
      if (!group.empty()) ++members[pod->metadata.namespace_.string() + "/" + group.string()];
    }
    EXPECT_EQ(s->history().counts(), counts);
    if (!s->history().samples().empty()) {
      EXPECT_EQ(s->history().samples().back().counts, counts);
    }
    // Equal, but for resources the history tallied and saw fall back to zero.
    auto same = [](api::Resource a, const api::Resource& b) {
      a.Sub(b);
      return a.IsZero();
    };
    for (const auto& [node, n] : s->cluster().Objects<muster::api::Node>())
      requested.try_emplace(node);
    api::Resource total;
    for (const auto& [node, r] : requested) {
      const sim::NodeUsage* usage = s->history().node(api::Symbol(node));
      EXPECT_TRUE(same(usage ? usage->requested : api::Resource{}, r)) << node;
      total.Add(r);
    }
    EXPECT_TRUE(same(s->history().total().requested, total));
    for (const auto& [key, g] : s->history().groups()) {
      EXPECT_EQ(g.members, members[key]) << key;
      if (g.quorum) {
        EXPECT_GE(*g.quorum, *g.created) << key;
      }
    }
    std::ostringstream page;
    report::WriteHtmlReport(*s, {}, page);
    EXPECT_THAT(page.str(), StartsWith("<!DOCTYPE html>"));
  }
}

TEST(HtmlReportTest, HasEverySectionAndChart) {
  auto s = Demo();
  ASSERT_NE(s, nullptr);
  report::HtmlReportOptions options;
  options.inputs = {"<built-in demo>"};
  options.config_source = "<built-in demo> config";
  options.config_text = std::string(cli::kDemoConfig);
  const std::string page = Report(*s, options);
  EXPECT_THAT(page, StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(page, HasSubstr("<meta http-equiv=\"Content-Security-Policy\" "
                              "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src "
                              "data:;"));
  for (const char* id :
       {"pods-over-time", "nodes", "podgroups", "unschedulable", "configuration", "pods"}) {
    EXPECT_THAT(page, HasSubstr(fmt::format("<section id=\"{}\">", id)));
  }
  // The summary and its verdict.
  EXPECT_THAT(page, HasSubstr("<div class=\"n\">6</div><div class=\"l\">Pods</div>"));
  EXPECT_THAT(page, HasSubstr("<div class=\"n\">3</div><div class=\"l\">Running</div>"));
  EXPECT_THAT(page,
              HasSubstr("3 of 6 pods pending: 3 unschedulable (\u201c0/3 nodes are available: "
                        "3 Insufficient cpu.\u201d)<"));
  // Charts: the stacked areas, the heat map's cells, the PodGroup's bar.
  EXPECT_EQ(Count(page, "<svg "), 3u);
  EXPECT_THAT(page, HasSubstr("<path d=\"M"));
  EXPECT_THAT(page, HasSubstr("fill=\"#0072B2\""));
  EXPECT_THAT(page, HasSubstr("node-1 \u00b7 cpu at the end: 3 of 4 requested (75%)"));
  EXPECT_THAT(page, HasSubstr("nginx \u00b7 min 3"));
  EXPECT_THAT(page, HasSubstr(">quorum at once<"));
  // Why the others wait, the configuration, the pods.
  EXPECT_THAT(page, HasSubstr("Insufficient cpu"));
  EXPECT_THAT(page, HasSubstr("name: Coscheduling"));
  EXPECT_EQ(Count(page, "<span class=\"badge s-Pending\">"), 3u);
  EXPECT_EQ(Count(page, "<span class=\"badge s-Running\">"), 3u);
}

// The summary counts the gangs of Kubernetes' own API as the PodGroups section lists them (it
// counted Coscheduling's PodGroups only, and said 0 beside a section listing the gang; the basic
// group beside it is no gang).
TEST(HtmlReportTest, CountsTheGangsOfEveryApi) {
  std::string manifests;
  for (const char* file : {"cluster.yaml", "v1beta1.yaml"}) {
    manifests += testing::SourceFile(std::string("examples/gangs/") + file) + "\n---\n";
  }
  auto s = Simulate(
      manifests, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n");
  ASSERT_NE(s, nullptr);
  const std::string page = Report(*s);
  EXPECT_THAT(page, HasSubstr("<div class=\"n\">1</div><div class=\"l\">PodGroups</div>"));
  // Its quorum is minCount's: the section does not speak of Coscheduling's minMember.
  EXPECT_THAT(page, HasSubstr("0 of 1 PodGroup reached quorum (their minimum of members bound)"));
  EXPECT_THAT(page, Not(HasSubstr("minMember")));
}

// A preemption leaves its trace: the victim (gone from the pod table), by whom, when, where.
TEST(HtmlReportTest, SaysWhomPreemptionEvicted) {
  auto s =
      Simulate(testing::SourceFile("tests/scenarios/preemption/all.yaml"),
               "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n");
  ASSERT_NE(s, nullptr);
  const std::string page = Report(*s);
  EXPECT_THAT(page, HasSubstr("<section id=\"preemptions\">"));
  EXPECT_THAT(page, HasSubstr("<div class=\"n\">1</div><div class=\"l\">Preempted</div>"));
  EXPECT_THAT(page, HasSubstr("1 pod was evicted to make room for 1 pod"));
  EXPECT_THAT(page, HasSubstr("<td class=\"num\">5s</td><td class=\"mono\">low</td>"
                              "<td class=\"mono\">urgent</td>"
                              "<td class=\"msg\">Preempted by default/urgent on node n1</td>"));
  // Nothing of it where no pod was preempted.
  auto demo = Demo();
  ASSERT_NE(demo, nullptr);
  EXPECT_THAT(Report(*demo), Not(HasSubstr("preemptions")));
}

TEST(HtmlReportTest, LoadsNothing) {
  auto s = Demo();
  ASSERT_NE(s, nullptr);
  const std::string page = Report(*s);
  EXPECT_THAT(page, Not(HasSubstr("<script")));
  EXPECT_THAT(page, Not(HasSubstr("<img")));
  EXPECT_THAT(page, Not(HasSubstr("<link")));
  EXPECT_THAT(page, Not(HasSubstr("url(")));
  EXPECT_THAT(page, Not(HasSubstr("@import")));
  // The one address in it is SVG's namespace, which is never fetched.
  EXPECT_EQ(Count(page, "://"), Count(page, "xmlns=\"http://www.w3.org/2000/svg\""));
}

TEST(HtmlReportTest, EscapesWhatTheInputSays) {
  auto s = Demo();
  ASSERT_NE(s, nullptr);
  report::HtmlReportOptions options;
  options.title = "a <b> & c";
  options.inputs = {"jobs/<x>.yaml"};
  options.config_source = "--config \"cfg\".yaml";
  options.config_text = "# <script>alert('x')</script>\nkind: KubeSchedulerConfiguration\n";
  const std::string page = Report(*s, options);
  EXPECT_THAT(page, HasSubstr("<title>a &lt;b&gt; &amp; c</title>"));
  EXPECT_THAT(page, HasSubstr("jobs/&lt;x&gt;.yaml"));
  EXPECT_THAT(page, HasSubstr("--config &quot;cfg&quot;.yaml"));
  EXPECT_THAT(page, HasSubstr("# &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
  EXPECT_THAT(page, Not(HasSubstr("<script>")));
  EXPECT_THAT(page, Not(HasSubstr("a <b>")));
}

TEST(HtmlReportTest, IsTheSameForTheSameInput) {
  auto a = Demo();
  auto b = Demo();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Report(*a), Report(*b));
  auto c = Simulate(kGangs, testing::CoschedulingConfig("mode: Group"));
  auto d = Simulate(kGangs, testing::CoschedulingConfig("mode: Group"));
  EXPECT_EQ(Report(*c), Report(*d));
}

TEST(HtmlReportTest, CapsLongLists) {
  auto s = Demo();
  ASSERT_NE(s, nullptr);
  report::HtmlReportOptions options;
  options.max_pod_rows = 2;
  options.max_heatmap_nodes = 1;
  const std::string page = Report(*s, options);
  EXPECT_THAT(page, HasSubstr("The first 2 of 6 pods"));
  EXPECT_EQ(Count(page, "<span class=\"badge "), 2u);
  // One node in the heat map, and histograms of all three.
  EXPECT_THAT(page, HasSubstr("The 1 busiest of 3 nodes"));
  EXPECT_THAT(page, HasSubstr("cpu \u00b7 3 nodes"));
}

TEST(HtmlReportTest, SaysSoWhenThereIsNoConfiguration) {
  auto s = Demo();
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(Report(*s), HasSubstr("Default profile: no KubeSchedulerConfiguration was given"));
}

// ---- The flag ----

using muster::testing::CommandResult;
using muster::testing::kRoot;
using muster::testing::Muster;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SimulateReportFlagTest, WritesTheReportBesideTheUsualOutput) {
  const std::string path = ::testing::TempDir() + "/muster-report-demo.html";
  std::remove(path.c_str());
  CommandResult run = Muster("simulate --report " + path);
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("NAME "));
  EXPECT_THAT(run.output, HasSubstr("PODGROUP "));
  const std::string page = ReadFile(path);
  EXPECT_THAT(page, StartsWith("<!DOCTYPE html>"));
  EXPECT_THAT(page, HasSubstr("&lt;built-in demo&gt; config"));
  EXPECT_THAT(page, HasSubstr("name: Coscheduling"));
  // Byte for byte the same the second time.
  EXPECT_EQ(Muster("simulate --report " + path).status, 0);
  EXPECT_EQ(ReadFile(path), page);
  std::remove(path.c_str());
}

TEST(SimulateReportFlagTest, ShowsTheConfigurationAsWritten) {
  const std::string path = ::testing::TempDir() + "/muster-report-config.html";
  const std::string config = kRoot + "/examples/config/coscheduling.yaml";
  CommandResult run = Muster("simulate -f " + kRoot + "/examples/coscheduling --config " + config +
                             " --report " + path);
  ASSERT_EQ(run.status, 0) << run.output;
  std::string page = ReadFile(path);
  EXPECT_THAT(page, HasSubstr("From <code>--config " + config + "</code>"));
  EXPECT_THAT(page, HasSubstr(report::charts::Escape(ReadFile(config))));

  // The same configuration among the inputs, and from stdin.
  run =
      Muster("simulate -f " + kRoot + "/examples/coscheduling -f " + config + " --report " + path);
  ASSERT_EQ(run.status, 0) << run.output;
  page = ReadFile(path);
  EXPECT_THAT(page, HasSubstr("From <code>" + config + "</code>"));
  EXPECT_THAT(page, HasSubstr(report::charts::Escape(ReadFile(config))));
  run = Muster("simulate -f " + kRoot + "/examples/coscheduling --config - --report " + path +
               " < " + config);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(ReadFile(path), HasSubstr(report::charts::Escape(ReadFile(config))));
  std::remove(path.c_str());
}

TEST(SimulateReportFlagTest, AFileThatCannotBeWrittenFailsBeforeTheRun) {
  CommandResult run = Muster("simulate --report /nonexistent-muster-dir/out.html");
  EXPECT_EQ(run.status, 1);
  EXPECT_THAT(run.output, HasSubstr("error: --report: cannot write "
                                    "/nonexistent-muster-dir/out.html: No such file or directory"));
  EXPECT_THAT(run.output, Not(HasSubstr("NAME ")));
}

// The timeline ends the gang's running span when preemption takes it (whole), shows it waiting,
// and running again once its members are replaced (tests/scenarios/gang-member-preempted).
TEST(HtmlReportTest, AGangsTimelineFollowsItBackAndForth) {
  const std::string dir = kRoot + "/tests/scenarios/gang-member-preempted/";
  auto s = Simulate(ReadFile(dir + "all.yaml"), ReadFile(dir + "scheduler.yaml"));
  ASSERT_NE(s, nullptr);
  const std::string page = Report(*s);
  EXPECT_EQ(Count(page, "<title>g: running "), 2u) << page;
  EXPECT_THAT(page, HasSubstr("<title>g: running 0s\u20135s</title>"));
  EXPECT_THAT(page, HasSubstr("<title>g: waiting for quorum 5s\u201310s</title>"));
  EXPECT_THAT(page, HasSubstr("<title>g: running from 10s</title>"));
}

}  // namespace
}  // namespace muster
