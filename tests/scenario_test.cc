// Data-driven scenarios: each folder under tests/scenarios holds manifests and an expect.yaml.
// The manifests are simulated as `muster simulate -f <folder> -o json` would, and expect.yaml's
// assertions are checked against the SimulationResult:
//
//   args: {seed: 1, until: 30s, config: cfg.yaml,   # optional simulate flags
//          featureGates: "A=true,B=false"}
//   summary: {running: 3, pending: 3}               # these fields of .summary
//   pods:                                           # likewise podGroups, jobs, nodes, events
//   - match: {status: Pending}                      # the elements whose fields equal these
//     count: 3                                      # ...are exactly this many (optional)
//     expect: {reason: Unschedulable}               # ...and each also has these (optional)
//
// Values compare as text, so 3 and "3" are the same; a wanted value ending in "*" is a prefix.
// Every scenario runs with --check: a broken invariant fails it whatever expect.yaml says.

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "muster/api/feature_gates.h"
#include "muster/cli/demo.h"
#include "muster/cli/simulate.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

const fs::path kScenarios = fs::path(MUSTER_SOURCE_DIR) / "tests" / "scenarios";

std::string Text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

// Every field of `want` equals the element's field of that name.
bool Matches(const json& element, const YAML::Node& want, std::string* mismatch = nullptr) {
  for (auto it = want.begin(); it != want.end(); ++it) {
    const std::string key = it->first.Scalar();
    const std::string expected = it->second.Scalar();
    const std::string actual = element.contains(key) ? Text(element[key]) : "<absent>";
    const bool prefix = !expected.empty() && expected.back() == '*';
    const bool equal =
        prefix ? actual.starts_with(expected.substr(0, expected.size() - 1)) : actual == expected;
    if (!equal) {
      if (mismatch) *mismatch = key + ": want \"" + expected + "\", got \"" + actual + "\"";
      return false;
    }
  }
  return true;
}

std::vector<std::string> Scenarios() {
  std::vector<std::string> names;
  if (!fs::exists(kScenarios)) return names;
  for (const auto& entry : fs::directory_iterator(kScenarios)) {
    if (entry.is_directory() && fs::exists(entry.path() / "expect.yaml")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

json Simulate(const std::string& name, const YAML::Node& args, std::string* err_out) {
  const fs::path dir = kScenarios / name;
  muster::cli::SimulateFlags flags;
  flags.output = "json";
  flags.check = true;  // every scenario runs under the invariant checker
  std::string config;
  if (args) {
    if (args["seed"]) flags.seed = args["seed"].as<uint64_t>();
    if (args["until"]) flags.until = args["until"].Scalar();
    if (args["config"]) config = args["config"].Scalar();
  }
  if (!config.empty()) flags.config = (dir / config).string();
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (file != "expect.yaml" && file != config && entry.path().extension() == ".yaml") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) flags.paths.push_back(f.string());
  muster::api::FeatureGates gates = muster::api::Features();
  if (args && args["featureGates"]) {
    std::string error;
    if (!gates.Apply(args["featureGates"].Scalar(), &error, nullptr)) {
      *err_out = "featureGates: " + error;
      return json();
    }
  }
  const muster::api::ScopedFeatures scoped(gates);
  std::istringstream in;
  std::ostringstream out, err;
  const int status = muster::cli::RunSimulate(flags, in, out, err);
  *err_out = err.str();
  if (status != 0) return json();
  return json::parse(out.str());
}

class ScenarioTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ScenarioTest, MatchesExpectations) {
  const std::string name = GetParam();
  const YAML::Node expect = YAML::LoadFile((kScenarios / name / "expect.yaml").string());
  std::string err;
  const json result = Simulate(name, expect["args"], &err);
  ASSERT_FALSE(result.is_null()) << "simulate failed:\n" << err;
  SCOPED_TRACE(result.dump(2));
  if (expect["summary"]) {
    std::string mismatch;
    EXPECT_TRUE(Matches(result["summary"], expect["summary"], &mismatch)) << "summary " << mismatch;
  }
  for (const char* collection : {"pods", "podGroups", "jobs", "nodes", "events",
                                 "persistentVolumeClaims", "persistentVolumes", "resourceClaims"}) {
    if (!expect[collection]) continue;
    for (const YAML::Node& rule : expect[collection]) {
      std::vector<const json*> matched;
      for (const json& element : result[collection]) {
        if (Matches(element, rule["match"])) matched.push_back(&element);
      }
      std::ostringstream where;
      where << collection << " matching " << YAML::Dump(rule["match"]);
      if (rule["count"]) {
        EXPECT_EQ(matched.size(), rule["count"].as<size_t>()) << where.str();
      } else {
        EXPECT_FALSE(matched.empty()) << where.str() << ": none";
      }
      if (rule["expect"]) {
        for (const json* element : matched) {
          std::string mismatch;
          EXPECT_TRUE(Matches(*element, rule["expect"], &mismatch))
              << where.str() << ": " << mismatch;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ScenarioTest, ::testing::ValuesIn(Scenarios()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

TEST(SimulateTest, SameInputAndSeedGiveTheSameBytes) {
  muster::cli::SimulateFlags flags;
  flags.output = "json";
  flags.seed = 7;
  flags.check = true;
  auto run = [&] {
    std::istringstream in;
    std::ostringstream out, err;
    EXPECT_EQ(muster::cli::RunSimulate(flags, in, out, err), 0) << err.str();
    return out.str();
  };
  const std::string first = run();
  EXPECT_EQ(first, run());
  EXPECT_NE(first.find("\"kind\": \"SimulationResult\""), std::string::npos);
}

TEST(SimulateTest, DemoIsTheCoschedulingExample) {
  std::string files;
  for (const char* f : {"cluster.yaml", "podgroup.yaml", "replicaset.yaml"}) {
    std::ifstream in(fs::path(MUSTER_SOURCE_DIR) / "examples" / "coscheduling" / f);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    files += (files.empty() ? "" : "\n---\n") + text;
  }
  EXPECT_EQ(files + "\n", std::string(muster::cli::kDemoManifests));
  std::ifstream cfg(fs::path(MUSTER_SOURCE_DIR) / "examples" / "config" / "coscheduling.yaml");
  std::stringstream cfg_text;
  cfg_text << cfg.rdbuf();
  EXPECT_EQ(cfg_text.str(), std::string(muster::cli::kDemoConfig));
}

TEST(SimulateTest, BadFlagsExitTwo) {
  std::istringstream in;
  std::ostringstream out, err;
  muster::cli::SimulateFlags flags;
  flags.output = "xml";
  EXPECT_EQ(muster::cli::RunSimulate(flags, in, out, err), 2);
  flags.output = "json";
  flags.until = "soon";
  EXPECT_EQ(muster::cli::RunSimulate(flags, in, out, err), 2);
  EXPECT_NE(err.str().find("--until: invalid duration \"soon\""), std::string::npos);
}

}  // namespace
