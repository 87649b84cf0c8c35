// Randomized gang workloads, in both Coscheduling modes: for many seeds, a small random cluster
// (nodes of random sizes, some joining late, some tainted) and random PodGroups (sizes, minMember,
// requests, gated members, members arriving late, nodeSelectors) are simulated, and two things
// must hold whatever the seed:
//   - no group is ever bound below its minMember: the members bound when the group's first pod
//     was bound (they bind at one virtual instant) are at least minMember, and no other
//     member of it binds before;
//   - no node is overcommitted: on every node, the bound pods' requests fit its allocatable,
//     CPU and pod count.
// Nothing is deleted and nothing finishes, so the end state holds every binding ever made.
// A failure names the seed and the mode; with GANG_RANDOM_TRACE=1 in the environment each
// seed's manifests are printed on stderr before it runs, ready for `muster simulate`.

#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "muster/api/pod_resources.h"
#include "muster/sim/simulation.h"
#include "muster/sim/testing/random_workload.h"
#include "simulate_text.h"

namespace {

constexpr int kSeeds = 150;

std::string Config(const std::string& mode) {
  return muster::testing::CoschedulingConfig(
      fmt::format("mode: {}, permitWaitingTimeSeconds: 5", mode));
}

// The seed's cluster and workload as YAML.
std::string Manifests(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::ostringstream out;
  const int nodes = pick(1, 6);
  for (int n = 0; n < nodes; ++n) {
    out << fmt::format(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{}\n  labels: {{disk: {}}}\n", n,
        pick(0, 1) ? "ssd" : "hdd");
    if (n > 0 && pick(0, 4) == 0) {
      out << fmt::format("  annotations: {{muster.dev/create-after: {}s}}\n", pick(1, 30));
    }
    out << fmt::format("spec:\n  taints: {}\n", pick(0, 5) == 0
                                                    ? "[{key: dedicated, value: infra, effect: NoSchedule}]"
                                                    : "[]");
    out << fmt::format("status: {{capacity: {{cpu: \"{}\", memory: 64Gi, pods: \"{}\"}}}}\n---\n",
                       pick(2, 8), pick(3, 20));
  }
  const int groups = pick(1, 5);
  for (int g = 0; g < groups; ++g) {
    const int size = pick(1, 8);
    const int min_member = pick(1, size);
    out << fmt::format(
        "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {{name: g{}}}\n"
        "spec: {{minMember: {}}}\n---\n",
        g, min_member);
    const int cpu = pick(1, 3);
    const bool selector = pick(0, 3) == 0;
    for (int m = 0; m < size; ++m) {
      out << fmt::format(
          "apiVersion: v1\nkind: Pod\nmetadata:\n  name: g{}-{}\n"
          "  labels: {{scheduling.x-k8s.io/pod-group: g{}}}\n",
          g, m, g);
      std::string annotations;
      const bool gated = pick(0, 9) == 0;
      if (gated) annotations += fmt::format("muster.dev/ungate-after: {}s, ", pick(1, 20));
      if (pick(0, 9) == 0) annotations += fmt::format("muster.dev/create-after: {}s, ", pick(1, 20));
      if (!annotations.empty()) {
        out << "  annotations: {" << annotations.substr(0, annotations.size() - 2) << "}\n";
      }
      out << "spec:\n";
      if (gated) out << "  schedulingGates: [{name: example.com/wait}]\n";
      if (selector) out << "  nodeSelector: {disk: ssd}\n";
      out << fmt::format(
          "  containers: [{{name: c, image: i, resources: {{requests: {{cpu: \"{}\"}}}}}}]\n---\n",
          cpu);
    }
  }
  return out.str();
}

void Check(uint64_t seed, const std::string& mode) {
  SCOPED_TRACE(fmt::format("seed {} mode {}", seed, mode));
  if (std::getenv("GANG_RANDOM_TRACE") != nullptr) {
    std::cerr << "seed " << seed << " " << mode << "\n" << Manifests(seed);
  }
  std::string error;
  std::unique_ptr<muster::sim::Simulation> sim = muster::testing::SimulateText(
      Manifests(seed), "-", Config(mode),
      muster::sim::SimulationOptions{.seed = seed, .check = true}, &error);
  ASSERT_NE(sim, nullptr) << error;
  sim->Run();
  ASSERT_FALSE(sim->violation()) << sim->violation()->String();

  const muster::cluster::MemoryCluster& c = sim->cluster();
  // Per node: requested CPU (milli) and pods.
  std::map<std::string, std::pair<int64_t, int64_t>> used;
  // Per group: the bind times of its members.
  std::map<std::string, std::vector<muster::api::Duration>> bound;
  for (const auto& [key, pod] : c.pods()) {
    if (pod->spec.node_name.empty()) continue;
    auto& [cpu, count] = used[pod->spec.node_name.string()];
    cpu += muster::api::PodRequests(*pod).milli_cpu;
    ++count;
    const auto record = sim->records().find(key);
    ASSERT_NE(record, sim->records().end()) << key;
    ASSERT_TRUE(record->second.scheduled_at.has_value()) << key;
    bound[muster::api::PodGroupName(*pod).string()].push_back(*record->second.scheduled_at);
  }
  for (const auto& [name, node_ptr] : c.Objects<muster::api::Node>()) {
    const muster::api::Node& node = *node_ptr;
    const muster::api::Resource allocatable =
        muster::api::Resource::FromList(node.status.allocatable);
    auto it = used.find(name);
    if (it == used.end()) continue;
    EXPECT_LE(it->second.first, allocatable.milli_cpu) << "node " << name << " overcommitted";
    EXPECT_LE(it->second.second, allocatable.allowed_pod_number) << "node " << name;
  }
  for (const auto& [key, group_ptr] : c.Objects<muster::api::PodGroup>()) {
    const muster::api::PodGroup& group = *group_ptr;
    auto it = bound.find(group.metadata.name);
    if (it == bound.end()) continue;
    const auto first = *std::min_element(it->second.begin(), it->second.end());
    const auto together = std::count(it->second.begin(), it->second.end(), first);
    EXPECT_GE(together, group.spec.min_member)
        << "group " << key << " bound " << together << " at first, below its minMember";
  }
}

TEST(GangRandom, GroupModeNeverBindsBelowMinMemberNorOvercommits) {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Check(seed, "Group");
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(GangRandom, PerPodModeNeverBindsBelowMinMemberNorOvercommits) {
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    Check(seed, "PerPod");
    if (::testing::Test::HasFailure()) return;
  }
}

// The workloads are not trivial: across the seeds, groups bind and groups wait.
TEST(GangRandom, TheSeedsBothPlaceAndRejectGroups) {
  int placed = 0, waiting = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::string error;
    auto sim = muster::testing::SimulateText(Manifests(seed), "-", Config("Group"),
                                             muster::sim::SimulationOptions{.seed = seed}, &error);
    ASSERT_NE(sim, nullptr) << error;
    sim->Run();
    for (const auto& [key, group_ptr] : sim->cluster().Objects<muster::api::PodGroup>()) {
      const muster::api::PodGroup& group = *group_ptr;
      (group.status.scheduled >= group.spec.min_member ? placed : waiting)++;
    }
  }
  EXPECT_GT(placed, 10);
  EXPECT_GT(waiting, 10);
}

}  // namespace
