// `muster explain`: the attempt it shows is the one the scheduler made. Scores and verdicts are
// checked against upstream's numbers for the same pod and nodes, computed here by hand from
// upstream's formulas, and against what the scheduler did with them (the node it bound, the
// message it wrote on the pod).

#include "muster/cli/explain.h"

#include <optional>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "muster/api/feature_gates.h"
#include "muster/report/explain_output.h"
#include "muster/sim/testing/random_workload.h"
#include "simulate_text.h"

namespace muster {
namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view kDefaultConfig =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

// Simulates `manifests`, recording the attempts of the pod named `pod` (namespace default), and
// returns its explanation.
// Nodes n0, n1... of one CPU each, as manifests ending in a document separator.
std::string OneCpuNodes(int count) {
  std::string manifests;
  for (int i = 0; i < count; ++i) {
    manifests += "apiVersion: v1\nkind: Node\nmetadata: {name: n" + std::to_string(i) +
                 "}\nstatus: {capacity: {cpu: \"1\", memory: 1Gi, pods: \"110\"}}\n---\n";
  }
  return manifests;
}

json Explain(std::string_view manifests, const std::string& pod,
             std::string config = std::string(kDefaultConfig)) {
  sim::SimulationOptions options;
  options.traced = [pod](const api::Pod& p) { return p.metadata.name == pod; };
  std::string error;
  std::unique_ptr<sim::Simulation> simulation =
      testing::SimulateText(manifests, "test.yaml", config, options, &error);
  EXPECT_NE(simulation, nullptr) << error;
  if (simulation == nullptr) return nullptr;
  simulation->Run();
  const api::Pod* p = simulation->cluster().Get<api::Pod>("default/" + pod);
  EXPECT_NE(p, nullptr);
  if (p == nullptr) return nullptr;
  const auto& traces = simulation->scheduler().traces();
  const auto it = traces.find("default/" + pod);
  return report::BuildExplanation(*simulation, *p, it == traces.end() ? nullptr : it->second.get());
}

// explain's table for `pod`, the manifests read from stdin as `explain -f - POD` reads them;
// empty when explain fails (the failure is reported).
std::string ExplainTable(const std::string& manifests, const std::string& pod,
                         std::optional<size_t> top = std::nullopt) {
  std::ostringstream out, err;
  std::istringstream in(manifests);
  cli::ExplainFlags flags;
  flags.input.paths = {"-"};
  flags.pod = pod;
  if (top) flags.top = *top;
  const int status = cli::RunExplain(flags, in, out, err);
  EXPECT_EQ(status, 0) << err.str();
  return status == 0 ? out.str() : "";
}

const json* FindBy(const json& list, std::string_view key, std::string_view value) {
  for (const json& item : list) {
    if (item[std::string(key)] == value) return &item;
  }
  return nullptr;
}

// tests/scenarios/least-allocated: one node with 3 of 4 CPUs and 4 of 8 GiB taken, one empty;
// the new pod asks for 1 CPU and 1 GiB. The busy node also prefers not to take pods
// (PreferNoSchedule), for TaintToleration's normalized score.
constexpr std::string_view kLeastAllocated = R"yaml(
apiVersion: v1
kind: Node
metadata: {name: busy}
spec: {taints: [{key: noisy, value: "yes", effect: PreferNoSchedule}]}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: idle}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: existing}
spec:
  nodeName: busy
  containers: [{name: c, image: i, resources: {requests: {cpu: "3", memory: 4Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: new, annotations: {muster.dev/create-after: 1s}}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]
)yaml";

struct ScoreCase {
  std::string plugin;
  std::string node;
  int64_t raw;
  int64_t normalized;
  int64_t weight;
};

TEST(ExplainTest, ScoresAreUpstreamsNumbersForTheAttempt) {
  const json e = Explain(kLeastAllocated, "new");
  ASSERT_FALSE(e.is_null());
  const json& a = e["attempt"];
  ASSERT_FALSE(a.is_null());
  EXPECT_EQ(a["number"], 1);
  EXPECT_EQ(a["time"], "1s");
  EXPECT_EQ(a["result"], "Success");
  EXPECT_EQ(a["selectedNode"], "idle");
  EXPECT_EQ(e["pod"]["nodeName"], "idle");  // the node it shows is the one the pod got
  EXPECT_EQ(a["nodes"]["total"], 2);
  EXPECT_EQ(a["nodes"]["filtered"], 2);
  EXPECT_EQ(a["nodes"]["feasible"], 2);

  // Upstream's formulas (default profile weights: Fit 1, BalancedAllocation 1, TaintToleration
  // 3, NodeAffinity 2, ImageLocality 1):
  //   LeastAllocated, per resource (allocatable - requested) * 100 / allocatable, averaged:
  //     idle: cpu 3000*100/4000 = 75, memory 7Gi*100/8Gi = 87 -> (75+87)/2 = 81
  //     busy: cpu 0, memory 3Gi*100/8Gi = 37 -> 18
  //   BalancedAllocation, the change in balance the pod makes (1.36+): 50 + (50 + B(with the
  //   pod) - B(without)) / 2, B = (1 - |cpu fraction - memory fraction| / 2) * 100:
  //     idle: with 1/4 and 1/8 -> 93, without 0 and 0 -> 100: 71
  //     busy: with 4/4 and 5/8 -> 81, without 3/4 and 4/8 -> 87: 72
  //   TaintToleration counts the PreferNoSchedule taints the pod does not tolerate (idle 0,
  //   busy 1) and normalizes them reversed: 100 - count * 100 / max -> idle 100, busy 0
  //   ImageLocality: the image is on no node -> 0
  const std::vector<ScoreCase> cases = {
      {"NodeResourcesFit", "idle", 81, 81, 1},
      {"NodeResourcesFit", "busy", 18, 18, 1},
      {"NodeResourcesBalancedAllocation", "idle", 71, 71, 1},
      {"NodeResourcesBalancedAllocation", "busy", 72, 72, 1},
      {"TaintToleration", "idle", 0, 100, 3},
      {"TaintToleration", "busy", 1, 0, 3},
      {"ImageLocality", "idle", 0, 0, 1},
      {"ImageLocality", "busy", 0, 0, 1},
  };
  const json& nodes = a["score"]["nodes"];
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0]["node"], "idle");  // best first
  EXPECT_TRUE(nodes[0]["selected"].get<bool>());
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.plugin + " on " + c.node);
    const json* node = FindBy(nodes, "node", c.node);
    ASSERT_NE(node, nullptr);
    const json* score = FindBy((*node)["scores"], "plugin", c.plugin);
    ASSERT_NE(score, nullptr);
    EXPECT_EQ((*score)["raw"], c.raw);
    EXPECT_EQ((*score)["normalized"], c.normalized);
    EXPECT_EQ((*score)["weight"], c.weight);
    EXPECT_EQ((*score)["weighted"], c.normalized * c.weight);
  }
  // The totals are the weighted sums the scheduler compared.
  for (const json& node : nodes) {
    int64_t sum = 0;
    for (const json& s : node["scores"]) sum += s["weighted"].get<int64_t>();
    EXPECT_EQ(node["total"], sum) << node["node"];
  }
  EXPECT_EQ(FindBy(nodes, "node", "idle")->at("total"), 81 + 71 + 300);
  EXPECT_EQ(FindBy(nodes, "node", "busy")->at("total"), 18 + 72 + 0);
  // Node affinity, spread and inter-pod affinity have nothing to score for this pod: PreScore
  // skipped them, and they have no column.
  for (const char* skipped : {"NodeAffinity", "PodTopologySpread", "InterPodAffinity"}) {
    EXPECT_EQ((*FindBy(a["preScore"], "plugin", skipped))["result"], "Skip") << skipped;
    EXPECT_EQ(FindBy(nodes[0]["scores"], "plugin", skipped), nullptr) << skipped;
  }
  // Bound without waiting.
  ASSERT_FALSE(a["steps"].empty());
  EXPECT_EQ(a["steps"].back()["step"], "Bind");
  EXPECT_EQ(a["steps"].back()["message"], "bound to idle");
}

// Without a PreferNoSchedule taint anywhere, muster skips scoring TaintToleration (every node
// would score 0, normalized 100), but reports and adds upstream's numbers all the same, so the
// totals equal kube-scheduler's.
TEST(ExplainTest, TaintTolerationCountsWhenNoNodeIsTainted) {
  std::string manifests(kLeastAllocated);
  const std::string taint =
      "spec: {taints: [{key: noisy, value: \"yes\", effect: PreferNoSchedule}]}\n";
  ASSERT_NE(manifests.find(taint), std::string::npos);
  manifests.erase(manifests.find(taint), taint.size());
  const json e = Explain(manifests, "new");
  ASSERT_FALSE(e.is_null());
  const json& a = e["attempt"];
  EXPECT_EQ((*FindBy(a["preScore"], "plugin", "TaintToleration"))["result"], "Skip");
  const json& nodes = a["score"]["nodes"];
  ASSERT_EQ(nodes.size(), 2u);
  for (const json& node : nodes) {
    SCOPED_TRACE(node["node"].get<std::string>());
    const json* score = FindBy(node["scores"], "plugin", "TaintToleration");
    ASSERT_NE(score, nullptr);
    EXPECT_EQ((*score)["raw"], 0);
    EXPECT_EQ((*score)["normalized"], 100);
    EXPECT_EQ((*score)["weighted"], 300);
  }
  EXPECT_EQ(FindBy(nodes, "node", "idle")->at("total"), 81 + 71 + 300);
  EXPECT_EQ(FindBy(nodes, "node", "busy")->at("total"), 18 + 72 + 300);
}

constexpr std::string_view kNoRoom = R"yaml(
apiVersion: v1
kind: Node
metadata: {name: tainted}
spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
status: {capacity: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: small}
status: {capacity: {cpu: "1", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: cordoned}
spec: {unschedulable: true}
status: {capacity: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: big}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]
)yaml";

TEST(ExplainTest, FilterVerdictsPerNodeAndTheFitError) {
  const json e = Explain(kNoRoom, "big");
  ASSERT_FALSE(e.is_null());
  const json& a = e["attempt"];
  ASSERT_FALSE(a.is_null());
  EXPECT_EQ(a["result"], "Unschedulable");
  EXPECT_EQ(a["selectedNode"], "");
  // The message is the one the scheduler wrote on the pod.
  EXPECT_EQ(a["message"], e["pod"]["message"]);
  EXPECT_EQ(e["pod"]["message"],
            "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s), "
            "1 node(s) were unschedulable. no new claims to deallocate, "
            "preemption: 0/3 nodes are "
            "available: 3 Preemption is not helpful for scheduling.");
  const json& filter = a["filter"];
  const std::vector<std::string> plugins = filter["plugins"];
  struct Expected {
    std::string node, plugin, reason;
  };
  for (const Expected& x :
       std::vector<Expected>{{"tainted", "TaintToleration", "node(s) had untolerated taint(s)"},
                             {"small", "NodeResourcesFit", "Insufficient cpu"},
                             {"cordoned", "NodeUnschedulable", "node(s) were unschedulable"}}) {
    SCOPED_TRACE(x.node);
    const json* node = FindBy(filter["nodes"], "node", x.node);
    ASSERT_NE(node, nullptr);
    EXPECT_EQ((*node)["result"], "Rejected");
    EXPECT_EQ((*node)["plugin"], x.plugin);
    EXPECT_EQ((*node)["reason"], x.reason);
    // The pod's status does not name the taint (kubernetes#134740); explain does.
    if (x.plugin == "TaintToleration") {
      EXPECT_EQ((*node)["taint"], "dedicated=gpu:NoSchedule");
    } else {
      EXPECT_FALSE(node->contains("taint"));
    }
    // Every plugin before the rejecting one passed the node, in the profile's order; none ran
    // after it.
    const json& verdicts = (*node)["verdicts"];
    ASSERT_FALSE(verdicts.empty());
    EXPECT_EQ(verdicts.back()["plugin"], x.plugin);
    size_t at = 0;
    for (size_t i = 0; i + 1 < verdicts.size(); ++i) {
      EXPECT_EQ(verdicts[i]["result"], "Success");
      while (at < plugins.size() && plugins[at] != verdicts[i]["plugin"]) ++at;
      EXPECT_LT(at, plugins.size()) << "out of order: " << verdicts[i]["plugin"];
    }
  }
  EXPECT_TRUE(a["score"]["nodes"].empty());
  // Preemption ran and found nothing to evict.
  const json* preemption = FindBy(a["postFilter"]["plugins"], "plugin", "DefaultPreemption");
  ASSERT_NE(preemption, nullptr);
  EXPECT_EQ((*preemption)["result"], "Unschedulable");
  EXPECT_FALSE((*preemption)["notes"].empty());
}

constexpr std::string_view kPreemption = R"yaml(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "2", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: low}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: urgent, annotations: {muster.dev/create-after: 5s}}
spec:
  priorityClassName: high
  containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]
)yaml";

TEST(ExplainTest, AfterPreemptionTheNominatedNodeIsTriedFirst) {
  const json e = Explain(kPreemption, "urgent");
  ASSERT_FALSE(e.is_null());
  const json& a = e["attempt"];
  ASSERT_FALSE(a.is_null());
  EXPECT_EQ(e["pod"]["nodeName"], "n1");
  EXPECT_EQ(a["number"], 2);  // the first preempted, the second bound
  EXPECT_EQ(a["result"], "Success");
  EXPECT_EQ(a["nominatedNode"]["node"], "n1");
  EXPECT_EQ(a["nominatedNode"]["result"], "Success");
  EXPECT_EQ(a["selectedNode"], "n1");
}

// The preempting attempt's record, kept as the pod's last: with SchedulerPopFromBackoffQ the
// preemptor, idle and free to go once its victims are gone (at once here), is retried at the
// same instant, so these run without it.
api::FeatureGates WithoutPopFromBackoffQ() {
  api::FeatureGates gates = api::Features();
  gates.Set(api::Feature::kSchedulerPopFromBackoffQ, false);
  return gates;
}

TEST(ExplainTest, ThePreemptingAttemptSaysWhomItEvicted) {
  // Stopped before the victim is gone: the last attempt is the one that preempted.
  const api::ScopedFeatures features(WithoutPopFromBackoffQ());
  sim::SimulationOptions options;
  options.traced = [](const api::Pod& p) { return p.metadata.name == "urgent"; };
  options.until = std::chrono::seconds(5);
  std::string error;
  auto simulation =
      testing::SimulateText(kPreemption, "test.yaml", std::string(kDefaultConfig), options, &error);
  ASSERT_NE(simulation, nullptr) << error;
  simulation->Run();
  const auto& traces = simulation->scheduler().traces();
  ASSERT_TRUE(traces.contains("default/urgent"));
  const framework::AttemptTrace& first = *traces.at("default/urgent");
  EXPECT_EQ(first.attempt, 1);
  EXPECT_EQ(first.result, framework::Code::kUnschedulable);
  // DynamicResources first (the pod has no claims), then the preemption.
  ASSERT_EQ(first.post_filter.size(), 2u);
  EXPECT_EQ(first.post_filter[0].plugin, "DynamicResources");
  EXPECT_EQ(first.post_filter[0].message, "no new claims to deallocate");
  EXPECT_EQ(first.post_filter[1].plugin, "DefaultPreemption");
  EXPECT_EQ(first.post_filter[1].code, framework::Code::kSuccess);
  EXPECT_EQ(first.post_filter_nominated, "n1");
  ASSERT_FALSE(first.post_filter[1].notes.empty());
  EXPECT_EQ(first.post_filter[1].notes.back(), "chose n1: evicting default/low");
}

TEST(ExplainTest, EachGangMemberSaysWhatTheGangsPreemptionDid) {
  // Two nodes of 2 CPUs full of pods of priority 0; a gang of two pods of 2 CPUs, priority
  // 1000, arrives at 5s. Stopped then, before the victims are gone: the members' last attempt
  // is the one whose group preempted.
  constexpr std::string_view kManifests = R"yaml(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status: {capacity: {cpu: "2", memory: 4Gi, pods: "10"}}
---
apiVersion: v1
kind: Pod
metadata: {name: low-1}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: low-2}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
---
apiVersion: v1
kind: Pod
metadata: {name: g-0, annotations: {muster.dev/create-after: 5s}}
spec:
  schedulingGroup: {podGroupName: g}
  priorityClassName: high
  containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: g-1, annotations: {muster.dev/create-after: 5s}}
spec:
  schedulingGroup: {podGroupName: g}
  priorityClassName: high
  containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]
)yaml";
  const api::ScopedFeatures features(WithoutPopFromBackoffQ());
  sim::SimulationOptions options;
  options.traced = [](const api::Pod& p) { return p.metadata.name.starts_with("g-"); };
  options.until = std::chrono::seconds(5);
  std::string error;
  auto simulation =
      testing::SimulateText(kManifests, "test.yaml", std::string(kDefaultConfig), options, &error);
  ASSERT_NE(simulation, nullptr) << error;
  simulation->Run();
  const auto& traces = simulation->scheduler().traces();
  std::set<std::string> nominated;
  for (const char* member : {"default/g-0", "default/g-1"}) {
    SCOPED_TRACE(member);
    ASSERT_TRUE(traces.contains(member));
    const framework::AttemptTrace& t = *traces.at(member);
    ASSERT_EQ(t.post_filter.size(), 1u);
    EXPECT_EQ(t.post_filter[0].plugin, "DefaultPreemption");
    EXPECT_EQ(t.post_filter[0].code, framework::Code::kSuccess);
    EXPECT_EQ(t.post_filter[0].message,
              "pod group preemption: 2 pod(s) evicted on 2 node(s) to make room for 2 member(s)");
    ASSERT_EQ(t.post_filter[0].notes.size(), 2u);
    EXPECT_EQ(t.post_filter[0].notes[0],
              "2 possible victim(s) of priority below 1000; without them 2/2 members fit "
              "(minCount 2)");
    EXPECT_THAT(t.post_filter[0].notes[1],
                ::testing::StartsWith("evicting 2 pod(s): default/low-"));
    ASSERT_TRUE(t.post_filter_nominated.has_value());
    nominated.insert(*t.post_filter_nominated);
  }
  EXPECT_EQ(nominated, (std::set<std::string>{"n1", "n2"})) << "one member nominated to each node";
}

TEST(ExplainTest, AGangMembersPictureOfItsGroup) {
  // The seeds' demo: three nodes with room for one nginx each, six replicas, minMember 3.
  std::string manifests;
  {
    std::ostringstream out, err;
    std::istringstream in;
    cli::ExplainFlags flags;
    flags.output = "json";
    flags.pod = "nginx-does-not-exist";
    EXPECT_EQ(cli::RunExplain(flags, in, out, err), 2);
    // The demo's pods are suggested by name.
    EXPECT_NE(err.str().find("not found"), std::string::npos) << err.str();
  }
  std::ostringstream out, err;
  std::istringstream in;
  cli::ExplainFlags flags;
  flags.output = "json";
  // Find a pending member first with simulate's names (deterministic for the seed).
  flags.pod = "nginx";
  EXPECT_EQ(cli::RunExplain(flags, in, out, err), 2);
  const std::string similar = err.str();
  const size_t at = similar.find("similar: default/");
  ASSERT_NE(at, std::string::npos) << similar;
  std::vector<std::string> members;
  std::istringstream list(similar.substr(at + 9));
  for (std::string key; std::getline(list, key, ',');) {
    while (!key.empty() && (key.front() == ' ')) key.erase(0, 1);
    while (!key.empty() && (key.back() == '\n')) key.pop_back();
    members.push_back(key);
  }
  ASSERT_EQ(members.size(), 6u) << similar;
  int pending = 0, running = 0;
  for (const std::string& key : members) {
    std::ostringstream member_out, member_err;
    flags.pod = key;
    ASSERT_EQ(cli::RunExplain(flags, in, member_out, member_err), 0) << member_err.str();
    const json e = json::parse(member_out.str());
    SCOPED_TRACE(key);
    const json& group = e["podGroup"];
    ASSERT_FALSE(group.is_null());
    EXPECT_EQ(group["name"], "default/nginx");
    EXPECT_EQ(group["minMember"], 3);
    EXPECT_EQ(group["members"].size(), 6u);
    ASSERT_TRUE(group.contains("lastCycle"));
    if (e["pod"]["status"] == "Running") {
      ++running;
      EXPECT_EQ(e["attempt"]["result"], "Success");
      EXPECT_EQ(e["attempt"]["selectedNode"], e["pod"]["nodeName"]);
      EXPECT_TRUE(group["lastCycle"]["scheduled"].get<bool>());
    } else {
      ++pending;
      EXPECT_EQ(e["attempt"]["result"], "Unschedulable");
      EXPECT_EQ(e["attempt"]["message"], e["pod"]["message"]);
      // The three nodes are full of the group's own members.
      for (const json& node : e["attempt"]["filter"]["nodes"]) {
        EXPECT_EQ(node["plugin"], "NodeResourcesFit");
        EXPECT_EQ(node["reason"], "Insufficient cpu");
      }
    }
  }
  EXPECT_EQ(running, 3);
  EXPECT_EQ(pending, 3);
}

// A v1alpha1 Workload's pod group has no object of its own: explain finds it in the Workload
// and says how many members exist against its minCount, and what the scheduler said of it.
TEST(ExplainTest, AWorkloadsPodGroupShortOfMembersSaysWhy) {
  std::string manifests = R"yaml(
apiVersion: v1
kind: Node
metadata: {name: n0}
status: {capacity: {cpu: "8", memory: 8Gi, pods: "110"}}
---
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: llm}
spec:
  controllerRef: {apiGroup: batch, kind: Job, name: llm}
  podGroups:
  - name: workers
    policy: {gang: {minCount: 3}}
)yaml";
  for (int i = 0; i < 2; ++i) {
    manifests +=
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: w-" + std::to_string(i) +
        "}\nspec:\n  workloadRef: {name: llm, podGroup: workers, podGroupReplicaKey: "
        "\"0\"}\n  containers: [{name: c, image: i, resources: {requests: {cpu: \"1\"}}}]\n";
  }
  const std::string table = ExplainTable(manifests, "w-0");
  EXPECT_THAT(table, ::testing::HasSubstr(
                         "Workload default/llm/workers/0 (minCount 3, 2 member(s)): Pending, "
                         "0 scheduled; waiting for pods: 2/3 exist (minCount 3)"))
      << table;
}

// The attempt's steps after the choice of node, as "STEP RESULT MESSAGE".
std::vector<std::string> Steps(const json& explanation) {
  std::vector<std::string> steps;
  for (const json& s : explanation["attempt"]["steps"]) {
    steps.push_back(fmt::format("{} {} {}", s["step"].get<std::string>(),
                                s["result"].get<std::string>(), s["message"].get<std::string>()));
  }
  return steps;
}

// The steps after the choice include PreBind when a plugin acts there: DynamicResources writes
// the claim's allocation and reservation before the pod is bound (the steps went from Permit
// to Bind as if nothing happened between).
TEST(ExplainTest, TheStepsSayWhatPreBindWrote) {
  const json e =
      Explain(testing::SourceFile("tests/scenarios/dra-matching-product/a-gpus.yaml") + "\n---\n" +
                  testing::SourceFile("tests/scenarios/dra-matching-product/b-pods.yaml"),
              "trainer");
  ASSERT_FALSE(e.is_null());
  EXPECT_THAT(Steps(e), ::testing::ElementsAre("Reserve Success ", "Permit Success ",
                                               "PreBind Success DynamicResources",
                                               "Bind Success bound to gpu-1"));
}

// A pod written for a device plugin, served by DRA (after the first pod freed the device): the
// claim the scheduler made for it is listed with the devices it holds, and PreBind wrote it.
TEST(ExplainTest, TheClaimForExtendedResourcesIsListed) {
  const json e =
      Explain(testing::SourceFile("tests/scenarios/dra-extended-resource-freed/a-cluster.yaml") +
                  "\n---\n" +
                  testing::SourceFile("tests/scenarios/dra-extended-resource-freed/b-pods.yaml"),
              "second");
  ASSERT_FALSE(e.is_null());
  ASSERT_EQ(e["resourceClaims"].size(), 1u);
  const json& claim = e["resourceClaims"][0];
  EXPECT_EQ(claim["name"], "<extended-resources>");
  EXPECT_THAT(claim["claim"].get<std::string>(),
              ::testing::StartsWith("second-extended-resources-"));
  EXPECT_EQ(claim["state"], "allocated");
  EXPECT_EQ(claim["devices"], json::array({"container-0-request-0: gpu.example.com/gpu-1/gpu-0"}));
  EXPECT_THAT(Steps(e), ::testing::Contains("PreBind Success DynamicResources"));
}

// VolumeBinding asks the cluster to bind the claim, and waits for it.
TEST(ExplainTest, TheStepsSayWhatPreBindWaitedFor) {
  constexpr std::string_view kManifests = R"yaml(
apiVersion: v1
kind: Node
metadata: {name: n0, labels: {kubernetes.io/hostname: n0}}
status: {capacity: {cpu: "2", memory: 2Gi, pods: "110"}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/1}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n0]}]
status: {phase: Available}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 500Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: db}
spec:
  containers: [{name: c, image: i}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
)yaml";
  const json e = Explain(kManifests, "db");
  ASSERT_FALSE(e.is_null());
  EXPECT_THAT(Steps(e), ::testing::ElementsAre("Reserve Success ", "Permit Success ",
                                               "PreBind Wait VolumeBinding waits for the cluster",
                                               "PreBind Success VolumeBinding waited 0s",
                                               "Bind Success bound to n0"));
  // A pod without volumes or claims has no PreBind step: the plugins skipped it.
  const json plain = Explain(std::string(kManifests.substr(0, kManifests.find("---"))) +
                                 "---\napiVersion: v1\nkind: Pod\nmetadata: {name: web}\n"
                                 "spec: {containers: [{name: c, image: i}]}\n",
                             "web");
  ASSERT_FALSE(plain.is_null());
  EXPECT_THAT(Steps(plain), ::testing::ElementsAre("Reserve Success ", "Permit Success ",
                                                   "Bind Success bound to n0"));
}

TEST(ExplainTest, TableForPeople) {
  const std::string table = ExplainTable(std::string{kNoRoom}, "default/big");
  ASSERT_FALSE(table.empty());
  for (const char* expected :
       {"Pod default/big: Pending when the run ended", "Last attempt: #",
        "Result: Unschedulable: 0/3 nodes",
        "Filter (plugins in order: ", "cordoned   Rejected   NodeUnschedulable",
        "small      Rejected   NodeResourcesFit ", "PostFilter", "DefaultPreemption"}) {
    EXPECT_NE(table.find(expected), std::string::npos) << expected << "\n" << table;
  }
}

// A gang member beyond the quorum that fits nowhere fails on its own; in Group mode Coscheduling
// stands aside at PostFilter (the group cycle decided for the gang) and is not listed there with
// an empty message.
TEST(ExplainTest, APluginThatStandsAsideIsNotListedAtPostFilter) {
  std::string manifests = OneCpuNodes(2);
  manifests +=
      "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\n"
      "spec: {minMember: 2}\n";
  for (const char* name : {"g-0", "g-1", "g-2"}) {
    manifests += std::string("---\napiVersion: v1\nkind: Pod\nmetadata: {name: ") + name +
                 ", labels: {scheduling.x-k8s.io/pod-group: g}}\nspec:\n  containers: [{name: c, "
                 "image: i, resources: {requests: {cpu: \"1\"}}}]\n";
  }
  const json e = Explain(manifests, "g-2", testing::CoschedulingConfig("mode: Group"));
  ASSERT_FALSE(e.is_null());
  const json& plugins = e["attempt"]["postFilter"]["plugins"];
  ASSERT_FALSE(plugins.empty()) << e.dump(2);
  for (const json& p : plugins) {
    EXPECT_NE(p["plugin"], "Coscheduling") << e.dump(2);
    EXPECT_FALSE(p["message"].get<std::string>().empty()) << e.dump(2);
  }
}

TEST(ExplainTest, ManyRejectedNodesAreSummarisedByReason) {
  std::string manifests = OneCpuNodes(30);
  manifests +=
      "apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  containers: [{name: c, "
      "image: i, resources: {requests: {cpu: \"2\"}}}]\n";
  const std::string table = ExplainTable(manifests, "big", /*top=*/5);
  ASSERT_FALSE(table.empty());
  EXPECT_NE(table.find("30 rejected, by reason:"), std::string::npos) << table;
  EXPECT_NE(table.find("30      NodeResourcesFit   Insufficient cpu   n0, n1, n10, ..."),
            std::string::npos)
      << table;
}

TEST(ExplainTest, AGatedPodWasNeverAttempted) {
  const json e = Explain(R"yaml(
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: held}
spec:
  schedulingGates: [{name: example.com/quota}]
  containers: [{name: c, image: i}]
)yaml",
                         "held");
  ASSERT_FALSE(e.is_null());
  EXPECT_TRUE(e["attempt"].is_null());
  EXPECT_EQ(e["noAttempt"],
            "the pod is held by scheduling gate(s) example.com/quota: it never reached the queue");
}

TEST(ExplainTest, NothingIsRecordedUnlessAsked) {
  std::string error;
  auto simulation =
      testing::SimulateText(kLeastAllocated, "test.yaml", std::string(kDefaultConfig), {}, &error);
  ASSERT_NE(simulation, nullptr) << error;
  simulation->Run();
  EXPECT_TRUE(simulation->scheduler().traces().empty());
}

// Coscheduling's PreFilter turns the pod away (PerPod mode, a gang short of minMember): the
// cluster's nodes are counted, and the table says Filter examined none, not "examined 0".
// A gang short of minMember: in PerPod mode Coscheduling's PreFilter turns each member away, in
// Group mode the group cycle turns the gang away whole before any member reaches Filter. Either
// way the attempt counts the cluster's nodes.
TEST(ExplainTest, APodRejectedBeforeFilterCountsTheClustersNodes) {
  const std::string dir =
      std::string(MUSTER_SOURCE_DIR) + "/tests/scenarios/gang-perpod-short-of-min-member/";
  auto explain = [&](const char* mode) {
    std::ostringstream out, err;
    std::istringstream in(testing::CoschedulingConfig(fmt::format("mode: {}", mode)));
    cli::ExplainFlags flags;
    flags.input.paths = {dir + "all.yaml", "-"};  // the configuration comes on stdin
    flags.pod = "g-0";
    EXPECT_EQ(cli::RunExplain(flags, in, out, err), 0) << err.str();
    return out.str();
  };
  // PerPod: PreFilter turns the member away.
  const std::string per_pod = explain("PerPod");
  EXPECT_NE(per_pod.find("Nodes: 2 in the cluster; the attempt was rejected before Filter "
                         "examined any.\n"),
            std::string::npos)
      << per_pod;
  EXPECT_EQ(per_pod.find("Filter examined 0"), std::string::npos) << per_pod;
  // Group: the member is never attempted, and explain says who holds it and why.
  const std::string group = explain("Group");
  EXPECT_NE(group.find("No scheduling attempt: Coscheduling held the pod at PreEnqueue: waiting "
                       "for PodGroup default/g to have minMember (3) pods that can be scheduled; "
                       "it never reached a scheduling cycle"),
            std::string::npos)
      << group;
}

TEST(ExplainTest, RecordingChangesNoDecision) {
  // The same random workloads with every pod's attempts recorded end exactly as without.
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(seed);
    const testing::RandomWorkload w = testing::MakeRandomWorkload(seed);
    auto run = [&](bool traced) {
      sim::SimulationOptions options;
      options.seed = seed;
      options.until = std::chrono::hours(1);
      if (traced) options.traced = [](const api::Pod&) { return true; };
      std::string error;
      auto simulation =
          testing::SimulateText(w.manifests, "random.yaml", w.config, options, &error);
      EXPECT_NE(simulation, nullptr) << error;
      if (simulation == nullptr) return std::string();
      simulation->Run();
      std::string outcome;
      for (const auto& [key, pod] : simulation->cluster().pods()) {
        outcome += key + "=" + pod->spec.node_name.string() + ";";
      }
      return outcome + std::to_string(simulation->scheduler().stats().attempts);
    };
    EXPECT_EQ(run(false), run(true));
  }
}

}  // namespace
}  // namespace muster
