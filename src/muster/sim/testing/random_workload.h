#pragma once

// Seeded random clusters and workloads for the invariant checker (tests/random_workload_test.cc
// and `make soak`): a seed gives the same manifests and configuration every time, as text that
// `muster simulate` reads, so a failing seed can be written out and replayed.
//
// What a seed draws: nodes of random shapes (cpu, memory, pods, a GPU resource), labels, zones
// and taints, some joining late and some removed; priority classes; pods with requests,
// node selectors and affinity, pod affinity and anti-affinity, topology spread, host ports,
// tolerations, priorities, scheduling gates, arrival, run and deletion times; PodGroups of such
// pods (minMember, minResources, a group created after its pods or deleted); a Job; and the
// scheduler configuration: Coscheduling in Group or PerPod mode, or the default profile.

#include <cstdint>
#include <string>
#include <string_view>

namespace muster::testing {

struct RandomWorkload {
  std::string manifests;    // YAML documents
  std::string config;       // a KubeSchedulerConfiguration
  std::string description;  // "Group mode, 5 nodes, 23 pods, 3 PodGroups"
};

RandomWorkload MakeRandomWorkload(uint64_t seed);

// A KubeSchedulerConfiguration whose one profile adds Coscheduling, also as the queue sort, with
// `args` (the contents of a flow mapping: "mode: Group, permitWaitingTimeSeconds: 5").
std::string CoschedulingConfig(std::string_view args);

}  // namespace muster::testing
