#include "muster/plugins/helper/normalize_score.h"

#include <vector>

#include <gtest/gtest.h>

namespace muster::plugins::helper {
namespace {

std::vector<int64_t> Normalize(std::vector<int64_t> raw, bool reverse) {
  std::vector<framework::NodeScore> scores;
  for (int64_t r : raw) scores.push_back(framework::NodeScore{api::Symbol(), r});
  DefaultNormalizeScore(100, reverse, scores);
  std::vector<int64_t> out;
  for (const auto& s : scores) out.push_back(s.score);
  return out;
}

// Cases from upstream helper/normalize_score_test.go.
TEST(DefaultNormalizeScoreTest, UpstreamCases) {
  EXPECT_EQ(Normalize({10, 20, 30, 40, 50}, false), (std::vector<int64_t>{20, 40, 60, 80, 100}));
  EXPECT_EQ(Normalize({10, 20, 30, 40, 50}, true), (std::vector<int64_t>{80, 60, 40, 20, 0}));
  EXPECT_EQ(Normalize({1000, 10, 20, 30, 40, 50}, false),
            (std::vector<int64_t>{100, 1, 2, 3, 4, 5}));
  EXPECT_EQ(Normalize({1000, 10, 20, 30, 40, 50}, true),
            (std::vector<int64_t>{0, 99, 98, 97, 96, 95}));
  EXPECT_EQ(Normalize({0, 0, 0, 0, 0}, false), (std::vector<int64_t>{0, 0, 0, 0, 0}));
  EXPECT_EQ(Normalize({0, 0, 0, 0, 0}, true), (std::vector<int64_t>{100, 100, 100, 100, 100}));
}

}  // namespace
}  // namespace muster::plugins::helper
