#include "muster/framework/object_table.h"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace muster::framework {
namespace {

api::Shared<api::PodDisruptionBudget> Pdb(std::string ns, std::string name, int32_t min = 1) {
  api::PodDisruptionBudget pdb;
  pdb.metadata.namespace_ = api::Symbol(ns);
  pdb.metadata.name = std::move(name);
  pdb.min_available = api::IntOrString{.int_value = min};
  return std::make_shared<const api::PodDisruptionBudget>(std::move(pdb));
}

std::vector<std::string> Names(const std::vector<const api::PodDisruptionBudget*>& pdbs) {
  std::vector<std::string> out;
  for (const api::PodDisruptionBudget* p : pdbs) out.push_back(p->metadata.Key());
  return out;
}

TEST(ObjectTable, GetsByNamespaceAndNameAndListsOneNamespaceInNameOrder) {
  ObjectTable<api::PodDisruptionBudget> table;
  table.Set(Pdb("prod", "web"));
  table.Set(Pdb("prod", "api"));
  table.Set(Pdb("production", "db"));  // a namespace whose name starts with another's
  table.Set(Pdb("dev", "web"));
  EXPECT_EQ(Names(table.List(api::Symbol("prod"))),
            (std::vector<std::string>{"prod/api", "prod/web"}));
  EXPECT_EQ(Names(table.List()),
            (std::vector<std::string>{"dev/web", "prod/api", "prod/web", "production/db"}));
  ASSERT_NE(table.Get(api::Symbol("dev"), api::Symbol("web")), nullptr);
  EXPECT_EQ(table.Get(api::Symbol("dev"), api::Symbol("api")), nullptr);
  EXPECT_EQ(table.size(), 4u);
}

TEST(ObjectTable, SetReplacesAndEraseForgets) {
  ObjectTable<api::PodDisruptionBudget> table;
  table.Set(Pdb("prod", "web", 1));
  table.Set(Pdb("prod", "web", 3));
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table.Get(api::Symbol("prod"), api::Symbol("web"))->min_available->int_value, 3);
  EXPECT_EQ(table.List(api::Symbol("prod")).size(), 1u);
  table.Erase(Pdb("prod", "web")->metadata);
  EXPECT_EQ(table.Get(api::Symbol("prod"), api::Symbol("web")), nullptr);
  EXPECT_TRUE(table.List().empty());
}

TEST(ObjectTable, AClusterScopedKindIsFoundByNameAlone) {
  ObjectTable<api::Namespace> table;
  api::Namespace ns;
  ns.metadata.name = "prod";
  table.Set(std::make_shared<const api::Namespace>(ns));
  ASSERT_NE(table.Get(api::Symbol(), api::Symbol("prod")), nullptr);
  EXPECT_EQ(table.List(api::Symbol()).size(), 1u);
}

// What a reader of ChangesSince sees: each change after its version, oldest first, with the
// object before and after; nothing from before KeepChanges; and false, so that it rebuilds,
// once it has fallen further behind than the table keeps.
TEST(ObjectTable, ChangesSinceAVersionAreReplayedInOrder) {
  ObjectTable<api::PodDisruptionBudget> table;
  table.Set(Pdb("prod", "web", 1));
  const uint64_t unkept = table.version();
  table.KeepChanges();
  EXPECT_FALSE(table.ChangesSince(0, [](auto, auto) {}));
  const uint64_t start = table.version();
  EXPECT_EQ(start, unkept);
  table.Set(Pdb("prod", "web", 2));
  table.Set(Pdb("prod", "api", 5));
  table.Erase(Pdb("prod", "web")->metadata);
  std::vector<std::string> seen;
  auto describe = [&seen](const api::PodDisruptionBudget* before,
                          const api::PodDisruptionBudget* after) {
    auto one = [](const api::PodDisruptionBudget* p) {
      return p == nullptr ? std::string("-")
                          : p->metadata.Key() + "=" + std::to_string(p->min_available->int_value);
    };
    seen.push_back(one(before) + " > " + one(after));
  };
  ASSERT_TRUE(table.ChangesSince(start, describe));
  EXPECT_EQ(seen, (std::vector<std::string>{"prod/web=1 > prod/web=2", "- > prod/api=5",
                                            "prod/web=2 > -"}));
  seen.clear();
  ASSERT_TRUE(table.ChangesSince(start + 2, describe));
  EXPECT_EQ(seen, (std::vector<std::string>{"prod/web=2 > -"}));
  seen.clear();
  ASSERT_TRUE(table.ChangesSince(table.version(), describe));
  EXPECT_TRUE(seen.empty());
  EXPECT_FALSE(table.ChangesSince(table.version() + 1, describe));

  for (size_t i = 0; i < 2 * ObjectTable<api::PodDisruptionBudget>::kKeptChanges; ++i) {
    table.Set(Pdb("prod", "api", static_cast<int32_t>(i)));
  }
  EXPECT_FALSE(table.ChangesSince(start, describe));
  EXPECT_TRUE(seen.empty());
  const uint64_t recent = table.version() - ObjectTable<api::PodDisruptionBudget>::kKeptChanges;
  ASSERT_TRUE(table.ChangesSince(recent, describe));
  EXPECT_EQ(seen.size(), ObjectTable<api::PodDisruptionBudget>::kKeptChanges);
}

}  // namespace
}  // namespace muster::framework
