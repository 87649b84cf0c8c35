#pragma once

// Per-node loops spread over the current LoopPool (the scheduler's, upstream's parallelizer): each
// thread works through its own share of the range, larger ranges first, and then takes what is
// left of the others' a chunk at a time. Per-node work varies (a walk over each node's pods), and
// on measurement fixed coarse ranges lost more on uneven work than they saved on even work.
// Without a pool (a plugin called outside a scheduler) loops run on the caller.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "muster/framework/loop_pool.h"

namespace muster::framework {

// Below this many nodes a parallel loop costs more than it saves.
inline constexpr size_t kParallelThreshold = 64;

// The smallest range a thread takes, in nodes.
inline constexpr size_t kParallelChunk = 16;

// Counts the threads at work on one kind of loop while they work on it (upstream's
// scheduler_goroutines{operation}); null when nothing counts.
using BusyCount = std::atomic<int64_t>;

// Calls fn(begin, end) on disjoint ranges covering [first, last), concurrently, each a whole
// number of `chunk`s but for the last (LoopPool::Run). Below kParallelThreshold items, on the
// caller in one call. `busy` counts each call while it runs.
template <typename Fn>
void ParallelRanges(size_t first, size_t last, Fn&& fn, size_t chunk = kParallelChunk,
                    BusyCount* busy = nullptr) {
  const size_t n = last > first ? last - first : 0;
  LoopPool* pool = LoopPool::Current();
  if (n < kParallelThreshold || pool == nullptr) {
    if (n == 0) return;
    if (busy != nullptr) busy->fetch_add(1, std::memory_order_relaxed);
    fn(first, last);
    if (busy != nullptr) busy->fetch_sub(1, std::memory_order_relaxed);
    return;
  }
  struct Ctx {
    std::remove_reference_t<Fn>* fn;
    BusyCount* busy;
  } ctx{&fn, busy};
  pool->Run(
      first, last, chunk,
      [](void* p, size_t begin, size_t end) {
        const Ctx& c = *static_cast<const Ctx*>(p);
        if (c.busy != nullptr) c.busy->fetch_add(1, std::memory_order_relaxed);
        (*c.fn)(begin, end);
        if (c.busy != nullptr) c.busy->fetch_sub(1, std::memory_order_relaxed);
      },
      &ctx);
}

// Calls fn(i) for each i in [0, n), concurrently.
template <typename Fn>
void ForEachNode(size_t n, Fn&& fn, BusyCount* busy = nullptr) {
  ParallelRanges(
      0, n,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) fn(i);
      },
      kParallelChunk, busy);
}

}  // namespace muster::framework
