#include "muster/plugins/helper/normalize_score.h"

#include <algorithm>

namespace muster::plugins::helper {

void DefaultNormalizeScore(int64_t max_priority, bool reverse,
                           std::span<framework::NodeScore> scores) {
  int64_t max_count = 0;
  for (const framework::NodeScore& s : scores) max_count = std::max(max_count, s.score);
  if (max_count == 0) {
    if (reverse) {
      for (framework::NodeScore& s : scores) s.score = max_priority;
    }
    return;
  }
  for (framework::NodeScore& s : scores) {
    const int64_t scaled = max_priority * s.score / max_count;
    s.score = reverse ? max_priority - scaled : scaled;
  }
}

}  // namespace muster::plugins::helper
