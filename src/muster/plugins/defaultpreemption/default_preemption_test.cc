#include "muster/plugins/defaultpreemption/default_preemption.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/extender.h"
#include "muster/framework/framework.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/noderesources/fit.h"

// Cases and expectations from upstream default_preemption_test.go (TestPostFilter,
// TestDryRunPreemption, TestSelectBestCandidate, TestCustomSelection, TestCustomOrdering,
// TestPodEligibleToPreemptOthers, TestPreempt), run against the real NodeResourcesFit. Upstream's
// start times are nanoseconds after the Unix epoch; muster's clock has microseconds, so epochTimeN
// is N microseconds here (same order). Upstream's dry-run offsets come from a seeded math/rand;
// these tests pass the offsets its comments state.

namespace muster::plugins::defaultpreemption {
namespace {

using framework::Code;
using framework::NodeInfo;
using framework::NominatingMode;
using framework::PodInfo;
using framework::PodInfoPtr;
using framework::Status;
using testing::FakeServices;
using testing::MakeNode;
using testing::MakePod;
using testing::ResourcePairs;

constexpr int32_t kNegPriority = -100;
constexpr int32_t kLowPriority = 0;
constexpr int32_t kMidPriority = 100;
constexpr int32_t kHighPriority = 1000;
constexpr int32_t kVeryHighPriority = 10000;

const ResourcePairs kNoRes = {};
const ResourcePairs kSmallRes = {{"cpu", "100m"}, {"memory", "100"}};
const ResourcePairs kMediumRes = {{"cpu", "200m"}, {"memory", "200"}};
const ResourcePairs kLargeRes = {{"cpu", "300m"}, {"memory", "300"}};
const ResourcePairs kVeryLargeRes = {{"cpu", "500m"}, {"memory", "500"}};
// Node capacities. Upstream's st.MakeNode().Capacity adds 32 pods unless pods are given.
const ResourcePairs kOnePodNode = {{"pods", "1"}};
const ResourcePairs kNodeRes = {{"cpu", "200m"}, {"memory", "400"}, {"pods", "32"}};
const ResourcePairs kLargeNode = {{"cpu", "300m"}, {"memory", "300"}, {"pods", "32"}};
const ResourcePairs kVeryLargeNode = {{"cpu", "500m"}, {"memory", "500"}, {"pods", "32"}};

api::Time EpochTime(int n) { return api::Time(api::Duration(n)); }

// A pod as upstream's st.MakePod() chains build it; `node` empty means pending.
struct PodSpec {
  std::string name{};
  std::string node{};
  int32_t priority = 0;
  ResourcePairs req = kNoRes;
  std::optional<api::Time> start{};
  std::map<std::string, std::string> labels{};
};

api::Pod MakeTestPod(const PodSpec& s) {
  testing::PodBuilder b = MakePod();
  b.Name(s.name).Priority(s.priority);
  if (!s.node.empty()) b.NodeName(s.node);
  if (s.req.size() != 0) b.Req(s.req);
  for (const auto& [k, v] : s.labels) b.Label(k, v);
  api::Pod pod = b.Obj();
  pod.status.start_time = s.start;
  return pod;
}

api::PodDisruptionBudget MakePDB(std::string_view name, std::string_view key,
                                 std::string_view value, int32_t disruptions_allowed) {
  api::PodDisruptionBudget pdb;
  pdb.metadata.name = std::string(name);
  pdb.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
  api::LabelSelector selector;
  selector.match_labels.emplace_back(api::Symbol(key), api::Symbol(value));
  pdb.selector = selector;
  pdb.status.disruptions_allowed = disruptions_allowed;
  return pdb;
}

// p1.1 ... p1.n on node1, of mid priority and medium size, labelled app=foo.
std::vector<PodSpec> FooVictimsOnNode1(int n) {
  std::vector<PodSpec> pods;
  for (int i = 1; i <= n; ++i) {
    pods.push_back({.name = fmt::format("p1.{}", i),
                    .node = "node1",
                    .priority = kMidPriority,
                    .req = kMediumRes,
                    .labels = {{"app", "foo"}}});
  }
  return pods;
}

// The budget with these pods' evictions processed already (status.disruptedPods).
api::PodDisruptionBudget Disrupted(api::PodDisruptionBudget pdb, std::vector<std::string> pods) {
  pdb.status.disrupted_pods = std::move(pods);
  return pdb;
}

// Counts Filter calls, as upstream's FakeFilterPlugin, and returns `code` for every node.
class CountingFilter final : public framework::FilterPlugin {
 public:
  explicit CountingFilter(Code code) : code_(code) {}
  std::string_view Name() const override { return "FakeFilter"; }
  Status Filter(const framework::CycleState&, const PodInfo&, const NodeInfo&) const override {
    ++calls;
    return code_ == Code::kSuccess ? Status::OK() : Status(code_);
  }
  mutable std::atomic<int> calls{0};

 private:
  Code code_;
};

// Upstream's TestPlugin: its PreFilter extensions fail on nodes labelled error=true.
class ErrorOnLabelPlugin final : public framework::PreFilterPlugin,
                                 public framework::PreFilterExtensions {
 public:
  std::string_view Name() const override { return "test-plugin"; }
  Status PreFilter(framework::CycleState&, const PodInfo&, std::span<NodeInfo* const>,
                   framework::PreFilterResult*) override {
    return Status::OK();
  }
  const framework::PreFilterExtensions* Extensions() const override { return this; }
  Status AddPod(framework::CycleState&, const PodInfo& pod, const PodInfo&,
                const NodeInfo& node) const override {
    if (!Failing(node)) return Status::OK();
    return Status::Error(fmt::format("failed to add pod: {}", pod.pod.metadata.name));
  }
  Status RemovePod(framework::CycleState&, const PodInfo& pod, const PodInfo&,
                   const NodeInfo& node) const override {
    if (!Failing(node)) return Status::OK();
    return Status::Error(fmt::format("failed to remove pod: {}", pod.pod.metadata.name));
  }

 private:
  static bool Failing(const NodeInfo& node) {
    const api::Symbol* v = node.node()->metadata.labels.Get(api::Symbol("error"));
    return v != nullptr && v->str() == "true";
  }
};

// A profile with NodeResourcesFit as PreFilter and Filter, behind a counting filter.
class Env {
 public:
  explicit Env(Code fake_filter_code = Code::kSuccess, bool with_test_plugin = false) {
    std::string error;
    std::unique_ptr<framework::Plugin> fit =
        noderesources::Fit::New(framework::PluginArgs{}, fake.handle(), &error);
    EXPECT_NE(fit, nullptr) << error;
    auto counter = std::make_unique<CountingFilter>(fake_filter_code);
    counter_ = counter.get();
    framework::ProfilePlugins plugins;
    plugins.filter.push_back(counter_);
    plugins.pre_filter.push_back(dynamic_cast<framework::PreFilterPlugin*>(fit.get()));
    plugins.filter.push_back(dynamic_cast<framework::FilterPlugin*>(fit.get()));
    std::vector<std::unique_ptr<framework::Plugin>> owned;
    owned.push_back(std::move(fit));
    owned.push_back(std::move(counter));
    if (with_test_plugin) {
      auto test_plugin = std::make_unique<ErrorOnLabelPlugin>();
      plugins.pre_filter.push_back(test_plugin.get());
      owned.push_back(std::move(test_plugin));
    }
    fake.handle().SetPlugins(std::move(plugins), std::move(owned));
  }

  void AddNodes(const std::vector<std::string>& names, ResourcePairs capacity) {
    for (const std::string& n : names) fake.AddNode(MakeNode().Name(n).Capacity(capacity).Obj());
  }
  void AddPods(const std::vector<PodSpec>& pods) {
    for (const PodSpec& p : pods) fake.AddPod(MakeTestPod(p));
  }

  std::unique_ptr<DefaultPreemption> Plugin(DefaultPreemptionArgs args = {}) {
    std::string error;
    std::unique_ptr<DefaultPreemption> p = DefaultPreemption::Create(args, fake.handle(), &error);
    EXPECT_NE(p, nullptr) << error;
    return p;
  }

  // The cycle state of `pod` after the profile's PreFilter, which Fit's Filter needs.
  std::unique_ptr<framework::CycleState> PreFilter(const PodInfo& pod) {
    auto state = std::make_unique<framework::CycleState>();
    framework::PreFilterResult result;
    std::string rejector;
    Status s = fake.handle().RunPreFilterPlugins(*state, pod, &result, &rejector);
    EXPECT_TRUE(s.IsSuccess()) << ToString(s);
    return state;
  }

  // What PostFilter returned and whom it nominated.
  struct PostFilterOutcome {
    Status status;
    framework::PostFilterResult result;
  };
  // PostFilter for `pod` as a scheduling cycle runs it: the profile's PreFilter, then a
  // DefaultPreemption with default args.
  PostFilterOutcome PostFilter(const api::Pod& pod, const framework::NodeToStatus& statuses) {
    const PodInfoPtr info = PodInfo::Make(pod);
    auto state = PreFilter(*info);
    PostFilterOutcome out;
    out.status = Plugin()->PostFilter(*state, *info, statuses, &out.result);
    return out;
  }

  // What DryRunPreemption found, and what it said of the nodes it passed over.
  struct DryRunOutcome {
    std::vector<Candidate> candidates;
    framework::NodeToStatus statuses;
    std::vector<std::string> errors;
  };
  // `plugin`'s DryRunPreemption for `pod` after the profile's PreFilter.
  DryRunOutcome DryRun(const DefaultPreemption& plugin, const api::Pod& pod,
                       std::span<NodeInfo* const> nodes,
                       std::span<const api::PodDisruptionBudget* const> pdbs, int32_t offset,
                       int32_t num_candidates) {
    const PodInfoPtr info = PodInfo::Make(pod);
    auto state = PreFilter(*info);
    DryRunOutcome out;
    out.candidates = plugin.DryRunPreemption(*state, *info, nodes, pdbs, offset, num_candidates,
                                             &out.statuses, &out.errors);
    return out;
  }

  // Snapshot nodes sorted by name, as upstream's TestDryRunPreemption sorts them.
  std::vector<NodeInfo*> SortedNodes() const {
    std::vector<NodeInfo*> nodes = fake.snapshot().List();
    std::sort(nodes.begin(), nodes.end(),
              [](NodeInfo* a, NodeInfo* b) { return a->name().str() < b->name().str(); });
    return nodes;
  }

  int filter_calls() const { return counter_->calls.load(); }

  FakeServices fake;

 private:
  CountingFilter* counter_ = nullptr;
};

framework::NodeToStatus Unschedulable(const std::vector<std::string>& nodes,
                                      const std::vector<std::string>& unresolvable = {}) {
  framework::NodeToStatus m;
  for (const std::string& n : nodes) m.Set(api::Symbol(n), Status(Code::kUnschedulable));
  for (const std::string& n : unresolvable) {
    m.Set(api::Symbol(n), Status(Code::kUnschedulableAndUnresolvable));
  }
  return m;
}

// "node: victim,victim (violations)" per candidate, sorted as upstream's test sorts them.
std::vector<std::string> Describe(const std::vector<Candidate>& candidates) {
  std::vector<std::string> out;
  for (const Candidate& c : candidates) {
    std::vector<std::string> names;
    for (const PodInfoPtr& v : c.victims) names.push_back(v->pod.metadata.name);
    std::sort(names.begin(), names.end());
    out.push_back(
        fmt::format("{}: {} ({})", c.node.str(), fmt::join(names, ","), c.num_pdb_violations));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// gtest parameter names from the upstream case names.
std::string CaseName(const std::string& name) {
  std::string out;
  for (const char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

// ---- TestPostFilter ----

struct PostFilterCase {
  std::string name{};

  PodSpec pod{};
  std::vector<PodSpec> pods{};
  std::vector<api::PodDisruptionBudget> pdbs{};
  std::vector<std::pair<std::string, ResourcePairs>> nodes{};
  std::vector<std::pair<std::string, std::string>> node_labels{};  // node, "error" label
  framework::NodeToStatus statuses{};
  std::optional<std::string> want_node{};  // nullopt: no nomination (kNoop)
  Code want_code = Code::kSuccess;
  std::string want_message{};
};

void PrintTo(const PostFilterCase& c, std::ostream* os) { *os << c.name; }

class DefaultPreemptionPostFilterTest : public ::testing::TestWithParam<PostFilterCase> {};

TEST_P(DefaultPreemptionPostFilterTest, Upstream) {
  const PostFilterCase& tc = GetParam();
  Env env(Code::kSuccess, /*with_test_plugin=*/true);
  for (const auto& [name, capacity] : tc.nodes) {
    testing::NodeBuilder b = MakeNode();
    b.Name(name).Capacity(capacity);
    for (const auto& [node, value] : tc.node_labels) {
      if (node == name) b.Label("error", value);
    }
    env.fake.AddNode(b.Obj());
  }
  env.AddPods(tc.pods);
  for (const auto& pdb : tc.pdbs) env.fake.AddObject(pdb);

  const auto [s, result] = env.PostFilter(MakeTestPod(tc.pod), tc.statuses);
  EXPECT_EQ(s.code(), tc.want_code) << ToString(s);
  EXPECT_EQ(s.Message(), tc.want_message);
  if (tc.want_node) {
    EXPECT_EQ(result.mode, NominatingMode::kOverride);
    EXPECT_EQ(result.nominated_node_name.str(), *tc.want_node);
  } else {
    EXPECT_EQ(result.mode, NominatingMode::kNoop);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, DefaultPreemptionPostFilterTest,
    ::testing::Values(
        PostFilterCase{
            .name = "pod with higher priority can be made schedulable",
            .pod = {.name = "p", .priority = kHighPriority},
            .pods = {{.name = "p1", .node = "node1"}},
            .nodes = {{"node1", kOnePodNode}},
            .statuses = Unschedulable({"node1"}),
            .want_node = "node1",
        },
        PostFilterCase{
            .name = "pod with tied priority is still unschedulable",
            .pod = {.name = "p"},
            .pods = {{.name = "p1", .node = "node1"}},
            .nodes = {{"node1", kOnePodNode}},
            .statuses = Unschedulable({"node1"}),
            .want_node = "",
            .want_code = Code::kUnschedulable,
            .want_message = "preemption: 0/1 nodes are available: 1 No preemption victims found "
                            "for incoming pod.",
        },
        // Not upstream's: the two ways to find no victims anywhere give the same verdicts.
        PostFilterCase{
            .name = "no pod anywhere has a lower priority",
            .pod = {.name = "p", .priority = kMidPriority},
            .pods = {{.name = "p1", .node = "node1", .priority = kMidPriority},
                     {.name = "p2", .node = "node2", .priority = kHighPriority}},
            .nodes = {{"node1", kOnePodNode}, {"node2", kOnePodNode}, {"node3", kOnePodNode}},
            .statuses = Unschedulable({"node1", "node2"}, {"node3"}),
            .want_node = "",
            .want_code = Code::kUnschedulable,
            .want_message = "preemption: 0/3 nodes are available: 1 Preemption is not helpful for "
                            "scheduling, 2 No preemption victims found for incoming pod.",
        },
        PostFilterCase{
            .name = "the only pod of lower priority is where preemption cannot help",
            .pod = {.name = "p", .priority = kMidPriority},
            .pods = {{.name = "p1", .node = "node1", .priority = kMidPriority},
                     {.name = "p2", .node = "node2", .priority = kHighPriority},
                     {.name = "p3", .node = "node3", .priority = kLowPriority}},
            .nodes = {{"node1", kOnePodNode}, {"node2", kOnePodNode}, {"node3", kOnePodNode}},
            .statuses = Unschedulable({"node1", "node2"}, {"node3"}),
            .want_node = "",
            .want_code = Code::kUnschedulable,
            .want_message = "preemption: 0/3 nodes are available: 1 Preemption is not helpful for "
                            "scheduling, 2 No preemption victims found for incoming pod.",
        },
        PostFilterCase{
            .name = "preemption should respect filteredNodesStatuses",
            .pod = {.name = "p", .priority = kHighPriority},
            .pods = {{.name = "p1", .node = "node1"}},
            .nodes = {{"node1", kOnePodNode}},
            .statuses = Unschedulable({}, {"node1"}),
            .want_node = "",
            .want_code = Code::kUnschedulable,
            .want_message =
                "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        },
        PostFilterCase{
            .name = "absent NodeToStatus entry means UnschedulableAndUnresolvable",
            .pod = {.name = "p", .priority = kHighPriority},
            .pods = {{.name = "p1", .node = "node1"}},
            .nodes = {{"node1", kOnePodNode}},
            .statuses = Unschedulable({}),
            .want_node = "",
            .want_code = Code::kUnschedulable,
            .want_message =
                "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
        },
        PostFilterCase{
            .name = "pod can be made schedulable on one node",
            .pod = {.name = "p", .priority = kMidPriority},
            .pods = {{.name = "p1", .node = "node1", .priority = kHighPriority},
                     {.name = "p2", .node = "node2", .priority = kLowPriority}},
            .nodes = {{"node1", kOnePodNode}, {"node2", kOnePodNode}},
            .statuses = Unschedulable({"node1", "node2"}),
            .want_node = "node2",
        },
        PostFilterCase{
            .name = "pod can be made schedulable on minHighestPriority node",
            .pod = {.name = "p", .priority = kVeryHighPriority},
            .pods = {{.name = "p1",
                      .node = "node1",
                      .priority = kHighPriority,
                      .labels = {{"test.kubernetes.io/is-violating-pdb", "non-violating"}}},
                     {.name = "p2",
                      .node = "node1",
                      .priority = kLowPriority,
                      .labels = {{"test.kubernetes.io/is-violating-pdb", "violating"}}},
                     {.name = "p3",
                      .node = "node2",
                      .priority = kMidPriority,
                      .labels = {{"test.kubernetes.io/is-violating-pdb", "violating"}}}},
            .pdbs = {MakePDB("violating-pdb", "test.kubernetes.io/is-violating-pdb", "violating",
                             0),
                     MakePDB("non-violating-pdb", "test.kubernetes.io/is-violating-pdb",
                             "non-violating", std::numeric_limits<int32_t>::max())},
            .nodes = {{"node1", kOnePodNode}, {"node2", kOnePodNode}},
            .statuses = Unschedulable({"node1", "node2"}),
            .want_node = "node2",
        },
        PostFilterCase{
            .name = "no candidate nodes found, no enough resource after removing low priority pods",
            .pod = {.name = "p", .priority = kHighPriority, .req = kLargeRes},
            .pods = {{.name = "p1", .node = "node1"}, {.name = "p2", .node = "node2"}},
            .nodes = {{"node1", kNodeRes}, {"node2", kNodeRes}},
            .statuses = Unschedulable({"node1", "node2"}),
            .want_node = "",
            .want_code = Code::kUnschedulable,
            .want_message = "preemption: 0/2 nodes are available: 2 Insufficient cpu.",
        },
        PostFilterCase{
            .name = "no candidate nodes found with mixed reasons, no lower priority pod and no "
                    "enough CPU resource",
            .pod = {.name = "p", .priority = kHighPriority, .req = kLargeRes},
            .pods = {{.name = "p1", .node = "node1", .priority = kHighPriority},
                     {.name = "p2", .node = "node2"},
                     {.name = "p3", .node = "node3", .priority = kHighPriority}},
            .nodes = {{"node1", kOnePodNode}, {"node2", kNodeRes}, {"node3", kOnePodNode}},
            .statuses = Unschedulable({"node1", "node2", "node3"}),
            .want_node = "",
            .want_code = Code::kUnschedulable,
            .want_message = "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No "
                            "preemption victims found for incoming pod.",
        },
        PostFilterCase{
            .name = "no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable "
                    "nodes and 2 nodes don't have enough CPU resource",
            .pod = {.name = "p", .priority = kHighPriority, .req = kLargeRes},
            .pods = {{.name = "p1", .node = "node1"}, {.name = "p2", .node = "node2"}},
            .nodes = {{"node1", kNodeRes},
                      {"node2", kNodeRes},
                      {"node3", kNodeRes},
                      {"node4", kNodeRes}},
            .statuses = Unschedulable({"node1", "node2"}, {"node4"}),
            .want_node = "",
            .want_code = Code::kUnschedulable,
            .want_message = "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 "
                            "Preemption is not helpful for scheduling.",
        },
        PostFilterCase{
            .name = "only one node but failed with TestPlugin",
            .pod = {.name = "p", .priority = kHighPriority, .req = kLargeRes},
            .pods = {{.name = "p1", .node = "node1"}},
            .nodes = {{"node1", kLargeNode}},
            .node_labels = {{"node1", "true"}},
            .statuses = Unschedulable({"node1"}),
            .want_code = Code::kError,
            .want_message = "preemption: running RemovePod on PreFilter plugin \"test-plugin\": "
                            "failed to remove pod: p",
        },
        PostFilterCase{
            .name = "one failed with TestPlugin and the other pass",
            .pod = {.name = "p", .priority = kHighPriority, .req = kLargeRes},
            .pods = {{.name = "p1", .node = "node1"},
                     {.name = "p2", .node = "node2", .req = kMediumRes}},
            .nodes = {{"node1", kLargeNode}, {"node2", kLargeNode}},
            .node_labels = {{"node1", "true"}},
            .statuses = Unschedulable({"node1", "node2"}),
            .want_node = "node2",
        }),
    [](const ::testing::TestParamInfo<PostFilterCase>& info) { return CaseName(info.param.name); });

TEST(DefaultPreemptionPostFilter, PreemptionPolicyNeverLeavesNominationAlone) {
  Env env;
  env.AddNodes({"node1"}, kOnePodNode);
  env.AddPods({{.name = "p1", .node = "node1"}});
  api::Pod p = MakeTestPod({.name = "p", .priority = kHighPriority});
  p.spec.preemption_policy = api::PreemptionPolicy::kNever;
  const auto [s, result] = env.PostFilter(p, Unschedulable({"node1"}));
  EXPECT_EQ(s.code(), Code::kUnschedulable);
  EXPECT_EQ(s.Message(), "preemption: not eligible due to preemptionPolicy=Never.");
  EXPECT_EQ(result.mode, NominatingMode::kNoop);
  EXPECT_TRUE(env.fake.deleted.empty());
}

// ---- TestDryRunPreemption ----

struct DryRunCase {
  std::string name{};

  DefaultPreemptionArgs args{};
  std::vector<std::string> nodes{};
  std::vector<PodSpec> test_pods{};
  std::vector<PodSpec> init_pods{};
  std::vector<api::PodDisruptionBudget> pdbs{};
  Code fake_filter_code = Code::kSuccess;
  std::vector<int32_t> offsets{};  // per test pod; upstream's seeded draws
  std::vector<std::vector<std::string>> expected{};
  std::vector<int> expected_filter_calls{};
};

void PrintTo(const DryRunCase& c, std::ostream* os) { *os << c.name; }

class DefaultPreemptionDryRunTest : public ::testing::TestWithParam<DryRunCase> {};

TEST_P(DefaultPreemptionDryRunTest, Upstream) {
  const DryRunCase& tc = GetParam();
  Env env(tc.fake_filter_code);
  env.AddNodes(tc.nodes, kVeryLargeNode);
  env.AddPods(tc.init_pods);
  std::vector<const api::PodDisruptionBudget*> pdbs;
  for (const auto& pdb : tc.pdbs) pdbs.push_back(&pdb);
  auto plugin = env.Plugin(tc.args);
  const std::vector<NodeInfo*> nodes = env.SortedNodes();
  int previous_calls = 0;
  for (size_t cycle = 0; cycle < tc.test_pods.size(); ++cycle) {
    SCOPED_TRACE(fmt::format("cycle {}", cycle));
    const int32_t offset = cycle < tc.offsets.size() ? tc.offsets[cycle] : 0;
    const std::vector<Candidate> got =
        env.DryRun(*plugin, MakeTestPod(tc.test_pods[cycle]), nodes, pdbs, offset,
                   plugin->CalculateNumCandidates(static_cast<int32_t>(nodes.size())))
            .candidates;
    EXPECT_EQ(Describe(got), tc.expected[cycle]);
    EXPECT_EQ(env.filter_calls() - previous_calls, tc.expected_filter_calls[cycle]);
    previous_calls = env.filter_calls();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, DefaultPreemptionDryRunTest,
    ::testing::Values(
        DryRunCase{
            .name = "a pod that fits on both nodes when lower priority pods are preempted",
            .nodes = {"node1", "node2"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kLargeRes}},
            .init_pods =
                {{.name = "p1", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2", .node = "node2", .priority = kMidPriority, .req = kLargeRes}},
            .expected = {{"node1: p1 (0)", "node2: p2 (0)"}},
            .expected_filter_calls = {4},
        },
        DryRunCase{
            .name = "a pod that would fit on the nodes, but other pods running are higher priority",
            .nodes = {"node1", "node2"},
            .test_pods = {{.name = "p", .priority = kLowPriority, .req = kLargeRes}},
            .init_pods =
                {{.name = "p1", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2", .node = "node2", .priority = kMidPriority, .req = kLargeRes}},
            .expected = {{}},
            .expected_filter_calls = {0},
        },
        DryRunCase{
            .name = "medium priority pod is preempted, but lower priority one stays as it is small",
            .nodes = {"node1", "node2"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kLargeRes}},
            .init_pods =
                {{.name = "p1.1", .node = "node1", .priority = kLowPriority, .req = kSmallRes},
                 {.name = "p1.2", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2", .node = "node2", .priority = kMidPriority, .req = kLargeRes}},
            .expected = {{"node1: p1.2 (0)", "node2: p2 (0)"}},
            .expected_filter_calls = {5},
        },
        DryRunCase{
            .name = "mixed priority pods are preempted",
            .nodes = {"node1", "node2"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kLargeRes}},
            .init_pods =
                {{.name = "p1.1", .node = "node1", .priority = kMidPriority, .req = kSmallRes},
                 {.name = "p1.2", .node = "node1", .priority = kLowPriority, .req = kSmallRes},
                 {.name = "p1.3", .node = "node1", .priority = kMidPriority, .req = kMediumRes},
                 {.name = "p1.4", .node = "node1", .priority = kHighPriority, .req = kSmallRes},
                 {.name = "p2", .node = "node2", .priority = kHighPriority, .req = kLargeRes}},
            .expected = {{"node1: p1.2,p1.3 (0)"}},
            .expected_filter_calls = {4},
        },
        DryRunCase{
            .name = "mixed priority pods are preempted, pick later StartTime one when priorities "
                    "are equal",
            .nodes = {"node1", "node2"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kLargeRes}},
            .init_pods = {{.name = "p1.1",
                           .node = "node1",
                           .priority = kLowPriority,
                           .req = kSmallRes,
                           .start = EpochTime(5)},
                          {.name = "p1.2",
                           .node = "node1",
                           .priority = kLowPriority,
                           .req = kSmallRes,
                           .start = EpochTime(4)},
                          {.name = "p1.3",
                           .node = "node1",
                           .priority = kMidPriority,
                           .req = kMediumRes,
                           .start = EpochTime(3)},
                          {.name = "p1.4",
                           .node = "node1",
                           .priority = kHighPriority,
                           .req = kSmallRes,
                           .start = EpochTime(2)},
                          {.name = "p2",
                           .node = "node2",
                           .priority = kHighPriority,
                           .req = kLargeRes,
                           .start = EpochTime(1)}},
            .expected = {{"node1: p1.1,p1.3 (0)"}},
            .expected_filter_calls = {4},
        },
        DryRunCase{
            .name = "get Unschedulable in the preemption phase when the filter plugins filtering "
                    "the nodes",
            .nodes = {"node1", "node2"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kLargeRes}},
            .init_pods =
                {{.name = "p1", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2", .node = "node2", .priority = kMidPriority, .req = kLargeRes}},
            .fake_filter_code = Code::kUnschedulable,
            .expected = {{}},
            .expected_filter_calls = {2},
        },
        DryRunCase{
            .name = "preemption with violation of same pdb",
            .nodes = {"node1"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kVeryLargeRes}},
            .init_pods = FooVictimsOnNode1(2),
            .pdbs = {MakePDB("pdb", "app", "foo", 1)},
            .expected = {{"node1: p1.1,p1.2 (1)"}},
            .expected_filter_calls = {3},
        },
        // Upstream's three cases of a victim whose eviction the API server already processed.
        DryRunCase{
            .name = "pdb with a processed eviction, the victim not among DisruptedPods",
            .nodes = {"node1"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kVeryLargeRes}},
            .init_pods = FooVictimsOnNode1(2),
            .pdbs = {Disrupted(MakePDB("pdb", "app", "foo", 1), {"p2"})},
            .expected = {{"node1: p1.1,p1.2 (1)"}},
            .expected_filter_calls = {3},
        },
        DryRunCase{
            .name = "pdb with a processed eviction, the victim among DisruptedPods",
            .nodes = {"node1"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kVeryLargeRes}},
            .init_pods = FooVictimsOnNode1(2),
            .pdbs = {Disrupted(MakePDB("pdb", "app", "foo", 1), {"p1.2"})},
            .expected = {{"node1: p1.1,p1.2 (0)"}},
            .expected_filter_calls = {3},
        },
        DryRunCase{
            .name =
                "pdb with a processed eviction, the victim among DisruptedPods is non-violating",
            .nodes = {"node1"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kVeryLargeRes}},
            .init_pods = FooVictimsOnNode1(3),
            .pdbs = {Disrupted(MakePDB("pdb", "app", "foo", 1), {"p1.3"})},
            .expected = {{"node1: p1.1,p1.2,p1.3 (1)"}},
            .expected_filter_calls = {4},
        },
        DryRunCase{
            .name = "all nodes are possible candidates, but DefaultPreemptionArgs limits to 2",
            .args = {.min_candidate_nodes_percentage = 40, .min_candidate_nodes_absolute = 1},
            .nodes = {"node1", "node2", "node3", "node4", "node5"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kLargeRes}},
            .init_pods =
                {{.name = "p1", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2", .node = "node2", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p3", .node = "node3", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p4", .node = "node4", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p5", .node = "node5", .priority = kMidPriority, .req = kLargeRes}},
            .offsets = {4},
            .expected = {{"node1: p1 (0)", "node5: p5 (0)"}},
            .expected_filter_calls = {4},
        },
        DryRunCase{
            .name = "some nodes are not possible candidates, DefaultPreemptionArgs limits to 2",
            .args = {.min_candidate_nodes_percentage = 40, .min_candidate_nodes_absolute = 1},
            .nodes = {"node1", "node2", "node3", "node4", "node5"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kLargeRes}},
            .init_pods =
                {{.name = "p1", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2", .node = "node2", .priority = kVeryHighPriority, .req = kLargeRes},
                 {.name = "p3", .node = "node3", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p4", .node = "node4", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p5", .node = "node5", .priority = kVeryHighPriority, .req = kLargeRes}},
            .offsets = {4},
            .expected = {{"node1: p1 (0)", "node3: p3 (0)"}},
            .expected_filter_calls = {4},
        },
        DryRunCase{
            .name = "preemption offset across multiple scheduling cycles and wrap around",
            .args = {.min_candidate_nodes_percentage = 40, .min_candidate_nodes_absolute = 1},
            .nodes = {"node1", "node2", "node3", "node4", "node5"},
            .test_pods = {{.name = "tp1", .priority = kHighPriority, .req = kLargeRes},
                          {.name = "tp2", .priority = kHighPriority, .req = kLargeRes},
                          {.name = "tp3", .priority = kHighPriority, .req = kLargeRes}},
            .init_pods =
                {{.name = "p1", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2", .node = "node2", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p3", .node = "node3", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p4", .node = "node4", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p5", .node = "node5", .priority = kMidPriority, .req = kLargeRes}},
            .offsets = {4, 1, 3},
            .expected = {{"node1: p1 (0)", "node5: p5 (0)"},
                         {"node2: p2 (0)", "node3: p3 (0)"},
                         {"node4: p4 (0)", "node5: p5 (0)"}},
            .expected_filter_calls = {4, 4, 4},
        },
        DryRunCase{
            .name = "preemption looks past numCandidates until a non-PDB violating node is found",
            .args = {.min_candidate_nodes_percentage = 40, .min_candidate_nodes_absolute = 2},
            .nodes = {"node1", "node2", "node3", "node4", "node5"},
            .test_pods = {{.name = "p", .priority = kHighPriority, .req = kLargeRes}},
            .init_pods =
                {{.name = "p1",
                  .node = "node1",
                  .priority = kMidPriority,
                  .req = kLargeRes,
                  .labels = {{"app", "foo"}}},
                 {.name = "p2",
                  .node = "node2",
                  .priority = kMidPriority,
                  .req = kLargeRes,
                  .labels = {{"app", "foo"}}},
                 {.name = "p3", .node = "node3", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p4", .node = "node4", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p5",
                  .node = "node5",
                  .priority = kMidPriority,
                  .req = kLargeRes,
                  .labels = {{"app", "foo"}}}},
            .pdbs = {MakePDB("pdb", "app", "foo", 0)},
            .offsets = {4},
            .expected = {{"node1: p1 (1)", "node3: p3 (0)", "node5: p5 (1)"}},
            .expected_filter_calls = {8},
        }),
    [](const ::testing::TestParamInfo<DryRunCase>& info) { return CaseName(info.param.name); });

// Non-violating candidates come before violating ones, whatever the node order.
TEST(DefaultPreemptionDryRun, NonViolatingCandidatesFirst) {
  Env env;
  env.AddNodes({"node1", "node2"}, kVeryLargeNode);
  env.AddPods({{.name = "p1",
                .node = "node1",
                .priority = kMidPriority,
                .req = kLargeRes,
                .labels = {{"app", "foo"}}},
               {.name = "p2", .node = "node2", .priority = kMidPriority, .req = kLargeRes}});
  const api::PodDisruptionBudget pdb = MakePDB("pdb", "app", "foo", 0);
  const std::vector<const api::PodDisruptionBudget*> pdbs = {&pdb};
  const std::vector<Candidate> got =
      env.DryRun(*env.Plugin(),
                 MakeTestPod({.name = "p", .priority = kHighPriority, .req = kLargeRes}),
                 env.SortedNodes(), pdbs, 0, 2)
          .candidates;
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].node.str(), "node2");
  EXPECT_EQ(got[1].node.str(), "node1");
  EXPECT_EQ(got[1].num_pdb_violations, 1);
}

// Beyond one batch the nodes are evaluated in parallel; the candidates are still those a
// sequential run from the offset finds, stopping in the middle of the second batch.
TEST(DefaultPreemptionDryRun, ParallelBatchesKeepSequentialResult) {
  Env env;
  std::vector<std::string> names;
  for (int i = 0; i < 300; ++i) names.push_back(fmt::format("node{:03}", i));
  env.AddNodes(names, kVeryLargeNode);
  // Every third node runs a pod the preemptor may not evict.
  for (int i = 0; i < 300; ++i) {
    env.AddPods({{.name = fmt::format("v{:03}", i),
                  .node = names[i],
                  .priority = i % 3 == 0 ? kVeryHighPriority : kMidPriority,
                  .req = kLargeRes}});
  }
  auto plugin = env.Plugin();
  const int32_t wanted = plugin->CalculateNumCandidates(300);
  ASSERT_EQ(wanted, 100);
  std::vector<std::string> want;
  std::vector<std::string> skipped;
  for (int i = 0; want.size() < 100; ++i) {
    const int n = (250 + i) % 300;
    (n % 3 == 0 ? skipped : want).push_back(names[n]);
  }
  const auto [got, statuses, errors] =
      env.DryRun(*plugin, MakeTestPod({.name = "p", .priority = kHighPriority, .req = kLargeRes}),
                 env.SortedNodes(), {}, 250, wanted);
  std::vector<std::string> got_nodes;
  for (const Candidate& c : got) {
    got_nodes.push_back(c.node.string());
    ASSERT_EQ(c.victims.size(), 1u);
    EXPECT_EQ(c.victims[0]->pod.spec.node_name, c.node);
  }
  EXPECT_EQ(got_nodes, want);
  // Only nodes before the stopping point have statuses.
  EXPECT_EQ(statuses.size(), skipped.size());
  for (const std::string& n : skipped) {
    EXPECT_EQ(statuses.Get(api::Symbol(n)).Message(), kNoVictims) << n;
  }
  EXPECT_TRUE(errors.empty());
}

// A higher-priority pod nominated to a node keeps its room: the preemptor must fit beside it.
TEST(DefaultPreemptionDryRun, RespectsNominatedPodsOfHigherPriority) {
  Env env;
  env.AddNodes({"node1", "node2"}, kVeryLargeNode);
  env.AddPods({{.name = "p1", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
               {.name = "p2", .node = "node2", .priority = kMidPriority, .req = kLargeRes}});
  env.fake.Nominate(MakeTestPod({.name = "n", .priority = kVeryHighPriority, .req = kLargeRes}),
                    api::Symbol("node1"));
  const auto [got, statuses, errors] = env.DryRun(
      *env.Plugin(), MakeTestPod({.name = "p", .priority = kHighPriority, .req = kLargeRes}),
      env.SortedNodes(), {}, 0, 2);
  EXPECT_EQ(Describe(got), std::vector<std::string>{"node2: p2 (0)"});
  EXPECT_EQ(statuses.Get(api::Symbol("node1")).Message(), "Insufficient cpu, Insufficient memory");
}

// ---- TestSelectBestCandidate ----

struct SelectCase {
  std::string name{};

  std::vector<std::string> nodes{};
  PodSpec pod{};
  std::vector<PodSpec> pods{};
  std::vector<std::string> expected{};  // any of them
};

void PrintTo(const SelectCase& c, std::ostream* os) { *os << c.name; }

class DefaultPreemptionSelectBestCandidateTest : public ::testing::TestWithParam<SelectCase> {};

TEST_P(DefaultPreemptionSelectBestCandidateTest, Upstream) {
  const SelectCase& tc = GetParam();
  Env env;
  env.AddNodes(tc.nodes, kVeryLargeNode);
  env.AddPods(tc.pods);
  const api::Pod pod = MakeTestPod(tc.pod);
  auto plugin = env.Plugin();
  const std::vector<NodeInfo*>& nodes = env.fake.snapshot().List();
  const auto n = static_cast<int32_t>(nodes.size());
  const std::vector<Candidate> candidates =
      env.DryRun(*plugin, pod, nodes, {}, DefaultPreemption::Offset(pod, n),
                 plugin->CalculateNumCandidates(n))
          .candidates;
  const Candidate* best = plugin->SelectCandidate(candidates);
  ASSERT_NE(best, nullptr);
  EXPECT_NE(std::find(tc.expected.begin(), tc.expected.end(), best->node.str()), tc.expected.end())
      << best->node.str();
}

std::vector<PodSpec> WithStart(std::vector<PodSpec> pods, api::Time start) {
  for (PodSpec& p : pods) {
    if (!p.start) p.start = start;
  }
  return pods;
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, DefaultPreemptionSelectBestCandidateTest,
    ::testing::Values(
        SelectCase{
            .name = "a pod that fits on both nodes when lower priority pods are preempted",
            .nodes = {"node1", "node2"},
            .pod = {.name = "p", .priority = kHighPriority, .req = kLargeRes},
            .pods = WithStart(
                {{.name = "p1", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2", .node = "node2", .priority = kMidPriority, .req = kLargeRes}},
                EpochTime(0)),
            .expected = {"node1", "node2"},
        },
        SelectCase{
            .name = "node with min highest priority pod is picked",
            .nodes = {"node1", "node2", "node3"},
            .pod = {.name = "p", .priority = kHighPriority, .req = kVeryLargeRes},
            .pods = WithStart(
                {{.name = "p1.1", .node = "node1", .priority = kMidPriority, .req = kMediumRes},
                 {.name = "p1.2", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2.1", .node = "node2", .priority = kMidPriority, .req = kMediumRes},
                 {.name = "p2.2", .node = "node2", .priority = kLowPriority, .req = kMediumRes},
                 {.name = "p3.1", .node = "node3", .priority = kLowPriority, .req = kMediumRes},
                 {.name = "p3.2", .node = "node3", .priority = kLowPriority, .req = kMediumRes}},
                EpochTime(0)),
            .expected = {"node3"},
        },
        SelectCase{
            .name = "when highest priorities are the same, minimum sum of priorities is picked",
            .nodes = {"node1", "node2", "node3"},
            .pod = {.name = "p", .priority = kHighPriority, .req = kVeryLargeRes},
            .pods = WithStart(
                {{.name = "p1.1", .node = "node1", .priority = kMidPriority, .req = kMediumRes},
                 {.name = "p1.2", .node = "node1", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2.1", .node = "node2", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2.2", .node = "node2", .priority = kLowPriority, .req = kMediumRes},
                 {.name = "p3.1", .node = "node3", .priority = kMidPriority, .req = kMediumRes},
                 {.name = "p3.2", .node = "node3", .priority = kMidPriority, .req = kMediumRes}},
                EpochTime(0)),
            .expected = {"node2"},
        },
        SelectCase{
            .name = "when highest priority and sum are the same, minimum number of pods is picked",
            .nodes = {"node1", "node2", "node3"},
            .pod = {.name = "p", .priority = kHighPriority, .req = kVeryLargeRes},
            .pods = WithStart(
                {{.name = "p1.1", .node = "node1", .priority = kMidPriority, .req = kSmallRes},
                 {.name = "p1.2", .node = "node1", .priority = kNegPriority, .req = kSmallRes},
                 {.name = "p1.3", .node = "node1", .priority = kMidPriority, .req = kSmallRes},
                 {.name = "p1.4", .node = "node1", .priority = kNegPriority, .req = kSmallRes},
                 {.name = "p2.1", .node = "node2", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2.2", .node = "node2", .priority = kNegPriority, .req = kMediumRes},
                 {.name = "p3.1", .node = "node3", .priority = kMidPriority, .req = kMediumRes},
                 {.name = "p3.2", .node = "node3", .priority = kNegPriority, .req = kSmallRes},
                 {.name = "p3.3", .node = "node3", .priority = kLowPriority, .req = kSmallRes}},
                EpochTime(0)),
            .expected = {"node2"},
        },
        SelectCase{
            .name = "sum of adjusted priorities is considered",
            .nodes = {"node1", "node2", "node3"},
            .pod = {.name = "p", .priority = kHighPriority, .req = kVeryLargeRes},
            .pods = WithStart(
                {{.name = "p1.1", .node = "node1", .priority = kMidPriority, .req = kSmallRes},
                 {.name = "p1.2", .node = "node1", .priority = kNegPriority, .req = kSmallRes},
                 {.name = "p1.3", .node = "node1", .priority = kNegPriority, .req = kSmallRes},
                 {.name = "p2.1", .node = "node2", .priority = kMidPriority, .req = kLargeRes},
                 {.name = "p2.2", .node = "node2", .priority = kNegPriority, .req = kMediumRes},
                 {.name = "p3.1", .node = "node3", .priority = kMidPriority, .req = kMediumRes},
                 {.name = "p3.2", .node = "node3", .priority = kNegPriority, .req = kSmallRes},
                 {.name = "p3.3", .node = "node3", .priority = kLowPriority, .req = kSmallRes}},
                EpochTime(0)),
            .expected = {"node2"},
        },
        SelectCase{
            .name = "non-overlapping lowest high priority, sum priorities, and number of pods",
            .nodes = {"node1", "node2", "node3", "node4"},
            .pod = {.name = "p", .priority = kVeryHighPriority, .req = kVeryLargeRes},
            .pods = WithStart(
                {{.name = "p1.1", .node = "node1", .priority = kMidPriority, .req = kSmallRes},
                 {.name = "p1.2", .node = "node1", .priority = kLowPriority, .req = kSmallRes},
                 {.name = "p1.3", .node = "node1", .priority = kLowPriority, .req = kSmallRes},
                 {.name = "p2.1", .node = "node2", .priority = kHighPriority, .req = kLargeRes},
                 {.name = "p3.1", .node = "node3", .priority = kMidPriority, .req = kMediumRes},
                 {.name = "p3.2", .node = "node3", .priority = kLowPriority, .req = kSmallRes},
                 {.name = "p3.3", .node = "node3", .priority = kLowPriority, .req = kSmallRes},
                 {.name = "p3.4", .node = "node3", .priority = kLowPriority, .req = kMediumRes},
                 {.name = "p4.1", .node = "node4", .priority = kMidPriority, .req = kMediumRes},
                 {.name = "p4.2", .node = "node4", .priority = kMidPriority, .req = kSmallRes},
                 {.name = "p4.3", .node = "node4", .priority = kMidPriority, .req = kSmallRes},
                 {.name = "p4.4", .node = "node4", .priority = kNegPriority, .req = kSmallRes}},
                EpochTime(0)),
            .expected = {"node1"},
        },
        SelectCase{
            .name = "same priority, same number of victims, different start time for each node's "
                    "pod",
            .nodes = {"node1", "node2", "node3"},
            .pod = {.name = "p", .priority = kHighPriority, .req = kVeryLargeRes},
            .pods = {{.name = "p1.1",
                      .node = "node1",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(2)},
                     {.name = "p1.2",
                      .node = "node1",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(2)},
                     {.name = "p2.1",
                      .node = "node2",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(3)},
                     {.name = "p2.2",
                      .node = "node2",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(3)},
                     {.name = "p3.1",
                      .node = "node3",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(1)},
                     {.name = "p3.2",
                      .node = "node3",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(1)}},
            .expected = {"node2"},
        },
        SelectCase{
            .name = "same priority, same number of victims, different start time for all pods",
            .nodes = {"node1", "node2", "node3"},
            .pod = {.name = "p", .priority = kHighPriority, .req = kVeryLargeRes},
            .pods = {{.name = "p1.1",
                      .node = "node1",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(4)},
                     {.name = "p1.2",
                      .node = "node1",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(2)},
                     {.name = "p2.1",
                      .node = "node2",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(5)},
                     {.name = "p2.2",
                      .node = "node2",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(1)},
                     {.name = "p3.1",
                      .node = "node3",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(3)},
                     {.name = "p3.2",
                      .node = "node3",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(6)}},
            .expected = {"node3"},
        },
        SelectCase{
            .name = "different priority, same number of victims, different start time for all "
                    "pods",
            .nodes = {"node1", "node2", "node3"},
            .pod = {.name = "p", .priority = kHighPriority, .req = kVeryLargeRes},
            .pods = {{.name = "p1.1",
                      .node = "node1",
                      .priority = kLowPriority,
                      .req = kMediumRes,
                      .start = EpochTime(4)},
                     {.name = "p1.2",
                      .node = "node1",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(2)},
                     {.name = "p2.1",
                      .node = "node2",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(6)},
                     {.name = "p2.2",
                      .node = "node2",
                      .priority = kLowPriority,
                      .req = kMediumRes,
                      .start = EpochTime(1)},
                     {.name = "p3.1",
                      .node = "node3",
                      .priority = kLowPriority,
                      .req = kMediumRes,
                      .start = EpochTime(3)},
                     {.name = "p3.2",
                      .node = "node3",
                      .priority = kMidPriority,
                      .req = kMediumRes,
                      .start = EpochTime(5)}},
            .expected = {"node2"},
        }),
    [](const ::testing::TestParamInfo<SelectCase>& info) { return CaseName(info.param.name); });

// ---- TestCustomSelection and TestCustomOrdering ----

DefaultPreemption::IsEligiblePodFn PodLabelIsEligible(std::string key, std::string value) {
  return [key, value](const NodeInfo&, const PodInfo& victim, const api::Pod&) {
    const api::Symbol* v = victim.pod.metadata.labels.Get(api::Symbol(key));
    return v != nullptr && v->str() == value;
  };
}

DefaultPreemption::IsEligiblePodFn NodeNameIsEligible(std::string name) {
  return [name](const NodeInfo& node, const PodInfo&, const api::Pod&) {
    return node.name().str() == name;
  };
}

struct CustomSelectionCase {
  std::string name{};

  DefaultPreemption::IsEligiblePodFn eligible{};
  std::vector<std::string> nodes{};
  PodSpec pod{};
  std::vector<PodSpec> pods{};
  std::map<std::string, std::vector<std::string>> expected{};  // node: victims in order
};

void PrintTo(const CustomSelectionCase& c, std::ostream* os) { *os << c.name; }

class DefaultPreemptionCustomSelectionTest : public ::testing::TestWithParam<CustomSelectionCase> {
};

TEST_P(DefaultPreemptionCustomSelectionTest, Upstream) {
  const CustomSelectionCase& tc = GetParam();
  Env env;
  env.AddNodes(tc.nodes, kVeryLargeNode);
  env.AddPods(WithStart(tc.pods, EpochTime(0)));
  auto plugin = env.Plugin();
  plugin->SetIsEligiblePod(tc.eligible);
  const std::vector<NodeInfo*>& nodes = env.fake.snapshot().List();
  const auto n = static_cast<int32_t>(nodes.size());
  std::vector<Candidate> candidates =
      env.DryRun(*plugin, MakeTestPod(tc.pod), nodes, {}, 0, plugin->CalculateNumCandidates(n))
          .candidates;
  ASSERT_EQ(candidates.size(), tc.expected.size());
  while (!candidates.empty()) {
    const Candidate* selected = plugin->SelectCandidate(candidates);
    ASSERT_NE(selected, nullptr);
    auto it = tc.expected.find(selected->node.string());
    ASSERT_NE(it, tc.expected.end()) << selected->node.str();
    std::vector<std::string> victims;
    for (const PodInfoPtr& v : selected->victims) victims.push_back(v->pod.metadata.name);
    EXPECT_EQ(victims, it->second);
    const api::Symbol chosen = selected->node;
    std::erase_if(candidates, [&](const Candidate& c) { return c.node == chosen; });
  }
}

INSTANTIATE_TEST_SUITE_P(
    Upstream, DefaultPreemptionCustomSelectionTest,
    ::testing::Values(
        CustomSelectionCase{
            .name = "filter for matching pod label: high priority",
            .eligible = PodLabelIsEligible("preemptible", "yes"),
            .nodes = {"node1", "node2", "node3", "node4"},
            .pod = {.name = "p1", .priority = kHighPriority, .req = kLargeRes},
            .pods = {{.name = "v1",
                      .node = "node1",
                      .priority = kMidPriority,
                      .req = kLargeRes,
                      .labels = {{"preemptible", "no"}}},
                     {.name = "v2",
                      .node = "node2",
                      .priority = kMidPriority,
                      .req = kLargeRes,
                      .labels = {{"preemptible", "yes"}}},
                     {.name = "v3",
                      .node = "node3",
                      .priority = kLowPriority,
                      .req = kLargeRes,
                      .labels = {{"preemptible", "yes"}}},
                     {.name = "v4", .node = "node4", .priority = kLowPriority, .req = kLargeRes}},
            .expected = {{"node2", {"v2"}}, {"node3", {"v3"}}},
        },
        CustomSelectionCase{
            .name = "filter for matching pod label: mid priority",
            .eligible = PodLabelIsEligible("preemptible", "yes"),
            .nodes = {"node1", "node2", "node3", "node4"},
            .pod = {.name = "p2", .priority = kMidPriority, .req = kLargeRes},
            .pods = {{.name = "v1",
                      .node = "node1",
                      .priority = kMidPriority,
                      .req = kLargeRes,
                      .labels = {{"preemptible", "no"}}},
                     {.name = "v2",
                      .node = "node2",
                      .priority = kMidPriority,
                      .req = kLargeRes,
                      .labels = {{"preemptible", "yes"}}},
                     {.name = "v3",
                      .node = "node3",
                      .priority = kLowPriority,
                      .req = kLargeRes,
                      .labels = {{"preemptible", "yes"}}},
                     {.name = "v4", .node = "node4", .priority = kLowPriority, .req = kLargeRes}},
            .expected = {{"node3", {"v3"}}},
        },
        CustomSelectionCase{
            .name = "filter for matching victim node: high priority",
            .eligible = NodeNameIsEligible("node1"),
            .nodes = {"node1", "node2", "node3"},
            .pod = {.name = "p3", .priority = kHighPriority, .req = kLargeRes},
            .pods = {{.name = "v1", .node = "node1", .priority = kHighPriority, .req = kMediumRes},
                     {.name = "v2", .node = "node1", .priority = kMidPriority, .req = kSmallRes},
                     {.name = "v3", .node = "node1", .priority = kLowPriority, .req = kSmallRes},
                     {.name = "v4", .node = "node2", .priority = kMidPriority, .req = kLargeRes},
                     {.name = "v5", .node = "node3", .priority = kLowPriority, .req = kLargeRes}},
            .expected = {{"node1", {"v2", "v3"}}},
        },
        CustomSelectionCase{
            .name = "filter for matching victim node: mid priority",
            .eligible = NodeNameIsEligible("node1"),
            .nodes = {"node1", "node2", "node3"},
            .pod = {.name = "p3", .priority = kMidPriority, .req = kLargeRes},
            .pods = {{.name = "v1", .node = "node1", .priority = kHighPriority, .req = kSmallRes},
                     {.name = "v2", .node = "node1", .priority = kMidPriority, .req = kSmallRes},
                     {.name = "v3", .node = "node1", .priority = kLowPriority, .req = kSmallRes},
                     {.name = "v4", .node = "node2", .priority = kMidPriority, .req = kLargeRes},
                     {.name = "v5", .node = "node3", .priority = kLowPriority, .req = kLargeRes}},
            .expected = {{"node1", {"v3"}}},
        }),
    [](const ::testing::TestParamInfo<CustomSelectionCase>& info) {
      return CaseName(info.param.name);
    });

TEST(DefaultPreemptionCustomOrdering, SelectNewestPods) {
  Env env;
  env.AddNodes({"node1"}, kVeryLargeNode);
  env.AddPods({{.name = "v1",
                .node = "node1",
                .priority = kLowPriority,
                .req = kMediumRes,
                .start = EpochTime(2)},
               {.name = "v2",
                .node = "node1",
                .priority = kLowPriority,
                .req = kMediumRes,
                .start = EpochTime(0)},
               {.name = "v3",
                .node = "node1",
                .priority = kMidPriority,
                .req = kMediumRes,
                .start = EpochTime(1)}});
  auto plugin = env.Plugin();
  const api::Time now = env.fake.clock().Now();
  plugin->SetMoreImportantPod([now](const api::Pod& a, const api::Pod& b) {
    return a.status.start_time.value_or(now) < b.status.start_time.value_or(now);
  });
  const std::vector<Candidate> got =
      env.DryRun(*plugin, MakeTestPod({.name = "p2", .priority = kHighPriority, .req = kLargeRes}),
                 env.fake.snapshot().List(), {}, 0, 1)
          .candidates;
  ASSERT_EQ(got.size(), 1u);
  std::vector<std::string> victims;
  for (const PodInfoPtr& v : got[0].victims) victims.push_back(v->pod.metadata.name);
  EXPECT_EQ(victims, (std::vector<std::string>{"v3", "v1"}));
}

TEST(DefaultPreemptionCustomOrdering, SelectAlphabeticallyLastPods) {
  Env env;
  env.AddNodes({"node1"}, kVeryLargeNode);
  env.AddPods({{.name = "foo", .node = "node1", .priority = kLowPriority, .req = kMediumRes},
               {.name = "bar", .node = "node1", .priority = kLowPriority, .req = kMediumRes},
               {.name = "baz", .node = "node1", .priority = kMidPriority, .req = kMediumRes}});
  auto plugin = env.Plugin();
  plugin->SetMoreImportantPod(
      [](const api::Pod& a, const api::Pod& b) { return a.metadata.name < b.metadata.name; });
  const std::vector<Candidate> got =
      env.DryRun(*plugin, MakeTestPod({.name = "p2", .priority = kHighPriority, .req = kLargeRes}),
                 env.fake.snapshot().List(), {}, 0, 1)
          .candidates;
  ASSERT_EQ(got.size(), 1u);
  std::vector<std::string> victims;
  for (const PodInfoPtr& v : got[0].victims) victims.push_back(v->pod.metadata.name);
  EXPECT_EQ(victims, (std::vector<std::string>{"baz", "foo"}));
}

// ---- TestPodEligibleToPreemptOthers ----

// Being deleted, with a DisruptionTarget condition of `reason` unless it is empty.
api::Pod Terminating(api::Pod pod, std::string_view reason) {
  pod.metadata.deletion_timestamp = EpochTime(0);
  if (!reason.empty()) {
    pod.status.conditions.push_back(api::Condition{api::Symbol("DisruptionTarget"),
                                                   api::Symbol("True"), std::string(reason), "",
                                                   std::nullopt});
  }
  return pod;
}

TEST(DefaultPreemptionEligibility, Upstream) {
  struct Case {
    std::string name;
    std::string nominated_node;
    bool never = false;
    std::optional<api::Pod> victim;
    Status nominated_status;
    bool expected;
    std::string_view reason = {};
  };
  const api::Pod low = MakeTestPod({.name = "p1", .node = "node1", .priority = kLowPriority});
  const std::vector<Case> cases = {
      {"Pod with nominated node", "node1", false, Terminating(low, ""),
       Status::Unresolvable("node(s) had untolerated taint"), true},
      {"Pod without nominated node", "", false, std::nullopt, Status::OK(), true},
      {"Pod with 'PreemptNever' preemption policy", "", true, std::nullopt, Status::OK(), false,
       kNotEligiblePreemptNever},
      {"preemption victim pod terminating, as indicated by the dedicated DisruptionTarget "
       "condition",
       "node1", false, Terminating(low, "PreemptionByScheduler"), Status::OK(), false,
       kNotEligibleTerminating},
      {"non-victim Pods terminating", "node1", false, Terminating(low, ""), Status::OK(), true},
      {"pod disrupted for another reason", "node1", false,
       Terminating(low, "EvictionByEvictionAPI"), Status::OK(), true},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    Env env;
    env.AddNodes({"node1"}, kVeryLargeNode);
    if (tc.victim) env.fake.AddPod(*tc.victim);
    api::Pod pod = MakeTestPod({.name = "p", .priority = kHighPriority});
    pod.status.nominated_node_name = api::Symbol(tc.nominated_node);
    if (tc.never) pod.spec.preemption_policy = api::PreemptionPolicy::kNever;
    std::string reason;
    EXPECT_EQ(env.Plugin()->PodEligibleToPreemptOthers(pod, tc.nominated_status, &reason),
              tc.expected);
    EXPECT_EQ(reason, tc.reason);
  }
}

// ---- TestPreempt (the whole PostFilter, with the cluster writes) ----

// TestPreempt's cluster: node1 with two low-priority pods, node2 with a high-priority one, node3
// with one of middle priority; each node has room for the preemptor only once emptied.
void AddPreemptCluster(Env& env) {
  env.AddNodes({"node1", "node2", "node3"}, kVeryLargeNode);
  env.AddPods({{.name = "p1.1", .node = "node1", .priority = kLowPriority, .req = kSmallRes},
               {.name = "p1.2", .node = "node1", .priority = kLowPriority, .req = kSmallRes},
               {.name = "p2.1", .node = "node2", .priority = kHighPriority, .req = kLargeRes},
               {.name = "p3.1", .node = "node3", .priority = kMidPriority, .req = kMediumRes}});
}

TEST(DefaultPreemptionPreempt, BasicPreemptionLogic) {
  Env env;
  AddPreemptCluster(env);
  api::Pod p = MakeTestPod({.name = "p", .priority = kHighPriority, .req = kVeryLargeRes});
  p.spec.preemption_policy = api::PreemptionPolicy::kPreemptLowerPriority;
  const auto [s, result] = env.PostFilter(p, Unschedulable({"node1", "node2", "node3"}));
  ASSERT_TRUE(s.IsSuccess()) << ToString(s);
  EXPECT_EQ(result.nominated_node_name.str(), "node1");
  EXPECT_EQ(result.mode, NominatingMode::kOverride);
  std::vector<std::string> deleted = env.fake.deleted;
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted, (std::vector<std::string>{"default/p1.1", "default/p1.2"}));
  ASSERT_EQ(env.fake.events.size(), 2u);
  for (const framework::EventRecord& e : env.fake.events) {
    EXPECT_EQ(e.reason, "Preempted");
    EXPECT_EQ(e.type, "Normal");
    EXPECT_EQ(e.action, "Preempting");
    EXPECT_EQ(e.message, "Preempted by default/p on node node1");
    ASSERT_TRUE(e.related.has_value());
    EXPECT_EQ(e.related->Key(), "default/p");
    EXPECT_EQ(e.related->uid, p.metadata.uid);
  }
}

TEST(DefaultPreemptionPreempt, PreemptionPolicyNilPreempts) {
  Env env;
  AddPreemptCluster(env);
  const auto [s, result] =
      env.PostFilter(MakeTestPod({.name = "p", .priority = kHighPriority, .req = kVeryLargeRes}),
                     Unschedulable({"node1", "node2", "node3"}));
  ASSERT_TRUE(s.IsSuccess());
  EXPECT_EQ(result.nominated_node_name.str(), "node1");
  EXPECT_EQ(env.fake.deleted.size(), 2u);
}

// A victim waiting at Permit is rejected there instead of deleted; one already being deleted is
// left alone; pods of lower priority nominated to the node lose their nomination.
TEST(DefaultPreemptionPreempt, PrepareCandidateEvictsAndClearsNominations) {
  Env env;
  env.AddNodes({"node1"}, kVeryLargeNode);
  const api::Pod waiting =
      MakeTestPod({.name = "w", .node = "node1", .priority = kLowPriority, .req = kSmallRes});
  api::Pod deleting =
      MakeTestPod({.name = "d", .node = "node1", .priority = kLowPriority, .req = kSmallRes});
  deleting.metadata.deletion_timestamp = EpochTime(0);
  env.fake.AddPod(waiting);
  env.fake.AddPod(deleting);
  env.AddPods({{.name = "v", .node = "node1", .priority = kLowPriority, .req = kMediumRes}});
  FakeServices::FakeWaitingPod& w =
      env.fake.AddWaitingPod(waiting, api::Symbol("node1"), {"SomePermit"});
  env.fake.Nominate(MakeTestPod({.name = "lower", .priority = kLowPriority}), api::Symbol("node1"));
  env.fake.Nominate(MakeTestPod({.name = "higher", .priority = kVeryHighPriority}),
                    api::Symbol("node1"));

  const auto [s, result] =
      env.PostFilter(MakeTestPod({.name = "p", .priority = kHighPriority, .req = kVeryLargeRes}),
                     Unschedulable({"node1"}));
  ASSERT_TRUE(s.IsSuccess()) << ToString(s);
  EXPECT_EQ(result.nominated_node_name.str(), "node1");
  EXPECT_EQ(env.fake.deleted, std::vector<std::string>{"default/v"});
  ASSERT_EQ(w.rejected_by.size(), 1u);
  EXPECT_EQ(w.rejected_by[0],
            (std::pair<std::string, std::string>{"DefaultPreemption", "preempted"}));
  std::vector<std::string> evented;
  for (const auto& e : env.fake.events) evented.push_back(e.regarding.name);
  std::sort(evented.begin(), evented.end());
  EXPECT_EQ(evented, (std::vector<std::string>{"v", "w"}));
  ASSERT_EQ(env.fake.condition_updates.size(), 1u);
  EXPECT_EQ(env.fake.condition_updates[0].first, "default/lower");
  EXPECT_EQ(env.fake.condition_updates[0].second.type.str(), "PodScheduled");
}

// `muster run` learns of its deletions from the informer, which lags behind its writes. A retry
// in that window finds the victims still running: it deletes none of them again and records no
// second event; with the nomination the scheduler made (which the informer's copy of the pod
// does not show yet) it waits for them as for victims the informer shows being deleted. A
// deletion that has not shown after two minutes is taken as failed: the victims may be
// preempted again.
TEST(DefaultPreemptionPreempt, ARetryBeforeTheDeletionsShowDeletesNothingTwice) {
  Env env;
  AddPreemptCluster(env);
  const PodInfoPtr pod =
      PodInfo::Make(MakeTestPod({.name = "p", .priority = kHighPriority, .req = kVeryLargeRes}));
  const std::unique_ptr<DefaultPreemption> plugin = env.Plugin();
  auto state = env.PreFilter(*pod);
  const framework::NodeToStatus statuses = Unschedulable({"node1", "node2", "node3"});
  auto post_filter = [&] {
    framework::PostFilterResult result;
    const Status s = plugin->PostFilter(*state, *pod, statuses, &result);
    return std::pair(s, result.nominated_node_name.string());
  };
  const std::vector<std::string> victims = {"default/p1.1", "default/p1.2"};
  auto sorted = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
  };

  auto [first, first_node] = post_filter();
  ASSERT_TRUE(first.IsSuccess()) << ToString(first);
  EXPECT_EQ(first_node, "node1");
  EXPECT_EQ(sorted(env.fake.deleted), victims);
  ASSERT_EQ(env.fake.events.size(), 2u);

  // Retried before the scheduler nominated it: the same victims, nothing written again.
  auto [again, again_node] = post_filter();
  ASSERT_TRUE(again.IsSuccess()) << ToString(again);
  EXPECT_EQ(again_node, "node1");
  EXPECT_EQ(env.fake.deleted.size(), 2u);
  EXPECT_EQ(env.fake.events.size(), 2u);

  // Nominated to node1 by the scheduler, the pod's own field still empty: it waits.
  ASSERT_TRUE(pod->pod.status.nominated_node_name.empty());
  env.fake.Nominate(pod->pod, api::Symbol("node1"));
  auto [waits, waits_node] = post_filter();
  EXPECT_EQ(waits.code(), Code::kUnschedulable);
  EXPECT_EQ(waits.Message(), fmt::format("preemption: {}", kNotEligibleTerminating));
  EXPECT_EQ(waits_node, "");
  EXPECT_EQ(env.fake.deleted.size(), 2u);

  // Still running two minutes on: the deletions failed, and are asked for again.
  env.fake.virtual_clock().AdvanceTo(env.fake.virtual_clock().Now() + std::chrono::minutes(2));
  auto [retried, retried_node] = post_filter();
  ASSERT_TRUE(retried.IsSuccess()) << ToString(retried);
  EXPECT_EQ(retried_node, "node1");
  ASSERT_EQ(env.fake.deleted.size(), 4u);
  EXPECT_EQ(sorted({env.fake.deleted[2], env.fake.deleted[3]}), victims);
  EXPECT_EQ(env.fake.events.size(), 4u);
}

// ---- pieces ----

TEST(DefaultPreemptionNumCandidates, Formula) {
  struct Case {
    int32_t nodes, percentage, absolute, want;
  };
  for (const Case& c : std::vector<Case>{{0, 50, 10, 0},
                                         {100, 50, 10, 50},
                                         {10000, 20, 0, 2000},
                                         {100, 0, 50, 50},
                                         {10000, 0, 500, 500},
                                         {100, 50, 80, 80},
                                         {10000, 20, 1000, 2000},
                                         {5, 10, 100, 5},
                                         {10, 5, 0, 0}}) {
    Env env;
    auto plugin = env.Plugin({c.percentage, c.absolute});
    EXPECT_EQ(plugin->CalculateNumCandidates(c.nodes), c.want)
        << c.nodes << " " << c.percentage << " " << c.absolute;
  }
}

TEST(DefaultPreemptionOffset, DeterministicAndInRange) {
  const api::Pod a = MakeTestPod({.name = "a"});
  EXPECT_EQ(DefaultPreemption::Offset(a, 0), 0);
  EXPECT_EQ(DefaultPreemption::Offset(a, 1000), DefaultPreemption::Offset(a, 1000));
  bool differs = false;
  for (int i = 0; i < 20; ++i) {
    const api::Pod p = MakeTestPod({.name = fmt::format("pod{}", i)});
    const int32_t o = DefaultPreemption::Offset(p, 7);
    EXPECT_GE(o, 0);
    EXPECT_LT(o, 7);
    differs |= o != DefaultPreemption::Offset(a, 7);
  }
  EXPECT_TRUE(differs);
}

TEST(DefaultPreemptionPDB, CountsDownPerBudget) {
  auto info = [](PodSpec s) { return PodInfo::Make(MakeTestPod(s)); };
  const std::vector<PodInfoPtr> pods = {
      info({.name = "a", .labels = {{"app", "foo"}}}),
      info({.name = "b", .labels = {{"app", "foo"}}}),
      info({.name = "c"}),                              // no labels: never violating
      info({.name = "d", .labels = {{"app", "bar"}}}),  // matched by no budget
  };
  api::PodDisruptionBudget foo = MakePDB("foo", "app", "foo", 1);
  api::PodDisruptionBudget other_ns = MakePDB("other", "app", "bar", 0);
  other_ns.metadata.namespace_ = api::Symbol("elsewhere");
  api::PodDisruptionBudget empty_selector = MakePDB("empty", "app", "bar", 0);
  empty_selector.selector = api::LabelSelector{};
  const std::vector<const api::PodDisruptionBudget*> pdbs = {&foo, &other_ns, &empty_selector};
  std::vector<PodInfoPtr> violating;
  std::vector<PodInfoPtr> non_violating;
  FilterPodsWithPDBViolation(pods, pdbs, &violating, &non_violating);
  ASSERT_EQ(violating.size(), 1u);
  EXPECT_EQ(violating[0]->pod.metadata.name, "b");
  ASSERT_EQ(non_violating.size(), 3u);
  EXPECT_EQ(non_violating[0]->pod.metadata.name, "a");
  EXPECT_EQ(non_violating[1]->pod.metadata.name, "c");
  EXPECT_EQ(non_violating[2]->pod.metadata.name, "d");
}

TEST(DefaultPreemptionPickOne, FewestPDBViolationsFirst) {
  auto victim = [](std::string name, int32_t priority) {
    return PodInfo::Make(MakeTestPod({.name = std::move(name), .priority = priority}));
  };
  const std::vector<Candidate> candidates = {
      {api::Symbol("node1"), {victim("a", kLowPriority)}, 1},
      {api::Symbol("node2"), {victim("b", kHighPriority), victim("c", kMidPriority)}, 0},
  };
  const Candidate* best = PickOneNodeForPreemption(candidates, EpochTime(0));
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->node.str(), "node2");
  EXPECT_EQ(PickOneNodeForPreemption({}, EpochTime(0)), nullptr);
}

TEST(DefaultPreemptionCreate, InvalidArgsRejected) {
  FakeServices fake;
  std::string error;
  EXPECT_EQ(DefaultPreemption::Create({0, 0}, fake.handle(), &error), nullptr);
  EXPECT_EQ(error,
            "minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
            "minCandidateNodesAbsolute\n"
            "minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as "
            "minCandidateNodesPercentage");
}

// ---- Gangs evicted whole (upstream's PodGroup victims, with every Coscheduling PodGroup) ----

api::PodGroup CoschedulingGroup(std::string_view name) {
  api::PodGroup g;
  g.metadata.name = std::string(name);
  g.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
  g.spec.min_member = 2;
  return g;
}

// node1 and node2 (500m each) each hold a member of gang g (300m) and a lone pod (200m), all of
// low priority.
void AddGangCluster(Env& env, int32_t second_member_priority = kLowPriority) {
  env.AddNodes({"node1", "node2"}, kVeryLargeNode);
  env.fake.AddObject(CoschedulingGroup("g"));
  const std::map<std::string, std::string> in_g = {{std::string(api::kPodGroupLabel), "g"}};
  env.AddPods(
      {{.name = "g.1", .node = "node1", .priority = kLowPriority, .req = kLargeRes, .labels = in_g},
       {.name = "g.2",
        .node = "node2",
        .priority = second_member_priority,
        .req = kLargeRes,
        .labels = in_g},
       {.name = "a.1", .node = "node1", .priority = kLowPriority, .req = kMediumRes},
       {.name = "a.2", .node = "node2", .priority = kLowPriority, .req = kMediumRes}});
}

TEST(DefaultPreemptionGangVictims, GangMemberTakesItsGangAlongFromOtherNodes) {
  Env env;
  AddGangCluster(env);
  // 300m fits on either node only once its gang member is gone: the lone pod is given back,
  // and the gang goes whole, its member on the other node too.
  const auto [s, result] =
      env.PostFilter(MakeTestPod({.name = "p", .priority = kHighPriority, .req = kLargeRes}),
                     Unschedulable({"node1", "node2"}));
  ASSERT_TRUE(s.IsSuccess()) << ToString(s);
  std::vector<std::string> deleted = env.fake.deleted;
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted, (std::vector<std::string>{"default/g.1", "default/g.2"}));
  std::vector<std::string> messages;
  for (const framework::EventRecord& e : env.fake.events) messages.push_back(e.message);
  std::sort(messages.begin(), messages.end());
  EXPECT_EQ(messages, (std::vector<std::string>{"Preempted by default/p on node node1",
                                                "Preempted by default/p on node node2"}))
      << "each victim's event names its own node";
}

TEST(DefaultPreemptionGangVictims, GangOutrankedByOneMemberIsNoVictim) {
  Env env;
  AddGangCluster(env, /*second_member_priority=*/kVeryHighPriority);
  // g.1 alone has lower priority than p, but evicting it would cut g below its quorum; g as a
  // whole outranks p. The lone pods are not enough: nothing is evicted.
  const auto [s, result] =
      env.PostFilter(MakeTestPod({.name = "p", .priority = kHighPriority, .req = kLargeRes}),
                     Unschedulable({"node1", "node2"}));
  EXPECT_EQ(s.code(), Code::kUnschedulable) << ToString(s);
  EXPECT_THAT(env.fake.deleted, ::testing::IsEmpty());
}

TEST(DefaultPreemptionGangVictims, DisruptionModeDecidesForKubernetesPodGroups) {
  Env env;
  auto group = [](std::string_view name, std::optional<api::DisruptionMode> mode) {
    api::SchedulingPodGroup g;
    g.metadata.name = std::string(name);
    g.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
    g.spec.policy.min_count = 2;
    g.spec.policy.disruption_mode = mode;
    return g;
  };
  env.fake.AddObject(group("all", api::DisruptionMode::kPodGroup));
  env.fake.AddObject(group("single", api::DisruptionMode::kPod));
  env.fake.AddObject(group("unset", std::nullopt));
  auto member_of = [](std::string_view name) {
    api::Pod pod = MakeTestPod({.name = "m"});
    pod.spec.scheduling_group = api::Symbol(name);
    return pod;
  };
  api::GangRef gang;
  EXPECT_TRUE(EvictedWhole(member_of("all"), env.fake.handle().lister(), &gang));
  EXPECT_EQ(gang.name, api::Symbol("all"));
  EXPECT_FALSE(EvictedWhole(member_of("single"), env.fake.handle().lister()));
  EXPECT_FALSE(EvictedWhole(member_of("unset"), env.fake.handle().lister()))
      << "upstream's default is single (Pod)";
  EXPECT_FALSE(EvictedWhole(member_of("missing"), env.fake.handle().lister()));
  const api::Pod coscheduled =
      MakeTestPod({.name = "c", .labels = {{std::string(api::kPodGroupLabel), "x"}}});
  EXPECT_FALSE(EvictedWhole(coscheduled, env.fake.handle().lister()))
      << "a Coscheduling label naming no PodGroup makes no gang";
  env.fake.AddObject(CoschedulingGroup("x"));
  EXPECT_TRUE(EvictedWhole(coscheduled, env.fake.handle().lister()))
      << "every Coscheduling PodGroup is evicted whole";
  EXPECT_FALSE(EvictedWhole(MakeTestPod({.name = "lone"}), env.fake.handle().lister()));
}

// ---- Composite groups' trees (KEP-6012: upstream's TestGetHighestAllAncestor and
// TestNewDomainForWorkloadPreemption) ----

api::SchedulingPodGroup KubernetesGroup(std::string_view name, std::string_view parent,
                                        std::optional<api::DisruptionMode> mode) {
  api::SchedulingPodGroup g;
  g.metadata.name = std::string(name);
  g.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
  g.spec.policy.min_count = 2;
  g.spec.policy.disruption_mode = mode;
  g.spec.parent = api::Symbol(parent);
  return g;
}

api::CompositePodGroup Composite(std::string_view name, std::string_view parent,
                                 std::optional<api::DisruptionMode> mode,
                                 std::optional<int32_t> priority = std::nullopt) {
  api::CompositePodGroup c;
  c.metadata.name = std::string(name);
  c.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
  c.spec.parent = api::Symbol(parent);
  c.spec.policy.min_count = 2;
  c.spec.policy.disruption_mode = mode;
  c.spec.policy.priority = priority;
  return c;
}

api::Pod MemberOf(std::string name, std::string_view group, int32_t priority = kLowPriority,
                  std::string node = "") {
  api::Pod pod = MakeTestPod(
      {.name = std::move(name), .node = std::move(node), .priority = priority, .req = kSmallRes});
  pod.spec.scheduling_group = api::Symbol(group);
  return pod;
}

TEST(DefaultPreemptionCompositeVictims, TheHighestAllAboveAPodDecides) {
  using api::DisruptionMode;
  constexpr auto kAll = DisruptionMode::kPodGroup;
  constexpr auto kSingle = DisruptionMode::kPod;
  const auto composite = static_cast<uint8_t>(api::kClusterKindIndex<api::CompositePodGroup>);
  const auto group = static_cast<uint8_t>(api::kClusterKindIndex<api::SchedulingPodGroup>);
  struct Case {
    std::string name;
    std::vector<api::SchedulingPodGroup> groups;
    std::vector<api::CompositePodGroup> composites;
    api::GangRef want;
  };
  const std::vector<Case> cases = {
      {"a PodGroup of mode single", {KubernetesGroup("pg1", "", kSingle)}, {}, {}},
      {"a PodGroup of mode all",
       {KubernetesGroup("pg1", "", kAll)},
       {},
       {group, api::Symbol("pg1")}},
      {"all on the parent over single",
       {KubernetesGroup("pg1", "cpg1", kSingle)},
       {Composite("cpg1", "", kAll)},
       {composite, api::Symbol("cpg1")}},
      {"all on the grandparent over single twice",
       {KubernetesGroup("pg1", "cpg1", kSingle)},
       {Composite("cpg1", "cpg2", kSingle), Composite("cpg2", "", kAll)},
       {composite, api::Symbol("cpg2")}},
      {"all on both: the higher",
       {KubernetesGroup("pg1", "cpg1", kAll)},
       {Composite("cpg1", "", kAll)},
       {composite, api::Symbol("cpg1")}},
      {"single above all: the group's own",
       {KubernetesGroup("pg1", "cpg1", kAll)},
       {Composite("cpg1", "", kSingle)},
       {group, api::Symbol("pg1")}},
      {"a missing parent ends the walk",
       {KubernetesGroup("pg1", "cpg1", kAll)},
       {},
       {group, api::Symbol("pg1")}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Env env;
    for (const auto& g : c.groups) env.fake.AddObject(g);
    for (const auto& g : c.composites) env.fake.AddObject(g);
    api::GangRef unit;
    const bool whole = EvictedWhole(MemberOf("m", "pg1"), env.fake.handle().lister(), &unit);
    EXPECT_EQ(whole, !c.want.empty());
    if (whole) {
      EXPECT_EQ(unit, c.want);
    }
  }
}

TEST(DefaultPreemptionCompositeVictims, TheRootsPriorityIsTheTrees) {
  Env env;
  env.fake.AddObject(KubernetesGroup("pg1", "mid", api::DisruptionMode::kPodGroup));
  env.fake.AddObject(Composite("mid", "root", std::nullopt, kMidPriority));
  env.fake.AddObject(Composite("root", "", std::nullopt, kHighPriority));
  std::optional<int32_t> priority;
  const api::GangRef unit =
      api::EvictionUnit(MemberOf("m", "pg1"), env.fake.handle().lister(), &priority);
  EXPECT_EQ(unit.name, api::Symbol("pg1"));
  EXPECT_EQ(priority, kHighPriority);
}

// Two nodes, two pods a PodGroup, as upstream's TestNewDomainForWorkloadPreemption.
TEST(DefaultPreemptionCompositeVictims, UnitsOfATree) {
  using api::DisruptionMode;
  constexpr auto kAll = DisruptionMode::kPodGroup;
  constexpr auto kSingle = DisruptionMode::kPod;
  struct Case {
    std::string name;
    std::vector<api::CompositePodGroup> composites;
    std::vector<api::SchedulingPodGroup> groups;
    // Each unit evicted whole, by its number of pods (singles are not in WholeGangs).
    std::vector<size_t> units;
    std::vector<bool> composite;
  };
  const std::vector<Case> cases = {
      {"a root of mode all over groups of mode all: one unit",
       {Composite("cpg1", "", kAll)},
       {KubernetesGroup("pg1", "cpg1", kAll), KubernetesGroup("pg2", "cpg1", kAll)},
       {4},
       {true}},
      {"a root of mode single: its group of mode all alone",
       {Composite("cpg1", "", kSingle)},
       {KubernetesGroup("pg1", "cpg1", kSingle), KubernetesGroup("pg2", "cpg1", kAll)},
       {2},
       {false}},
      {"a root of mode all over a group of mode single",
       {Composite("cpg1", "", kAll)},
       {KubernetesGroup("pg1", "cpg1", kSingle), KubernetesGroup("pg2", "cpg1", kAll)},
       {4},
       {true}},
      {"nested: the mid composite of mode all takes its two groups",
       {Composite("cpg1", "", kSingle), Composite("cpg2", "cpg1", kAll)},
       {KubernetesGroup("pg1", "cpg2", kSingle), KubernetesGroup("pg2", "cpg2", kAll)},
       {4},
       {true}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Env env;
    env.AddNodes({"node1", "node2"}, kVeryLargeNode);
    for (const auto& g : c.composites) env.fake.AddObject(g);
    for (const auto& g : c.groups) env.fake.AddObject(g);
    for (const auto& g : c.groups) {
      for (const char* node : {"node1", "node2"}) {
        env.fake.AddPod(
            MemberOf(g.metadata.name + "-" + node, g.metadata.name, kLowPriority, node));
      }
    }
    const WholeGangs found = FindWholeGangs(kHighPriority, env.fake.snapshot().List(),
                                            env.fake.snapshot(), env.fake.handle().lister());
    std::vector<size_t> units;
    std::vector<bool> composite;
    for (const Victim& v : found.gangs) {
      units.push_back(v.pods.size());
      composite.push_back(v.composite);
    }
    EXPECT_EQ(units, c.units);
    EXPECT_EQ(composite, c.composite);
  }
}

TEST(DefaultPreemptionGangVictims, MoreImportantVictimOrder) {
  const api::Time now = EpochTime(100);
  auto pod = [](std::string name, int32_t priority, int start) {
    return PodInfo::Make(
        MakeTestPod({.name = std::move(name), .priority = priority, .start = EpochTime(start)}));
  };
  const auto by_pod = [now](const api::Pod& a, const api::Pod& b) {
    return MoreImportantPod(a, b, now);
  };
  const std::vector<PodInfoPtr> lone_old_pods = {pod("lone-old", kLowPriority, 1)};
  const std::vector<PodInfoPtr> lone_new_pods = {pod("lone-new", kLowPriority, 5)};
  const std::vector<PodInfoPtr> pair_pods = {pod("pair-0", kLowPriority, 9),
                                             pod("pair-1", kLowPriority, 9)};
  const std::vector<PodInfoPtr> trio_pods = {pod("trio-0", kLowPriority, 9),
                                             pod("trio-1", kLowPriority, 9),
                                             pod("trio-2", kLowPriority, 9)};
  const std::vector<PodInfoPtr> old_pair_pods = {pod("old-0", kLowPriority, 2),
                                                 pod("old-1", kLowPriority, 8)};
  const std::vector<PodInfoPtr> high_pods = {pod("high", kMidPriority, 50)};
  const Victim lone_old{lone_old_pods, kLowPriority, false};
  const Victim lone_new{lone_new_pods, kLowPriority, false};
  const Victim pair{pair_pods, kLowPriority, true};
  const Victim trio{trio_pods, kLowPriority, true};
  const Victim old_pair{old_pair_pods, kLowPriority, true};
  const Victim high_lone{high_pods, kMidPriority, false};
  auto more = [&](const Victim& a, const Victim& b) {
    return MoreImportantVictim(a, b, now, by_pod);
  };
  EXPECT_TRUE(more(high_lone, trio)) << "priority first";
  EXPECT_TRUE(more(pair, lone_old)) << "at equal priority, a gang before a pod";
  EXPECT_FALSE(more(lone_old, pair));
  EXPECT_TRUE(more(trio, pair)) << "the larger gang";
  Victim tree{pair_pods, kLowPriority, true};
  tree.composite = true;
  EXPECT_TRUE(more(tree, trio)) << "at equal priority, a composite group's tree before a group";
  EXPECT_FALSE(more(trio, tree));
  EXPECT_TRUE(more(old_pair, pair)) << "then the gang that started first";
  EXPECT_TRUE(more(lone_old, lone_new)) << "two pods: the pod order (earlier start)";
  EXPECT_FALSE(more(lone_new, lone_old));
}

}  // namespace
}  // namespace muster::plugins::defaultpreemption

// ---- callExtenders ----

namespace muster::plugins::defaultpreemption {
namespace {

// A preempting extender that keeps the candidates `keep` names (node -> victims kept, by name;
// an empty list answers the node with no victims).
class TrimmingExtender final : public framework::Extender {
 public:
  std::map<std::string, std::vector<std::string>> keep;
  bool ignorable = false;
  std::vector<std::string> asked;  // the candidate nodes it was given

  const std::string& Name() const override { return name_; }
  bool IsFilter() const override { return false; }
  bool IsPrioritizer() const override { return false; }
  bool IsBinder() const override { return false; }
  bool SupportsPreemption() const override { return true; }
  bool IsIgnorable() const override { return ignorable; }
  bool IsInterested(const api::Pod&) const override { return true; }
  Status Filter(const api::Pod&, std::span<NodeInfo* const>,
                framework::ExtenderFilterResult*) override {
    return Status::OK();
  }
  Status Prioritize(const api::Pod&, std::span<NodeInfo* const>,
                    std::vector<std::pair<std::string, int64_t>>*, int64_t*) override {
    return Status::OK();
  }
  Status Bind(const api::Pod&, api::Symbol) override { return Status::OK(); }
  Status ProcessPreemption(const api::Pod&, const framework::NodeToVictims& candidates,
                           const std::function<const NodeInfo*(std::string_view)>& node,
                           framework::NodeToVictims* kept) override {
    for (const auto& [name, victims] : candidates) asked.push_back(name);
    for (const auto& [name, pods] : keep) {
      framework::ExtenderVictims& v = (*kept)[name];
      for (const PodInfoPtr& p : node(name)->pods()) {
        if (std::find(pods.begin(), pods.end(), p->pod.metadata.name) != pods.end()) {
          v.pods.push_back(&p->pod);
        }
      }
    }
    return Status::OK();
  }

 private:
  std::string name_ = "http://preempt";
};

// Upstream's TestPreempt "preemption with extenders": the extender's choice of candidates and
// victims is the one the plugin picks from.
TEST(DefaultPreemptionExtenders, TheExtenderTrimsTheCandidates) {
  Env env;
  AddPreemptCluster(env);
  TrimmingExtender extender;
  extender.keep = {{"node3", {"p3.1"}}};
  env.fake.extenders_for_plugins = {&extender};
  const auto [s, result] =
      env.PostFilter(MakeTestPod({.name = "p", .priority = kHighPriority, .req = kVeryLargeRes}),
                     Unschedulable({"node1", "node2", "node3"}));
  ASSERT_TRUE(s.IsSuccess()) << ToString(s);
  std::sort(extender.asked.begin(), extender.asked.end());
  EXPECT_EQ(extender.asked, (std::vector<std::string>{"node1", "node3"}));
  EXPECT_EQ(result.nominated_node_name.str(), "node3");
  EXPECT_EQ(env.fake.deleted, (std::vector<std::string>{"default/p3.1"}));
}

// A node answered without victims is an error, unless the extender is ignorable (the node is
// dropped then).
TEST(DefaultPreemptionExtenders, ANodeWithoutVictimsIsAnErrorUnlessIgnorable) {
  for (const bool ignorable : {false, true}) {
    Env env;
    env.AddNodes({"node1", "node3"}, kVeryLargeNode);
    env.AddPods({{.name = "p1.1", .node = "node1", .priority = kLowPriority, .req = kSmallRes},
                 {.name = "p3.1", .node = "node3", .priority = kMidPriority, .req = kMediumRes}});
    TrimmingExtender extender;
    extender.ignorable = ignorable;
    extender.keep = {{"node1", {"p1.1"}}, {"node3", {}}};
    env.fake.extenders_for_plugins = {&extender};
    const auto [s, result] =
        env.PostFilter(MakeTestPod({.name = "p", .priority = kHighPriority, .req = kVeryLargeRes}),
                       Unschedulable({"node1", "node3"}));
    if (ignorable) {
      ASSERT_TRUE(s.IsSuccess()) << ToString(s);
      EXPECT_EQ(result.nominated_node_name.str(), "node1");
    } else {
      EXPECT_EQ(s.code(), Code::kError);
      EXPECT_EQ(s.Message(), "preemption: expected at least one victim pod on node \"node3\"");
      EXPECT_TRUE(env.fake.deleted.empty());
    }
  }
}

}  // namespace
}  // namespace muster::plugins::defaultpreemption
