#include "muster/plugins/nodeaffinity/node_affinity.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

// Cases from upstream node_affinity_test.go (TestNodeAffinity, TestNodeAffinityPriority,
// Test_isSchedulableAfterNodeChange).

namespace muster::plugins::nodeaffinity {
namespace {

using api::SelectorOperator;
using framework::Code;
using framework::QueueingHint;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;

constexpr auto kIn = SelectorOperator::kIn;
constexpr auto kNotIn = SelectorOperator::kNotIn;
constexpr auto kExists = SelectorOperator::kExists;
constexpr auto kGt = SelectorOperator::kGt;

using Labels = std::vector<std::pair<std::string, std::string>>;

api::SelectorRequirement Req(std::string_view key, SelectorOperator op,
                             const std::vector<std::string>& values = {}) {
  api::SelectorRequirement r;
  r.key = api::Symbol(key);
  r.op = op;
  for (const std::string& v : values) r.values.emplace_back(v);
  return r;
}

api::SelectorRequirement NameIn(const std::vector<std::string>& names) {
  return Req(api::kNodeNameField, kIn, names);
}

api::NodeSelectorTerm Term(std::vector<api::SelectorRequirement> expressions,
                           std::vector<api::SelectorRequirement> fields = {}) {
  api::NodeSelectorTerm t;
  t.match_expressions = std::move(expressions);
  t.match_fields = std::move(fields);
  return t;
}

api::NodeSelector Selector(std::vector<api::NodeSelectorTerm> terms) {
  return api::NodeSelector{std::move(terms)};
}

api::Pod PodWithAffinity(std::optional<api::NodeSelector> required,
                         std::vector<api::PreferredSchedulingTerm> preferred = {},
                         const Labels& node_selector = {}) {
  api::Pod pod = MakePod().Name("p").Obj();
  for (const auto& [k, v] : node_selector) {
    pod.spec.node_selector.Set(api::Symbol(k), api::Symbol(v));
  }
  if (required || !preferred.empty()) {
    pod.spec.affinity.emplace();
    pod.spec.affinity->node_affinity = api::NodeAffinity{std::move(required), std::move(preferred)};
  }
  return pod;
}

api::Pod PodWithNodeSelector(const Labels& node_selector) {
  return PodWithAffinity(std::nullopt, {}, node_selector);
}

api::Node Node(std::string_view name, const Labels& labels) {
  testing::NodeBuilder b = MakeNode().Name(name);
  for (const auto& [k, v] : labels) b.Label(k, v);
  return b.Obj();
}

framework::NodeInfo InfoOf(const api::Node& node) {
  return framework::NodeInfo(std::make_shared<api::Node>(node));
}

std::unique_ptr<NodeAffinity> MakePlugin(const NodeAffinityArgs& args = {}) {
  std::string error;
  std::unique_ptr<NodeAffinity> p = NodeAffinity::Create(args, &error);
  EXPECT_NE(p, nullptr) << error;
  return p;
}

NodeAffinityArgs AddedRequired(api::NodeSelector selector) {
  NodeAffinityArgs args;
  args.added_affinity.emplace();
  args.added_affinity->required = std::move(selector);
  return args;
}

NodeAffinityArgs AddedPreferred(std::vector<api::PreferredSchedulingTerm> terms) {
  NodeAffinityArgs args;
  args.added_affinity.emplace();
  args.added_affinity->preferred = std::move(terms);
  return args;
}

std::vector<std::string> Names(const std::vector<api::Symbol>& symbols) {
  std::vector<std::string> out;
  for (api::Symbol s : symbols) out.push_back(s.string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(NodeAffinityFilter, UpstreamCases) {
  const Status pod_reason = Status::Unresolvable(std::string(kErrReasonPod));
  const Status skip(Code::kSkip);
  struct Case {
    std::string name;
    api::Pod pod;
    Labels labels;
    std::string node_name;
    Status want_filter;
    Status want_prefilter;
    std::optional<std::vector<std::string>> want_nodes;
    NodeAffinityArgs args;
    bool run_prefilter = true;
  };
  const std::vector<Case> cases = {
      {"missing labels", PodWithNodeSelector({{"foo", "bar"}}), {}, "", pod_reason, {}, {}, {}},
      {"same labels", PodWithNodeSelector({{"foo", "bar"}}), {{"foo", "bar"}}, "", {}, {}, {}, {}},
      {"node labels are superset",
       PodWithNodeSelector({{"foo", "bar"}}),
       {{"foo", "bar"}, {"baz", "blah"}},
       "",
       {},
       {},
       {},
       {}},
      {"node labels are subset",
       PodWithNodeSelector({{"foo", "bar"}, {"baz", "blah"}}),
       {{"foo", "bar"}},
       "",
       pod_reason,
       {},
       {},
       {}},
      {"Pod with matchExpressions using In operator that matches the existing node",
       PodWithAffinity(Selector({Term({Req("foo", kIn, {"bar", "value2"})})})),
       {{"foo", "bar"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with matchExpressions using Gt operator that matches the existing node",
       PodWithAffinity(Selector({Term({Req("kernel-version", kGt, {"0204"})})})),
       {{"kernel-version", "0206"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with matchExpressions using NotIn operator that matches the existing node",
       PodWithAffinity(Selector({Term({Req("mem-type", kNotIn, {"DDR", "DDR2"})})})),
       {{"mem-type", "DDR3"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with matchExpressions using Exists operator that matches the existing node",
       PodWithAffinity(Selector({Term({Req("GPU", kExists)})})),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with affinity that don't match node's labels won't schedule onto the node",
       PodWithAffinity(Selector({Term({Req("foo", kIn, {"value1", "value2"})})})),
       {{"foo", "bar"}},
       "",
       pod_reason,
       {},
       {},
       {}},
      {"Pod with empty MatchExpressions is not a valid value will match no objects and won't "
       "schedule onto the node",
       PodWithAffinity(Selector({Term({})})),
       {{"foo", "bar"}},
       "",
       pod_reason,
       {},
       {},
       {}},
      {"Pod with no Affinity will schedule onto a node",
       PodWithAffinity(std::nullopt),
       {{"foo", "bar"}},
       "",
       {},
       skip,
       {},
       {}},
      {"Pod with Affinity but nil NodeSelector will schedule onto a node",
       [] {
         api::Pod p = MakePod().Name("p").Obj();
         p.spec.affinity.emplace();
         p.spec.affinity->node_affinity.emplace();
         return p;
       }(),
       {{"foo", "bar"}},
       "",
       {},
       skip,
       {},
       {}},
      {"Pod with multiple matchExpressions ANDed that matches the existing node",
       PodWithAffinity(
           Selector({Term({Req("GPU", kExists), Req("GPU", kNotIn, {"AMD", "INTER"})})})),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with multiple matchExpressions ANDed that doesn't match the existing node",
       PodWithAffinity(Selector({Term({Req("GPU", kExists), Req("GPU", kIn, {"AMD", "INTER"})})})),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       pod_reason,
       {},
       {},
       {}},
      {"Pod with multiple NodeSelectorTerms ORed in affinity, matches the node's labels and will "
       "schedule onto the node",
       PodWithAffinity(Selector({Term({Req("foo", kIn, {"bar", "value2"})}),
                                 Term({Req("diffkey", kIn, {"wrong", "value2"})})})),
       {{"foo", "bar"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with an Affinity and a PodSpec.NodeSelector(the old thing that we are deprecating) "
       "both are satisfied, will schedule onto the node",
       PodWithAffinity(Selector({Term({Req("foo", kExists)})}), {}, {{"foo", "bar"}}),
       {{"foo", "bar"}},
       "",
       {},
       {},
       {},
       {}},
      {"Pod with an Affinity matches node's labels but the PodSpec.NodeSelector(the old thing "
       "that we are deprecating) is not satisfied, won't schedule onto the node",
       PodWithAffinity(Selector({Term({Req("foo", kExists)})}), {}, {{"foo", "bar"}}),
       {{"foo", "barrrrrr"}},
       "",
       pod_reason,
       {},
       {},
       {}},
      {"Pod with an invalid value in Affinity term won't be scheduled onto the node",
       PodWithAffinity(Selector({Term({Req("foo", kNotIn, {"invalid value: ___@#$%^"})})})),
       {{"foo", "bar"}},
       "",
       pod_reason,
       {},
       {},
       {}},
      {"Pod with matchFields using In operator that matches the existing node",
       PodWithAffinity(Selector({Term({}, {NameIn({"node1"})})})),
       {},
       "node1",
       {},
       {},
       std::vector<std::string>{"node1"},
       {}},
      {"Pod with matchFields using In operator that does not match the existing node",
       PodWithAffinity(Selector({Term({}, {NameIn({"node1"})})})),
       {},
       "node2",
       pod_reason,
       {},
       std::vector<std::string>{"node1"},
       {}},
      {"Pod with two terms: matchFields does not match, but matchExpressions matches",
       PodWithAffinity(Selector(
           {Term({}, {NameIn({"node1"}), NameIn({"node2"})}), Term({Req("foo", kIn, {"bar"})})})),
       {{"foo", "bar"}},
       "node2",
       {},
       {},
       {},
       {}},
      {"Pod with one term: matchFields does not match, but matchExpressions matches",
       PodWithAffinity(Selector({Term({Req("foo", kIn, {"bar"})}, {NameIn({"node1"})})})),
       {{"foo", "bar"}},
       "node2",
       pod_reason,
       {},
       std::vector<std::string>{"node1"},
       {}},
      {"Pod with one term: both matchFields and matchExpressions match",
       PodWithAffinity(Selector({Term({Req("foo", kIn, {"bar"})}, {NameIn({"node1"})})})),
       {{"foo", "bar"}},
       "node1",
       {},
       {},
       std::vector<std::string>{"node1"},
       {}},
      {"Pod with two terms: both matchFields and matchExpressions do not match",
       PodWithAffinity(Selector(
           {Term({}, {NameIn({"node1"})}), Term({Req("foo", kIn, {"not-match-to-bar"})})})),
       {{"foo", "bar"}},
       "node2",
       pod_reason,
       {},
       {},
       {}},
      {"Pod with two terms of node.Name affinity",
       PodWithAffinity(Selector({Term({}, {NameIn({"node1"})}), Term({}, {NameIn({"node2"})})})),
       {},
       "node2",
       {},
       {},
       std::vector<std::string>{"node1", "node2"},
       {}},
      {"Pod with two conflicting mach field requirements",
       PodWithAffinity(Selector({Term({}, {NameIn({"node1"}), NameIn({"node2"})})})),
       {{"foo", "bar"}},
       "node2",
       pod_reason,
       Status::Unresolvable(std::string(kErrReasonConflict)),
       {},
       {}},
      {"Matches added affinity and Pod's node affinity",
       PodWithAffinity(Selector({Term({Req("zone", kIn, {"foo"})})})),
       {{"zone", "foo"}},
       "node2",
       {},
       {},
       {},
       AddedRequired(Selector({Term({}, {NameIn({"node2"})})}))},
      {"Matches added affinity but not Pod's node affinity",
       PodWithAffinity(Selector({Term({Req("zone", kIn, {"bar"})})})),
       {{"zone", "foo"}},
       "node2",
       pod_reason,
       {},
       {},
       AddedRequired(Selector({Term({}, {NameIn({"node2"})})}))},
      {"Doesn't match added affinity",
       PodWithAffinity(std::nullopt),
       {{"zone", "foo"}},
       "node2",
       Status::Unresolvable(std::string(kErrReasonEnforced)),
       {},
       {},
       AddedRequired(Selector({Term({Req("zone", kIn, {"bar"})})}))},
      {"Matches node selector correctly even if PreFilter is not called",
       PodWithNodeSelector({{"foo", "bar"}}),
       {{"foo", "bar"}, {"baz", "blah"}},
       "",
       {},
       {},
       {},
       {},
       false},
      {"Matches node affinity correctly even if PreFilter is not called",
       PodWithAffinity(
           Selector({Term({Req("GPU", kExists), Req("GPU", kNotIn, {"AMD", "INTER"})})})),
       {{"GPU", "NVIDIA-GRID-K1"}},
       "",
       {},
       {},
       {},
       {},
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<NodeAffinity> plugin = MakePlugin(c.args);
    ASSERT_NE(plugin, nullptr);
    const framework::PodInfoPtr pod = framework::PodInfo::Make(c.pod);
    framework::CycleState state;
    if (c.run_prefilter) {
      framework::PreFilterResult result;
      const Status got = plugin->PreFilter(state, *pod, {}, &result);
      EXPECT_EQ(got, c.want_prefilter) << framework::ToString(got);
      if (c.want_nodes) {
        ASSERT_FALSE(result.AllNodes());
        EXPECT_EQ(Names(*result.node_names), *c.want_nodes);
      } else {
        EXPECT_TRUE(result.AllNodes());
      }
    }
    const Status got = plugin->Filter(state, *pod, InfoOf(Node(c.node_name, c.labels)));
    EXPECT_EQ(got, c.want_filter) << framework::ToString(got);
  }
}

TEST(NodeAffinityPreFilter, StateClonesShareTheSelector) {
  std::unique_ptr<NodeAffinity> plugin = MakePlugin();
  const framework::PodInfoPtr pod = framework::PodInfo::Make(PodWithNodeSelector({{"a", "b"}}));
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(plugin->PreFilter(state, *pod, {}, &result).IsSuccess());
  const std::unique_ptr<framework::CycleState> copy = state.Clone();
  EXPECT_TRUE(plugin->Filter(*copy, *pod, InfoOf(Node("n", {{"a", "b"}}))).IsSuccess());
  EXPECT_FALSE(plugin->Filter(*copy, *pod, InfoOf(Node("n", {{"a", "c"}}))).IsSuccess());
}

api::PreferredSchedulingTerm Pref(int32_t weight, std::vector<api::SelectorRequirement> reqs) {
  return api::PreferredSchedulingTerm{weight, Term(std::move(reqs))};
}

TEST(NodeAffinityScore, UpstreamCases) {
  const Labels label1 = {{"foo", "bar"}};
  const Labels label2 = {{"key", "value"}};
  const Labels label3 = {{"az", "az1"}};
  const Labels label4 = {{"abc", "az11"}, {"def", "az22"}};
  const Labels label5 = {{"foo", "bar"}, {"key", "value"}, {"az", "az1"}};
  const std::vector<api::PreferredSchedulingTerm> affinity1 = {Pref(2, {Req("foo", kIn, {"bar"})})};
  const std::vector<api::PreferredSchedulingTerm> affinity2 = {
      Pref(2, {Req("foo", kIn, {"bar"})}),
      Pref(4, {Req("key", kIn, {"value"})}),
      Pref(5, {Req("foo", kIn, {"bar"}), Req("key", kIn, {"value"}), Req("az", kIn, {"az1"})}),
  };
  struct NodeSpec {
    std::string name;
    Labels labels;
  };
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<NodeSpec> nodes;
    std::vector<int64_t> want;
    NodeAffinityArgs args;
    bool run_prescore = true;
    Code want_prescore = Code::kSuccess;
  };
  const std::vector<Case> cases = {
      {"all nodes are same priority as NodeAffinity is nil",
       PodWithAffinity(std::nullopt),
       {{"node1", label1}, {"node2", label2}, {"node3", label3}},
       {0, 0, 0},
       {},
       false},
      {"Skip is returned in PreScore when NodeAffinity is nil",
       PodWithAffinity(std::nullopt),
       {{"node1", label1}},
       {},
       {},
       true,
       Code::kSkip},
      {"no node matches preferred scheduling requirements in NodeAffinity of pod so all nodes' "
       "priority is zero",
       PodWithAffinity(std::nullopt, affinity1),
       {{"node1", label4}, {"node2", label2}, {"node3", label3}},
       {0, 0, 0},
       {}},
      {"only node1 matches the preferred scheduling requirements of pod",
       PodWithAffinity(std::nullopt, affinity1),
       {{"node1", label1}, {"node2", label2}, {"node3", label3}},
       {100, 0, 0},
       {}},
      {"all nodes matches the preferred scheduling requirements of pod but with different "
       "priorities ",
       PodWithAffinity(std::nullopt, affinity2),
       {{"node1", label1}, {"node5", label5}, {"node2", label2}},
       {18, 100, 36},
       {}},
      {"added affinity",
       PodWithAffinity(std::nullopt),
       {{"node1", label1}, {"node2", label2}},
       {100, 0},
       AddedPreferred(affinity1)},
      {"added affinity and pod has default affinity",
       PodWithAffinity(std::nullopt, affinity1),
       {{"node1", label1}, {"node2", label2}, {"node3", label5}},
       {40, 60, 100},
       AddedPreferred({Pref(3, {Req("key", kIn, {"value"})})})},
      {"calculate the priorities correctly even if PreScore is not called",
       PodWithAffinity(std::nullopt, affinity2),
       {{"node1", label1}, {"node5", label5}, {"node2", label2}},
       {18, 100, 36},
       {},
       false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<NodeAffinity> plugin = MakePlugin(c.args);
    ASSERT_NE(plugin, nullptr);
    const framework::PodInfoPtr pod = framework::PodInfo::Make(c.pod);
    std::vector<framework::NodeInfo> infos;
    for (const NodeSpec& n : c.nodes) infos.push_back(InfoOf(Node(n.name, n.labels)));
    framework::CycleState state;
    if (c.run_prescore) {
      const Status got = plugin->PreScore(state, *pod, {});
      EXPECT_EQ(got.code(), c.want_prescore) << framework::ToString(got);
      if (!got.IsSuccess()) continue;
    }
    std::vector<framework::NodeScore> scores;
    for (const framework::NodeInfo& info : infos) {
      int64_t score = -1;
      ASSERT_TRUE(plugin->Score(state, *pod, info, &score).IsSuccess());
      scores.push_back({info.name(), score});
    }
    ASSERT_TRUE(plugin->NormalizeScore(state, *pod, scores).IsSuccess());
    std::vector<int64_t> got;
    for (const framework::NodeScore& s : scores) got.push_back(s.score);
    EXPECT_EQ(got, c.want);
  }
}

TEST(NodeAffinityScore, BrokenPreferredTermIsAnError) {
  std::unique_ptr<NodeAffinity> plugin = MakePlugin();
  const framework::PodInfoPtr pod = framework::PodInfo::Make(
      PodWithAffinity(std::nullopt, {Pref(2, {Req("invalid key", kIn, {"bar"})})}));
  framework::CycleState state;
  const Status got = plugin->PreScore(state, *pod, {});
  EXPECT_EQ(got.code(), Code::kError);
  EXPECT_EQ(got.Message(),
            "[0].matchExpressions[0].key: Invalid value: \"invalid key\": name part must consist "
            "of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
            "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  // Score without PreScore reports the same error, as upstream's fallback does.
  int64_t score = 0;
  const Status direct = plugin->Score(state, *pod, InfoOf(Node("n", {})), &score);
  EXPECT_EQ(direct.code(), Code::kError);
  EXPECT_EQ(direct.Message(), got.Message());
  // A term of weight 0 is not parsed.
  const framework::PodInfoPtr zero = framework::PodInfo::Make(
      PodWithAffinity(std::nullopt, {Pref(0, {Req("invalid key", kIn, {"bar"})})}));
  EXPECT_TRUE(plugin->PreScore(state, *zero, {}).IsSuccess());
}

TEST(NodeAffinityScore, WeightZeroAddedTermsStillDisableSkip) {
  // Upstream keeps an added preferred list even when none of its terms can earn anything, so
  // PreScore does not skip; every node scores 0.
  std::unique_ptr<NodeAffinity> plugin =
      MakePlugin(AddedPreferred({Pref(0, {Req("foo", kIn, {"bar"})})}));
  framework::CycleState state;
  const framework::PodInfoPtr pod = framework::PodInfo::Make(PodWithAffinity(std::nullopt));
  EXPECT_TRUE(plugin->PreScore(state, *pod, {}).IsSuccess());
  int64_t score = -1;
  ASSERT_TRUE(plugin->Score(state, *pod, InfoOf(Node("n", {{"foo", "bar"}})), &score).IsSuccess());
  EXPECT_EQ(score, 0);
}

TEST(NodeAffinityEvents, NodeChangeHint) {
  const api::Pod pod = PodWithAffinity(Selector({Term({Req("foo", kIn, {"bar"})})}));
  const api::Node plain = Node("", {});
  const api::Node foo_bar = Node("", {{"foo", "bar"}});
  const api::Node k_v = Node("", {{"k", "v"}});
  api::Node capacity_changed = plain;
  capacity_changed.status.capacity = testing::MakeResourceList({{"cpu", "1"}});
  const NodeAffinityArgs enforced = AddedRequired(Selector({Term({Req("foo", kIn, {"bar"})})}));
  struct Case {
    std::string name;
    NodeAffinityArgs args;
    const api::Node* old_node;
    const api::Node* new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"skip-queue-on-add", {}, nullptr, &plain, QueueingHint::kSkip},
      {"queue-on-add", {}, nullptr, &foo_bar, QueueingHint::kQueue},
      {"skip-unrelated-changes", {}, &plain, &capacity_changed, QueueingHint::kSkip},
      {"skip-unrelated-changes-on-labels", {}, &plain, &k_v, QueueingHint::kSkip},
      {"skip-labels-changes-on-node-from-suitable-to-unsuitable",
       {},
       &foo_bar,
       &k_v,
       QueueingHint::kSkip},
      {"queue-on-labels-change-makes-pod-schedulable", {}, &plain, &foo_bar, QueueingHint::kQueue},
      {"skip-queue-on-add-scheduler-enforced-node-affinity", enforced, nullptr, &plain,
       QueueingHint::kSkip},
      {"queue-on-add-scheduler-enforced-node-affinity", enforced, nullptr, &foo_bar,
       QueueingHint::kQueue},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<NodeAffinity> plugin = MakePlugin(c.args);
    ASSERT_NE(plugin, nullptr);
    framework::EventObjects e;
    e.old_node = c.old_node;
    e.new_node = c.new_node;
    Status error;
    EXPECT_EQ(plugin->IsSchedulableAfterNodeChange(pod, e, &error), c.want);
    EXPECT_TRUE(error.IsSuccess()) << framework::ToString(error);
  }
  Status error;
  EXPECT_EQ(MakePlugin()->IsSchedulableAfterNodeChange(pod, {}, &error), QueueingHint::kQueue);
  EXPECT_TRUE(error.IsError());
}

TEST(NodeAffinityEvents, UnparseableRequiredTermQueuesWithAnError) {
  // No term matches and one does not parse: upstream's lazy selector reports the parse error.
  const api::Pod pod = PodWithAffinity(
      Selector({Term({Req("foo", kIn, {"bar"})}), Term({}, {Req("metadata.name", kIn, {})})}));
  const api::Node node = Node("n", {});
  framework::EventObjects e;
  e.new_node = &node;
  Status error;
  EXPECT_EQ(MakePlugin()->IsSchedulableAfterNodeChange(pod, e, &error), QueueingHint::kQueue);
  EXPECT_EQ(error.code(), Code::kError);
  EXPECT_EQ(error.Message(),
            "nodeSelectorTerms[1].matchFields[0].values: Invalid value: []string(nil): must have "
            "one element");
  // A matching term wins over the broken one.
  const api::Node matching = Node("n", {{"foo", "bar"}});
  e.new_node = &matching;
  error = Status();
  EXPECT_EQ(MakePlugin()->IsSchedulableAfterNodeChange(pod, e, &error), QueueingHint::kQueue);
  EXPECT_TRUE(error.IsSuccess());
}

TEST(NodeAffinityEvents, Registered) {
  const std::vector<framework::ClusterEventWithHint> events = MakePlugin()->EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.actions,
            framework::kAdd | framework::kUpdateNodeLabel | framework::kUpdateNodeTaint);
  EXPECT_TRUE(static_cast<bool>(events[0].hint));
}

TEST(NodeAffinityNew, RejectsInvalidArgs) {
  std::string error;
  EXPECT_EQ(NodeAffinity::Create(
                AddedRequired(Selector({Term({Req("invalid/label/key", kIn, {"v"})})})), &error),
            nullptr);
  EXPECT_TRUE(
      error.starts_with("addedAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                        "nodeSelectorTerms[0].matchExpressions[0].key: Invalid value: "
                        "\"invalid/label/key\": "))
      << error;
}

}  // namespace
}  // namespace muster::plugins::nodeaffinity
