#include "muster/api/kinds.h"

#include <set>

#include <gtest/gtest.h>

namespace muster::api {
namespace {

TEST(KindsTest, NamesAreUnique) {
  // Decoding finds a kind by its name, so a second row with the same name would never be used.
  std::set<std::string_view> names;
  std::apply([&](const auto&... kind) { (names.insert(kind.name), ...); }, Kinds());
  EXPECT_EQ(names.size(), std::tuple_size_v<std::remove_cvref_t<decltype(Kinds())>>);
}

TEST(KindsTest, EveryClusterKindHasAResourceAndKnowsItsPlace) {
  // A cluster fetches a kind by its resource: a cluster kind without one could not be watched.
  size_t index = 0;
  ForEachClusterKind([&]<typename T>(std::type_identity<T>) {
    EXPECT_FALSE(KindOf<T>().resource.empty()) << KindOf<T>().name;
    EXPECT_EQ(kClusterKindIndex<T>, index++) << KindOf<T>().name;
  });
  EXPECT_EQ(index, ClusterKinds::size);
  EXPECT_FALSE(kIsClusterKind<Deployment>) << "a workload is the simulation's, not the cluster's";
  EXPECT_TRUE(KindOf<Pod>().when_unserved.empty()) << "required";
  EXPECT_FALSE(KindOf<PodGroup>().when_unserved.empty()) << "a CRD the server may not serve";
}

TEST(KindsTest, AnyObjectHoldsOneKindAndSaysWhich) {
  Node node;
  node.metadata.name = "n1";
  const AnyObject object(std::make_shared<const Node>(node));
  ASSERT_NE(ObjectOf<Node>(object), nullptr);
  EXPECT_EQ(ObjectOf<Node>(object)->metadata.name, "n1");
  EXPECT_EQ(ObjectOf<Pod>(object), nullptr);
  EXPECT_EQ(MetaOf(object).name, "n1");
  EXPECT_EQ(ObjectOf<Node>(AnyObject{}), nullptr) << "the empty object is of no kind";
}

TEST(KindsTest, ForKindNamedFindsTheRowOrNothing) {
  std::string_view found;
  EXPECT_TRUE(ForKindNamed("Deployment", [&](const auto& kind) { found = kind.name; }));
  EXPECT_EQ(found, "Deployment");
  EXPECT_FALSE(ForKindNamed("ConfigMap", [](const auto&) { ADD_FAILURE(); }));
}

TEST(KindsTest, VisitHandsOverTheEntrysObject) {
  LoadResult r;
  DecodeText(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Pod
metadata: {name: p1}
spec: {containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
)",
             "test.yaml", r);
  ASSERT_TRUE(r.ok());
  const Manifests& m = r.manifests;
  std::vector<const void*> seen;
  for (const ObjectEntry& e : m.order) {
    seen.push_back(Visit(m, e, [](const auto& object) -> const void* { return &object; }));
  }
  EXPECT_EQ(seen, (std::vector<const void*>{&m.nodes[0], &m.pods[0], &m.nodes[1]}));
  const std::string kind = Visit(m, m.order[1],
                                 Overloaded{
                                     [](const Pod&) { return "pod"; },
                                     [](const auto&) { return "other"; },
                                 });
  EXPECT_EQ(kind, "pod");
}

}  // namespace
}  // namespace muster::api
