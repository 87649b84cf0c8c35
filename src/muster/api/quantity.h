#pragma once

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace muster::api {

// How a Quantity prints. Parsing takes it from the suffix, as Kubernetes does: none or n u m k M G
// T P E give DecimalSI, Ki Mi Gi Ti Pi Ei give BinarySI, e<exp> or E<exp> gives DecimalExponent.
enum class QuantityFormat : uint8_t {
  kDecimalSI,        // 1500m, 12M
  kBinarySI,         // 12Mi
  kDecimalExponent,  // 12e6
};

// Parse errors. The first three are apimachinery's messages word for word, so a rejected manifest
// reads the same as it would from the API server; the last is muster's own (see Quantity).
inline constexpr std::string_view kQuantityFormatError =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
inline constexpr std::string_view kQuantityNumericError =
    "unable to parse numeric part of quantity";
inline constexpr std::string_view kQuantitySuffixError = "unable to parse quantity's suffix";
inline constexpr std::string_view kQuantityTooLargeError =
    "quantity too large: muster accepts magnitudes up to about 1.7e29";

// Quantity is Kubernetes' resource.Quantity (k8s.io/apimachinery/pkg/api/resource): a fixed-point
// number such as "500m", "1.5Gi" or "2e3", parsed, compared and printed as upstream does.
//
// The value is held exactly as a signed 128-bit count of nano-units (value * 10^9). Parsing rounds
// a non-zero value's magnitude up to the next nano-unit, as upstream does, so nothing finer is ever
// needed. Upstream keeps arbitrary precision beyond that; muster does not: a magnitude above
// kMaxNanos nano-units (about 1.7e29, e.g. "1e30") is a parse error, because no resource a
// scheduler places comes near it and a fixed width keeps every operation allocation-free.
// Add and Sub saturate at +-kMaxNanos instead of growing past it.
//
// Equality and ordering compare values only: "1Ki" == "1024" even though they print differently.
// A Quantity is a small value type; copy it freely.
class Quantity {
 public:
  // __extension__ keeps -Wpedantic quiet about the GNU 128-bit integer, which GCC and Clang share.
  __extension__ typedef __int128 Nanos;

  // 2^127 - 1: the largest magnitude, in nano-units. Its negation is the smallest value, so
  // negating a Quantity can never overflow.
  static constexpr Nanos kMaxNanos = ((Nanos{1} << 126) - 1) * 2 + 1;

  // Zero, printed as "0", with DecimalSI format.
  constexpr Quantity() = default;

  // Parses `text` by upstream's grammar (ParseQuantity); nullopt when it is malformed.
  static std::optional<Quantity> Parse(std::string_view text);
  // The same, reporting why: on failure returns false, leaves *out alone and, unless `error` is
  // null, sets it to one of the kQuantity*Error messages.
  static bool Parse(std::string_view text, Quantity* out, std::string* error);

  // value, or value/1000 for FromMilli, with the given format (upstream's NewQuantity and
  // NewMilliQuantity).
  static Quantity FromValue(int64_t value, QuantityFormat format);
  static Quantity FromMilli(int64_t milli, QuantityFormat format);

  // The value in units, thousandths, or units of 10^scale (ScaledValue(-3) == MilliValue()). A
  // fraction rounds away from zero, as upstream's does: "0.5" and "1n" give Value() 1, "-0.5" gives
  // -1. A result beyond int64 saturates at INT64_MAX or INT64_MIN.
  int64_t Value() const { return ScaledValue(0); }
  int64_t MilliValue() const { return ScaledValue(-3); }
  int64_t ScaledValue(int scale) const;

  // The exact value, in nano-units.
  Nanos nanos() const { return nanos_; }
  QuantityFormat format() const { return format_; }

  bool IsZero() const { return nanos_ == 0; }
  // -1, 0 or 1.
  int Sign() const { return (nanos_ > 0) - (nanos_ < 0); }
  // -1, 0 or 1 as *this is less than, equal to or greater than `other`.
  int Cmp(const Quantity& other) const { return (nanos_ > other.nanos_) - (nanos_ < other.nanos_); }

  // In-place arithmetic, as upstream's. When *this is zero it takes y's format, so a sum started
  // from Quantity() prints like its first non-zero term.
  void Add(const Quantity& y);
  void Sub(const Quantity& y);
  void Neg() { nanos_ = -nanos_; }

  // The canonical form (upstream's String / CanonicalizeBytes): the largest suffix of the format
  // that keeps the mantissa an integer, e.g. "1500m", "1k", "1536Mi", "1e3", "0".
  std::string String() const;

  friend bool operator==(const Quantity& a, const Quantity& b) { return a.nanos_ == b.nanos_; }
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return a.nanos_ <=> b.nanos_;
  }

 private:
  constexpr Quantity(Nanos nanos, QuantityFormat format) : nanos_(nanos), format_(format) {}

  // Aligned to 8 bytes, not the 16 of __int128, so that a Quantity takes 24 bytes, not 32, and a
  // resource list's (name, quantity) entry 32, not 48: a cluster holds several per pod.
  Nanos nanos_ [[gnu::packed, gnu::aligned(8)]] = 0;
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
};
static_assert(sizeof(Quantity) == 24);

// Writes q.String().
std::ostream& operator<<(std::ostream& os, const Quantity& q);

}  // namespace muster::api
