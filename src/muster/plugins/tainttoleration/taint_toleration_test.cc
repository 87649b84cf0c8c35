#include "muster/plugins/tainttoleration/taint_toleration.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/testing/fake_services.h"

// Cases from upstream taint_toleration_test.go (TestTaintTolerationScore,
// TestTaintTolerationFilter, TestIsSchedulableAfterNodeChange and the pod toleration hint).

namespace muster::plugins::tainttoleration {
namespace {

using api::TaintEffect;
using api::TolerationOperator;
using framework::Code;
using framework::QueueingHint;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;

constexpr auto kNoSchedule = TaintEffect::kNoSchedule;
constexpr auto kPreferNoSchedule = TaintEffect::kPreferNoSchedule;

struct TaintSpec {
  std::string key;
  std::string value;
  TaintEffect effect;
};

api::Toleration Tol(std::string_view key, TolerationOperator op, std::string_view value,
                    std::optional<TaintEffect> effect) {
  return api::Toleration{api::Symbol(key), op, api::Symbol(value), effect, std::nullopt};
}

api::Toleration Equal(std::string_view key, std::string_view value,
                      std::optional<TaintEffect> effect) {
  return Tol(key, TolerationOperator::kEqual, value, effect);
}

api::Pod PodWith(std::vector<api::Toleration> tolerations, std::string_view uid = "pod1") {
  api::Pod pod = MakePod().Name("pod1").Obj();
  pod.metadata.uid = std::string(uid);
  pod.spec.tolerations = std::move(tolerations);
  return pod;
}

api::Node NodeWith(std::string_view name, const std::vector<TaintSpec>& taints) {
  testing::NodeBuilder b = MakeNode().Name(name);
  for (const TaintSpec& t : taints) b.Taint(t.key, t.value, t.effect);
  return b.Obj();
}

framework::NodeInfo InfoOf(const api::Node& node) {
  return framework::NodeInfo(std::make_shared<api::Node>(node));
}

Status Unresolvable(std::string_view reason) { return Status::Unresolvable(std::string(reason)); }

TEST(TaintTolerationFilter, UpstreamCases) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<TaintSpec> taints;
    Status want;
  };
  const std::vector<Case> cases = {
      {"A pod having no tolerations can't be scheduled onto a node with nonempty taints",
       PodWith({}),
       {{"dedicated", "user1", kNoSchedule}},
       Unresolvable("node(s) had untolerated taint(s)")},
      {"A pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
       PodWith({Equal("dedicated", "user1", kNoSchedule)}),
       {{"dedicated", "user1", kNoSchedule}},
       Status()},
      {"A pod which can't be scheduled on a dedicated node assigned to user2 with effect "
       "NoSchedule",
       PodWith({Equal("dedicated", "user2", kNoSchedule)}),
       {{"dedicated", "user1", kNoSchedule}},
       Unresolvable("node(s) had untolerated taint(s)")},
      {"A pod can be scheduled onto the node, with a toleration uses operator Exists that "
       "tolerates the taints on the node",
       PodWith({Tol("foo", TolerationOperator::kExists, "", kNoSchedule)}),
       {{"foo", "bar", kNoSchedule}},
       Status()},
      {"A pod has multiple tolerations, node has multiple taints, all the taints are tolerated, "
       "pod can be scheduled onto the node",
       PodWith({Equal("dedicated", "user2", kNoSchedule),
                Tol("foo", TolerationOperator::kExists, "", kNoSchedule)}),
       {{"dedicated", "user2", kNoSchedule}, {"foo", "bar", kNoSchedule}},
       Status()},
      {"A pod has a toleration that keys and values match the taint on the node, but (non-empty) "
       "effect doesn't match, can't be scheduled onto the node",
       PodWith({Equal("foo", "bar", kPreferNoSchedule)}),
       {{"foo", "bar", kNoSchedule}},
       Unresolvable("node(s) had untolerated taint(s)")},
      {"The pod has a toleration that keys and values match the taint on the node, the effect of "
       "toleration is empty, and the effect of taint is NoSchedule. Pod can be scheduled onto the "
       "node",
       PodWith({Equal("foo", "bar", std::nullopt)}),
       {{"foo", "bar", kNoSchedule}},
       Status()},
      {"The pod has a toleration that key and value don't match the taint on the node, but the "
       "effect of taint on node is PreferNoSchedule. Pod can be scheduled onto the node",
       PodWith({Equal("dedicated", "user2", kNoSchedule)}),
       {{"dedicated", "user1", kPreferNoSchedule}},
       Status()},
      {"The pod has no toleration, but the effect of taint on node is PreferNoSchedule. Pod can be "
       "scheduled onto the node",
       PodWith({}),
       {{"dedicated", "user1", kPreferNoSchedule}},
       Status()},
      // Not upstream's: NoExecute blocks as NoSchedule does.
      {"NoExecute taints block too",
       PodWith({Equal("a", "1", kNoSchedule)}),
       {{"a", "1", kNoSchedule}, {"b", "2", TaintEffect::kNoExecute}, {"c", "3", kNoSchedule}},
       Unresolvable("node(s) had untolerated taint(s)")},
  };
  TaintToleration plugin;
  framework::CycleState state;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const framework::NodeInfo node = InfoOf(NodeWith("nodeA", c.taints));
    const Status got = plugin.Filter(state, *framework::PodInfo::Make(c.pod), node);
    EXPECT_EQ(got, c.want) << framework::ToString(got);
  }
}

TEST(TaintTolerationScore, UpstreamCases) {
  struct NodeSpec {
    std::string name;
    std::vector<TaintSpec> taints;
  };
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<NodeSpec> nodes;
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {
      {"node with taints tolerated by the pod, gets a higher score than those node with "
       "intolerable taints",
       PodWith({Equal("foo", "bar", kPreferNoSchedule)}),
       {{"nodeA", {{"foo", "bar", kPreferNoSchedule}}},
        {"nodeB", {{"foo", "blah", kPreferNoSchedule}}}},
       {100, 0}},
      {"the nodes that all of their taints are tolerated by the pod, get the same score, no "
       "matter how many tolerable taints a node has",
       PodWith({Equal("cpu-type", "arm64", kPreferNoSchedule),
                Equal("disk-type", "ssd", kPreferNoSchedule)}),
       {{"nodeA", {}},
        {"nodeB", {{"cpu-type", "arm64", kPreferNoSchedule}}},
        {"nodeC",
         {{"cpu-type", "arm64", kPreferNoSchedule}, {"disk-type", "ssd", kPreferNoSchedule}}}},
       {100, 100, 100}},
      {"the more intolerable taints a node has, the lower score it gets.",
       PodWith({Equal("foo", "bar", kPreferNoSchedule)}),
       {{"nodeA", {}},
        {"nodeB", {{"cpu-type", "arm64", kPreferNoSchedule}}},
        {"nodeC",
         {{"cpu-type", "arm64", kPreferNoSchedule}, {"disk-type", "ssd", kPreferNoSchedule}}}},
       {100, 50, 0}},
      {"only taints and tolerations that have effect PreferNoSchedule are checked by "
       "taints-tolerations priority function",
       PodWith({Equal("cpu-type", "arm64", kNoSchedule), Equal("disk-type", "ssd", kNoSchedule)}),
       {{"nodeA", {}},
        {"nodeB", {{"cpu-type", "arm64", kNoSchedule}}},
        {"nodeC",
         {{"cpu-type", "arm64", kPreferNoSchedule}, {"disk-type", "ssd", kPreferNoSchedule}}}},
       {100, 100, 0}},
      {"Default behaviour No taints and tolerations, lands on node with no taints",
       PodWith({}),
       {{"nodeA", {}}, {"nodeB", {{"cpu-type", "arm64", kPreferNoSchedule}}}},
       {100, 0}},
  };
  TaintToleration plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const framework::PodInfoPtr pod = framework::PodInfo::Make(c.pod);
    std::vector<framework::NodeInfo> infos;
    for (const NodeSpec& n : c.nodes) infos.push_back(InfoOf(NodeWith(n.name, n.taints)));
    std::vector<framework::NodeInfo*> ptrs;
    for (framework::NodeInfo& info : infos) ptrs.push_back(&info);
    framework::CycleState state;
    ASSERT_TRUE(plugin.PreScore(state, *pod, ptrs).IsSuccess());
    std::vector<framework::NodeScore> scores;
    for (const framework::NodeInfo& info : infos) {
      int64_t score = -1;
      ASSERT_TRUE(plugin.Score(state, *pod, info, &score).IsSuccess());
      scores.push_back({info.name(), score});
    }
    ASSERT_TRUE(plugin.NormalizeScore(state, *pod, scores).IsSuccess());
    std::vector<int64_t> got;
    for (const framework::NodeScore& s : scores) got.push_back(s.score);
    EXPECT_EQ(got, c.want);
  }
}

TEST(TaintTolerationScore, WithoutPreScoreIsAnError) {
  TaintToleration plugin;
  framework::CycleState state;
  int64_t score = 0;
  const Status got = plugin.Score(state, *framework::PodInfo::Make(PodWith({})),
                                  InfoOf(NodeWith("n", {})), &score);
  EXPECT_EQ(got.code(), Code::kError);
  EXPECT_EQ(got.Message(), "failed to read \"PreScoreTaintToleration\" from cycleState: not found");
}

TEST(TaintTolerationScore, PreScoreStateClones) {
  TaintToleration plugin;
  framework::CycleState state;
  const framework::PodInfoPtr pod =
      framework::PodInfo::Make(PodWith({Equal("foo", "bar", kPreferNoSchedule)}));
  framework::NodeInfo node = InfoOf(NodeWith("n", {{"foo", "bar", kPreferNoSchedule}}));
  framework::NodeInfo* feasible[] = {&node};
  ASSERT_TRUE(plugin.PreScore(state, *pod, feasible).IsSuccess());
  const std::unique_ptr<framework::CycleState> copy = state.Clone();
  int64_t score = -1;
  ASSERT_TRUE(plugin.Score(*copy, *pod, node, &score).IsSuccess());
  EXPECT_EQ(score, 0);
}

TEST(TaintTolerationEvents, NodeChangeHint) {
  const api::Pod pod = PodWith({Equal("dedicated", "user2", kNoSchedule)});
  const api::Node user1 = NodeWith("nodeA", {{"dedicated", "user1", kNoSchedule}});
  const api::Node user2 = NodeWith("nodeA", {{"dedicated", "user2", kNoSchedule}});
  const api::Node user1_and_3 =
      NodeWith("nodeA", {{"dedicated", "user1", kNoSchedule}, {"dedicated", "user3", kNoSchedule}});
  struct Case {
    std::string name;
    const api::Node* old_node;
    const api::Node* new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"skip-queue-on-untoleratedtaint-node-added", nullptr, &user1, QueueingHint::kSkip},
      {"queue-on-toleratedtaint-node-added", nullptr, &user2, QueueingHint::kQueue},
      {"skip-unrelated-change", &user1, &user1_and_3, QueueingHint::kSkip},
      {"queue-on-taint-change", &user1, &user2, QueueingHint::kQueue},
  };
  TaintToleration plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    framework::EventObjects e;
    e.old_node = c.old_node;
    e.new_node = c.new_node;
    Status error;
    EXPECT_EQ(plugin.IsSchedulableAfterNodeChange(pod, e, &error), c.want);
    EXPECT_TRUE(error.IsSuccess());
  }
  Status error;
  EXPECT_EQ(plugin.IsSchedulableAfterNodeChange(pod, {}, &error), QueueingHint::kQueue);
  EXPECT_TRUE(error.IsError());
}

TEST(TaintTolerationEvents, PodTolerationChangeHint) {
  const api::Pod target = PodWith({}, "uid0");
  const api::Pod other_old = PodWith({}, "uid1");
  const api::Pod other_new =
      PodWith({Tol("foo", TolerationOperator::kEqual, "", kNoSchedule)}, "uid1");
  const api::Pod self_new =
      PodWith({Tol("foo", TolerationOperator::kEqual, "", kNoSchedule)}, "uid0");
  TaintToleration plugin;
  framework::EventObjects e;
  e.old_pod = &other_old;
  e.new_pod = &other_new;
  EXPECT_EQ(plugin.IsSchedulableAfterPodTolerationChange(target, e, nullptr), QueueingHint::kSkip);
  e.old_pod = &target;
  e.new_pod = &self_new;
  EXPECT_EQ(plugin.IsSchedulableAfterPodTolerationChange(target, e, nullptr), QueueingHint::kQueue);
  Status error;
  EXPECT_EQ(plugin.IsSchedulableAfterPodTolerationChange(target, {}, &error), QueueingHint::kQueue);
  EXPECT_TRUE(error.IsError());
}

TEST(TaintTolerationEvents, Registered) {
  const std::vector<framework::ClusterEventWithHint> events = TaintToleration().EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.actions,
            framework::kAdd | framework::kUpdateNodeTaint | framework::kUpdateNodeLabel);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[1].event.actions, framework::kUpdatePodToleration);
  for (const auto& e : events) EXPECT_TRUE(static_cast<bool>(e.hint));
}

}  // namespace
}  // namespace muster::plugins::tainttoleration

namespace muster::plugins::tainttoleration {
namespace {

// Not upstream's: with no PreferNoSchedule taint among the feasible nodes every node would score
// 100, so PreScore skips scoring; one such taint anywhere among them, and it scores.
TEST(TaintTolerationPreScore, SkipsWhenNoNodePrefersAgainstPods) {
  TaintToleration plugin;
  const framework::PodInfoPtr pod = framework::PodInfo::Make(PodWith({}));
  framework::NodeInfo plain = InfoOf(NodeWith("plain", {}));
  framework::NodeInfo hard = InfoOf(NodeWith("hard", {{"dedicated", "gpu", kNoSchedule}}));
  framework::NodeInfo soft = InfoOf(NodeWith("soft", {{"spot", "true", kPreferNoSchedule}}));
  {
    framework::CycleState state;
    framework::NodeInfo* feasible[] = {&plain, &hard};
    EXPECT_TRUE(plugin.PreScore(state, *pod, feasible).IsSkip());
    int64_t score = -1;
    ASSERT_TRUE(plugin.Score(state, *pod, plain, &score).IsSuccess()) << "still scores if asked";
    EXPECT_EQ(score, 0);
  }
  {
    framework::CycleState state;
    framework::NodeInfo* feasible[] = {&plain, &hard, &soft};
    EXPECT_TRUE(plugin.PreScore(state, *pod, feasible).IsSuccess());
  }
}

// With a handle, PreScore reads the snapshot's count of nodes preferring no schedule before it
// looks at the feasible nodes; the answers stay the same.
TEST(TaintTolerationPreScore, SkipsByTheSnapshotCountWithTheSameAnswers) {
  testing::FakeServices fake;
  fake.AddNode(NodeWith("plain", {}));
  fake.AddNode(NodeWith("hard", {{"dedicated", "gpu", kNoSchedule}}));
  TaintToleration plugin(&fake.handle());
  const framework::PodInfoPtr pod = framework::PodInfo::Make(PodWith({}));
  auto prescore = [&](std::vector<std::string_view> names) {
    std::vector<framework::NodeInfo*> feasible;
    for (std::string_view n : names) feasible.push_back(fake.snapshot().Get(api::Symbol(n)));
    framework::CycleState state;
    return plugin.PreScore(state, *pod, feasible);
  };
  ASSERT_EQ(fake.snapshot().NumNodesPreferringNoSchedule(), 0);
  EXPECT_TRUE(prescore({"plain", "hard"}).IsSkip());
  fake.AddNode(NodeWith("soft", {{"spot", "true", kPreferNoSchedule}}));
  EXPECT_TRUE(prescore({"plain", "hard"}).IsSkip()) << "not among the feasible nodes";
  EXPECT_TRUE(prescore({"plain", "soft"}).IsSuccess());
}

}  // namespace
}  // namespace muster::plugins::tainttoleration
