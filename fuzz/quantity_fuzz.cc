// Quantity parsing (api/quantity.h): whatever the text, Parse either refuses it with one of the
// kQuantity*Error messages or gives a quantity whose canonical form parses back to the same value
// and soon prints the same again. Any violation traps.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "muster/api/quantity.h"

using muster::api::Quantity;

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

bool IsKnownError(std::string_view error) {
  return error == muster::api::kQuantityFormatError ||
         error == muster::api::kQuantityNumericError ||
         error == muster::api::kQuantitySuffixError || error == muster::api::kQuantityTooLargeError;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Quantity q;
  std::string error;
  const bool parsed = Quantity::Parse(text, &q, &error);
  Check(parsed == Quantity::Parse(text).has_value());
  if (!parsed) {
    Check(IsKnownError(error));
    return 0;
  }
  Check(q.nanos() <= Quantity::kMaxNanos && q.nanos() >= -Quantity::kMaxNanos);

  // The canonical form parses back to the same value, and prints the same again unless parsing
  // it changed the format (as upstream, "62.5Ki" prints "64000", which reads back as DecimalSI
  // and prints "64k"); after that one step it is a fixed point.
  const std::string canonical = q.String();
  const std::optional<Quantity> again = Quantity::Parse(canonical);
  Check(again.has_value());
  Check(*again == q);
  const std::string reprinted = again->String();
  if (again->format() == q.format()) Check(reprinted == canonical);
  const std::optional<Quantity> third = Quantity::Parse(reprinted);
  Check(third.has_value() && *third == q && third->String() == reprinted);
  std::ostringstream printed;
  printed << q;
  Check(printed.str() == canonical);

  // Sign, comparison and rounding agree with each other.
  Check(q.Sign() == (q.nanos() > 0) - (q.nanos() < 0));
  Check(q.IsZero() == (q.Sign() == 0));
  Check(q.Cmp(Quantity()) == q.Sign());
  for (int scale = -12; scale <= 30; scale += 3) {
    const int64_t v = q.ScaledValue(scale);
    // Rounding away from zero: a non-zero quantity never scales to 0.
    Check(q.IsZero() ? v == 0 : (v > 0) == (q.Sign() > 0));
  }
  Check(q.Value() == q.ScaledValue(0) && q.MilliValue() == q.ScaledValue(-3));

  // Arithmetic: negation is exact, and adding then subtracting a value is the identity when
  // nothing saturates.
  Quantity negated = q;
  negated.Neg();
  Check(negated.Cmp(q) == -q.Sign() || q.IsZero());
  negated.Neg();
  Check(negated == q);
  Quantity sum;
  sum.Add(q);
  Check(sum == q && sum.String() == canonical);
  sum.Sub(q);
  Check(sum.IsZero());
  return 0;
}
