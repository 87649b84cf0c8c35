#include "muster/framework/real_clock.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace muster::framework {
namespace {

// What is posted runs in order, on the thread that calls RunDue, before the timers due.
TEST(RealClockTest, PostedWorkRunsInOrderBeforeDueTimers) {
  RealClock clock;
  std::vector<int> ran;
  clock.AddTimer(clock.Now() - std::chrono::seconds(1), [&] { ran.push_back(0); });
  std::thread poster([&] {
    for (int i = 1; i <= 3; ++i) clock.Post([&ran, i] { ran.push_back(i); });
  });
  poster.join();
  EXPECT_EQ(clock.RunDue(), 4u);
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 3, 0}));
}

// A timer in the future neither fires nor blocks; a cancelled one never fires.
TEST(RealClockTest, FutureAndCancelledTimersDoNotFire) {
  RealClock clock;
  bool fired = false;
  clock.AddTimer(clock.Now() + std::chrono::hours(1), [&] { fired = true; });
  const Clock::TimerId id = clock.AddTimer(clock.Now(), [&] { fired = true; });
  clock.CancelTimer(id);
  EXPECT_EQ(clock.RunDue(), 0u);
  EXPECT_FALSE(fired);
  ASSERT_TRUE(clock.NextTimer());
  EXPECT_GT(*clock.NextTimer(), clock.Now());
}

// Wait returns once work is posted from another thread (or at once when some is there).
TEST(RealClockTest, WaitReturnsWhenWorkIsPosted) {
  RealClock clock;
  std::thread poster([&] { clock.Post([] {}); });
  clock.Wait();  // returns whether the post came before or during the wait
  poster.join();
  EXPECT_EQ(clock.RunDue(), 1u);
  clock.Wake();
  clock.Wait();  // a Wake lets one Wait through
}

}  // namespace
}  // namespace muster::framework
