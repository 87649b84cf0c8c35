#include "muster/framework/loop_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "muster/framework/parallel.h"

namespace muster::framework {
namespace {

// Runs [first, last) on `pool` and counts each index's calls.
std::vector<int> CountCalls(LoopPool& pool, size_t first, size_t last, size_t chunk) {
  std::vector<std::atomic<int>> calls(last);
  // Ranges are whole chunks but for the one that ends the loop, and none takes more than
  // half of it while another thread may still help.
  const size_t n = last - first;
  auto body = [&](size_t begin, size_t end) {
    EXPECT_LT(begin, end);
    if (end != last) {
      EXPECT_EQ((end - begin) % chunk, 0u) << begin << ".." << end;
    }
    if (pool.threads() > 1 && n > chunk) {
      EXPECT_LE(end - begin, std::max(chunk, n / 2));
    }
    for (size_t i = begin; i < end; ++i) calls[i].fetch_add(1);
  };
  pool.Run(
      first, last, chunk,
      [](void* ctx, size_t b, size_t e) { (*static_cast<decltype(body)*>(ctx))(b, e); }, &body);
  std::vector<int> out;
  for (const auto& c : calls) out.push_back(c.load());
  return out;
}

TEST(LoopPoolTest, EveryIndexRunsOnceForAnySize) {
  for (int threads : {1, 2, 4}) {
    LoopPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (size_t n : {1, 2, 15, 16, 17, 100, 1000, 5000}) {
      for (size_t chunk : {1, 4, 16}) {
        const std::vector<int> calls = CountCalls(pool, 3, 3 + n, chunk);
        for (size_t i = 0; i < calls.size(); ++i) {
          ASSERT_EQ(calls[i], i < 3 ? 0 : 1)
              << "threads " << threads << " n " << n << " chunk " << chunk << " index " << i;
        }
      }
    }
  }
}

TEST(LoopPoolTest, ManyShortLoopsInARow) {
  // Each loop lives on the caller's stack: a worker still reading the last one as the next
  // starts would be a use after scope (AddressSanitizer).
  LoopPool pool(2);
  for (int round = 0; round < 20000; ++round) {
    const std::vector<int> calls = CountCalls(pool, 0, 64, 4);
    ASSERT_EQ(std::count(calls.begin(), calls.end(), 1), 64) << "round " << round;
  }
}

TEST(LoopPoolTest, WorkersThatSleptWakeForTheNextLoop) {
  // No time awake: workers sleep after every loop, and each loop must wake them.
  LoopPool pool(3, std::chrono::microseconds(0));
  for (int round = 0; round < 2000; ++round) {
    const std::vector<int> calls = CountCalls(pool, 0, 256, 8);
    ASSERT_EQ(std::count(calls.begin(), calls.end(), 1), 256) << "round " << round;
  }
}

TEST(LoopPoolTest, ALoopInsideALoopRunsOnItsThreadAlone) {
  LoopPool pool(2);
  LoopPool::Use use(&pool);
  std::atomic<int> outer_calls{0};
  std::atomic<int> inner_calls{0};
  std::atomic<int> inner_elsewhere{0};
  ParallelRanges(0, 256, [&](size_t, size_t) {
    ++outer_calls;
    const std::thread::id outer = std::this_thread::get_id();
    ParallelRanges(0, 512, [&](size_t begin, size_t end) {
      inner_calls += 1;
      if (std::this_thread::get_id() != outer) ++inner_elsewhere;
      EXPECT_EQ(begin, 0u);
      EXPECT_EQ(end, 512u);
    });
  });
  EXPECT_GT(outer_calls.load(), 1);
  EXPECT_EQ(inner_calls.load(), outer_calls.load()) << "one call per outer range";
  EXPECT_EQ(inner_elsewhere.load(), 0);
}

TEST(LoopPoolTest, ParallelRangesWithoutAPoolRunsOnTheCallerInOneCall) {
  ASSERT_EQ(LoopPool::Current(), nullptr);
  int calls = 0;
  ParallelRanges(10, 5000, [&](size_t begin, size_t end) {
    ++calls;
    EXPECT_EQ(begin, 10u);
    EXPECT_EQ(end, 5000u);
  });
  EXPECT_EQ(calls, 1);
}

TEST(LoopPoolTest, UseSetsTheCurrentPoolForItsScope) {
  LoopPool a(1), b(2);
  {
    LoopPool::Use use_a(&a);
    EXPECT_EQ(LoopPool::Current(), &a);
    {
      LoopPool::Use use_b(&b);
      EXPECT_EQ(LoopPool::Current(), &b);
    }
    EXPECT_EQ(LoopPool::Current(), &a);
  }
  EXPECT_EQ(LoopPool::Current(), nullptr);
}

// Each thread starts on its own share, the same from one loop to the next: a range the caller
// took first in one loop is the caller's first in the next (filtering a pod's nodes, then
// scoring them). Only the first range each thread takes is certain to be its own (after that,
// one may take from the other's share).
TEST(LoopPoolTest, EachThreadStartsOnItsOwnShare) {
  LoopPool pool(2);
  LoopPool::Use use(&pool);
  const std::thread::id caller = std::this_thread::get_id();
  for (int round = 0; round < 50; ++round) {
    std::atomic<size_t> caller_first{SIZE_MAX}, worker_first{SIZE_MAX};
    ParallelRanges(
        0, 1000,
        [&](size_t begin, size_t) {
          std::atomic<size_t>& first =
              std::this_thread::get_id() == caller ? caller_first : worker_first;
          size_t none = SIZE_MAX;
          first.compare_exchange_strong(none, begin);
        },
        10);
    // A thread's share is its own until it is done with it, unless the other took all of it
    // first (from the back, once done with its own): then that thread takes nothing at all.
    EXPECT_TRUE(caller_first.load() == 0 || caller_first.load() == SIZE_MAX) << caller_first.load();
    EXPECT_TRUE(worker_first.load() == 500 || worker_first.load() == SIZE_MAX)
        << worker_first.load();
  }
}

// Each thread of a loop has its own index below threads(), the caller 0: a body may keep what
// it gathers in a row per thread.
TEST(LoopPoolTest, ThreadIndexesAreTheLoopsOwn) {
  LoopPool pool(3);
  LoopPool::Use use(&pool);
  const std::thread::id caller = std::this_thread::get_id();
  EXPECT_EQ(LoopPool::ThreadIndex(), 0);
  std::vector<std::atomic<std::thread::id>> owner(3);
  std::atomic<bool> shared{false};
  std::atomic<bool> caller_not_zero{false};
  for (int round = 0; round < 200; ++round) {
    ParallelRanges(
        0, 4096,
        [&](size_t, size_t) {
          const int index = LoopPool::ThreadIndex();
          ASSERT_GE(index, 0);
          ASSERT_LT(index, 3);
          if (std::this_thread::get_id() == caller && index != 0) caller_not_zero = true;
          std::thread::id none;
          const std::thread::id me = std::this_thread::get_id();
          if (!owner[static_cast<size_t>(index)].compare_exchange_strong(none, me) && none != me) {
            shared = true;
          }
        },
        16);
  }
  EXPECT_FALSE(caller_not_zero.load());
  EXPECT_FALSE(shared.load()) << "two threads had one index";
}

TEST(LoopPoolTest, ParallelRangesSpreadsOverThePoolsThreads) {
  LoopPool pool(2);
  LoopPool::Use use(&pool);
  // A thread's first chunk waits until the other thread has run one, so one thread alone
  // would never get past it: both must take chunks. Bounded, so that a failure fails rather
  // than hangs.
  std::atomic<int> on_caller{0}, on_worker{0};
  const std::thread::id caller = std::this_thread::get_id();
  ParallelRanges(0, 1024, [&](size_t, size_t) {
    std::atomic<int>& mine = std::this_thread::get_id() == caller ? on_caller : on_worker;
    std::atomic<int>& other = &mine == &on_caller ? on_worker : on_caller;
    if (++mine > 1) return;
    for (int i = 0; i < 1'000'000 && other.load() == 0; ++i) std::this_thread::yield();
  });
  EXPECT_GT(on_caller.load(), 0);
  EXPECT_GT(on_worker.load(), 0);
}

}  // namespace
}  // namespace muster::framework
