#include "muster/api/kinds.h"

#include <algorithm>
#include <set>
#include <utility>

#include <gtest/gtest.h>

namespace muster::api {
namespace {

TEST(KindsTest, NameAndApiVersionAreUnique) {
  // Decoding finds a kind by its name and apiVersion (two PodGroup kinds live in different API
  // groups), so a second row serving the same pair would never be used.
  std::set<std::pair<std::string_view, std::string_view>> rows;
  size_t versions = 0;
  std::apply(
      [&](const auto&... kind) {
        ((versions += kind.api_versions.size(),
          std::for_each(kind.api_versions.begin(), kind.api_versions.end(),
                        [&](std::string_view v) { rows.emplace(kind.name, v); })),
         ...);
      },
      Kinds());
  EXPECT_EQ(rows.size(), versions);
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
  EXPECT_TRUE(ForKindNamed("Deployment", "apps/v1", [&](const auto& kind) { found = kind.name; }));
  EXPECT_EQ(found, "Deployment");
  EXPECT_FALSE(ForKindNamed("ConfigMap", "v1", [](const auto&) { ADD_FAILURE(); }));
}

TEST(KindsTest, KindsOfOneNameAreToldApartByApiVersion) {
  std::vector<std::string_view> versions;
  auto row = [&](const auto& kind) { versions = kind.api_versions; };
  EXPECT_TRUE(ForKindNamed("PodGroup", "scheduling.k8s.io/v1alpha2", row));
  EXPECT_EQ(versions, KindOf<SchedulingPodGroup>().api_versions);
  EXPECT_TRUE(ForKindNamed("PodGroup", "scheduling.x-k8s.io/v1alpha1", row));
  EXPECT_EQ(versions, KindOf<PodGroup>().api_versions);
  // No kind of that name serves the version: the first row answers (its decoder reports it).
  EXPECT_TRUE(ForKindNamed("PodGroup", "example.com/v1", row));
  EXPECT_EQ(versions, KindOf<PodGroup>().api_versions);
  EXPECT_EQ(
      ApiVersionsOfKind("PodGroup"),
      (std::vector<std::string_view>{"scheduling.x-k8s.io/v1alpha1",
                                     "scheduling.sigs.k8s.io/v1alpha1", "scheduling.k8s.io/v1beta1",
                                     "scheduling.k8s.io/v1alpha3", "scheduling.k8s.io/v1alpha2"}));
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
