#include "muster/plugins/podtopologyspread/pod_topology_spread.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/podtopologyspread/test_helpers.h"

// Cases from upstream plugin_test.go (Test_isSchedulableAfterNodeChange,
// Test_isSchedulableAfterPodChange), plus the registrations of EventsToRegister and the factory.

namespace muster::plugins::podtopologyspread {
namespace {

using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;
using testutil::Bar;
using testutil::Foo;
using testutil::kDoNotSchedule;
using testutil::kHonor;
using testutil::kIgnore;
using testutil::MakeNode;
using testutil::TestPod;

constexpr QueueingHint kQueue = QueueingHint::kQueue;
constexpr QueueingHint kSkip = QueueingHint::kSkip;

std::unique_ptr<PodTopologySpread> ListPlugin(testing::FakeServices& fake) {
  std::string error;
  auto plugin = PodTopologySpread::Create(testutil::ListArgs(), fake.handle(), &error);
  EXPECT_NE(plugin, nullptr) << error;
  return plugin;
}

TEST(PodTopologySpreadEvents, NodeChangeHint) {
  const api::Pod zone_pod = TestPod("p").Spread(1, "zone", kDoNotSchedule, Foo());
  const api::Pod zone_node_pod = TestPod("p")
                                     .Spread(1, "zone", kDoNotSchedule, Foo())
                                     .Spread(1, "node", kDoNotSchedule, Foo());
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Node> old_node;
    std::optional<api::Node> new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"node updates label which matches topologyKey", zone_pod,
       MakeNode("node-a").Label("zone", "zone1").Obj(),
       MakeNode("node-a").Label("zone", "zone2").Obj(), kQueue},
      {"node that doesn't match topologySpreadConstraints updates non-related label", zone_pod,
       MakeNode("node-a").Label("foo", "bar1").Obj(), MakeNode("node-a").Label("foo", "bar2").Obj(),
       kSkip},
      {"node that match topologySpreadConstraints adds non-related label", zone_node_pod,
       MakeNode("node-a").Label("zone", "zone1").Label("node", "node1").Label("foo", "bar").Obj(),
       MakeNode("node-a").Label("zone", "zone1").Label("node", "node1").Obj(), kSkip},
      {"create node with non-related labels", zone_pod, std::nullopt,
       MakeNode("node-a").Label("foo", "bar").Obj(), kSkip},
      {"create node with related labels", zone_pod, std::nullopt,
       MakeNode("node-a").Label("zone", "zone1").Obj(), kQueue},
      {"delete node with non-related labels", zone_pod,
       MakeNode("node-a").Label("foo", "bar").Obj(), std::nullopt, kSkip},
      {"delete node with related labels", zone_pod, MakeNode("node-a").Label("zone", "zone1").Obj(),
       std::nullopt, kQueue},
      {"add node with related labels that only match one of topologySpreadConstraints",
       zone_node_pod, std::nullopt, MakeNode("node-a").Label("zone", "zone1").Obj(), kSkip},
      {"add node with related labels that match all topologySpreadConstraints", zone_node_pod,
       std::nullopt, MakeNode("node-a").Label("zone", "zone1").Label("node", "node1").Obj(),
       kQueue},
      {"update node with related labels that only match one of topologySpreadConstraints",
       zone_node_pod, MakeNode("node-a").Label("zone", "zone1").Obj(),
       MakeNode("node-a").Label("zone", "zone1").Obj(), kSkip},
      {"update node with related labels that match all topologySpreadConstraints", zone_node_pod,
       MakeNode("node-a").Label("zone", "zone1").Label("node", "node1").Obj(),
       MakeNode("node-a").Label("zone", "zone1").Label("node", "node2").Obj(), kQueue},
      {"update node with different taints that match all topologySpreadConstraints", zone_node_pod,
       MakeNode("node-a")
           .Label("zone", "zone1")
           .Label("node", "node1")
           .Taint("aaa", "bbb", api::TaintEffect::kNoSchedule)
           .Obj(),
       MakeNode("node-a")
           .Label("zone", "zone1")
           .Label("node", "node1")
           .Taint("ccc", "bbb", api::TaintEffect::kNoSchedule)
           .Obj(),
       kQueue},
      {"update node with different taints that only match one of topologySpreadConstraints",
       zone_node_pod,
       MakeNode("node-a")
           .Label("node", "node1")
           .Taint("aaa", "bbb", api::TaintEffect::kNoSchedule)
           .Obj(),
       MakeNode("node-a")
           .Label("node", "node1")
           .Taint("ccc", "bbb", api::TaintEffect::kNoSchedule)
           .Obj(),
       kSkip},
  };
  testing::FakeServices fake;
  auto plugin = ListPlugin(fake);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EventObjects e;
    if (c.old_node) e.old_node = &*c.old_node;
    if (c.new_node) e.new_node = &*c.new_node;
    Status error;
    EXPECT_EQ(plugin->IsSchedulableAfterNodeChange(c.pod, e, &error), c.want);
    EXPECT_TRUE(error.IsSuccess()) << ToString(error);
  }
}

TEST(PodTopologySpreadEvents, PodChangeHint) {
  const api::Pod foo_pod = TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo());
  const api::Pod foo_bar_pod = TestPod("p")
                                   .Label("foo", "")
                                   .Spread(1, "zone", kDoNotSchedule, Foo())
                                   .Spread(1, "node", kDoNotSchedule, Bar());
  struct Case {
    std::string name;
    api::Pod pod;
    std::optional<api::Pod> old_pod;
    std::optional<api::Pod> new_pod;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"add pod with labels match topologySpreadConstraints selector", foo_pod, std::nullopt,
       TestPod("p2").Node("fake-node").Label("foo", "").Obj(), kQueue},
      {"add un-scheduled pod", foo_pod, std::nullopt, TestPod("p2").Label("foo", "").Obj(), kSkip},
      {"update un-scheduled pod", foo_pod, TestPod("p2").Label("bar", "").Obj(),
       TestPod("p2").Label("foo", "").Obj(), kSkip},
      {"delete un-scheduled pod", foo_pod, TestPod("p2").Label("foo", "").Obj(), std::nullopt,
       kSkip},
      {"add pod with different namespace", foo_pod, std::nullopt,
       TestPod("p2").Node("fake-node").Namespace("fake-namespace").Label("foo", "").Obj(), kSkip},
      {"add pod with labels don't match topologySpreadConstraints selector", foo_pod, std::nullopt,
       TestPod("p2").Node("fake-node").Label("bar", "").Obj(), kSkip},
      {"delete pod with labels that match topologySpreadConstraints selector", foo_pod,
       TestPod("p2").Node("fake-node").Label("foo", "").Obj(), std::nullopt, kQueue},
      {"delete pod with labels that don't match topologySpreadConstraints selector", foo_pod,
       TestPod("p2").Node("fake-node").Label("bar", "").Obj(), std::nullopt, kSkip},
      {"update pod's non-related label", foo_pod,
       TestPod("p2").Node("fake-node").Label("foo", "").Label("bar", "bar1").Obj(),
       TestPod("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(), kSkip},
      {"add pod's label that matches topologySpreadConstraints selector", foo_pod,
       TestPod("p2").Node("fake-node").Obj(),
       TestPod("p2").Node("fake-node").Label("foo", "").Obj(), kQueue},
      {"delete pod label that matches topologySpreadConstraints selector", foo_pod,
       TestPod("p2").Node("fake-node").Label("foo", "").Obj(),
       TestPod("p2").Node("fake-node").Obj(), kQueue},
      {"change pod's label that matches topologySpreadConstraints selector", foo_pod,
       TestPod("p2").Node("fake-node").Label("foo", "foo1").Obj(),
       TestPod("p2").Node("fake-node").Label("foo", "foo2").Obj(), kSkip},
      {"change pod's label that doesn't match topologySpreadConstraints selector", foo_pod,
       TestPod("p2").Node("fake-node").Label("foo", "").Label("bar", "bar1").Obj(),
       TestPod("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(), kSkip},
      {"add pod's label that matches topologySpreadConstraints selector with multi "
       "topologySpreadConstraints",
       foo_bar_pod, TestPod("p2").Node("fake-node").Label("foo", "").Obj(),
       TestPod("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(), kQueue},
      {"change pod's label that doesn't match topologySpreadConstraints selector with multi "
       "topologySpreadConstraints",
       foo_bar_pod, TestPod("p2").Node("fake-node").Label("foo", "").Obj(),
       TestPod("p2").Node("fake-node").Label("foo", "").Label("baz", "").Obj(), kSkip},
      {"change pod's label that match topologySpreadConstraints selector with multi "
       "topologySpreadConstraints",
       foo_bar_pod, TestPod("p2").Node("fake-node").Label("foo", "").Label("bar", "").Obj(),
       TestPod("p2").Node("fake-node").Label("foo", "").Label("bar", "bar2").Obj(), kSkip},
      {"the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and has "
       "got a new toleration",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo(), std::nullopt, std::nullopt, kHonor)
           .Spread(1, "node", kDoNotSchedule, Bar()),
       TestPod("p").Label("foo", "").Obj(),
       TestPod("p").Label("foo", "").Toleration(testutil::kUnschedulableTaint).Obj(), kQueue},
      {"the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor and has "
       "got a new toleration",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo(), std::nullopt, std::nullopt, kIgnore)
           .Spread(1, "node", kDoNotSchedule, Bar()),
       TestPod("p").Label("foo", "").Obj(),
       TestPod("p").Label("foo", "").Toleration(testutil::kUnschedulableTaint).Obj(), kSkip},
      {"the unschedulable Pod has topologySpreadConstraint and has got a new label matching the "
       "selector of the constraint",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo(), std::nullopt, std::nullopt, kIgnore)
           .Spread(1, "node", kDoNotSchedule, Bar()),
       TestPod("p").Obj(), TestPod("p").Label("foo", "").Obj(), kQueue},
      {"the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label",
       TestPod("p")
           .Label("foo", "")
           .Spread(1, "zone", kDoNotSchedule, Foo(), std::nullopt, std::nullopt, kIgnore)
           .Spread(1, "node", kDoNotSchedule, Bar()),
       TestPod("p").Obj(), TestPod("p").Label("unrelated", "").Obj(), kSkip},
  };
  testing::FakeServices fake;
  auto plugin = ListPlugin(fake);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EventObjects e;
    if (c.old_pod) e.old_pod = &*c.old_pod;
    if (c.new_pod) e.new_pod = &*c.new_pod;
    Status error;
    EXPECT_EQ(plugin->IsSchedulableAfterPodChange(c.pod, e, &error), c.want);
    EXPECT_TRUE(error.IsSuccess()) << ToString(error);
  }
}

TEST(PodTopologySpreadEvents, Registrations) {
  testing::FakeServices fake;
  auto plugin = ListPlugin(fake);
  const std::vector<framework::ClusterEventWithHint> events = plugin->EventsToRegister();
  ASSERT_EQ(events.size(), 3u);
  constexpr uint32_t kPodActions = framework::kAdd | framework::kUpdatePodLabel |
                                   framework::kUpdatePodToleration | framework::kDelete;
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kAssignedPod);
  EXPECT_EQ(events[0].event.actions, kPodActions);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[1].event.actions, kPodActions);
  EXPECT_EQ(events[2].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[2].event.actions, framework::kAdd | framework::kDelete |
                                         framework::kUpdateNodeLabel | framework::kUpdateNodeTaint);
  for (const auto& e : events) EXPECT_TRUE(static_cast<bool>(e.hint));

  // The hints are wired to this plugin.
  const api::Pod pod = TestPod("p").Label("foo", "").Spread(1, "zone", kDoNotSchedule, Foo());
  const api::Pod added = TestPod("q").Node("n").Label("foo", "");
  EventObjects e;
  e.new_pod = &added;
  Status error;
  EXPECT_EQ(events[0].hint(pod, e, &error), kQueue);
}

TEST(PodTopologySpreadFactory, NewDecodesArgs) {
  testing::FakeServices fake;
  std::string error;
  auto plugin =
      PodTopologySpread::New(framework::PluginArgs{YAML::Node(), "args"}, fake.handle(), &error);
  ASSERT_NE(plugin, nullptr) << error;
  EXPECT_EQ(plugin->Name(), "PodTopologySpread");

  error.clear();
  EXPECT_EQ(
      PodTopologySpread::New(framework::PluginArgs{YAML::Load("defaultingType: Nope"), "args"},
                             fake.handle(), &error),
      nullptr);
  EXPECT_EQ(error,
            "args.defaultingType: Unsupported value: \"Nope\": supported values: \"System\", "
            "\"List\"");
}

TEST(PodTopologySpreadFactory, SystemDefaultsSpreadControllerPodsOnly) {
  testing::FakeServices fake;
  std::string error;
  auto plugin = PodTopologySpread::Create(testutil::SystemArgs(), fake.handle(), &error);
  ASSERT_NE(plugin, nullptr) << error;
  std::vector<Constraint> got;
  ASSERT_TRUE(
      plugin->GetConstraints(TestPod("p").Label("app", "web").Owner("rs", "apps/v1", "ReplicaSet"),
                             api::UnsatisfiableConstraintAction::kScheduleAnyway, &got, &error));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].topology_key.str(), testutil::kHostname);
  EXPECT_EQ(got[0].max_skew, 3);
  EXPECT_EQ(got[1].topology_key.str(), testutil::kZone);
  EXPECT_EQ(got[1].max_skew, 5);
  EXPECT_TRUE(got[0].self_match);

  got.clear();
  ASSERT_TRUE(plugin->GetConstraints(TestPod("p").Label("app", "web"),
                                     api::UnsatisfiableConstraintAction::kScheduleAnyway, &got,
                                     &error));
  EXPECT_TRUE(got.empty());
  // A Deployment's pods are owned by a ReplicaSet; a Job's are not spread by default.
  ASSERT_TRUE(plugin->GetConstraints(TestPod("p").Label("app", "web").Owner("j", "batch/v1", "Job"),
                                     api::UnsatisfiableConstraintAction::kScheduleAnyway, &got,
                                     &error));
  EXPECT_TRUE(got.empty());
}

}  // namespace
}  // namespace muster::plugins::podtopologyspread
