#pragma once

// Per-node loops spread over the current LoopPool (the scheduler's, upstream's parallelizer), in
// small chunks that the pool's threads take in turn: per-node work varies (a walk over each
// node's pods), and on measurement fixed coarse chunks lost more on uneven work than they saved
// on even work. Without a pool (a plugin called outside a scheduler) loops run on the caller.

#include <cstddef>
#include <type_traits>

#include "muster/framework/loop_pool.h"

namespace muster::framework {

// Below this many nodes a parallel loop costs more than it saves.
inline constexpr size_t kParallelThreshold = 64;

// Nodes per chunk taken by one thread.
inline constexpr size_t kParallelChunk = 16;

// Calls fn(begin, end) on disjoint ranges of at most `chunk` covering [first, last),
// concurrently. Below kParallelThreshold items, on the caller in one call.
template <typename Fn>
void ParallelRanges(size_t first, size_t last, Fn&& fn, size_t chunk = kParallelChunk) {
  const size_t n = last > first ? last - first : 0;
  LoopPool* pool = LoopPool::Current();
  if (n < kParallelThreshold || pool == nullptr) {
    if (n > 0) fn(first, last);
    return;
  }
  using Body = std::remove_reference_t<Fn>;
  pool->Run(
      first, last, chunk,
      [](void* ctx, size_t begin, size_t end) { (*static_cast<Body*>(ctx))(begin, end); },
      const_cast<void*>(static_cast<const void*>(&fn)));
}

// Calls fn(i) for each i in [0, n), concurrently.
template <typename Fn>
void ForEachNode(size_t n, Fn&& fn) {
  ParallelRanges(0, n, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) fn(i);
  });
}

}  // namespace muster::framework
