#include "muster/framework/loop_pool.h"

#include <algorithm>

#if defined(__linux__)
#include <sched.h>
#endif

namespace muster::framework {

namespace {

thread_local LoopPool* t_current = nullptr;
// Set while this thread runs a loop's body: a loop started there runs on this thread alone.
thread_local bool t_in_loop = false;

// Tells the core that this thread is spinning (it yields the pipeline to its sibling).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

LoopPool::LoopPool(int threads, std::chrono::microseconds spin) : spin_(spin) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { Work(); });
}

LoopPool::~LoopPool() {
  stop_.store(true);
  Post();
  for (std::thread& t : workers_) t.join();
}

int LoopPool::AvailableCores() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

LoopPool* LoopPool::Current() { return t_current; }

LoopPool::Use::Use(LoopPool* pool) : previous_(t_current) { t_current = pool; }

LoopPool::Use::~Use() { t_current = previous_; }

void LoopPool::RunChunks(Loop& loop) noexcept {
  size_t ran = 0;
  size_t begin = loop.next.load(std::memory_order_relaxed);
  while (begin < loop.last) {
    // Guided: a share of what is left, in whole chunks. Large ranges first, few claims; small
    // ones at the end, so that no thread waits long for another's last range.
    const size_t share = (loop.last - begin) / loop.split / loop.chunk * loop.chunk;
    const size_t end = std::min(begin + std::max(loop.chunk, share), loop.last);
    if (!loop.next.compare_exchange_weak(begin, end, std::memory_order_relaxed)) continue;
    loop.body(loop.ctx, begin, end);
    ran += end - begin;
    begin = loop.next.load(std::memory_order_relaxed);
  }
  if (ran > 0) loop.done.fetch_add(ran, std::memory_order_release);
}

void LoopPool::Post() {
  posted_.fetch_add(1);
  if (sleepers_.load() == 0) return;
  // A sleeper between its count and its wait holds the mutex: taking it makes the notify
  // come after the wait began.
  { std::lock_guard lock(sleep_mutex_); }
  wake_.notify_all();
}

void LoopPool::Run(size_t first, size_t last, size_t chunk, void (*body)(void*, size_t, size_t),
                   void* ctx) {
  if (first >= last) return;
  chunk = std::max<size_t>(chunk, 1);
  if (workers_.empty() || t_in_loop || last - first <= chunk) {
    body(ctx, first, last);
    return;
  }
  t_in_loop = true;
  Loop loop{{first}, last, chunk, 2 * static_cast<size_t>(threads()), body, ctx};
  loop_.store(&loop);
  Post();
  RunChunks(loop);
  // No worker takes the loop from here on; wait for those that did.
  loop_.store(nullptr);
  const size_t total = last - first;
  while (loop.done.load(std::memory_order_acquire) != total) CpuRelax();
  while (active_.load() != 0) CpuRelax();
  t_in_loop = false;
}

void LoopPool::Work() {
  t_in_loop = true;
  // Not posted_'s value when the thread starts: that may come after a loop or the stop.
  uint32_t seen = 0;
  for (;;) {
    // Wait for the next loop: awake for kSpin, then asleep until Run posts one.
    auto deadline = std::chrono::steady_clock::now() + spin_;
    uint32_t now = 0;
    for (uint32_t spins = 1; (now = posted_.load(std::memory_order_acquire)) == seen; ++spins) {
      CpuRelax();
      if (spins % 256 != 0 || std::chrono::steady_clock::now() < deadline) continue;
      // Counted before the wait reads posted_: Post either sees the sleeper and wakes it, or
      // posted before that read, and the wait returns at once.
      std::unique_lock lock(sleep_mutex_);
      sleepers_.fetch_add(1);
      wake_.wait(lock, [&] { return posted_.load() != seen; });
      sleepers_.fetch_sub(1);
      deadline = std::chrono::steady_clock::now() + spin_;
    }
    seen = now;
    if (stop_.load()) return;
    active_.fetch_add(1);
    if (Loop* loop = loop_.load()) RunChunks(*loop);
    active_.fetch_sub(1);
  }
}

}  // namespace muster::framework
