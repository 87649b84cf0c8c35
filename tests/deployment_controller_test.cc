// The simulation's Deployment controller, on what simulate's output does not show: the
// ReplicaSet it makes is an object of its own, which its pods name as their controller.

#include <string>

#include <gtest/gtest.h>

#include "simulate_text.h"

namespace muster {
namespace {

// A Deployment read from a live cluster carries a uid; its ReplicaSet must not share it.
TEST(DeploymentControllerTest, ItsReplicaSetHasAUidOfItsOwn) {
  const std::string manifests =
      "apiVersion: v1\n"
      "kind: Node\n"
      "metadata: {name: n1}\n"
      "status: {capacity: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n"
      "---\n"
      "apiVersion: apps/v1\n"
      "kind: Deployment\n"
      "metadata: {name: web, namespace: shop, uid: deployment-uid}\n"
      "spec:\n"
      "  replicas: 2\n"
      "  selector: {matchLabels: {app: web}}\n"
      "  template:\n"
      "    metadata: {labels: {app: web}}\n"
      "    spec:\n"
      "      containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]\n";
  std::string error;
  auto simulation = testing::SimulateText(
      manifests, "all.yaml",
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n", {}, &error);
  ASSERT_NE(simulation, nullptr) << error;
  simulation->Run();
  int owned = 0;
  for (const auto& [key, pod] : simulation->cluster().pods()) {
    SCOPED_TRACE(key);
    const api::OwnerReference* owner = pod->metadata.ControllerRef();
    ASSERT_NE(owner, nullptr);
    EXPECT_EQ(owner->kind, "ReplicaSet");
    EXPECT_TRUE(owner->name.starts_with("web-"));
    EXPECT_FALSE(owner->uid.empty());
    EXPECT_NE(owner->uid, "deployment-uid");
    ++owned;
  }
  EXPECT_EQ(owned, 2);
}

}  // namespace
}  // namespace muster
