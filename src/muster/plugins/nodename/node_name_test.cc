#include "muster/plugins/nodename/node_name.h"

#include <memory>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

// Cases from upstream node_name_test.go (TestNodeName).

namespace muster::plugins::nodename {
namespace {

using framework::Status;
using testing::MakeNode;
using testing::MakePod;

TEST(NodeNameFilter, UpstreamCases) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Node node;
    Status want;
  };
  const std::vector<Case> cases = {
      {"no host specified", MakePod().Obj(), api::Node{}, Status()},
      {"host matches", MakePod().NodeName("foo").Obj(), MakeNode().Name("foo").Obj(), Status()},
      {"host doesn't match", MakePod().NodeName("bar").Obj(), MakeNode().Name("foo").Obj(),
       Status(framework::Code::kUnschedulableAndUnresolvable,
              "node(s) didn't match the requested node name")},
  };
  NodeName plugin;
  framework::CycleState state;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const framework::NodeInfo node(std::make_shared<api::Node>(c.node));
    EXPECT_EQ(plugin.Filter(state, *framework::PodInfo::Make(c.pod), node), c.want);
  }
}

TEST(NodeNameEvents, NodeAddsAndUpdatesWithoutHint) {
  const std::vector<framework::ClusterEventWithHint> events = NodeName().EventsToRegister();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.actions,
            framework::kAdd | framework::kUpdateNodeTaint | framework::kUpdateNodeLabel);
  EXPECT_FALSE(static_cast<bool>(events[0].hint));
}

}  // namespace
}  // namespace muster::plugins::nodename
