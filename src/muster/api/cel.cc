#include "muster/api/cel.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <forward_list>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include <re2/re2.h>

// The pipeline: a lexer and a recursive-descent parser build an Expr tree (the grammar and node
// positions of cel-go's CEL.g4); Checker type-checks it as cel-go's checker does and lowers it to
// a Node tree in the same pass; Evaluator walks the Node tree against one device.

namespace muster::api::cel {
namespace {

// ============================== Source positions and errors ==============================

// One compile error. `offset` is a byte offset into the expression; nullopt is cel-go's
// NoLocation, printed as -1:0.
struct Issue {
  std::optional<size_t> offset;
  std::string message;
};

// cel-go's Error.ToDisplayString: "ERROR: <input>:LINE:COL: MESSAGE", then the source line and a
// caret under the column. Columns count code points, from 1.
std::string DisplayIssue(std::string_view source, const Issue& issue) {
  if (!issue.offset) return "ERROR: <input>:-1:0: " + issue.message;
  const size_t offset = std::min(*issue.offset, source.size());
  const size_t line_start = source.rfind('\n', offset == 0 ? 0 : offset - 1);
  const size_t begin = (line_start == std::string_view::npos || offset == 0) ? 0 : line_start + 1;
  const size_t line_end = source.find('\n', begin);
  const std::string_view line =
      source.substr(begin, line_end == std::string_view::npos ? line_end : line_end - begin);
  const size_t line_number = 1 + std::count(source.begin(), source.begin() + begin, '\n');
  std::string dots;
  size_t column = 0;
  for (size_t i = begin; i < offset; ++i) {
    if ((static_cast<unsigned char>(source[i]) & 0xC0) == 0x80) continue;
    ++column;
    const bool wide = static_cast<unsigned char>(source[i]) >= 0x80;
    dots += wide ? "\uff0e" : ".";
  }
  const bool wide_caret =
      offset < source.size() && static_cast<unsigned char>(source[offset]) >= 0x80;
  std::string snippet(line);
  std::replace(snippet.begin(), snippet.end(), '\t', ' ');
  return "ERROR: <input>:" + std::to_string(line_number) + ":" + std::to_string(column + 1) + ": " +
         issue.message + "\n | " + snippet + "\n | " + dots + (wide_caret ? "\uff3e" : "^");
}

std::string DisplayIssues(std::string_view source, std::vector<Issue> issues) {
  std::stable_sort(issues.begin(), issues.end(), [](const Issue& a, const Issue& b) {
    const long x = a.offset ? static_cast<long>(*a.offset) : -1;
    const long y = b.offset ? static_cast<long>(*b.offset) : -1;
    return x < y;
  });
  std::string out;
  for (const Issue& issue : issues) {
    if (!out.empty()) out += "\n";
    out += DisplayIssue(source, issue);
  }
  return out;
}

// ============================== Lexer ==============================

enum class Tok : uint8_t {
  kEof,
  kIdent,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kTrue,
  kFalse,
  kNull,
  kIn,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kDot,
  kComma,
  kColon,
  kQuestion,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kNot,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
};

struct Token {
  Tok kind = Tok::kEof;
  size_t pos = 0;
  size_t end = 0;
  std::string text;  // the decoded value of a string or bytes literal
};

// Appends code point `cp` as UTF-8.
void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsIdentStart(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentPart(char c) { return IsIdentStart(c) || IsDigit(c); }

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  // The next token, or false with *error set (an ANTLR-style token recognition error).
  bool Next(Token* tok, Issue* error) {
    SkipSpace();
    tok->text.clear();
    tok->pos = pos_;
    if (pos_ >= src_.size()) {
      tok->kind = Tok::kEof;
      tok->end = pos_;
      return true;
    }
    const char c = src_[pos_];
    const char n = pos_ + 1 < src_.size() ? src_[pos_ + 1] : '\0';
    if (IsDigit(c) || (c == '.' && IsDigit(n))) return Number(tok);
    if (c == '"' || c == '\'') return String(tok, error, false, false);
    if (IsIdentStart(c)) {
      // String prefixes: r (raw), b (bytes), in either order and case.
      const char lc = static_cast<char>(c | 0x20);
      const char ln = static_cast<char>(n | 0x20);
      if ((lc == 'r' || lc == 'b') && (n == '"' || n == '\'')) {
        ++pos_;
        return String(tok, error, lc == 'r', lc == 'b');
      }
      if (((lc == 'r' && ln == 'b') || (lc == 'b' && ln == 'r')) && pos_ + 2 < src_.size() &&
          (src_[pos_ + 2] == '"' || src_[pos_ + 2] == '\'')) {
        pos_ += 2;
        return String(tok, error, true, true);
      }
      size_t end = pos_;
      while (end < src_.size() && IsIdentPart(src_[end])) ++end;
      const std::string_view word = src_.substr(pos_, end - pos_);
      tok->kind = word == "true"    ? Tok::kTrue
                  : word == "false" ? Tok::kFalse
                  : word == "null"  ? Tok::kNull
                  : word == "in"    ? Tok::kIn
                                    : Tok::kIdent;
      tok->text = std::string(word);
      pos_ = tok->end = end;
      return true;
    }
    struct Op {
      std::string_view text;
      Tok kind;
    };
    static constexpr Op kOps[] = {
        {"==", Tok::kEq},      {"!=", Tok::kNe},      {"<=", Tok::kLe},    {">=", Tok::kGe},
        {"&&", Tok::kAnd},     {"||", Tok::kOr},      {"(", Tok::kLParen}, {")", Tok::kRParen},
        {"[", Tok::kLBracket}, {"]", Tok::kRBracket}, {"{", Tok::kLBrace}, {"}", Tok::kRBrace},
        {".", Tok::kDot},      {",", Tok::kComma},    {":", Tok::kColon},  {"?", Tok::kQuestion},
        {"+", Tok::kPlus},     {"-", Tok::kMinus},    {"*", Tok::kStar},   {"/", Tok::kSlash},
        {"%", Tok::kPercent},  {"!", Tok::kNot},      {"<", Tok::kLt},     {">", Tok::kGt},
    };
    for (const Op& op : kOps) {
      if (src_.substr(pos_).starts_with(op.text)) {
        tok->kind = op.kind;
        pos_ += op.text.size();
        tok->end = pos_;
        return true;
      }
    }
    return Unrecognized(pos_, pos_ + 1, error);
  }

 private:
  void SkipSpace() {
    while (pos_ < src_.size()) {
      const char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  bool Unrecognized(size_t start, size_t end, Issue* error) {
    // Show whole UTF-8 sequences.
    while (end < src_.size() && (static_cast<unsigned char>(src_[end]) & 0xC0) == 0x80) ++end;
    end = std::min(end, src_.size());
    *error = {start, "Syntax error: token recognition error at: '" +
                         std::string(src_.substr(start, end - start)) + "'"};
    return false;
  }

  bool Number(Token* tok) {
    const size_t start = pos_;
    bool is_float = false;
    if (src_.substr(pos_).starts_with("0x") && pos_ + 2 < src_.size() &&
        HexValue(src_[pos_ + 2]) >= 0) {
      pos_ += 2;
      while (pos_ < src_.size() && HexValue(src_[pos_]) >= 0) ++pos_;
    } else {
      while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
      if (pos_ + 1 < src_.size() && src_[pos_] == '.' && IsDigit(src_[pos_ + 1])) {
        is_float = true;
        ++pos_;
        while (pos_ < src_.size() && IsDigit(src_[pos_])) ++pos_;
      }
      // An exponent needs digits; "1e" is the int 1 and the identifier e.
      size_t e = pos_;
      if (e < src_.size() && (src_[e] == 'e' || src_[e] == 'E')) {
        ++e;
        if (e < src_.size() && (src_[e] == '+' || src_[e] == '-')) ++e;
        if (e < src_.size() && IsDigit(src_[e])) {
          while (e < src_.size() && IsDigit(src_[e])) ++e;
          pos_ = e;
          is_float = true;
        }
      }
    }
    tok->kind = is_float ? Tok::kDouble : Tok::kInt;
    if (!is_float && pos_ < src_.size() && (src_[pos_] == 'u' || src_[pos_] == 'U')) {
      ++pos_;
      tok->kind = Tok::kUint;
    }
    tok->text = std::string(src_.substr(start, pos_ - start));
    tok->end = pos_;
    return true;
  }

  // A string or bytes literal starting at pos_ (after any prefix), decoding escapes unless raw.
  bool String(Token* tok, Issue* error, bool raw, bool bytes) {
    const size_t start = tok->pos;
    const char quote = src_[pos_];
    const bool triple = src_.substr(pos_).starts_with(std::string(3, quote));
    pos_ += triple ? 3 : 1;
    std::string& out = tok->text;
    while (true) {
      if (pos_ >= src_.size()) return Unrecognized(start, src_.size(), error);
      const char c = src_[pos_];
      if (triple ? src_.substr(pos_).starts_with(std::string(3, quote)) : c == quote) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (!triple && (c == '\n' || c == '\r')) return Unrecognized(start, pos_ + 1, error);
      if (c != '\\' || raw) {
        out += c;
        ++pos_;
        // A raw string still cannot end at an escaped quote.
        if (c == '\\' && pos_ < src_.size() && (src_[pos_] == quote || src_[pos_] == '\\')) {
          out += src_[pos_++];
        }
        continue;
      }
      if (!Escape(out, bytes)) return Unrecognized(start, std::min(pos_, src_.size()), error);
    }
    tok->kind = bytes ? Tok::kBytes : Tok::kString;
    tok->end = pos_;
    if (!bytes) {
      // Strings hold UTF-8 text: bytes above 0x7F must form valid sequences (Go's unquote
      // rejects invalid ones as it builds the string).
      for (size_t i = 0; i < out.size();) {
        const unsigned char b = static_cast<unsigned char>(out[i]);
        const int len = b < 0x80         ? 1
                        : (b >> 5) == 6  ? 2
                        : (b >> 4) == 14 ? 3
                        : (b >> 3) == 30 ? 4
                                         : 0;
        if (len == 0 || i + len > out.size()) return Unrecognized(start, pos_, error);
        for (int k = 1; k < len; ++k) {
          if ((static_cast<unsigned char>(out[i + k]) & 0xC0) != 0x80) {
            return Unrecognized(start, pos_, error);
          }
        }
        i += len;
      }
    }
    return true;
  }

  // Decodes one escape sequence at pos_ (a backslash). On failure pos_ is just past the offending
  // character.
  bool Escape(std::string& out, bool bytes) {
    ++pos_;
    if (pos_ >= src_.size()) return false;
    const char c = src_[pos_++];
    switch (c) {
      case 'a':
        out += '\a';
        return true;
      case 'b':
        out += '\b';
        return true;
      case 'f':
        out += '\f';
        return true;
      case 'n':
        out += '\n';
        return true;
      case 'r':
        out += '\r';
        return true;
      case 't':
        out += '\t';
        return true;
      case 'v':
        out += '\v';
        return true;
      case '\\':
      case '\'':
      case '"':
      case '`':
      case '?':
        out += c;
        return true;
      default:
        break;
    }
    int digits = 0;
    int base = 16;
    if (c == 'x' || c == 'X') {
      digits = 2;
    } else if (c == 'u' && !bytes) {
      digits = 4;
    } else if (c == 'U' && !bytes) {
      digits = 8;
    } else if (c >= '0' && c <= '3') {
      digits = 2;
      base = 8;
    } else {
      return false;
    }
    uint32_t value = base == 8 ? static_cast<uint32_t>(c - '0') : 0;
    for (int i = 0; i < digits; ++i) {
      if (pos_ >= src_.size()) return false;
      const int d = HexValue(src_[pos_]);
      if (d < 0 || d >= base) {
        ++pos_;  // the error shows the offending character
        return false;
      }
      value = value * base + d;
      ++pos_;
    }
    if (bytes) {
      out += static_cast<char>(value);
      return true;
    }
    if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return false;
    AppendUtf8(out, value);
    return true;
  }

  std::string_view src_;
  size_t pos_ = 0;
};

// ============================== AST ==============================

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
constexpr int kMaxTreeHeight = 500;

// ============================== Parser ==============================

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

// ============================== Types ==============================

enum class TypeKind : uint8_t {
  kDyn,
  kError,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kNull,
  kList,
  kMap,
  kDevice,
  kQuantity,
  kSemver,
};

struct Type {
  TypeKind kind;
  const Type* key = nullptr;   // a map's keys
  const Type* elem = nullptr;  // a list's elements, a map's values
};

const Type kDynT{TypeKind::kDyn};
const Type kErrorT{TypeKind::kError};
const Type kBoolT{TypeKind::kBool};
const Type kIntT{TypeKind::kInt};
const Type kUintT{TypeKind::kUint};
const Type kDoubleT{TypeKind::kDouble};
const Type kStringT{TypeKind::kString};
const Type kBytesT{TypeKind::kBytes};
const Type kNullT{TypeKind::kNull};
const Type kDeviceT{TypeKind::kDevice};
const Type kQuantityT{TypeKind::kQuantity};
const Type kSemverT{TypeKind::kSemver};
const Type kListDynT{TypeKind::kList, nullptr, &kDynT};
const Type kListStringT{TypeKind::kList, nullptr, &kStringT};
const Type kMapDynT{TypeKind::kMap, &kDynT, &kDynT};
const Type kAttrsT{TypeKind::kMap, &kStringT, &kDynT};
const Type kAttrDomainsT{TypeKind::kMap, &kStringT, &kAttrsT};
const Type kCapsT{TypeKind::kMap, &kStringT, &kQuantityT};
const Type kCapDomainsT{TypeKind::kMap, &kStringT, &kCapsT};

std::string TypeName(const Type* t) {
  switch (t->kind) {
    case TypeKind::kDyn:
      return "dyn";
    case TypeKind::kError:
      return "*error*";
    case TypeKind::kBool:
      return "bool";
    case TypeKind::kInt:
      return "int";
    case TypeKind::kUint:
      return "uint";
    case TypeKind::kDouble:
      return "double";
    case TypeKind::kString:
      return "string";
    case TypeKind::kBytes:
      return "bytes";
    case TypeKind::kNull:
      return "null_type";
    case TypeKind::kList:
      return "list(" + TypeName(t->elem) + ")";
    case TypeKind::kMap:
      return "map(" + TypeName(t->key) + ", " + TypeName(t->elem) + ")";
    case TypeKind::kDevice:
      return "kubernetes.DRADevice";
    case TypeKind::kQuantity:
      return "kubernetes.Quantity";
    case TypeKind::kSemver:
      return "kubernetes.Semver";
  }
  return "dyn";
}

bool SameType(const Type* a, const Type* b) {
  if (a->kind != b->kind) return false;
  if (a->kind == TypeKind::kList) return SameType(a->elem, b->elem);
  if (a->kind == TypeKind::kMap) return SameType(a->key, b->key) && SameType(a->elem, b->elem);
  return true;
}

// cel-go's assignability, without type parameters: dyn (and an earlier error) goes anywhere.
bool Assignable(const Type* to, const Type* from) {
  if (to->kind == TypeKind::kDyn || from->kind == TypeKind::kDyn || to->kind == TypeKind::kError ||
      from->kind == TypeKind::kError) {
    return true;
  }
  if (to->kind != from->kind) return false;
  if (to->kind == TypeKind::kList) return Assignable(to->elem, from->elem);
  if (to->kind == TypeKind::kMap) {
    return Assignable(to->key, from->key) && Assignable(to->elem, from->elem);
  }
  return true;
}

// ============================== Runtime values ==============================

enum class Kind : uint8_t {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kQuantity,
  kSemver,
  kDevice,
  kError,
};

// The device's maps: all attribute domains, the attributes of one domain, and the same for
// capacity. kEmpty is the empty map a lookup of an absent domain gives, as upstream's default.
enum class MapKind : uint8_t { kAttrDomains, kAttrs, kCapDomains, kCaps, kEmpty };

// A CEL value. Strings point into the device, the program or the evaluation's arena; nothing
// here owns memory, so a Value copies as a few words.
struct Value {
  Kind kind = Kind::kNull;
  MapKind map = MapKind::kEmpty;
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    struct {
      const char* data;
      size_t size;
    } s;
    struct {
      const Value* data;
      size_t size;
    } list;
    Symbol domain;
    const SemVer* semver;
    const std::string* error;
    Quantity q;
  };

  Value() : i(0) {}
  static Value Bool(bool v) {
    Value x;
    x.kind = Kind::kBool;
    x.b = v;
    return x;
  }
  static Value Int(int64_t v) {
    Value x;
    x.kind = Kind::kInt;
    x.i = v;
    return x;
  }
  static Value Uint(uint64_t v) {
    Value x;
    x.kind = Kind::kUint;
    x.u = v;
    return x;
  }
  static Value Double(double v) {
    Value x;
    x.kind = Kind::kDouble;
    x.d = v;
    return x;
  }
  static Value String(std::string_view v, Kind kind = Kind::kString) {
    Value x;
    x.kind = kind;
    x.s = {v.data(), v.size()};
    return x;
  }
  static Value List(const Value* data, size_t size) {
    Value x;
    x.kind = Kind::kList;
    x.list = {data, size};
    return x;
  }
  static Value Map(MapKind kind, Symbol domain = Symbol()) {
    Value x;
    x.kind = Kind::kMap;
    x.map = kind;
    x.domain = domain;
    return x;
  }
  static Value Quant(const Quantity& v) {
    Value x;
    x.kind = Kind::kQuantity;
    x.q = v;
    return x;
  }
  static Value Sem(const SemVer* v) {
    Value x;
    x.kind = Kind::kSemver;
    x.semver = v;
    return x;
  }
  static Value Err(const std::string* message) {
    Value x;
    x.kind = Kind::kError;
    x.error = message;
    return x;
  }
  static Value Device() {
    Value x;
    x.kind = Kind::kDevice;
    return x;
  }

  std::string_view str() const { return {s.data, s.size}; }
  bool IsError() const { return kind == Kind::kError; }
};

// Kubernetes' and cel-go's names for a value's type, as its errors print them.
std::string_view ValueTypeName(const Value& v) {
  switch (v.kind) {
    case Kind::kNull:
      return "null_type";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kUint:
      return "uint";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "map";
    case Kind::kQuantity:
      return "kubernetes.Quantity";
    case Kind::kSemver:
      return "kubernetes.Semver";
    case Kind::kDevice:
      return "kubernetes.DRADevice";
    case Kind::kError:
      return "*error*";
  }
  return "dyn";
}

// The Go type cel-go names when asked to iterate a value that cannot be.
std::string_view GoTypeName(const Value& v) {
  switch (v.kind) {
    case Kind::kNull:
      return "types.Null";
    case Kind::kBool:
      return "types.Bool";
    case Kind::kInt:
      return "types.Int";
    case Kind::kUint:
      return "types.Uint";
    case Kind::kDouble:
      return "types.Double";
    case Kind::kString:
      return "types.String";
    case Kind::kBytes:
      return "types.Bytes";
    case Kind::kQuantity:
      return "cel.Quantity";
    case Kind::kSemver:
      return "cel.Semver";
    default:
      return "map[string]interface {}";
  }
}

const std::string* StaticError(std::string_view which) {
  // Messages that carry no detail are shared, so raising them allocates nothing.
  static const std::string kNoSuchOverload = "no such overload";
  static const std::string kIntOverflow = "integer overflow";
  static const std::string kUintOverflow = "unsigned integer overflow";
  static const std::string kDivideByZero = "division by zero";
  static const std::string kModulusByZero = "modulus by zero";
  static const std::string kCost = "operation cancelled: actual cost limit exceeded";
  if (which == kIntOverflow) return &kIntOverflow;
  if (which == kUintOverflow) return &kUintOverflow;
  if (which == kDivideByZero) return &kDivideByZero;
  if (which == kModulusByZero) return &kModulusByZero;
  if (which == kCost) return &kCost;
  return &kNoSuchOverload;
}

Value NoSuchOverload() { return Value::Err(StaticError("no such overload")); }

// ============================== Program ==============================

// Functions beyond the operators. Member and global forms share an entry where both exist.
enum class Fn : uint8_t {
  kContains,
  kStartsWith,
  kEndsWith,
  kMatches,
  kLowerAscii,
  kUpperAscii,
  kSize,
  kSplit,
  kJoin,
  kQuantity,
  kIsQuantity,
  kSign,
  kIsInteger,
  kAsInteger,
  kAsApproximateFloat,
  kQuantityAdd,
  kQuantityAddInt,
  kQuantitySub,
  kQuantitySubInt,
  kQuantityCompareTo,
  kQuantityIsGreaterThan,
  kQuantityIsLessThan,
  kSemver,
  kIsSemver,
  kMajor,
  kMinor,
  kPatch,
  kSemverCompareTo,
  kSemverIsGreaterThan,
  kSemverIsLessThan,
  kToInt,
  kToUint,
  kToDouble,
  kToString,
  kDyn,
};

struct Overload {
  std::string_view name;
  bool member;
  std::vector<const Type*> params;  // the receiver first, for a member
  const Type* result;
  Fn fn;
};

const std::vector<Overload>& Overloads() {
  static const std::vector<Overload> kOverloads = {
      {"contains", true, {&kStringT, &kStringT}, &kBoolT, Fn::kContains},
      {"startsWith", true, {&kStringT, &kStringT}, &kBoolT, Fn::kStartsWith},
      {"endsWith", true, {&kStringT, &kStringT}, &kBoolT, Fn::kEndsWith},
      {"matches", true, {&kStringT, &kStringT}, &kBoolT, Fn::kMatches},
      {"matches", false, {&kStringT, &kStringT}, &kBoolT, Fn::kMatches},
      {"lowerAscii", true, {&kStringT}, &kStringT, Fn::kLowerAscii},
      {"upperAscii", true, {&kStringT}, &kStringT, Fn::kUpperAscii},
      {"size", false, {&kStringT}, &kIntT, Fn::kSize},
      {"size", false, {&kBytesT}, &kIntT, Fn::kSize},
      {"size", false, {&kListDynT}, &kIntT, Fn::kSize},
      {"size", false, {&kMapDynT}, &kIntT, Fn::kSize},
      {"size", true, {&kStringT}, &kIntT, Fn::kSize},
      {"size", true, {&kBytesT}, &kIntT, Fn::kSize},
      {"size", true, {&kListDynT}, &kIntT, Fn::kSize},
      {"size", true, {&kMapDynT}, &kIntT, Fn::kSize},
      {"split", true, {&kStringT, &kStringT}, &kListStringT, Fn::kSplit},
      {"join", true, {&kListStringT}, &kStringT, Fn::kJoin},
      {"join", true, {&kListStringT, &kStringT}, &kStringT, Fn::kJoin},
      {"quantity", false, {&kStringT}, &kQuantityT, Fn::kQuantity},
      {"isQuantity", false, {&kStringT}, &kBoolT, Fn::kIsQuantity},
      // Upstream declares sign as a global function, unlike its other quantity functions.
      {"sign", false, {&kQuantityT}, &kIntT, Fn::kSign},
      {"isInteger", true, {&kQuantityT}, &kBoolT, Fn::kIsInteger},
      {"asInteger", true, {&kQuantityT}, &kIntT, Fn::kAsInteger},
      {"asApproximateFloat", true, {&kQuantityT}, &kDoubleT, Fn::kAsApproximateFloat},
      {"add", true, {&kQuantityT, &kQuantityT}, &kQuantityT, Fn::kQuantityAdd},
      {"add", true, {&kQuantityT, &kIntT}, &kQuantityT, Fn::kQuantityAddInt},
      {"sub", true, {&kQuantityT, &kQuantityT}, &kQuantityT, Fn::kQuantitySub},
      {"sub", true, {&kQuantityT, &kIntT}, &kQuantityT, Fn::kQuantitySubInt},
      {"compareTo", true, {&kQuantityT, &kQuantityT}, &kIntT, Fn::kQuantityCompareTo},
      {"isGreaterThan", true, {&kQuantityT, &kQuantityT}, &kBoolT, Fn::kQuantityIsGreaterThan},
      {"isLessThan", true, {&kQuantityT, &kQuantityT}, &kBoolT, Fn::kQuantityIsLessThan},
      {"semver", false, {&kStringT}, &kSemverT, Fn::kSemver},
      {"semver", false, {&kStringT, &kBoolT}, &kSemverT, Fn::kSemver},
      {"isSemver", false, {&kStringT}, &kBoolT, Fn::kIsSemver},
      {"isSemver", false, {&kStringT, &kBoolT}, &kBoolT, Fn::kIsSemver},
      {"major", true, {&kSemverT}, &kIntT, Fn::kMajor},
      {"minor", true, {&kSemverT}, &kIntT, Fn::kMinor},
      {"patch", true, {&kSemverT}, &kIntT, Fn::kPatch},
      {"compareTo", true, {&kSemverT, &kSemverT}, &kIntT, Fn::kSemverCompareTo},
      {"isGreaterThan", true, {&kSemverT, &kSemverT}, &kBoolT, Fn::kSemverIsGreaterThan},
      {"isLessThan", true, {&kSemverT, &kSemverT}, &kBoolT, Fn::kSemverIsLessThan},
      {"int", false, {&kIntT}, &kIntT, Fn::kToInt},
      {"int", false, {&kUintT}, &kIntT, Fn::kToInt},
      {"int", false, {&kDoubleT}, &kIntT, Fn::kToInt},
      {"int", false, {&kStringT}, &kIntT, Fn::kToInt},
      {"uint", false, {&kIntT}, &kUintT, Fn::kToUint},
      {"uint", false, {&kUintT}, &kUintT, Fn::kToUint},
      {"uint", false, {&kDoubleT}, &kUintT, Fn::kToUint},
      {"uint", false, {&kStringT}, &kUintT, Fn::kToUint},
      {"double", false, {&kIntT}, &kDoubleT, Fn::kToDouble},
      {"double", false, {&kUintT}, &kDoubleT, Fn::kToDouble},
      {"double", false, {&kDoubleT}, &kDoubleT, Fn::kToDouble},
      {"double", false, {&kStringT}, &kDoubleT, Fn::kToDouble},
      {"string", false, {&kStringT}, &kStringT, Fn::kToString},
      {"string", false, {&kIntT}, &kStringT, Fn::kToString},
      {"string", false, {&kUintT}, &kStringT, Fn::kToString},
      {"string", false, {&kBoolT}, &kStringT, Fn::kToString},
      {"string", false, {&kBytesT}, &kStringT, Fn::kToString},
      {"dyn", false, {&kDynT}, &kDynT, Fn::kDyn},
  };
  return kOverloads;
}

enum class Op : uint8_t {
  kConst,
  kDevice,
  kDriver,
  kAllowMultiple,
  kAttrDomains,  // device.attributes
  kCapDomains,   // device.capacity
  kAttrDomain,   // device.attributes["<literal>"]: sym1 is the domain
  kCapDomain,
  kAttrLookup,  // device.attributes["<literal>"].<name>: sym1 domain, sym2 name
  kCapLookup,
  kLocal,
  kSelect,  // args[0].text (a map lookup by key)
  kHas,     // has(args[0].text)
  kIndex,
  kAnd,
  kOr,
  kNot,
  kNeg,
  kCond,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kIn,
  kList,
  kCall,  // one of `fns`, chosen by the argument values
  kAll,
  kExists,
  kExistsOne,
  kBind,
};

struct Node {
  Op op = Op::kConst;
  uint32_t slot = 0;  // kLocal, comprehensions and kBind: the variable
  Value value;        // kConst
  Symbol sym1;
  Symbol sym2;
  std::string_view text;          // kSelect, kHas: the field
  std::vector<Fn> fns;            // kCall: candidate overloads
  std::unique_ptr<RE2> regex;     // kCall matches() with a literal pattern
  std::vector<const Node*> args;  // comprehensions: range, predicate; kBind: init, body
};

}  // namespace

class Program {
 public:
  const Node* root = nullptr;
  uint32_t slots = 0;
  std::vector<std::unique_ptr<Node>> nodes;
  // Storage for constants the nodes point into; deques keep addresses stable.
  std::deque<std::string> strings;
  std::deque<std::vector<Value>> lists;
  std::deque<SemVer> semvers;
};

namespace {

// ============================== Checker ==============================

// Typed and lowered: the result of checking one Expr.
struct Checked {
  const Type* type;
  Node* node;
};

class Checker {
 public:
  Checker(Program& program, std::vector<Issue>& issues) : p_(program), issues_(issues) {}

  Checked Check(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::kLiteral:
        return Literal(e);
      case Expr::Kind::kIdent:
        return Ident(e);
      case Expr::Kind::kSelect:
        return Select(e);
      case Expr::Kind::kList:
        return List(e);
      case Expr::Kind::kCall:
        return Call(e);
    }
    return Error();
  }

  // Reported only when checking succeeded, as cel-go runs its validators after the checker.
  std::vector<Issue> validation_issues;

 private:
  Node* NewNode(Op op) {
    p_.nodes.push_back(std::make_unique<Node>());
    p_.nodes.back()->op = op;
    return p_.nodes.back().get();
  }

  Checked Const(const Type* type, Value v) {
    Node* n = NewNode(Op::kConst);
    n->value = v;
    return {type, n};
  }

  Checked Error() { return {&kErrorT, NewNode(Op::kConst)}; }

  [[gnu::noinline]] Checked Report(size_t pos, std::string message) {
    issues_.push_back({pos, std::move(message)});
    return Error();
  }

  std::string_view Keep(std::string s) { return p_.strings.emplace_back(std::move(s)); }

  const Type* ListOf(const Type* elem) {
    types_.push_back({TypeKind::kList, nullptr, elem});
    return &types_.back();
  }

  [[gnu::noinline]] Checked Literal(const Expr& e) {
    switch (e.lit) {
      case LitKind::kNull:
        return Const(&kNullT, Value());
      case LitKind::kBool:
        return Const(&kBoolT, Value::Bool(e.b));
      case LitKind::kInt:
        return Const(&kIntT, Value::Int(e.i));
      case LitKind::kUint:
        return Const(&kUintT, Value::Uint(e.u));
      case LitKind::kDouble:
        return Const(&kDoubleT, Value::Double(e.d));
      case LitKind::kString:
        return Const(&kStringT, Value::String(Keep(e.str)));
      case LitKind::kBytes:
        return Const(&kBytesT, Value::String(Keep(e.str), Kind::kBytes));
    }
    return Error();
  }

  struct Local {
    std::string_view name;
    uint32_t slot;
    const Type* type;
  };

  [[gnu::noinline]] Checked Ident(const Expr& e) {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (it->name == e.name) {
        Node* n = NewNode(Op::kLocal);
        n->slot = it->slot;
        return {it->type, n};
      }
    }
    if (e.name == "device") return {&kDeviceT, NewNode(Op::kDevice)};
    return Report(e.pos, "undeclared reference to '" + e.name + "' (in container '')");
  }

  // The type of `operand.field`, lowering it; for has() the node tests presence instead.
  [[gnu::noinline]] Checked Select(const Expr& e, bool presence = false) {
    Checked operand = Check(*e.target);
    const Type* t = operand.type;
    if (t->kind == TypeKind::kError) return Error();
    if (t->kind == TypeKind::kDevice) {
      Op op;
      const Type* type;
      if (e.name == "driver") {
        op = Op::kDriver, type = &kStringT;
      } else if (e.name == "attributes") {
        op = Op::kAttrDomains, type = &kAttrDomainsT;
      } else if (e.name == "capacity") {
        op = Op::kCapDomains, type = &kCapDomainsT;
      } else if (e.name == "allowMultipleAllocations") {
        op = Op::kAllowMultiple, type = &kBoolT;
      } else {
        return Report(e.pos, "undefined field '" + e.name + "'");
      }
      // Every field of `device` is always set.
      if (presence) return Const(&kBoolT, Value::Bool(true));
      return {type, NewNode(op)};
    }
    if (t->kind != TypeKind::kMap && t->kind != TypeKind::kDyn) {
      return Report(e.pos, "type '" + TypeName(t) + "' does not support field selection");
    }
    const Type* result = t->kind == TypeKind::kMap ? t->elem : &kDynT;
    return {presence ? &kBoolT : result, MapKey(operand.node, e.name, presence)};
  }

  // operand[key] for a literal string key (a select or an index), fused with the device's maps.
  Node* MapKey(Node* operand, std::string_view key, bool presence) {
    if (!presence) {
      if (operand->op == Op::kAttrDomains || operand->op == Op::kCapDomains) {
        Node* n = NewNode(operand->op == Op::kAttrDomains ? Op::kAttrDomain : Op::kCapDomain);
        n->sym1 = Symbol(key);
        return n;
      }
      if (operand->op == Op::kAttrDomain || operand->op == Op::kCapDomain) {
        operand->op = operand->op == Op::kAttrDomain ? Op::kAttrLookup : Op::kCapLookup;
        operand->sym2 = Symbol(key);
        return operand;
      }
    }
    Node* n = NewNode(presence ? Op::kHas : Op::kSelect);
    n->text = Keep(std::string(key));
    n->args = {operand};
    return n;
  }

  [[gnu::noinline]] Checked List(const Expr& e) {
    const Type* elem = nullptr;
    bool constant = true;
    std::vector<Node*> nodes;
    for (const ExprPtr& a : e.args) {
      Checked c = Check(*a);
      nodes.push_back(c.node);
      // An error (a bad quantity() literal) must surface when the list is built, not fold in.
      constant = constant && c.node->op == Op::kConst && !c.node->value.IsError();
      if (elem == nullptr) {
        elem = c.type;
      } else if (!Assignable(elem, c.type)) {
        Report(a->pos,
               "expected type '" + TypeName(elem) + "' but found '" + TypeName(c.type) + "'");
      } else if (!SameType(elem, c.type)) {
        elem = &kDynT;
      }
    }
    const Type* type = ListOf(elem == nullptr ? &kDynT : elem);
    if (constant) {
      std::vector<Value>& values = p_.lists.emplace_back();
      for (Node* n : nodes) values.push_back(n->value);
      return Const(type, Value::List(values.data(), values.size()));
    }
    Node* n = NewNode(Op::kList);
    n->args.assign(nodes.begin(), nodes.end());
    return {type, n};
  }

  std::string Signature(const std::vector<const Type*>& args, bool member) {
    std::string out;
    size_t first = 0;
    if (member && !args.empty()) {
      out = TypeName(args[0]) + ".";
      first = 1;
    }
    out += "(";
    for (size_t i = first; i < args.size(); ++i) {
      if (i > first) out += ", ";
      out += TypeName(args[i]);
    }
    return out + ")";
  }

  [[gnu::noinline]] Checked NoMatchingOverload(const Expr& e, std::string_view name,
                                               const std::vector<const Type*>& args, bool member) {
    return Report(e.pos, "found no matching overload for '" + std::string(name) + "' applied to '" +
                             Signature(args, member) + "'");
  }

  static bool AnyError(const std::vector<const Type*>& types) {
    return std::any_of(types.begin(), types.end(),
                       [](const Type* t) { return t->kind == TypeKind::kError; });
  }

  // A simple name, as the macros require of their variable.
  static const Expr* SimpleName(const Expr& e) {
    return e.kind == Expr::Kind::kIdent ? &e : nullptr;
  }

  [[gnu::noinline]] Checked Call(const Expr& e) {
    const std::string& name = e.name;
    const size_t argc = e.args.size();
    // Macros, recognised by shape as cel-go's parser does.
    if (!e.target && name == "has" && argc == 1) {
      if (e.args[0]->kind != Expr::Kind::kSelect) {
        return Report(e.args[0]->pos, "invalid argument to has() macro");
      }
      return Select(*e.args[0], true);
    }
    if (e.target && argc == 2 &&
        (name == "all" || name == "exists" || name == "exists_one" || name == "existsOne")) {
      return Comprehension(e);
    }
    if (e.target && name == "bind" && argc == 3 && e.target->kind == Expr::Kind::kIdent &&
        e.target->name == "cel") {
      return Bind(e);
    }
    if (!e.target) {
      if (name == "_&&_" || name == "_||_") return Logical(e);
      if (name == "_?_:_") return Conditional(e);
    }

    std::vector<Checked> args;
    if (e.target) args.push_back(Check(*e.target));
    for (const ExprPtr& a : e.args) args.push_back(Check(*a));
    std::vector<const Type*> types;
    for (const Checked& c : args) types.push_back(c.type);
    return Resolve(e, args, types);
  }

  // A call or operator whose arguments are checked: picks the overloads that accept them.
  [[gnu::noinline]] Checked Resolve(const Expr& e, const std::vector<Checked>& args,
                                    const std::vector<const Type*>& types) {
    const std::string& name = e.name;
    const bool member = e.target != nullptr;
    if (!member) {
      if (std::optional<Checked> op = Operator(e, args, types)) return *op;
    }
    if (AnyError(types)) return Error();

    const Type* result = nullptr;
    std::vector<Fn> fns;
    bool declared = false;
    for (const Overload& o : Overloads()) {
      if (o.name != name || o.member != member) {
        declared = declared || o.name == name;
        continue;
      }
      declared = true;
      if (o.params.size() != types.size()) continue;
      bool ok = true;
      for (size_t i = 0; i < types.size() && ok; ++i) ok = Assignable(o.params[i], types[i]);
      if (!ok) continue;
      if (std::find(fns.begin(), fns.end(), o.fn) == fns.end()) fns.push_back(o.fn);
      result = result == nullptr || SameType(result, o.result) ? o.result : &kDynT;
    }
    if (!declared) {
      return Report(e.pos, "undeclared reference to '" + name + "' (in container '')");
    }
    if (fns.empty()) return NoMatchingOverload(e, name, types, member);

    Node* n = NewNode(Op::kCall);
    n->fns = fns;
    for (const Checked& c : args) n->args.push_back(c.node);
    return Fold(e, {result, n});
  }

  // Settles at compile time what a literal argument allows: the regular expression of
  // matches(), and quantity() and semver() of a literal (their parse errors stay runtime errors,
  // as upstream's).
  [[gnu::noinline]] Checked Fold(const Expr& e, Checked c) {
    Node* n = c.node;
    auto literal_string = [&](size_t i) -> std::optional<std::string_view> {
      if (i >= n->args.size() || n->args[i]->op != Op::kConst ||
          n->args[i]->value.kind != Kind::kString) {
        return std::nullopt;
      }
      return n->args[i]->value.str();
    };
    if (n->fns.size() != 1) return c;
    const Fn fn = n->fns[0];
    if (fn == Fn::kMatches) {
      if (std::optional<std::string_view> pattern = literal_string(1)) {
        RE2::Options options;
        options.set_log_errors(false);
        auto re = std::make_unique<RE2>(*pattern, options);
        if (!re->ok()) {
          const Expr& arg = e.target ? *e.args[0] : *e.args[1];
          validation_issues.push_back({arg.pos, "invalid matches argument"});
        } else {
          n->regex = std::move(re);
        }
      }
      return c;
    }
    const std::optional<std::string_view> text = literal_string(0);
    if (!text) return c;
    bool normalize = false;
    if (n->args.size() == 2) {
      if (n->args[1]->op != Op::kConst || n->args[1]->value.kind != Kind::kBool) return c;
      normalize = n->args[1]->value.b;
    }
    std::string error;
    switch (fn) {
      case Fn::kQuantity: {
        Quantity q;
        if (Quantity::Parse(*text, &q, &error)) return Const(c.type, Value::Quant(q));
        return Const(c.type, Value::Err(&p_.strings.emplace_back(std::move(error))));
      }
      case Fn::kIsQuantity:
        return Const(c.type, Value::Bool(Quantity::Parse(*text).has_value()));
      case Fn::kSemver: {
        std::optional<SemVer> v =
            normalize ? SemVer::ParseNormalized(*text, &error) : SemVer::Parse(*text, &error);
        if (v) return Const(c.type, Value::Sem(&p_.semvers.emplace_back(std::move(*v))));
        return Const(c.type, Value::Err(&p_.strings.emplace_back(std::move(error))));
      }
      case Fn::kIsSemver: {
        const bool ok = normalize ? SemVer::ParseNormalized(*text).has_value()
                                  : SemVer::Parse(*text).has_value();
        return Const(c.type, Value::Bool(ok));
      }
      default:
        return c;
    }
  }

  // The operators. nullopt: not an operator.
  [[gnu::noinline]] std::optional<Checked> Operator(const Expr& e, const std::vector<Checked>& args,
                                                    const std::vector<const Type*>& types) {
    struct Entry {
      std::string_view name;
      Op op;
    };
    static constexpr Entry kOps[] = {
        {"_==_", Op::kEq}, {"_!=_", Op::kNe}, {"_<_", Op::kLt},     {"_<=_", Op::kLe},
        {"_>_", Op::kGt},  {"_>=_", Op::kGe}, {"_+_", Op::kAdd},    {"_-_", Op::kSub},
        {"_*_", Op::kMul}, {"_/_", Op::kDiv}, {"_%_", Op::kMod},    {"@in", Op::kIn},
        {"!_", Op::kNot},  {"-_", Op::kNeg},  {"_[_]", Op::kIndex},
    };
    const Entry* entry = nullptr;
    for (const Entry& x : kOps) {
      if (x.name == e.name) entry = &x;
    }
    if (entry == nullptr) return std::nullopt;
    if (AnyError(types)) return Error();
    const Type* result = OperatorResult(entry->op, types);
    if (result == nullptr) return NoMatchingOverload(e, e.name, types, false);

    // A literal string key into the device's maps resolves at compile time.
    if (entry->op == Op::kIndex && args[1].node->op == Op::kConst &&
        args[1].node->value.kind == Kind::kString) {
      const Op target = args[0].node->op;
      if (target == Op::kAttrDomains || target == Op::kCapDomains || target == Op::kAttrDomain ||
          target == Op::kCapDomain) {
        return Checked{result, MapKey(args[0].node, args[1].node->value.str(), false)};
      }
    }
    Node* n = NewNode(entry->op);
    for (const Checked& c : args) n->args.push_back(c.node);
    return Checked{result, n};
  }

  static bool IsNumeric(const Type* t) {
    return t->kind == TypeKind::kInt || t->kind == TypeKind::kUint || t->kind == TypeKind::kDouble;
  }

  // The result type of an operator over `types`, or null when no overload accepts them.
  const Type* OperatorResult(Op op, const std::vector<const Type*>& t) {
    const bool dyn0 = t[0]->kind == TypeKind::kDyn;
    const bool dyn1 = t.size() > 1 && t[1]->kind == TypeKind::kDyn;
    switch (op) {
      case Op::kEq:
      case Op::kNe:
        return Assignable(t[0], t[1]) ? &kBoolT : nullptr;
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe: {
        // Cross-type numeric comparisons are enabled in Kubernetes' environment.
        auto orderable = [](const Type* x) {
          return IsNumeric(x) || x->kind == TypeKind::kString || x->kind == TypeKind::kBytes ||
                 x->kind == TypeKind::kBool || x->kind == TypeKind::kDyn;
        };
        if (!orderable(t[0]) || !orderable(t[1])) return nullptr;
        if (dyn0 || dyn1 || (IsNumeric(t[0]) && IsNumeric(t[1])) || t[0]->kind == t[1]->kind) {
          return &kBoolT;
        }
        return nullptr;
      }
      case Op::kAdd: {
        if (dyn0 && dyn1) return &kDynT;
        const Type* known = dyn0 ? t[1] : t[0];
        const TypeKind k = known->kind;
        const bool addable = IsNumeric(known) || k == TypeKind::kString || k == TypeKind::kBytes ||
                             k == TypeKind::kList;
        if (!addable) return nullptr;
        if (dyn0 || dyn1) return known;
        if (!Assignable(t[0], t[1])) return nullptr;
        if (k == TypeKind::kList && !SameType(t[0], t[1])) return ListOf(&kDynT);
        return t[0];
      }
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kMod: {
        auto ok = [op](const Type* x) {
          return x->kind == TypeKind::kDyn || x->kind == TypeKind::kInt ||
                 x->kind == TypeKind::kUint || (op != Op::kMod && x->kind == TypeKind::kDouble);
        };
        if (!ok(t[0]) || !ok(t[1])) return nullptr;
        if (dyn0 && dyn1) return &kDynT;
        if (dyn0) return t[1];
        if (dyn1 || t[0]->kind == t[1]->kind) return t[0];
        return nullptr;
      }
      case Op::kIn:
        if (dyn1) return &kBoolT;
        if (t[1]->kind == TypeKind::kList) return Assignable(t[1]->elem, t[0]) ? &kBoolT : nullptr;
        if (t[1]->kind == TypeKind::kMap) return Assignable(t[1]->key, t[0]) ? &kBoolT : nullptr;
        return nullptr;
      case Op::kNot:
        return t[0]->kind == TypeKind::kBool || dyn0 ? &kBoolT : nullptr;
      case Op::kNeg:
        if (dyn0) return &kDynT;
        return t[0]->kind == TypeKind::kInt || t[0]->kind == TypeKind::kDouble ? t[0] : nullptr;
      case Op::kIndex:
        if (dyn0) return &kDynT;
        if (t[0]->kind == TypeKind::kList) {
          return t[1]->kind == TypeKind::kInt || dyn1 ? t[0]->elem : nullptr;
        }
        if (t[0]->kind == TypeKind::kMap) return Assignable(t[0]->key, t[1]) ? t[0]->elem : nullptr;
        return nullptr;
      default:
        return nullptr;
    }
  }

  [[gnu::noinline]] Checked Logical(const Expr& e) {
    Node* n = NewNode(e.name == "_&&_" ? Op::kAnd : Op::kOr);
    std::vector<const Type*> types;
    bool error = false;
    for (const ExprPtr& a : e.args) {
      Checked c = Check(*a);
      types.push_back(c.type);
      error = error || c.type->kind == TypeKind::kError;
      n->args.push_back(c.node);
    }
    if (error) return Error();
    // cel-go checks the balanced tree of binary calls; report the first operand that fails.
    for (const Type* t : types) {
      if (t->kind != TypeKind::kBool && t->kind != TypeKind::kDyn) {
        return NoMatchingOverload(e, e.name, {&kBoolT, t}, false);
      }
    }
    return {&kBoolT, n};
  }

  [[gnu::noinline]] Checked Conditional(const Expr& e) {
    Checked cond = Check(*e.args[0]);
    Checked then = Check(*e.args[1]);
    Checked otherwise = Check(*e.args[2]);
    if (AnyError({cond.type, then.type, otherwise.type})) return Error();
    const bool cond_ok = cond.type->kind == TypeKind::kBool || cond.type->kind == TypeKind::kDyn;
    if (!cond_ok || !Assignable(then.type, otherwise.type)) {
      return NoMatchingOverload(e, e.name, {cond.type, then.type, otherwise.type}, false);
    }
    Node* n = NewNode(Op::kCond);
    n->args = {cond.node, then.node, otherwise.node};
    const Type* type = SameType(then.type, otherwise.type) ? then.type : &kDynT;
    return {type, n};
  }

  [[gnu::noinline]] Checked Comprehension(const Expr& e) {
    const Expr* var = SimpleName(*e.args[0]);
    if (var == nullptr) return Report(e.args[0]->pos, "argument must be a simple name");
    Checked range = Check(*e.target);
    const Type* var_type = &kDynT;
    switch (range.type->kind) {
      case TypeKind::kList:
        var_type = range.type->elem;
        break;
      case TypeKind::kMap:
        var_type = range.type->key;
        break;
      case TypeKind::kDyn:
      case TypeKind::kError:
        break;
      default:
        Report(e.target->pos, "expression of type '" + TypeName(range.type) +
                                  "' cannot be range of a comprehension (must be list, map, or "
                                  "dynamic)");
        break;
    }
    const uint32_t slot = p_.slots++;
    locals_.push_back({var->name, slot, var_type});
    Checked pred = Check(*e.args[1]);
    locals_.pop_back();
    if (range.type->kind == TypeKind::kError || pred.type->kind == TypeKind::kError) {
      return Error();
    }
    const bool one = e.name == "exists_one" || e.name == "existsOne";
    if (pred.type->kind != TypeKind::kBool && pred.type->kind != TypeKind::kDyn) {
      // cel-go expands the macro to a loop whose step is `accu && pred` (`||` for exists, a
      // conditional for exists_one) and reports the mismatch there.
      if (one) return NoMatchingOverload(*e.args[1], "_?_:_", {pred.type, &kIntT, &kIntT}, false);
      return NoMatchingOverload(*e.args[1], e.name == "all" ? "_&&_" : "_||_", {&kBoolT, pred.type},
                                false);
    }
    Node* n = NewNode(e.name == "all"      ? Op::kAll
                      : e.name == "exists" ? Op::kExists
                                           : Op::kExistsOne);
    n->slot = slot;
    n->args = {range.node, pred.node};
    return {&kBoolT, n};
  }

  [[gnu::noinline]] Checked Bind(const Expr& e) {
    const Expr* var = SimpleName(*e.args[0]);
    if (var == nullptr) {
      return Report(e.args[0]->pos, "cel.bind() variable names must be simple identifiers");
    }
    Checked init = Check(*e.args[1]);
    const uint32_t slot = p_.slots++;
    locals_.push_back({var->name, slot, init.type});
    Checked body = Check(*e.args[2]);
    locals_.pop_back();
    if (init.type->kind == TypeKind::kError || body.type->kind == TypeKind::kError) return Error();
    Node* n = NewNode(Op::kBind);
    n->slot = slot;
    n->args = {init.node, body.node};
    return {body.type, n};
  }

  Program& p_;
  std::vector<Issue>& issues_;
  std::vector<Local> locals_;
  std::deque<Type> types_;  // list types made while checking; unused once lowered
};

// ============================== Evaluator ==============================

class Evaluator {
 public:
  Evaluator(const Program& program, const DeviceView& device)
      : device_(device), locals_(program.slots) {}

  Value Eval(const Node* n) {
    if (++cost_ > kMaxCost) return Cancel();
    switch (n->op) {
      case Op::kConst:
        return n->value;
      case Op::kDevice:
        return Value::Device();
      case Op::kDriver:
        return Value::String(device_.driver);
      case Op::kAllowMultiple:
        return Value::Bool(device_.allow_multiple_allocations);
      case Op::kAttrDomains:
        return Value::Map(MapKind::kAttrDomains);
      case Op::kCapDomains:
        return Value::Map(MapKind::kCapDomains);
      case Op::kAttrDomain:
        return Value::Map(MapKind::kAttrs, n->sym1);
      case Op::kCapDomain:
        return Value::Map(MapKind::kCaps, n->sym1);
      case Op::kAttrLookup:
        for (const DeviceAttribute& a : device_.attributes) {
          if (a.domain == n->sym1 && a.name == n->sym2) return AttributeValue(a);
        }
        return NoSuchKey(n->sym2.str());
      case Op::kCapLookup:
        for (const DeviceCapacity& c : device_.capacity) {
          if (c.domain == n->sym1 && c.name == n->sym2) return Value::Quant(c.value);
        }
        return NoSuchKey(n->sym2.str());
      case Op::kLocal:
        return locals_[n->slot];
      case Op::kSelect:
        return Select(Eval(n->args[0]), n->text, false);
      case Op::kHas:
        return Select(Eval(n->args[0]), n->text, true);
      case Op::kIndex:
        return Index(Eval(n->args[0]), Eval(n->args[1]));
      case Op::kAnd:
        return Logical(n, false);
      case Op::kOr:
        return Logical(n, true);
      case Op::kNot: {
        const Value v = Eval(n->args[0]);
        if (v.IsError()) return v;
        return v.kind == Kind::kBool ? Value::Bool(!v.b) : NoSuchOverload();
      }
      case Op::kNeg:
        return Negate(Eval(n->args[0]));
      case Op::kCond: {
        const Value c = Eval(n->args[0]);
        if (c.IsError()) return c;
        if (c.kind != Kind::kBool) return NoSuchOverload();
        return Eval(n->args[c.b ? 1 : 2]);
      }
      case Op::kEq:
      case Op::kNe: {
        const Value a = Eval(n->args[0]);
        if (a.IsError()) return a;
        const Value b = Eval(n->args[1]);
        if (b.IsError()) return b;
        const Value eq = Equal(a, b);
        if (eq.IsError() || n->op == Op::kEq) return eq;
        return Value::Bool(!eq.b);
      }
      case Op::kLt:
      case Op::kLe:
      case Op::kGt:
      case Op::kGe:
        return Compare(n);
      case Op::kAdd:
      case Op::kSub:
      case Op::kMul:
      case Op::kDiv:
      case Op::kMod: {
        const Value a = Eval(n->args[0]);
        if (a.IsError()) return a;
        const Value b = Eval(n->args[1]);
        if (b.IsError()) return b;
        return Arithmetic(n->op, a, b);
      }
      case Op::kIn: {
        const Value a = Eval(n->args[0]);
        if (a.IsError()) return a;
        const Value b = Eval(n->args[1]);
        if (b.IsError()) return b;
        return In(a, b);
      }
      case Op::kList: {
        std::vector<Value>& items = lists_.emplace_front();
        items.reserve(n->args.size());
        for (const Node* a : n->args) {
          const Value v = Eval(a);
          if (v.IsError()) return v;
          items.push_back(v);
        }
        return Value::List(items.data(), items.size());
      }
      case Op::kCall:
        return Call(n);
      case Op::kAll:
      case Op::kExists:
      case Op::kExistsOne:
        return Comprehension(n);
      case Op::kBind:
        locals_[n->slot] = Eval(n->args[0]);
        return Eval(n->args[1]);
    }
    return NoSuchOverload();
  }

  bool cancelled() const { return cancelled_; }

 private:
  Value Cancel() {
    cancelled_ = true;
    cost_ = kMaxCost + 1;
    return Value::Err(StaticError("operation cancelled: actual cost limit exceeded"));
  }

  // Charges work proportional to `bytes`, a tenth of a unit each as cel-go charges strings.
  bool Charge(size_t bytes) {
    cost_ += bytes / 10;
    if (cost_ > kMaxCost) {
      Cancel();
      return false;
    }
    return true;
  }

  [[gnu::noinline]] Value Err(std::string message) {
    return Value::Err(&errors_.emplace_front(std::move(message)));
  }
  [[gnu::noinline]] Value NoSuchKey(std::string_view key) {
    return Err("no such key: " + std::string(key));
  }

  std::string_view Keep(std::string s) { return strings_.emplace_front(std::move(s)); }

  static Value AttributeValue(const DeviceAttribute& a) {
    struct Visitor {
      Value operator()(bool v) const { return Value::Bool(v); }
      Value operator()(int64_t v) const { return Value::Int(v); }
      Value operator()(const std::string& v) const { return Value::String(v); }
      Value operator()(const SemVer& v) const { return Value::Sem(&v); }
    };
    return std::visit(Visitor{}, a.value);
  }

  // ---- the device's maps ----

  size_t MapSize(const Value& m) const {
    size_t n = 0;
    for (size_t i = 0, e = MapEntries(m); i < e; ++i) n += IsMapKey(m, i);
    return n;
  }

  // The number of underlying entries to scan, some of which may not be keys (see IsMapKey).
  size_t MapEntries(const Value& m) const {
    switch (m.map) {
      case MapKind::kAttrDomains:
      case MapKind::kAttrs:
        return device_.attributes.size();
      case MapKind::kCapDomains:
      case MapKind::kCaps:
        return device_.capacity.size();
      case MapKind::kEmpty:
        return 0;
    }
    return 0;
  }

  // Whether entry i is a key of m: for the domain maps, the first entry of each domain.
  bool IsMapKey(const Value& m, size_t i) const {
    switch (m.map) {
      case MapKind::kAttrs:
        return device_.attributes[i].domain == m.domain;
      case MapKind::kCaps:
        return device_.capacity[i].domain == m.domain;
      case MapKind::kAttrDomains:
        for (size_t j = 0; j < i; ++j) {
          if (device_.attributes[j].domain == device_.attributes[i].domain) return false;
        }
        return true;
      case MapKind::kCapDomains:
        for (size_t j = 0; j < i; ++j) {
          if (device_.capacity[j].domain == device_.capacity[i].domain) return false;
        }
        return true;
      case MapKind::kEmpty:
        return false;
    }
    return false;
  }

  std::string_view MapKey(const Value& m, size_t i) const {
    switch (m.map) {
      case MapKind::kAttrs:
        return device_.attributes[i].name.str();
      case MapKind::kCaps:
        return device_.capacity[i].name.str();
      case MapKind::kAttrDomains:
        return device_.attributes[i].domain.str();
      case MapKind::kCapDomains:
        return device_.capacity[i].domain.str();
      case MapKind::kEmpty:
        return {};
    }
    return {};
  }

  // The value under `key`, or nullopt. The domain maps give the empty map for a domain the
  // device has nothing in, as upstream's default: only `in` and has() tell it apart.
  std::optional<Value> MapFind(const Value& m, std::string_view key, bool for_contains) const {
    switch (m.map) {
      case MapKind::kAttrs:
        for (const DeviceAttribute& a : device_.attributes) {
          if (a.domain == m.domain && a.name.str() == key) return AttributeValue(a);
        }
        return std::nullopt;
      case MapKind::kCaps:
        for (const DeviceCapacity& c : device_.capacity) {
          if (c.domain == m.domain && c.name.str() == key) return Value::Quant(c.value);
        }
        return std::nullopt;
      case MapKind::kAttrDomains:
        for (const DeviceAttribute& a : device_.attributes) {
          if (a.domain.str() == key) return Value::Map(MapKind::kAttrs, a.domain);
        }
        if (for_contains) return std::nullopt;
        return Value::Map(MapKind::kEmpty);
      case MapKind::kCapDomains:
        for (const DeviceCapacity& c : device_.capacity) {
          if (c.domain.str() == key) return Value::Map(MapKind::kCaps, c.domain);
        }
        if (for_contains) return std::nullopt;
        return Value::Map(MapKind::kEmpty);
      case MapKind::kEmpty:
        return std::nullopt;
    }
    return std::nullopt;
  }

  // cel-go's attribute qualification: a map lookup by key; anything else has no keys.
  [[gnu::noinline]] Value Select(const Value& v, std::string_view key, bool presence) {
    if (v.IsError()) return v;
    if (v.kind == Kind::kMap) {
      std::optional<Value> found = MapFind(v, key, false);
      if (presence) return Value::Bool(found.has_value());
      if (found) return *found;
      return NoSuchKey(key);
    }
    if (v.kind == Kind::kDevice) {
      // Only reached through a dynamic value, which `device` never is; kept total.
      return presence ? Value::Bool(true) : NoSuchOverload();
    }
    if (v.kind == Kind::kList) return Err("unsupported index type 'string' in list");
    return presence ? Value::Bool(false) : NoSuchKey(key);
  }

  static std::optional<int64_t> IndexOf(const Value& k) {
    switch (k.kind) {
      case Kind::kInt:
        return k.i;
      case Kind::kUint:
        if (k.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return -1;
        return static_cast<int64_t>(k.u);
      case Kind::kDouble:
        if (k.d >= -9.2e18 && k.d <= 9.2e18 && k.d == std::trunc(k.d)) {
          return static_cast<int64_t>(k.d);
        }
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  std::string Format(const Value& v) {
    switch (v.kind) {
      case Kind::kInt:
        return std::to_string(v.i);
      case Kind::kUint:
        return std::to_string(v.u);
      case Kind::kString:
        return std::string(v.str());
      case Kind::kBool:
        return v.b ? "true" : "false";
      case Kind::kDouble: {
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, v.d);
        return std::string(buf, r.ptr);
      }
      default:
        return std::string(ValueTypeName(v));
    }
  }

  [[gnu::noinline]] Value Index(const Value& c, const Value& k) {
    if (c.IsError()) return c;
    if (k.IsError()) return k;
    if (c.kind == Kind::kList) {
      const std::optional<int64_t> i = IndexOf(k);
      if (!i) {
        if (k.kind == Kind::kDouble)
          return Err("unsupported index value " + Format(k) + " in list");
        return Err("unsupported index type '" + std::string(ValueTypeName(k)) + "' in list");
      }
      if (*i < 0 || static_cast<uint64_t>(*i) >= c.list.size) {
        return Err("index out of bounds: " + Format(k));
      }
      return c.list.data[*i];
    }
    if (c.kind == Kind::kMap) {
      if (k.kind != Kind::kString) {
        return Err("unsupported key type: " + std::string(ValueTypeName(k)));
      }
      if (std::optional<Value> found = MapFind(c, k.str(), false)) return *found;
      return NoSuchKey(k.str());
    }
    return NoSuchKey(Format(k));
  }

  // && (or ||) over every operand, commutatively: any false (true) decides, else an error is
  // the result, else true (false).
  [[gnu::noinline]] Value Logical(const Node* n, bool is_or) {
    std::optional<Value> error;
    for (const Node* a : n->args) {
      const Value v = Eval(a);
      if (v.kind == Kind::kBool) {
        if (v.b == is_or) return v;
      } else if (!error) {
        error = v.IsError() ? v : NoSuchOverload();
      }
      if (cancelled_) break;
    }
    if (error) return *error;
    return Value::Bool(!is_or);
  }

  static Value Negate(const Value& v) {
    if (v.IsError()) return v;
    if (v.kind == Kind::kInt) {
      if (v.i == std::numeric_limits<int64_t>::min())
        return Value::Err(StaticError("integer overflow"));
      return Value::Int(-v.i);
    }
    if (v.kind == Kind::kDouble) return Value::Double(-v.d);
    return NoSuchOverload();
  }

  // ---- equality and ordering ----

  static bool IsNumber(const Value& v) {
    return v.kind == Kind::kInt || v.kind == Kind::kUint || v.kind == Kind::kDouble;
  }

  static int Sign3(bool less, bool greater) { return less ? -1 : greater ? 1 : 0; }

  // -1, 0 or 1; nullopt when a NaN is involved.
  static std::optional<int> CompareNumbers(const Value& a, const Value& b) {
    if (a.kind == Kind::kDouble || b.kind == Kind::kDouble) {
      if (a.kind == Kind::kDouble && b.kind == Kind::kDouble) {
        if (std::isnan(a.d) || std::isnan(b.d)) return std::nullopt;
        return Sign3(a.d<b.d, a.d> b.d);
      }
      // One side is an integer: out of its range, the double decides (as cel-go).
      const bool flip = a.kind == Kind::kDouble;
      const Value& x = flip ? b : a;
      const double d = flip ? a.d : b.d;
      if (std::isnan(d)) return std::nullopt;
      int c;
      if (x.kind == Kind::kInt) {
        if (d < -9223372036854775808.0) {
          c = 1;
        } else if (d >= 9223372036854775808.0) {
          c = -1;
        } else {
          const double xd = static_cast<double>(x.i);
          c = Sign3(xd<d, xd> d);
        }
      } else {
        if (d < 0) {
          c = 1;
        } else if (d >= 18446744073709551616.0) {
          c = -1;
        } else {
          const double xd = static_cast<double>(x.u);
          c = Sign3(xd<d, xd> d);
        }
      }
      return flip ? -c : c;
    }
    if (a.kind == Kind::kInt && b.kind == Kind::kInt) return Sign3(a.i<b.i, a.i> b.i);
    if (a.kind == Kind::kUint && b.kind == Kind::kUint) return Sign3(a.u<b.u, a.u> b.u);
    if (a.kind == Kind::kInt)
      return a.i < 0 ? -1
                     : Sign3(static_cast<uint64_t>(a.i) < b.u, static_cast<uint64_t>(a.i) > b.u);
    return b.i < 0 ? 1 : Sign3(a.u<static_cast<uint64_t>(b.i), a.u> static_cast<uint64_t>(b.i));
  }

  // CEL's heterogeneous equality, as cel-go: numbers compare by value across int, uint and
  // double; other mismatched types are unequal, except that Kubernetes' quantity and semver
  // values refuse to compare with anything else ("no such overload").
  [[gnu::noinline]] Value Equal(const Value& a, const Value& b) {
    if (a.kind == Kind::kNull || b.kind == Kind::kNull) return Value::Bool(a.kind == b.kind);
    if (IsNumber(a) && IsNumber(b)) {
      const std::optional<int> c = CompareNumbers(a, b);
      return Value::Bool(c && *c == 0);
    }
    if (a.kind == Kind::kQuantity) {
      if (b.kind != Kind::kQuantity) return NoSuchOverload();
      return Value::Bool(a.q.Cmp(b.q) == 0);
    }
    if (a.kind == Kind::kSemver) {
      if (b.kind != Kind::kSemver) return NoSuchOverload();
      return Value::Bool(*a.semver == *b.semver);
    }
    if (a.kind != b.kind) return Value::Bool(false);
    switch (a.kind) {
      case Kind::kBool:
        return Value::Bool(a.b == b.b);
      case Kind::kString:
      case Kind::kBytes:
        return Value::Bool(a.str() == b.str());
      case Kind::kDevice:
        return Value::Bool(true);
      case Kind::kList: {
        if (a.list.size != b.list.size) return Value::Bool(false);
        // As cel-go, only a definite false makes the lists unequal.
        for (size_t i = 0; i < a.list.size; ++i) {
          const Value eq = Equal(a.list.data[i], b.list.data[i]);
          if (eq.kind == Kind::kBool && !eq.b) return eq;
        }
        return Value::Bool(true);
      }
      case Kind::kMap: {
        if (MapSize(a) != MapSize(b)) return Value::Bool(false);
        for (size_t i = 0, e = MapEntries(a); i < e; ++i) {
          if (!IsMapKey(a, i)) continue;
          const std::string_view key = MapKey(a, i);
          const std::optional<Value> x = MapFind(a, key, true);
          const std::optional<Value> y = MapFind(b, key, true);
          if (!y) return Value::Bool(false);
          const Value eq = Equal(*x, *y);
          if (eq.kind == Kind::kBool && !eq.b) return eq;
        }
        return Value::Bool(true);
      }
      default:
        return Value::Bool(false);
    }
  }

  [[gnu::noinline]] Value Compare(const Node* n) {
    const Value a = Eval(n->args[0]);
    if (a.IsError()) return a;
    const Value b = Eval(n->args[1]);
    if (b.IsError()) return b;
    std::optional<int> c;
    if (IsNumber(a) && IsNumber(b)) {
      c = CompareNumbers(a, b);
      if (!c) return Value::Bool(false);
    } else if (a.kind != b.kind) {
      return NoSuchOverload();
    } else if (a.kind == Kind::kString || a.kind == Kind::kBytes) {
      const int r = a.str().compare(b.str());
      c = Sign3(r<0, r> 0);
    } else if (a.kind == Kind::kBool) {
      c = Sign3(a.b<b.b, a.b> b.b);
    } else {
      return NoSuchOverload();
    }
    switch (n->op) {
      case Op::kLt:
        return Value::Bool(*c < 0);
      case Op::kLe:
        return Value::Bool(*c <= 0);
      case Op::kGt:
        return Value::Bool(*c > 0);
      default:
        return Value::Bool(*c >= 0);
    }
  }

  // ---- arithmetic ----

  [[gnu::noinline]] Value Arithmetic(Op op, const Value& a, const Value& b) {
    if (a.kind != b.kind) return NoSuchOverload();
    switch (a.kind) {
      case Kind::kInt: {
        int64_t r = 0;
        switch (op) {
          case Op::kAdd:
            if (__builtin_add_overflow(a.i, b.i, &r))
              return Value::Err(StaticError("integer overflow"));
            return Value::Int(r);
          case Op::kSub:
            if (__builtin_sub_overflow(a.i, b.i, &r))
              return Value::Err(StaticError("integer overflow"));
            return Value::Int(r);
          case Op::kMul:
            if (__builtin_mul_overflow(a.i, b.i, &r))
              return Value::Err(StaticError("integer overflow"));
            return Value::Int(r);
          case Op::kDiv:
          case Op::kMod:
            if (b.i == 0) {
              return Value::Err(
                  StaticError(op == Op::kDiv ? "division by zero" : "modulus by zero"));
            }
            if (b.i == -1 && a.i == std::numeric_limits<int64_t>::min()) {
              return Value::Err(StaticError("integer overflow"));
            }
            return Value::Int(op == Op::kDiv ? a.i / b.i : a.i % b.i);
          default:
            break;
        }
        break;
      }
      case Kind::kUint: {
        uint64_t r = 0;
        switch (op) {
          case Op::kAdd:
            if (__builtin_add_overflow(a.u, b.u, &r))
              return Value::Err(StaticError("unsigned integer overflow"));
            return Value::Uint(r);
          case Op::kSub:
            if (__builtin_sub_overflow(a.u, b.u, &r))
              return Value::Err(StaticError("unsigned integer overflow"));
            return Value::Uint(r);
          case Op::kMul:
            if (__builtin_mul_overflow(a.u, b.u, &r))
              return Value::Err(StaticError("unsigned integer overflow"));
            return Value::Uint(r);
          case Op::kDiv:
          case Op::kMod:
            if (b.u == 0) {
              return Value::Err(
                  StaticError(op == Op::kDiv ? "division by zero" : "modulus by zero"));
            }
            return Value::Uint(op == Op::kDiv ? a.u / b.u : a.u % b.u);
          default:
            break;
        }
        break;
      }
      case Kind::kDouble:
        switch (op) {
          case Op::kAdd:
            return Value::Double(a.d + b.d);
          case Op::kSub:
            return Value::Double(a.d - b.d);
          case Op::kMul:
            return Value::Double(a.d * b.d);
          case Op::kDiv:
            return Value::Double(a.d / b.d);
          default:
            break;
        }
        break;
      case Kind::kString:
      case Kind::kBytes:
        if (op == Op::kAdd) {
          if (!Charge(a.s.size + b.s.size)) return Cancel();
          std::string joined;
          joined.reserve(a.s.size + b.s.size);
          joined.append(a.str()).append(b.str());
          return Value::String(Keep(std::move(joined)), a.kind);
        }
        break;
      case Kind::kList:
        if (op == Op::kAdd) {
          if (!Charge(a.list.size + b.list.size)) return Cancel();
          std::vector<Value>& items = lists_.emplace_front(a.list.data, a.list.data + a.list.size);
          items.insert(items.end(), b.list.data, b.list.data + b.list.size);
          return Value::List(items.data(), items.size());
        }
        break;
      default:
        break;
    }
    return NoSuchOverload();
  }

  [[gnu::noinline]] Value In(const Value& x, const Value& c) {
    if (c.kind == Kind::kList) {
      std::optional<Value> error;
      if (!Charge(c.list.size * 10)) return Cancel();
      for (size_t i = 0; i < c.list.size; ++i) {
        // cel-go asks the element, not the needle, whether they are equal.
        const Value eq = Equal(c.list.data[i], x);
        if (eq.kind == Kind::kBool) {
          if (eq.b) return eq;
        } else if (!error) {
          error = eq;
        }
      }
      if (error) return *error;
      return Value::Bool(false);
    }
    if (c.kind == Kind::kMap) {
      if (x.kind != Kind::kString) return Value::Bool(false);
      return Value::Bool(MapFind(c, x.str(), true).has_value());
    }
    return NoSuchOverload();
  }

  // ---- functions ----

  [[gnu::noinline]] Value Call(const Node* n) {
    // Up to three arguments: kept on the stack so a call allocates nothing.
    Value argv[3];
    const size_t argc = n->args.size();
    for (size_t i = 0; i < argc; ++i) {
      argv[i] = Eval(n->args[i]);
      if (argv[i].IsError()) return argv[i];
    }
    for (Fn fn : n->fns) {
      if (AcceptsArgs(fn, argv, argc)) return Apply(fn, n, argv, argc);
    }
    return NoSuchOverload();
  }

  static bool AcceptsArgs(Fn fn, const Value* argv, size_t argc) {
    auto is = [&](size_t i, Kind k) { return i < argc && argv[i].kind == k; };
    switch (fn) {
      case Fn::kContains:
      case Fn::kStartsWith:
      case Fn::kEndsWith:
      case Fn::kMatches:
      case Fn::kSplit:
        return is(0, Kind::kString) && is(1, Kind::kString);
      case Fn::kLowerAscii:
      case Fn::kUpperAscii:
      case Fn::kQuantity:
      case Fn::kIsQuantity:
        return is(0, Kind::kString);
      case Fn::kSemver:
      case Fn::kIsSemver:
        return is(0, Kind::kString) && (argc == 1 || is(1, Kind::kBool));
      case Fn::kSize:
        return is(0, Kind::kString) || is(0, Kind::kBytes) || is(0, Kind::kList) ||
               is(0, Kind::kMap);
      case Fn::kJoin:
        return is(0, Kind::kList) && (argc == 1 || is(1, Kind::kString));
      case Fn::kSign:
      case Fn::kIsInteger:
      case Fn::kAsInteger:
      case Fn::kAsApproximateFloat:
        return is(0, Kind::kQuantity);
      case Fn::kQuantityAdd:
      case Fn::kQuantitySub:
      case Fn::kQuantityCompareTo:
      case Fn::kQuantityIsGreaterThan:
      case Fn::kQuantityIsLessThan:
        return is(0, Kind::kQuantity) && is(1, Kind::kQuantity);
      case Fn::kQuantityAddInt:
      case Fn::kQuantitySubInt:
        return is(0, Kind::kQuantity) && is(1, Kind::kInt);
      case Fn::kMajor:
      case Fn::kMinor:
      case Fn::kPatch:
        return is(0, Kind::kSemver);
      case Fn::kSemverCompareTo:
      case Fn::kSemverIsGreaterThan:
      case Fn::kSemverIsLessThan:
        return is(0, Kind::kSemver) && is(1, Kind::kSemver);
      case Fn::kToInt:
      case Fn::kToUint:
      case Fn::kToDouble:
        return is(0, Kind::kInt) || is(0, Kind::kUint) || is(0, Kind::kDouble) ||
               is(0, Kind::kString);
      case Fn::kToString:
        return is(0, Kind::kString) || is(0, Kind::kInt) || is(0, Kind::kUint) ||
               is(0, Kind::kBool) || is(0, Kind::kBytes);
      case Fn::kDyn:
        return argc == 1;
    }
    return false;
  }

  static size_t CodePoints(std::string_view s) {
    size_t n = 0;
    for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
  }

  [[gnu::noinline]] Value Apply(Fn fn, const Node* n, const Value* argv, size_t argc) {
    const Value& a = argv[0];
    switch (fn) {
      case Fn::kContains:
        if (!Charge(a.s.size)) return Cancel();
        return Value::Bool(a.str().find(argv[1].str()) != std::string_view::npos);
      case Fn::kStartsWith:
        return Value::Bool(a.str().starts_with(argv[1].str()));
      case Fn::kEndsWith:
        return Value::Bool(a.str().ends_with(argv[1].str()));
      case Fn::kMatches: {
        if (!Charge(a.s.size)) return Cancel();
        const re2::StringPiece text(a.s.data, a.s.size);
        if (n->regex) return Value::Bool(RE2::PartialMatch(text, *n->regex));
        RE2::Options options;
        options.set_log_errors(false);
        const RE2 re(re2::StringPiece(argv[1].s.data, argv[1].s.size), options);
        if (!re.ok()) return Err("error parsing regexp: " + re.error());
        return Value::Bool(RE2::PartialMatch(text, re));
      }
      case Fn::kLowerAscii:
      case Fn::kUpperAscii: {
        if (!Charge(a.s.size)) return Cancel();
        std::string out(a.str());
        for (char& c : out) {
          if (fn == Fn::kLowerAscii && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
          if (fn == Fn::kUpperAscii && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
        }
        return Value::String(Keep(std::move(out)));
      }
      case Fn::kSize:
        switch (a.kind) {
          case Kind::kString:
            return Value::Int(static_cast<int64_t>(CodePoints(a.str())));
          case Kind::kBytes:
            return Value::Int(static_cast<int64_t>(a.s.size));
          case Kind::kList:
            return Value::Int(static_cast<int64_t>(a.list.size));
          default:
            return Value::Int(static_cast<int64_t>(MapSize(a)));
        }
      case Fn::kSplit: {
        if (!Charge(a.s.size)) return Cancel();
        std::vector<Value>& parts = lists_.emplace_front();
        const std::string_view s = a.str();
        const std::string_view sep = argv[1].str();
        if (sep.empty()) {
          // Go's strings.Split: each UTF-8 sequence on its own.
          for (size_t i = 0; i < s.size();) {
            size_t j = i + 1;
            while (j < s.size() && (static_cast<unsigned char>(s[j]) & 0xC0) == 0x80) ++j;
            parts.push_back(Value::String(s.substr(i, j - i)));
            i = j;
          }
        } else {
          for (size_t start = 0;;) {
            const size_t at = s.find(sep, start);
            parts.push_back(
                Value::String(s.substr(start, at == std::string_view::npos ? at : at - start)));
            if (at == std::string_view::npos) break;
            start = at + sep.size();
          }
        }
        return Value::List(parts.data(), parts.size());
      }
      case Fn::kJoin: {
        const std::string_view sep = argc == 2 ? argv[1].str() : std::string_view();
        std::string out;
        for (size_t i = 0; i < a.list.size; ++i) {
          if (a.list.data[i].kind != Kind::kString) return NoSuchOverload();
          if (i > 0) out += sep;
          out += a.list.data[i].str();
          if (!Charge(out.size())) return Cancel();
        }
        return Value::String(Keep(std::move(out)));
      }
      case Fn::kQuantity: {
        Quantity q;
        std::string error;
        if (!Quantity::Parse(a.str(), &q, &error)) return Err(std::move(error));
        return Value::Quant(q);
      }
      case Fn::kIsQuantity:
        return Value::Bool(Quantity::Parse(a.str()).has_value());
      case Fn::kSign:
        return Value::Int(a.q.Sign());
      case Fn::kIsInteger:
      case Fn::kAsInteger: {
        // Upstream's AsInt64: an exact integer within int64.
        const Quantity::Nanos nanos = a.q.nanos();
        const Quantity::Nanos kNano = 1'000'000'000;
        const bool integral = nanos % kNano == 0 &&
                              nanos / kNano <= std::numeric_limits<int64_t>::max() &&
                              nanos / kNano >= std::numeric_limits<int64_t>::min();
        if (fn == Fn::kIsInteger) return Value::Bool(integral);
        if (!integral) return Err("cannot convert value to integer");
        return Value::Int(static_cast<int64_t>(nanos / kNano));
      }
      case Fn::kAsApproximateFloat:
        return Value::Double(static_cast<double>(a.q.nanos()) / 1e9);
      case Fn::kQuantityAdd:
      case Fn::kQuantitySub:
      case Fn::kQuantityAddInt:
      case Fn::kQuantitySubInt: {
        const Quantity y = (fn == Fn::kQuantityAdd || fn == Fn::kQuantitySub)
                               ? argv[1].q
                               : Quantity::FromValue(argv[1].i, QuantityFormat::kDecimalExponent);
        Quantity q = a.q;
        if (fn == Fn::kQuantityAdd || fn == Fn::kQuantityAddInt) {
          q.Add(y);
        } else {
          q.Sub(y);
        }
        return Value::Quant(q);
      }
      case Fn::kQuantityCompareTo:
        return Value::Int(a.q.Cmp(argv[1].q));
      case Fn::kQuantityIsGreaterThan:
        return Value::Bool(a.q.Cmp(argv[1].q) > 0);
      case Fn::kQuantityIsLessThan:
        return Value::Bool(a.q.Cmp(argv[1].q) < 0);
      case Fn::kSemver:
      case Fn::kIsSemver: {
        const bool normalize = argc == 2 && argv[1].b;
        std::string error;
        std::optional<SemVer> v =
            normalize ? SemVer::ParseNormalized(a.str(), &error) : SemVer::Parse(a.str(), &error);
        if (fn == Fn::kIsSemver) return Value::Bool(v.has_value());
        if (!v) return Err(std::move(error));
        return Value::Sem(&semvers_.emplace_front(std::move(*v)));
      }
      case Fn::kMajor:
      case Fn::kMinor:
      case Fn::kPatch: {
        // Upstream converts the uint64 to int64 as Go does, wrapping above the int64 range.
        const uint64_t v = fn == Fn::kMajor   ? a.semver->major
                           : fn == Fn::kMinor ? a.semver->minor
                                              : a.semver->patch;
        return Value::Int(static_cast<int64_t>(v));
      }
      case Fn::kSemverCompareTo: {
        const auto c = *a.semver <=> *argv[1].semver;
        return Value::Int(c < 0 ? -1 : c > 0 ? 1 : 0);
      }
      case Fn::kSemverIsGreaterThan:
        return Value::Bool(*a.semver > *argv[1].semver);
      case Fn::kSemverIsLessThan:
        return Value::Bool(*a.semver < *argv[1].semver);
      case Fn::kDyn:
        return a;
      case Fn::kToInt:
        return ToInt(a);
      case Fn::kToUint:
        return ToUint(a);
      case Fn::kToDouble:
        return ToDouble(a);
      case Fn::kToString:
        if (a.kind == Kind::kString) return a;
        if (a.kind == Kind::kBytes) {
          // Bytes convert only when they are valid UTF-8.
          const std::string_view s = a.str();
          for (size_t i = 0; i < s.size();) {
            const unsigned char b = static_cast<unsigned char>(s[i]);
            const size_t len = b < 0x80         ? 1
                               : (b >> 5) == 6  ? 2
                               : (b >> 4) == 14 ? 3
                               : (b >> 3) == 30 ? 4
                                                : 0;
            bool ok = len != 0 && i + len <= s.size();
            for (size_t k = 1; ok && k < len; ++k)
              ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
            if (!ok) return Err("invalid UTF-8 in bytes, cannot convert to string");
            i += len;
          }
          return Value::String(s);
        }
        return Value::String(Keep(Format(a)));
    }
    return NoSuchOverload();
  }

  Value ToInt(const Value& a) {
    switch (a.kind) {
      case Kind::kInt:
        return a;
      case Kind::kUint:
        if (a.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
          return Value::Err(StaticError("integer overflow"));
        }
        return Value::Int(static_cast<int64_t>(a.u));
      case Kind::kDouble:
        if (!(a.d > -9223372036854775808.0 && a.d < 9223372036854775807.0)) {
          return Value::Err(StaticError("integer overflow"));
        }
        return Value::Int(static_cast<int64_t>(a.d));
      default: {
        int64_t v = 0;
        const std::string_view s = a.str();
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
          return Err("cannot convert string to int");
        }
        return Value::Int(v);
      }
    }
  }

  Value ToUint(const Value& a) {
    switch (a.kind) {
      case Kind::kUint:
        return a;
      case Kind::kInt:
        if (a.i < 0) return Value::Err(StaticError("unsigned integer overflow"));
        return Value::Uint(static_cast<uint64_t>(a.i));
      case Kind::kDouble:
        if (!(a.d > -1.0 && a.d < 18446744073709551615.0)) {
          return Value::Err(StaticError("unsigned integer overflow"));
        }
        return Value::Uint(static_cast<uint64_t>(a.d));
      default: {
        uint64_t v = 0;
        const std::string_view s = a.str();
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
          return Err("cannot convert string to uint");
        }
        return Value::Uint(v);
      }
    }
  }

  Value ToDouble(const Value& a) {
    switch (a.kind) {
      case Kind::kDouble:
        return a;
      case Kind::kInt:
        return Value::Double(static_cast<double>(a.i));
      case Kind::kUint:
        return Value::Double(static_cast<double>(a.u));
      default: {
        double v = 0;
        const std::string_view s = a.str();
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
          return Err("cannot convert string to double");
        }
        return Value::Double(v);
      }
    }
  }

  // ---- macros ----

  [[gnu::noinline]] Value Comprehension(const Node* n) {
    const Value range = Eval(n->args[0]);
    if (range.IsError()) return range;
    const Op op = n->op;
    int64_t count = 0;
    std::optional<Value> error;
    // Each step: bind the variable, test, and decide as the macro's loop would.
    auto step = [&](const Value& item) -> std::optional<Value> {
      locals_[n->slot] = item;
      const Value v = Eval(n->args[1]);
      if (cancelled_) return v;
      if (v.kind != Kind::kBool) {
        const Value e = v.IsError() ? v : NoSuchOverload();
        if (op == Op::kExistsOne) return e;
        if (!error) error = e;
        return std::nullopt;
      }
      if (op == Op::kAll && !v.b) return v;
      if (op == Op::kExists && v.b) return v;
      if (op == Op::kExistsOne && v.b) ++count;
      return std::nullopt;
    };
    if (range.kind == Kind::kList) {
      for (size_t i = 0; i < range.list.size; ++i) {
        if (++cost_ > kMaxCost) return Cancel();
        if (std::optional<Value> done = step(range.list.data[i])) return *done;
      }
    } else if (range.kind == Kind::kMap) {
      for (size_t i = 0, e = MapEntries(range); i < e; ++i) {
        if (!IsMapKey(range, i)) continue;
        if (++cost_ > kMaxCost) return Cancel();
        if (std::optional<Value> done = step(Value::String(MapKey(range, i)))) return *done;
      }
    } else {
      return Err("got '" + std::string(GoTypeName(range)) + "', expected iterable type");
    }
    if (op == Op::kExistsOne) return Value::Bool(count == 1);
    if (error) return *error;
    return Value::Bool(op == Op::kAll);
  }

  const DeviceView& device_;
  std::vector<Value> locals_;
  uint64_t cost_ = 0;
  bool cancelled_ = false;
  // What the evaluation makes, owned until it returns. Empty, they allocate nothing.
  std::forward_list<std::string> strings_;
  std::forward_list<std::string> errors_;
  std::forward_list<std::vector<Value>> lists_;
  std::forward_list<SemVer> semvers_;
};

}  // namespace

Compiled Compile(std::string_view expression) {
  auto fail = [&](std::vector<Issue> issues) {
    return Compiled{nullptr, "compilation failed: " + DisplayIssues(expression, std::move(issues))};
  };
  size_t code_points = 0;
  for (char c : expression) code_points += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  if (code_points > kMaxExpressionCodePoints) {
    return fail({{std::nullopt,
                  "expression code point size exceeds limit: size: " + std::to_string(code_points) +
                      ", limit " + std::to_string(kMaxExpressionCodePoints)}});
  }
  Issue syntax;
  ExprPtr ast = Parser(expression).Parse(&syntax);
  if (!ast) return fail({std::move(syntax)});

  auto program = std::make_shared<Program>();
  std::vector<Issue> issues;
  Checker checker(*program, issues);
  const Checked root = checker.Check(*ast);
  if (!issues.empty()) return fail(std::move(issues));
  if (!checker.validation_issues.empty()) return fail(std::move(checker.validation_issues));
  if (root.type->kind != TypeKind::kBool && root.type->kind != TypeKind::kDyn) {
    return Compiled{nullptr,
                    "must evaluate to bool or the unknown type, not " + TypeName(root.type)};
  }
  program->root = root.node;
  return Compiled{std::move(program), ""};
}

Result Evaluate(const Program& program, const DeviceView& device) {
  Evaluator evaluator(program, device);
  const Value v = evaluator.Eval(program.root);
  if (evaluator.cancelled()) return {false, "operation cancelled: actual cost limit exceeded"};
  if (v.kind == Kind::kBool) return {v.b, ""};
  if (v.IsError()) return {false, *v.error};
  const std::string type(ValueTypeName(v));
  return {false, "CEL result of type " + type + " could not be converted to bool: " +
                     "type conversion error from '" + type + "' to 'bool'"};
}

}  // namespace muster::api::cel
