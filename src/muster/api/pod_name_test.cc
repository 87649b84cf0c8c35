#include "muster/api/pod_name.h"

#include <unordered_set>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::api {
namespace {

TEST(PodNameTest, ParsesWhatKeyWrites) {
  const Pod pod = testing::MakePod().Name("web-0").Namespace("prod").Obj();
  const PodName name = PodName::Of(pod);
  EXPECT_EQ(name.ns, Symbol("prod"));
  EXPECT_EQ(name.name, "web-0");
  EXPECT_EQ(name.Key(), pod.metadata.Key());
  EXPECT_EQ(PodName::Parse("prod/web-0"), name);
  EXPECT_EQ(PodNameHash{}(PodName::Parse("prod/web-0")), PodNameHash{}(name));
  // Without a namespace (as Key writes a cluster-scoped name).
  EXPECT_EQ(PodName::Parse("web-0"), (PodName{Symbol(), "web-0"}));
  EXPECT_EQ((PodName{Symbol(), "web-0"}).Key(), "web-0");
  EXPECT_NE(PodName::Parse("dev/web-0"), name);
  EXPECT_NE(PodName::Parse("prod/web-1"), name);
}

// ByPodName finds an entry that holds a pod by a PodName alone.
TEST(PodNameTest, ATableOfEntriesFindsThemByName) {
  struct Entry {
    Pod pod;
    int value = 0;
    PodName name() const { return PodName::Of(pod); }
  };
  std::unordered_set<Entry, ByPodName<Entry>, ByPodName<Entry>> table;
  table.insert(Entry{testing::MakePod().Name("a").Namespace("x").Obj(), 1});
  table.insert(Entry{testing::MakePod().Name("a").Namespace("y").Obj(), 2});
  table.insert(Entry{testing::MakePod().Name("b").Namespace("x").Obj(), 3});
  EXPECT_FALSE(table.insert(Entry{testing::MakePod().Name("b").Namespace("x").Obj(), 4}).second);
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table.find(PodName::Parse("x/a"))->value, 1);
  EXPECT_EQ(table.find(PodName::Parse("y/a"))->value, 2);
  EXPECT_EQ(table.find(PodName::Parse("x/b"))->value, 3);
  EXPECT_EQ(table.find(PodName::Parse("y/b")), table.end());
}

}  // namespace
}  // namespace muster::api
