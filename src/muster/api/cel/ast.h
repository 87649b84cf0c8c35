#pragma once

// The parser's output: cel-go's expression tree, with the byte offset of each node.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace muster::api::cel {

enum class LitKind : uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kBytes };

struct Expr {
  enum class Kind : uint8_t { kLiteral, kIdent, kSelect, kCall, kList };
  Kind kind = Kind::kLiteral;
  size_t pos = 0;
  // kLiteral
  LitKind lit = LitKind::kNull;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  // kIdent: the name; kSelect: the field; kCall: the function (operators as cel-go names them,
  // "_+_", "_[_]", "@in", "!_").
  std::string name;
  std::string str;                          // kLiteral string or bytes
  std::unique_ptr<Expr> target;             // kSelect operand; kCall receiver of a method call
  std::vector<std::unique_ptr<Expr>> args;  // kCall arguments; kList elements
  int height = 1;  // nodes on the longest path down, which bounds every later recursion
};

using ExprPtr = std::unique_ptr<Expr>;

// Deeper trees than this are refused: checking and evaluating recurse once per level. The
// recursive functions keep their helpers out of line (noinline) so that a level costs little stack.
inline constexpr int kMaxTreeHeight = 500;

}  // namespace muster::api::cel
