#pragma once

// Per-node loops spread over the scheduler's TBB arena (upstream's parallelizer).

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstddef>

namespace muster::framework {

// Below this many nodes a parallel loop costs more than it saves.
inline constexpr size_t kParallelThreshold = 64;

enum class Work {
  // The same short work per node (a filter or a score: tens of nanoseconds). The range is cut
  // into a few chunks per worker: many small tasks would cost more than the work.
  kEven,
  // Work that varies by node (a walk over each node's pods): small tasks that idle workers
  // steal, so that one crowded chunk does not hold the others up.
  kUneven,
};

// Calls fn(begin, end) on disjoint ranges covering [first, last), concurrently.
template <typename Fn>
void ParallelRanges(size_t first, size_t last, Fn&& fn, Work work = Work::kUneven) {
  const size_t n = last > first ? last - first : 0;
  if (n < kParallelThreshold) {
    if (n > 0) fn(first, last);
    return;
  }
  constexpr size_t kMinGrain = 16;
  auto body = [&](const tbb::blocked_range<size_t>& r) { fn(r.begin(), r.end()); };
  if (work == Work::kUneven) {
    tbb::parallel_for(tbb::blocked_range<size_t>(first, last, kMinGrain), body);
    return;
  }
  constexpr size_t kChunksPerWorker = 4;
  const size_t workers = static_cast<size_t>(std::max(1, tbb::this_task_arena::max_concurrency()));
  const size_t grain = std::max(kMinGrain, n / (workers * kChunksPerWorker));
  tbb::parallel_for(tbb::blocked_range<size_t>(first, last, grain), body,
                    tbb::simple_partitioner());
}

// Calls fn(i) for each i in [0, n), concurrently.
template <typename Fn>
void ForEachNode(size_t n, Fn&& fn, Work work = Work::kUneven) {
  ParallelRanges(
      0, n,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) fn(i);
      },
      work);
}

}  // namespace muster::framework
