#include "muster/plugins/interpodaffinity/inter_pod_affinity.h"

#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/plugins/interpodaffinity/terms.h"
#include "muster/plugins/interpodaffinity/test_helpers.h"
#include "muster/plugins/interpodaffinity/topology_map.h"

// Queueing hint cases from upstream plugin_test.go (Test_isSchedulableAfterPodChange,
// Test_isSchedulableAfterNodeChange), the registry factory, and the plugin's helpers.

namespace muster::plugins::interpodaffinity {
namespace {

using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;
using test::AffinityPod;
using test::Exists;
using test::In;
using testing::MakeNode;
using testing::MakePod;

constexpr QueueingHint kQueue = QueueingHint::kQueue;
constexpr QueueingHint kSkip = QueueingHint::kSkip;

TEST(IsSchedulableAfterPodChange, UpstreamCases) {
  auto target = [] { return MakePod().Name("p"); };
  auto other = [] { return MakePod().Name("other"); };
  auto scheduled = [] { return MakePod().Name("other").NodeName("fake-node"); };
  const api::PodAffinityTerm service_in = In("service", "region", {"securityscan", "value2"});
  const api::Pod with_affinity = AffinityPod(target()).Affinity(service_in);
  const api::Pod with_anti = AffinityPod(target()).AntiAffinity(service_in);
  const api::Pod multi =
      AffinityPod(target()).Affinity(Exists("aaa", "hostname")).Affinity(Exists("bbb", "hostname"));
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Pod> old_pod, new_pod;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"add a pod which matches the pod affinity", with_affinity, std::nullopt,
       scheduled().Label("service", "securityscan").Obj(), kQueue},
      {"add an un-scheduled pod", with_affinity, std::nullopt,
       other().Label("service", "securityscan").Obj(), kSkip},
      {"add a pod which doesn't match the pod affinity", with_affinity, std::nullopt,
       scheduled().Label("aaa", "a").Obj(), kSkip},
      {"update a pod from non-match to match pod affinity", with_affinity,
       scheduled().Label("aaa", "a").Obj(), scheduled().Label("service", "securityscan").Obj(),
       kQueue},
      {"the updating pod matches target pod's affinity both before and after label changes",
       with_affinity, scheduled().Label("service", "value2").Obj(),
       scheduled().Label("service", "securityscan").Obj(), kSkip},
      {"update an un-scheduled pod", with_affinity, other().Label("aaa", "a").Obj(),
       other().Label("service", "securityscan").Obj(), kSkip},
      {"update a pod from match to non-match the pod affinity", with_affinity,
       scheduled().Label("service", "securityscan").Obj(), scheduled().Label("aaa", "a").Obj(),
       kSkip},
      {"update a pod from match to non-match pod's affinity - multiple terms case", multi,
       scheduled().Label("aaa", "a").Obj(), scheduled().Label("service", "securityscan").Obj(),
       kSkip},
      {"update a pod from non-match to match pod's affinity - multiple terms case", multi,
       scheduled().Label("aaa", "a").Obj(), scheduled().Label("aaa", "").Label("bbb", "").Obj(),
       kQueue},
      {"updated pod is the target pod", target().Label("foo", "baz").Obj(),
       target().Label("foo", "bar").Obj(), target().Label("foo", "baz").Obj(), kQueue},
      {"modify pod label to change it from satisfying pod anti-affinity to not satisfying "
       "anti-affinity",
       with_anti, scheduled().Label("service", "securityscan").Obj(),
       scheduled().Label("service", "aaaa").Obj(), kQueue},
      {"modify pod label to change it from not satisfying pod anti-affinity to satisfying "
       "anti-affinity",
       with_anti, scheduled().Label("service", "bbb").Obj(),
       scheduled().Label("service", "securityscan").Obj(), kSkip},
      {"delete a pod which doesn't match pod's anti-affinity", with_anti,
       scheduled().Label("aaa", "a").Obj(), std::nullopt, kSkip},
      {"delete a pod which matches pod's anti-affinity", with_anti,
       scheduled().Label("service", "securityscan").Obj(), std::nullopt, kQueue},
      {"delete a pod with anti-affinity that matches pending pod",
       target().Label("service", "securityscan").Obj(),
       AffinityPod(MakePod().Name("e").NodeName("fake-node")).AntiAffinity(service_in),
       std::nullopt, kQueue},
      {"delete a pod with anti-affinity that doesn't match pending pod",
       target().Label("service", "foo").Obj(),
       AffinityPod(MakePod().Name("e").NodeName("fake-node")).AntiAffinity(service_in),
       std::nullopt, kSkip},
      {"delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity that "
       "doesn't match pending pod",
       AffinityPod(target().Label("service", "foo")).AntiAffinity(service_in),
       AffinityPod(MakePod().Name("e").NodeName("fake-node").Label("service", "foo"))
           .AntiAffinity(service_in),
       std::nullopt, kSkip},
  };
  test::Cluster cluster({}, {});
  InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EventObjects e;
    if (c.old_pod) e.old_pod = &*c.old_pod;
    if (c.new_pod) e.new_pod = &*c.new_pod;
    Status error;
    EXPECT_EQ(plugin.IsSchedulableAfterPodChange(c.pod, e, &error), c.want);
    EXPECT_TRUE(error.IsSuccess()) << framework::ToString(error);
  }
}

TEST(IsSchedulableAfterNodeChange, UpstreamCases) {
  auto node = [](std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
    return test::Node("node-a", labels);
  };
  const api::Pod affinity_zone =
      AffinityPod(MakePod().Name("p")).Affinity(In("service", "zone", {"securityscan", "value2"}));
  const api::Pod affinity_region =
      AffinityPod(MakePod().Name("p"))
          .Affinity(In("service", "region", {"securityscan", "value2"}));
  const api::Pod anti_zone =
      AffinityPod(MakePod().Name("p"))
          .AntiAffinity(test::Term(test::Selector({}, {{"another", "label"}}), "zone"));
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Node> old_node;
    api::Node new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"add a new node with matched pod affinity topologyKey", affinity_zone, std::nullopt,
       node({{"zone", "zone1"}}), kQueue},
      {"add a new node without matched topologyKey", affinity_region, std::nullopt,
       node({{"zone", "zone1"}}), kSkip},
      {"update node label but not topologyKey", affinity_zone, node({{"aaa", "a"}}),
       node({{"aaa", "b"}}), kSkip},
      {"update node label that isn't related to the pod affinity", affinity_zone,
       node({{"zone", "zone1"}}), node({{"zone", "zone1"}, {"unrelated-label", "unrelated"}}),
       kSkip},
      {"update node with different affinity topologyKey value", affinity_zone,
       node({{"zone", "zone1"}}), node({{"zone", "zone2"}}), kQueue},
      {"update node to have the affinity topology label", affinity_zone, node({{"aaa", "a"}}),
       node({{"zone", "zone1"}}), kQueue},
      {"add a new node with matched pod anti-affinity topologyKey", anti_zone, std::nullopt,
       node({{"zone", "zone1"}}), kQueue},
      {"add a new node without matched pod anti-affinity topologyKey", anti_zone, std::nullopt,
       node({}), kQueue},
      {"update node label that isn't related to the pod anti-affinity", anti_zone,
       node({{"zone", "zone1"}}), node({{"zone", "zone1"}, {"unrelated-label", "unrelated"}}),
       kSkip},
      {"update node with different anti-affinity topologyKey value", anti_zone,
       node({{"zone", "zone1"}}), node({{"zone", "zone2"}}), kQueue},
      {"update node to have the anti-affinity topology label", anti_zone, node({{"aaa", "a"}}),
       node({{"zone", "zone1"}}), kSkip},
      {"update node label not to have anti-affinity topology label", anti_zone,
       node({{"zone", "zone1"}}), node({{"aaa", "a"}}), kQueue},
  };
  test::Cluster cluster({}, {});
  InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EventObjects e;
    if (c.old_node) e.old_node = &*c.old_node;
    e.new_node = &c.new_node;
    Status error;
    EXPECT_EQ(plugin.IsSchedulableAfterNodeChange(c.pod, e, &error), c.want);
    EXPECT_TRUE(error.IsSuccess()) << framework::ToString(error);
  }
}

TEST(EventsToRegister, AssignedPodsOwnLabelsAndNodes) {
  test::Cluster cluster({}, {});
  InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
  const std::vector<framework::ClusterEventWithHint> events = plugin.EventsToRegister();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kAssignedPod);
  EXPECT_EQ(events[0].event.actions,
            framework::kAdd | framework::kUpdatePodLabel | framework::kDelete);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[1].event.actions, framework::kUpdatePodLabel);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[2].event.actions, framework::kAdd | framework::kUpdateNodeLabel);
  for (const auto& e : events) EXPECT_TRUE(static_cast<bool>(e.hint));
  // The hints are the plugin's own.
  const api::Node added = test::Node("n", {{"zone", "z"}});
  const api::Pod pod = AffinityPod(MakePod().Name("p")).Affinity(In("a", "zone", {"b"}));
  Status error;
  EXPECT_EQ(events[2].hint(pod, EventObjects{.new_node = &added}, &error), kQueue);
}

TEST(New, DecodesArgs) {
  test::Cluster cluster({}, {});
  framework::PluginArgs args;
  args.args = YAML::Load("hardPodAffinityWeight: 5");
  args.error_prefix = "args";
  std::string error;
  std::unique_ptr<framework::Plugin> p = InterPodAffinity::New(args, cluster.fake.handle(), &error);
  ASSERT_NE(p, nullptr) << error;
  EXPECT_EQ(p->Name(), "InterPodAffinity");
  EXPECT_EQ(dynamic_cast<InterPodAffinity*>(p.get())->args(), (InterPodAffinityArgs{5, false}));

  args.args = YAML::Load("hardPodAffinityWeight: 500");
  EXPECT_EQ(InterPodAffinity::New(args, cluster.fake.handle(), &error), nullptr);
  EXPECT_EQ(error, "args.hardPodAffinityWeight: Invalid value: 500: not in valid range [0, 100]");
}

TEST(SelectorParseError, UpstreamMessages) {
  using api::SelectorOperator;
  EXPECT_EQ(SelectorParseError(test::Selector({{"a", SelectorOperator::kIn, {"b"}}})),
            std::nullopt);
  EXPECT_EQ(SelectorParseError(test::Selector({{"a", SelectorOperator::kIn, {}}})),
            "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't "
            "be empty");
  EXPECT_EQ(SelectorParseError(test::Selector({{"a", SelectorOperator::kExists, {"x", "y"}}})),
            "values: Invalid value: []string{\"x\", \"y\"}: values set must be empty for exists "
            "and does not exist");
  EXPECT_EQ(SelectorParseError(test::Selector({{"a", SelectorOperator::kGt, {"1"}}})),
            "\"Gt\" is not a valid label selector operator");
  EXPECT_EQ(SelectorParseError(test::Selector({{"-a", SelectorOperator::kIn, {"-b"}}})),
            "[key: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  "
            "or 'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), values[0][-a]: Invalid value: \"-b\": a "
            "valid label must be an empty string or consist of alphanumeric characters, '-', '_' "
            "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
            "'my_value',  or '12345', regex used for validation is "
            "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]");
}

// An existing pod whose term list does not parse counts for nothing (upstream drops the list).
TEST(ExistingPods, UnparsableTermListIsDropped) {
  api::PodAffinityTerm bad = In("app", "zone", {"{{bad}}"});
  test::Cluster cluster({test::Node("a", {{"zone", "z"}})},
                        {AffinityPod(MakePod().Name("e").NodeName("a"))
                             .AntiAffinity(In("app", "zone", {"web"}))
                             .AntiAffinity(bad)});
  InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
  framework::CycleState state;
  framework::PreFilterResult result;
  EXPECT_TRUE(plugin
                  .PreFilter(state, *framework::PodInfo::Make(MakePod().Label("app", "web").Obj()),
                             cluster.fake.snapshot().List(), &result)
                  .IsSkip());
}

TEST(TopologyMap, AddEraseAndLookups) {
  TopologyMap m;
  const api::Symbol zone("zone");
  const api::Symbol host("host");
  m.Add(zone, api::Symbol("z1"), 2, true);
  m.Add(host, api::Symbol("h1"), 1, true);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.Get(zone, api::Symbol("z1")), 2);
  EXPECT_EQ(m.Get(zone, api::Symbol("z2")), 0);
  EXPECT_EQ(m.topology_keys(), (std::vector<api::Symbol>{zone, host}));
  const api::LabelSet node{{"zone", "z1"}, {"host", "h2"}};
  EXPECT_TRUE(m.AnyPositive(node));
  EXPECT_EQ(m.SumFor(node), 2);
  m.Add(zone, api::Symbol("z1"), -2, true);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_FALSE(m.AnyPositive(node));
  // Scores keep zero entries: their key still counts as present.
  TopologyMap scores;
  scores.Add(zone, api::Symbol("z1"), 5, false);
  scores.Add(zone, api::Symbol("z1"), -5, false);
  EXPECT_EQ(scores.size(), 1u);
}

// Backward-shift deletion keeps every remaining entry reachable, whatever the erase order.
TEST(TopologyMap, RandomChurnMatchesAReferenceMap) {
  std::mt19937 rng(7);
  TopologyMap m;
  std::map<std::pair<int, int>, int64_t> reference;
  const api::Symbol key("k");
  std::vector<api::Symbol> values;
  for (int i = 0; i < 300; ++i) values.emplace_back("v" + std::to_string(i));
  for (int step = 0; step < 20000; ++step) {
    const int v = static_cast<int>(rng() % values.size());
    const int64_t delta = (rng() % 2 == 0) ? 1 : -1;
    m.Add(key, values[v], delta, true);
    int64_t& ref = reference[{0, v}];
    ref += delta;
    if (ref == 0) reference.erase({0, v});
  }
  EXPECT_EQ(m.size(), reference.size());
  for (int v = 0; v < static_cast<int>(values.size()); ++v) {
    auto it = reference.find({0, v});
    EXPECT_EQ(m.Get(key, values[v]), it == reference.end() ? 0 : it->second) << v;
  }
}

// PreFilter and PreScore remember per-node results between cycles. A long random sequence of
// cycles, with pods bound in between, must decide exactly as a cluster built afresh each cycle
// (nothing remembered): same Filter verdicts and same raw scores on every node.
TEST(RememberedCounts, DecideAsAFreshClusterEveryCycle) {
  std::mt19937 rng(20261123);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
  const std::vector<std::string_view> apps = {"a", "b", "c"};
  const std::vector<std::string_view> namespaces = {"default", "ns1", "ns2"};
  const std::vector<std::string_view> keys = {"zone", "hostname"};
  auto random_term = [&] {
    api::PodAffinityTerm t =
        pick(4) == 0 ? Exists("app", keys[pick(2)]) : In("app", keys[pick(2)], {apps[pick(3)]});
    if (pick(4) == 0) t.namespaces.emplace_back(namespaces[pick(3)]);
    if (pick(5) == 0) {
      api::LabelSelector team = test::Selector({{"team", api::SelectorOperator::kIn, {"x"}}});
      t.namespace_selector = team;
    }
    if (pick(6) == 0) t.match_label_keys.emplace_back("tier");
    return t;
  };
  auto random_pod = [&](const std::string& name, std::string_view node) {
    testing::PodBuilder b = MakePod().Name(name).Namespace(namespaces[pick(3)]);
    if (pick(4) != 0) b.Label("app", apps[pick(3)]);
    if (pick(2) == 0) b.Label("tier", pick(2) == 0 ? "front" : "back");
    if (!node.empty()) b.NodeName(node);
    AffinityPod pod(b);
    const int terms = pick(3);
    for (int k = 0; k < terms; ++k) {
      switch (pick(4)) {
        case 0:
          pod.Affinity(random_term());
          break;
        case 1:
          pod.AntiAffinity(random_term());
          break;
        case 2:
          pod.PreferredAffinity(1 + pick(50), random_term());
          break;
        default:
          pod.PreferredAntiAffinity(1 + pick(50), random_term());
      }
    }
    return api::Pod(pod.Obj());
  };

  std::vector<api::Node> nodes;
  std::vector<std::string> names;
  for (int i = 0; i < 80; ++i) {
    names.push_back("n" + std::to_string(i));
    nodes.push_back(test::Node(
        names.back(),
        {{"zone", i % 3 == 0 ? "z1" : (i % 3 == 1 ? "z2" : "z3")}, {"hostname", names.back()}}));
  }
  std::vector<api::Pod> bound;
  for (int i = 0; i < 120; ++i) {
    bound.push_back(random_pod("init" + std::to_string(i), names[pick(80)]));
  }
  auto add_namespaces = [](testing::FakeServices& fake) {
    fake.AddObject(test::Namespace("ns1", {{"team", "x"}}));
    fake.AddObject(test::Namespace("ns2", {{"team", "y"}}));
  };
  test::Cluster kept(nodes, bound);
  add_namespaces(kept.fake);
  InterPodAffinity kept_plugin(InterPodAffinityArgs{3, false}, kept.fake.handle());

  for (int cycle = 0; cycle < 60; ++cycle) {
    test::Cluster fresh(nodes, bound);
    add_namespaces(fresh.fake);
    InterPodAffinity fresh_plugin(InterPodAffinityArgs{3, false}, fresh.fake.handle());
    const framework::PodInfoPtr pod =
        framework::PodInfo::Make(random_pod("incoming" + std::to_string(cycle), ""));
    struct Outcome {
      Status pre_filter, pre_score;
      std::vector<Status> filters;
      std::vector<int64_t> scores;
      bool operator==(const Outcome&) const = default;
    };
    auto run = [&](test::Cluster& c, InterPodAffinity& plugin) {
      Outcome o;
      const std::vector<framework::NodeInfo*>& all = c.fake.snapshot().List();
      framework::CycleState state;
      framework::PreFilterResult result;
      o.pre_filter = plugin.PreFilter(state, *pod, all, &result);
      if (o.pre_filter.IsSuccess()) {
        for (const std::string& n : names) {
          o.filters.push_back(plugin.Filter(state, *pod, c.NodeInfo(n)));
        }
      }
      o.pre_score = plugin.PreScore(state, *pod, all);
      if (o.pre_score.IsSuccess()) {
        for (const std::string& n : names) {
          int64_t score = 0;
          EXPECT_TRUE(plugin.Score(state, *pod, c.NodeInfo(n), &score).IsSuccess());
          o.scores.push_back(score);
        }
      }
      return o;
    };
    // Twice on the kept cluster: the second run reads what the first remembered.
    const Outcome want = run(fresh, fresh_plugin);
    ASSERT_TRUE(run(kept, kept_plugin) == want) << "cycle " << cycle;
    ASSERT_TRUE(run(kept, kept_plugin) == want) << "cycle " << cycle << ", remembered";
    // Bind a few more pods before the next cycle.
    for (int k = 0; k < 3; ++k) {
      bound.push_back(
          random_pod("bound" + std::to_string(cycle) + "-" + std::to_string(k), names[pick(80)]));
      kept.fake.AddPod(bound.back());
    }
  }
}

}  // namespace
}  // namespace muster::plugins::interpodaffinity
