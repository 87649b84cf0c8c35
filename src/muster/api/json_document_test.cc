#include "muster/api/json_document.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace muster::api {
namespace {

using ::testing::HasSubstr;

// Where two trees first differ (type, tag, text, an entry's place), or "" when they do not.
std::string FirstDifference(const YAML::Node& want, const YAML::Node& got, const std::string& at) {
  if (want.Type() != got.Type()) {
    return at + ": type " + std::to_string(got.Type()) + ", want " + std::to_string(want.Type());
  }
  if (want.Tag() != got.Tag()) return at + ": tag '" + got.Tag() + "', want '" + want.Tag() + "'";
  if (want.IsScalar() && want.Scalar() != got.Scalar()) {
    return at + ": '" + got.Scalar() + "', want '" + want.Scalar() + "'";
  }
  if (want.size() != got.size()) return at + ": size " + std::to_string(got.size());
  auto w = want.begin();
  auto g = got.begin();
  for (int i = 0; w != want.end(); ++w, ++g, ++i) {
    const std::string item = at + "[" + std::to_string(i) + "]";
    std::string d;
    if (want.IsMap()) {
      d = FirstDifference(w->first, g->first, item + ".key");
      if (d.empty()) d = FirstDifference(w->second, g->second, item + ".value");
    } else {
      d = FirstDifference(*w, *g, item);
    }
    if (!d.empty()) return d;
  }
  return "";
}

TEST(JsonToDocumentTest, BuildsTheTreeTheYamlReaderBuilds) {
  // Every kind of value, numbers spelt several ways, escapes, a key given twice, empty
  // collections, and nesting: the decoders read tags and spellings (a quoted "1" is a string).
  const char* texts[] = {
      R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "1"}}})",
      R"({"s": "x", "n": 1, "neg": -5, "f": 1.50, "e": 1e3, "E": 2.5E-3, "big": 18446744073709551615,
          "bigger": 18446744073709551616, "t": true, "no": false, "nil": null, "q": "1", "empty": ""})",
      R"({"a": 1, "b": {"c": [1, "2", [3, {"d": null}], {}], "e": []}, "a": 2})",
      R"({"esc": "tab\tquote\"slash\/back\\nl\nuni\u00e9", "": "empty key", "<<": {"x": 1}})",
      R"({"list": [{"name": "c1"}, {"name": "c2", "ports": [{"containerPort": 80}]}]})",
  };
  for (const char* text : texts) {
    std::string error;
    const std::optional<YAML::Node> got = JsonToDocument(text, &error);
    ASSERT_TRUE(got.has_value()) << text << "\n" << error;
    EXPECT_EQ(FirstDifference(YAML::Load(text), *got, "$"), "") << text;
  }
}

TEST(JsonToDocumentTest, AKeyGivenTwiceIsKeptTwiceAndTheFirstIsFound) {
  std::string error;
  const std::optional<YAML::Node> doc = JsonToDocument(R"({"a": "1", "b": "2", "a": "3"})", &error);
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->size(), 3u);
  EXPECT_EQ((*doc)["a"].Scalar(), "1");
  EXPECT_EQ((*doc)["b"].Scalar(), "2");
}

TEST(JsonToDocumentTest, RefusesWhatIsNotOneJsonValue) {
  std::string error;
  EXPECT_FALSE(JsonToDocument(R"({"a": 1,})", &error).has_value());
  EXPECT_THAT(error, HasSubstr("parse error at line 1, column 9"));
  // Two values: nlohmann's words, which DecodeText reads to leave such a stream to the YAML
  // reader.
  EXPECT_FALSE(JsonToDocument(R"({"a": 1} {"b": 2})", &error).has_value());
  EXPECT_THAT(error, HasSubstr("expected end of input"));
  EXPECT_FALSE(JsonToDocument("{\"a\": \"\xff\"}", &error).has_value());
  EXPECT_THAT(error, HasSubstr("UTF-8"));
}

TEST(JsonToDocumentTest, NestingPastTheLimitIsLeftToTheYamlReader) {
  std::string deep;
  for (size_t i = 0; i < kMaxJsonDepth; ++i) deep += "[";
  deep += "1";
  for (size_t i = 0; i < kMaxJsonDepth; ++i) deep += "]";
  std::string error;
  EXPECT_TRUE(JsonToDocument(deep, &error).has_value()) << error;
  EXPECT_FALSE(JsonToDocument("[" + deep + "]", &error).has_value());
  EXPECT_EQ(error, "");
}

TEST(JsonToDocumentTest, ANumberPastADoublesRangeIsLeftToTheYamlReader) {
  std::string error = "unchanged";
  EXPECT_FALSE(JsonToDocument(R"({"cpu": 1e400})", &error).has_value());
  EXPECT_EQ(error, "");
}

TEST(JsonToDocumentTest, TakesASurrogatePairAsJsonDoes) {
  std::string error;
  const std::optional<YAML::Node> doc = JsonToDocument(R"({"s": "\ud83d\ude00"})", &error);
  ASSERT_TRUE(doc.has_value()) << error;
  EXPECT_EQ((*doc)["s"].Scalar(), "\xf0\x9f\x98\x80");
  EXPECT_EQ((*doc)["s"].Tag(), "!");
}

}  // namespace
}  // namespace muster::api
