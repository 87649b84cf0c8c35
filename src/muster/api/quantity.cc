#include "muster/api/quantity.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <ostream>

namespace muster::api {
namespace {

using Nanos = Quantity::Nanos;
__extension__ typedef unsigned __int128 Magnitude;

constexpr Magnitude kMagnitudeMax = ~Magnitude{0};
constexpr Magnitude kNanosPerUnit = 1'000'000'000;
constexpr Magnitude kMaxMagnitude = static_cast<Magnitude>(Quantity::kMaxNanos);
// Upstream caps a BinarySI value at the largest int64 instead of rejecting it ("9Ei" parses as
// 2^63 - 1); decimal values get no such cap.
constexpr Magnitude kMaxBinaryMagnitude = static_cast<Magnitude>(INT64_MAX) * kNanosPerUnit;
constexpr int kNanoExponent = -9;

// 10^0 .. 10^38: every power of ten below 2^128.
constexpr int kMaxPow10 = 38;
constexpr std::array<Magnitude, kMaxPow10 + 1> kPow10 = [] {
  std::array<Magnitude, kMaxPow10 + 1> powers{};
  powers[0] = 1;
  for (int i = 1; i <= kMaxPow10; ++i) powers[i] = powers[i - 1] * 10;
  return powers;
}();

// Upstream stores a decimal exponent in an int32 that it later negates, so it accepts exactly
// [-kMaxExponent, kMaxExponent] and calls anything else a bad suffix.
constexpr int64_t kMaxExponent = INT32_MAX;

struct Suffix {
  std::string_view text;
  QuantityFormat format;
  int exponent;  // of 10, or of 2 for BinarySI
};

constexpr Suffix kSuffixes[] = {
    {"", QuantityFormat::kDecimalSI, 0},   {"n", QuantityFormat::kDecimalSI, -9},
    {"u", QuantityFormat::kDecimalSI, -6}, {"m", QuantityFormat::kDecimalSI, -3},
    {"k", QuantityFormat::kDecimalSI, 3},  {"M", QuantityFormat::kDecimalSI, 6},
    {"G", QuantityFormat::kDecimalSI, 9},  {"T", QuantityFormat::kDecimalSI, 12},
    {"P", QuantityFormat::kDecimalSI, 15}, {"E", QuantityFormat::kDecimalSI, 18},
    {"Ki", QuantityFormat::kBinarySI, 10}, {"Mi", QuantityFormat::kBinarySI, 20},
    {"Gi", QuantityFormat::kBinarySI, 30}, {"Ti", QuantityFormat::kBinarySI, 40},
    {"Pi", QuantityFormat::kBinarySI, 50}, {"Ei", QuantityFormat::kBinarySI, 60},
};

// The suffix text printed for 1024^i; there is none beyond Ei.
constexpr std::string_view kBinarySuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
constexpr int kMaxBinaryPower = 6;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsSuffixLetter(char c) {
  return std::string_view("eEinumkKMGTP").find(c) != std::string_view::npos;
}

// A quantity cut up the way upstream's scanner cuts it.
struct Pieces {
  bool negative = false;
  std::string_view integer;   // digits before the point, possibly none
  std::string_view fraction;  // digits after the point, possibly none
  std::string_view suffix;
};

// Cuts text into [+-] digits [. digits] then a suffix of [eEinumkKMGTP]*[-+]?[0-9]*, the shape
// upstream's regular expression describes; false when text does not have that shape. The suffix is
// checked separately, so that the error says which part is wrong.
bool Cut(std::string_view text, Pieces* out) {
  const size_t end = text.size();
  size_t pos = 0;
  if (pos < end && (text[pos] == '-' || text[pos] == '+')) {
    out->negative = text[pos] == '-';
    ++pos;
  }
  size_t start = pos;
  while (pos < end && IsDigit(text[pos])) ++pos;
  out->integer = text.substr(start, pos - start);
  if (pos < end && text[pos] == '.') {
    start = ++pos;
    while (pos < end && IsDigit(text[pos])) ++pos;
    out->fraction = text.substr(start, pos - start);
  }
  start = pos;
  while (pos < end && IsSuffixLetter(text[pos])) ++pos;
  if (pos < end && (text[pos] == '-' || text[pos] == '+')) ++pos;
  while (pos < end && IsDigit(text[pos])) ++pos;
  out->suffix = text.substr(start);
  return pos == end;
}

std::optional<Suffix> Interpret(std::string_view text) {
  for (const Suffix& suffix : kSuffixes) {
    if (suffix.text == text) return suffix;
  }
  if (text.size() < 2 || (text[0] != 'e' && text[0] != 'E')) return std::nullopt;
  std::string_view digits = text.substr(1);
  const bool negative = digits[0] == '-';
  if (digits[0] == '-' || digits[0] == '+') digits.remove_prefix(1);
  if (digits.empty()) return std::nullopt;
  int64_t exponent = 0;
  for (char c : digits) {
    if (!IsDigit(c)) return std::nullopt;
    // Checked per digit, so an absurd exponent is refused before it can overflow.
    exponent = exponent * 10 + (c - '0');
    if (exponent > kMaxExponent) return std::nullopt;
  }
  return Suffix{text, QuantityFormat::kDecimalExponent,
                static_cast<int>(negative ? -exponent : exponent)};
}

// value = value * factor + addend; false, leaving value unusable, if that passes 2^128 - 1.
bool MulAdd(Magnitude& value, Magnitude factor, Magnitude addend) {
  if (value > (kMagnitudeMax - addend) / factor) return false;
  value = value * factor + addend;
  return true;
}

// Multiplies a decimal digit string by 2^exponent, 0 <= exponent <= 60, in place.
void MultiplyByPowerOfTwo(std::string& digits, int exponent) {
  const Magnitude factor = Magnitude{1} << exponent;
  Magnitude carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const Magnitude product = static_cast<Magnitude>(*it - '0') * factor + carry;
    *it = static_cast<char>('0' + product % 10);
    carry = product / 10;
  }
  std::string head;
  for (; carry != 0; carry /= 10) head.push_back(static_cast<char>('0' + carry % 10));
  digits.insert(0, std::string(head.rbegin(), head.rend()));
}

// Rounds digits * 2^binary_exponent * 10^decimal_exponent up to an integer. `digits` is a non-zero
// decimal string. False when the result passes 2^128 - 1. The digit string keeps the arithmetic
// exact however many digits the text had, without a big-number type.
bool RoundUp(std::string digits, int binary_exponent, int64_t decimal_exponent, Magnitude* out) {
  if (binary_exponent > 0) MultiplyByPowerOfTwo(digits, binary_exponent);
  const int64_t length = static_cast<int64_t>(digits.size());
  const int64_t integer_digits = std::max<int64_t>(0, length + decimal_exponent);
  // 40 or more integer digits is at least 10^39, past 2^128; this also keeps the loop short.
  if (integer_digits > kMaxPow10 + 1) return false;
  const int64_t kept = std::min(length, integer_digits);
  Magnitude value = 0;
  for (int64_t i = 0; i < kept; ++i) {
    if (!MulAdd(value, 10, static_cast<Magnitude>(digits[i] - '0'))) return false;
  }
  for (int64_t i = kept; i < integer_digits; ++i) {
    if (!MulAdd(value, 10, 0)) return false;
  }
  const bool has_fraction =
      std::any_of(digits.begin() + kept, digits.end(), [](char c) { return c != '0'; });
  if (has_fraction && !MulAdd(value, 1, 1)) return false;
  *out = value;
  return true;
}

// Parses text into nanos and format; returns the error message, or nullopt on success.
std::optional<std::string_view> ParseParts(std::string_view text, Nanos* nanos,
                                           QuantityFormat* format) {
  Pieces pieces;
  if (text.empty() || !Cut(text, &pieces)) return kQuantityFormatError;
  const std::optional<Suffix> suffix = Interpret(pieces.suffix);
  if (!suffix) return kQuantitySuffixError;
  *format = suffix->format;
  const bool binary = suffix->format == QuantityFormat::kBinarySI;

  if (pieces.integer.empty() && pieces.fraction.empty()) {
    // A number with no digits at all ("k", "-", "."): upstream's int64 fast path reads it as zero,
    // but its arbitrary-precision path, which it takes for a decimal exponent below -9 or a binary
    // suffix from Pi up (its precision estimate 13 - exponent*3/10 goes negative), cannot parse it.
    const bool slow_path = binary ? suffix->exponent * 3 / 10 > 13 : suffix->exponent < -9;
    if (slow_path) return kQuantityNumericError;
    *nanos = 0;
    return std::nullopt;
  }

  std::string digits;
  digits.append(pieces.integer).append(pieces.fraction);
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    *nanos = 0;
    return std::nullopt;
  }
  const size_t last = digits.find_last_not_of('0');
  const int64_t trailing_zeros = static_cast<int64_t>(digits.size() - 1 - last);
  const int64_t decimal_exponent = (binary ? 0 : suffix->exponent) -
                                   static_cast<int64_t>(pieces.fraction.size()) + trailing_zeros -
                                   kNanoExponent;
  Magnitude magnitude = 0;
  const bool fits = RoundUp(digits.substr(first, last - first + 1), binary ? suffix->exponent : 0,
                            decimal_exponent, &magnitude) &&
                    magnitude <= kMaxMagnitude;
  if (binary) {
    if (!fits || magnitude > kMaxBinaryMagnitude) magnitude = kMaxBinaryMagnitude;
    // As upstream: a binary value below one unit would print as a rounded-up integer, so it is
    // relabelled DecimalSI ("0.000000000001Ki" is 2n, not 1).
    if (magnitude < kNanosPerUnit) *format = QuantityFormat::kDecimalSI;
  } else if (!fits) {
    return kQuantityTooLargeError;
  }
  *nanos = pieces.negative ? -static_cast<Nanos>(magnitude) : static_cast<Nanos>(magnitude);
  return std::nullopt;
}

Magnitude Abs(Nanos n) { return n < 0 ? -static_cast<Magnitude>(n) : static_cast<Magnitude>(n); }

std::string ToDecimal(Magnitude value) {
  std::string reversed;
  do {
    reversed.push_back(static_cast<char>('0' + value % 10));
    value /= 10;
  } while (value != 0);
  return std::string(reversed.rbegin(), reversed.rend());
}

// Appends the decimal canonical form of magnitude nano-units: mantissa with no factor of ten
// left that a multiple-of-3 exponent could absorb, then the suffix.
void AppendDecimal(Magnitude magnitude, QuantityFormat format, std::string& out) {
  int exponent = kNanoExponent;
  while (magnitude % 10 == 0) {
    magnitude /= 10;
    ++exponent;
  }
  // Pull the exponent down to a multiple of 3. It only drops by as many tens as were just divided
  // out, so the mantissa cannot outgrow the original magnitude.
  const int excess = ((exponent % 3) + 3) % 3;
  magnitude *= kPow10[excess];
  exponent -= excess;
  out += ToDecimal(magnitude);
  if (format == QuantityFormat::kDecimalSI) {
    for (const Suffix& suffix : kSuffixes) {
      if (suffix.format == QuantityFormat::kDecimalSI && suffix.exponent == exponent) {
        out += suffix.text;
        return;
      }
    }
  }
  // DecimalExponent, or a DecimalSI exponent with no letter (10^21 prints "1e21"): upstream falls
  // back to exponent notation rather than drop the magnitude.
  if (exponent != 0) {
    out += 'e';
    out += std::to_string(exponent);
  }
}

Nanos SaturatingAdd(Nanos a, Nanos b) {
  Nanos sum;
  if (__builtin_add_overflow(a, b, &sum)) return a > 0 ? Quantity::kMaxNanos : -Quantity::kMaxNanos;
  return std::clamp(sum, -Quantity::kMaxNanos, Quantity::kMaxNanos);
}

}  // namespace

std::optional<Quantity> Quantity::Parse(std::string_view text) {
  Quantity q;
  if (!Parse(text, &q, nullptr)) return std::nullopt;
  return q;
}

bool Quantity::Parse(std::string_view text, Quantity* out, std::string* error) {
  Nanos nanos = 0;
  QuantityFormat format = QuantityFormat::kDecimalSI;
  if (const std::optional<std::string_view> failure = ParseParts(text, &nanos, &format)) {
    if (error != nullptr) *error = *failure;
    return false;
  }
  *out = Quantity(nanos, format);
  return true;
}

Quantity Quantity::FromValue(int64_t value, QuantityFormat format) {
  return Quantity(static_cast<Nanos>(value) * 1'000'000'000, format);
}

Quantity Quantity::FromMilli(int64_t milli, QuantityFormat format) {
  return Quantity(static_cast<Nanos>(milli) * 1'000'000, format);
}

int64_t Quantity::ScaledValue(int scale) const {
  if (nanos_ == 0) return 0;
  const Magnitude magnitude = Abs(nanos_);
  // The result is nanos_ / 10^shift, rounded away from zero.
  const int64_t shift = int64_t{scale} - kNanoExponent;
  Magnitude result;
  if (shift > kMaxPow10) {
    result = 1;  // 10^39 exceeds every magnitude: only the rounding unit is left
  } else if (shift >= 0) {
    result = magnitude / kPow10[shift] + (magnitude % kPow10[shift] != 0 ? 1 : 0);
  } else if (-shift > kMaxPow10 || magnitude > kMagnitudeMax / kPow10[-shift]) {
    result = kMagnitudeMax;
  } else {
    result = magnitude * kPow10[-shift];
  }
  const Magnitude int64_limit = static_cast<Magnitude>(INT64_MAX);
  if (nanos_ < 0) return result > int64_limit ? INT64_MIN : -static_cast<int64_t>(result);
  return result > int64_limit ? INT64_MAX : static_cast<int64_t>(result);
}

void Quantity::Add(const Quantity& y) {
  if (nanos_ == 0) format_ = y.format_;
  nanos_ = SaturatingAdd(nanos_, y.nanos_);
}

void Quantity::Sub(const Quantity& y) {
  if (nanos_ == 0) format_ = y.format_;
  nanos_ = SaturatingAdd(nanos_, -y.nanos_);
}

std::string Quantity::String() const {
  if (nanos_ == 0) return "0";
  const Magnitude magnitude = Abs(nanos_);
  std::string out = nanos_ < 0 ? "-" : "";
  QuantityFormat format = format_;
  if (format == QuantityFormat::kBinarySI) {
    // Binary suffixes only for whole numbers of at least 1Ki; anything else would round or read
    // oddly, so it prints as DecimalSI.
    if (magnitude < 1024 * kNanosPerUnit || magnitude % kNanosPerUnit != 0) {
      format = QuantityFormat::kDecimalSI;
    } else {
      Magnitude units = magnitude / kNanosPerUnit;
      int power = 0;
      for (; units % 1024 == 0; units /= 1024) ++power;
      if (power <= kMaxBinaryPower) {
        out += ToDecimal(units);
        out += kBinarySuffixes[power];
        return out;
      }
      // Past Ei there is no letter; print the exact decimal value instead.
      format = QuantityFormat::kDecimalExponent;
    }
  }
  AppendDecimal(magnitude, format, out);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Quantity& q) { return os << q.String(); }

}  // namespace muster::api
