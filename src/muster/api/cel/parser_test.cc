#include "muster/api/cel/parser.h"

#include <string>

#include <gtest/gtest.h>

#include "muster/api/cel/cel.h"
#include "muster/api/cel/compile_error_test.h"

namespace muster::api::cel {
namespace {

// The tree of an expression, with cel-go's node positions: an operator at its first character,
// a selection at its dot.
TEST(ParserTest, TreeWithPositions) {
  Issue error;
  const ExprPtr e = Parse("device.driver == 'a'", &error);
  ASSERT_NE(e, nullptr) << error.message;
  EXPECT_EQ(e->kind, Expr::Kind::kCall);
  EXPECT_EQ(e->name, "_==_");
  EXPECT_EQ(e->pos, 14u);
  EXPECT_EQ(e->height, 3);
  ASSERT_EQ(e->args.size(), 2u);
  const Expr& select = *e->args[0];
  EXPECT_EQ(select.kind, Expr::Kind::kSelect);
  EXPECT_EQ(select.name, "driver");
  EXPECT_EQ(select.pos, 6u);
  ASSERT_NE(select.target, nullptr);
  EXPECT_EQ(select.target->kind, Expr::Kind::kIdent);
  EXPECT_EQ(select.target->name, "device");
  EXPECT_EQ(select.target->pos, 0u);
  const Expr& literal = *e->args[1];
  EXPECT_EQ(literal.kind, Expr::Kind::kLiteral);
  EXPECT_EQ(literal.lit, LitKind::kString);
  EXPECT_EQ(literal.str, "a");
  EXPECT_EQ(literal.pos, 17u);
}

TEST(ParserTest, TheFirstSyntaxErrorOnly) {
  Issue error;
  EXPECT_EQ(Parse("(true", &error), nullptr);
  EXPECT_EQ(error.offset, 5u);
  EXPECT_EQ(error.message, "Syntax error: mismatched input '<EOF>' expecting ')'");
}

// Syntax errors, as cel-go's parser reports them.
INSTANTIATE_TEST_SUITE_P(
    Parser, CompileErrorTest,
    testing::Values(
        CompileErrorCase{"?!",
                         "compilation failed: ERROR: <input>:1:1: Syntax error: mismatched input "
                         "'?' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', "
                         "NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | ?!\n | ^"},
        CompileErrorCase{"device.driver ==",
                         "compilation failed: ERROR: <input>:1:17: Syntax error: mismatched input "
                         "'<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', "
                         "'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n"
                         " | device.driver ==\n"
                         " | ................^"},
        CompileErrorCase{"(true",
                         "compilation failed: ERROR: <input>:1:6: Syntax error: mismatched input "
                         "'<EOF>' expecting ')'\n | (true\n | .....^"},
        CompileErrorCase{"true true",
                         "compilation failed: ERROR: <input>:1:6: Syntax error: mismatched input "
                         "'true' expecting <EOF>\n | true true\n | .....^"},
        CompileErrorCase{"while",
                         "compilation failed: ERROR: <input>:1:1: reserved identifier: while\n"
                         " | while\n | ^"},
        CompileErrorCase{"99999999999999999999 > 0",
                         "compilation failed: ERROR: <input>:1:1: invalid int literal\n"
                         " | 99999999999999999999 > 0\n | ^"},
        CompileErrorCase{"{'a': 1}",
                         "compilation failed: ERROR: <input>:1:1: map literals are not "
                         "supported\n | {'a': 1}\n | ^"},
        CompileErrorCase{"'é' == ",
                         "compilation failed: ERROR: <input>:1:8: Syntax error: "
                         "mismatched input '<EOF>' expecting {'[', '{', '(', '.', "
                         "'-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, "
                         "NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 'é' == \n"
                         " | .\uff0e.....^"}));

}  // namespace
}  // namespace muster::api::cel
