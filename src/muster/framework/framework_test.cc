#include "muster/framework/framework.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/group_preemption.h"
#include "muster/framework/loop_pool.h"
#include "muster/framework/metrics.h"
#include "muster/framework/testing/fake_services.h"

namespace muster::framework {
namespace {

// The number in a node's name ("n42" is 42).
int IndexOf(const NodeInfo& node) { return std::stoi(std::string(node.name().str().substr(1))); }

// A Filter plugin that judges a node by its number, one node at a time (FilterNodes' default).
class RuleFilter : public FilterPlugin {
 public:
  RuleFilter(std::string name, std::function<Status(int)> rule)
      : name_(std::move(name)), rule_(std::move(rule)) {}
  std::string_view Name() const override { return name_; }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo& node) const override {
    return rule_(IndexOf(node));
  }

 protected:
  std::string name_;
  std::function<Status(int)> rule_;
};

// The same, with FilterNodes of its own, recording the nodes it was given.
class BatchRuleFilter final : public RuleFilter {
 public:
  using RuleFilter::RuleFilter;
  size_t FilterNodes(const CycleState&, const PodInfo&, std::span<const NodeInfo* const> nodes,
                     std::span<Status> statuses) const override {
    size_t rejected = 0;
    for (size_t i = 0; i < nodes.size(); ++i) {
      seen.push_back(IndexOf(*nodes[i]));
      if (Status s = rule_(IndexOf(*nodes[i])); !s.IsSuccess()) {
        statuses[i] = std::move(s);
        ++rejected;
      }
    }
    return rejected;
  }
  mutable std::vector<int> seen;
};

// Gives the framework `filters` as its Filter plugins, in that order.
void SetFilters(Framework& fw, std::vector<std::unique_ptr<FilterPlugin>> filters) {
  ProfilePlugins plugins;
  std::vector<std::unique_ptr<Plugin>> owned;
  for (std::unique_ptr<FilterPlugin>& f : filters) {
    plugins.filter.push_back(f.get());
    owned.push_back(std::move(f));
  }
  fw.SetPlugins(std::move(plugins), std::move(owned));
}

// Nodes "n0", "n1", ... (`count` of them), kept alive by `infos`.
std::vector<const NodeInfo*> MakeNodes(int count, std::vector<std::unique_ptr<NodeInfo>>* infos) {
  std::vector<const NodeInfo*> nodes;
  for (int i = 0; i < count; ++i) {
    infos->push_back(std::make_unique<NodeInfo>(
        std::make_shared<api::Node>(testing::MakeNode().Name(fmt::format("n{}", i)).Obj())));
    nodes.push_back(infos->back().get());
  }
  return nodes;
}

// RunFilterPlugins a block at a time, as the scheduler calls it, over statuses left from an
// earlier cycle: each node's verdict, Success where its bit was set (and its status, which a
// passed node's must be, untouched).
std::vector<Status> FilterInBlocks(const Framework& fw, const CycleState& state, const PodInfo& pod,
                                   const std::vector<const NodeInfo*>& nodes,
                                   FilterEvaluations& evaluated, bool* error) {
  const Status stale = Status::Unschedulable("from an earlier cycle");
  std::vector<Status> got(nodes.size(), stale);
  for (size_t b = 0; b < nodes.size(); b += Framework::kFilterBlock) {
    const size_t len = std::min(Framework::kFilterBlock, nodes.size() - b);
    const uint64_t passed = fw.RunFilterPlugins(state, pod, std::span(nodes).subspan(b, len),
                                                std::span(got).subspan(b, len), evaluated, error);
    if (len < 64) EXPECT_EQ(passed >> len, 0u) << "no bit past the block's nodes";
    for (size_t j = 0; j < len; ++j) {
      if ((passed >> j & 1) == 0) continue;
      EXPECT_EQ(got[b + j].identity(), stale.identity()) << b + j;
      got[b + j] = Status::OK();
    }
  }
  return got;
}

TEST(RunFilterPlugins, ManyNodesAtOnceDecideAsOneAtATime) {
  testing::FakeServices services;
  Framework fw("test", std::nullopt, services);
  auto five = std::make_unique<RuleFilter>("Five", [](int i) {
    return i % 5 == 0 ? Status::Unschedulable("multiple of five") : Status::OK();
  });
  auto three = std::make_unique<BatchRuleFilter>("Three", [](int i) {
    static const Status kThree =
        SharedFailure(Code::kUnschedulableAndUnresolvable, "multiple of three", "Three");
    if (i == 77) return Status::Error("broken");
    return i % 3 == 0 ? kThree : Status::OK();
  });
  auto skipped =
      std::make_unique<RuleFilter>("Skipped", [](int) { return Status::Unschedulable("never"); });
  auto seven = std::make_unique<RuleFilter>("Seven", [](int i) {
    return i % 7 == 0 ? Status(Code::kPending, "multiple of seven") : Status::OK();
  });
  BatchRuleFilter* three_plugin = three.get();
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::move(five));
  filters.push_back(std::move(three));
  filters.push_back(std::move(skipped));
  filters.push_back(std::move(seven));
  SetFilters(fw, std::move(filters));

  // More nodes than one block (64) holds.
  std::vector<std::unique_ptr<NodeInfo>> infos;
  const std::vector<const NodeInfo*> nodes = MakeNodes(200, &infos);
  const PodInfoPtr pod = PodInfo::Make(testing::MakePod().Name("p").Obj());
  CycleState state;
  state.skip_filter_at.set(2);  // "Skipped"

  FilterEvaluations evaluated{};
  bool error = false;
  const std::vector<Status> got = FilterInBlocks(fw, state, *pod, nodes, evaluated, &error);
  EXPECT_TRUE(error) << "node 77's";
  // Each plugin counts the nodes it ran on (scheduler_plugin_evaluation_total): every node for
  // the first, the ones those before passed for the others, none for the one skipped.
  int past_three = 0;
  for (int i = 0; i < 200; ++i) past_three += i % 5 != 0 && i % 3 != 0 && i != 77;
  EXPECT_EQ(evaluated[0], 200u);
  EXPECT_EQ(evaluated[1], 160u);
  EXPECT_EQ(evaluated[2], 0u);
  EXPECT_EQ(evaluated[3], static_cast<uint64_t>(past_three));
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Status want = fw.RunFilterPlugins(state, *pod, *nodes[i]);
    EXPECT_EQ(got[i].code(), want.code()) << i;
    EXPECT_EQ(got[i].reasons(), want.reasons()) << i;
    EXPECT_EQ(got[i].plugin(), want.plugin()) << i;
  }

  EXPECT_TRUE(got[1].IsSuccess());
  EXPECT_EQ(ToString(got[15]), "Unschedulable: multiple of five (Five)");
  EXPECT_EQ(ToString(got[9]), "UnschedulableAndUnresolvable: multiple of three (Three)");
  EXPECT_EQ(ToString(got[14]), "Pending: multiple of seven (Seven)");
  EXPECT_EQ(ToString(got[77]), "Error: running \"Three\" filter plugin: broken (Three)");

  // Each plugin saw only the nodes the ones before it passed.
  three_plugin->seen.clear();
  FilterInBlocks(fw, state, *pod, nodes, evaluated, &error);
  std::vector<int> want_seen;
  for (int i = 0; i < 200; ++i) {
    if (i % 5 != 0) want_seen.push_back(i);
  }
  EXPECT_EQ(three_plugin->seen, want_seen);
}

// The framework stamps each rejection with the plugin that made it, whatever name a shared copy
// came with; a status that already names the plugin passes through shared.
TEST(RunFilterPlugins, EveryCopyOfASharedStatusNamesThePluginThatReturnedIt) {
  testing::FakeServices services;
  Framework fw("test", std::nullopt, services);
  static const Status kForeign = SharedFailure(Code::kUnschedulable, "even", "SomeoneElse");
  static const Status kOwn = SharedFailure(Code::kUnschedulable, "odd", "Parity");
  const Status counted = Status::Unschedulable("counted");  // shared by count, unstamped
  auto parity = std::make_unique<BatchRuleFilter>("Parity", [&counted](int i) {
    if (i % 10 == 3) return counted;
    return i % 2 == 0 ? kForeign : kOwn;
  });
  std::vector<std::unique_ptr<FilterPlugin>> filters;
  filters.push_back(std::move(parity));
  SetFilters(fw, std::move(filters));

  std::vector<std::unique_ptr<NodeInfo>> infos;
  const std::vector<const NodeInfo*> nodes = MakeNodes(100, &infos);
  const PodInfoPtr pod = PodInfo::Make(testing::MakePod().Name("p").Obj());
  CycleState state;
  FilterEvaluations evaluated{};
  bool error = false;
  const std::vector<Status> got = FilterInBlocks(fw, state, *pod, nodes, evaluated, &error);
  EXPECT_FALSE(error);
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(got[i].plugin(), "Parity") << i;
    const char* reason = i % 10 == 3 ? "counted" : i % 2 == 0 ? "even" : "odd";
    EXPECT_EQ(got[i].reasons(), std::vector<std::string>{reason}) << i;
  }
  EXPECT_EQ(got[1].identity(), kOwn.identity());  // already right: not copied
  EXPECT_EQ(kForeign.plugin(), "SomeoneElse");    // the shared original is untouched
  EXPECT_TRUE(counted.plugin().empty());
}

// A Score plugin that scores a node by its number; with `normalize`, NormalizeScore maps every
// score through it.
class RuleScore final : public ScorePlugin {
 public:
  RuleScore(std::string name, std::function<int64_t(int)> rule,
            std::function<int64_t(int64_t)> normalize = nullptr)
      : name_(std::move(name)), rule_(std::move(rule)), normalize_(std::move(normalize)) {}
  std::string_view Name() const override { return name_; }
  Status Score(const CycleState&, const PodInfo&, const NodeInfo& node,
               int64_t* score) const override {
    *score = rule_(IndexOf(node));
    return Status::OK();
  }
  bool HasNormalizeScore() const override { return normalize_ != nullptr; }
  Status NormalizeScore(const CycleState&, const PodInfo&,
                        std::span<NodeScore> scores) const override {
    for (NodeScore& s : scores) s.score = normalize_(s.score);
    return Status::OK();
  }

 private:
  std::string name_;
  std::function<int64_t(int)> rule_;
  std::function<int64_t(int64_t)> normalize_;
};

// Score plugins with their weights.
using Scorers = std::vector<std::pair<std::unique_ptr<ScorePlugin>, int32_t>>;

// Runs the Score plugins `scorers` over 300 nodes on two threads.
Status ScoreWith(Scorers scorers, std::vector<int64_t>* totals, ScoreTops* tops = nullptr) {
  testing::FakeServices services;
  Framework fw("test", std::nullopt, services);
  ProfilePlugins plugins;
  std::vector<std::unique_ptr<Plugin>> owned;
  for (auto& [plugin, weight] : scorers) {
    plugins.score.emplace_back(plugin.get(), weight);
    owned.push_back(std::move(plugin));
  }
  fw.SetPlugins(std::move(plugins), std::move(owned));
  std::vector<std::unique_ptr<NodeInfo>> infos;
  const std::vector<const NodeInfo*> listed = MakeNodes(300, &infos);
  std::vector<NodeInfo*> nodes;
  for (const NodeInfo* n : listed) nodes.push_back(const_cast<NodeInfo*>(n));
  const PodInfoPtr pod = PodInfo::Make(testing::MakePod().Name("p").Obj());
  CycleState state;
  LoopPool pool(2);
  LoopPool::Use use(&pool);
  return fw.RunScorePlugins(state, *pod, nodes, totals, tops);
}

TEST(RunScorePlugins, TotalsAreTheWeightedSumsAfterNormalizing) {
  Scorers scorers;
  scorers.emplace_back(std::make_unique<RuleScore>("Mod", [](int i) { return i % 101; }), 2);
  // Raw scores up to 299, normalized into [0, 100] as upstream's DefaultNormalizeScore would.
  scorers.emplace_back(std::make_unique<RuleScore>(
                           "Raw", [](int i) { return i; }, [](int64_t s) { return s * 100 / 299; }),
                       3);
  scorers.emplace_back(std::make_unique<RuleScore>("Flat", [](int) { return 7; }), 1);
  std::vector<int64_t> totals;
  ASSERT_TRUE(ScoreWith(std::move(scorers), &totals).IsSuccess());
  ASSERT_EQ(totals.size(), 300u);
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ(totals[static_cast<size_t>(i)], 2 * (i % 101) + 3 * (i * 100 / 299) + 7) << i;
  }
}

// Where the highest totals lie, noted in the loop (no plugin normalizes) or counted after it
// (one does), agrees with the totals themselves: the top, how many have it, and the k-th of
// them in node order, across the 64-node blocks.
TEST(RunScorePlugins, TheTopsAreWhereTheHighestTotalsAre) {
  for (const bool normalizing : {false, true}) {
    Scorers scorers;
    // 100 on the nodes 7 (mod 50) and on node 299; less elsewhere.
    auto rule = [](int i) { return i % 50 == 7 || i == 299 ? 100 : i % 90; };
    if (normalizing) {
      scorers.emplace_back(std::make_unique<RuleScore>("Rule", rule, [](int64_t s) { return s; }),
                           2);
    } else {
      scorers.emplace_back(std::make_unique<RuleScore>("Rule", rule), 2);
    }
    scorers.emplace_back(std::make_unique<RuleScore>("Flat", [](int) { return 3; }), 1);
    std::vector<int64_t> totals;
    ScoreTops tops;
    ASSERT_TRUE(ScoreWith(std::move(scorers), &totals, &tops).IsSuccess());
    const int64_t top = *std::max_element(totals.begin(), totals.end());
    EXPECT_EQ(top, 203);
    EXPECT_EQ(tops.Top(), top);
    ASSERT_EQ(tops.Ties(top), std::count(totals.begin(), totals.end(), top));
    EXPECT_EQ(tops.Ties(top), 7);  // 7, 57, 107, 157, 207, 257 and 299
    std::vector<size_t> expected;
    for (size_t i = 0; i < totals.size(); ++i) {
      if (totals[i] == top) expected.push_back(i);
    }
    for (int64_t k = 0; k < tops.Ties(top); ++k) {
      EXPECT_EQ(tops.NthTie(totals, top, k), expected[static_cast<size_t>(k)])
          << "k " << k << " normalizing " << normalizing;
    }
  }
}

TEST(ScoreTopsTest, RecountAfterTheTotalsChange) {
  std::vector<int64_t> totals(130, 5);
  ScoreTops tops;
  tops.Recount(totals);
  EXPECT_EQ(tops.Top(), 5);
  EXPECT_EQ(tops.Ties(5), 130);
  EXPECT_EQ(tops.NthTie(totals, 5, 129), 129u);
  // An extender's score lifts two nodes in different blocks.
  totals[70] = 9;
  totals[128] = 9;
  tops.Recount(totals);
  EXPECT_EQ(tops.Top(), 9);
  EXPECT_EQ(tops.Ties(9), 2);
  EXPECT_EQ(tops.NthTie(totals, 9, 0), 70u);
  EXPECT_EQ(tops.NthTie(totals, 9, 1), 128u);
  // Negative totals (an extender's saturated score) are totals like any other.
  std::vector<int64_t> low(3, std::numeric_limits<int64_t>::min());
  tops.Recount(low);
  EXPECT_EQ(tops.Top(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(tops.Ties(tops.Top()), 3);
}

// A plugin's error, in upstream's words for each step (runtime/framework.go).
class BrokenScore final : public ScorePlugin {
 public:
  explicit BrokenScore(bool in_normalize) : in_normalize_(in_normalize) {}
  std::string_view Name() const override { return "Broken"; }
  Status Score(const CycleState&, const PodInfo&, const NodeInfo&, int64_t* score) const override {
    *score = 1;
    return in_normalize_ ? Status::OK() : Status::Error("no score today");
  }
  bool HasNormalizeScore() const override { return in_normalize_; }
  Status NormalizeScore(const CycleState&, const PodInfo&, std::span<NodeScore>) const override {
    return Status::Error("no normalizing today");
  }

 private:
  bool in_normalize_;
};

TEST(RunScorePlugins, AnErrorIsWordedAsUpstreamWordsIt) {
  for (const bool in_normalize : {false, true}) {
    Scorers scorers;
    scorers.emplace_back(std::make_unique<BrokenScore>(in_normalize), 1);
    std::vector<int64_t> totals;
    EXPECT_EQ(ToString(ScoreWith(std::move(scorers), &totals)),
              in_normalize ? "Error: running Normalize on Score plugins: plugin \"Broken\" failed "
                             "with: no normalizing today (Broken)"
                           : "Error: running Score plugins: plugin \"Broken\" failed with: no "
                             "score today (Broken)");
  }
}

// Upstream checks each plugin's scores in turn: the first plugin with a score outside [0, 100]
// is reported, with that plugin's first such score in node order.
TEST(RunScorePlugins, TheFirstInvalidScoreIsReportedInPluginThenNodeOrder) {
  auto too_high_from = [](int from) {
    return [from](int i) -> int64_t { return i < from ? 50 : 100 + i; };
  };
  auto error_of = [](Scorers scorers) {
    std::vector<int64_t> totals;
    return ToString(ScoreWith(std::move(scorers), &totals));
  };
  Scorers plain;
  plain.emplace_back(std::make_unique<RuleScore>("Fine", [](int) { return 1; }), 1);
  plain.emplace_back(std::make_unique<RuleScore>("High", too_high_from(250)), 1);
  plain.emplace_back(std::make_unique<RuleScore>("Higher", too_high_from(10)), 1);
  EXPECT_EQ(error_of(std::move(plain)),
            "Error: applying score defaultWeights on Score plugins: plugin \"High\" returns an "
            "invalid score 350, it should in the range of [0, 100] after normalizing (High)");

  // A normalizing plugin before them that leaves a score out of range is reported first.
  Scorers normalized_first;
  normalized_first.emplace_back(
      std::make_unique<RuleScore>(
          "Normalized", [](int i) { return i; }, [](int64_t s) { return s == 200 ? -1 : 0; }),
      1);
  normalized_first.emplace_back(std::make_unique<RuleScore>("High", too_high_from(5)), 1);
  EXPECT_EQ(error_of(std::move(normalized_first)),
            "Error: applying score defaultWeights on Score plugins: plugin \"Normalized\" returns "
            "an invalid score -1, it should in the range of [0, 100] after normalizing "
            "(Normalized)");
}

// A PostFilter plugin; and one that preempts for gangs as a whole too.
class NamedPostFilter : public PostFilterPlugin {
 public:
  explicit NamedPostFilter(std::string name) : name_(std::move(name)) {}
  std::string_view Name() const override { return name_; }
  Status PostFilter(CycleState&, const PodInfo&, const NodeToStatus&, PostFilterResult*) override {
    return Status::Unschedulable("nothing to preempt");
  }

 private:
  std::string name_;
};

class GangPostFilter final : public NamedPostFilter, public GroupPostFilterPlugin {
 public:
  using NamedPostFilter::NamedPostFilter;
  Status PostFilterGroup(const Gang&, std::span<const PodInfo* const>, GroupTrial&, AttemptTrace*,
                         GroupPostFilterResult*) override {
    return Status::Unschedulable("nothing to preempt");
  }
};

TEST(FrameworkGroupPostFilter, IsTheFirstPostFilterPluginThatIsOneFoundAsThePluginsAreInstalled) {
  testing::FakeServices services;
  Framework fw("test", std::nullopt, services);
  auto plain = std::make_unique<NamedPostFilter>("Plain");
  auto first = std::make_unique<GangPostFilter>("First");
  auto second = std::make_unique<GangPostFilter>("Second");
  const GroupPostFilterPlugin* const want = first.get();
  ProfilePlugins plugins;
  plugins.post_filter = {plain.get(), first.get(), second.get()};
  std::vector<std::unique_ptr<Plugin>> owned;
  owned.push_back(std::move(plain));
  owned.push_back(std::move(first));
  owned.push_back(std::move(second));
  fw.SetPlugins(std::move(plugins), std::move(owned));
  EXPECT_EQ(fw.group_post_filter(), want);
  EXPECT_EQ(fw.group_post_filter_name(), "First");

  fw.SetPlugins(ProfilePlugins{}, {});
  EXPECT_EQ(fw.group_post_filter(), nullptr);
  EXPECT_EQ(fw.group_post_filter_name(), "");
}

// A Reserve plugin that notes its calls in `calls` and answers Reserve with `answer`.
class NotingReserve final : public ReservePlugin {
 public:
  NotingReserve(std::string name, std::vector<std::string>* calls, Status answer)
      : name_(std::move(name)), calls_(calls), answer_(std::move(answer)) {}
  std::string_view Name() const override { return name_; }
  Status Reserve(CycleState&, const PodInfo&, api::Symbol) override {
    calls_->push_back("Reserve " + name_);
    return answer_;
  }
  void Unreserve(CycleState&, const PodInfo&, api::Symbol) override {
    calls_->push_back("Unreserve " + name_);
  }

 private:
  std::string name_;
  std::vector<std::string>* calls_;
  Status answer_;
};

// A group's cycle reserves each member with every Reserve plugin but the group's, and with the
// group's plugin apart (ReserveScope): each run goes in the profile's order, stops at a
// rejection, and is measured as a pod's own run of the point is.
TEST(RunReservePlugins, AScopeRunsItsPluginsInOrderAndThePointIsMeasuredOnceAPod) {
  Metrics metrics;
  testing::FakeServices services(&metrics);
  Framework fw("test", std::nullopt, services);
  std::vector<std::string> calls;
  ProfilePlugins plugins;
  std::vector<std::unique_ptr<Plugin>> owned;
  auto add = [&](std::string name, Status answer) {
    auto p = std::make_unique<NotingReserve>(std::move(name), &calls, std::move(answer));
    plugins.reserve.push_back(p.get());
    owned.push_back(std::move(p));
  };
  add("First", Status::OK());
  add("Group", Status::OK());
  add("Full", Status::Unschedulable("no room"));
  add("Never", Status::OK());
  fw.SetPlugins(std::move(plugins), std::move(owned));

  const PodInfoPtr pod = PodInfo::Make(testing::MakePod().Name("p").Obj());
  const api::Symbol node("n1");
  CycleState state;
  state.plugin_tally = std::make_shared<PluginTally>();  // a sampled cycle: plugins are timed
  const Status members =
      fw.RunReservePluginsReserve(state, *pod, node, ReserveScope::AllBut("Group"));
  EXPECT_EQ(members.code(), Code::kUnschedulable);
  EXPECT_EQ(members.plugin(), "Full");
  fw.RunReservePluginsUnreserve(state, *pod, node, ReserveScope::AllBut("Group"));
  EXPECT_TRUE(
      fw.RunReservePluginsReserve(state, *pod, node, ReserveScope::Only("Group")).IsSuccess());
  EXPECT_EQ(calls,
            (std::vector<std::string>{"Reserve First", "Reserve Full", "Unreserve Never",
                                      "Unreserve Full", "Unreserve First", "Reserve Group"}));

  const std::string text = metrics.Text();
  const std::vector<std::string> samples = {
      R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Reserve",profile="test",status="Unschedulable"} 1)",
      R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Unreserve",profile="test",status="Success"} 1)",
      R"(scheduler_plugin_execution_duration_seconds_count{extension_point="Reserve",plugin="Full",status="Unschedulable"} 1)",
      R"(scheduler_plugin_execution_duration_seconds_count{extension_point="Reserve",plugin="Group",status="Success"} 1)",
      R"(scheduler_plugin_execution_duration_seconds_count{extension_point="Unreserve",plugin="Never",status="Success"} 1)",
  };
  for (const std::string& sample : samples) {
    EXPECT_NE(text.find(sample + "\n"), std::string::npos) << sample << "\n" << text;
  }
  EXPECT_EQ(text.find(R"(extension_point="Reserve",plugin="Never")"), std::string::npos);
  EXPECT_EQ(text.find(R"(extension_point="Unreserve",plugin="Group")"), std::string::npos);
  // The group's plugin alone is not another run of the point.
  EXPECT_EQ(
      text.find(
          R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Reserve",profile="test",status="Success"})"),
      std::string::npos);
}

}  // namespace
}  // namespace muster::framework
