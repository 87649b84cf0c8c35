#include "muster/cluster/kube/decode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/types.h"

namespace muster::cluster::kube {
namespace {

using ::testing::HasSubstr;

WatchEvent<api::Pod> Watch(std::string_view line) {
  return DecodeWatchEvent<api::Pod>(line, "v1", "watch pods");
}

TEST(DecodeWatchEventTest, AddedPod) {
  WatchEvent<api::Pod> e = Watch(
      R"({"type":"ADDED","object":{"metadata":{"name":"p","namespace":"ml","resourceVersion":"7"},)"
      R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"250m"}}}]}}})");
  EXPECT_EQ(e.type, WatchEventType::kAdded);
  EXPECT_EQ(e.resource_version, "7");
  ASSERT_TRUE(e.object.has_value());
  EXPECT_EQ(e.object->metadata.Key(), "ml/p");
}

TEST(DecodeWatchEventTest, UnreadableObjectKeepsItsFirstError) {
  WatchEvent<api::Pod> e =
      Watch(R"({"type":"MODIFIED","object":{"metadata":{"name":"p","resourceVersion":"8"},)"
            R"("spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}}})");
  EXPECT_EQ(e.type, WatchEventType::kModified);
  EXPECT_EQ(e.resource_version, "8");
  EXPECT_FALSE(e.object.has_value());
  EXPECT_THAT(e.error, HasSubstr("watch pods (Pod default/p): spec.containers[0]"));
}

TEST(DecodeWatchEventTest, BookmarkErrorAndOtherLines) {
  WatchEvent<api::Pod> bookmark =
      Watch(R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}})");
  EXPECT_EQ(bookmark.type, WatchEventType::kBookmark);
  EXPECT_EQ(bookmark.resource_version, "9");

  WatchEvent<api::Pod> gone =
      Watch(R"({"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old",)"
            R"("metadata":{"resourceVersion":"1"}}})");
  EXPECT_EQ(gone.type, WatchEventType::kError);
  EXPECT_EQ(gone.code, 410);
  EXPECT_EQ(gone.message, "too old");
  EXPECT_FALSE(gone.resource_version.has_value());

  EXPECT_EQ(Watch("").type, WatchEventType::kIgnored);
  EXPECT_EQ(Watch("{not json").type, WatchEventType::kNotJson);
  EXPECT_EQ(Watch(R"({"type":"ADDED"})").type, WatchEventType::kIgnored);
  WatchEvent<api::Pod> unknown =
      Watch(R"({"type":"LATER","object":{"metadata":{"resourceVersion":"3"}}})");
  EXPECT_EQ(unknown.type, WatchEventType::kIgnored);
  EXPECT_EQ(unknown.resource_version, "3");
}

TEST(DecodeListPageTest, ItemsContinueAndSkipped) {
  const std::string body =
      R"({"metadata":{"resourceVersion":"42","continue":"next"},"items":[)"
      R"({"metadata":{"name":"a"}},{"metadata":{"name":"b"},"spec":{"unschedulable":"yes"}},)"
      R"({"metadata":{"name":"c"}}]})";
  std::optional<ListPage<api::Node>> page = DecodeListPage<api::Node>(body, "v1", "list nodes");
  ASSERT_TRUE(page.has_value());
  EXPECT_EQ(page->resource_version, "42");
  EXPECT_EQ(page->continue_token, "next");
  ASSERT_EQ(page->items.size(), 2u);
  EXPECT_EQ(page->items[1].metadata.name, "c");
  ASSERT_EQ(page->skipped.size(), 1u);
  EXPECT_THAT(page->skipped[0], HasSubstr("list nodes (Node b): spec.unschedulable"));

  EXPECT_FALSE(DecodeListPage<api::Node>("<html>", "v1", "list nodes").has_value());
}

}  // namespace
}  // namespace muster::cluster::kube
