#include "muster/api/node_features.h"

#include <array>

namespace muster::api {
namespace {

// In NodeFeature's order, which is also upstream's (sorted by name).
constexpr std::array<std::string_view, static_cast<size_t>(NodeFeature::kCount)> kNames = {
    "RestartAllContainersOnContainerExits",
    "UserNamespacesHostNetworkSupport",
    "VolumeBindMountOptions",
};

}  // namespace

std::string_view NodeFeatureName(NodeFeature feature) {
  return kNames[static_cast<size_t>(feature)];
}

std::optional<NodeFeature> ParseNodeFeature(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<NodeFeature>(i);
  }
  return std::nullopt;
}

std::string NodeFeatureNames(NodeFeatureSet set) {
  std::string out;
  for (size_t i = 0; i < kNames.size(); ++i) {
    if ((set & BitOf(static_cast<NodeFeature>(i))) == 0) continue;
    if (!out.empty()) out += ", ";
    out += kNames[i];
  }
  return out;
}

}  // namespace muster::api
