#include "muster/api/cel/utf8.h"

#include <string_view>

#include <gtest/gtest.h>

namespace muster::api::cel {
namespace {

// Each row as Go's unicode/utf8 reads it: ValidString and RuneCountInString.
TEST(Utf8Test, ReadsAsGoDoes) {
  struct Case {
    std::string_view text;
    bool valid;
    size_t code_points;
  };
  const Case cases[] = {
      {"", true, 0},
      {"abc", true, 3},
      {"\xc3\xa9", true, 1},           // é
      {"\xe2\x82\xac", true, 1},       // €
      {"\xf0\x9f\x98\x80", true, 1},   // U+1F600
      {"\xf4\x8f\xbf\xbf", true, 1},   // U+10FFFF, the last code point
      {"\xef\xbf\xbd", true, 1},       // U+FFFD itself
      {"\x80", false, 1},              // a continuation byte alone
      {"\xc0\x80", false, 2},          // NUL, overlong
      {"\xc1\xbf", false, 2},          // overlong
      {"\xe0\x80\xaf", false, 3},      // '/', overlong
      {"\xed\xa0\x80", false, 3},      // U+D800, a surrogate
      {"\xf0\x80\x80\xaf", false, 4},  // overlong
      {"\xf4\x90\x80\x80", false, 4},  // above U+10FFFF
      {"\xf5\x80\x80\x80", false, 4},  // no such lead byte
      {"a\xe2\x82", false, 3},         // cut short
      {"\xe2\x82!", false, 3},         // cut short before another character
      {"\xff", false, 1},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ValidUtf8(c.text), c.valid) << testing::PrintToString(c.text);
    EXPECT_EQ(CodePoints(c.text), c.code_points) << testing::PrintToString(c.text);
  }
}

TEST(Utf8Test, SequenceLengthIsZeroWhereNoSequenceStarts) {
  const std::string_view text = "a\xc3\xa9\x80";
  EXPECT_EQ(SequenceLength(text, 0), 1u);
  EXPECT_EQ(SequenceLength(text, 1), 2u);
  EXPECT_EQ(SequenceLength(text, 2), 0u);  // inside é
  EXPECT_EQ(SequenceLength(text, 3), 0u);
}

}  // namespace
}  // namespace muster::api::cel
