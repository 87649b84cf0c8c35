#include "muster/plugins/imagelocality/image_locality.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/testing/fake_services.h"

// Cases from upstream image_locality_test.go (TestImageLocalityPriority, TestNormalizedImageName).
// Image states come from the real cache, through FakeServices, as upstream's come from its
// snapshot.

namespace muster::plugins::imagelocality {
namespace {

using testing::FakeServices;

struct Image {
  std::vector<std::string> names;
  int64_t size_mb;
};

api::Node ImageNode(std::string_view name, const std::vector<Image>& images) {
  api::Node node = testing::MakeNode().Name(name).Obj();
  for (const Image& i : images) node.status.images.push_back({i.names, i.size_mb * kMB});
  return node;
}

api::Pod PodWithImages(const std::vector<std::string>& images,
                       const std::vector<std::string>& init_images = {}) {
  api::Pod pod = testing::MakePod().Name("p").Obj();
  for (const std::string& image : images) {
    api::Container c;
    c.image = api::Symbol(image);
    pod.spec.containers.push_back(std::move(c));
  }
  for (const std::string& image : init_images) {
    api::Container c;
    c.image = api::Symbol(image);
    pod.spec.init_containers.push_back(std::move(c));
  }
  return pod;
}

const std::vector<Image> kNode403002000 = {
    {{"gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"}, 40},
    {{"gcr.io/300:latest", "gcr.io/300:v1"}, 300},
    {{"gcr.io/2000:latest"}, 2000},
};
const std::vector<Image> kNode25010 = {
    {{"gcr.io/250:latest"}, 250},
    {{"gcr.io/10:latest", "gcr.io/10:v1"}, 10},
};
const std::vector<Image> kNode60040900 = {
    {{"gcr.io/600:latest"}, 600},
    {{"gcr.io/40:latest"}, 40},
    {{"gcr.io/900:latest"}, 900},
};
const std::vector<Image> kNode300600900 = {
    {{"gcr.io/300:latest"}, 300},
    {{"gcr.io/600:latest"}, 600},
    {{"gcr.io/900:latest"}, 900},
};
const std::vector<Image> kNode400030 = {
    {{"gcr.io/4000:latest"}, 4000},
    {{"gcr.io/30:latest"}, 30},
};
const std::vector<Image> kNode203040 = {
    {{"gcr.io/20:latest"}, 20},
    {{"gcr.io/30:latest"}, 30},
    {{"gcr.io/40:latest"}, 40},
};
const std::vector<Image> kNoImages = {};

TEST(ImageLocalityScore, UpstreamCases) {
  struct NodeSpec {
    std::string name;
    const std::vector<Image>* images;
  };
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<NodeSpec> nodes;
    std::vector<int64_t> want;
  };
  const std::vector<Case> cases = {
      // node2: 100 * (250M/2 - 23M) / (1000M * 2 - 23M) = 5
      {"two images spread on two nodes, prefer the larger image one",
       PodWithImages({"gcr.io/40", "gcr.io/250"}),
       {{"node1", &kNode403002000}, {"node2", &kNode25010}},
       {0, 5}},
      // node1: 100 * ((40M + 300M)/2 - 23M) / (1000M * 2 - 23M) = 7
      {"two images on one node, prefer this node",
       PodWithImages({"gcr.io/40", "gcr.io/300"}),
       {{"node1", &kNode403002000}, {"node2", &kNode25010}},
       {7, 0}},
      {"if exceed limit, use limit",
       PodWithImages({"gcr.io/10", "gcr.io/4000"}),
       {{"node1", &kNode400030}, {"node2", &kNode25010}},
       {100, 0}},
      // node1: 100 * (4000M/3 - 23M) / (1000M * 2 - 23M) = 66
      {"if exceed limit, use limit (with node which has no images present)",
       PodWithImages({"gcr.io/10", "gcr.io/4000"}),
       {{"node1", &kNode400030}, {"node2", &kNode25010}, {"node3", &kNoImages}},
       {66, 0, 0}},
      {"pod with multiple large images, node2 is preferred",
       PodWithImages({"gcr.io/300", "gcr.io/600", "gcr.io/900"}),
       {{"node1", &kNode60040900}, {"node2", &kNode300600900}, {"node3", &kNoImages}},
       {32, 36, 0}},
      {"pod with multiple small images",
       PodWithImages({"gcr.io/30", "gcr.io/40"}),
       {{"node1", &kNode203040}, {"node2", &kNode400030}},
       {1, 0}},
      {"include InitContainers: two images spread on two nodes, prefer the larger image one",
       PodWithImages({"gcr.io/30"}, {"gcr.io/300"}),
       {{"node1", &kNode403002000}, {"node2", &kNode203040}},
       {6, 0}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeServices fake;
    for (const NodeSpec& n : c.nodes) fake.AddNode(ImageNode(n.name, *n.images));
    // Upstream's cases score one snapshot taken of all the nodes (NewSnapshot). The fake copies
    // each node as it comes, when it counts only the nodes before it, so each node comes again:
    // an update, copied with every node counted.
    for (const NodeSpec& n : c.nodes) fake.AddNode(ImageNode(n.name, *n.images));
    std::unique_ptr<framework::Plugin> plugin = ImageLocality::New({}, fake.handle(), nullptr);
    const auto& scorer = dynamic_cast<const framework::ScorePlugin&>(*plugin);
    const framework::PodInfoPtr pod = framework::PodInfo::Make(c.pod);
    framework::CycleState state;
    std::vector<int64_t> got;
    for (const NodeSpec& n : c.nodes) {
      const framework::NodeInfo* node = fake.snapshot().Get(api::Symbol(n.name));
      ASSERT_NE(node, nullptr);
      int64_t score = -1;
      ASSERT_TRUE(scorer.Score(state, *pod, *node, &score).IsSuccess());
      got.push_back(score);
    }
    EXPECT_EQ(got, c.want);
    EXPECT_FALSE(scorer.HasNormalizeScore());
  }
}

TEST(ImageLocalityScore, PodWithoutContainersScoresZero) {
  FakeServices fake;
  fake.AddNode(ImageNode("node1", kNode403002000));
  ImageLocality plugin(fake.handle());
  framework::CycleState state;
  int64_t score = -1;
  ASSERT_TRUE(plugin
                  .Score(state, *framework::PodInfo::Make(api::Pod{}),
                         *fake.snapshot().Get(api::Symbol("node1")), &score)
                  .IsSuccess());
  EXPECT_EQ(score, 0);
}

TEST(ImageLocalityNormalizedImageName, UpstreamCases) {
  // A digest reference keeps its form: "sha256:..." has a ':' after any '/'.
  const std::string digest =
      "root@sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2";
  struct Case {
    std::string name;
    std::string input;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"add :latest postfix 1", "root", "root:latest"},
      {"add :latest postfix 2", "gcr.io:5000/root", "gcr.io:5000/root:latest"},
      {"keep it as is 1", "root:tag", "root:tag"},
      {"keep it as is 2", digest, digest},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(NormalizedImageName(c.input), c.want);
  }
}

TEST(ImageLocalityScore, MatchesOnlyTheNormalizedName) {
  FakeServices fake;
  fake.AddNode(ImageNode("node1", {{{"gcr.io:5000/root:latest"}, 1000},
                                   {{"docker.io/library/nginx:latest"}, 1000},
                                   {{"gcr.io/x:latest-extra"}, 1000}}));
  ImageLocality plugin(fake.handle());
  framework::CycleState state;
  const framework::NodeInfo& node = *fake.snapshot().Get(api::Symbol("node1"));
  auto score_of = [&](const std::string& image) {
    int64_t score = -1;
    EXPECT_TRUE(plugin.Score(state, *framework::PodInfo::Make(PodWithImages({image})), node, &score)
                    .IsSuccess());
    return score;
  };
  EXPECT_EQ(score_of("gcr.io:5000/root"), 100);
  EXPECT_EQ(score_of("gcr.io:5000/root:latest"), 100);
  // No registry is filled in, as upstream.
  EXPECT_EQ(score_of("nginx"), 0);
  EXPECT_EQ(score_of("gcr.io/x"), 0);
}

TEST(ImageLocalityCalculatePriority, Bounds) {
  EXPECT_EQ(CalculatePriority(0, 1), 0);
  EXPECT_EQ(CalculatePriority(kMinThreshold, 1), 0);
  EXPECT_EQ(CalculatePriority(kMaxContainerThreshold, 1), 100);
  EXPECT_EQ(CalculatePriority(5 * kMaxContainerThreshold, 2), 100);
  // 100 * (500M - 23M) / (1000M - 23M) = 48
  EXPECT_EQ(CalculatePriority(500 * kMB, 1), 48);
}

}  // namespace
}  // namespace muster::plugins::imagelocality
