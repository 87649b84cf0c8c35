#include "muster/api/cel/cel.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "muster/api/cel/checker.h"
#include "muster/api/cel/issue.h"
#include "muster/api/cel/parser.h"
#include "muster/api/cel/program.h"
#include "muster/api/cel/types.h"
#include "muster/api/cel/utf8.h"

// The pipeline (one file a phase, in this folder): lexer.cc's tokens feed parser.cc's
// recursive-descent parser, which builds an Expr tree (ast.h) with the grammar and node positions
// of cel-go's CEL.g4; checker.cc type-checks it as cel-go's checker does (types.h) and lowers it
// to a Program of Nodes (program.h) in the same pass; evaluator.cc walks the Nodes against one
// device with the values of value.h.

namespace muster::api::cel {

Compiled Compile(std::string_view expression) {
  auto fail = [&](std::vector<Issue> issues) {
    return Compiled{nullptr, "compilation failed: " + DisplayIssues(expression, std::move(issues))};
  };
  const size_t code_points = CodePoints(expression);
  if (code_points > kMaxExpressionCodePoints) {
    return fail({{std::nullopt,
                  "expression code point size exceeds limit: size: " + std::to_string(code_points) +
                      ", limit " + std::to_string(kMaxExpressionCodePoints)}});
  }
  Issue syntax;
  ExprPtr ast = Parse(expression, &syntax);
  if (!ast) return fail({std::move(syntax)});

  auto program = std::make_shared<Program>();
  std::vector<Issue> issues;
  const RootType type = CheckAndLower(*ast, *program, issues);
  if (!issues.empty()) return fail(std::move(issues));
  if (type.kind != TypeKind::kBool && type.kind != TypeKind::kDyn) {
    return Compiled{nullptr, "must evaluate to bool or the unknown type, not " + type.name};
  }
  return Compiled{std::move(program), ""};
}

}  // namespace muster::api::cel
