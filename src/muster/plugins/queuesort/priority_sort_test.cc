#include "muster/plugins/queuesort/priority_sort.h"

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

// Cases from upstream priority_sort_test.go (TestLess).

namespace muster::plugins::queuesort {
namespace {

framework::QueuedPodInfo Queued(int32_t priority, api::Time timestamp = {}) {
  framework::QueuedPodInfo q;
  q.info = framework::PodInfo::Make(testing::MakePod().Priority(priority).Obj());
  q.timestamp = timestamp;
  return q;
}

TEST(PrioritySortLess, UpstreamCases) {
  const int32_t low = 10;
  const int32_t high = 100;
  const api::Time t1 = api::Time(std::chrono::seconds(1000));
  const api::Time t2 = t1 + std::chrono::seconds(1);
  const PrioritySort sort;
  EXPECT_FALSE(sort.Less(Queued(low), Queued(high))) << "p1.priority less than p2.priority";
  EXPECT_TRUE(sort.Less(Queued(high), Queued(low))) << "p1.priority greater than p2.priority";
  EXPECT_TRUE(sort.Less(Queued(high, t1), Queued(high, t2)))
      << "equal priority. p1 is added to schedulingQ earlier than p2";
  EXPECT_FALSE(sort.Less(Queued(high, t2), Queued(high, t1)))
      << "equal priority. p2 is added to schedulingQ earlier than p1";
  // Compare, the queue's one call per pair, agrees.
  EXPECT_GT(sort.Compare(Queued(low), Queued(high)), 0);
  EXPECT_LT(sort.Compare(Queued(high, t1), Queued(high, t2)), 0);
  EXPECT_GT(sort.Compare(Queued(high, t2), Queued(high, t1)), 0);
  EXPECT_EQ(sort.Compare(Queued(high, t1), Queued(high, t1)), 0);
}

TEST(PrioritySortLess, UnsetPriorityIsZero) {
  framework::QueuedPodInfo unset;
  unset.info = framework::PodInfo::Make(testing::MakePod().Obj());
  const PrioritySort sort;
  EXPECT_TRUE(sort.Less(Queued(1), unset));
  EXPECT_TRUE(sort.Less(unset, Queued(-1)));
  EXPECT_FALSE(sort.Less(unset, unset));
}

}  // namespace
}  // namespace muster::plugins::queuesort
