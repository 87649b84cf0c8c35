#pragma once

// The one table shape of CEL's compile errors: each phase's tests (lexer_test.cc, parser_test.cc,
// checker_test.cc, cel_test.cc) instantiate CompileErrorTest with the errors that phase reports;
// the test itself is in cel_test.cc.

#include <string>

#include <gtest/gtest.h>

namespace muster::api::cel {

struct CompileErrorCase {
  std::string expression;
  std::string error;  // the whole message, as Compile returns it
};

class CompileErrorTest : public testing::TestWithParam<CompileErrorCase> {};

}  // namespace muster::api::cel
