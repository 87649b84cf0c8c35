#pragma once

// The checker: types an expression tree as cel-go's checker does (overload resolution, the
// device's declared fields, macros, cel.bind) and lowers it to the program's Nodes in the same
// pass.

#include <vector>

#include "muster/api/cel/ast.h"
#include "muster/api/cel/issue.h"
#include "muster/api/cel/program.h"
#include "muster/api/cel/types.h"

namespace muster::api::cel {

// Checks `expr` and lowers it into `program`, whose root it sets. Returns the expression's type.
// On failure `issues` holds the type errors or, when there were none, the validators' (literal
// patterns that do not compile, ...), which cel-go reports only after a successful check.
const Type* CheckAndLower(const Expr& expr, Program& program, std::vector<Issue>& issues);

}  // namespace muster::api::cel
