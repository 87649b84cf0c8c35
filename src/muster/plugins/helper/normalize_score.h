#pragma once

#include <cstdint>
#include <span>

#include "muster/framework/interface.h"

namespace muster::plugins::helper {

// Upstream helper.DefaultNormalizeScore: scales the scores to [0, max_priority] by the highest
// one, and reverses them when lower raw scores are better. All zero stays zero (reversed: all
// max_priority).
void DefaultNormalizeScore(int64_t max_priority, bool reverse,
                           std::span<framework::NodeScore> scores);

}  // namespace muster::plugins::helper
