#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/plugins/podtopologyspread/pod_topology_spread.h"
#include "muster/plugins/podtopologyspread/test_helpers.h"

// Cases from upstream scoring_test.go: TestPreScoreSkip, TestPreScoreStateEmptyNodes and
// TestPodTopologySpreadScore, with upstream's exact normalized scores. NodeInclusionPolicy and
// matchLabelKeys are always on here, so the cases that only show them switched off are left out.
// Upstream's cases where a Service or ReplicaSet selects the pod use a ReplicaSet owner, whose
// selector muster takes from the pod's labels (see DefaultSelector).

namespace muster::plugins::podtopologyspread {
namespace {

using framework::Code;
using framework::Status;
using testutil::Bar;
using testutil::Foo;
using testutil::Harness;
using testutil::kDoNotSchedule;
using testutil::kHonor;
using testutil::kHostname;
using testutil::kIgnore;
using testutil::kScheduleAnyway;
using testutil::kUnschedulableTaint;
using testutil::kZone;
using testutil::MakeNode;
using testutil::TestPod;

api::Pod FooPod(std::string_view name, std::string_view node) {
  return TestPod(name).Node(node).Label("foo", "");
}

// A node labelled kubernetes.io/hostname=<name>, plus zone=<zone> when given.
api::Node HostNode(std::string_view name, std::string_view zone = "") {
  testing::NodeBuilder b = MakeNode(name);
  if (!zone.empty()) b.Label("zone", zone);
  b.Label(kHostname, name);
  return b.Obj();
}

DefaultConstraint Default(int32_t max_skew, std::string key, std::string when) {
  DefaultConstraint d;
  d.max_skew = max_skew;
  d.topology_key = std::move(key);
  d.when_unsatisfiable = std::move(when);
  return d;
}

// ---- PreScore ----

TEST(PodTopologySpreadPreScore, Skip) {
  {
    SCOPED_TRACE("the pod doesn't have soft topology spread constraints");
    Harness h({HostNode("node-a"), HostNode("node-b")}, {}, testutil::ListArgs());
    framework::CycleState state;
    EXPECT_TRUE(h.plugin()
                    .PreScore(state, *framework::PodInfo::Make(TestPod("p").Obj()), h.all_nodes())
                    .IsSkip());
  }
  {
    SCOPED_TRACE("default constraints and a pod without a controller");
    Harness h({MakeNode("node-a").Label("planet", "mars").Obj()}, {},
              testutil::ListArgs({Default(2, "planet", "ScheduleAnyway")}));
    framework::CycleState state;
    const auto pod = framework::PodInfo::Make(TestPod("p").Label("foo", "bar").Label("baz", "sup"));
    EXPECT_TRUE(h.plugin().PreScore(state, *pod, h.all_nodes()).IsSkip());
  }
  {
    SCOPED_TRACE("no nodes");
    Harness h({}, {}, testutil::ListArgs());
    framework::CycleState state;
    const auto pod = framework::PodInfo::Make(
        TestPod("p").Label("foo", "").Spread(1, "zone", kScheduleAnyway, Foo()));
    EXPECT_TRUE(h.plugin().PreScore(state, *pod, h.all_nodes()).IsSkip());
  }
}

struct WantScoreConstraint {
  std::string key;
  int32_t max_skew = 1;
  bool honor_affinity = true;
  bool honor_taints = false;
  std::map<std::string, int64_t> counts;
  size_t weight_size = 0;  // the weight is log(weight_size + 2)
};

struct PreScoreCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  PodTopologySpreadArgs args;
  std::vector<WantScoreConstraint> want;
  std::set<std::string> ignored;
};

TEST(PodTopologySpreadPreScore, UpstreamStateCases) {
  const std::vector<api::Node> foo_zone_nodes = {
      MakeNode("node-a").Label("zone", "zone1").Label("foo", "").Label(kHostname, "node-a").Obj(),
      MakeNode("node-b").Label("zone", "zone1").Label("foo", "").Label(kHostname, "node-b").Obj(),
      HostNode("node-x", "zone2")};
  const std::vector<api::Node> tainted_nodes = {
      MakeNode("node-a").Label("zone", "zone1").Label("foo", "").Label(kHostname, "node-a").Obj(),
      MakeNode("node-b").Label("zone", "zone1").Label("foo", "").Label(kHostname, "node-b").Obj(),
      MakeNode("node-x")
          .Label("zone", "zone2")
          .Label(kHostname, "node-x")
          .Taint(kUnschedulableTaint, "", api::TaintEffect::kNoSchedule)
          .Obj()};
  const std::vector<PreScoreCase> cases = {
      {"normal case",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kScheduleAnyway, Foo())
           .Spread(1, kHostname, kScheduleAnyway, Foo()),
       {HostNode("node-a", "zone1"), HostNode("node-b", "zone1"), HostNode("node-x", "zone2")},
       testutil::ListArgs(),
       {{"zone", 1, true, false, {{"zone1", 0}, {"zone2", 0}}, 2},
        {std::string(kHostname), 1, true, false, {}, 3}},
       {}},
      {"null selector",
       TestPod("p").Label("foo", "").Spread(1, "zone", kScheduleAnyway, std::nullopt),
       {HostNode("node-a", "zone1"), HostNode("node-b", "zone1"), HostNode("node-x", "zone2")},
       testutil::ListArgs(),
       {{"zone", 1, true, false, {{"zone1", 0}, {"zone2", 0}}, 2}},
       {}},
      {"node-x doesn't have label zone",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kScheduleAnyway, Foo())
           .Spread(1, kHostname, kScheduleAnyway, Bar()),
       {HostNode("node-a", "zone1"), HostNode("node-b", "zone1"), HostNode("node-x")},
       testutil::ListArgs(),
       {{"zone", 1, true, false, {{"zone1", 0}}, 1},
        {std::string(kHostname), 1, true, false, {}, 2}},
       {"node-x"}},
      {"system default constraints and a replicaset",
       TestPod("p").Label("foo", "tar").Label("baz", "sup").Owner("rs1", "apps/v1", "ReplicaSet"),
       // Nodes with no zone are not excluded: they are considered a separate zone.
       {MakeNode("node-a").Label(kHostname, "node-a").Label(kZone, "mars").Obj(),
        MakeNode("node-b").Label(kHostname, "node-b").Label(kZone, "mars").Obj(),
        MakeNode("node-c").Label(kHostname, "node-c").Obj(),
        MakeNode("node-d").Label(kHostname, "node-d").Obj()},
       testutil::SystemArgs(),
       {{std::string(kHostname), 3, true, false, {}, 4},
        {std::string(kZone), 5, true, false, {{"mars", 0}, {"", 0}}, 2}},
       {}},
      {"default constraints and a replicaset",
       TestPod("p").Label("foo", "tar").Label("baz", "sup").Owner("rs1", "apps/v1", "ReplicaSet"),
       {MakeNode("node-a")
            .Label("rack", "rack1")
            .Label(kHostname, "node-a")
            .Label("planet", "mars")
            .Obj()},
       testutil::ListArgs({Default(1, std::string(kHostname), "ScheduleAnyway"),
                           Default(2, "rack", "DoNotSchedule"),
                           Default(2, "planet", "ScheduleAnyway")}),
       {{std::string(kHostname), 1, true, false, {}, 1},
        {"planet", 2, true, false, {{"mars", 0}}, 1}},
       {}},
      {"default constraints and a replicaset, but pod has constraints",
       TestPod("p")
           .Label("foo", "bar")
           .Label("baz", "sup")
           .Owner("rs1", "apps/v1", "ReplicaSet")
           .Spread(1, "zone", kDoNotSchedule, Bar())
           .Spread(2, "planet", kScheduleAnyway, testutil::MatchLabels({{"baz", "sup"}})),
       {MakeNode("node-a").Label("planet", "mars").Label("galaxy", "andromeda").Obj()},
       testutil::ListArgs({Default(2, "galaxy", "ScheduleAnyway")}),
       {{"planet", 2, true, false, {{"mars", 0}}, 1}},
       {}},
      {"NodeAffinityPolicy honored with labelSelectors",
       TestPod("p").Label("foo", "").NodeSelector("foo", "").Spread(1, "zone", kScheduleAnyway,
                                                                    Bar()),
       foo_zone_nodes,
       testutil::ListArgs(),
       {{"zone", 1, true, false, {{"zone1", 0}, {"zone2", 0}}, 2}},
       {}},
      {"NodeAffinityPolicy ignored with labelSelectors",
       TestPod("p").Label("foo", "").NodeSelector("foo", "").Spread(1, "zone", kScheduleAnyway,
                                                                    Bar(), std::nullopt, kIgnore),
       foo_zone_nodes,
       testutil::ListArgs(),
       {{"zone", 1, false, false, {{"zone1", 0}, {"zone2", 0}}, 2}},
       {}},
      {"NodeAffinityPolicy honored with nodeAffinity",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("foo", api::SelectorOperator::kIn, {""})
           .Spread(1, "zone", kScheduleAnyway, Bar()),
       foo_zone_nodes,
       testutil::ListArgs(),
       {{"zone", 1, true, false, {{"zone1", 0}, {"zone2", 0}}, 2}},
       {}},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("foo", api::SelectorOperator::kIn, {""})
           .Spread(1, "zone", kScheduleAnyway, Bar(), std::nullopt, kIgnore),
       foo_zone_nodes,
       testutil::ListArgs(),
       {{"zone", 1, false, false, {{"zone1", 0}, {"zone2", 0}}, 2}},
       {}},
      {"NodeTaintsPolicy honored",
       TestPod("p").Label("foo", "").Spread(1, "zone", kScheduleAnyway, Bar(), std::nullopt,
                                            std::nullopt, kHonor),
       tainted_nodes,
       testutil::ListArgs(),
       {{"zone", 1, true, true, {{"zone1", 0}, {"zone2", 0}}, 2}},
       {}},
      {"NodeTaintsPolicy ignored",
       TestPod("p").Label("foo", "").Spread(1, "zone", kScheduleAnyway, Bar()),
       tainted_nodes,
       testutil::ListArgs(),
       {{"zone", 1, true, false, {{"zone1", 0}, {"zone2", 0}}, 2}},
       {}},
  };
  for (const PreScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    Harness h(c.nodes, {}, c.args);
    framework::CycleState state;
    const Status s = h.plugin().PreScore(state, *framework::PodInfo::Make(c.pod), h.all_nodes());
    ASSERT_TRUE(s.IsSuccess()) << ToString(s);
    const auto* got = state.Read<PreScoreState>(PodTopologySpread::kPreScoreStateKey);
    ASSERT_NE(got, nullptr);
    const PreScoreState::Data& data = *got->data;
    std::set<std::string> ignored;
    for (api::Symbol n : data.ignored_nodes) ignored.insert(n.string());
    EXPECT_EQ(ignored, c.ignored);
    ASSERT_EQ(data.constraints.size(), c.want.size());
    for (size_t i = 0; i < c.want.size(); ++i) {
      SCOPED_TRACE("constraint " + std::to_string(i));
      const Constraint& con = data.constraints[i];
      EXPECT_EQ(con.topology_key.str(), c.want[i].key);
      EXPECT_EQ(con.max_skew, c.want[i].max_skew);
      EXPECT_EQ(con.honor_node_affinity, c.want[i].honor_affinity);
      EXPECT_EQ(con.honor_node_taints, c.want[i].honor_taints);
      std::map<std::string, int64_t> counts;
      for (const auto& [value, n] : data.counts[i]) counts[value.string()] = n;
      EXPECT_EQ(counts, c.want[i].counts);
      EXPECT_DOUBLE_EQ(data.weights[i], std::log(static_cast<double>(c.want[i].weight_size + 2)));
    }
  }
}

// ---- Score and NormalizeScore ----

struct ScoreCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Pod> existing;
  std::vector<api::Node> nodes;         // feasible
  std::vector<api::Node> failed_nodes;  // nodes + failed_nodes = all nodes
  std::map<std::string, int64_t> want;
};

void RunScoreCases(const std::vector<ScoreCase>& cases) {
  for (const ScoreCase& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<api::Node> all = c.nodes;
    all.insert(all.end(), c.failed_nodes.begin(), c.failed_nodes.end());
    // Upstream runs these with the system defaults configured.
    Harness h(all, c.existing, testutil::SystemArgs());
    const auto pod = framework::PodInfo::Make(c.pod);
    const std::vector<framework::NodeInfo*> feasible = h.nodes(testutil::NodeNames(c.nodes));
    framework::CycleState state;
    const Status pre = h.plugin().PreScore(state, *pod, feasible);
    ASSERT_TRUE(pre.IsSuccess()) << ToString(pre);
    std::vector<framework::NodeScore> scores;
    for (const framework::NodeInfo* n : feasible) {
      int64_t score = 0;
      const Status s = h.plugin().Score(state, *pod, *n, &score);
      ASSERT_TRUE(s.IsSuccess()) << ToString(s);
      scores.push_back(framework::NodeScore{n->name(), score});
    }
    ASSERT_TRUE(h.plugin().NormalizeScore(state, *pod, scores).IsSuccess());
    std::map<std::string, int64_t> got;
    for (const framework::NodeScore& s : scores) got[s.name.string()] = s.score;
    EXPECT_EQ(got, c.want);
  }
}

TEST(PodTopologySpreadScore, UpstreamCases) {
  const std::vector<api::Pod> spread_2103 = {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"),
                                             FooPod("p-b1", "node-b"), FooPod("p-d1", "node-d"),
                                             FooPod("p-d2", "node-d"), FooPod("p-d3", "node-d")};
  const std::vector<api::Pod> spread_4321 = {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"),
                                             FooPod("p-a3", "node-a"), FooPod("p-a4", "node-a"),
                                             FooPod("p-b1", "node-b"), FooPod("p-b2", "node-b"),
                                             FooPod("p-b3", "node-b"), FooPod("p-c1", "node-c"),
                                             FooPod("p-c2", "node-c"), FooPod("p-d1", "node-d")};
  const std::vector<api::Pod> spread_4213 = {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"),
                                             FooPod("p-a3", "node-a"), FooPod("p-a4", "node-a"),
                                             FooPod("p-b1", "node-b"), FooPod("p-b2", "node-b"),
                                             FooPod("p-x1", "node-x"), FooPod("p-y1", "node-y"),
                                             FooPod("p-y2", "node-y"), FooPod("p-y3", "node-y")};
  const std::vector<api::Node> abcd = {HostNode("node-a"), HostNode("node-b"), HostNode("node-c"),
                                       HostNode("node-d")};
  const std::vector<api::Node> zoned_abxy = {
      HostNode("node-a", "zone1"), HostNode("node-b", "zone1"), HostNode("node-x", "zone2"),
      HostNode("node-y", "zone2")};
  const std::vector<api::Node> zoned_abcd = {
      HostNode("node-a", "zone1"), HostNode("node-b", "zone1"), HostNode("node-c", "zone2"),
      HostNode("node-d", "zone2")};
  const api::Pod foo_bar_zone_host = TestPod("p")
                                         .Label("foo", "")
                                         .Label("bar", "")
                                         .Spread(1, "zone", kScheduleAnyway, Foo())
                                         .Spread(1, kHostname, kScheduleAnyway, Bar());
  const std::vector<api::Node> node_abc = {
      MakeNode("node-a").Label("node", "node-a").Label("foo", "").Obj(),
      MakeNode("node-b").Label("node", "node-b").Label("foo", "").Obj(),
      MakeNode("node-c").Label("node", "node-c").Obj()};
  const std::vector<api::Node> taint_abc = {
      MakeNode("node-a").Label("node", "node-a").Obj(),
      MakeNode("node-b").Label("node", "node-b").Obj(),
      MakeNode("node-c")
          .Label("node", "node-c")
          .Taint(kUnschedulableTaint, "", api::TaintEffect::kNoSchedule)
          .Obj()};
  const std::vector<api::Pod> spread_211 = {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"),
                                            FooPod("p-b1", "node-b"), FooPod("p-c1", "node-c")};
  auto host_pod = [](int32_t max_skew) {
    return TestPod("p").Label("foo", "").Spread(max_skew, kHostname, kScheduleAnyway, Foo()).Obj();
  };
  auto pods = [](std::initializer_list<std::pair<std::string_view, std::string_view>> entries,
                 std::initializer_list<std::vector<std::string_view>> labels) {
    std::vector<api::Pod> out;
    auto label = labels.begin();
    for (const auto& [name, node] : entries) {
      TestPod p(name);
      p.Node(node);
      for (std::string_view l : *label++) p.Label(l, "");
      out.push_back(p);
    }
    return out;
  };

  const std::vector<ScoreCase> cases = {
      {"one constraint on node, no existing pods",
       host_pod(1),
       {},
       {HostNode("node-a"), HostNode("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 100}}},
      {"one constraint on node, only one node is candidate",
       host_pod(1),
       {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-b1", "node-b")},
       {HostNode("node-a")},
       {HostNode("node-b")},
       {{"node-a", 100}}},
      {"one constraint on node, all nodes have the same number of matching pods",
       host_pod(1),
       {FooPod("p-a1", "node-a"), FooPod("p-b1", "node-b")},
       {HostNode("node-a"), HostNode("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 100}}},
      {"one constraint on node, all 4 nodes are candidates",
       host_pod(1),
       spread_2103,
       abcd,
       {},
       {{"node-a", 20}, {"node-b", 60}, {"node-c", 100}, {"node-d", 0}}},
      {"one constraint on node, null selector",
       TestPod("p").Label("foo", "").Spread(1, kHostname, kScheduleAnyway, std::nullopt),
       spread_2103,
       abcd,
       {},
       {{"node-a", 100}, {"node-b", 100}, {"node-c", 100}, {"node-d", 100}}},
      {"one constraint on node, all 4 nodes are candidates, maxSkew=2",
       host_pod(2),
       spread_2103,
       abcd,
       {},
       {{"node-a", 33}, {"node-b", 66}, {"node-c", 100}, {"node-d", 16}}},
      {"one constraint on node, all 4 nodes are candidates, maxSkew=3",
       host_pod(3),
       spread_4321,
       abcd,
       {},
       {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}}},
      {"system defaulting, nodes don't have zone, pods match the controller",
       TestPod("p").Label("foo", "").Owner("rs", "apps/v1", "ReplicaSet"),
       spread_4321,
       abcd,
       {},
       // Same scores as if we were using one spreading constraint.
       {{"node-a", 44}, {"node-b", 66}, {"node-c", 77}, {"node-d", 100}}},
      {"one constraint on node, 3 out of 4 nodes are candidates",
       host_pod(1),
       spread_4213,
       {HostNode("node-a"), HostNode("node-b"), HostNode("node-x")},
       {HostNode("node-y")},
       {{"node-a", 33}, {"node-b", 83}, {"node-x", 100}}},
      {"one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology "
       "key",
       host_pod(1),
       spread_4213,
       {HostNode("node-a"), MakeNode("node-b").Label("n", "node-b").Obj(), HostNode("node-x")},
       {HostNode("node-y")},
       {{"node-a", 16}, {"node-b", 0}, {"node-x", 100}}},
      {"one constraint on zone, 3 out of 4 nodes are candidates",
       TestPod("p").Label("foo", "").Spread(1, "zone", kScheduleAnyway, Foo()),
       spread_4213,
       {HostNode("node-a", "zone1"), HostNode("node-b", "zone1"), HostNode("node-x", "zone2")},
       {HostNode("node-y", "zone2")},
       {{"node-a", 75}, {"node-b", 75}, {"node-x", 100}}},
      {"two Constraints on zone and node, 2 out of 4 nodes are candidates",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kScheduleAnyway, Foo())
           .Spread(1, kHostname, kScheduleAnyway, Foo()),
       {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-b1", "node-b"),
        FooPod("p-x1", "node-x"), FooPod("p-x2", "node-x"), FooPod("p-y1", "node-y"),
        FooPod("p-y2", "node-y"), FooPod("p-y3", "node-y"), FooPod("p-y4", "node-y")},
       {HostNode("node-a", "zone1"), HostNode("node-x", "zone2")},
       {HostNode("node-b", "zone1"), HostNode("node-y", "zone2")},
       {{"node-a", 100}, {"node-x", 63}}},
      {"two Constraints on zone, 2 out of 4 nodes are candidates",
       TestPod("p")
           .Label("foo", "")
           .Label("bar", "")
           .Spread(1, "zone", kScheduleAnyway, Foo())
           .Spread(1, "zone", kScheduleAnyway, Bar()),
       pods({{"p-a1", "node-a"},
             {"p-a2", "node-a"},
             {"p-b1", "node-b"},
             {"p-y1", "node-y"},
             {"p-y2", "node-y"},
             {"p-y3", "node-y"}},
            {{"foo", "bar"}, {"foo"}, {"foo", "bar"}, {"foo"}, {"foo", "bar"}, {"foo"}}),
       {MakeNode("node-a").Label("zone", "zone1").Obj(),
        MakeNode("node-x").Label("zone", "zone2").Obj()},
       {MakeNode("node-b").Label("zone", "zone1").Obj(),
        MakeNode("node-y").Label("zone", "zone2").Obj()},
       {{"node-a", 85}, {"node-x", 100}}},
      {"two Constraints on zone and node, with different labelSelectors",
       foo_bar_zone_host,
       pods({{"p-a1", "node-a"}, {"p-b1", "node-b"}, {"p-y1", "node-y"}, {"p-y2", "node-y"}},
            {{"foo"}, {"foo", "bar"}, {"foo"}, {"bar"}}),
       zoned_abxy,
       {},
       {{"node-a", 60}, {"node-b", 20}, {"node-x", 100}, {"node-y", 60}}},
      {"two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
       foo_bar_zone_host,
       pods({{"p-b1", "node-b"}, {"p-x1", "node-x"}, {"p-y1", "node-y"}},
            {{"bar"}, {"foo"}, {"foo", "bar"}}),
       zoned_abxy,
       {},
       {{"node-a", 100}, {"node-b", 60}, {"node-x", 40}, {"node-y", 0}}},
      {"two Constraints on zone and node, with different labelSelectors, 3 out of 4 nodes are "
       "candidates",
       foo_bar_zone_host,
       pods({{"p-a1", "node-a"}, {"p-b1", "node-b"}, {"p-y1", "node-y"}, {"p-y2", "node-y"}},
            {{"foo"}, {"foo", "bar"}, {"foo"}, {"bar"}}),
       {HostNode("node-a", "zone1"), HostNode("node-b", "zone1"), HostNode("node-x", "zone2")},
       {HostNode("node-y", "zone2")},
       {{"node-a", 50}, {"node-b", 25}, {"node-x", 100}}},
      {"existing pods in a different namespace do not count",
       host_pod(1),
       {TestPod("p-a1").Namespace("ns1").Node("node-a").Label("foo", ""), FooPod("p-a2", "node-a"),
        FooPod("p-b1", "node-b"), FooPod("p-b2", "node-b")},
       {HostNode("node-a"), HostNode("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 33}}},
      {"terminating Pods should be excluded",
       host_pod(1),
       {TestPod("p-a").Node("node-a").Label("foo", "").Terminating(), FooPod("p-b", "node-b")},
       {HostNode("node-a"), HostNode("node-b")},
       {},
       {{"node-a", 100}, {"node-b", 0}}},
      {"minDomains has no effect when ScheduleAnyway",
       TestPod("p").Label("foo", "").Spread(2, "node", kScheduleAnyway, Foo(), 10),
       {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-b1", "node-b"),
        FooPod("p-b2", "node-b"), FooPod("p-c1", "node-c")},
       {MakeNode("node-a").Label("node", "node-a").Obj(),
        MakeNode("node-b").Label("node", "node-b").Obj(),
        MakeNode("node-c").Label("node", "node-c").Obj()},
       {},
       {{"node-a", 75}, {"node-b", 75}, {"node-c", 100}}},
      {"NodeAffinityPolicy honoed with labelSelectors",
       TestPod("p").Label("foo", "").NodeSelector("foo", "").Spread(1, "node", kScheduleAnyway,
                                                                    Foo()),
       spread_211,
       node_abc,
       {},
       {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {"NodeAffinityPolicy ignored with labelSelectors",
       TestPod("p").Label("foo", "").NodeSelector("foo", "").Spread(1, "node", kScheduleAnyway,
                                                                    Foo(), std::nullopt, kIgnore),
       spread_211,
       node_abc,
       {},
       {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {"NodeAffinityPolicy honoed with nodeAffinity",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("foo", api::SelectorOperator::kIn, {""})
           .Spread(1, "node", kScheduleAnyway, Foo()),
       spread_211,
       node_abc,
       {},
       {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("foo", api::SelectorOperator::kIn, {""})
           .Spread(1, "node", kScheduleAnyway, Foo(), std::nullopt, kIgnore),
       spread_211,
       node_abc,
       {},
       {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {"NodeTaintsPolicy honored",
       TestPod("p").Label("foo", "").Spread(1, "node", kScheduleAnyway, Foo(), std::nullopt,
                                            std::nullopt, kHonor),
       spread_211,
       taint_abc,
       {},
       {{"node-a", 0}, {"node-b", 33}, {"node-c", 100}}},
      {"NodeTaintsPolicy ignored",
       TestPod("p").Label("foo", "").Spread(1, "node", kScheduleAnyway, Foo()),
       spread_211,
       taint_abc,
       {},
       {{"node-a", 66}, {"node-b", 100}, {"node-c", 100}}},
      {"matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
       TestPod("p")
           .Label("foo", "")
           .Label("bar", "")
           .Spread(1, "zone", kScheduleAnyway, api::LabelSelector{}, std::nullopt, std::nullopt,
                   std::nullopt, {"foo"})
           .Spread(1, kHostname, kScheduleAnyway, api::LabelSelector{}, std::nullopt, std::nullopt,
                   std::nullopt, {"bar"}),
       pods({{"p-a1", "node-a"}, {"p-b1", "node-b"}, {"p-y1", "node-c"}, {"p-y2", "node-c"}},
            {{"foo"}, {"foo", "bar"}, {"foo"}, {"bar"}}),
       zoned_abcd,
       {},
       {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}},
      {"matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
       TestPod("p")
           .Label("foo", "")
           .Label("bar", "")
           .Label("baz", "")
           .Spread(1, "zone", kScheduleAnyway, Foo())
           .Spread(1, kHostname, kScheduleAnyway, Bar(), std::nullopt, std::nullopt, std::nullopt,
                   {"baz"}),
       pods({{"p-a1", "node-a"},
             {"p-b1", "node-b"},
             {"p-c1", "node-c"},
             {"p-c2", "node-c"},
             {"p-d3", "node-c"}},
            {{"foo"}, {"foo", "bar", "baz"}, {"foo"}, {"bar"}, {"bar", "baz"}}),
       zoned_abcd,
       {},
       {{"node-a", 60}, {"node-b", 20}, {"node-c", 60}, {"node-d", 100}}},
  };
  RunScoreCases(cases);
}

// An empty (non-nil) selector selects every pod of the namespace, as current upstream counts it
// (kubernetes/kubernetes#141340): spreading over all pods on 2/1/0/3.
TEST(PodTopologySpreadScore, EmptySelectorCountsEveryPod) {
  const std::vector<api::Pod> existing = {
      FooPod("p-a1", "node-a"),       TestPod("p-a2").Node("node-a"), FooPod("p-b1", "node-b"),
      TestPod("p-d1").Node("node-d"), TestPod("p-d2").Node("node-d"), FooPod("p-d3", "node-d")};
  RunScoreCases({{"empty selector",
                  TestPod("p").Spread(1, kHostname, kScheduleAnyway, api::LabelSelector{}),
                  existing,
                  {HostNode("node-a"), HostNode("node-b"), HostNode("node-c"), HostNode("node-d")},
                  {},
                  {{"node-a", 20}, {"node-b", 60}, {"node-c", 100}, {"node-d", 0}}}});
}

TEST(PodTopologySpreadScore, StatefulSetPodLabelsAreLeftOutOfTheDefaultSelector) {
  // Each StatefulSet pod carries its own pod-name label; the default selector must still match
  // its siblings, so spreading sees 2/1/0 web pods.
  auto member = [](std::string_view name, std::string_view node) {
    return TestPod(name)
        .Node(node)
        .Label("app", "web")
        .Label("statefulset.kubernetes.io/pod-name", name)
        .Owner("web", "apps/v1", "StatefulSet")
        .Obj();
  };
  RunScoreCases({{"statefulset",
                  TestPod("web-3")
                      .Label("app", "web")
                      .Label("statefulset.kubernetes.io/pod-name", "web-3")
                      .Owner("web", "apps/v1", "StatefulSet"),
                  {member("web-0", "node-a"), member("web-1", "node-a"), member("web-2", "node-b")},
                  {HostNode("node-a"), HostNode("node-b"), HostNode("node-c")},
                  {},
                  // hostname (maxSkew 3, 3 domains): 2*log(5)+2 = 5, 1*log(5)+2 = 4, 2; the
                  // nodes have no zone label, so the zone constraint adds nothing.
                  {{"node-a", 40}, {"node-b", 60}, {"node-c", 100}}}});
}

TEST(PodTopologySpreadScore, ScoreWithoutPreScoreIsAnError) {
  Harness h({HostNode("node-a")}, {}, testutil::ListArgs());
  framework::CycleState state;
  int64_t score = -1;
  const Status s = h.plugin().Score(state, *framework::PodInfo::Make(TestPod("p").Obj()),
                                    h.node("node-a"), &score);
  EXPECT_EQ(
      s, Status::Error("error reading \"PreScorePodTopologySpread\" from cycleState: not found"));
}

}  // namespace
}  // namespace muster::plugins::podtopologyspread
