// Randomized workloads under the invariant checker: each seed's cluster and workload
// (sim/testing/random_workload.h) is simulated with --check, and must end without a broken
// invariant and without the run's safeguard firing. Seeds 1-2000 run in `make test`, in four
// shards; MUSTER_RANDOM_SEEDS=FIRST-LAST runs another range (`make soak` runs many more).
//
// A failing seed writes its manifests and configuration to a folder and prints the command that
// replays it exactly (the folder can also become a scenario under tests/scenarios).

#include "muster/sim/testing/random_workload.h"

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "muster/sim/simulation.h"
#include "simulate_text.h"

namespace {

namespace fs = std::filesystem;
constexpr int kShards = 4;
// Every run stops at this virtual time. The generated timings are all under two minutes, but a
// workload may churn for ever as a real cluster would: a high-priority pod preempts a pod, its
// ReplicaSet replaces it, the replacement lands beside the preemptor's node and turns its spread
// constraint against it again, and so on (a Job's pods would stop past its backoffLimit).
constexpr muster::api::Duration kUntil = std::chrono::hours(1);

struct SeedRange {
  uint64_t first = 1;
  uint64_t last = 2000;
};

// MUSTER_RANDOM_SEEDS=FIRST-LAST (or one seed), else seeds 1-2000. A value that is no range, or
// an empty one (FIRST above LAST), is an error: a typo in `make soak`'s SOAK_SEEDS must not pass
// by running no seed.
std::optional<SeedRange> Seeds(std::string* error) {
  SeedRange range;
  const char* env = std::getenv("MUSTER_RANDOM_SEEDS");
  if (env == nullptr) return range;
  const std::string text = env;
  const size_t dash = text.find('-');
  auto number = [](std::string_view digits, uint64_t* out) {
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out);
    return !digits.empty() && ec == std::errc() && end == digits.data() + digits.size();
  };
  const std::string_view all(text);
  const bool ok = dash == std::string::npos ? number(all, &range.first)
                                            : number(all.substr(0, dash), &range.first) &&
                                                  number(all.substr(dash + 1), &range.last);
  if (dash == std::string::npos) range.last = range.first;
  if (!ok || range.first > range.last) {
    *error = fmt::format(
        "MUSTER_RANDOM_SEEDS=\"{}\": want FIRST-LAST (FIRST at most LAST) or "
        "one seed",
        text);
    return std::nullopt;
  }
  return range;
}

std::unique_ptr<muster::sim::Simulation> Simulate(uint64_t seed,
                                                  const muster::testing::RandomWorkload& w,
                                                  std::string* error) {
  auto sim = muster::testing::SimulateText(
      w.manifests, fmt::format("seed-{}.yaml", seed), w.config,
      muster::sim::SimulationOptions{.until = kUntil, .seed = seed, .check = true}, error);
  if (sim == nullptr) *error = "the generator wrote " + *error;
  return sim;
}

// Writes the seed's files and returns how to replay it.
std::string Replay(uint64_t seed, const muster::testing::RandomWorkload& w) {
  const fs::path dir = fs::temp_directory_path() / "muster-random" / fmt::format("seed-{}", seed);
  fs::create_directories(dir);
  std::ofstream(dir / "workload.yaml") << w.manifests;
  std::ofstream(dir / "config.yaml") << w.config;
  return fmt::format(
      "seed {} ({}); its manifests are in {}\n"
      "replay: muster simulate --check --until 1h --seed {} -f {} --config {}\n"
      "    or: MUSTER_RANDOM_SEEDS={} build/test/muster_tests --gtest_filter='*RandomWorkload.*'",
      seed, w.description, dir.string(), seed, (dir / "workload.yaml").string(),
      (dir / "config.yaml").string(), seed);
}

class RandomWorkload : public ::testing::TestWithParam<int> {};

TEST_P(RandomWorkload, KeepsEveryInvariant) {
  std::string range_error;
  const std::optional<SeedRange> seeds = Seeds(&range_error);
  ASSERT_TRUE(seeds.has_value()) << range_error;
  const SeedRange range = *seeds;
  int failures = 0;
  uint64_t ran = 0;
  for (uint64_t seed = range.first; seed <= range.last && failures < 3; ++seed) {
    if (static_cast<int>(seed % kShards) != GetParam()) continue;
    ++ran;
    const muster::testing::RandomWorkload w = muster::testing::MakeRandomWorkload(seed);
    // MUSTER_RANDOM_WRITE=1: every seed's files are written, failing or not.
    if (std::getenv("MUSTER_RANDOM_WRITE") != nullptr) std::cerr << Replay(seed, w) << "\n";
    std::string error;
    std::unique_ptr<muster::sim::Simulation> sim = Simulate(seed, w, &error);
    if (sim != nullptr) {
      sim->Run();
      if (const auto v = sim->violation()) {
        error = "invariant violated " + v->String();
      } else {
        // A warning is a failure (the scheduler going round in circles), except the one that
        // says PodGroups meet a profile without a gang plugin, which some workloads mean to.
        for (const std::string& w : sim->warnings()) {
          if (w.find("no profile enables a gang plugin") == std::string::npos) {
            error = w;
            break;
          }
        }
      }
    }
    if (!error.empty()) {
      ADD_FAILURE() << error << "\n" << Replay(seed, w);
      ++failures;
    }
  }
  // What this shard ran (ctest -V shows it; a shard may hold no seed of a short range).
  std::cout << fmt::format("shard {} of {}: {} seed(s) of {}-{}\n", GetParam(), kShards, ran,
                           range.first, range.last);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomWorkload, ::testing::Range(0, kShards));

// The workloads exercise what the checker guards: across the first seeds, pods bind and pods
// wait, preemption evicts, gangs bind whole and gangs wait, nodes leave, pods bind on claims the
// controllers bound for them.
TEST(RandomWorkloadCoverage, TheSeedsExerciseTheScheduler) {
  int bound = 0, pending = 0, preempted = 0, groups_placed = 0, groups_waiting = 0;
  int nodes_removed = 0, bound_with_claims = 0, claims_bound = 0;
  for (uint64_t seed = 1; seed <= 120; ++seed) {
    const muster::testing::RandomWorkload w = muster::testing::MakeRandomWorkload(seed);
    std::string error;
    auto sim = Simulate(seed, w, &error);
    ASSERT_NE(sim, nullptr) << error;
    sim->Run();
    for (const auto& [key, pod] : sim->cluster().pods()) {
      (pod->spec.node_name.empty() ? pending : bound)++;
      if (!pod->spec.node_name.empty() && !pod->spec.volumes.empty()) ++bound_with_claims;
    }
    for (const auto& [key, claim] : sim->cluster().Objects<muster::api::PersistentVolumeClaim>()) {
      if (claim->FullyBound()) ++claims_bound;
    }
    for (const auto& e : sim->cluster().events()) {
      if (e.record.reason == "Preempted") ++preempted;
    }
    for (const auto& [key, group_ptr] : sim->cluster().Objects<muster::api::PodGroup>()) {
      const muster::api::PodGroup& group = *group_ptr;
      (group.status.scheduled >= group.spec.min_member ? groups_placed : groups_waiting)++;
    }
    size_t at = 0;
    const std::string node_delete = "kind: Node";
    while ((at = w.manifests.find(node_delete, at)) != std::string::npos) {
      const size_t end = w.manifests.find("---", at);
      if (w.manifests.substr(at, end - at).find("delete-after") != std::string::npos) {
        ++nodes_removed;
      }
      at = end;
    }
  }
  EXPECT_GT(bound, 500);
  EXPECT_GT(pending, 100);
  EXPECT_GT(preempted, 5);
  EXPECT_GT(groups_placed, 20);
  EXPECT_GT(groups_waiting, 10);
  EXPECT_GT(nodes_removed, 10);
  EXPECT_GT(bound_with_claims, 20);
  EXPECT_GT(claims_bound, 20);
}

}  // namespace
