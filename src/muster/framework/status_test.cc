#include "muster/framework/status.h"

#include <gtest/gtest.h>

namespace muster::framework {
namespace {

TEST(StatusTest, SuccessCarriesNothing) {
  const Status ok;
  EXPECT_TRUE(ok.IsSuccess());
  EXPECT_TRUE(ok.reasons().empty());
  EXPECT_EQ(ok.plugin(), "");
  EXPECT_EQ(ok.Message(), "");
  EXPECT_EQ(ToString(ok), "Success");
}

TEST(StatusTest, CopiesAreDeepAndMovesKeepEverything) {
  Status s = Status::Unschedulable("Insufficient cpu");
  s.WithPlugin("NodeResourcesFit");
  Status copy = s;
  copy.AppendReason("Too many pods");
  EXPECT_EQ(s.Message(), "Insufficient cpu");
  EXPECT_EQ(copy.Message(), "Insufficient cpu, Too many pods");
  EXPECT_EQ(copy.plugin(), "NodeResourcesFit");
  EXPECT_FALSE(s == copy);

  Status moved = std::move(copy);
  EXPECT_EQ(moved.code(), Code::kUnschedulable);
  EXPECT_EQ(ToString(moved), "Unschedulable: Insufficient cpu, Too many pods (NodeResourcesFit)");
  copy = moved;
  EXPECT_TRUE(copy == moved);
}

TEST(StatusTest, EqualityIgnoresThePlugin) {
  Status a = Status::Unresolvable("node(s) didn't match Pod's node affinity/selector");
  Status b = a;
  b.WithPlugin("NodeAffinity");
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a == Status(Code::kUnschedulableAndUnresolvable));
}

}  // namespace
}  // namespace muster::framework
