#pragma once

// UTF-8 as Go's unicode/utf8 reads it: cel-go's strings are Go strings, so a string literal, a
// bytes-to-string conversion, size() and split("") see the same sequences as cel-go does.

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace muster::api::cel {

// The length of the valid UTF-8 sequence that starts at s[i] (i < s.size()), or 0 where none
// does: a stray continuation byte, an overlong form, a surrogate, a code point above U+10FFFF or
// a sequence cut short. (Go's DecodeRuneInString reads such a byte as one RuneError.)
inline size_t SequenceLength(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char b = at(0);
  if (b < 0x80) return 1;
  size_t len = 0;
  // The second byte's range depends on the first (it rules out overlong forms, surrogates and
  // code points above U+10FFFF); the bytes after it are continuation bytes, 0x80 to 0xBF.
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    len = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    len = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    len = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (s.size() - i < len || at(1) < lo || at(1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (at(k) < 0x80 || at(k) > 0xBF) return 0;
  }
  return len;
}

// Whether s is valid UTF-8 throughout (Go's utf8.ValidString).
inline bool ValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t len = SequenceLength(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// How many code points s holds, each byte of an invalid sequence counted as one (Go's
// utf8.RuneCountInString).
inline size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) i += std::max<size_t>(SequenceLength(s, i), 1);
  return n;
}

}  // namespace muster::api::cel
