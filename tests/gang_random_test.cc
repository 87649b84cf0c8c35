// Randomized gang workloads, in both Coscheduling modes: for many seeds, a small random cluster
// (nodes of random sizes, some joining late, some tainted) and random gangs of every gang API
// (sizes, minCount, requests, gated members, members arriving late, nodeSelectors, replica
// keys, topology constraints) are simulated, and three things must hold whatever the seed:
//   - no gang is ever bound below its minCount: the members bound when the gang's first pod
//     was bound (they bind at one virtual instant) are at least minCount, and no other
//     member of it binds before;
//   - a gang with a topology constraint is bound in one domain;
//   - no node is overcommitted: on every node, the bound pods' requests fit its allocatable,
//     CPU and pod count.
// Nothing is deleted and nothing finishes, so the end state holds every binding ever made.
// A failure names the seed and the mode; with GANG_RANDOM_TRACE=1 in the environment each
// seed's manifests are printed on stderr before it runs, ready for `muster simulate`.

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "muster/api/feature_gates.h"
#include "muster/api/gang.h"
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

// Some gangs are drawn with a topology constraint: the alpha gate that honours it is on.
muster::api::FeatureGates TopologyGates() {
  muster::api::FeatureGates gates;
  gates.Set(muster::api::Feature::kTopologyAwareWorkloadScheduling, true);
  return gates;
}

// The seed's cluster and workload as YAML, and what each gang promises.
struct Drawn {
  std::string yaml;
  // Gang (api::GangOf's name) -> its minCount; gangs kept in one domain of the label "disk".
  std::map<std::string, int> min_count;
  std::set<std::string> one_disk;
};

// Each group draws one of the gang APIs: scheduler-plugins' PodGroup (its label), Kubernetes
// 1.35's Workload (spec.workloadRef, sometimes in two replica keys), 1.36's and 1.37's PodGroup
// (spec.schedulingGroup, sometimes with a topology constraint on the nodes' "disk" label).
Drawn Manifests(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Drawn drawn;
  std::ostringstream out;
  const int nodes = pick(1, 6);
  for (int n = 0; n < nodes; ++n) {
    out << fmt::format(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{}\n  labels: {{disk: {}}}\n", n,
        pick(0, 1) ? "ssd" : "hdd");
    if (n > 0 && pick(0, 4) == 0) {
      out << fmt::format("  annotations: {{muster.dev/create-after: {}s}}\n", pick(1, 30));
    }
    out << fmt::format(
        "spec:\n  taints: {}\n",
        pick(0, 5) == 0 ? "[{key: dedicated, value: infra, effect: NoSchedule}]" : "[]");
    out << fmt::format("status: {{capacity: {{cpu: \"{}\", memory: 64Gi, pods: \"{}\"}}}}\n---\n",
                       pick(2, 8), pick(3, 20));
  }
  const int groups = pick(1, 5);
  for (int g = 0; g < groups; ++g) {
    const int size = pick(1, 8);
    const int min_member = pick(1, size);
    const int api = pick(0, 3);
    const bool replicas = api == 1 && size >= 2 && pick(0, 1) == 0;
    const bool topology = api >= 2 && pick(0, 2) == 0;
    // How a member joins, by its index.
    std::function<std::string(int)> join;
    if (api == 0) {
      out << fmt::format(
          "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {{name: g{}}}\n"
          "spec: {{minMember: {}}}\n---\n",
          g, min_member);
      drawn.min_count[fmt::format("g{}", g)] = min_member;
      join = [g](int) {
        return fmt::format("  labels: {{scheduling.x-k8s.io/pod-group: g{}}}\n", g);
      };
    } else if (api == 1) {
      const int min_count = replicas ? std::max(1, min_member / 2) : min_member;
      out << fmt::format(
          "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {{name: w{}}}\n"
          "spec: {{podGroups: [{{name: workers, policy: {{gang: {{minCount: {}}}}}}}]}}\n---\n",
          g, min_count);
      for (int r = 0; r < (replicas ? 2 : 1); ++r) {
        drawn.min_count[fmt::format("w{}/workers{}", g, replicas ? fmt::format("/{}", r) : "")] =
            min_count;
      }
      join = [g, replicas](int m) {
        return "spec:\n" +
               fmt::format("  workloadRef: {{name: w{}, podGroup: workers{}}}\n", g,
                           replicas ? fmt::format(", podGroupReplicaKey: \"{}\"", m % 2) : "");
      };
    } else {
      out << fmt::format(
          "apiVersion: scheduling.k8s.io/{}\nkind: PodGroup\nmetadata: {{name: p{}}}\n"
          "spec:\n  schedulingPolicy: {{gang: {{minCount: {}}}}}\n{}---\n",
          api == 2 ? "v1alpha2" : "v1beta1", g, min_member,
          topology ? "  schedulingConstraints: {topology: [{key: disk}]}\n" : "");
      drawn.min_count[fmt::format("p{}", g)] = min_member;
      if (topology) drawn.one_disk.insert(fmt::format("p{}", g));
      join = [g](int) {
        return fmt::format("spec:\n  schedulingGroup: {{podGroupName: p{}}}\n", g);
      };
    }
    const int cpu = pick(1, 3);
    const bool selector = pick(0, 3) == 0;
    for (int m = 0; m < size; ++m) {
      out << fmt::format("apiVersion: v1\nkind: Pod\nmetadata:\n  name: g{}-{}\n", g, m);
      std::string spec = join(m);
      // The label goes in metadata; the others open the spec.
      if (api == 0) out << spec;
      std::string annotations;
      const bool gated = pick(0, 9) == 0;
      if (gated) annotations += fmt::format("muster.dev/ungate-after: {}s, ", pick(1, 20));
      if (pick(0, 9) == 0)
        annotations += fmt::format("muster.dev/create-after: {}s, ", pick(1, 20));
      if (!annotations.empty()) {
        out << "  annotations: {" << annotations.substr(0, annotations.size() - 2) << "}\n";
      }
      out << (api == 0 ? "spec:\n" : spec);
      if (gated) out << "  schedulingGates: [{name: example.com/wait}]\n";
      if (selector) out << "  nodeSelector: {disk: ssd}\n";
      out << fmt::format(
          "  containers: [{{name: c, image: i, resources: {{requests: {{cpu: \"{}\"}}}}}}]\n---\n",
          cpu);
    }
  }
  drawn.yaml = out.str();
  return drawn;
}

void Check(uint64_t seed, const std::string& mode) {
  SCOPED_TRACE(fmt::format("seed {} mode {}", seed, mode));
  const Drawn drawn = Manifests(seed);
  if (std::getenv("GANG_RANDOM_TRACE") != nullptr) {
    std::cerr << "seed " << seed << " " << mode << "\n" << drawn.yaml;
  }
  std::string error;
  const muster::api::ScopedFeatures topology(TopologyGates());
  std::unique_ptr<muster::sim::Simulation> sim = muster::testing::SimulateText(
      drawn.yaml, "-", Config(mode), muster::sim::SimulationOptions{.seed = seed, .check = true},
      &error);
  ASSERT_NE(sim, nullptr) << error;
  sim->Run();
  ASSERT_FALSE(sim->violation()) << sim->violation()->String();

  const muster::cluster::MemoryCluster& c = sim->cluster();
  // Per node: requested CPU (milli) and pods.
  std::map<std::string, std::pair<int64_t, int64_t>> used;
  // Per gang: the bind times of its members, and the disks they are on.
  std::map<std::string, std::vector<muster::api::Duration>> bound;
  std::map<std::string, std::set<std::string>> disks;
  for (const auto& [key, pod] : c.pods()) {
    if (pod->spec.node_name.empty()) continue;
    auto& [cpu, count] = used[pod->spec.node_name.string()];
    cpu += muster::api::PodRequests(*pod).milli_cpu;
    ++count;
    const auto record = sim->records().find(key);
    ASSERT_NE(record, sim->records().end()) << key;
    ASSERT_TRUE(record->second.scheduled_at.has_value()) << key;
    const std::string gang = muster::api::GangOf(*pod).name.string();
    bound[gang].push_back(*record->second.scheduled_at);
    const muster::api::Node* node =
        c.Objects<muster::api::Node>().at(pod->spec.node_name.string()).get();
    disks[gang].insert(node->metadata.labels.Get(muster::api::Symbol("disk"))->string());
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
  for (const auto& [gang, min_count] : drawn.min_count) {
    auto it = bound.find(gang);
    if (it == bound.end()) continue;
    const auto first = *std::min_element(it->second.begin(), it->second.end());
    const auto together = std::count(it->second.begin(), it->second.end(), first);
    EXPECT_GE(together, min_count)
        << "gang " << gang << " bound " << together << " at first, below its minCount";
    if (drawn.one_disk.contains(gang)) {
      EXPECT_EQ(disks[gang].size(), 1u) << "gang " << gang << " spans two domains of disk";
    }
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
  std::set<std::string> apis;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::string error;
    const Drawn drawn = Manifests(seed);
    const muster::api::ScopedFeatures topology(TopologyGates());
    auto sim = muster::testing::SimulateText(drawn.yaml, "-", Config("Group"),
                                             muster::sim::SimulationOptions{.seed = seed}, &error);
    ASSERT_NE(sim, nullptr) << error;
    sim->Run();
    std::map<std::string, int> bound;
    for (const auto& [key, pod] : sim->cluster().pods()) {
      if (!pod->spec.node_name.empty()) ++bound[muster::api::GangOf(*pod).name.string()];
    }
    for (const auto& [gang, min_count] : drawn.min_count) {
      (bound[gang] >= min_count ? placed : waiting)++;
      apis.insert(gang.substr(0, 1));
    }
  }
  EXPECT_GT(placed, 10);
  EXPECT_GT(waiting, 10);
  EXPECT_EQ(apis.size(), 3u) << "scheduler-plugins' (g), the Workload's (w), the PodGroup's (p)";
}

}  // namespace
