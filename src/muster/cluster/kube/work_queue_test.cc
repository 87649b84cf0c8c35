#include <condition_variable>
#include <mutex>
#include <vector>

#include <gtest/gtest.h>

#include "muster/cluster/kube/kube_cluster.h"

namespace muster::cluster::kube {
namespace {

// A latch the queue's thread waits on, so that what is submitted meanwhile stays queued.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  bool entered = false;

  void Wait() {
    std::unique_lock lock(mu);
    entered = true;
    cv.notify_all();
    cv.wait(lock, [this] { return open; });
  }
  void AwaitEntered() {
    std::unique_lock lock(mu);
    cv.wait(lock, [this] { return entered; });
  }
  void Open() {
    std::lock_guard lock(mu);
    open = true;
    cv.notify_all();
  }
};

// Events' queue: at most `capacity` items wait; one more is refused and dropped, and once the
// thread has taken some, there is room again. What was queued runs, in order.
TEST(WorkQueueTest, RefusesWorkBeyondItsCapacityAndRunsTheRestInOrder) {
  Gate gate;
  std::vector<int> ran;  // written by the queue's one thread, read after Drain
  WorkQueue queue(1, /*capacity=*/2);
  ASSERT_TRUE(queue.Submit([&] { gate.Wait(); }));
  gate.AwaitEntered();  // running, so no longer waiting in the queue
  EXPECT_TRUE(queue.Submit([&] { ran.push_back(1); }));
  EXPECT_TRUE(queue.Submit([&] { ran.push_back(2); }));
  EXPECT_FALSE(queue.Submit([&] { ran.push_back(3); }));  // two are waiting: dropped
  gate.Open();
  queue.Drain();
  EXPECT_EQ(ran, (std::vector<int>{1, 2}));
  EXPECT_TRUE(queue.Submit([&] { ran.push_back(4); }));
  queue.Drain();
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 4}));
}

TEST(WorkQueueTest, UnboundedByDefault) {
  Gate gate;
  int ran = 0;
  WorkQueue queue(1);
  ASSERT_TRUE(queue.Submit([&] { gate.Wait(); }));
  gate.AwaitEntered();
  for (int i = 0; i < 5000; ++i) ASSERT_TRUE(queue.Submit([&] { ++ran; }));
  gate.Open();
  queue.Drain();
  EXPECT_EQ(ran, 5000);
}

}  // namespace
}  // namespace muster::cluster::kube
