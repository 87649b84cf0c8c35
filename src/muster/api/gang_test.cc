#include "muster/api/gang.h"

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::api {
namespace {

using testing::MakePod;
using testing::MakePodGroup;

TEST(GangTest, APodsGangIsThePodGroupItsLabelNames) {
  const GangRef gang = GangOf(MakePod().Name("a").PodGroup("train").Obj());
  ASSERT_FALSE(gang.empty());
  EXPECT_TRUE(gang.Of<PodGroup>());
  EXPECT_FALSE(gang.Of<Node>());
  EXPECT_EQ(gang.name, Symbol("train"));

  Pod legacy = MakePod().Name("b").Obj();
  legacy.metadata.labels.Set(Symbol(kLegacyPodGroupLabel), Symbol("old"));
  EXPECT_EQ(GangOf(legacy), (GangRef{gang.kind, Symbol("old")})) << "seed 003's label";

  EXPECT_TRUE(GangOf(MakePod().Name("c").Obj()).empty());
  EXPECT_NE(GangOf(MakePod().Name("d").PodGroup("other").Obj()), gang);
}

TEST(GangTest, APodGroupDefinesOneGangOfItsNameAndMinMember) {
  const AnyObject group(std::make_shared<const PodGroup>(MakePodGroup("train", 4)));
  EXPECT_EQ(GangsDefinedBy(group), (std::vector<GangDefinition>{{Symbol("train"), 4}}));
  EXPECT_TRUE(GangsDefinedBy(AnyObject(std::make_shared<const Node>())).empty());
  EXPECT_TRUE(GangsDefinedBy(AnyObject{}).empty());
}

}  // namespace
}  // namespace muster::api
