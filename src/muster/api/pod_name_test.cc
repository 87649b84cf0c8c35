#include "muster/api/pod_name.h"

#include <string>
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

// ByPodName finds an entry that holds a pod by the pod's name and its hash, which the entry
// keeps.
TEST(PodNameTest, ATableOfEntriesFindsThemByName) {
  struct Entry {
    Pod pod;
    int value = 0;
    uint32_t name_hash = HashedPodName(PodName::Of(pod)).hash;
    PodName name() const { return PodName::Of(pod); }
  };
  std::unordered_set<Entry, ByPodName<Entry>, ByPodName<Entry>> table;
  table.insert(Entry{testing::MakePod().Name("a").Namespace("x").Obj(), 1});
  table.insert(Entry{testing::MakePod().Name("a").Namespace("y").Obj(), 2});
  table.insert(Entry{testing::MakePod().Name("b").Namespace("x").Obj(), 3});
  EXPECT_FALSE(table.insert(Entry{testing::MakePod().Name("b").Namespace("x").Obj(), 4}).second);
  ASSERT_EQ(table.size(), 3u);
  auto find = [&](std::string_view key) { return table.find(HashedPodName(PodName::Parse(key))); };
  EXPECT_EQ(find("x/a")->value, 1);
  EXPECT_EQ(find("y/a")->value, 2);
  EXPECT_EQ(find("x/b")->value, 3);
  EXPECT_EQ(find("y/b"), table.end());

  // Through the rehashes of a growing table, every entry is found by its name alone, none by a
  // name in another namespace, and no name is stored twice.
  for (int i = 0; i < 3000; ++i) {
    const std::string name = "pod-" + std::to_string(i);
    ASSERT_TRUE(table.insert(Entry{testing::MakePod().Name(name).Namespace("z").Obj(), i}).second);
    ASSERT_FALSE(
        table.insert(Entry{testing::MakePod().Name(name).Namespace("z").Obj(), -1}).second);
  }
  ASSERT_EQ(table.size(), 3003u);
  for (int i = 0; i < 3000; ++i) {
    const std::string name = "pod-" + std::to_string(i);
    auto it = find("z/" + name);
    ASSERT_NE(it, table.end()) << name;
    EXPECT_EQ(it->value, i);
    EXPECT_EQ(find("x/" + name), table.end());
  }
}

}  // namespace
}  // namespace muster::api
