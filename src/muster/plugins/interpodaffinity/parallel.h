#pragma once

// Per-node work of PreFilter and PreScore spread over TBB's workers, as upstream spreads it over
// its parallelizer: each worker appends to its own buffer, merged afterwards by the caller.

#include <cstddef>
#include <vector>

#include <tbb/enumerable_thread_specific.h>

#include "muster/framework/parallel.h"

namespace muster::plugins::interpodaffinity {

// Calls fn(i, out) for each i in [0, n), where `out` is a std::vector<Entry>& to append to, and
// then merge(entry) for every entry appended, on the calling thread. fn runs concurrently,
// counted by `busy`.
template <typename Entry, typename Fn, typename Merge>
void CollectOverNodes(size_t n, Fn&& fn, Merge&& merge, framework::BusyCount* busy) {
  if (n < framework::kParallelThreshold) {
    std::vector<Entry> out;
    for (size_t i = 0; i < n; ++i) fn(i, out);
    for (const Entry& e : out) merge(e);
    return;
  }
  tbb::enumerable_thread_specific<std::vector<Entry>> buffers;
  framework::ParallelRanges(
      0, n,
      [&](size_t begin, size_t end) {
        std::vector<Entry>& out = buffers.local();
        for (size_t i = begin; i < end; ++i) fn(i, out);
      },
      framework::kParallelChunk, busy);
  for (const std::vector<Entry>& out : buffers) {
    for (const Entry& e : out) merge(e);
  }
}

}  // namespace muster::plugins::interpodaffinity
