#pragma once

// A recursive-descent parser with the grammar and node positions of cel-go's CEL.g4.
#include <string_view>

#include "muster/api/cel/ast.h"
#include "muster/api/cel/issue.h"

namespace muster::api::cel {

// The expression tree of `source`, or null with *error set to the first syntax error (cel-go
// reports one).
ExprPtr Parse(std::string_view source, Issue* error);

}  // namespace muster::api::cel
