#include "muster/api/cel/cel.h"

#include <string>

#include <gtest/gtest.h>

#include "muster/api/cel/compile_error_test.h"

namespace muster::api::cel {
namespace {

// Compile refuses the expression, with exactly this message (every phase's table).
TEST_P(CompileErrorTest, Fails) {
  const Compiled c = Compile(GetParam().expression);
  EXPECT_EQ(c.program, nullptr);
  EXPECT_EQ(c.error, GetParam().error) << GetParam().expression;
}

// A selector must evaluate to bool (or dyn, checked when evaluated).
INSTANTIATE_TEST_SUITE_P(
    ResultType, CompileErrorTest,
    testing::Values(
        CompileErrorCase{"1", "must evaluate to bool or the unknown type, not int"},
        CompileErrorCase{"device.driver", "must evaluate to bool or the unknown type, not string"},
        CompileErrorCase{R"(device.capacity["a"].b)",
                         "must evaluate to bool or the unknown type, not kubernetes.Quantity"},
        CompileErrorCase{"device.attributes",
                         "must evaluate to bool or the unknown type, not map(string, map(string, "
                         "dyn))"},
        CompileErrorCase{"[1]", "must evaluate to bool or the unknown type, not list(int)"}));

TEST(CompileTest, LengthIsBounded) {
  const std::string long_string = "'" + std::string(100000, 'a') + "' == ''";
  EXPECT_EQ(Compile(long_string).error,
            "compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: "
            "size: 100008, limit 100000");
}

}  // namespace
}  // namespace muster::api::cel
