#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/plugins/interpodaffinity/inter_pod_affinity.h"
#include "muster/plugins/interpodaffinity/state.h"
#include "muster/plugins/interpodaffinity/test_helpers.h"

// Cases from upstream filtering_test.go (TestRequiredAffinitySingleNode,
// TestRequiredAffinityMultipleNodes, TestPreFilterDisabled, TestPreFilterStateAddRemovePod,
// TestGetTPMapMatchingIncomingAffinityAntiAffinity). Upstream's pods in namespace "" are in
// "default" here (muster applies the API server's default).

namespace muster::plugins::interpodaffinity {
namespace {

using framework::Code;
using framework::Status;
using test::AffinityPod;
using test::Exists;
using test::In;
using test::Node;
using test::NotIn;
using test::Selector;
using test::Term;
using test::Unresolvable;
using test::Unschedulable;
using testing::MakePod;

const Status kAffinityFails = Unresolvable(kErrReasonAffinityRulesNotMatch);
const Status kAntiAffinityFails = Unschedulable(kErrReasonAntiAffinityRulesNotMatch);
const Status kExistingAntiAffinityFails =
    Unschedulable(kErrReasonExistingAntiAffinityRulesNotMatch);
const Status kSkip(Code::kSkip);

struct FilterRun {
  Status pre_filter;
  std::vector<Status> filters;  // per node, in the order given; empty when PreFilter did not pass
};

// Runs PreFilter, then Filter on each node when PreFilter succeeded (upstream's harness).
FilterRun RunFilters(test::Cluster& cluster, const api::Pod& pod,
                     const std::vector<std::string>& nodes, bool namespaces_of_teams) {
  if (namespaces_of_teams) test::AddTeamNamespaces(cluster.fake);
  InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
  framework::CycleState state;
  const framework::PodInfoPtr info = framework::PodInfo::Make(pod);
  framework::PreFilterResult result;
  FilterRun run;
  run.pre_filter = plugin.PreFilter(state, *info, cluster.fake.snapshot().List(), &result);
  if (!run.pre_filter.IsSuccess()) return run;
  for (const std::string& n : nodes) {
    run.filters.push_back(plugin.Filter(state, *info, cluster.NodeInfo(n)));
  }
  return run;
}

TEST(RequiredAffinitySingleNode, UpstreamCases) {
  const auto pod_label = MakePod().Label("service", "securityscan");
  const api::Pod existing =
      MakePod().Name("existing").Label("service", "securityscan").NodeName("node1").Obj();
  const api::Node node1 = Node("node1", {{"region", "r1"}, {"zone", "z11"}});
  auto s1 = [] { return MakePod().Name("incoming").Label("security", "S1"); };
  auto service = [] { return MakePod().Name("incoming").Label("service", "securityscan"); };
  const api::LabelSelector in_securityscan =
      Selector({{"service", api::SelectorOperator::kIn, {"securityscan", "value2"}}});
  const api::LabelSelector team1 = Selector({{"team", api::SelectorOperator::kIn, {"team1"}}});
  const std::string bad_value_error =
      "parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: \"{{.bad-value.}}\": "
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
      "'my_value',  or '12345', regex used for validation is "
      "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Pod> pods;
    Status want_pre_filter;
    Status want_filter;
  };
  const std::vector<Case> cases = {
      {"A pod that has no required pod affinity scheduling rules can schedule onto a node with no "
       "existing pods",
       MakePod().Name("incoming").Obj(),
       {},
       kSkip,
       {}},
      {"satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In "
       "operator that matches the existing pod",
       AffinityPod(s1()).Affinity(In("service", "region", {"securityscan", "value2"})),
       {existing},
       {},
       {}},
      {"satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using "
       "not in operator in labelSelector that matches the existing pod",
       AffinityPod(s1()).Affinity(NotIn("service", "region", {"securityscan3", "value3"})),
       {existing},
       {},
       {}},
      {"Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
       AffinityPod(s1()).Affinity(Term(in_securityscan, "", {"DiffNameSpace"})),
       {MakePod()
            .Name("e")
            .Namespace("ns")
            .Label("service", "securityscan")
            .NodeName("node1")
            .Obj()},
       {},
       kAffinityFails},
      {"Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
       AffinityPod(service()).Affinity(In("service", "", {"antivirusscan", "value2"})),
       {existing},
       {},
       kAffinityFails},
      {"satisfies the PodAffinity with different label Operators in multiple "
       "RequiredDuringSchedulingIgnoredDuringExecution ",
       AffinityPod(s1())
           .Affinity(Term(Selector({{"service", api::SelectorOperator::kExists, {}},
                                    {"wrongkey", api::SelectorOperator::kDoesNotExist, {}}}),
                          "region"))
           .Affinity(Term(Selector({{"service", api::SelectorOperator::kIn, {"securityscan"}},
                                    {"service", api::SelectorOperator::kNotIn, {"WrongValue"}}}),
                          "region")),
       {existing},
       {},
       {}},
      {"The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot "
       "schedule onto the node because one of the matchExpression item don't match.",
       AffinityPod(s1())
           .Affinity(Term(Selector({{"service", api::SelectorOperator::kExists, {}},
                                    {"wrongkey", api::SelectorOperator::kDoesNotExist, {}}}),
                          "region"))
           .Affinity(Term(Selector({{"service", api::SelectorOperator::kIn, {"securityscan2"}},
                                    {"service", api::SelectorOperator::kNotIn, {"WrongValue"}}}),
                          "region")),
       {existing},
       {},
       kAffinityFails},
      {"satisfies the PodAffinity and PodAntiAffinity with the existing pod",
       AffinityPod(s1())
           .Affinity(In("service", "region", {"securityscan", "value2"}))
           .AntiAffinity(In("service", "node", {"antivirusscan", "value2"})),
       {existing},
       {},
       {}},
      {"satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the "
       "existing pod",
       AffinityPod(s1())
           .Affinity(In("service", "region", {"securityscan", "value2"}))
           .AntiAffinity(In("service", "node", {"antivirusscan", "value2"})),
       {AffinityPod(MakePod().Name("e").NodeName("node1").Label("service", "securityscan"))
            .AntiAffinity(In("service", "node", {"antivirusscan", "value2"}))},
       {},
       {}},
      {"satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
       AffinityPod(s1())
           .Affinity(In("service", "region", {"securityscan", "value2"}))
           .AntiAffinity(In("service", "zone", {"securityscan", "value2"})),
       {existing},
       {},
       kAntiAffinityFails},
      {"satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry "
       "with the existing pod",
       AffinityPod(service())
           .Affinity(In("service", "region", {"securityscan", "value2"}))
           .AntiAffinity(In("service", "node", {"antivirusscan", "value2"})),
       {AffinityPod(MakePod().Name("e").Label("service", "securityscan").NodeName("node1"))
            .AntiAffinity(In("service", "zone", {"securityscan", "value2"}))},
       {},
       kExistingAntiAffinityFails},
      {"pod matches its own Label in PodAffinity and that matches the existing pod Labels",
       AffinityPod(service()).Affinity(NotIn("service", "region", {"securityscan", "value2"})),
       {MakePod().Name("e").Label("service", "securityscan").NodeName("node2").Obj()},
       {},
       kAffinityFails},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
       "constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
       service().Obj(),
       {AffinityPod(MakePod().Name("e").NodeName("node1").Label("service", "securityscan"))
            .AntiAffinity(In("service", "zone", {"securityscan", "value2"}))},
       {},
       kExistingAntiAffinityFails},
      {"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity "
       "constraints. satisfy PodAntiAffinity symmetry with the existing pod",
       service().Obj(),
       {AffinityPod(MakePod().Name("e").NodeName("node1").Label("service", "securityscan"))
            .AntiAffinity(NotIn("service", "zone", {"securityscan", "value2"}))},
       kSkip,
       {}},
      {"satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity "
       "symmetry with incoming pod",
       AffinityPod(service())
           .AntiAffinity(Exists("service", "region"))
           .AntiAffinity(Exists("security", "region")),
       {AffinityPod(MakePod().Name("e").NodeName("node1").Label("security", "S1"))
            .AntiAffinity(Exists("security", "zone"))},
       {},
       kAntiAffinityFails},
      {"PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       AffinityPod(service())
           .AntiAffinity(Exists("service", "zone"))
           .AntiAffinity(Exists("security", "zone")),
       {AffinityPod(MakePod().Name("e").NodeName("node1").Label("security", "S1"))
            .AntiAffinity(Exists("security", "zone"))},
       {},
       kAntiAffinityFails},
      {"PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       AffinityPod(s1()).AntiAffinity(Exists("security", "zone")),
       {AffinityPod(MakePod().Name("e").NodeName("node1").Label("service", "securityscan"))
            .AntiAffinity(Exists("service", "zone"))
            .AntiAffinity(Exists("security", "zone"))},
       {},
       kExistingAntiAffinityFails},
      {"PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       AffinityPod(MakePod().Name("incoming").Label("abc", "").Label("xyz", ""))
           .AntiAffinity(Exists("abc", "zone"))
           .AntiAffinity(Exists("def", "zone")),
       {AffinityPod(MakePod().Name("e").NodeName("node1").Label("def", "").Label("xyz", ""))
            .AntiAffinity(Exists("abc", "zone"))
            .AntiAffinity(Exists("def", "zone"))},
       {},
       kAntiAffinityFails},
      {"PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each "
       "other on AffinityTerms",
       AffinityPod(MakePod().Name("incoming").Label("def", "").Label("xyz", ""))
           .AntiAffinity(Exists("abc", "zone"))
           .AntiAffinity(Exists("def", "zone")),
       {AffinityPod(MakePod().Name("e").NodeName("node1").Label("abc", "").Label("xyz", ""))
            .AntiAffinity(Exists("abc", "zone"))
            .AntiAffinity(Exists("def", "zone"))},
       {},
       kAntiAffinityFails},
      {"PodAffinity fails PreFilter with an invalid affinity label syntax",
       AffinityPod(service())
           .Affinity(In("service", "region", {"{{.bad-value.}}"}))
           .Affinity(In("service", "node", {"antivirusscan", "value2"})),
       {},
       Unresolvable(bad_value_error),
       {}},
      {"PodAntiAffinity fails PreFilter with an invalid antiaffinity label syntax",
       AffinityPod(service())
           .Affinity(In("service", "region", {"foo"}))
           .Affinity(In("service", "node", {"{{.bad-value.}}"})),
       {},
       Unresolvable(bad_value_error),
       {}},
      {"affinity with NamespaceSelector",
       AffinityPod(s1()).Affinity(Term(in_securityscan, "region", {}, team1)),
       {MakePod()
            .Name("e")
            .Namespace("subteam1.team1")
            .Label("service", "securityscan")
            .NodeName("node1")
            .Obj()},
       {},
       {}},
      {"affinity with non-matching NamespaceSelector",
       AffinityPod(s1()).Affinity(Term(in_securityscan, "region", {}, team1)),
       {MakePod()
            .Name("e")
            .Namespace("subteam1.team2")
            .Label("service", "securityscan")
            .NodeName("node1")
            .Obj()},
       {},
       kAffinityFails},
      {"anti-affinity with matching NamespaceSelector",
       AffinityPod(MakePod().Name("incoming").Namespace("subteam1.team1").Label("security", "S1"))
           .AntiAffinity(Term(in_securityscan, "zone", {}, team1)),
       {MakePod()
            .Name("e")
            .Namespace("subteam2.team1")
            .Label("service", "securityscan")
            .NodeName("node1")
            .Obj()},
       {},
       kAntiAffinityFails},
      {"anti-affinity with matching all NamespaceSelector",
       AffinityPod(MakePod().Name("incoming").Namespace("subteam1.team1").Label("security", "S1"))
           .AntiAffinity(Term(in_securityscan, "zone", {}, api::LabelSelector{})),
       {MakePod()
            .Name("e")
            .Namespace("subteam2.team1")
            .Label("service", "securityscan")
            .NodeName("node1")
            .Obj()},
       {},
       kAntiAffinityFails},
      {"anti-affinity with non-matching NamespaceSelector",
       AffinityPod(MakePod().Name("incoming").Namespace("subteam1.team1").Label("security", "S1"))
           .AntiAffinity(Term(in_securityscan, "zone", {}, team1)),
       {MakePod()
            .Name("e")
            .Namespace("subteam1.team2")
            .Label("service", "securityscan")
            .NodeName("node1")
            .Obj()},
       {},
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    test::Cluster cluster({node1}, c.pods);
    const FilterRun run = RunFilters(cluster, c.pod, {"node1"}, /*namespaces_of_teams=*/true);
    EXPECT_EQ(run.pre_filter, c.want_pre_filter) << framework::ToString(run.pre_filter);
    if (!run.pre_filter.IsSuccess()) continue;
    ASSERT_EQ(run.filters.size(), 1u);
    EXPECT_EQ(run.filters[0], c.want_filter) << framework::ToString(run.filters[0]);
  }
}

TEST(RequiredAffinityMultipleNodes, UpstreamCases) {
  const api::Node china_a = Node("nodeA", {{"region", "China"}});
  const api::Node china_az1_b = Node("nodeB", {{"region", "China"}, {"az", "az1"}});
  const api::Node india_c = Node("nodeC", {{"region", "India"}});
  auto zoned = [](std::string_view name, std::string_view zone) {
    return Node(name, {{"region", "r1"}, {"zone", zone}, {"hostname", name}});
  };
  auto incoming = [] { return MakePod().Name("incoming"); };
  auto at = [](std::string_view node) { return MakePod().NodeName(node); };

  struct Case {
    Case(std::string name, api::Pod pod, std::vector<api::Pod> pods, std::vector<api::Node> nodes,
         std::vector<Status> want, Status want_pre_filter = {})
        : name(std::move(name)),
          pod(std::move(pod)),
          pods(std::move(pods)),
          nodes(std::move(nodes)),
          want(std::move(want)),
          want_pre_filter(std::move(want_pre_filter)) {}
    std::string name;
    api::Pod pod;
    std::vector<api::Pod> pods;
    std::vector<api::Node> nodes;
    std::vector<Status> want;
    Status want_pre_filter;
  };
  const std::vector<Case> cases = {
      {"A pod can be scheduled onto all the nodes that have the same topology key & label value "
       "with one of them has an existing pod that matches the affinity rules",
       AffinityPod(incoming()).Affinity(In("foo", "region", {"bar"})),
       {at("nodeA").Name("p1").Label("foo", "bar").Obj()},
       {china_a, china_az1_b, india_c},
       {{}, {}, kAffinityFails}},
      {"The affinity rule is to schedule all of the pods of this collection to the same zone. The "
       "first pod of the collection should not be blocked from being scheduled onto any node, "
       "even there's no existing pod that matches the rule anywhere.",
       AffinityPod(incoming().Label("foo", "bar").Label("service", "securityscan"))
           .Affinity(In("foo", "zone", {"bar"}))
           .Affinity(In("service", "zone", {"securityscan"})),
       {at("nodeA").Name("p1").Label("foo", "bar").Obj()},
       {Node("nodeA", {{"zone", "az1"}, {"hostname", "h1"}}),
        Node("nodeB", {{"zone", "az2"}, {"hostname", "h2"}})},
       {{}, {}}},
      {"The first pod of the collection can only be scheduled on nodes labelled with the requested "
       "topology keys",
       AffinityPod(incoming().Label("foo", "bar").Label("service", "securityscan"))
           .Affinity(In("foo", "zone", {"bar"}))
           .Affinity(In("service", "zone", {"securityscan"})),
       {at("nodeA").Name("p1").Label("foo", "bar").Obj()},
       {Node("nodeA", {{"zoneLabel", "az1"}, {"hostname", "h1"}}),
        Node("nodeB", {{"zoneLabel", "az2"}, {"hostname", "h2"}})},
       {kAffinityFails, kAffinityFails}},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
       AffinityPod(incoming()).AntiAffinity(In("foo", "region", {"abc"})),
       {at("nodeA").Label("foo", "abc").Obj()},
       {Node("nodeA", {{"region", "r1"}, {"hostname", "nodeA"}}),
        Node("nodeB", {{"region", "r1"}, {"hostname", "nodeB"}})},
       {kAntiAffinityFails, kAntiAffinityFails}},
      {"This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule "
       "matches a pod.",
       AffinityPod(incoming())
           .AntiAffinity(In("foo", "region", {"abc"}))
           .AntiAffinity(In("service", "zone", {"securityscan"})),
       {at("nodeA").Label("foo", "abc").Label("service", "securityscan").Obj()},
       {zoned("nodeA", "z1"), zoned("nodeB", "z2")},
       {kAntiAffinityFails, kAntiAffinityFails}},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB "
       "but can be scheduled onto nodeC",
       AffinityPod(incoming()).AntiAffinity(In("foo", "region", {"abc"})),
       {at("nodeA").Label("foo", "abc").Obj()},
       {china_a, china_az1_b, india_c},
       {kAntiAffinityFails, kAntiAffinityFails, {}}},
      {"NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that "
       "matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but "
       "can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity "
       "rule but in different namespace)",
       AffinityPod(incoming().Namespace("NS1").Label("foo", "123"))
           .AntiAffinity(In("foo", "region", {"bar"})),
       {at("nodeA").Namespace("NS1").Label("foo", "bar").Obj(),
        AffinityPod(at("nodeC").Namespace("NS2")).AntiAffinity(In("foo", "region", {"123"}))},
       {china_a, china_az1_b, india_c},
       {kAntiAffinityFails, kAntiAffinityFails, {}}},
      {"Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, "
       "labelSelector of the term is firstly checked, and then topologyKey of the term is also "
       "checked",
       incoming().Label("foo", "").Obj(),
       {AffinityPod(at("nodeA")).AntiAffinity(Exists("foo", "invalid-node-label"))},
       {zoned("nodeA", "z1"), zoned("nodeB", "z1")},
       {{}, {}},
       kSkip},
      {"Test incoming pod's anti-affinity: even if labelSelector matches, we still check if "
       "topologyKey matches",
       AffinityPod(incoming()).AntiAffinity(Exists("foo", "invalid-node-label")),
       {at("nodeA").Label("foo", "").Obj()},
       {zoned("nodeA", "z1"), zoned("nodeB", "z1")},
       {{}, {}}},
      {"Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it "
       "violates each existingPod's terms on all nodes",
       incoming().Label("foo", "").Label("bar", "").Obj(),
       {AffinityPod(at("nodeA")).AntiAffinity(Exists("foo", "zone")),
        AffinityPod(at("nodeA")).AntiAffinity(Exists("bar", "region"))},
       {zoned("nodeA", "z1"), zoned("nodeB", "z2")},
       {kExistingAntiAffinityFails, kExistingAntiAffinityFails}},
      {"Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at "
       "least violates one anti-affinity rule of existingPod",
       AffinityPod(incoming())
           .AntiAffinity(Exists("foo", "zone"))
           .AntiAffinity(Exists("bar", "region")),
       {at("nodeA").Label("foo", "").Obj(), at("nodeB").Label("bar", "").Obj()},
       {zoned("nodeA", "z1"), zoned("nodeB", "z2")},
       {kAntiAffinityFails, kAntiAffinityFails}},
      {"Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when one term has invalid topologyKey",
       incoming().Label("foo", "").Label("bar", "").Obj(),
       {AffinityPod(at("nodeA"))
            .AntiAffinity(Exists("foo", "invalid-node-label"))
            .AntiAffinity(Exists("bar", "zone"))},
       {zoned("nodeA", "z1"), zoned("nodeB", "z2")},
       {kExistingAntiAffinityFails, {}}},
      {"Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when one term has invalid topologyKey",
       AffinityPod(incoming())
           .AntiAffinity(Exists("foo", "invalid-node-label"))
           .AntiAffinity(Exists("bar", "zone")),
       {at("nodeA").Name("podA").Label("foo", "").Label("bar", "").Obj()},
       {zoned("nodeA", "z1"), zoned("nodeB", "z2")},
       {kAntiAffinityFails, {}}},
      {"Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when all terms have valid topologyKey",
       incoming().Label("foo", "").Label("bar", "").Obj(),
       {AffinityPod(at("nodeA"))
            .AntiAffinity(Exists("foo", "region"))
            .AntiAffinity(Exists("bar", "zone"))},
       {zoned("nodeA", "z1"), zoned("nodeB", "z2")},
       {kExistingAntiAffinityFails, kExistingAntiAffinityFails}},
      {"Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, "
       "it's counted as a single term match - case when all terms have valid topologyKey",
       AffinityPod(incoming())
           .AntiAffinity(Exists("foo", "region"))
           .AntiAffinity(Exists("bar", "zone")),
       {at("nodeA").Label("foo", "").Label("bar", "").Obj()},
       {zoned("nodeA", "z1"), zoned("nodeB", "z2")},
       {kAntiAffinityFails, kAntiAffinityFails}},
      {"Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one "
       "anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
       incoming().Label("foo", "").Label("bar", "").Obj(),
       {AffinityPod(at("nodeA"))
            .AntiAffinity(Exists("foo", "zone"))
            .AntiAffinity(Exists("labelA", "zone")),
        AffinityPod(at("nodeB"))
            .AntiAffinity(Exists("bar", "zone"))
            .AntiAffinity(Exists("labelB", "zone"))},
       {zoned("nodeA", "z1"), zoned("nodeB", "z2"), zoned("nodeC", "z3")},
       {kExistingAntiAffinityFails, kExistingAntiAffinityFails, {}}},
      {"Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if "
       "all topologyKeys match",
       AffinityPod(incoming()).Affinity(Exists("foo", "region")).Affinity(Exists("bar", "zone")),
       {at("nodeA").Name("pod1").Label("foo", "").Label("bar", "").Obj()},
       {zoned("nodeA", "z1"), zoned("nodeB", "z1")},
       {{}, {}}},
      {"Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if "
       "all topologyKeys match, and the match logic should be satisfied on the same pod",
       AffinityPod(incoming()).Affinity(Exists("foo", "region")).Affinity(Exists("bar", "zone")),
       {at("nodeA").Name("pod1").Label("foo", "").Obj(),
        at("nodeB").Name("pod2").Label("bar", "").Obj()},
       {zoned("nodeA", "z1"), zoned("nodeB", "z2")},
       {kAffinityFails, kAffinityFails}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    test::Cluster cluster(c.nodes, c.pods);
    cluster.fake.AddObject(test::Namespace("NS1"));
    std::vector<std::string> names;
    for (const api::Node& n : c.nodes) names.push_back(n.metadata.name);
    InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
    framework::CycleState state;
    const framework::PodInfoPtr info = framework::PodInfo::Make(c.pod);
    framework::PreFilterResult result;
    const Status pre = plugin.PreFilter(state, *info, cluster.fake.snapshot().List(), &result);
    EXPECT_EQ(pre, c.want_pre_filter) << framework::ToString(pre);
    if (pre.IsSkip()) continue;
    ASSERT_EQ(c.want.size(), names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      const Status got = plugin.Filter(state, *info, cluster.NodeInfo(names[i]));
      EXPECT_EQ(got, c.want[i]) << names[i] << ": " << framework::ToString(got);
    }
  }
}

TEST(PreFilterDisabled, FilterWithoutPreFilterIsAnError) {
  test::Cluster cluster({Node("node", {})}, {});
  InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
  framework::CycleState state;
  const Status got =
      plugin.Filter(state, *framework::PodInfo::Make(MakePod().Obj()), cluster.NodeInfo("node"));
  EXPECT_EQ(
      got, Status::Error("error reading \"PreFilterInterPodAffinity\" from cycleState: not found"));
}

using Entries = std::vector<std::pair<uint64_t, int64_t>>;

Entries Counts(std::initializer_list<std::tuple<std::string_view, std::string_view, int64_t>> in) {
  Entries out;
  for (const auto& [k, v, n] : in) {
    out.emplace_back(TopologyMap::Pack(api::Symbol(k), api::Symbol(v)), n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The counts PreFilter wrote, as (key, value) -> count entries.
struct Snapshot {
  Entries existing_anti, affinity, anti;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

Snapshot Read(const framework::CycleState& state) {
  const auto* s = state.Read<PreFilterState>(InterPodAffinity::kPreFilterStateKey);
  if (s == nullptr) return {};
  return {s->existing_anti_affinity_counts.Entries(), s->affinity_counts.Entries(),
          s->anti_affinity_counts.Entries()};
}

TEST(PreFilterStateAddRemovePod, UpstreamCases) {
  const std::initializer_list<std::pair<std::string_view, std::string_view>> label1 = {
      {"region", "r1"}, {"zone", "z11"}};
  const api::PodAffinityTerm foo_bar_region = In("foo", "region", {"bar"});
  const api::PodAffinityTerm foo_bar_buzz_region = In("foo", "region", {"bar", "buzz"});
  const api::PodAffinityTerm service_not_in_zone =
      NotIn("service", "zone", {"bar", "security", "test"});
  const std::vector<api::Node> nodes = {Node("nodeA", label1),
                                        Node("nodeB", {{"region", "r1"}, {"zone", "z12"}}),
                                        Node("nodeC", {{"region", "r2"}, {"zone", "z21"}})};
  auto pending = [] { return MakePod().Name("pending").Label("foo", "bar"); };
  const api::Pod p1 = MakePod().Name("p1").Label("foo", "bar").NodeName("nodeA").Obj();

  struct Case {
    std::string name;
    api::Pod pending_pod;
    std::vector<api::Pod> existing;
    api::Pod added;
    Entries want_anti;
    Entries want_affinity;
  };
  const std::vector<Case> cases = {
      {"preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
       AffinityPod(pending()).AntiAffinity(foo_bar_region),
       {p1, AffinityPod(MakePod().Name("p2").NodeName("nodeC")).AntiAffinity(foo_bar_region)},
       AffinityPod(MakePod().Name("addedPod").Label("foo", "bar").NodeName("nodeB"))
           .AntiAffinity(foo_bar_region),
       Counts({{"region", "r1", 2}}),
       {}},
      {"preFilterState anti-affinity terms are updated correctly after adding and removing a pod "
       "(several terms)",
       AffinityPod(pending()).AntiAffinity(foo_bar_buzz_region).AntiAffinity(service_not_in_zone),
       {p1, AffinityPod(MakePod().Name("p2").NodeName("nodeC")).AntiAffinity(foo_bar_region)},
       AffinityPod(MakePod().Name("addedPod").Label("foo", "bar").NodeName("nodeA"))
           .AntiAffinity(foo_bar_buzz_region)
           .AntiAffinity(service_not_in_zone),
       Counts({{"region", "r1", 2}, {"zone", "z11", 2}, {"zone", "z21", 1}}),
       {}},
      {"preFilterState matching pod affinity and anti-affinity are updated correctly after adding "
       "and removing a pod",
       AffinityPod(pending()).Affinity(foo_bar_buzz_region).Affinity(service_not_in_zone),
       {p1, AffinityPod(MakePod().Name("p2").NodeName("nodeC"))
                .AntiAffinity(foo_bar_region)
                .Affinity(foo_bar_buzz_region)
                .Affinity(service_not_in_zone)},
       AffinityPod(MakePod().Name("addedPod").Label("foo", "bar").NodeName("nodeA"))
           .AntiAffinity(foo_bar_buzz_region)
           .AntiAffinity(service_not_in_zone),
       {},
       Counts({{"region", "r1", 2}, {"zone", "z11", 2}})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const framework::PodInfoPtr pending_info = framework::PodInfo::Make(c.pending_pod);
    auto pre_filter = [&](test::Cluster& cluster, framework::CycleState& state) {
      InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
      framework::PreFilterResult result;
      EXPECT_TRUE(plugin.PreFilter(state, *pending_info, cluster.fake.snapshot().List(), &result)
                      .IsSuccess());
    };
    // The state of a cluster that already has the added pod.
    std::vector<api::Pod> all = c.existing;
    all.push_back(c.added);
    test::Cluster with_added(nodes, all);
    framework::CycleState all_state;
    pre_filter(with_added, all_state);

    test::Cluster cluster(nodes, c.existing);
    framework::CycleState state;
    pre_filter(cluster, state);
    const Snapshot original = Read(state);
    InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
    const framework::NodeInfo& node = cluster.NodeInfo(c.added.spec.node_name.str());
    const framework::PodInfoPtr added = framework::PodInfo::Make(c.added);
    ASSERT_TRUE(plugin.AddPod(state, *pending_info, *added, node).IsSuccess());
    EXPECT_EQ(Read(state).anti, c.want_anti);
    EXPECT_EQ(Read(state).affinity, c.want_affinity);
    EXPECT_EQ(Read(state), Read(all_state));
    ASSERT_TRUE(plugin.RemovePod(state, *pending_info, *added, node).IsSuccess());
    EXPECT_EQ(Read(state), original);
  }
}

TEST(PreFilterStateClone, CloneIsIndependent) {
  PreFilterState source;
  source.existing_anti_affinity_counts.Add(api::Symbol("name"), api::Symbol("node1"), 1, true);
  source.affinity_counts.Add(api::Symbol("name"), api::Symbol("nodeC"), 2, true);
  source.anti_affinity_counts.Add(api::Symbol("name"), api::Symbol("nodeN"), 3, true);
  std::unique_ptr<framework::StateData> clone = source.Clone();
  auto* copy = static_cast<PreFilterState*>(clone.get());
  EXPECT_EQ(copy->existing_anti_affinity_counts, source.existing_anti_affinity_counts);
  EXPECT_EQ(copy->affinity_counts, source.affinity_counts);
  EXPECT_EQ(copy->anti_affinity_counts, source.anti_affinity_counts);
  copy->affinity_counts.Add(api::Symbol("name"), api::Symbol("nodeC"), -2, true);
  EXPECT_TRUE(copy->affinity_counts.empty());
  EXPECT_EQ(source.affinity_counts.Get(api::Symbol("name"), api::Symbol("nodeC")), 2);
}

// Upstream TestGetTPMapMatchingIncomingAffinityAntiAffinity, read through PreFilter's state.
TEST(IncomingAffinityAntiAffinityCounts, UpstreamCases) {
  auto normal = [](std::initializer_list<std::string_view> labels) {
    testing::PodBuilder b = MakePod().Name("normal").NodeName("nodeA");
    for (std::string_view l : labels) b.Label(l, "");
    return b.Obj();
  };
  const api::Node node_a = Node("nodeA", {{"hostname", "nodeA"}});
  const Entries one = Counts({{"hostname", "nodeA", 1}});
  struct Case {
    std::string name;
    std::vector<api::Pod> existing;
    api::Pod pod;
    Entries want_affinity;
    Entries want_anti;
  };
  const std::vector<Case> cases = {
      {"nil test", {}, MakePod().Name("aaa-normal").Obj(), {}, {}},
      {"incoming pod without affinity/anti-affinity causes a no-op",
       {normal({"aaa"})},
       MakePod().Name("aaa-normal").Obj(),
       {},
       {}},
      {"no pod has label that violates incoming pod's affinity and anti-affinity",
       {normal({"bbb"})},
       AffinityPod(MakePod().Name("aaa-anti"))
           .Affinity(Exists("aaa", "hostname"))
           .AntiAffinity(Exists("aaa", "hostname")),
       {},
       {}},
      {"existing pod matches incoming pod's affinity and anti-affinity - single term case",
       {normal({"aaa"})},
       AffinityPod(MakePod().Name("affi-antiaffi"))
           .Affinity(Exists("aaa", "hostname"))
           .AntiAffinity(Exists("aaa", "hostname")),
       one,
       one},
      {"existing pod matches incoming pod's affinity and anti-affinity - multiple terms case",
       {normal({"aaa", "bbb"})},
       AffinityPod(MakePod().Name("affi-antiaffi"))
           .Affinity(Exists("aaa", "hostname"))
           .Affinity(Exists("bbb", "hostname"))
           .AntiAffinity(Exists("aaa", "hostname")),
       Counts({{"hostname", "nodeA", 2}}),
       one},
      {"existing pod not match incoming pod's affinity but matches anti-affinity",
       {normal({"aaa"})},
       AffinityPod(MakePod().Name("affi-antiaffi"))
           .Affinity(Exists("aaa", "hostname"))
           .Affinity(Exists("bbb", "hostname"))
           .AntiAffinity(Exists("aaa", "hostname"))
           .AntiAffinity(Exists("bbb", "hostname")),
       {},
       one},
      {"incoming pod's anti-affinity has more than one term - existing pod violates partial term "
       "- case 1",
       {normal({"aaa", "bbb"})},
       AffinityPod(MakePod().Name("anaffi-antiaffiti"))
           .Affinity(Exists("aaa", "hostname"))
           .Affinity(Exists("ccc", "hostname"))
           .AntiAffinity(Exists("aaa", "hostname"))
           .AntiAffinity(Exists("ccc", "hostname")),
       {},
       one},
      {"incoming pod's anti-affinity has more than one term - existing pod violates partial term "
       "- case 2",
       {normal({"bbb"})},
       AffinityPod(MakePod().Name("affi-antiaffi"))
           .Affinity(Exists("aaa", "hostname"))
           .Affinity(Exists("bbb", "hostname"))
           .AntiAffinity(Exists("aaa", "hostname"))
           .AntiAffinity(Exists("bbb", "hostname")),
       {},
       one},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    test::Cluster cluster({node_a}, c.existing);
    InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
    framework::CycleState state;
    framework::PreFilterResult result;
    plugin.PreFilter(state, *framework::PodInfo::Make(c.pod), cluster.fake.snapshot().List(),
                     &result);
    EXPECT_EQ(Read(state).affinity, c.want_affinity);
    EXPECT_EQ(Read(state).anti, c.want_anti);
  }
}

// matchLabelKeys/mismatchLabelKeys take the values from the incoming pod's labels, as the API
// server merges them into the selector when the pod is created.
TEST(MatchLabelKeys, MergedFromTheOwnersLabels) {
  const api::Node node_a = Node("nodeA", {{"zone", "z1"}});
  const api::Node node_b = Node("nodeB", {{"zone", "z2"}});
  const std::vector<api::Pod> pods = {
      MakePod().Name("v1").Label("app", "web").Label("version", "v1").NodeName("nodeA").Obj(),
      MakePod().Name("v2").Label("app", "web").Label("version", "v2").NodeName("nodeB").Obj()};
  api::PodAffinityTerm same_version = In("app", "zone", {"web"});
  same_version.match_label_keys.emplace_back("version");
  api::PodAffinityTerm other_version = In("app", "zone", {"web"});
  other_version.mismatch_label_keys.emplace_back("version");
  auto v2 = [] { return MakePod().Name("incoming").Label("app", "web").Label("version", "v2"); };

  test::Cluster cluster({node_a, node_b}, pods);
  // Affinity to the same version: only nodeB's zone.
  FilterRun run =
      RunFilters(cluster, AffinityPod(v2()).Affinity(same_version), {"nodeA", "nodeB"}, false);
  EXPECT_EQ(run.filters, (std::vector<Status>{kAffinityFails, {}}));
  // Anti-affinity to other versions: away from nodeA's zone only.
  run =
      RunFilters(cluster, AffinityPod(v2()).AntiAffinity(other_version), {"nodeA", "nodeB"}, false);
  EXPECT_EQ(run.filters, (std::vector<Status>{kAntiAffinityFails, {}}));
  // A key the incoming pod lacks is ignored.
  run = RunFilters(
      cluster, AffinityPod(MakePod().Name("incoming").Label("app", "web")).Affinity(same_version),
      {"nodeA", "nodeB"}, false);
  EXPECT_EQ(run.filters, (std::vector<Status>{{}, {}}));
}

// Per-node counts are remembered between cycles: pods bound in between must count in the next
// one, and another namespace or another term must not reuse what was counted.
TEST(CountsBetweenCycles, FollowThePodsAndTheTerms) {
  test::Cluster cluster({Node("nodeA", {{"zone", "z1"}}), Node("nodeB", {{"zone", "z2"}})},
                        {MakePod().Name("web1").Label("app", "web").NodeName("nodeA").Obj()});
  auto incoming = [] { return MakePod().Name("incoming").Label("app", "web"); };
  const std::vector<std::string> both = {"nodeA", "nodeB"};
  FilterRun run = RunFilters(cluster, AffinityPod(incoming()).Affinity(In("app", "zone", {"web"})),
                             both, false);
  EXPECT_EQ(run.filters, (std::vector<Status>{{}, kAffinityFails}));

  cluster.fake.AddPod(MakePod().Name("web2").Label("app", "web").NodeName("nodeB").Obj());
  run = RunFilters(cluster, AffinityPod(incoming()).Affinity(In("app", "zone", {"web"})), both,
                   false);
  EXPECT_EQ(run.filters, (std::vector<Status>{{}, {}}));
  run = RunFilters(cluster, AffinityPod(incoming()).AntiAffinity(In("app", "zone", {"web"})), both,
                   false);
  EXPECT_EQ(run.filters, (std::vector<Status>{kAntiAffinityFails, kAntiAffinityFails}));
  run =
      RunFilters(cluster, AffinityPod(incoming()).Affinity(In("app", "zone", {"db"})), both, false);
  EXPECT_EQ(run.filters, (std::vector<Status>{kAffinityFails, kAffinityFails}));
  // The same term from another namespace selects none of these pods.
  run = RunFilters(cluster,
                   AffinityPod(MakePod().Name("other").Namespace("elsewhere").Label("app", "db"))
                       .Affinity(In("app", "zone", {"web"})),
                   both, false);
  EXPECT_EQ(run.filters, (std::vector<Status>{kAffinityFails, kAffinityFails}));
}

// Nominated pods run through AddPod: a pod with anti-affinity nominated to a node blocks it.
TEST(AddPod, NominatedPodWithAntiAffinityBlocksTheIncomingPod) {
  test::Cluster cluster({Node("nodeA", {{"zone", "z1"}}), Node("nodeB", {{"zone", "z2"}})}, {});
  InterPodAffinity plugin(InterPodAffinityArgs{1, false}, cluster.fake.handle());
  // A required term that selects nothing keeps PreFilter from skipping.
  const framework::PodInfoPtr incoming =
      framework::PodInfo::Make(AffinityPod(MakePod().Name("incoming").Label("app", "db"))
                                   .AntiAffinity(In("app", "zone", {"none"})));
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(
      plugin.PreFilter(state, *incoming, cluster.fake.snapshot().List(), &result).IsSuccess());
  const framework::PodInfoPtr nominated = framework::PodInfo::Make(
      AffinityPod(MakePod().Name("n").NodeName("nodeA")).AntiAffinity(In("app", "zone", {"db"})));
  std::unique_ptr<framework::CycleState> what_if = state.Clone();
  ASSERT_TRUE(
      plugin.AddPod(*what_if, *incoming, *nominated, cluster.NodeInfo("nodeA")).IsSuccess());
  EXPECT_EQ(plugin.Filter(*what_if, *incoming, cluster.NodeInfo("nodeA")),
            kExistingAntiAffinityFails);
  // The original state is untouched by the clone's update.
  EXPECT_EQ(plugin.Filter(state, *incoming, cluster.NodeInfo("nodeA")), Status());
}

// Enough nodes for PreFilter to spread its per-node pass over worker threads.
TEST(ManyNodes, ParallelCountsMatchTheSequentialRule) {
  std::vector<api::Node> nodes;
  std::vector<api::Pod> pods;
  for (int i = 0; i < 300; ++i) {
    const std::string name = "n" + std::to_string(i);
    const std::string zone = "z" + std::to_string(i % 10);
    nodes.push_back(Node(name, {{"zone", zone}, {"hostname", name}}));
    if (i % 10 == 3)
      pods.push_back(MakePod().Name("web" + name).Label("app", "web").NodeName(name).Obj());
    if (i == 7) {
      pods.push_back(AffinityPod(MakePod().Name("guard").NodeName(name))
                         .AntiAffinity(In("app", "zone", {"web"})));
    }
  }
  test::Cluster cluster(nodes, pods);
  std::vector<std::string> names;
  for (const api::Node& n : nodes) names.push_back(n.metadata.name);
  const FilterRun run = RunFilters(cluster,
                                   AffinityPod(MakePod().Name("incoming").Label("app", "web"))
                                       .Affinity(In("app", "zone", {"web"})),
                                   names, false);
  ASSERT_TRUE(run.pre_filter.IsSuccess());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(run.filters[i], i % 10 == 3 ? Status() : kAffinityFails) << names[i];
  }
  // The guard's anti-affinity keeps a web pod out of zone z7 even where affinity is not asked.
  const FilterRun plain =
      RunFilters(cluster, MakePod().Name("incoming").Label("app", "web").Obj(), names, false);
  ASSERT_TRUE(plain.pre_filter.IsSuccess());
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(plain.filters[i], i % 10 == 7 ? kExistingAntiAffinityFails : Status()) << names[i];
  }
}

}  // namespace
}  // namespace muster::plugins::interpodaffinity
