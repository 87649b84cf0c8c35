#include "muster/api/cel/checker.h"

#include <string>

#include <gtest/gtest.h>

#include "muster/api/cel/cel.h"
#include "muster/api/cel/compile_error_test.h"

namespace muster::api::cel {
namespace {

// Type errors and the validators' errors, as cel-go's checker reports them.
INSTANTIATE_TEST_SUITE_P(
    Checker, CompileErrorTest,
    testing::Values(
        CompileErrorCase{"foo",
                         "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' "
                         "(in container '')\n | foo\n | ^"},
        CompileErrorCase{"foo && bar",
                         "compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' "
                         "(in container '')\n | foo && bar\n | ^\n"
                         "ERROR: <input>:1:8: undeclared reference to 'bar' (in container '')\n"
                         " | foo && bar\n | .......^"},
        CompileErrorCase{"device.foo",
                         "compilation failed: ERROR: <input>:1:7: undefined field 'foo'\n"
                         " | device.foo\n | ......^"},
        CompileErrorCase{"device.driver > 1",
                         "compilation failed: ERROR: <input>:1:15: found no matching overload for "
                         "'_>_' applied to '(string, int)'\n | device.driver > 1\n"
                         " | ..............^"},
        CompileErrorCase{"device.driver.contains(1)",
                         "compilation failed: ERROR: <input>:1:23: found no matching overload for "
                         "'contains' applied to 'string.(int)'\n | device.driver.contains(1)\n"
                         " | ......................^"},
        CompileErrorCase{"device.driver.frobnicate()",
                         "compilation failed: ERROR: <input>:1:25: undeclared reference to "
                         "'frobnicate' (in container '')\n | device.driver.frobnicate()\n"
                         " | ........................^"},
        CompileErrorCase{"1 == 1.0",
                         "compilation failed: ERROR: <input>:1:3: found no matching overload for "
                         "'_==_' applied to '(int, double)'\n | 1 == 1.0\n | ..^"},
        CompileErrorCase{"device.attributes[1].x",
                         "compilation failed: ERROR: <input>:1:18: found no matching overload for "
                         "'_[_]' applied to '(map(string, map(string, dyn)), int)'\n"
                         " | device.attributes[1].x\n | .................^"},
        CompileErrorCase{R"(1 in device.attributes)",
                         "compilation failed: ERROR: <input>:1:3: found no matching overload for "
                         "'@in' applied to '(int, map(string, map(string, dyn)))'\n"
                         " | 1 in device.attributes\n | ..^"},
        CompileErrorCase{R"(quantity("1").sign() == 1)",
                         "compilation failed: ERROR: <input>:1:19: found no matching overload for "
                         "'sign' applied to 'kubernetes.Quantity.()'\n"
                         " | quantity(\"1\").sign() == 1\n | ..................^"},
        CompileErrorCase{R"([1, "a"] == [])",
                         "compilation failed: ERROR: <input>:1:5: expected type 'int' but found "
                         "'string'\n | [1, \"a\"] == []\n | ....^"},
        CompileErrorCase{R"(device.driver.matches("["))",
                         "compilation failed: ERROR: <input>:1:23: invalid matches argument\n"
                         " | device.driver.matches(\"[\")\n | ......................^"},
        CompileErrorCase{"has(device)",
                         "compilation failed: ERROR: <input>:1:5: invalid argument to has() "
                         "macro\n | has(device)\n | ....^"},
        CompileErrorCase{"[1].all(1, true)",
                         "compilation failed: ERROR: <input>:1:9: argument must be a simple "
                         "name\n | [1].all(1, true)\n | ........^"},
        CompileErrorCase{"1.all(x, true)",
                         "compilation failed: ERROR: <input>:1:1: expression of type 'int' cannot "
                         "be range of a comprehension (must be list, map, or dynamic)\n"
                         " | 1.all(x, true)\n | ^"},
        CompileErrorCase{"[1].all(x, x)",
                         "compilation failed: ERROR: <input>:1:12: found no matching overload for "
                         "'_&&_' applied to '(bool, int)'\n | [1].all(x, x)\n | ...........^"},
        CompileErrorCase{"x.all(x, true)",
                         "compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in "
                         "container '')\n | x.all(x, true)\n | ^"},
        CompileErrorCase{"true && 1",
                         "compilation failed: ERROR: <input>:1:6: found no matching overload for "
                         "'_&&_' applied to '(bool, int)'\n | true && 1\n | .....^"},
        CompileErrorCase{"true ? 1 : 'a'",
                         "compilation failed: ERROR: <input>:1:6: found no matching overload for "
                         "'_?_:_' applied to '(bool, int, string)'\n | true ? 1 : 'a'\n"
                         " | .....^"},
        CompileErrorCase{"device.driver.x",
                         "compilation failed: ERROR: <input>:1:14: type 'string' does not support "
                         "field selection\n | device.driver.x\n | .............^"},
        // Positions count code points, on the line of the error.,
        CompileErrorCase{"'é' == 'é' &&\n  foo",
                         "compilation failed: ERROR: <input>:2:3: undeclared reference to 'foo' "
                         "(in container '')\n |   foo\n | ..^"}));

}  // namespace
}  // namespace muster::api::cel
