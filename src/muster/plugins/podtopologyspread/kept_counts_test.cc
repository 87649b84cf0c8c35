#include "muster/plugins/podtopologyspread/kept_counts.h"

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/cycle_state.h"
#include "muster/framework/snapshot.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/podtopologyspread/pod_topology_spread.h"
#include "muster/plugins/podtopologyspread/test_helpers.h"

namespace muster::plugins::podtopologyspread {
namespace {

using framework::Status;
using testutil::kDoNotSchedule;
using testutil::kHonor;
using testutil::kIgnore;
using testutil::kScheduleAnyway;
using testutil::TestPod;

framework::NodeInfo Info(std::string_view name) {
  return framework::NodeInfo(
      std::make_shared<const api::Node>(testing::MakeNode().Name(name).Obj()));
}

TEST(SnapshotChanges, NamesTheNodesChangedSinceAPoint) {
  framework::Snapshot snapshot;
  framework::SnapshotBuilder builder(snapshot);
  EXPECT_EQ(snapshot.change_count(), 0u);
  builder.Put(Info("a"));
  builder.Put(Info("b"));
  const uint64_t mark = snapshot.change_count();
  EXPECT_EQ(mark, 2u);
  builder.Put(Info("a"));
  builder.Erase(api::Symbol("b"));

  std::vector<api::Symbol> names;
  ASSERT_TRUE(snapshot.ChangedSince(mark, &names));
  EXPECT_EQ(names, (std::vector<api::Symbol>{api::Symbol("a"), api::Symbol("b")}));
  ASSERT_TRUE(snapshot.ChangedSince(snapshot.change_count(), &names));
  EXPECT_TRUE(names.empty());
  // A point not reached yet is not a point the snapshot knows.
  EXPECT_FALSE(snapshot.ChangedSince(snapshot.change_count() + 1, &names));

  // Thousands of changes later the early ones are forgotten; the latest are still there.
  for (int i = 0; i < 5000; ++i) builder.Put(Info("a"));
  EXPECT_FALSE(snapshot.ChangedSince(mark, &names));
  const uint64_t recent = snapshot.change_count() - 3;
  ASSERT_TRUE(snapshot.ChangedSince(recent, &names));
  EXPECT_EQ(names.size(), 3u);

  // Another snapshot never passes for this one.
  framework::Snapshot other;
  EXPECT_NE(other.id(), snapshot.id());
}

// PreFilter and PreScore keep domain counts between cycles. A long random sequence of cycles,
// with pods bound and deleted and nodes relabelled, added and removed in between, must decide
// exactly as a cluster built afresh each cycle: same PreFilter and Filter verdicts, same
// PreScore verdict and raw scores on every node.
TEST(KeptDomainCounts, DecideAsAFreshClusterEveryCycle) {
  std::mt19937 rng(20261124);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  const std::vector<std::string_view> apps = {"a", "b", "c"};
  const std::vector<std::string_view> namespaces = {"default", "ns1"};
  const std::vector<std::string_view> zones = {"z1", "z2", "z3"};
  const std::vector<std::string_view> keys = {testutil::kZone, testutil::kHostname};

  auto random_node = [&](const std::string& name) {
    testing::NodeBuilder b = testutil::MakeNode(name);
    b.Label(testutil::kHostname, name);
    // Some nodes lack a zone: they count for no constraint that needs every key.
    if (pick(8) != 0) b.Label(testutil::kZone, zones[pick(3)]);
    if (pick(6) == 0) b.Label("disk", "ssd");
    if (pick(10) == 0) b.Taint("dedicated", "x", api::TaintEffect::kNoSchedule);
    return api::Node(b.Obj());
  };
  auto random_pod = [&](const std::string& name, std::string_view node) {
    TestPod p(name);
    p.Namespace(namespaces[pick(2)]);
    if (pick(4) != 0) p.Label("app", apps[pick(3)]);
    if (pick(3) == 0) p.Label("tier", pick(2) == 0 ? "front" : "back");
    if (pick(12) == 0) p.Terminating();
    if (!node.empty()) p.Node(node);
    return api::Pod(p.Obj());
  };
  auto incoming_pod = [&](const std::string& name) {
    TestPod p(name);
    p.Namespace(namespaces[pick(2)]);
    p.Label("app", apps[pick(3)]);
    if (pick(2) == 0) p.Label("tier", "front");
    const int constraints = 1 + pick(2);
    for (int k = 0; k < constraints; ++k) {
      std::optional<api::LabelSelector> selector;
      if (pick(6) != 0) {
        selector = pick(3) == 0 ? testutil::Exists("app")
                                : testutil::MatchLabels({{"app", apps[pick(3)]}});
      }
      std::vector<std::string_view> match_label_keys;
      if (pick(5) == 0) match_label_keys.push_back("tier");
      p.Spread(1 + pick(3), keys[pick(2)], pick(2) == 0 ? kDoNotSchedule : kScheduleAnyway,
               selector, pick(4) == 0 ? std::optional<int32_t>(2 + pick(3)) : std::nullopt,
               pick(4) == 0 ? std::optional(kIgnore) : std::nullopt,
               pick(4) == 0 ? std::optional(kHonor) : std::nullopt, match_label_keys);
    }
    // Pods that honour node affinity count by their own selector: never kept.
    if (pick(6) == 0) p.NodeSelector("disk", "ssd");
    return api::Pod(p.Obj());
  };

  std::vector<api::Node> nodes;
  for (int i = 0; i < 40; ++i) nodes.push_back(random_node("n" + std::to_string(i)));
  int next_node = 40;
  std::vector<api::Pod> bound;
  for (int i = 0; i < 80; ++i) {
    bound.push_back(random_pod("init" + std::to_string(i), nodes[pick(40)].metadata.name));
  }
  auto build = [&](testing::FakeServices& fake) {
    for (const api::Node& n : nodes) fake.AddNode(n);
    for (const api::Pod& p : bound) fake.AddPod(p);
    std::string error;
    auto plugin = PodTopologySpread::Create(testutil::ListArgs(), fake.handle(), &error);
    EXPECT_NE(plugin, nullptr) << error;
    return plugin;
  };
  testing::FakeServices kept;
  std::unique_ptr<PodTopologySpread> kept_plugin = build(kept);

  struct Outcome {
    Status pre_filter, pre_score;
    std::vector<Status> filters;
    std::vector<int64_t> scores;
    bool operator==(const Outcome&) const = default;
  };
  for (int cycle = 0; cycle < 80; ++cycle) {
    testing::FakeServices fresh;
    std::unique_ptr<PodTopologySpread> fresh_plugin = build(fresh);
    const framework::PodInfoPtr pod =
        framework::PodInfo::Make(incoming_pod("incoming" + std::to_string(cycle)));
    // Scored: a random part of the nodes, as Filter would leave.
    std::vector<std::string> feasible;
    for (const api::Node& n : nodes) {
      if (pick(3) != 0) feasible.push_back(n.metadata.name);
    }
    auto run = [&](testing::FakeServices& fake, PodTopologySpread& plugin) {
      Outcome o;
      const framework::Snapshot& snapshot = fake.snapshot();
      framework::CycleState state;
      framework::PreFilterResult result;
      o.pre_filter = plugin.PreFilter(state, *pod, snapshot.List(), &result);
      if (o.pre_filter.IsSuccess()) {
        for (const api::Node& n : nodes) {
          o.filters.push_back(
              plugin.Filter(state, *pod, *snapshot.Get(api::Symbol(n.metadata.name))));
        }
      }
      std::vector<framework::NodeInfo*> infos;
      for (const std::string& n : feasible) infos.push_back(snapshot.Get(api::Symbol(n)));
      o.pre_score = plugin.PreScore(state, *pod, infos);
      if (o.pre_score.IsSuccess()) {
        for (framework::NodeInfo* info : infos) {
          int64_t score = 0;
          EXPECT_TRUE(plugin.Score(state, *pod, *info, &score).IsSuccess());
          o.scores.push_back(score);
        }
      }
      return o;
    };
    const Outcome want = run(fresh, *fresh_plugin);
    ASSERT_TRUE(run(kept, *kept_plugin) == want) << "cycle " << cycle;
    ASSERT_TRUE(run(kept, *kept_plugin) == want) << "cycle " << cycle << ", again";

    // Change the cluster before the next cycle.
    for (int k = 0; k < 3; ++k) {
      bound.push_back(random_pod("bound" + std::to_string(cycle) + "-" + std::to_string(k),
                                 nodes[pick(static_cast<int>(nodes.size()))].metadata.name));
      kept.AddPod(bound.back());
    }
    if (pick(2) == 0 && !bound.empty()) {
      const size_t victim = static_cast<size_t>(pick(static_cast<int>(bound.size())));
      ASSERT_TRUE(kept.RemovePod(bound[victim]).IsSuccess());
      bound.erase(bound.begin() + static_cast<std::ptrdiff_t>(victim));
    }
    if (pick(4) == 0) {
      // Relabelled in place: same name, maybe another zone or none.
      api::Node& n = nodes[static_cast<size_t>(pick(static_cast<int>(nodes.size())))];
      n = random_node(n.metadata.name);
      kept.UpdateNode(n);
    }
    if (pick(8) == 0 && nodes.size() > 30) {
      // A node goes, with its pods.
      const size_t gone = static_cast<size_t>(pick(static_cast<int>(nodes.size())));
      const api::Symbol name(nodes[gone].metadata.name);
      for (size_t i = bound.size(); i-- > 0;) {
        if (bound[i].spec.node_name != name) continue;
        ASSERT_TRUE(kept.RemovePod(bound[i]).IsSuccess());
        bound.erase(bound.begin() + static_cast<std::ptrdiff_t>(i));
      }
      kept.RemoveNode(nodes[gone]);
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(gone));
    }
    if (pick(8) == 0) {
      nodes.push_back(random_node("n" + std::to_string(next_node++)));
      kept.AddNode(nodes.back());
    }
  }
}

}  // namespace
}  // namespace muster::plugins::podtopologyspread
