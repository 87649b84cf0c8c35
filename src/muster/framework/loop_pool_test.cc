#include "muster/framework/loop_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

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
