#include "muster/api/cel/cel.h"

#include <string>

#include <gtest/gtest.h>

namespace muster::api::cel {
namespace {

// A selector must evaluate to bool (or dyn, checked when evaluated).
struct ResultTypeCase {
  std::string expression;
  std::string error;  // the whole message
};

class ResultTypeTest : public testing::TestWithParam<ResultTypeCase> {};

TEST_P(ResultTypeTest, Fails) {
  const Compiled c = Compile(GetParam().expression);
  EXPECT_EQ(c.program, nullptr);
  EXPECT_EQ(c.error, GetParam().error) << GetParam().expression;
}

INSTANTIATE_TEST_SUITE_P(
    Cel, ResultTypeTest,
    testing::Values(
        ResultTypeCase{"1", "must evaluate to bool or the unknown type, not int"},
        ResultTypeCase{"device.driver", "must evaluate to bool or the unknown type, not string"},
        ResultTypeCase{R"(device.capacity["a"].b)",
                       "must evaluate to bool or the unknown type, not kubernetes.Quantity"},
        ResultTypeCase{"device.attributes",
                       "must evaluate to bool or the unknown type, not map(string, map(string, "
                       "dyn))"},
        ResultTypeCase{"[1]", "must evaluate to bool or the unknown type, not list(int)"}));

TEST(CompileTest, LengthIsBounded) {
  const std::string long_string = "'" + std::string(100000, 'a') + "' == ''";
  EXPECT_EQ(Compile(long_string).error,
            "compilation failed: ERROR: <input>:-1:0: expression code point size exceeds limit: "
            "size: 100008, limit 100000");
}

}  // namespace
}  // namespace muster::api::cel
