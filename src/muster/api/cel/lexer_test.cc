#include "muster/api/cel/lexer.h"

#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/cel/cel.h"
#include "muster/api/cel/compile_error_test.h"

namespace muster::api::cel {
namespace {

// Every token of `src` up to and including kEof; fails the test on a recognition error.
std::vector<Token> Lex(std::string_view src) {
  Lexer lexer(src);
  std::vector<Token> tokens;
  Issue error;
  do {
    tokens.emplace_back();
    if (!lexer.Next(&tokens.back(), &error)) {
      ADD_FAILURE() << src << ": " << error.message;
      break;
    }
  } while (tokens.back().kind != Tok::kEof);
  return tokens;
}

TEST(LexerTest, TokensWithTheirOffsets) {
  const std::vector<Token> tokens = Lex("device.driver >= 1u // a comment");
  ASSERT_EQ(tokens.size(), 6u);
  const Tok kinds[] = {Tok::kIdent, Tok::kDot, Tok::kIdent, Tok::kGe, Tok::kUint, Tok::kEof};
  const size_t starts[] = {0, 6, 7, 14, 17, 32};
  const size_t ends[] = {6, 7, 13, 16, 19, 32};
  for (size_t i = 0; i < tokens.size(); ++i) {
    EXPECT_EQ(tokens[i].kind, kinds[i]) << i;
    EXPECT_EQ(tokens[i].pos, starts[i]) << i;
    EXPECT_EQ(tokens[i].end, ends[i]) << i;
  }
  EXPECT_EQ(tokens[2].text, "driver");
  EXPECT_EQ(tokens[4].text, "1u");
}

TEST(LexerTest, KeywordsAndNumbers) {
  const std::vector<Token> tokens = Lex("in true false null 0x1F 2.5 1e3 1e");
  const Tok kinds[] = {Tok::kIn,     Tok::kTrue,   Tok::kFalse, Tok::kNull,  Tok::kInt,
                       Tok::kDouble, Tok::kDouble, Tok::kInt,   Tok::kIdent, Tok::kEof};
  ASSERT_EQ(tokens.size(), std::size(kinds));
  for (size_t i = 0; i < tokens.size(); ++i) EXPECT_EQ(tokens[i].kind, kinds[i]) << i;
  EXPECT_EQ(tokens[4].text, "0x1F");
  EXPECT_EQ(tokens[6].text, "1e3");
  // An exponent needs digits: "1e" is the int 1 and then the identifier e.
  EXPECT_EQ(tokens[7].text, "1");
  EXPECT_EQ(tokens[8].text, "e");
}

TEST(LexerTest, LiteralsAreDecoded) {
  struct Case {
    std::string_view src;
    Tok kind;
    std::string text;
  };
  const Case cases[] = {
      {R"('a\n\t')", Tok::kString, "a\n\t"}, {R"(r'a\n')", Tok::kString, "a\\n"},
      {R"(b'\x41\101')", Tok::kBytes, "AA"}, {R"("\u00e9")", Tok::kString, "\xc3\xa9"},
      {R"('''x'y''')", Tok::kString, "x'y"}, {R"(rb"\d")", Tok::kBytes, "\\d"},
  };
  for (const Case& c : cases) {
    const std::vector<Token> tokens = Lex(c.src);
    ASSERT_EQ(tokens.size(), 2u) << c.src;
    EXPECT_EQ(tokens[0].kind, c.kind) << c.src;
    EXPECT_EQ(tokens[0].text, c.text) << c.src;
    EXPECT_EQ(tokens[0].end, c.src.size()) << c.src;
  }
}

// What the lexer cannot read, as cel-go's ANTLR lexer reports it.
INSTANTIATE_TEST_SUITE_P(
    Lexer, CompileErrorTest,
    testing::Values(
        CompileErrorCase{R"("abc)",
                         "compilation failed: ERROR: <input>:1:1: Syntax error: token recognition "
                         "error at: '\"abc'\n | \"abc\n | ^"},
        CompileErrorCase{R"("\q" == "")",
                         "compilation failed: ERROR: <input>:1:1: Syntax error: token recognition "
                         "error at: '\"\\q'\n | \"\\q\" == \"\"\n | ^"},
        CompileErrorCase{
            "device.driver == #",
            "compilation failed: ERROR: <input>:1:18: Syntax error: token "
            "recognition error at: '#'\n | device.driver == #\n | .................^"}));

}  // namespace
}  // namespace muster::api::cel
