#pragma once

// The scheduler's threads for its per-node loops (upstream's parallelizer).
//
// A scheduling cycle runs a few loops over a few hundred nodes each, every loop about ten
// microseconds of work, with serial work between them. A task scheduler's fork/join costs about
// as much as such a loop saves: its workers sleep between loops and take microseconds to wake and
// steal. Here the workers stay awake between loops for a while (kSpin), waiting on one atomic,
// and take ranges of the loop from one counter; the caller works on the loop too. Workers that
// find no loop for longer than that sleep until the next one.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace muster::framework {

class LoopPool {
 public:
  // How long an idle worker waits awake for the next loop before it sleeps: a scheduling cycle's
  // serial work between two loops is shorter.
  static constexpr std::chrono::microseconds kSpin{200};

  // `threads` run each loop, the caller's included: threads - 1 workers, each awake for `spin`
  // after a loop.
  explicit LoopPool(int threads, std::chrono::microseconds spin = kSpin);
  ~LoopPool();
  LoopPool(const LoopPool&) = delete;
  LoopPool& operator=(const LoopPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // The cores this process may run on (its CPU affinity), at least 1: more threads than that
  // only add switching, and a spinning worker would take its core from the caller.
  static int AvailableCores();

  // Calls body(ctx, begin, end) on disjoint ranges covering [first, last), on the caller and
  // the workers, and returns when every call has returned. Each range is a whole number of
  // `chunk`s, but for the last; the first are largest (a share of what is left). body must not
  // throw. A loop started from inside another (on any of the pool's threads) runs on its
  // thread alone. One thread at a time may call Run (the scheduler's loop does).
  void Run(size_t first, size_t last, size_t chunk, void (*body)(void*, size_t, size_t),
           void* ctx);

  // The pool that loops started on this thread use, or null (set by Use).
  static LoopPool* Current();

  // Makes `pool` the current one on this thread for the scope's lifetime.
  class Use {
   public:
    explicit Use(LoopPool* pool);
    ~Use();
    Use(const Use&) = delete;
    Use& operator=(const Use&) = delete;

   private:
    LoopPool* previous_;
  };

 private:
  struct Loop {
    std::atomic<size_t> next;  // the first index not yet claimed
    size_t last;
    size_t chunk;
    size_t split;  // a claim takes 1/split of what is left
    void (*body)(void*, size_t, size_t);
    void* ctx;
    std::atomic<size_t> done{0};  // indices whose calls have returned
  };

  static void RunChunks(Loop& loop) noexcept;
  // Announces a new loop (or the stop) to the workers, waking those asleep.
  void Post();
  void Work();

  // The loop being run, or null. Workers read it only while counted in active_, and Run
  // returns only once it is null and no worker is counted: a worker never sees a finished loop.
  std::atomic<Loop*> loop_{nullptr};
  std::atomic<int> active_{0};
  std::atomic<uint32_t> posted_{0};  // counts loops started; idle workers wait for it to change
  // Workers asleep wait on wake_ for posted_ to change; sleepers_ counts them.
  std::atomic<int> sleepers_{0};
  std::mutex sleep_mutex_;
  std::condition_variable wake_;
  std::atomic<bool> stop_{false};
  const std::chrono::microseconds spin_;
  std::vector<std::thread> workers_;
};

}  // namespace muster::framework
