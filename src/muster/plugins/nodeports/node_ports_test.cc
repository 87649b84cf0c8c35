#include "muster/plugins/nodeports/node_ports.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

// Cases from upstream node_ports_test.go (TestNodePorts, TestPreFilterDisabled,
// Test_isSchedulableAfterPodDeleted) and util's TestGetHostPorts (sidecar ports count).

namespace muster::plugins::nodeports {
namespace {

using api::Protocol;
using framework::Code;
using framework::QueueingHint;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;

struct Port {
  Protocol protocol;
  std::string ip;
  int32_t port;
};

// upstream newPod(host, "PROTO/ip/port"...): one container with these host ports.
api::Pod NewPod(std::string_view node, const std::vector<Port>& ports) {
  testing::PodBuilder b = MakePod().Name("p").NodeName(node);
  for (const Port& p : ports) b.HostPort(p.port, p.protocol, p.ip);
  return b.Obj();
}

framework::NodeInfo NodeWithPods(const std::vector<api::Pod>& pods) {
  framework::NodeInfo info(std::make_shared<api::Node>(MakeNode().Name("m1").Obj()));
  for (const api::Pod& p : pods) info.AddPod(framework::PodInfo::Make(p));
  return info;
}

TEST(NodePortsFilter, UpstreamCases) {
  const Status conflict = Status::Unschedulable(std::string(kErrReason));
  constexpr auto kTCP = Protocol::kTCP;
  constexpr auto kUDP = Protocol::kUDP;
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::Pod> existing;
    Status want;
  };
  const std::vector<Case> cases = {
      {"other port",
       NewPod("m1", {{kUDP, "127.0.0.1", 8080}}),
       {NewPod("m1", {{kUDP, "127.0.0.1", 9090}})},
       Status()},
      {"same udp port",
       NewPod("m1", {{kUDP, "127.0.0.1", 8080}}),
       {NewPod("m1", {{kUDP, "127.0.0.1", 8080}})},
       conflict},
      {"same tcp port",
       NewPod("m1", {{kTCP, "127.0.0.1", 8080}}),
       {NewPod("m1", {{kTCP, "127.0.0.1", 8080}})},
       conflict},
      {"different host ip",
       NewPod("m1", {{kTCP, "127.0.0.1", 8080}}),
       {NewPod("m1", {{kTCP, "127.0.0.2", 8080}})},
       Status()},
      {"different protocol",
       NewPod("m1", {{kUDP, "127.0.0.1", 8080}}),
       {NewPod("m1", {{kTCP, "127.0.0.1", 8080}})},
       Status()},
      {"second udp port conflict",
       NewPod("m1", {{kUDP, "127.0.0.1", 8000}, {kUDP, "127.0.0.1", 8080}}),
       {NewPod("m1", {{kUDP, "127.0.0.1", 8080}})},
       conflict},
      {"first tcp port conflict",
       NewPod("m1", {{kTCP, "127.0.0.1", 8001}, {kUDP, "127.0.0.1", 8080}}),
       {NewPod("m1", {{kTCP, "127.0.0.1", 8001}, {kUDP, "127.0.0.1", 8081}})},
       conflict},
      {"first tcp port conflict due to 0.0.0.0 hostIP",
       NewPod("m1", {{kTCP, "0.0.0.0", 8001}}),
       {NewPod("m1", {{kTCP, "127.0.0.1", 8001}})},
       conflict},
      {"TCP hostPort conflict due to 0.0.0.0 hostIP",
       NewPod("m1", {{kTCP, "10.0.10.10", 8001}, {kTCP, "0.0.0.0", 8001}}),
       {NewPod("m1", {{kTCP, "127.0.0.1", 8001}})},
       conflict},
      {"second tcp port conflict to 0.0.0.0 hostIP",
       NewPod("m1", {{kTCP, "127.0.0.1", 8001}}),
       {NewPod("m1", {{kTCP, "0.0.0.0", 8001}})},
       conflict},
      {"second different protocol",
       NewPod("m1", {{kUDP, "127.0.0.1", 8001}}),
       {NewPod("m1", {{kTCP, "0.0.0.0", 8001}})},
       Status()},
      {"UDP hostPort conflict due to 0.0.0.0 hostIP",
       NewPod("m1", {{kUDP, "127.0.0.1", 8001}}),
       {NewPod("m1", {{kTCP, "0.0.0.0", 8001}, {kUDP, "0.0.0.0", 8001}})},
       conflict},
      // Not upstream's table: an empty host IP is 0.0.0.0.
      {"empty hostIP conflicts with any address",
       NewPod("m1", {{kTCP, "", 8001}}),
       {NewPod("m1", {{kTCP, "10.0.0.1", 8001}})},
       conflict},
  };
  NodePorts plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const framework::PodInfoPtr pod = framework::PodInfo::Make(c.pod);
    framework::CycleState state;
    framework::PreFilterResult result;
    ASSERT_TRUE(plugin.PreFilter(state, *pod, {}, &result).IsSuccess());
    EXPECT_TRUE(result.AllNodes());
    const Status got = plugin.Filter(state, *pod, NodeWithPods(c.existing));
    EXPECT_EQ(got, c.want) << framework::ToString(got);
  }
}

TEST(NodePortsPreFilter, SkipsPodsWithoutHostPorts) {
  NodePorts plugin;
  framework::CycleState state;
  framework::PreFilterResult result;
  api::Pod pod = MakePod().Name("p").Req({}).Obj();
  // A container port that is not exposed on the host does not count.
  pod.spec.containers[0].ports.push_back(api::ContainerPort{"http", 8080, 0, Protocol::kTCP, {}});
  EXPECT_EQ(plugin.PreFilter(state, *framework::PodInfo::Make(pod), {}, &result).code(),
            Code::kSkip);
  EXPECT_EQ(state.Read(NodePorts::kPreFilterStateKey), nullptr);
}

TEST(NodePortsFilter, WithoutPreFilterIsAnError) {
  NodePorts plugin;
  framework::CycleState state;
  const Status got = plugin.Filter(state, *framework::PodInfo::Make(api::Pod{}), NodeWithPods({}));
  EXPECT_EQ(got.code(), Code::kError);
  EXPECT_EQ(got.Message(), "reading \"PreFilterNodePorts\" from cycleState: not found");
}

TEST(NodePortsHostPorts, SidecarsCountOrdinaryInitContainersDoNot) {
  api::Pod pod = MakePod().Name("p").HostPort(8001).Obj();
  pod.spec.init_containers.resize(2);
  pod.spec.init_containers[0].ports.push_back(
      api::ContainerPort{"", 9001, 9001, Protocol::kTCP, {}});
  pod.spec.init_containers[1].restart_policy_always = true;
  pod.spec.init_containers[1].ports.push_back(
      api::ContainerPort{"", 9002, 9002, Protocol::kUDP, {}});
  const std::vector<framework::HostPort> got = HostPortsOf(pod);
  const std::vector<framework::HostPort> want = {{api::Symbol(), Protocol::kUDP, 9002},
                                                 {api::Symbol(), Protocol::kTCP, 8001}};
  EXPECT_EQ(got, want);
}

TEST(NodePortsEvents, PodDeletedHint) {
  const api::Pod target = MakePod().Name("target").HostPort(8080).Obj();
  const api::Pod unscheduled = MakePod().Name("x").Obj();
  const api::Pod no_host_port = MakePod().Name("x").NodeName("fake-node").Obj();
  const api::Pod unrelated = MakePod().Name("x").NodeName("fake-node").HostPort(8081).Obj();
  const api::Pod released = MakePod().Name("x").NodeName("fake-node").HostPort(8080).Obj();
  api::Pod nominated = MakePod().Name("x").HostPort(8080).Obj();
  nominated.status.nominated_node_name = api::Symbol("fake-node");
  struct Case {
    std::string name;
    const api::Pod* deleted;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"skip-queue-on-unscheduled", &unscheduled, QueueingHint::kSkip},
      {"skip-queue-on-non-hostport", &no_host_port, QueueingHint::kSkip},
      {"skip-queue-on-unrelated-hostport", &unrelated, QueueingHint::kSkip},
      {"queue-on-released-hostport", &released, QueueingHint::kQueue},
      {"queue-on-nominated-pod-with-the-port", &nominated, QueueingHint::kQueue},
  };
  NodePorts plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    framework::EventObjects e;
    e.old_pod = c.deleted;
    Status error;
    EXPECT_EQ(plugin.IsSchedulableAfterPodDeleted(target, e, &error), c.want);
    EXPECT_TRUE(error.IsSuccess());
  }
  Status error;
  EXPECT_EQ(plugin.IsSchedulableAfterPodDeleted(target, {}, &error), QueueingHint::kQueue);
  EXPECT_TRUE(error.IsError());
}

TEST(NodePortsEvents, Registered) {
  const std::vector<framework::ClusterEventWithHint> events = NodePorts().EventsToRegister();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kAssignedPod);
  EXPECT_EQ(events[0].event.actions, framework::kDelete);
  EXPECT_TRUE(static_cast<bool>(events[0].hint));
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[1].event.actions, framework::kDelete);
  EXPECT_TRUE(static_cast<bool>(events[1].hint));
  EXPECT_EQ(events[2].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[2].event.actions, framework::kAdd);
  EXPECT_FALSE(static_cast<bool>(events[2].hint));
}

}  // namespace
}  // namespace muster::plugins::nodeports
