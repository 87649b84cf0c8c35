#include "muster/report/comparison.h"

#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace muster::report {
namespace {

using json = nlohmann::ordered_json;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;

RunPod Bound(const std::string& key, const std::string& node,
             const std::string& workload = "ReplicaSet default/web") {
  RunPod p;
  p.key = key;
  p.workload = workload;
  p.node = node;
  p.status = "Running";
  p.bind_latency = std::chrono::seconds(1);
  return p;
}

RunPod Pending(const std::string& key, const std::string& message,
               const std::string& workload = "ReplicaSet default/web") {
  RunPod p;
  p.key = key;
  p.workload = workload;
  p.status = "Pending";
  p.message = message;
  return p;
}

RunNode Node(const std::string& name, int32_t pods, int64_t milli_cpu) {
  RunNode n;
  n.name = name;
  n.allocatable.milli_cpu = 4000;
  n.allocatable.memory = 8LL << 30;
  n.requested.milli_cpu = milli_cpu;
  n.pods = pods;
  return n;
}

RunOutcome Ran(uint64_t seed, std::vector<RunPod> pods, std::vector<RunNode> nodes = {}) {
  RunOutcome run;
  run.seed = seed;
  run.pods = std::move(pods);
  run.nodes = std::move(nodes);
  return run;
}

ComparedSide Side(const std::string& name, std::vector<RunOutcome> runs) {
  ComparedSide side;
  side.name = name;
  side.runs = std::move(runs);
  return side;
}

const json& Metric(const json& c, const std::string& name) {
  for (const json& m : c["summary"]) {
    if (m["metric"] == name) return m;
  }
  static const json kNone;
  return kNone;
}

// With one seed, any difference is one: a pod on another node differs in placement.
TEST(ComparisonTest, WithOneSeedAnotherNodeIsAPlacementDifference) {
  const json c = BuildComparison(Side("A", {Ran(0, {Bound("default/p", "node-1")})}),
                                 Side("B", {Ran(0, {Bound("default/p", "node-2")})}));
  ASSERT_EQ(c["pods"]["items"].size(), 1u);
  EXPECT_EQ(c["pods"]["items"][0]["differs"], "placement");
  EXPECT_FALSE(Metric(c, "bound")["differs"].get<bool>());
}

// Over seeds, a pod that each side put on both nodes (the tie-break's doing) does not differ,
// nor does its workload's count on either node: the ranges overlap.
TEST(ComparisonTest, OverSeedsWhatTheTieBreakMovesOnBothSidesDoesNotDiffer) {
  const json c = BuildComparison(
      Side("A", {Ran(0, {Bound("default/p", "node-1")}), Ran(1, {Bound("default/p", "node-2")})}),
      Side("B", {Ran(0, {Bound("default/p", "node-2")}), Ran(1, {Bound("default/p", "node-1")})}));
  EXPECT_EQ(c["pods"]["compared"], 1);
  EXPECT_EQ(c["pods"]["items"].size(), 0u);
  ASSERT_EQ(c["workloads"].size(), 1u);
  EXPECT_FALSE(c["workloads"][0]["differs"].get<bool>());
  EXPECT_EQ(c["workloads"][0]["nodes"][0]["a"],
            json({{"mean", 0.5}, {"min", 0.0}, {"max", 1.0}, {"runs", 2}}));
}

// A figure whose ranges do not overlap differs; one whose ranges touch does not.
TEST(ComparisonTest, AFigureDiffersWhenTheRangesDoNotOverlap) {
  auto pods = [](int bound, int total) {
    std::vector<RunPod> out;
    for (int i = 0; i < total; ++i) {
      const std::string key = "default/p" + std::to_string(i);
      out.push_back(i < bound ? Bound(key, "node-1") : Pending(key, "no room"));
    }
    return out;
  };
  // Bound: A 3 and 3, B 2 and 4: overlapping.
  json c = BuildComparison(Side("A", {Ran(0, pods(3, 5)), Ran(1, pods(3, 5))}),
                           Side("B", {Ran(0, pods(2, 5)), Ran(1, pods(4, 5))}));
  EXPECT_FALSE(Metric(c, "bound")["differs"].get<bool>());
  EXPECT_EQ(Metric(c, "bound")["b"],
            json({{"mean", 3.0}, {"min", 2.0}, {"max", 4.0}, {"runs", 2}}));
  // Bound: A 3 and 3, B 4 and 5: apart.
  c = BuildComparison(Side("A", {Ran(0, pods(3, 5)), Ran(1, pods(3, 5))}),
                      Side("B", {Ran(0, pods(4, 5)), Ran(1, pods(5, 5))}));
  EXPECT_TRUE(Metric(c, "bound")["differs"].get<bool>());
  EXPECT_TRUE(Metric(c, "pending")["differs"].get<bool>());
  // p3 is bound in no run of A and in every run of B; p4 only in one run of B: the first
  // differs, the second is the seed's doing.
  std::vector<std::string> differing;
  for (const json& p : c["pods"]["items"]) differing.push_back(p["pod"]);
  EXPECT_EQ(differing, std::vector<std::string>{"default/p3"});
  EXPECT_EQ(c["pods"]["items"][0]["differs"], "binding");
  EXPECT_EQ(c["pods"]["items"][0]["a"]["message"], "no room");
}

// A pod of one side only (a controller's replacement, a side's own object) is a presence
// difference; with several seeds, names that change with the seed are not compared as pods.
TEST(ComparisonTest, PodsOfOneSideAndPodsNamedBySeed) {
  json c = BuildComparison(Side("A", {Ran(0, {Bound("default/p", "node-1")})}),
                           Side("B", {Ran(0, {Bound("default/q", "node-1")})}));
  ASSERT_EQ(c["pods"]["items"].size(), 2u);
  EXPECT_EQ(c["pods"]["items"][0]["differs"], "presence");
  EXPECT_EQ(c["pods"]["items"][1]["differs"], "presence");
  // web-x is in every run; web-y and web-z in one run of one side each.
  c = BuildComparison(
      Side("A", {Ran(0, {Bound("default/web-x", "node-1")}),
                 Ran(1, {Bound("default/web-x", "node-1"), Bound("default/web-y", "node-1")})}),
      Side("B", {Ran(0, {Bound("default/web-x", "node-1")}),
                 Ran(1, {Bound("default/web-x", "node-1"), Bound("default/web-z", "node-2")})}));
  EXPECT_EQ(c["pods"]["compared"], 1);
  EXPECT_EQ(c["pods"]["items"].size(), 0u);
}

// Node utilisation, per node and per label value, in percent of allocatable.
TEST(ComparisonTest, NodeAndLabelUtilisation) {
  auto nodes = [](int64_t on_first) {
    std::vector<RunNode> out = {Node("node-1", 1, on_first), Node("node-2", 0, 0)};
    out[0].labels = {"zone-a"};
    out[1].labels = {"zone-b"};
    return out;
  };
  RunOutcome a = Ran(0, {Bound("default/p", "node-1")}, nodes(1000));
  RunOutcome b = Ran(0, {Bound("default/p", "node-1")}, nodes(3000));
  a.label_keys = b.label_keys = {"topology.kubernetes.io/zone"};
  const json c = BuildComparison(Side("A", {a}), Side("B", {b}));
  EXPECT_EQ(c["nodes"]["resources"], json::array({"cpu", "memory"}));
  EXPECT_EQ(c["nodes"]["differing"], 1);
  EXPECT_EQ(c["nodes"]["items"][0]["cpu"]["a"]["mean"], 25);
  EXPECT_EQ(c["nodes"]["items"][0]["cpu"]["b"]["mean"], 75);
  EXPECT_FALSE(c["nodes"]["items"][1]["differs"].get<bool>());
  EXPECT_EQ(Metric(c, "cpu")["a"]["mean"], 12.5);
  ASSERT_EQ(c["labels"].size(), 1u);
  EXPECT_EQ(c["labels"][0]["values"][0]["value"], "zone-a");
  EXPECT_TRUE(c["labels"][0]["values"][0]["differs"].get<bool>());

  std::ostringstream table;
  PrintComparison(c, table);
  EXPECT_THAT(table.str(), HasSubstr("NODES THAT DIFFER (1 of 2, requested at the end)"));
  EXPECT_THAT(table.str(), ContainsRegex("node-1 +1 +1 +25% +75% +0% +0% +differs\n"));
  EXPECT_THAT(table.str(), ContainsRegex("zone-b +0 +0 +0% +0% +0% +0%\n"));
}

TEST(ComparisonTest, SpreadText) {
  EXPECT_EQ(SpreadText(json({{"mean", 3.0}, {"min", 3.0}, {"max", 3.0}}), Unit::kCount), "3");
  EXPECT_EQ(SpreadText(json({{"mean", 2.5}, {"min", 2.0}, {"max", 3.0}}), Unit::kCount),
            "2.5 [2-3]");
  EXPECT_EQ(SpreadText(json({{"mean", 90.0}, {"min", 60.0}, {"max", 120.0}}), Unit::kSeconds),
            "1m30s [1m0s-2m0s]");
  EXPECT_EQ(SpreadText(json({{"mean", 12.5}, {"min", 12.5}, {"max", 12.5}}), Unit::kPercent),
            "12%");
  EXPECT_EQ(SpreadText(json(nullptr), Unit::kPercent), "-");
}

}  // namespace
}  // namespace muster::report
