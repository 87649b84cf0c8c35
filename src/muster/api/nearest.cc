#include "muster/api/nearest.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace muster::api {

size_t EditDistance(std::string_view a, std::string_view b) {
  auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  };
  const size_t n = a.size();
  const size_t m = b.size();
  // Three rows of the table: i-2, i-1, i.
  std::vector<size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1])) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

std::optional<std::string> Nearest(std::string_view word,
                                   const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    if (c == word) return std::nullopt;
    const size_t d = EditDistance(word, c);
    if (d > 2 || d * 3 >= std::max<size_t>(word.size(), 1)) continue;
    if (!best || d < best_distance || (d == best_distance && c < *best)) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::optional<std::string> near = Nearest(word, candidates);
  return near ? fmt::format("; did you mean \"{}\"?", *near) : "";
}

}  // namespace muster::api
