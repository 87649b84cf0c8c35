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

}  // namespace
}  // namespace muster::framework
