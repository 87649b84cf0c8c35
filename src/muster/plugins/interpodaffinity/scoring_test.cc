#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/plugins/interpodaffinity/inter_pod_affinity.h"
#include "muster/plugins/interpodaffinity/test_helpers.h"

// Cases from upstream scoring_test.go (TestPreferredAffinity,
// TestPreferredAffinityWithHardPodAffinitySymmetricWeight). Upstream's namespace "" is "default".

namespace muster::plugins::interpodaffinity {
namespace {

using framework::Code;
using framework::Status;
using test::AffinityPod;
using test::Node;
using test::Selector;
using test::Term;
using testing::MakePod;

using Labels = std::initializer_list<std::pair<std::string_view, std::string_view>>;
using Scores = std::vector<int64_t>;

constexpr int64_t kMax = framework::kMaxNodeScore;

struct ScoreRun {
  Status pre_score;
  Scores scores;  // normalised, per node in the given order; empty unless PreScore succeeded
};

ScoreRun RunScores(const InterPodAffinityArgs& args, const api::Pod& pod,
                   const std::vector<api::Pod>& pods, const std::vector<api::Node>& nodes) {
  test::Cluster cluster(nodes, pods);
  test::AddTeamNamespaces(cluster.fake);
  InterPodAffinity plugin(args, cluster.fake.handle());
  framework::CycleState state;
  const framework::PodInfoPtr info = framework::PodInfo::Make(pod);
  ScoreRun run;
  const std::vector<framework::NodeInfo*>& all = cluster.fake.snapshot().List();
  run.pre_score = plugin.PreScore(state, *info, all);
  if (!run.pre_score.IsSuccess()) return run;
  std::vector<framework::NodeScore> scores;
  for (const api::Node& n : nodes) {
    int64_t score = 0;
    const Status s = plugin.Score(state, *info, cluster.NodeInfo(n.metadata.name), &score);
    EXPECT_TRUE(s.IsSuccess()) << framework::ToString(s);
    scores.push_back({api::Symbol(n.metadata.name), score});
  }
  const Status s = plugin.NormalizeScore(state, *info, scores);
  EXPECT_TRUE(s.IsSuccess()) << framework::ToString(s);
  for (const framework::NodeScore& ns : scores) run.scores.push_back(ns.score);
  return run;
}

api::Pod WithLabels(Labels labels, std::string_view node = "", std::string_view ns = "") {
  testing::PodBuilder b = MakePod();
  for (const auto& [k, v] : labels) b.Label(k, v);
  if (!node.empty()) b.NodeName(node);
  if (!ns.empty()) b.Namespace(ns);
  return b.Obj();
}

api::Pod WithAffinity(api::Pod pod, const api::Affinity& affinity) {
  pod.spec.affinity = affinity;
  return pod;
}

api::Affinity Preferred(int32_t weight, api::PodAffinityTerm term, bool anti = false) {
  api::Affinity a;
  api::PodAffinity p;
  p.preferred.push_back({weight, std::move(term)});
  (anti ? a.pod_anti_affinity : a.pod_affinity) = std::move(p);
  return a;
}

TEST(PreferredAffinity, UpstreamCases) {
  const Labels china = {{"region", "China"}};
  const Labels india = {{"region", "India"}};
  const Labels az1 = {{"az", "az1"}};
  const Labels az2 = {{"az", "az2"}};
  const Labels china_az1 = {{"region", "China"}, {"az", "az1"}};
  const Labels s1 = {{"security", "S1"}};
  const Labels s2 = {{"security", "S2"}};
  auto in = [](std::string_view value) {
    return Selector({{"security", api::SelectorOperator::kIn, {value}}});
  };
  const api::LabelSelector team1 = Selector({{"team", api::SelectorOperator::kIn, {"team1"}}});

  const api::Affinity stay_with_s1_in_region = Preferred(5, Term(in("S1"), "region"));
  const api::Affinity stay_with_s2_in_region = Preferred(6, Term(in("S2"), "region"));
  api::Affinity affinity3;
  affinity3.pod_affinity.emplace();
  affinity3.pod_affinity->preferred = {
      {8, Term(Selector({{"security", api::SelectorOperator::kNotIn, {"S1"}},
                         {"security", api::SelectorOperator::kIn, {"S2"}}}),
               "region")},
      {2, Term(Selector({{"security", api::SelectorOperator::kExists, {}},
                         {"wrongkey", api::SelectorOperator::kDoesNotExist, {}}}),
               "region")}};
  api::Affinity hard_affinity;
  hard_affinity.pod_affinity.emplace();
  hard_affinity.pod_affinity->required = {
      Term(Selector({{"security", api::SelectorOperator::kIn, {"S1", "value2"}}}), "region"),
      Term(Selector({{"security", api::SelectorOperator::kExists, {}},
                     {"wrongkey", api::SelectorOperator::kDoesNotExist, {}}}),
           "region")};
  const api::Affinity away_from_s1_in_az = Preferred(5, Term(in("S1"), "az"), /*anti=*/true);
  const api::Affinity away_from_s2_in_az = Preferred(5, Term(in("S2"), "az"), /*anti=*/true);
  api::Affinity stay_with_s1_away_from_s2 = Preferred(8, Term(in("S1"), "region"));
  stay_with_s1_away_from_s2.pod_anti_affinity =
      Preferred(5, Term(in("S2"), "az"), true).pod_anti_affinity;
  const api::Affinity affinity_namespace_selector =
      Preferred(5, Term(in("S1"), "region", {"subteam2.team2"}, team1));
  const api::Affinity anti_affinity_namespace_selector =
      Preferred(5, Term(in("S1"), "region", {"subteam2.team2"}, team1), /*anti=*/true);
  const api::Affinity invalid_affinity_labels = Preferred(8, Term(in("{{.bad-value.}}"), "region"));
  const api::Affinity invalid_anti_affinity_labels =
      Preferred(5, Term(in("{{.bad-value.}}"), "az"), /*anti=*/true);

  struct Case {
    Case(std::string name, api::Pod pod, std::vector<api::Pod> pods, std::vector<api::Node> nodes,
         Scores want, Status want_status = {}, bool ignore_preferred = false)
        : name(std::move(name)),
          pod(std::move(pod)),
          pods(std::move(pods)),
          nodes(std::move(nodes)),
          want(std::move(want)),
          want_status(std::move(want_status)),
          ignore_preferred(ignore_preferred) {}
    std::string name;
    api::Pod pod;
    std::vector<api::Pod> pods;
    std::vector<api::Node> nodes;
    Scores want;
    Status want_status;
    bool ignore_preferred;
  };
  const Status skip(Code::kSkip);
  const std::vector<Case> cases = {
      {"all nodes are same priority as Affinity is nil",
       WithLabels(s1),
       {},
       {Node("node1", china), Node("node2", india), Node("node3", az1)},
       {},
       skip},
      {"Affinity: pod that matches topology key & pods in nodes will get high score comparing to "
       "others which doesn't match either pods in nodes or in topology key",
       WithAffinity(WithLabels(s1), stay_with_s1_in_region),
       {WithLabels(s1, "node1"), WithLabels(s2, "node2"), WithLabels(s1, "node3")},
       {Node("node1", china), Node("node2", india), Node("node3", az1)},
       {kMax, 0, 0}},
      {"All the nodes that have the same topology key & label value with one of them has an "
       "existing pod that match the affinity rules, have the same score",
       WithAffinity(WithLabels({}), stay_with_s1_in_region),
       {WithLabels(s1, "node1")},
       {Node("node1", china), Node("node2", china_az1), Node("node3", india)},
       {kMax, kMax, 0}},
      {"Affinity: nodes in one region has more matching pods comparing to other region, so the "
       "region which has more matches will get high score",
       WithAffinity(WithLabels(s1), stay_with_s2_in_region),
       {WithLabels(s2, "node1"), WithLabels(s2, "node1"), WithLabels(s2, "node2"),
        WithLabels(s2, "node3"), WithLabels(s2, "node4"), WithLabels(s2, "node5")},
       {Node("node1", china), Node("node2", india), Node("node3", china), Node("node4", china),
        Node("node5", india)},
       {kMax, 0, kMax, kMax, 0}},
      {"Affinity: different Label operators and values for pod affinity scheduling preference, "
       "including some match failures ",
       WithAffinity(WithLabels(s1), affinity3),
       {WithLabels(s1, "node1"), WithLabels(s2, "node2"), WithLabels(s1, "node3")},
       {Node("node1", china), Node("node2", india), Node("node3", az1)},
       {20, kMax, 0}},
      {"Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in "
       "pod affinity symmetry",
       WithLabels(s2),
       {WithAffinity(WithLabels(s1, "node1"), stay_with_s1_in_region),
        WithAffinity(WithLabels(s2, "node2"), stay_with_s2_in_region)},
       {Node("node1", china), Node("node2", india), Node("node3", az1)},
       {0, kMax, 0}},
      {"Affinity symmetry with namespace selector",
       WithLabels(s1, "", "subteam1.team1"),
       {WithAffinity(WithLabels(s1, "node1"), affinity_namespace_selector),
        WithAffinity(WithLabels(s2, "node2"), stay_with_s2_in_region)},
       {Node("node1", china), Node("node2", india), Node("node3", az1)},
       {kMax, 0, 0}},
      {"AntiAffinity symmetry with namespace selector",
       WithLabels(s1, "", "subteam1.team1"),
       {WithAffinity(WithLabels(s1, "node1"), anti_affinity_namespace_selector),
        WithAffinity(WithLabels(s2, "node2"), stay_with_s2_in_region)},
       {Node("node1", china), Node("node2", india), Node("node3", az1)},
       {0, kMax, kMax}},
      {"Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod "
       "affinity symmetry",
       WithLabels(s1),
       {WithAffinity(WithLabels(s1, "node1"), hard_affinity),
        WithAffinity(WithLabels(s2, "node2"), hard_affinity)},
       {Node("node1", china), Node("node2", india), Node("node3", az1)},
       {kMax, kMax, 0}},
      {"Anti Affinity: pod that does not match existing pods in node will get high score ",
       WithAffinity(WithLabels(s1), away_from_s1_in_az),
       {WithLabels(s1, "node1"), WithLabels(s2, "node2")},
       {Node("node1", az1), Node("node2", china)},
       {0, kMax}},
      {"Anti Affinity: pod that does not match topology key & match the pods in nodes will get "
       "higher score comparing to others ",
       WithAffinity(WithLabels(s1), away_from_s1_in_az),
       {WithLabels(s1, "node1"), WithLabels(s1, "node2")},
       {Node("node1", az1), Node("node2", china)},
       {0, kMax}},
      {"Anti Affinity: one node has more matching pods comparing to other node, so the node which "
       "has more unmatches will get high score",
       WithAffinity(WithLabels(s1), away_from_s1_in_az),
       {WithLabels(s1, "node1"), WithLabels(s1, "node1"), WithLabels(s2, "node2")},
       {Node("node1", az1), Node("node2", india)},
       {0, kMax}},
      {"Anti Affinity symmetry: the existing pods in node which has anti affinity match will get "
       "high score",
       WithLabels(s2),
       {WithAffinity(WithLabels(s1, "node1"), away_from_s2_in_az),
        WithAffinity(WithLabels(s2, "node2"), away_from_s1_in_az)},
       {Node("node1", az1), Node("node2", az2)},
       {0, kMax}},
      {"Affinity and Anti Affinity: considered only "
       "preferredDuringSchedulingIgnoredDuringExecution "
       "in both pod affinity & anti affinity",
       WithAffinity(WithLabels(s1), stay_with_s1_away_from_s2),
       {WithLabels(s1, "node1"), WithLabels(s1, "node2")},
       {Node("node1", china), Node("node2", az1)},
       {kMax, 0}},
      {"Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to "
       "schedule and existing pods have the same labels",
       WithAffinity(WithLabels(s1), stay_with_s1_away_from_s2),
       {WithLabels(s1, "node1"), WithLabels(s1, "node1"), WithLabels(s1, "node2"),
        WithLabels(s1, "node3"), WithLabels(s1, "node3"), WithLabels(s1, "node4"),
        WithLabels(s1, "node5")},
       {Node("node1", china_az1), Node("node2", india), Node("node3", china), Node("node4", china),
        Node("node5", india)},
       {kMax, 0, kMax, kMax, 0}},
      {"Affinity and Anti Affinity and symmetry: considered only "
       "preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & "
       "symmetry",
       WithAffinity(WithLabels(s1), stay_with_s1_away_from_s2),
       {WithLabels(s1, "node1"), WithLabels(s2, "node2"),
        WithAffinity(WithLabels({}, "node3"), stay_with_s1_away_from_s2),
        WithAffinity(WithLabels({}, "node4"), away_from_s1_in_az)},
       {Node("node1", china), Node("node2", az1), Node("node3", india), Node("node4", az2)},
       {kMax, 0, kMax, 0}},
      {"Avoid panic when partial nodes in a topology don't have pods with affinity",
       WithLabels(s1),
       {WithLabels(s1, "node1"), WithAffinity(WithLabels({}, "node2"), stay_with_s1_away_from_s2)},
       {Node("node1", china), Node("node2", china)},
       {0, 0}},
      {"invalid Affinity fails PreScore",
       WithAffinity(WithLabels({}), invalid_affinity_labels),
       {},
       {Node("node1", china), Node("node2", china)},
       {},
       Status::Error("failed to parse pod: preferredAffinityTerms: values[0][security]: Invalid "
                     "value: \"{{.bad-value.}}\": a valid label must be an empty string or "
                     "consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                     "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                     "'12345', regex used for validation is "
                     "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")},
      {"invalid AntiAffinity fails PreScore",
       WithAffinity(WithLabels({}), invalid_anti_affinity_labels),
       {},
       {Node("node1", china), Node("node2", china)},
       {},
       Status::Error("failed to parse pod: preferredAntiAffinityTerms: values[0][security]: "
                     "Invalid value: \"{{.bad-value.}}\": a valid label must be an empty string "
                     "or consist of alphanumeric characters, '-', '_' or '.', and must start and "
                     "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
                     "'12345', regex used for validation is "
                     "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")},
      {"Affinity with pods matching NamespaceSelector",
       WithAffinity(WithLabels(s1, "", "subteam1.team1"), affinity_namespace_selector),
       {WithLabels(s1, "node1", "subteam1.team1"), WithLabels(s1, "node1", "subteam1.team1"),
        WithLabels(s1, "node1", "subteam1.team2"), WithLabels(s1, "node2", "subteam2.team1")},
       {Node("node1", china), Node("node2", india)},
       {kMax, 0}},
      {"Affinity with pods matching both NamespaceSelector and Namespaces fields",
       WithAffinity(WithLabels(s1, "", "subteam1.team1"), affinity_namespace_selector),
       {WithLabels(s1, "node1", "subteam1.team1"), WithLabels(s1, "node1", "subteam1.team1"),
        WithLabels(s1, "node1", "subteam2.team2"), WithLabels(s1, "node2", "subteam2.team1")},
       {Node("node1", china), Node("node2", india)},
       {kMax, 0}},
      {"Anti-affinity with pods matching NamespaceSelector",
       WithAffinity(WithLabels(s1, "", "subteam1.team1"), anti_affinity_namespace_selector),
       {WithLabels(s1, "node1", "subteam1.team1"), WithLabels(s1, "node1", "subteam1.team1"),
        WithLabels(s1, "node1", "subteam1.team2"), WithLabels(s1, "node2", "subteam2.team1")},
       {Node("node1", china), Node("node2", india)},
       {0, kMax}},
      {"Anti-affinity with pods matching both NamespaceSelector and Namespaces fields",
       WithAffinity(WithLabels(s1, "", "subteam1.team1"), anti_affinity_namespace_selector),
       {WithLabels(s1, "node1", "subteam1.team1"), WithLabels(s1, "node1", "subteam1.team1"),
        WithLabels(s1, "node1", "subteam2.team2"), WithLabels(s1, "node2", "subteam2.team1")},
       {Node("node1", china), Node("node2", india)},
       {0, kMax}},
      {"Ignore preferred terms of existing pods",
       WithLabels(s2),
       {WithAffinity(WithLabels(s1, "node1"), stay_with_s1_away_from_s2),
        WithAffinity(WithLabels(s2, "node2"), stay_with_s2_in_region)},
       {Node("node1", china), Node("node2", india)},
       {},
       skip,
       /*ignore_preferred=*/true},
      {"Do not ignore preferred terms of existing pods",
       WithLabels(s2),
       {WithAffinity(WithLabels(s1, "node1"), stay_with_s1_away_from_s2),
        WithAffinity(WithLabels(s2, "node2"), stay_with_s2_in_region)},
       {Node("node1", china), Node("node2", india)},
       {0, kMax}},
      {"No nodes to score", WithLabels(s2), {}, {}, {}, skip},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const ScoreRun run =
        RunScores(InterPodAffinityArgs{1, c.ignore_preferred}, c.pod, c.pods, c.nodes);
    EXPECT_EQ(run.pre_score, c.want_status) << framework::ToString(run.pre_score);
    EXPECT_EQ(run.scores, c.want);
  }
}

TEST(PreferredAffinityWithHardPodAffinitySymmetricWeight, UpstreamCases) {
  const Labels service_s1 = {{"service", "S1"}};
  api::Affinity hard_pod_affinity;
  hard_pod_affinity.pod_affinity.emplace();
  hard_pod_affinity.pod_affinity->required = {Term(
      Selector({{"service", api::SelectorOperator::kIn, {"S1"}}}), "region",
      {"default", "subteam2.team2"}, Selector({{"team", api::SelectorOperator::kIn, {"team1"}}}))};
  const std::vector<api::Pod> pods = {WithAffinity(WithLabels({}, "node1"), hard_pod_affinity),
                                      WithAffinity(WithLabels({}, "node2"), hard_pod_affinity)};
  const std::vector<api::Node> nodes = {Node("node1", {{"region", "China"}}),
                                        Node("node2", {{"region", "India"}}),
                                        Node("node3", {{"az", "az1"}})};
  struct Case {
    std::string name;
    api::Pod pod;
    int32_t hard_weight;
    Scores want;
    Status want_status;
  };
  const Status skip(Code::kSkip);
  const std::vector<Case> cases = {
      {"with default weight",
       WithLabels(service_s1),
       kDefaultHardPodAffinityWeight,
       {kMax, kMax, 0},
       {}},
      {"with zero weight", WithLabels(service_s1), 0, {}, skip},
      {"with no matching namespace",
       WithLabels(service_s1, "", "subteam1.team2"),
       kDefaultHardPodAffinityWeight,
       {},
       skip},
      {"with matching NamespaceSelector",
       WithLabels(service_s1, "", "subteam1.team1"),
       kDefaultHardPodAffinityWeight,
       {kMax, kMax, 0},
       {}},
      {"with matching Namespaces",
       WithLabels(service_s1, "", "subteam2.team2"),
       kDefaultHardPodAffinityWeight,
       {kMax, kMax, 0},
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const ScoreRun run = RunScores(InterPodAffinityArgs{c.hard_weight, false}, c.pod, pods, nodes);
    EXPECT_EQ(run.pre_score, c.want_status) << framework::ToString(run.pre_score);
    EXPECT_EQ(run.scores, c.want);
  }
}

// Raw scores before normalisation: weights add per topology value, anti-affinity subtracts, and
// hardPodAffinityWeight scales an existing pod's required term.
TEST(Score, RawSumsAndHardWeight) {
  api::Affinity hard;
  hard.pod_affinity.emplace();
  hard.pod_affinity->required = {
      Term(Selector({{"app", api::SelectorOperator::kIn, {"web"}}}), "zone")};
  test::Cluster cluster(
      {Node("a", {{"zone", "z1"}}), Node("b", {{"zone", "z2"}})},
      {WithAffinity(WithLabels({}, "a"), hard), WithAffinity(WithLabels({}, "a"), hard),
       WithLabels({{"app", "db"}}, "b")});
  InterPodAffinity plugin(InterPodAffinityArgs{7, false}, cluster.fake.handle());
  const framework::PodInfoPtr pod = framework::PodInfo::Make(
      AffinityPod(MakePod().Name("incoming").Label("app", "web"))
          .PreferredAntiAffinity(
              3, Term(Selector({{"app", api::SelectorOperator::kIn, {"db"}}}), "zone")));
  framework::CycleState state;
  ASSERT_TRUE(plugin.PreScore(state, *pod, cluster.fake.snapshot().List()).IsSuccess());
  int64_t a = 0;
  int64_t b = 0;
  ASSERT_TRUE(plugin.Score(state, *pod, cluster.NodeInfo("a"), &a).IsSuccess());
  ASSERT_TRUE(plugin.Score(state, *pod, cluster.NodeInfo("b"), &b).IsSuccess());
  EXPECT_EQ(a, 14);
  EXPECT_EQ(b, -3);
  std::vector<framework::NodeScore> scores = {{api::Symbol("a"), a}, {api::Symbol("b"), b}};
  ASSERT_TRUE(plugin.NormalizeScore(state, *pod, scores).IsSuccess());
  EXPECT_EQ(scores[0].score, kMax);
  EXPECT_EQ(scores[1].score, 0);
}

// Raw Score per node of `names`, or nothing when PreScore does not succeed (its status in *pre).
Scores RawScores(test::Cluster& cluster, InterPodAffinity& plugin, const api::Pod& pod,
                 const std::vector<std::string>& names, Status* pre = nullptr) {
  const framework::PodInfoPtr info = framework::PodInfo::Make(pod);
  framework::CycleState state;
  const Status s = plugin.PreScore(state, *info, cluster.fake.snapshot().List());
  if (pre != nullptr) *pre = s;
  Scores out;
  if (!s.IsSuccess()) return out;
  for (const std::string& n : names) {
    int64_t score = 0;
    EXPECT_TRUE(plugin.Score(state, *info, cluster.NodeInfo(n), &score).IsSuccess());
    out.push_back(score);
  }
  return out;
}

// What PreScore sums per node is remembered between cycles: it must follow pods bound in
// between, the incoming pod's labels and namespace, and its own terms.
TEST(Score, SumsFollowThePodsAndTheIncomingPodBetweenCycles) {
  const api::PodAffinityTerm to_web =
      Term(Selector({{"app", api::SelectorOperator::kIn, {"web"}}}), "zone");
  test::Cluster cluster({Node("a", {{"zone", "z1"}}), Node("b", {{"zone", "z2"}})},
                        {WithAffinity(WithLabels({{"app", "web"}}, "a"), Preferred(5, to_web))});
  InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
  const std::vector<std::string> names = {"a", "b"};
  auto web = [] { return MakePod().Name("incoming").Label("app", "web"); };

  EXPECT_EQ(RawScores(cluster, plugin, web().Obj(), names), (Scores{5, 0}));
  auto named = [](api::Pod pod, const std::string& name) {
    pod.metadata.name = name;
    pod.metadata.uid = name;
    return pod;
  };
  cluster.fake.AddPod(
      named(WithAffinity(WithLabels({{"app", "web"}}, "b"), Preferred(10, to_web)), "later-1"));
  cluster.fake.AddPod(named(
      WithAffinity(WithLabels({{"app", "web"}}, "a"), Preferred(2, to_web, true)), "later-2"));
  EXPECT_EQ(RawScores(cluster, plugin, web().Obj(), names), (Scores{3, 10}));
  // Another namespace: the existing terms select only their own.
  Status pre;
  EXPECT_EQ(RawScores(cluster, plugin, web().Namespace("elsewhere").Obj(), names, &pre), Scores{});
  EXPECT_EQ(pre.code(), Code::kSkip);
  EXPECT_EQ(
      RawScores(cluster, plugin, MakePod().Name("incoming").Label("app", "db").Obj(), names, &pre),
      Scores{});
  EXPECT_EQ(pre.code(), Code::kSkip);
  // The incoming pod's own anti-affinity to web pods: -4 per web pod in the zone.
  EXPECT_EQ(RawScores(cluster, plugin, AffinityPod(web()).PreferredAntiAffinity(4, to_web), names),
            (Scores{3 - 8, 10 - 4}));
}

TEST(Score, WithoutPreScoreIsAnError) {
  test::Cluster cluster({Node("a", {})}, {});
  InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
  framework::CycleState state;
  int64_t score = 0;
  EXPECT_EQ(
      plugin.Score(state, *framework::PodInfo::Make(MakePod().Obj()), cluster.NodeInfo("a"),
                   &score),
      Status::Error("failed to read \"PreScoreInterPodAffinity\" from cycleState: not found"));
}

}  // namespace
}  // namespace muster::plugins::interpodaffinity
