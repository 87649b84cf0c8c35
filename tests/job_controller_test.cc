// The simulation's Job controller, on what simulate's output does not show: the pods an Indexed
// Job creates carry their completion index as upstream's do.

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "simulate_text.h"

namespace muster {
namespace {

// tests/scenarios/job-indexed: completions 3, two at a time, index 1 preempted and created again.
TEST(JobControllerTest, AnIndexedJobsPodsCarryTheirIndex) {
  std::string error;
  auto simulation = testing::SimulateText(
      testing::SourceFile("tests/scenarios/job-indexed/all.yaml"), "all.yaml",
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n", {}, &error);
  ASSERT_NE(simulation, nullptr) << error;
  simulation->Run();
  std::vector<std::string> indexes;
  for (const auto& [key, pod] : simulation->cluster().pods()) {
    if (pod->metadata.ControllerRef() == nullptr) continue;  // the preemptor
    SCOPED_TRACE(key);
    const std::string index = pod->metadata.annotations.at(std::string(api::kJobCompletionIndex));
    const api::Symbol* label = pod->metadata.labels.Get(api::Symbol(api::kJobCompletionIndex));
    ASSERT_NE(label, nullptr);
    EXPECT_EQ(*label, api::Symbol(index));
    // <job>-<index>-<five random characters>
    EXPECT_TRUE(pod->metadata.name.starts_with("train-" + index + "-"));
    EXPECT_EQ(pod->metadata.name.size(), std::string("train-0-").size() + 5);
    indexes.push_back(index);
  }
  std::sort(indexes.begin(), indexes.end());
  EXPECT_EQ(indexes, (std::vector<std::string>{"0", "1", "2"}));
}

}  // namespace
}  // namespace muster
