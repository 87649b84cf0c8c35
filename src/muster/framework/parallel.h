#pragma once

// Per-node loops spread over the scheduler's TBB arena (upstream's parallelizer). Small tasks
// that idle workers steal: per-node work varies (a walk over each node's pods), and on
// measurement fixed coarse chunks lost more on uneven work than they saved on even work.

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstddef>

namespace muster::framework {

// Below this many nodes a parallel loop costs more than it saves.
inline constexpr size_t kParallelThreshold = 64;

// Calls fn(begin, end) on disjoint ranges covering [first, last), concurrently.
template <typename Fn>
void ParallelRanges(size_t first, size_t last, Fn&& fn) {
  const size_t n = last > first ? last - first : 0;
  if (n < kParallelThreshold) {
    if (n > 0) fn(first, last);
    return;
  }
  constexpr size_t kGrain = 16;
  tbb::parallel_for(tbb::blocked_range<size_t>(first, last, kGrain),
                    [&](const tbb::blocked_range<size_t>& r) { fn(r.begin(), r.end()); });
}

// Calls fn(i) for each i in [0, n), concurrently.
template <typename Fn>
void ForEachNode(size_t n, Fn&& fn) {
  ParallelRanges(0, n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) fn(i);
  });
}

}  // namespace muster::framework
