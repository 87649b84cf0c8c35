#include "muster/plugins/nodeunschedulable/node_unschedulable.h"

#include <memory>
#include <optional>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

// Cases from upstream node_unschedulable_test.go (TestNodeUnschedulable,
// TestIsSchedulableAfterNodeChange, TestIsSchedulableAfterPodTolerationChange).

namespace muster::plugins::nodeunschedulable {
namespace {

using framework::QueueingHint;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;

// upstream st.MakePod().Toleration(key): Exists with effect NoSchedule.
api::Pod Tolerating(std::string_view uid, std::optional<std::string_view> key) {
  api::Pod pod = MakePod().Obj();
  pod.metadata.uid = std::string(uid);
  if (key) {
    api::Toleration t;
    t.key = api::Symbol(*key);
    t.op = api::TolerationOperator::kExists;
    t.effect = api::TaintEffect::kNoSchedule;
    pod.spec.tolerations.push_back(t);
  }
  return pod;
}

TEST(NodeUnschedulableFilter, UpstreamCases) {
  api::Pod tolerating;
  tolerating.spec.tolerations.push_back(
      api::Toleration{api::Symbol(kTaintNodeUnschedulable), api::TolerationOperator::kEqual,
                      api::Symbol(), api::TaintEffect::kNoSchedule, std::nullopt});
  struct Case {
    std::string name;
    api::Pod pod;
    bool unschedulable;
    Status want;
  };
  const std::vector<Case> cases = {
      {"Does not schedule pod to unschedulable node (node.Spec.Unschedulable==true)", api::Pod{},
       true, Status(framework::Code::kUnschedulableAndUnresolvable, "node(s) were unschedulable")},
      {"Schedule pod to normal node", api::Pod{}, false, Status()},
      {"Schedule pod with toleration to unschedulable node (node.Spec.Unschedulable==true)",
       tolerating, true, Status()},
  };
  NodeUnschedulable plugin;
  framework::CycleState state;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const framework::NodeInfo node(
        std::make_shared<api::Node>(MakeNode().Name("n").Unschedulable(c.unschedulable).Obj()));
    EXPECT_EQ(plugin.Filter(state, *framework::PodInfo::Make(c.pod), node), c.want);
  }
}

TEST(NodeUnschedulableEvents, NodeChangeHint) {
  api::Node unschedulable = MakeNode().Unschedulable().Obj();
  api::Node schedulable = MakeNode().Obj();
  api::Node unschedulable_tainted =
      MakeNode()
          .Unschedulable()
          .Taint("node.kubernetes.io/not-ready", "", api::TaintEffect::kNoExecute)
          .Obj();
  api::Node schedulable_tainted =
      MakeNode().Taint("node.kubernetes.io/not-ready", "", api::TaintEffect::kNoExecute).Obj();
  struct Case {
    std::string name;
    const api::Node* old_node;
    const api::Node* new_node;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"skip-queue-on-unschedulable-node-added", nullptr, &unschedulable, QueueingHint::kSkip},
      {"queue-on-schedulable-node-added", nullptr, &schedulable, QueueingHint::kQueue},
      {"skip-unrelated-change-unschedulable-true", &unschedulable, &unschedulable_tainted,
       QueueingHint::kSkip},
      {"skip-unrelated-change-unschedulable-false", &schedulable, &schedulable_tainted,
       QueueingHint::kSkip},
      {"queue-on-unschedulable-field-change", &unschedulable, &schedulable, QueueingHint::kQueue},
  };
  NodeUnschedulable plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    framework::EventObjects e;
    e.old_node = c.old_node;
    e.new_node = c.new_node;
    Status error;
    EXPECT_EQ(plugin.IsSchedulableAfterNodeChange(api::Pod{}, e, &error), c.want);
    EXPECT_TRUE(error.IsSuccess());
  }
  Status error;
  EXPECT_EQ(plugin.IsSchedulableAfterNodeChange(api::Pod{}, {}, &error), QueueingHint::kQueue);
  EXPECT_TRUE(error.IsError());
}

TEST(NodeUnschedulableEvents, PodTolerationChangeHint) {
  struct Case {
    std::string name;
    api::Pod pod;
    api::Pod old_pod;
    api::Pod new_pod;
    QueueingHint want;
  };
  const std::vector<Case> cases = {
      {"skip-different-pod-update", Tolerating("uid", std::nullopt),
       Tolerating("different-uid", std::nullopt),
       Tolerating("different-uid", kTaintNodeUnschedulable), QueueingHint::kSkip},
      {"queue-when-the-unsched-pod-gets-toleration", Tolerating("uid", std::nullopt),
       Tolerating("uid", std::nullopt), Tolerating("uid", kTaintNodeUnschedulable),
       QueueingHint::kQueue},
      {"skip-when-the-unsched-pod-gets-unrelated-toleration", Tolerating("uid", std::nullopt),
       Tolerating("uid", std::nullopt), Tolerating("uid", "unrelated-key"), QueueingHint::kSkip},
  };
  NodeUnschedulable plugin;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    framework::EventObjects e;
    e.old_pod = &c.old_pod;
    e.new_pod = &c.new_pod;
    EXPECT_EQ(plugin.IsSchedulableAfterPodTolerationChange(c.pod, e, nullptr), c.want);
  }
  Status error;
  EXPECT_EQ(plugin.IsSchedulableAfterPodTolerationChange(api::Pod{}, {}, &error),
            QueueingHint::kQueue);
  EXPECT_TRUE(error.IsError());
}

TEST(NodeUnschedulableEvents, Registered) {
  const std::vector<framework::ClusterEventWithHint> events =
      NodeUnschedulable().EventsToRegister();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event.resource, framework::EventResource::kNode);
  EXPECT_EQ(events[0].event.actions,
            framework::kAdd | framework::kUpdateNodeTaint | framework::kUpdateNodeLabel);
  EXPECT_EQ(events[1].event.resource, framework::EventResource::kPod);
  EXPECT_EQ(events[1].event.actions, framework::kUpdatePodToleration);
  for (const auto& e : events) EXPECT_TRUE(static_cast<bool>(e.hint));
}

}  // namespace
}  // namespace muster::plugins::nodeunschedulable
