#pragma once

// The checker: types an expression tree as cel-go's checker does (overload resolution, the
// device's declared fields, macros, cel.bind) and lowers it to the program's Nodes in the same
// pass.

#include <string>
#include <vector>

#include "muster/api/cel/ast.h"
#include "muster/api/cel/issue.h"
#include "muster/api/cel/program.h"
#include "muster/api/cel/types.h"

namespace muster::api::cel {

// The type of a checked expression, as Compile judges it: its kind, and cel-go's name of it when
// it is neither bool nor dyn, the only types a selector may have. (The type itself may live in
// the checker, gone once CheckAndLower returns.)
struct RootType {
  TypeKind kind = TypeKind::kDyn;
  std::string name;
};

// Checks `expr` and lowers it into `program`, whose root it sets. On failure `issues` holds the
// type errors or, when there were none, the validators' (literal patterns that do not compile,
// ...), which cel-go reports only after a successful check.
RootType CheckAndLower(const Expr& expr, Program& program, std::vector<Issue>& issues);

}  // namespace muster::api::cel
