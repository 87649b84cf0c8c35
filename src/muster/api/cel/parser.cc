#include "muster/api/cel/parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "muster/api/cel/cel.h"
#include "muster/api/cel/lexer.h"

namespace muster::api::cel {
namespace {

constexpr std::string_view kExpectingExpr =
    "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
    "STRING, BYTES, IDENTIFIER}";

bool IsReserved(std::string_view id) {
  static constexpr std::string_view kReserved[] = {
      "as",  "break", "const",   "continue",  "else",   "for", "function", "if",   "import",
      "let", "loop",  "package", "namespace", "return", "var", "void",     "while"};
  return std::find(std::begin(kReserved), std::end(kReserved), id) != std::end(kReserved);
}

// Thrown inside the parser only, to unwind on the first error; never escapes Parse.
struct ParseFailure {};

class Parser {
 public:
  explicit Parser(std::string_view src) : src_(src), lexer_(src) {}

  ExprPtr Parse(Issue* error) {
    try {
      Advance();
      ExprPtr e = ParseExpr();
      if (tok_.kind != Tok::kEof) Mismatched("<EOF>");
      return e;
    } catch (const ParseFailure&) {
      *error = std::move(error_);
      return nullptr;
    }
  }

 private:
  [[noreturn]] void Fail(std::optional<size_t> pos, std::string message) {
    error_ = {pos, std::move(message)};
    throw ParseFailure{};
  }

  std::string TokenText() const {
    if (tok_.kind == Tok::kEof) return "<EOF>";
    return std::string(src_.substr(tok_.pos, tok_.end - tok_.pos));
  }

  [[noreturn]] void Mismatched(std::string_view expecting) {
    Fail(tok_.pos, "Syntax error: mismatched input '" + TokenText() + "' expecting " +
                       std::string(expecting));
  }

  void Advance() {
    Issue error;
    if (!lexer_.Next(&tok_, &error)) Fail(error.offset, std::move(error.message));
  }

  void Expect(Tok kind, std::string_view text) {
    if (tok_.kind != kind) Mismatched("'" + std::string(text) + "'");
    Advance();
  }

  ExprPtr Node(Expr::Kind kind, size_t pos) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    return e;
  }

  ExprPtr Finish(ExprPtr e) {
    int h = 0;
    if (e->target) h = e->target->height;
    for (const ExprPtr& a : e->args) h = std::max(h, a->height);
    e->height = h + 1;
    if (e->height > kMaxTreeHeight) Fail(std::nullopt, "max recursion depth exceeded");
    return e;
  }

  ExprPtr Call(std::string name, size_t pos, std::vector<ExprPtr> args) {
    ExprPtr e = Node(Expr::Kind::kCall, pos);
    e->name = std::move(name);
    e->args = std::move(args);
    return Finish(std::move(e));
  }

  // expr: or ('?' or ':' expr)?  — cel-go bounds the nesting of this rule.
  ExprPtr ParseExpr() {
    if (++depth_ > kMaxRecursionDepth) {
      Fail(std::nullopt,
           "expression recursion limit exceeded: " + std::to_string(kMaxRecursionDepth));
    }
    ExprPtr cond = ParseLogical(Tok::kOr);
    if (tok_.kind == Tok::kQuestion) {
      const size_t pos = tok_.pos;
      Advance();
      ExprPtr then = ParseLogical(Tok::kOr);
      Expect(Tok::kColon, ":");
      ExprPtr otherwise = ParseExpr();
      std::vector<ExprPtr> args;
      args.push_back(std::move(cond));
      args.push_back(std::move(then));
      args.push_back(std::move(otherwise));
      cond = Call("_?_:_", pos, std::move(args));
    }
    --depth_;
    return cond;
  }

  // A chain of || (or of &&) becomes one call with every operand, as cel-go balances such
  // chains: its depth does not grow with its length.
  ExprPtr ParseLogical(Tok op) {
    ExprPtr first = op == Tok::kOr ? ParseLogical(Tok::kAnd) : ParseRelation();
    if (tok_.kind != op) return first;
    const size_t pos = tok_.pos;
    std::vector<ExprPtr> args;
    args.push_back(std::move(first));
    while (tok_.kind == op) {
      Advance();
      args.push_back(op == Tok::kOr ? ParseLogical(Tok::kAnd) : ParseRelation());
    }
    return Call(op == Tok::kOr ? "_||_" : "_&&_", pos, std::move(args));
  }

  ExprPtr ParseRelation() {
    ExprPtr left = ParseAdditive();
    while (true) {
      const char* name = nullptr;
      switch (tok_.kind) {
        case Tok::kLt:
          name = "_<_";
          break;
        case Tok::kLe:
          name = "_<=_";
          break;
        case Tok::kGt:
          name = "_>_";
          break;
        case Tok::kGe:
          name = "_>=_";
          break;
        case Tok::kEq:
          name = "_==_";
          break;
        case Tok::kNe:
          name = "_!=_";
          break;
        case Tok::kIn:
          name = "@in";
          break;
        default:
          return left;
      }
      const size_t pos = tok_.pos;
      Advance();
      std::vector<ExprPtr> args;
      args.push_back(std::move(left));
      args.push_back(ParseAdditive());
      left = Call(name, pos, std::move(args));
    }
  }

  ExprPtr ParseAdditive() {
    ExprPtr left = ParseMultiplicative();
    while (tok_.kind == Tok::kPlus || tok_.kind == Tok::kMinus) {
      const char* name = tok_.kind == Tok::kPlus ? "_+_" : "_-_";
      const size_t pos = tok_.pos;
      Advance();
      std::vector<ExprPtr> args;
      args.push_back(std::move(left));
      args.push_back(ParseMultiplicative());
      left = Call(name, pos, std::move(args));
    }
    return left;
  }

  ExprPtr ParseMultiplicative() {
    ExprPtr left = ParseUnary();
    while (tok_.kind == Tok::kStar || tok_.kind == Tok::kSlash || tok_.kind == Tok::kPercent) {
      const char* name = tok_.kind == Tok::kStar ? "_*_" : tok_.kind == Tok::kSlash ? "_/_" : "_%_";
      const size_t pos = tok_.pos;
      Advance();
      std::vector<ExprPtr> args;
      args.push_back(std::move(left));
      args.push_back(ParseUnary());
      left = Call(name, pos, std::move(args));
    }
    return left;
  }

  // cel-go: a run of '!' (or '-') applies once when odd and not at all when even. A single '-'
  // before a number is part of the literal, so -9223372036854775808 is an int.
  ExprPtr ParseUnary() {
    if (tok_.kind != Tok::kNot && tok_.kind != Tok::kMinus) return ParseMember(ParsePrimary());
    const Tok op = tok_.kind;
    const size_t pos = tok_.pos;
    int count = 0;
    while (tok_.kind == op) {
      ++count;
      Advance();
    }
    if (op == Tok::kMinus && count == 1 && (tok_.kind == Tok::kInt || tok_.kind == Tok::kDouble)) {
      return ParseMember(ParseNumber(pos, true));
    }
    ExprPtr operand = ParseMember(ParsePrimary());
    if (count % 2 == 0) return operand;
    std::vector<ExprPtr> args;
    args.push_back(std::move(operand));
    return Call(op == Tok::kNot ? "!_" : "-_", pos, std::move(args));
  }

  std::vector<ExprPtr> ParseArgs() {
    std::vector<ExprPtr> args;
    Advance();  // '('
    if (tok_.kind != Tok::kRParen) {
      args.push_back(ParseExpr());
      while (tok_.kind == Tok::kComma) {
        Advance();
        args.push_back(ParseExpr());
      }
    }
    Expect(Tok::kRParen, ")");
    return args;
  }

  ExprPtr ParseMember(ExprPtr e) {
    while (true) {
      if (tok_.kind == Tok::kDot) {
        const size_t dot = tok_.pos;
        Advance();
        if (tok_.kind == Tok::kQuestion) Fail(tok_.pos, "unsupported syntax '.?'");
        if (tok_.kind != Tok::kIdent) Mismatched("IDENTIFIER");
        std::string name = tok_.text;
        Advance();
        if (tok_.kind == Tok::kLParen) {
          const size_t open = tok_.pos;
          ExprPtr call = Node(Expr::Kind::kCall, open);
          call->name = std::move(name);
          call->target = std::move(e);
          call->args = ParseArgs();
          e = Finish(std::move(call));
        } else {
          ExprPtr sel = Node(Expr::Kind::kSelect, dot);
          sel->name = std::move(name);
          sel->target = std::move(e);
          e = Finish(std::move(sel));
        }
      } else if (tok_.kind == Tok::kLBracket) {
        const size_t open = tok_.pos;
        Advance();
        if (tok_.kind == Tok::kQuestion) Fail(tok_.pos, "unsupported syntax '[?'");
        std::vector<ExprPtr> args;
        args.push_back(std::move(e));
        args.push_back(ParseExpr());
        Expect(Tok::kRBracket, "]");
        e = Call("_[_]", open, std::move(args));
      } else {
        return e;
      }
    }
  }

  ExprPtr ParseNumber(size_t pos, bool negative) {
    ExprPtr e = Node(Expr::Kind::kLiteral, pos);
    std::string text = tok_.text;
    const Tok kind = tok_.kind;
    Advance();
    if (kind == Tok::kDouble) {
      if (negative) text.insert(0, "-");
      double value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size() || std::isinf(value)) {
        Fail(pos, "invalid double literal");
      }
      e->lit = LitKind::kDouble;
      e->d = value;
      return Finish(std::move(e));
    }
    int base = 10;
    std::string_view digits = text;
    if (kind == Tok::kUint) digits.remove_suffix(1);
    if (digits.starts_with("0x")) {
      base = 16;
      digits.remove_prefix(2);
    }
    if (kind == Tok::kUint) {
      uint64_t value = 0;
      const auto [end, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
      if (ec != std::errc() || end != digits.data() + digits.size())
        Fail(pos, "invalid uint literal");
      e->lit = LitKind::kUint;
      e->u = value;
      return Finish(std::move(e));
    }
    std::string signed_digits = (negative ? "-" : "") + std::string(digits);
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(
        signed_digits.data(), signed_digits.data() + signed_digits.size(), value, base);
    if (ec != std::errc() || end != signed_digits.data() + signed_digits.size()) {
      Fail(pos, "invalid int literal");
    }
    e->lit = LitKind::kInt;
    e->i = value;
    return Finish(std::move(e));
  }

  ExprPtr ParsePrimary() {
    const size_t pos = tok_.pos;
    switch (tok_.kind) {
      case Tok::kInt:
      case Tok::kDouble:
        return ParseNumber(pos, false);
      case Tok::kUint:
        return ParseNumber(pos, false);
      case Tok::kString:
      case Tok::kBytes: {
        ExprPtr e = Node(Expr::Kind::kLiteral, pos);
        e->lit = tok_.kind == Tok::kString ? LitKind::kString : LitKind::kBytes;
        e->str = std::move(tok_.text);
        Advance();
        return Finish(std::move(e));
      }
      case Tok::kTrue:
      case Tok::kFalse: {
        ExprPtr e = Node(Expr::Kind::kLiteral, pos);
        e->lit = LitKind::kBool;
        e->b = tok_.kind == Tok::kTrue;
        Advance();
        return Finish(std::move(e));
      }
      case Tok::kNull: {
        ExprPtr e = Node(Expr::Kind::kLiteral, pos);
        Advance();
        return Finish(std::move(e));
      }
      case Tok::kLParen: {
        Advance();
        ExprPtr e = ParseExpr();
        Expect(Tok::kRParen, ")");
        return e;
      }
      case Tok::kLBracket: {
        ExprPtr e = Node(Expr::Kind::kList, pos);
        Advance();
        if (tok_.kind == Tok::kQuestion) Fail(tok_.pos, "unsupported syntax '[?'");
        while (tok_.kind != Tok::kRBracket) {
          e->args.push_back(ParseExpr());
          if (tok_.kind != Tok::kComma) break;
          Advance();
        }
        Expect(Tok::kRBracket, "]");
        return Finish(std::move(e));
      }
      case Tok::kMinus: {
        // A negative number is a literal wherever a primary may stand, as in `!-1`.
        Advance();
        if (tok_.kind != Tok::kInt && tok_.kind != Tok::kDouble) Mismatched("{NUM_FLOAT, NUM_INT}");
        return ParseNumber(pos, true);
      }
      case Tok::kLBrace:
        Fail(pos, "map literals are not supported");
      case Tok::kDot:
      case Tok::kIdent: {
        if (tok_.kind == Tok::kDot) {
          Advance();
          if (tok_.kind != Tok::kIdent) Mismatched("IDENTIFIER");
        }
        const size_t ident_pos = tok_.pos;
        std::string name = tok_.text;
        Advance();
        if (IsReserved(name)) Fail(ident_pos, "reserved identifier: " + name);
        if (tok_.kind == Tok::kLParen) {
          const size_t open = tok_.pos;
          ExprPtr call = Node(Expr::Kind::kCall, open);
          call->name = std::move(name);
          call->args = ParseArgs();
          return Finish(std::move(call));
        }
        if (tok_.kind == Tok::kLBrace) Fail(tok_.pos, "message construction is not supported");
        ExprPtr e = Node(Expr::Kind::kIdent, ident_pos);
        e->name = std::move(name);
        return Finish(std::move(e));
      }
      default:
        Mismatched(kExpectingExpr);
    }
  }

  std::string_view src_;
  Lexer lexer_;
  Token tok_;
  Issue error_;
  int depth_ = 0;
};

}  // namespace

ExprPtr Parse(std::string_view source, Issue* error) { return Parser(source).Parse(error); }

}  // namespace muster::api::cel
