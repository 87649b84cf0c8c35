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
// The worker's index in its pool (0 on threads that are not a pool's workers).
thread_local int t_index = 0;

// Tells the core that this thread is spinning (it yields the pipeline to its sibling).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

LoopPool::LoopPool(int threads, std::chrono::microseconds spin)
    : spin_(spin), shares_(std::make_unique<Share[]>(static_cast<size_t>(std::max(threads, 1)))) {
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { Work(i); });
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

int LoopPool::ThreadIndex() { return t_index; }

LoopPool::Use::Use(LoopPool* pool) : previous_(t_current) { t_current = pool; }

LoopPool::Use::~Use() { t_current = previous_; }

namespace {

uint64_t Pack(size_t front, size_t back) { return uint64_t{front} << 32 | back; }
size_t Front(uint64_t range) { return static_cast<size_t>(range >> 32); }
size_t Back(uint64_t range) { return static_cast<size_t>(range & 0xffffffffu); }

}  // namespace

void LoopPool::RunChunks(Loop& loop, int self) noexcept {
  const size_t threads = static_cast<size_t>(this->threads());
  size_t ran = 0;
  // Its own share first, from the front: a quarter of what is left at a time, in whole chunks,
  // so that few claims are made and the others have something left to take at the end.
  Share& own = shares_[static_cast<size_t>(self)];
  uint64_t range = own.range.load(std::memory_order_relaxed);
  while (Front(range) < Back(range)) {
    const size_t front = Front(range);
    const size_t back = Back(range);
    const size_t share = (back - front) / 4 / loop.chunk * loop.chunk;
    const size_t end = std::min(front + std::max(loop.chunk, share), back);
    if (!own.range.compare_exchange_weak(range, Pack(end, back), std::memory_order_relaxed)) {
      continue;
    }
    loop.body(loop.ctx, loop.first + front, loop.first + end);
    ran += end - front;
    range = own.range.load(std::memory_order_relaxed);
  }
  // Then the others', a chunk at a time from the back, while their owners work from the front.
  for (size_t k = 1; k < threads; ++k) {
    Share& other = shares_[(static_cast<size_t>(self) + k) % threads];
    range = other.range.load(std::memory_order_relaxed);
    while (Front(range) < Back(range)) {
      const size_t front = Front(range);
      const size_t back = Back(range);
      // The chunk that holds back - 1: shares start on whole chunks and fronts move by them.
      const size_t begin = std::max(front, (back - 1) / loop.chunk * loop.chunk);
      if (!other.range.compare_exchange_weak(range, Pack(front, begin),
                                             std::memory_order_relaxed)) {
        continue;
      }
      loop.body(loop.ctx, loop.first + begin, loop.first + back);
      ran += back - begin;
      range = other.range.load(std::memory_order_relaxed);
    }
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
  // (A share's bounds are 32 bits each: a loop over more indices runs on the caller.)
  if (workers_.empty() || t_in_loop || last - first <= chunk || last - first > 0xffffffffu) {
    body(ctx, first, last);
    return;
  }
  t_in_loop = true;
  Loop loop{first, last, chunk, body, ctx};
  // Equal shares in whole chunks, relative to first (the last share ends the loop).
  const size_t n = last - first;
  const auto threads = static_cast<size_t>(this->threads());
  for (size_t t = 0; t < threads; ++t) {
    const size_t front = n * t / threads / chunk * chunk;
    const size_t back = t + 1 == threads ? n : n * (t + 1) / threads / chunk * chunk;
    shares_[t].range.store(Pack(front, back), std::memory_order_relaxed);
  }
  loop_.store(&loop);
  Post();
  RunChunks(loop, 0);
  // No worker takes the loop from here on; wait for those that did.
  loop_.store(nullptr);
  const size_t total = last - first;
  while (loop.done.load(std::memory_order_acquire) != total) CpuRelax();
  while (active_.load() != 0) CpuRelax();
  t_in_loop = false;
}

void LoopPool::Work(int self) {
  t_in_loop = true;
  t_index = self;
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
    if (Loop* loop = loop_.load()) RunChunks(*loop, self);
    active_.fetch_sub(1);
  }
}

}  // namespace muster::framework
