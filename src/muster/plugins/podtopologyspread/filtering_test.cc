#include <climits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "muster/plugins/podtopologyspread/pod_topology_spread.h"
#include "muster/plugins/podtopologyspread/test_helpers.h"

// Cases from upstream filtering_test.go: TestPreFilterState, TestPreFilterStateAddPod,
// TestPreFilterStateRemovePod, TestSingleConstraint, TestMultipleConstraints and
// TestPreFilterDisabled. NodeInclusionPolicy and matchLabelKeys are GA/on-by-default here, so the
// cases that only exist to show those features switched off are left out. Upstream's cases with a
// Service selecting the pod use a ReplicaSet owner instead (see DefaultSelector).

namespace muster::plugins::podtopologyspread {
namespace {

using framework::Code;
using framework::Status;
using testutil::Bar;
using testutil::Foo;
using testutil::Harness;
using testutil::kDoNotSchedule;
using testutil::kHonor;
using testutil::kIgnore;
using testutil::kScheduleAnyway;
using testutil::kUnschedulableTaint;
using testutil::MakeNode;
using testutil::TestPod;

// A node in zone `zone` with label node=<name>, as most upstream cases use.
api::Node ZoneNode(std::string_view name, std::string_view zone) {
  return MakeNode(name).Label("zone", zone).Label("node", name).Obj();
}

std::vector<api::Node> FourNodes() {
  return {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"), ZoneNode("node-x", "zone2"),
          ZoneNode("node-y", "zone2")};
}

api::Pod FooPod(std::string_view name, std::string_view node) {
  return TestPod(name).Node(node).Label("foo", "");
}

// ---- PreFilter state ----

using Path = std::pair<std::string, int64_t>;

struct WantConstraint {
  std::string key;
  int32_t max_skew = 1;
  bool honor_affinity = true;
  bool honor_taints = false;
  std::map<std::string, int64_t> counts;
  Path first;
  Path second;
};

// Upstream's comparison sorts the topology values of paths with equal counts.
std::pair<Path, Path> Normalized(Path a, Path b) {
  if (a.second == b.second && a.first > b.first) std::swap(a.first, b.first);
  return {a, b};
}

const Path kNoPath{"", INT32_MAX};

void ExpectState(const PreFilterState& got, const std::vector<WantConstraint>& want) {
  ASSERT_EQ(got.constraints->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("constraint " + std::to_string(i));
    const Constraint& c = (*got.constraints)[i];
    EXPECT_EQ(c.topology_key.str(), want[i].key);
    EXPECT_EQ(c.max_skew, want[i].max_skew);
    EXPECT_EQ(c.min_domains, 1);
    EXPECT_EQ(c.honor_node_affinity, want[i].honor_affinity);
    EXPECT_EQ(c.honor_node_taints, want[i].honor_taints);
    std::map<std::string, int64_t> counts;
    for (const auto& [value, n] : got.counts[i]) counts[value.string()] = n;
    EXPECT_EQ(counts, want[i].counts);
    const auto& p = got.critical_paths[i].paths;
    EXPECT_EQ(
        Normalized({p[0].value.string(), p[0].match_num}, {p[1].value.string(), p[1].match_num}),
        Normalized(want[i].first, want[i].second));
  }
}

struct PreFilterCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing;
  std::vector<DefaultConstraint> defaults;
  std::vector<WantConstraint> want;
  Code want_code = Code::kSuccess;
};

DefaultConstraint Default(int32_t max_skew, std::string key, std::string when) {
  DefaultConstraint d;
  d.max_skew = max_skew;
  d.topology_key = std::move(key);
  d.when_unsatisfiable = std::move(when);
  return d;
}

TEST(PodTopologySpreadPreFilter, UpstreamStateCases) {
  const api::Node na = MakeNode("node-a").Label("node", "node-a").Label("foo", "").Obj();
  const api::Node nb = MakeNode("node-b").Label("node", "node-b").Label("foo", "").Obj();
  const api::Node nc = MakeNode("node-c").Label("node", "node-c").Label("bar", "").Obj();
  const api::Node nc_tainted = MakeNode("node-c")
                                   .Label("node", "node-c")
                                   .Label("bar", "")
                                   .Taint(kUnschedulableTaint, "", api::TaintEffect::kNoSchedule)
                                   .Obj();
  const api::Node plain_a = MakeNode("node-a").Label("node", "node-a").Obj();
  const api::Node plain_b = MakeNode("node-b").Label("node", "node-b").Obj();
  const std::vector<api::Pod> bar_pods = {TestPod("p-a").Node("node-a").Label("bar", ""),
                                          TestPod("p-b").Node("node-b").Label("bar", ""),
                                          TestPod("p-c").Node("node-b").Label("bar", ""),
                                          TestPod("p-d").Node("node-c")};
  const std::vector<api::Pod> five = {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"),
                                      FooPod("p-b1", "node-b"), FooPod("p-y1", "node-y"),
                                      FooPod("p-y2", "node-y")};
  const std::vector<api::Pod> seven = {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"),
                                       FooPod("p-b1", "node-b"), FooPod("p-y1", "node-y"),
                                       FooPod("p-y2", "node-y"), FooPod("p-y3", "node-y"),
                                       FooPod("p-y4", "node-y")};
  const std::vector<api::Pod> foo_a_pods = {TestPod("p-a1").Node("node-a").Label("foo", "a"),
                                            TestPod("p-a2").Node("node-a").Label("foo", "a"),
                                            TestPod("p-b1").Node("node-b").Label("foo", "a"),
                                            TestPod("p-y1").Node("node-y").Label("foo", "a"),
                                            TestPod("p-y2").Node("node-y").Label("foo", "a")};
  const api::Node zb_tainted = MakeNode("node-b")
                                   .Label("zone", "zone1")
                                   .Label("node", "node-b")
                                   .Label("foo", "")
                                   .Taint(kUnschedulableTaint, "", api::TaintEffect::kNoSchedule)
                                   .Obj();

  const std::vector<PreFilterCase> cases = {
      {"clean cluster with one spreadConstraint",
       TestPod("p").Label("foo", "").Spread(5, "zone", kDoNotSchedule,
                                            testutil::MatchLabels({{"foo", "bar"}})),
       FourNodes(),
       {},
       {},
       {{"zone", 5, true, false, {{"zone1", 0}, {"zone2", 0}}, {"zone1", 0}, {"zone2", 0}}}},
      {"normal case with one spreadConstraint",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo()),
       FourNodes(),
       five,
       {},
       {{"zone", 1, true, false, {{"zone1", 3}, {"zone2", 2}}, {"zone2", 2}, {"zone1", 3}}}},
      {"normal case with null label selector",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, std::nullopt),
       FourNodes(),
       five,
       {},
       {{"zone", 1, true, false, {{"zone1", 0}, {"zone2", 0}}, {"zone2", 0}, {"zone1", 0}}}},
      {"normal case with one spreadConstraint, on a 3-zone cluster",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo()),
       {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"), ZoneNode("node-x", "zone2"),
        ZoneNode("node-y", "zone2"), ZoneNode("node-o", "zone3"), ZoneNode("node-p", "zone3")},
       five,
       {},
       {{"zone",
         1,
         true,
         false,
         {{"zone1", 3}, {"zone2", 2}, {"zone3", 0}},
         {"zone3", 0},
         {"zone2", 2}}}},
      {"namespace mismatch doesn't count",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo()),
       FourNodes(),
       {FooPod("p-a1", "node-a"), TestPod("p-a2").Namespace("ns1").Node("node-a").Label("foo", ""),
        FooPod("p-b1", "node-b"), TestPod("p-y1").Namespace("ns2").Node("node-y").Label("foo", ""),
        FooPod("p-y2", "node-y")},
       {},
       {{"zone", 1, true, false, {{"zone1", 2}, {"zone2", 1}}, {"zone2", 1}, {"zone1", 2}}}},
      {"normal case with two spreadConstraints",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kDoNotSchedule, Foo()),
       FourNodes(),
       seven,
       {},
       {{"zone", 1, true, false, {{"zone1", 3}, {"zone2", 4}}, {"zone1", 3}, {"zone2", 4}},
        {"node",
         1,
         true,
         false,
         {{"node-a", 2}, {"node-b", 1}, {"node-x", 0}, {"node-y", 4}},
         {"node-x", 0},
         {"node-b", 1}}}},
      {"soft spreadConstraints should be bypassed",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kScheduleAnyway, Foo())
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kScheduleAnyway, Foo())
           .Spread(1, "node", kDoNotSchedule, Foo()),
       {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"), ZoneNode("node-y", "zone2")},
       seven,
       {},
       {{"zone", 1, true, false, {{"zone1", 3}, {"zone2", 4}}, {"zone1", 3}, {"zone2", 4}},
        {"node",
         1,
         true,
         false,
         {{"node-a", 2}, {"node-b", 1}, {"node-y", 4}},
         {"node-b", 1},
         {"node-a", 2}}}},
      {"different labelSelectors - simple version",
       TestPod("p")
           .Label("foo", "")
           .Label("bar", "")
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kDoNotSchedule, Bar()),
       {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"), ZoneNode("node-y", "zone2")},
       {FooPod("p-a", "node-a"), TestPod("p-b").Node("node-b").Label("bar", "")},
       {},
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 0}}, {"zone2", 0}, {"zone1", 1}},
        {"node",
         1,
         true,
         false,
         {{"node-a", 0}, {"node-b", 1}, {"node-y", 0}},
         {"node-a", 0},
         {"node-y", 0}}}},
      {"different labelSelectors - complex pods",
       TestPod("p")
           .Label("foo", "")
           .Label("bar", "")
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kDoNotSchedule, Bar()),
       {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"), ZoneNode("node-y", "zone2")},
       {FooPod("p-a1", "node-a"), TestPod("p-a2").Node("node-a").Label("foo", "").Label("bar", ""),
        FooPod("p-b1", "node-b"), FooPod("p-y1", "node-y"),
        TestPod("p-y2").Node("node-y").Label("foo", "").Label("bar", ""), FooPod("p-y3", "node-y"),
        TestPod("p-y4").Node("node-y").Label("foo", "").Label("bar", "")},
       {},
       {{"zone", 1, true, false, {{"zone1", 3}, {"zone2", 4}}, {"zone1", 3}, {"zone2", 4}},
        {"node",
         1,
         true,
         false,
         {{"node-a", 1}, {"node-b", 0}, {"node-y", 2}},
         {"node-b", 0},
         {"node-a", 1}}}},
      {"two spreadConstraints, and with podAffinity",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("node", api::SelectorOperator::kNotIn, {"node-x"})
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kDoNotSchedule, Foo()),
       FourNodes(),
       seven,
       {},
       {{"zone", 1, true, false, {{"zone1", 3}, {"zone2", 4}}, {"zone1", 3}, {"zone2", 4}},
        {"node",
         1,
         true,
         false,
         {{"node-a", 2}, {"node-b", 1}, {"node-y", 4}},
         {"node-b", 1},
         {"node-a", 2}}}},
      {"default constraints and a replicaset",
       TestPod("p").Label("foo", "bar").Label("baz", "kar").Owner("rs1", "apps/v1", "ReplicaSet"),
       {},
       {},
       {Default(3, "node", "DoNotSchedule"), Default(2, "node", "ScheduleAnyway"),
        Default(5, "rack", "DoNotSchedule")},
       {{"node", 3, true, false, {}, kNoPath, kNoPath},
        {"rack", 5, true, false, {}, kNoPath, kNoPath}}},
      {"default constraints and no controller",
       TestPod("p").Label("foo", "bar"),
       {},
       {},
       {Default(3, "node", "DoNotSchedule")},
       {},
       Code::kSkip},
      {"default constraints and a replicaset, but pod has constraints",
       TestPod("p")
           .Label("foo", "bar")
           .Label("baz", "tar")
           .Owner("rs1", "apps/v1", "ReplicaSet")
           .Spread(1, "zone", kDoNotSchedule, testutil::MatchLabels({{"baz", "tar"}}))
           .Spread(2, "planet", kScheduleAnyway, testutil::MatchLabels({{"fot", "rok"}})),
       {},
       {},
       {Default(2, "node", "DoNotSchedule")},
       {{"zone", 1, true, false, {}, kNoPath, kNoPath}}},
      {"default soft constraints and a replicaset",
       TestPod("p").Label("foo", "bar").Owner("rs1", "apps/v1", "ReplicaSet"),
       {},
       {},
       {Default(2, "node", "ScheduleAnyway")},
       {},
       Code::kSkip},
      {"NodeAffinityPolicy honored with labelSelectors",
       TestPod("p").Label("foo", "").NodeSelector("foo", "").Spread(1, "node", kDoNotSchedule,
                                                                    Bar()),
       {na, nb, nc},
       bar_pods,
       {},
       {{"node", 1, true, false, {{"node-a", 1}, {"node-b", 2}}, {"node-a", 1}, {"node-b", 2}}}},
      {"NodeAffinityPolicy ignored with labelSelectors",
       TestPod("p").Label("foo", "").NodeSelector("foo", "").Spread(1, "node", kDoNotSchedule,
                                                                    Bar(), std::nullopt, kIgnore),
       {na, nb, nc},
       bar_pods,
       {},
       {{"node",
         1,
         false,
         false,
         {{"node-a", 1}, {"node-b", 2}, {"node-c", 0}},
         {"node-c", 0},
         {"node-a", 1}}}},
      {"NodeAffinityPolicy honored with nodeAffinity",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("foo", api::SelectorOperator::kIn, {""})
           .Spread(1, "node", kDoNotSchedule, Bar()),
       {na, nb, nc},
       bar_pods,
       {},
       {{"node", 1, true, false, {{"node-a", 1}, {"node-b", 2}}, {"node-a", 1}, {"node-b", 2}}}},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("foo", api::SelectorOperator::kIn, {""})
           .Spread(1, "node", kDoNotSchedule, Bar(), std::nullopt, kIgnore),
       {na, nb, nc},
       bar_pods,
       {},
       {{"node",
         1,
         false,
         false,
         {{"node-a", 1}, {"node-b", 2}, {"node-c", 0}},
         {"node-c", 0},
         {"node-a", 1}}}},
      {"NodeTaintsPolicy ignored",
       TestPod("p").Label("foo", "").Spread(1, "node", kDoNotSchedule, Bar()),
       {plain_a, plain_b, nc_tainted},
       bar_pods,
       {},
       {{"node",
         1,
         true,
         false,
         {{"node-a", 1}, {"node-b", 2}, {"node-c", 0}},
         {"node-c", 0},
         {"node-a", 1}}}},
      {"NodeTaintsPolicy honored",
       TestPod("p").Label("foo", "").Spread(1, "node", kDoNotSchedule, Bar(), std::nullopt,
                                            std::nullopt, kHonor),
       {plain_a, plain_b, nc_tainted},
       bar_pods,
       {},
       {{"node", 1, true, true, {{"node-a", 1}, {"node-b", 2}}, {"node-a", 1}, {"node-b", 2}}}},
      {"NodeTaintsPolicy honored with tolerated taints",
       TestPod("p")
           .Label("foo", "")
           .Toleration(kUnschedulableTaint)
           .Spread(1, "node", kDoNotSchedule, Bar(), std::nullopt, std::nullopt, kHonor),
       {plain_a, plain_b, nc_tainted},
       bar_pods,
       {},
       {{"node",
         1,
         true,
         true,
         {{"node-a", 1}, {"node-b", 2}, {"node-c", 0}},
         {"node-c", 0},
         {"node-a", 1}}}},
      {"two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
       TestPod("p")
           .Label("foo", "")
           .NodeSelector("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kDoNotSchedule, Foo(), std::nullopt, kIgnore),
       {MakeNode("node-a").Label("zone", "zone1").Label("node", "node-a").Label("foo", "").Obj(),
        ZoneNode("node-b", "zone1"),
        MakeNode("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj()},
       {FooPod("p-b1", "node-b"), FooPod("p-b2", "node-b"), FooPod("p-x1", "node-x")},
       {},
       {{"zone", 1, true, false, {{"zone1", 0}, {"zone2", 1}}, {"zone1", 0}, {"zone2", 1}},
        {"node",
         1,
         false,
         false,
         {{"node-a", 0}, {"node-b", 2}, {"node-x", 1}},
         {"node-a", 0},
         {"node-x", 1}}}},
      {"two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo(), std::nullopt, std::nullopt, kHonor)
           .Spread(1, "node", kDoNotSchedule, Foo()),
       {MakeNode("node-a").Label("zone", "zone1").Label("node", "node-a").Label("foo", "").Obj(),
        MakeNode("node-b")
            .Label("zone", "zone1")
            .Label("node", "node-b")
            .Taint(kUnschedulableTaint, "", api::TaintEffect::kNoSchedule)
            .Obj(),
        MakeNode("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj()},
       {FooPod("p-b1", "node-b"), FooPod("p-b2", "node-b"), FooPod("p-x1", "node-x")},
       {},
       {{"zone", 1, true, true, {{"zone1", 0}, {"zone2", 1}}, {"zone1", 0}, {"zone2", 1}},
        {"node",
         1,
         true,
         false,
         {{"node-a", 0}, {"node-b", 2}, {"node-x", 1}},
         {"node-a", 0},
         {"node-x", 1}}}},
      {"two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
       TestPod("p")
           .Label("foo", "")
           .NodeSelector("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kDoNotSchedule, Foo()),
       {ZoneNode("node-a", "zone1"), zb_tainted,
        MakeNode("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj(),
        ZoneNode("node-y", "zone2")},
       {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-x1", "node-x"),
        FooPod("p-y1", "node-y")},
       {},
       {{"zone", 1, true, false, {{"zone1", 0}, {"zone2", 1}}, {"zone1", 0}, {"zone2", 1}},
        {"node", 1, true, false, {{"node-b", 0}, {"node-x", 1}}, {"node-b", 0}, {"node-x", 1}}}},
      {"two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
       TestPod("p")
           .Label("foo", "")
           .NodeSelector("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo(), std::nullopt, kIgnore)
           .Spread(1, "node", kDoNotSchedule, Foo(), std::nullopt, std::nullopt, kHonor),
       {ZoneNode("node-a", "zone1"), zb_tainted,
        MakeNode("node-x").Label("zone", "zone2").Label("node", "node-x").Label("foo", "").Obj(),
        MakeNode("node-y").Label("zone", "zone2").Label("node", "node-y").Label("foo", "").Obj()},
       {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-x1", "node-x"),
        FooPod("p-x2", "node-x"), FooPod("p-y1", "node-y")},
       {},
       {{"zone", 1, false, false, {{"zone1", 2}, {"zone2", 3}}, {"zone1", 2}, {"zone2", 3}},
        {"node", 1, true, true, {{"node-x", 2}, {"node-y", 1}}, {"node-y", 1}, {"node-x", 2}}}},
      {"matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
       TestPod("p")
           .Label("foo", "")
           .Label("bar", "a")
           .Spread(1, "zone", kDoNotSchedule, Foo(), std::nullopt, std::nullopt, std::nullopt,
                   {"bar"}),
       FourNodes(),
       {FooPod("p-a1", "node-a"), TestPod("p-a2").Node("node-a").Label("foo", "").Label("bar", "a"),
        FooPod("p-b1", "node-b"), TestPod("p-y1").Node("node-y").Label("foo", "").Label("bar", "a"),
        TestPod("p-y2").Node("node-y").Label("bar", "")},
       {},
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 1}}, {"zone2", 1}, {"zone1", 1}}}},
      {"matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
       TestPod("p")
           .Label("foo", "a")
           .Spread(1, "zone", kDoNotSchedule, api::LabelSelector{}, std::nullopt, std::nullopt,
                   std::nullopt, {"foo"}),
       FourNodes(),
       foo_a_pods,
       {},
       {{"zone", 1, true, false, {{"zone1", 3}, {"zone2", 2}}, {"zone2", 2}, {"zone1", 3}}}},
      {"key in matchLabelKeys is ignored when LabelSelector is nil",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, std::nullopt, std::nullopt,
                                            std::nullopt, std::nullopt, {"bar"}),
       FourNodes(),
       foo_a_pods,
       {},
       {{"zone", 1, true, false, {{"zone1", 0}, {"zone2", 0}}, {"zone2", 0}, {"zone1", 0}}}},
      {"key in matchLabelKeys is ignored when it isn't exist in pod.labels",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo(), std::nullopt,
                                            std::nullopt, std::nullopt, {"bar"}),
       FourNodes(),
       foo_a_pods,
       {},
       {{"zone", 1, true, false, {{"zone1", 3}, {"zone2", 2}}, {"zone2", 2}, {"zone1", 3}}}},
      {"two spreadConstraints with the same topologyKey",
       TestPod("p")
           .Label("foo", "")
           .Label("bar", "")
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "zone", kDoNotSchedule, Bar()),
       FourNodes(),
       {TestPod("p-a1").Node("node-a").Label("foo", "").Label("bar", ""), FooPod("p-b1", "node-b"),
        TestPod("p-x1").Node("node-x").Label("bar", ""),
        TestPod("p-y1").Node("node-y").Label("foo", "").Label("bar", ""),
        TestPod("p-y2").Node("node-y").Label("bar", "")},
       {},
       {{"zone", 1, true, false, {{"zone1", 2}, {"zone2", 1}}, {"zone2", 1}, {"zone1", 2}},
        {"zone", 1, true, false, {{"zone1", 1}, {"zone2", 3}}, {"zone1", 1}, {"zone2", 3}}}},
      {"skip if not specified",
       TestPod("p").Label("foo", ""),
       {ZoneNode("node-a", "zone1")},
       {},
       {},
       {},
       Code::kSkip},
  };
  for (const PreFilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    Harness h(c.nodes, c.existing, testutil::ListArgs(c.defaults));
    framework::CycleState state;
    framework::PreFilterResult result;
    const Status s =
        h.plugin().PreFilter(state, *framework::PodInfo::Make(c.pod), h.all_nodes(), &result);
    EXPECT_EQ(s.code(), c.want_code) << ToString(s);
    EXPECT_TRUE(result.AllNodes());
    if (!s.IsSuccess()) continue;
    const auto* got = state.Read<PreFilterState>(PodTopologySpread::kPreFilterStateKey);
    ASSERT_NE(got, nullptr);
    ExpectState(*got, c.want);
  }
}

// ---- AddPod / RemovePod ----

struct UpdateCase {
  std::string name;
  api::Pod preemptor;
  api::Pod changed;  // added or removed
  std::vector<api::Pod> existing;
  std::string node;  // where `changed` is
  std::vector<api::Node> nodes;
  std::vector<WantConstraint> want;
};

void RunUpdateCases(const std::vector<UpdateCase>& cases, bool add) {
  for (const UpdateCase& c : cases) {
    SCOPED_TRACE(c.name);
    Harness h(c.nodes, c.existing, testutil::ListArgs());
    framework::CycleState state;
    framework::PreFilterResult result;
    const auto preemptor = framework::PodInfo::Make(c.preemptor);
    ASSERT_TRUE(h.plugin().PreFilter(state, *preemptor, h.all_nodes(), &result).IsSuccess());
    const auto changed = framework::PodInfo::Make(c.changed);
    const Status s = add ? h.plugin().AddPod(state, *preemptor, *changed, h.node(c.node))
                         : h.plugin().RemovePod(state, *preemptor, *changed, h.node(c.node));
    ASSERT_TRUE(s.IsSuccess()) << ToString(s);
    ExpectState(*state.Read<PreFilterState>(PodTopologySpread::kPreFilterStateKey), c.want);
  }
}

TEST(PodTopologySpreadPreFilter, UpstreamAddPodCases) {
  const api::Pod node_preemptor =
      TestPod("p").Label("foo", "").Spread(1, "node", kDoNotSchedule, Foo());
  const api::Pod two_preemptor = TestPod("p")
                                     .Label("foo", "")
                                     .Spread(1, "zone", kDoNotSchedule, Foo())
                                     .Spread(1, "node", kDoNotSchedule, Foo());
  const api::Pod diff_preemptor = TestPod("p")
                                      .Label("foo", "")
                                      .Label("bar", "")
                                      .Spread(1, "zone", kDoNotSchedule, Foo())
                                      .Spread(1, "node", kDoNotSchedule, Bar());
  const api::Pod zone_preemptor =
      TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo());
  const std::vector<api::Node> ab = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1")};
  const std::vector<api::Node> ax = {ZoneNode("node-a", "zone1"), ZoneNode("node-x", "zone2")};
  const std::vector<api::Node> abx = {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
                                      ZoneNode("node-x", "zone2")};
  const std::vector<api::Node> affinity_nodes = {
      MakeNode("node-a").Label("zone", "zone1").Label("node", "node-a").Label("foo", "bar").Obj(),
      MakeNode("node-b").Label("zone", "zone2").Label("node", "node-b").Label("foo", "").Obj()};
  const std::vector<api::Node> taint_nodes = {
      MakeNode("node-a")
          .Label("zone", "zone1")
          .Label("node", "node-a")
          .Taint(kUnschedulableTaint, "", api::TaintEffect::kNoSchedule)
          .Obj(),
      MakeNode("node-b").Label("zone", "zone2").Label("node", "node-b").Obj()};
  auto zoned = [](std::string_view name, std::string_view node, std::string_view zone) {
    return TestPod(name).Node(node).Label("foo", "").Label("zone", zone).Obj();
  };
  const std::vector<UpdateCase> cases = {
      {"node a and b both impact current min match",
       node_preemptor,
       FooPod("p-a1", "node-a"),
       {},
       "node-a",
       ab,
       {{"node", 1, true, false, {{"node-a", 1}, {"node-b", 0}}, {"node-b", 0}, {"node-a", 1}}}},
      {"only node a impacts current min match",
       node_preemptor,
       FooPod("p-a1", "node-a"),
       {FooPod("p-b1", "node-b")},
       "node-a",
       ab,
       {{"node", 1, true, false, {{"node-a", 1}, {"node-b", 1}}, {"node-a", 1}, {"node-b", 1}}}},
      {"add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
       node_preemptor,
       TestPod("p-a1").Namespace("ns1").Node("node-a").Label("foo", ""),
       {FooPod("p-b1", "node-b")},
       "node-a",
       ab,
       {{"node", 1, true, false, {{"node-a", 0}, {"node-b", 1}}, {"node-a", 0}, {"node-b", 1}}}},
      {"add pod on non-critical node won't trigger re-calculation",
       node_preemptor,
       FooPod("p-b2", "node-b"),
       {FooPod("p-b1", "node-b")},
       "node-b",
       ab,
       {{"node", 1, true, false, {{"node-a", 0}, {"node-b", 2}}, {"node-a", 0}, {"node-b", 2}}}},
      {"node a and x both impact topologyKeyToMinPodsMap on zone and node",
       two_preemptor,
       FooPod("p-a1", "node-a"),
       {},
       "node-a",
       ax,
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 0}}, {"zone2", 0}, {"zone1", 1}},
        {"node", 1, true, false, {{"node-a", 1}, {"node-x", 0}}, {"node-x", 0}, {"node-a", 1}}}},
      {"only node a impacts topologyKeyToMinPodsMap on zone and node",
       two_preemptor,
       FooPod("p-a1", "node-a"),
       {FooPod("p-x1", "node-x")},
       "node-a",
       ax,
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 1}}, {"zone1", 1}, {"zone2", 1}},
        {"node", 1, true, false, {{"node-a", 1}, {"node-x", 1}}, {"node-a", 1}, {"node-x", 1}}}},
      {"node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap on "
       "zone",
       two_preemptor,
       FooPod("p-a1", "node-a"),
       {FooPod("p-b1", "node-b"), FooPod("p-b2", "node-b"), FooPod("p-x1", "node-x")},
       "node-a",
       abx,
       {{"zone", 1, true, false, {{"zone1", 3}, {"zone2", 1}}, {"zone2", 1}, {"zone1", 3}},
        {"node",
         1,
         true,
         false,
         {{"node-a", 1}, {"node-b", 2}, {"node-x", 1}},
         {"node-a", 1},
         {"node-x", 1}}}},
      {"Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone",
       diff_preemptor,
       FooPod("p-a1", "node-a"),
       {TestPod("p-b1").Node("node-b").Label("foo", "").Label("bar", ""),
        TestPod("p-x1").Node("node-x").Label("foo", "").Label("bar", ""),
        TestPod("p-x2").Node("node-x").Label("bar", "")},
       "node-a",
       abx,
       {{"zone", 1, true, false, {{"zone1", 2}, {"zone2", 1}}, {"zone2", 1}, {"zone1", 2}},
        {"node",
         1,
         true,
         false,
         {{"node-a", 0}, {"node-b", 1}, {"node-x", 2}},
         {"node-a", 0},
         {"node-b", 1}}}},
      {"Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on both "
       "zone and node",
       diff_preemptor,
       TestPod("p-a1").Node("node-a").Label("foo", "").Label("bar", ""),
       {TestPod("p-b1").Node("node-b").Label("bar", ""),
        TestPod("p-x1").Node("node-x").Label("foo", "").Label("bar", ""),
        TestPod("p-x2").Node("node-x").Label("bar", "")},
       "node-a",
       abx,
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 1}}, {"zone1", 1}, {"zone2", 1}},
        {"node",
         1,
         true,
         false,
         {{"node-a", 1}, {"node-b", 1}, {"node-x", 2}},
         {"node-a", 1},
         {"node-b", 1}}}},
      {"add a pod when scheduling node affinity unmatched pod",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("foo", api::SelectorOperator::kNotIn, {"bar"})
           .Spread(1, "zone", kDoNotSchedule, Foo()),
       zoned("p-a1", "node-a", "zone1"),
       {zoned("p-a2", "node-a", "zone1"), zoned("p-b1", "node-b", "zone2")},
       "node-a",
       affinity_nodes,
       {{"zone", 1, true, false, {{"zone2", 1}}, {"zone2", 1}, kNoPath}}},
      {"add a pod when scheduling node affinity matched pod",
       zone_preemptor,
       zoned("p-b1", "node-b", "zone2"),
       {zoned("p-a1", "node-a", "zone1"), zoned("p-b2", "node-b", "zone2")},
       "node-b",
       affinity_nodes,
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 2}}, {"zone1", 1}, {"zone2", 2}}}},
      {"add a label selector not matched pod",
       zone_preemptor,
       TestPod("p-b1").Node("node-b").Label("zone", "zone2"),
       {zoned("p-a1", "node-a", "zone1"), zoned("p-b2", "node-b", "zone2")},
       "node-b",
       affinity_nodes,
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 1}}, {"zone1", 1}, {"zone2", 1}}}},
      {"add a pod when scheduling taint tolerated pod",
       TestPod("p")
           .Label("foo", "")
           .Toleration(kUnschedulableTaint)
           .Spread(1, "zone", kDoNotSchedule, Foo()),
       zoned("p-b1", "node-b", "zone2"),
       {zoned("p-a1", "node-a", "zone1"), zoned("p-b2", "node-b", "zone2")},
       "node-b",
       taint_nodes,
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 2}}, {"zone1", 1}, {"zone2", 2}}}},
  };
  RunUpdateCases(cases, /*add=*/true);
}

TEST(PodTopologySpreadPreFilter, UpstreamRemovePodCases) {
  const api::Pod zone_preemptor =
      TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo());
  const std::vector<api::Node> affinity_nodes = {
      MakeNode("node-a").Label("zone", "zone1").Label("node", "node-a").Label("foo", "bar").Obj(),
      MakeNode("node-b").Label("zone", "zone2").Label("node", "node-b").Label("foo", "").Obj()};
  auto zoned = [](std::string_view name, std::string_view node, std::string_view zone) {
    return TestPod(name).Node(node).Label("foo", "").Label("zone", zone).Obj();
  };
  const std::vector<api::Pod> four = {FooPod("p-a1", "node-a"), FooPod("p-b1", "node-b"),
                                      FooPod("p-x1", "node-x"), FooPod("p-y1", "node-y")};
  const std::vector<UpdateCase> cases = {
      {"one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
       zone_preemptor,
       FooPod("p-a1", "node-a"),
       {FooPod("p-a1", "node-a"), FooPod("p-b1", "node-b"), FooPod("p-x1", "node-x")},
       "node-a",
       {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"), ZoneNode("node-x", "zone2")},
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 1}}, {"zone1", 1}, {"zone2", 1}}}},
      {"one spreadConstraint on node, topologyKeyToMinPodsMap changed",
       zone_preemptor,
       FooPod("p-a1", "node-a"),
       four,
       "node-a",
       FourNodes(),
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 2}}, {"zone1", 1}, {"zone2", 2}}}},
      {"delete an irrelevant pod won't help",
       zone_preemptor,
       TestPod("p-a0").Node("node-a").Label("bar", ""),
       {TestPod("p-a0").Node("node-a").Label("bar", ""), FooPod("p-a1", "node-a"),
        FooPod("p-b1", "node-b"), FooPod("p-x1", "node-x"), FooPod("p-y1", "node-y")},
       "node-a",
       FourNodes(),
       {{"zone", 1, true, false, {{"zone1", 2}, {"zone2", 2}}, {"zone1", 2}, {"zone2", 2}}}},
      {"delete a non-existing pod won't help",
       zone_preemptor,
       TestPod("p-a0").Node("node-a").Label("bar", ""),
       four,
       "node-a",
       FourNodes(),
       {{"zone", 1, true, false, {{"zone1", 2}, {"zone2", 2}}, {"zone1", 2}, {"zone2", 2}}}},
      {"two spreadConstraints",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kDoNotSchedule, Foo()),
       FooPod("p-x1", "node-x"),
       {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-b1", "node-b"),
        FooPod("p-x1", "node-x"), FooPod("p-x2", "node-x")},
       "node-x",
       {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"), ZoneNode("node-x", "zone2")},
       {{"zone", 1, true, false, {{"zone1", 3}, {"zone2", 1}}, {"zone2", 1}, {"zone1", 3}},
        {"node",
         1,
         true,
         false,
         {{"node-a", 2}, {"node-b", 1}, {"node-x", 1}},
         {"node-b", 1},
         {"node-x", 1}}}},
      {"remove a pod when scheduling node affinity unmatched pod",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("foo", api::SelectorOperator::kNotIn, {"bar"})
           .Spread(1, "zone", kDoNotSchedule, Foo()),
       zoned("p-a1", "node-a", "zone1"),
       {zoned("p-a2", "node-a", "zone1"), zoned("p-b1", "node-b", "zone2")},
       "node-a",
       affinity_nodes,
       {{"zone", 1, true, false, {{"zone2", 1}}, {"zone2", 1}, kNoPath}}},
      {"remove a pod when scheduling node affinity matched pod",
       zone_preemptor,
       zoned("p-b1", "node-b", "zone2"),
       {zoned("p-a1", "node-a", "zone1"), zoned("p-b2", "node-b", "zone2")},
       "node-b",
       affinity_nodes,
       {{"zone", 1, true, false, {{"zone1", 1}, {"zone2", 0}}, {"zone2", 0}, {"zone1", 1}}}},
  };
  RunUpdateCases(cases, /*add=*/false);
}

TEST(PodTopologySpreadPreFilter, AddPodChangesOnlyTheClone) {
  Harness h({ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1")}, {}, testutil::ListArgs());
  const auto pod = framework::PodInfo::Make(
      TestPod("p").Label("foo", "").Spread(1, "node", kDoNotSchedule, Foo()));
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(h.plugin().PreFilter(state, *pod, h.all_nodes(), &result).IsSuccess());
  std::unique_ptr<framework::CycleState> clone = state.Clone();
  const auto added = framework::PodInfo::Make(FooPod("p-a1", "node-a"));
  ASSERT_TRUE(h.plugin().AddPod(*clone, *pod, *added, h.node("node-a")).IsSuccess());
  // With p-a1 counted, node-a is one above node-b's 0: a second pod there would make skew 2.
  EXPECT_EQ(h.plugin().Filter(*clone, *pod, h.node("node-a")).code(), Code::kUnschedulable);
  EXPECT_TRUE(h.plugin().Filter(state, *pod, h.node("node-a")).IsSuccess());
}

TEST(PodTopologySpreadPreFilter, FilterWithoutPreFilterIsAnError) {
  Harness h({ZoneNode("node-a", "zone1")}, {}, testutil::ListArgs());
  framework::CycleState state;
  const Status s =
      h.plugin().Filter(state, *framework::PodInfo::Make(TestPod("p").Obj()), h.node("node-a"));
  EXPECT_EQ(s, Status::Error("reading \"PreFilterPodTopologySpread\" from cycleState: not found"));
}

TEST(PodTopologySpreadPreFilter, MalformedSelectorIsAnError) {
  Harness h({ZoneNode("node-a", "zone1")}, {}, testutil::ListArgs());
  api::LabelSelector bad;
  bad.match_expressions.push_back(
      api::SelectorRequirement{api::Symbol("foo"), api::SelectorOperator::kIn, {}, 0});
  framework::CycleState state;
  framework::PreFilterResult result;
  const Status s = h.plugin().PreFilter(
      state, *framework::PodInfo::Make(TestPod("p").Spread(1, "zone", kDoNotSchedule, bad).Obj()),
      h.all_nodes(), &result);
  EXPECT_EQ(s.code(), Code::kError);
  EXPECT_TRUE(s.Message().starts_with(
      "get constraints from pod: obtaining pod's hard topology spread constraints: "))
      << s.Message();
}

// ---- Filter ----

struct FilterCase {
  std::string name;
  api::Pod pod;
  std::vector<api::Node> nodes;
  std::vector<api::Pod> existing;
  std::map<std::string, Code> want;
};

Status Expected(Code code) {
  switch (code) {
    case Code::kUnschedulable:
      return Status(code, std::string(kErrReasonConstraintsNotMatch));
    case Code::kUnschedulableAndUnresolvable:
      return Status(code, std::string(kErrReasonNodeLabelNotMatch));
    default:
      return Status(code);
  }
}

void RunFilterCases(const std::vector<FilterCase>& cases) {
  for (const FilterCase& c : cases) {
    SCOPED_TRACE(c.name);
    Harness h(c.nodes, c.existing, testutil::ListArgs());
    const auto pod = framework::PodInfo::Make(c.pod);
    framework::CycleState state;
    framework::PreFilterResult result;
    const Status pre = h.plugin().PreFilter(state, *pod, h.all_nodes(), &result);
    ASSERT_TRUE(pre.IsSuccess()) << ToString(pre);
    for (const api::Node& n : c.nodes) {
      SCOPED_TRACE(n.metadata.name);
      EXPECT_EQ(h.plugin().Filter(state, *pod, h.node(n.metadata.name)),
                Expected(c.want.at(n.metadata.name)));
    }
  }
}

constexpr Code kOk = Code::kSuccess;
constexpr Code kNo = Code::kUnschedulable;
constexpr Code kNever = Code::kUnschedulableAndUnresolvable;

TEST(PodTopologySpreadFilter, UpstreamSingleConstraintCases) {
  const std::vector<api::Pod> spread_2103 = {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"),
                                             FooPod("p-b1", "node-b"), FooPod("p-y1", "node-y"),
                                             FooPod("p-y2", "node-y"), FooPod("p-y3", "node-y")};
  const std::vector<api::Node> three = {MakeNode("node-a").Label("node", "node-a").Obj(),
                                        MakeNode("node-b").Label("node", "node-b").Obj(),
                                        MakeNode("node-c").Label("node", "node-c").Obj()};
  const std::vector<api::Pod> spread_221 = {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"),
                                            FooPod("p-b1", "node-b"), FooPod("p-b2", "node-b"),
                                            FooPod("p-c1", "node-c")};
  const std::vector<api::Pod> zone_21 = {FooPod("p-b1", "node-a"), FooPod("p-b2", "node-b"),
                                         FooPod("p-y1", "node-y")};
  const std::vector<api::Node> foo_nodes = {
      MakeNode("node-a").Label("node", "node-a").Label("foo", "").Obj(),
      MakeNode("node-b").Label("node", "node-b").Label("foo", "").Obj(),
      MakeNode("node-x").Label("node", "node-x").Label("foo", "").Obj(),
      MakeNode("node-y").Label("node", "node-y").Obj()};
  const std::vector<api::Node> taint_nodes = {
      MakeNode("node-a").Label("node", "node-a").Label("foo", "").Obj(),
      MakeNode("node-b").Label("node", "node-b").Label("foo", "").Obj(),
      MakeNode("node-x").Label("node", "node-x").Label("foo", "").Obj(),
      MakeNode("node-y")
          .Label("node", "node-y")
          .Taint(kUnschedulableTaint, "", api::TaintEffect::kNoSchedule)
          .Obj()};
  const std::vector<api::Pod> spread_1101 = {FooPod("p-b1", "node-a"), FooPod("p-b2", "node-b"),
                                             FooPod("p-y1", "node-y")};
  const std::map<std::string, Code> all_ok = {
      {"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kOk}};

  const std::vector<FilterCase> cases = {
      {"no existing pods",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo()),
       FourNodes(),
       {},
       all_ok},
      {"no existing pods, incoming pod doesn't match itself",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Bar()),
       FourNodes(),
       {},
       all_ok},
      {"existing pods in a different namespace do not count",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo()),
       FourNodes(),
       {TestPod("p-a1").Namespace("ns1").Node("node-a").Label("foo", ""),
        TestPod("p-b1").Namespace("ns2").Node("node-a").Label("foo", ""), FooPod("p-x1", "node-x"),
        FooPod("p-y1", "node-y")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kNo}, {"node-y", kNo}}},
      {"existing pods do not match null selector",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, std::nullopt),
       FourNodes(),
       {FooPod("p-x1", "node-x"), FooPod("p-y1", "node-y")},
       all_ok},
      {"pods spread across zones as 3/3, all nodes fit",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo()), FourNodes(),
       spread_2103, all_ok},
      {"pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
       TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo()),
       {ZoneNode("node-a", "zone1"),
        MakeNode("node-b").Label("zon", "zone1").Label("node", "node-b").Obj(),
        ZoneNode("node-x", "zone2"), ZoneNode("node-y", "zone2")},
       {FooPod("p-a1", "node-a"), FooPod("p-b1", "node-b"), FooPod("p-x1", "node-x"),
        FooPod("p-y1", "node-y")},
       {{"node-a", kOk}, {"node-b", kNever}, {"node-x", kNo}, {"node-y", kNo}}},
      {"pod cannot be scheduled as all nodes don't have label 'rack'",
       TestPod("p").Label("foo", "").Spread(1, "rack", kDoNotSchedule, Foo()),
       {ZoneNode("node-a", "zone1"), ZoneNode("node-x", "zone2")},
       {},
       {{"node-a", kNever}, {"node-x", kNever}}},
      {"pods spread across nodes as 2/1/0/3, only node-x fits",
       TestPod("p").Label("foo", "").Spread(1, "node", kDoNotSchedule, Foo()),
       FourNodes(),
       spread_2103,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
      {"pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
       TestPod("p").Label("foo", "").Spread(2, "node", kDoNotSchedule, Foo()),
       FourNodes(),
       spread_2103,
       {{"node-a", kNo}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kNo}}},
      {"pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
       TestPod("p").Label("bar", "").Spread(1, "node", kDoNotSchedule, Foo()),
       FourNodes(),
       spread_2103,
       {{"node-a", kNo}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kNo}}},
      {"incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("node", api::SelectorOperator::kIn, {"node-a", "node-y"})
           .Spread(1, "node", kDoNotSchedule, Foo()),
       FourNodes(),
       spread_2103,
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kNo}}},
      {"terminating Pods should be excluded",
       TestPod("p").Label("foo", "").Spread(1, "node", kDoNotSchedule, Foo()),
       {MakeNode("node-a").Label("node", "node-a").Obj(),
        MakeNode("node-b").Label("node", "node-b").Obj()},
       {TestPod("p-a").Node("node-a").Label("foo", "").Terminating(), FooPod("p-b", "node-b")},
       {{"node-a", kOk}, {"node-b", kNo}}},
      {"incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("node", api::SelectorOperator::kNotIn, {"node-b"})
           .Spread(1, "zone", kDoNotSchedule, Foo()),
       FourNodes(),
       {FooPod("p-b1", "node-b"), FooPod("p-b2", "node-b"), FooPod("p-y1", "node-y")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kNo}, {"node-y", kNo}}},
      {"pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, "
       "then the third node fits",
       TestPod("p").Label("foo", "").Spread(2, "node", kDoNotSchedule, Foo(), 4),
       three,
       spread_221,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-c", kOk}}},
      {"pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, "
       "then the all nodes fit",
       TestPod("p").Label("foo", "").Spread(2, "node", kDoNotSchedule, Foo(), 2),
       three,
       spread_221,
       {{"node-a", kOk}, {"node-b", kOk}, {"node-c", kOk}}},
      {"pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then "
       "the third and fourth nodes fit",
       TestPod("p").Label("foo", "").Spread(2, "zone", kDoNotSchedule, Foo(), 3),
       FourNodes(),
       zone_21,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kOk}}},
      {"pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then "
       "the all nodes fit",
       TestPod("p").Label("foo", "").Spread(2, "zone", kDoNotSchedule, Foo(), 1), FourNodes(),
       zone_21, all_ok},
      {"NodeAffinityPolicy honored with labelSelectors",
       TestPod("p").Label("foo", "").NodeSelector("foo", "").Spread(1, "node", kDoNotSchedule,
                                                                    Foo()),
       foo_nodes,
       spread_1101,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kOk}}},
      {"NodeAffinityPolicy ignored with labelSelectors",
       TestPod("p").Label("foo", "").NodeSelector("foo", "").Spread(1, "node", kDoNotSchedule,
                                                                    Foo(), std::nullopt, kIgnore),
       foo_nodes,
       spread_1101,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
      {"NodeAffinityPolicy honored with nodeAffinity",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("foo", api::SelectorOperator::kIn, {""})
           .Spread(1, "node", kDoNotSchedule, Foo()),
       foo_nodes,
       spread_1101,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kOk}}},
      {"NodeAffinityPolicy ignored with nodeAffinity",
       TestPod("p")
           .Label("foo", "")
           .NodeAffinity("foo", api::SelectorOperator::kIn, {""})
           .Spread(1, "node", kDoNotSchedule, Foo(), std::nullopt, kIgnore),
       foo_nodes,
       spread_1101,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
      {"NodeTaintsPolicy honored",
       TestPod("p").Label("foo", "").Spread(1, "node", kDoNotSchedule, Foo(), std::nullopt,
                                            std::nullopt, kHonor),
       taint_nodes,
       spread_1101,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kOk}}},
      {"NodeTaintsPolicy ignored",
       TestPod("p").Label("foo", "").Spread(1, "node", kDoNotSchedule, Foo()),
       taint_nodes,
       spread_1101,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
  };
  RunFilterCases(cases);
}

TEST(PodTopologySpreadFilter, UpstreamMultipleConstraintsCases) {
  const api::Pod zone_node = TestPod("p")
                                 .Label("foo", "")
                                 .Spread(1, "zone", kDoNotSchedule, Foo())
                                 .Spread(1, "node", kDoNotSchedule, Foo());
  const api::Pod foo_bar = TestPod("p")
                               .Label("foo", "")
                               .Label("bar", "")
                               .Spread(1, "zone", kDoNotSchedule, Foo())
                               .Spread(1, "node", kDoNotSchedule, Bar());
  const api::Pod two_zone = TestPod("p")
                                .Label("foo", "")
                                .Label("bar", "")
                                .Spread(1, "zone", kDoNotSchedule, Bar())
                                .Spread(1, "zone", kDoNotSchedule, Foo());
  auto bar = [](std::string_view name, std::string_view node) {
    return TestPod(name).Node(node).Label("bar", "").Obj();
  };
  auto both = [](std::string_view name, std::string_view node) {
    return TestPod(name).Node(node).Label("foo", "").Label("bar", "").Obj();
  };
  auto foo_node = [](std::string_view name, std::string_view zone) {
    return MakeNode(name).Label("zone", zone).Label("node", name).Label("foo", "").Obj();
  };
  const api::Node tainted_y = MakeNode("node-y")
                                  .Label("zone", "zone2")
                                  .Label("node", "node-y")
                                  .Taint(kUnschedulableTaint, "", api::TaintEffect::kNoSchedule)
                                  .Obj();
  const api::Node tainted_foo_y = MakeNode("node-y")
                                      .Label("zone", "zone2")
                                      .Label("node", "node-y")
                                      .Label("foo", "")
                                      .Taint(kUnschedulableTaint, "", api::TaintEffect::kNoSchedule)
                                      .Obj();
  const std::vector<api::Pod> three_pods = {FooPod("p-a1", "node-a"), FooPod("p-b1", "node-b"),
                                            FooPod("p-y1", "node-y")};
  const std::vector<FilterCase> cases = {
      {"two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
       zone_node,
       FourNodes(),
       {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-b1", "node-b"),
        FooPod("p-y1", "node-y"), FooPod("p-y2", "node-y"), FooPod("p-y3", "node-y")},
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
      {"two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
       zone_node,
       FourNodes(),
       {FooPod("p-a1", "node-a"), FooPod("p-a2", "node-a"), FooPod("p-b1", "node-b"),
        FooPod("p-y1", "node-y"), FooPod("p-y2", "node-y"), FooPod("p-y3", "node-y"),
        FooPod("p-y4", "node-y")},
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kNo}, {"node-y", kNo}}},
      {"Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
       foo_bar,
       FourNodes(),
       {FooPod("p-a1", "node-a"), bar("p-y1", "node-y")},
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
      {"Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
       foo_bar,
       FourNodes(),
       {FooPod("p-a1", "node-a"), bar("p-x1", "node-x"), bar("p-y1", "node-y")},
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kNo}, {"node-y", kNo}}},
      {"Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
       foo_bar,
       FourNodes(),
       {FooPod("p-a1", "node-a"), both("p-a2", "node-a"), FooPod("p-y1", "node-y"),
        both("p-y2", "node-y"), FooPod("p-y3", "node-y")},
       {{"node-a", kNo}, {"node-b", kOk}, {"node-x", kNo}, {"node-y", kNo}}},
      {"Constraints hold different labelSelectors but pod doesn't match itself on 'zone' "
       "constraint",
       TestPod("p")
           .Label("bar", "")
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kDoNotSchedule, Bar()),
       FourNodes(),
       {FooPod("p-a1", "node-a"), bar("p-x1", "node-x"), bar("p-y1", "node-y")},
       {{"node-a", kOk}, {"node-b", kOk}, {"node-x", kNo}, {"node-y", kNo}}},
      {"two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, "
       "1/0/0/1]",
       zone_node,
       {ZoneNode("node-a", "zone1"), ZoneNode("node-b", "zone1"),
        MakeNode("node-x").Label("zone", "zone2").Obj(), ZoneNode("node-y", "zone2")},
       {FooPod("p-a1", "node-a"), FooPod("p-y3", "node-y")},
       {{"node-a", kNo}, {"node-b", kOk}, {"node-x", kNever}, {"node-y", kNo}}},
      {"two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
       TestPod("p")
           .Label("foo", "")
           .NodeSelector("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kDoNotSchedule, Foo(), std::nullopt, kIgnore),
       {foo_node("node-a", "zone1"), foo_node("node-b", "zone1"), foo_node("node-x", "zone2"),
        ZoneNode("node-y", "zone2")},
       three_pods,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
      {"two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo(), std::nullopt, std::nullopt, kHonor)
           .Spread(1, "node", kDoNotSchedule, Foo()),
       {foo_node("node-a", "zone1"), foo_node("node-b", "zone1"), foo_node("node-x", "zone2"),
        tainted_y},
       three_pods,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
      {"two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
       TestPod("p")
           .Label("foo", "")
           .NodeSelector("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo())
           .Spread(1, "node", kDoNotSchedule, Foo()),
       {foo_node("node-a", "zone1"), ZoneNode("node-b", "zone1"), foo_node("node-x", "zone2"),
        tainted_foo_y},
       three_pods,
       {{"node-a", kNo}, {"node-b", kOk}, {"node-x", kOk}, {"node-y", kNo}}},
      {"two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
       TestPod("p")
           .Label("foo", "")
           .NodeSelector("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo(), std::nullopt, std::nullopt, kHonor)
           .Spread(1, "node", kDoNotSchedule, Foo(), std::nullopt, kIgnore),
       {foo_node("node-a", "zone1"), ZoneNode("node-b", "zone1"), foo_node("node-x", "zone2"),
        tainted_foo_y},
       three_pods,
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kNo}}},
      {"two Constraints on zone, spreads = [3/3, 2/1]",
       two_zone,
       FourNodes(),
       {both("p-a1", "node-a"), FooPod("p-a2", "node-a"), both("p-b1", "node-b"),
        FooPod("p-y1", "node-y"), both("p-y2", "node-y"), FooPod("p-y3", "node-y")},
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kOk}, {"node-y", kOk}}},
      {"two Constraints on zone, spreads = [3/4, 2/1]",
       two_zone,
       FourNodes(),
       {both("p-a1", "node-a"), FooPod("p-a2", "node-a"), both("p-b1", "node-b"),
        FooPod("p-y1", "node-y"), both("p-y2", "node-y"), FooPod("p-y3", "node-y"),
        FooPod("p-y4", "node-y")},
       {{"node-a", kNo}, {"node-b", kNo}, {"node-x", kNo}, {"node-y", kNo}}},
  };
  RunFilterCases(cases);
}

// A pod labelled app=web, bound to `node`.
api::Pod WebPod(std::string_view name, std::string_view node) {
  return TestPod(name).Node(node).Label("app", "web").Obj();
}

// An app=web pod that spreads app=web pods over zones with maxSkew 1, DoNotSchedule.
TestPod SpreadingWebPod(std::string_view name) {
  TestPod pod(name);
  pod.Label("app", "web")
      .Spread(1, testutil::kZone, kDoNotSchedule, testutil::MatchLabels({{"app", "web"}}));
  return pod;
}

// Counts are remembered per node between cycles; a pod bound in between must be counted in the
// next cycle, on its node only.
TEST(PodTopologySpreadFilter, NextCycleCountsPodsBoundSinceTheLast) {
  const std::vector<api::Node> nodes = {MakeNode("n1").Label(testutil::kZone, "zone-a").Obj(),
                                        MakeNode("n2").Label(testutil::kZone, "zone-b").Obj()};
  Harness h(nodes, {WebPod("w1", "n1")}, testutil::ListArgs());
  const auto pod = framework::PodInfo::Make(SpreadingWebPod("w9"));
  framework::PreFilterResult result;
  framework::CycleState first;
  ASSERT_TRUE(h.plugin().PreFilter(first, *pod, h.all_nodes(), &result).IsSuccess());
  EXPECT_EQ(h.plugin().Filter(first, *pod, h.node("n1")), Expected(kNo));
  EXPECT_EQ(h.plugin().Filter(first, *pod, h.node("n2")), Status::OK());

  h.AddPod(WebPod("w2", "n2"));
  h.AddPod(WebPod("w3", "n2"));
  framework::CycleState second;
  ASSERT_TRUE(h.plugin().PreFilter(second, *pod, h.all_nodes(), &result).IsSuccess());
  EXPECT_EQ(h.plugin().Filter(second, *pod, h.node("n1")), Status::OK());
  EXPECT_EQ(h.plugin().Filter(second, *pod, h.node("n2")), Expected(kNo));

  // The same selector in another namespace counts nothing there.
  const auto other = framework::PodInfo::Make(SpreadingWebPod("o1").Namespace("other"));
  framework::CycleState third;
  ASSERT_TRUE(h.plugin().PreFilter(third, *other, h.all_nodes(), &result).IsSuccess());
  EXPECT_EQ(h.plugin().Filter(third, *other, h.node("n2")), Status::OK());
}

// The brief's seed example: three zones holding 2/1/0 matching pods and maxSkew 1 with
// DoNotSchedule: only the empty zone takes the next pod.
TEST(PodTopologySpreadFilter, NewPodGoesToTheEmptiestZone) {
  const std::vector<api::Node> nodes = {MakeNode("n1").Label(testutil::kZone, "zone-a").Obj(),
                                        MakeNode("n2").Label(testutil::kZone, "zone-b").Obj(),
                                        MakeNode("n3").Label(testutil::kZone, "zone-c").Obj()};
  Harness h(nodes, {WebPod("w1", "n1"), WebPod("w2", "n1"), WebPod("w3", "n2")},
            testutil::ListArgs());
  const auto pod = framework::PodInfo::Make(SpreadingWebPod("w4"));
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(h.plugin().PreFilter(state, *pod, h.all_nodes(), &result).IsSuccess());
  EXPECT_EQ(h.plugin().Filter(state, *pod, h.node("n1")), Expected(kNo));
  EXPECT_EQ(h.plugin().Filter(state, *pod, h.node("n2")), Expected(kNo));
  EXPECT_EQ(h.plugin().Filter(state, *pod, h.node("n3")), Status::OK());
}

}  // namespace
}  // namespace muster::plugins::podtopologyspread
