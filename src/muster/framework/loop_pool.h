#pragma once

// The scheduler's threads for its per-node loops (upstream's parallelizer).
//
// A scheduling cycle runs a few loops over a few hundred nodes each, every loop about ten
// microseconds of work, with serial work between them. A task scheduler's fork/join costs about
// as much as such a loop saves: its workers sleep between loops and take microseconds to wake and
// steal. Here the workers stay awake between loops for a while (kSpin), waiting on one atomic;
// the caller works on the loop too. Workers that find no loop for longer than that sleep until
// the next one.
//
// Each thread has its share of every loop, the same part of the range from one loop to the next
// (the caller the first, the k-th worker the k+1-th), and takes ranges from the front of it, then
// from the back of the others' shares once its own is done. Filtering a pod's nodes and then
// scoring them are two loops over the same nodes, and on a cluster with room the feasible nodes
// are the filtered ones in order: most are then scored by the thread that filtered them, from
// its own cache, where a shared counter would hand them out at random.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
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
  // `chunk`s from `first`, but for the one that ends at `last`; a thread takes its own share's
  // in ranges of a quarter of what is left of it, the others' a chunk at a time. body must not
  // throw. A loop started from inside another (on any of the pool's threads) runs on its
  // thread alone. One thread at a time may call Run (the scheduler's loop does).
  void Run(size_t first, size_t last, size_t chunk, void (*body)(void*, size_t, size_t), void* ctx);

  // The pool that loops started on this thread use, or null (set by Use).
  static LoopPool* Current();
  // Which thread of the loop this is: k on the pool's k-th worker, 0 on the thread that called
  // Run. A loop's body may keep what it gathers in a row per thread, by this index, rather than
  // share one atomic among the threads. (A loop started on a worker runs there alone, and the
  // index there is that worker's own.)
  static int ThreadIndex();

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
  // A thread's share of the loop being run: the indices [front, back) not yet claimed, relative
  // to the loop's first, in one word (front in the high half), so that its owner claims from the
  // front and the others from the back with one compare-and-swap each. A cache line each.
  struct alignas(64) Share {
    std::atomic<uint64_t> range{0};
  };
  struct Loop {
    size_t first;
    size_t last;
    size_t chunk;
    void (*body)(void*, size_t, size_t);
    void* ctx;
    std::atomic<size_t> done{0};  // indices whose calls have returned
  };

  // Runs ranges of `loop` as thread `self` (0 the caller, k the k-th worker) until no index is
  // left unclaimed.
  void RunChunks(Loop& loop, int self) noexcept;
  // Announces a new loop (or the stop) to the workers, waking those asleep.
  void Post();
  void Work(int self);

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
  std::unique_ptr<Share[]> shares_;  // one per thread, for the loop being run
  std::vector<std::thread> workers_;
};

}  // namespace muster::framework
