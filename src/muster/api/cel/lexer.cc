#include "muster/api/cel/lexer.h"

#include <algorithm>
#include <string>

#include "muster/api/cel/utf8.h"

namespace muster::api::cel {
namespace {

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

}  // namespace

bool Lexer::Next(Token* tok, Issue* error) {
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

void Lexer::SkipSpace() {
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

bool Lexer::Unrecognized(size_t start, size_t end, Issue* error) {
  // Show whole UTF-8 sequences.
  while (end < src_.size() && (static_cast<unsigned char>(src_[end]) & 0xC0) == 0x80) ++end;
  end = std::min(end, src_.size());
  *error = {start, "Syntax error: token recognition error at: '" +
                       std::string(src_.substr(start, end - start)) + "'"};
  return false;
}

bool Lexer::Number(Token* tok) {
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

bool Lexer::String(Token* tok, Issue* error, bool raw, bool bytes) {
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
    // Strings hold UTF-8 text (Go's unquote rejects invalid sequences as it builds the string).
    if (!ValidUtf8(out)) return Unrecognized(start, pos_, error);
  }
  return true;
}

bool Lexer::Escape(std::string& out, bool bytes) {
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

}  // namespace muster::api::cel
