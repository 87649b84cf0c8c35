#pragma once

// Node declared features (KEP-5328; the NodeDeclaredFeatures gate is GA and locked on in
// Kubernetes 1.37): a kubelet lists in node.status.declaredFeatures what it supports, and a pod
// whose spec needs one of them goes only to a node that declares it. Upstream's
// component-helpers/nodedeclaredfeatures registry holds more features; these are the ones it
// infers from a pod's spec at scheduling time in 1.37 (the others matter only to updates of a
// running pod). A node's unknown names are dropped, as upstream's TryMap drops them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace muster::api {

enum class NodeFeature : uint8_t {
  // Some container or init container has a restartPolicyRules action RestartAllContainers
  // (1.35).
  kRestartAllContainersOnContainerExits,
  // hostNetwork with hostUsers: false (1.36).
  kUserNamespacesHostNetworkSupport,
  // Some container's volume mount sets bindMountOptions (1.37).
  kVolumeBindMountOptions,
  kCount,
};

// A set of NodeFeatures, one bit each.
using NodeFeatureSet = uint8_t;

constexpr NodeFeatureSet BitOf(NodeFeature f) {
  return static_cast<NodeFeatureSet>(1u << static_cast<unsigned>(f));
}

// The name upstream's registry gives the feature ("RestartAllContainersOnContainerExits").
std::string_view NodeFeatureName(NodeFeature feature);
// The feature of that name; nullopt for a name muster does not know.
std::optional<NodeFeature> ParseNodeFeature(std::string_view name);
// The set's names, sorted as upstream sorts its registry, joined with ", ".
std::string NodeFeatureNames(NodeFeatureSet set);

}  // namespace muster::api
