#include "muster/scheduler/object_store.h"

#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::scheduler {
namespace {

using ::testing::ElementsAre;
using testing::MakePod;

api::PodPtr Shared(api::Pod pod) { return std::make_shared<const api::Pod>(std::move(pod)); }

std::vector<std::string> Names(const std::vector<const api::Pod*>& pods) {
  std::vector<std::string> names;
  for (const api::Pod* pod : pods) names.push_back(pod->metadata.name);
  return names;
}

std::vector<std::string> WithLabel(const ObjectStore& store, std::string_view ns,
                                   std::string_view value) {
  return Names(store.PodsWithLabel(api::Symbol(ns), api::Symbol("app"), api::Symbol(value)));
}

// The store keeps no copy of a pod's name: an update replaces the pod its entry and its
// indexes find the pod by (the old pod freed: under AddressSanitizer, anything still viewing its
// name would be a use after free).
TEST(ObjectStoreTest, AnUpdatedPodIsFoundUnderItsNameAndLabel) {
  ObjectStore store;
  api::Pod pod = MakePod().Name("web").Namespace("prod").Label("app", "web").Obj();
  store.StorePod(Shared(pod));
  pod.metadata.resource_version = "2";
  const framework::PodInfoPtr& stored = store.StorePod(Shared(pod));
  EXPECT_EQ(stored->pod.metadata.resource_version, "2");
  const framework::PodInfoPtr* found = store.FindPod(api::PodName::Parse("prod/web"));
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found, &stored);  // the same slot
  EXPECT_EQ((*found)->pod.metadata.resource_version, "2");
  EXPECT_THAT(WithLabel(store, "prod", "web"), ElementsAre("web"));
  EXPECT_EQ(store.FindPod(api::PodName::Parse("dev/web")), nullptr);

  // New labels move it in the index.
  pod.metadata.labels.Set(api::Symbol("app"), api::Symbol("api"));
  store.StorePod(Shared(pod));
  EXPECT_THAT(WithLabel(store, "prod", "web"), ::testing::IsEmpty());
  EXPECT_THAT(WithLabel(store, "prod", "api"), ElementsAre("web"));

  store.ForgetPod(pod);
  EXPECT_EQ(store.FindPod(api::PodName::Of(pod)), nullptr);
  EXPECT_THAT(WithLabel(store, "prod", "api"), ::testing::IsEmpty());
}

// An index lists its pods in name order, whatever the order they came in, and only those of
// its namespace.
TEST(ObjectStoreTest, IndexesListPodsInNameOrder) {
  ObjectStore store;
  for (const char* name : {"c", "a", "d", "b"}) {
    store.StorePod(
        Shared(MakePod().Name(name).Namespace("x").Label("app", "w").PodGroup("g").Obj()));
  }
  store.StorePod(Shared(MakePod().Name("a").Namespace("y").Label("app", "w").PodGroup("g").Obj()));
  store.ForgetPod(MakePod().Name("d").Namespace("x").Obj());
  EXPECT_THAT(WithLabel(store, "x", "w"), ElementsAre("a", "b", "c"));
  EXPECT_THAT(WithLabel(store, "y", "w"), ElementsAre("a"));
  const framework::PodInfoPtr* a = store.FindPod(api::PodName::Parse("x/a"));
  ASSERT_NE(a, nullptr);
  EXPECT_THAT(Names(store.PodsInGang(api::Symbol("x"), (*a)->gang)), ElementsAre("a", "b", "c"));
}

// Attempts count by name, across the pod's deletion and a new pod of the same name.
TEST(ObjectStoreTest, AttemptsCountByName) {
  ObjectStore store;
  const api::Pod pod = MakePod().Name("p").Namespace("ns").Obj();
  const api::PodName name = api::PodName::Of(pod);
  store.CountAttempt(name);  // before it is stored
  store.StorePod(Shared(pod));
  store.CountAttempt(name);
  EXPECT_EQ(store.Attempts(name), 2);
  store.ForgetPod(pod);
  EXPECT_EQ(store.Attempts(api::PodName::Parse("ns/p")), 2);
  store.StorePod(Shared(pod));
  store.CountAttempt(name);
  EXPECT_EQ(store.Attempts(name), 3);
  EXPECT_EQ(store.Attempts(api::PodName::Parse("ns/q")), 0);
}

}  // namespace
}  // namespace muster::scheduler
