#pragma once

#include <string_view>

namespace muster::cli {

// The built-in demo of `muster simulate` without -f: seed 000's coscheduling demo, a cluster with
// room for three nginx pods and a ReplicaSet of six in a PodGroup of minMember 3 (the same
// manifests as examples/coscheduling).
extern const std::string_view kDemoManifests;
// The seed's KubeSchedulerConfiguration that enables Coscheduling
// (examples/config/coscheduling.yaml).
extern const std::string_view kDemoConfig;
inline constexpr std::string_view kDemoName = "<built-in demo>";

}  // namespace muster::cli
