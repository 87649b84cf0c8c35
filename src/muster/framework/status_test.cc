#include "muster/framework/status.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/framework/interface.h"

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

TEST(StatusTest, CopiesActAsDeepAndMovesKeepEverything) {
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

TEST(StatusTest, CopiesShareReasonsUntilOneIsWritten) {
  Status shared = Status::Unschedulable("Insufficient cpu");
  shared.WithPlugin("NodeResourcesFit");
  Status a = shared;
  Status b = shared;
  EXPECT_EQ(a.identity(), shared.identity());
  // Stamping the plugin already stamped writes nothing.
  a.WithPlugin("NodeResourcesFit");
  EXPECT_EQ(a.identity(), shared.identity());
  b.WithPlugin("Other");
  EXPECT_NE(b.identity(), shared.identity());
  EXPECT_EQ(b.plugin(), "Other");
  EXPECT_EQ(shared.plugin(), "NodeResourcesFit");
  EXPECT_EQ(b.Message(), "Insufficient cpu");
  // The last holder writes in place.
  Status last = Status::Unschedulable("x");
  const void* before = last.identity();
  last.AppendReason("y");
  EXPECT_EQ(last.identity(), before);
  // Self-assignment keeps the reasons alive.
  const Status& self = a;
  a = self;
  EXPECT_EQ(a.Message(), "Insufficient cpu");
}

TEST(NodeToStatusTest, SetGetReplaceAndGrow) {
  NodeToStatus m;
  m.absent = Status::Unresolvable("absent");
  EXPECT_EQ(m.Get(api::Symbol("nowhere")).Message(), "absent");
  for (int i = 0; i < 100; ++i) {
    m.Set(api::Symbol("node-" + std::to_string(i)), Status::Unschedulable(std::to_string(i)));
  }
  m.Set(api::Symbol("node-7"), Status::Unschedulable("replaced"));
  EXPECT_EQ(m.size(), 100u);
  EXPECT_EQ(m.Get(api::Symbol("node-7")).Message(), "replaced");
  EXPECT_EQ(m.Get(api::Symbol("node-99")).Message(), "99");
  EXPECT_EQ(m.Get(api::Symbol("node-100")).Message(), "absent");
  EXPECT_EQ(m.entries().front().first, api::Symbol("node-0"));
}

TEST(NodeToStatusTest, ReasonCountsOverSharedAndDistinctStatuses) {
  NodeToStatus m;
  m.absent = Status::Unresolvable("node(s) were absent");
  const Status cpu(Code::kUnschedulable,
                   std::vector<std::string>{"Insufficient cpu", "Too many pods"});
  for (int i = 0; i < 12; ++i) m.Set(api::Symbol("shared-" + std::to_string(i)), cpu);
  // More distinct statuses than are grouped by identity: counted one by one, same result.
  for (int i = 0; i < 40; ++i) {
    m.Set(api::Symbol("own-" + std::to_string(i)), Status::Unschedulable("Insufficient cpu"));
  }
  m.Set(api::Symbol("bare"), Status(Code::kUnschedulable));
  EXPECT_EQ(m.ReasonCounts(60), (std::vector<std::string>{"12 Too many pods", "52 Insufficient cpu",
                                                          "7 node(s) were absent"}));
}

}  // namespace
}  // namespace muster::framework
