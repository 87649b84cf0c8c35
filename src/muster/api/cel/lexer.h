#pragma once

// The lexer: CEL's tokens as cel-go's ANTLR grammar (CEL.g4) reads them, with string and bytes
// literals decoded.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "muster/api/cel/issue.h"

namespace muster::api::cel {

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

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  // The next token, or false with *error set (an ANTLR-style token recognition error).
  bool Next(Token* tok, Issue* error);

 private:
  void SkipSpace();
  bool Unrecognized(size_t start, size_t end, Issue* error);
  bool Number(Token* tok);

  // A string or bytes literal starting at pos_ (after any prefix), decoding escapes unless raw.
  bool String(Token* tok, Issue* error, bool raw, bool bytes);

  // Decodes one escape sequence at pos_ (a backslash). On failure pos_ is just past the offending
  // character.
  bool Escape(std::string& out, bool bytes);

  std::string_view src_;
  size_t pos_ = 0;
};

}  // namespace muster::api::cel
