#pragma once

// Per-node loops spread over the current LoopPool (the scheduler's, upstream's parallelizer), in
// ranges its threads take in turn, large first and down to one chunk at the end: per-node work
// varies (a walk over each node's pods), and on measurement fixed coarse ranges lost more on
// uneven work than they saved on even work. Without a pool (a plugin called outside a
// scheduler) loops run on the caller.

#include <cstddef>
#include <type_traits>

#include "muster/framework/loop_pool.h"

namespace muster::framework {

// Below this many nodes a parallel loop costs more than it saves.
inline constexpr size_t kParallelThreshold = 64;

// The smallest range a thread takes, in nodes.
inline constexpr size_t kParallelChunk = 16;

// Calls fn(begin, end) on disjoint ranges covering [first, last), concurrently, each a whole
// number of `chunk`s but for the last (LoopPool::Run). Below kParallelThreshold items, on the
// caller in one call.
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
