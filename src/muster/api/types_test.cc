#include "muster/api/types.h"

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::api {
namespace {

using testing::MakePod;

TEST(PodGroupName, TheCurrentLabelFirstThenTheOlderOne) {
  EXPECT_EQ(
      PodGroupName(MakePod().Name("a").Label("scheduling.x-k8s.io/pod-group", "x").Obj()).str(),
      "x");
  EXPECT_EQ(
      PodGroupName(MakePod().Name("b").Label("pod-group.scheduling.sigs.k8s.io", "y").Obj()).str(),
      "y");
  EXPECT_EQ(PodGroupName(MakePod()
                             .Name("c")
                             .Label("pod-group.scheduling.sigs.k8s.io", "old")
                             .Label("scheduling.x-k8s.io/pod-group", "new")
                             .Obj())
                .str(),
            "new");
  EXPECT_TRUE(PodGroupName(MakePod().Name("d").Obj()).empty());
}

}  // namespace
}  // namespace muster::api
