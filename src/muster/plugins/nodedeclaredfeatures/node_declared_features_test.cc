#include "muster/plugins/nodedeclaredfeatures/node_declared_features.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/manifests.h"
#include "muster/api/node_features.h"
#include "muster/api/testing/builders.h"

// After upstream's nodedeclaredfeatures_test.go (1.37): the features a pod needs against those
// a node declares, and the inference of component-helpers' nodedeclaredfeatures registry.

namespace muster::plugins::nodedeclaredfeatures {
namespace {

using api::BitOf;
using api::NodeFeature;
using framework::Code;
using framework::QueueingHint;
using framework::Status;
using testing::MakeNode;
using testing::MakePod;

constexpr api::NodeFeatureSet kRestartAll =
    BitOf(NodeFeature::kRestartAllContainersOnContainerExits);
constexpr api::NodeFeatureSet kHostNetworkUserNs =
    BitOf(NodeFeature::kUserNamespacesHostNetworkSupport);
constexpr api::NodeFeatureSet kBindMountOptions = BitOf(NodeFeature::kVolumeBindMountOptions);

api::Pod PodNeeding(api::NodeFeatureSet features, std::string_view uid = "p1") {
  api::Pod pod = MakePod().Name("p").Obj();
  pod.metadata.uid = std::string(uid);
  pod.spec.required_node_features = features;
  return pod;
}

api::Node NodeDeclaring(api::NodeFeatureSet features) {
  api::Node node = MakeNode().Name("n").Obj();
  node.status.declared_features = features;
  return node;
}

template <typename T>
T Decode(const std::string& yaml, const std::string& version = "v1") {
  std::vector<std::string> errors;
  std::optional<T> out = api::DecodeAs<T>(YAML::Load(yaml), version, "test", &errors);
  EXPECT_TRUE(errors.empty()) << ::testing::PrintToString(errors) << "\n" << yaml;
  return out ? *out : T{};
}

TEST(NodeDeclaredFeatures, InfersWhatThePodNeeds) {
  struct Case {
    std::string name;
    std::string spec;
    api::NodeFeatureSet want;
  };
  // Each spec in flow style.
  const std::vector<Case> cases = {
      {"nothing", "{containers: [{name: c}]}", 0},
      {"a rule restarting every container",
       "{containers: [{name: c, restartPolicy: Never, restartPolicyRules: [{action: "
       "RestartAllContainers, exitCodes: {operator: In, values: [1]}}]}]}",
       kRestartAll},
      {"an init container's rule",
       "{initContainers: [{name: i, restartPolicy: Never, restartPolicyRules: [{action: "
       "RestartAllContainers, exitCodes: {operator: In, values: [1]}}]}], containers: [{name: c}]}",
       kRestartAll},
      {"another action",
       "{containers: [{name: c, restartPolicy: Never, restartPolicyRules: [{action: Restart, "
       "exitCodes: {operator: NotIn, values: [0]}}]}]}",
       0},
      {"the host network with user namespaces",
       "{hostNetwork: true, hostUsers: false, containers: [{name: c}]}", kHostNetworkUserNs},
      {"the host network with host users",
       "{hostNetwork: true, hostUsers: true, containers: [{name: c}]}", 0},
      {"user namespaces without the host network", "{hostUsers: false, containers: [{name: c}]}",
       0},
      {"the host network, hostUsers unset", "{hostNetwork: true, containers: [{name: c}]}", 0},
      {"bind mount options",
       "{containers: [{name: c, volumeMounts: [{name: v, mountPath: /v, bindMountOptions: "
       "[noexec]}]}], volumes: [{name: v, emptyDir: {}}]}",
       kBindMountOptions},
      {"an ephemeral container's bind mount options",
       "{containers: [{name: c}], ephemeralContainers: [{name: e, volumeMounts: [{name: v, "
       "mountPath: /v, bindMountOptions: [ro]}]}], volumes: [{name: v, emptyDir: {}}]}",
       kBindMountOptions},
      {"empty bind mount options",
       "{containers: [{name: c, volumeMounts: [{name: v, mountPath: /v, bindMountOptions: []}]}],"
       " volumes: [{name: v, emptyDir: {}}]}",
       0},
  };
  for (const Case& c : cases) {
    const api::Pod pod = Decode<api::Pod>("metadata: {name: p}\nspec: " + c.spec);
    EXPECT_EQ(pod.spec.required_node_features, c.want) << c.name;
  }
}

TEST(NodeDeclaredFeatures, ReadsWhatTheNodeDeclares) {
  const api::Node node = Decode<api::Node>(
      "metadata: {name: n1}\n"
      "status: {declaredFeatures: [UserNamespacesHostNetworkSupport, SomethingNewer, "
      "VolumeBindMountOptions]}");
  EXPECT_EQ(node.status.declared_features, kHostNetworkUserNs | kBindMountOptions)
      << "names muster does not know are dropped, as upstream's TryMap drops them";
  EXPECT_EQ(api::NodeFeatureNames(node.status.declared_features),
            "UserNamespacesHostNetworkSupport, VolumeBindMountOptions");
}

TEST(NodeDeclaredFeatures, PreFilterSkipsAPodThatNeedsNothing) {
  NodeDeclaredFeatures plugin;
  framework::CycleState state;
  framework::PreFilterResult result;
  EXPECT_EQ(plugin.PreFilter(state, *framework::PodInfo::Make(PodNeeding(0)), {}, &result).code(),
            Code::kSkip);
  EXPECT_TRUE(
      plugin.PreFilter(state, *framework::PodInfo::Make(PodNeeding(kRestartAll)), {}, &result)
          .IsSuccess());
}

TEST(NodeDeclaredFeatures, FilterWantsEveryFeature) {
  struct Case {
    std::string name;
    api::NodeFeatureSet needs;
    api::NodeFeatureSet declares;
    bool fits;
  };
  const std::vector<Case> cases = {
      {"needs nothing", 0, 0, true},
      {"declared", kRestartAll, kRestartAll, true},
      {"declared among others", kRestartAll, kRestartAll | kBindMountOptions, true},
      {"not declared", kRestartAll, 0, false},
      {"another declared", kRestartAll, kHostNetworkUserNs, false},
      {"one of two declared", kRestartAll | kBindMountOptions, kRestartAll, false},
      {"both declared", kRestartAll | kBindMountOptions, kRestartAll | kBindMountOptions, true},
  };
  NodeDeclaredFeatures plugin;
  framework::CycleState state;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const framework::NodeInfo node(std::make_shared<api::Node>(NodeDeclaring(c.declares)));
    const Status s = plugin.Filter(state, *framework::PodInfo::Make(PodNeeding(c.needs)), node);
    if (c.fits) {
      EXPECT_TRUE(s.IsSuccess()) << s.Message();
    } else {
      EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
      EXPECT_EQ(s.Message(), "node(s) didn't match Pod's required features");
    }
  }
}

TEST(NodeDeclaredFeatures, Hints) {
  NodeDeclaredFeatures plugin;
  const api::Pod pod = PodNeeding(kRestartAll);
  const api::Node none = NodeDeclaring(0);
  const api::Node has = NodeDeclaring(kRestartAll);
  const api::Node other = NodeDeclaring(kBindMountOptions);
  auto node_event = [&](const api::Node* old_node, const api::Node* new_node) {
    framework::EventObjects e;
    e.old_node = old_node;
    e.new_node = new_node;
    return plugin.IsSchedulableAfterNodeChange(pod, e, nullptr);
  };
  EXPECT_EQ(node_event(nullptr, &has), QueueingHint::kQueue) << "a node added with the feature";
  EXPECT_EQ(node_event(nullptr, &none), QueueingHint::kSkip) << "a node added without it";
  EXPECT_EQ(node_event(&none, &has), QueueingHint::kQueue) << "a node declaring it now";
  EXPECT_EQ(node_event(&none, &other), QueueingHint::kSkip) << "declaring another";
  EXPECT_EQ(node_event(&has, &has), QueueingHint::kSkip) << "no change";

  auto pod_event = [&](const api::Pod& old_pod, const api::Pod& new_pod) {
    framework::EventObjects e;
    e.old_pod = &old_pod;
    e.new_pod = &new_pod;
    return plugin.IsSchedulableAfterPodUpdate(pod, e, nullptr);
  };
  EXPECT_EQ(pod_event(pod, PodNeeding(0)), QueueingHint::kQueue);
  EXPECT_EQ(pod_event(pod, pod), QueueingHint::kSkip);
  EXPECT_EQ(pod_event(PodNeeding(kRestartAll, "p2"), PodNeeding(0, "p2")), QueueingHint::kSkip)
      << "another pod's update";
}

}  // namespace
}  // namespace muster::plugins::nodedeclaredfeatures
