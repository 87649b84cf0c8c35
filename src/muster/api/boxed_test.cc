#include "muster/api/boxed.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/types.h"

namespace muster::api {
namespace {

TEST(Boxed, EmptyUntilSetAndAfterReset) {
  Boxed<std::string> b;
  EXPECT_FALSE(b.has_value());
  EXPECT_FALSE(b);
  b = std::string("x");
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, "x");
  b.reset();
  EXPECT_FALSE(b);
  b = std::nullopt;
  EXPECT_FALSE(b);
  EXPECT_FALSE(Boxed<std::string>(std::optional<std::string>()));
  EXPECT_EQ(*Boxed<std::string>(std::optional<std::string>("y")), "y");
}

TEST(Boxed, CopiesAreDeep) {
  Boxed<std::vector<int>> a(std::vector<int>{1, 2});
  Boxed<std::vector<int>> b = a;
  b->push_back(3);
  EXPECT_EQ(a->size(), 2u);
  EXPECT_EQ(b->size(), 3u);
  a = b;
  EXPECT_EQ(*a, *b);
  EXPECT_NE(&*a, &*b);
  Boxed<std::vector<int>> empty;
  a = empty;
  EXPECT_FALSE(a);
}

TEST(Boxed, EmplaceMakesTheValueInPlace) {
  Boxed<std::vector<int>> b;
  b.emplace(3, 7).push_back(8);
  EXPECT_EQ(*b, (std::vector<int>{7, 7, 7, 8}));
}

TEST(Boxed, EqualityComparesValues) {
  EXPECT_EQ(Boxed<int>(), Boxed<int>());
  EXPECT_EQ(Boxed<int>(4), Boxed<int>(4));
  EXPECT_NE(Boxed<int>(4), Boxed<int>(5));
  EXPECT_NE(Boxed<int>(4), Boxed<int>());
}

// What a pod that sets none of its rarely used fields carries: one pointer for its affinity.
// The scale benchmark's memory per pod follows this size (BENCHMARKS.md, 2026-11-30).
TEST(Boxed, APodCarriesItsAffinityAsOnePointer) {
  EXPECT_EQ(sizeof(PodSpec::affinity), sizeof(void*));
  EXPECT_LE(sizeof(Pod), 688u);
}

}  // namespace
}  // namespace muster::api
