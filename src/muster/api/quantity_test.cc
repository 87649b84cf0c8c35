#include "muster/api/quantity.h"

#include <climits>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace muster::api {
namespace {

using Nanos = Quantity::Nanos;
constexpr QuantityFormat kDecimalSI = QuantityFormat::kDecimalSI;
constexpr QuantityFormat kBinarySI = QuantityFormat::kBinarySI;
constexpr QuantityFormat kDecimalExponent = QuantityFormat::kDecimalExponent;

// mantissa * 10^exponent in nano-units, mirroring upstream's decQuantity(mantissa, exponent).
constexpr Nanos Dec(int64_t mantissa, int exponent) {
  Nanos nanos = mantissa;
  for (int i = -9; i < exponent; ++i) nanos *= 10;
  return nanos;
}

// Upstream's cap for BinarySI values: the largest int64.
constexpr Nanos kBinaryCap = Dec(INT64_MAX, 0);

// gtest cannot print __int128.
std::string ToString(Nanos nanos) {
  if (nanos == 0) return "0";
  const bool negative = nanos < 0;
  std::string digits;
  for (; nanos != 0; nanos /= 10) {
    const int digit = static_cast<int>(nanos % 10);
    digits.insert(digits.begin(), static_cast<char>('0' + (digit < 0 ? -digit : digit)));
  }
  return negative ? "-" + digits : digits;
}

Quantity MustParse(const std::string& text) {
  std::optional<Quantity> q = Quantity::Parse(text);
  EXPECT_TRUE(q.has_value()) << text;
  return q.value_or(Quantity());
}

struct ParseCase {
  std::string input;
  Nanos nanos;
  QuantityFormat format;
};

void ExpectParses(const std::string& input, Nanos nanos, QuantityFormat format) {
  std::string error;
  Quantity q;
  ASSERT_TRUE(Quantity::Parse(input, &q, &error)) << input << ": " << error;
  EXPECT_EQ(ToString(q.nanos()), ToString(nanos)) << input;
  EXPECT_EQ(static_cast<int>(q.format()), static_cast<int>(format)) << input;
}

// Upstream's TestQuantityParse table; like upstream, each row is also tried with "-" and "+".
TEST(QuantityTest, ParsesUpstreamTable) {
  const std::vector<ParseCase> cases = {
      {"0", Dec(0, 0), kDecimalSI},
      {"0n", Dec(0, 0), kDecimalSI},
      {"0u", Dec(0, 0), kDecimalSI},
      {"0m", Dec(0, 0), kDecimalSI},
      {"0Ki", Dec(0, 0), kBinarySI},
      {"0k", Dec(0, 0), kDecimalSI},
      {"0Mi", Dec(0, 0), kBinarySI},
      {"0M", Dec(0, 0), kDecimalSI},
      {"0Gi", Dec(0, 0), kBinarySI},
      {"0G", Dec(0, 0), kDecimalSI},
      {"0Ti", Dec(0, 0), kBinarySI},
      {"0T", Dec(0, 0), kDecimalSI},
      {"1", Dec(1, 0), kDecimalSI},
      {"1Ki", Dec(1024, 0), kBinarySI},
      {"8Ki", Dec(8 * 1024, 0), kBinarySI},
      {"7Mi", Dec(7 * 1024 * 1024, 0), kBinarySI},
      {"6Gi", Dec(6LL << 30, 0), kBinarySI},
      {"5Ti", Dec(5LL << 40, 0), kBinarySI},
      {"4Pi", Dec(4LL << 50, 0), kBinarySI},
      {"3Ei", Dec(3LL << 60, 0), kBinarySI},
      {"10Ti", Dec(10LL << 40, 0), kBinarySI},
      {"100Ti", Dec(100LL << 40, 0), kBinarySI},
      {"5n", Dec(5, -9), kDecimalSI},
      {"4u", Dec(4, -6), kDecimalSI},
      {"3m", Dec(3, -3), kDecimalSI},
      {"9", Dec(9, 0), kDecimalSI},
      {"8k", Dec(8, 3), kDecimalSI},
      {"50k", Dec(5, 4), kDecimalSI},
      {"7M", Dec(7, 6), kDecimalSI},
      {"6G", Dec(6, 9), kDecimalSI},
      {"5T", Dec(5, 12), kDecimalSI},
      {"40T", Dec(4, 13), kDecimalSI},
      {"300T", Dec(3, 14), kDecimalSI},
      {"2P", Dec(2, 15), kDecimalSI},
      {"1E", Dec(1, 18), kDecimalSI},
      {"1E-3", Dec(1, -3), kDecimalExponent},
      {"1e3", Dec(1, 3), kDecimalExponent},
      {"1E6", Dec(1, 6), kDecimalExponent},
      {"1e9", Dec(1, 9), kDecimalExponent},
      {"1E12", Dec(1, 12), kDecimalExponent},
      {"1e15", Dec(1, 15), kDecimalExponent},
      {"1E18", Dec(1, 18), kDecimalExponent},
      {"1e14", Dec(1, 14), kDecimalExponent},
      {"1e13", Dec(1, 13), kDecimalExponent},
      {"100.035k", Dec(100035, 0), kDecimalSI},
      {"0.001", Dec(1, -3), kDecimalSI},
      {"0.0005k", Dec(5, -1), kDecimalSI},
      {"0.005", Dec(5, -3), kDecimalSI},
      {"0.05", Dec(5, -2), kDecimalSI},
      {"0.5", Dec(5, -1), kDecimalSI},
      {"0.00050k", Dec(5, -1), kDecimalSI},
      {"0.00500", Dec(5, -3), kDecimalSI},
      {"0.05000", Dec(5, -2), kDecimalSI},
      {"0.50000", Dec(5, -1), kDecimalSI},
      {"0.5e0", Dec(5, -1), kDecimalExponent},
      {"0.5e-1", Dec(5, -2), kDecimalExponent},
      {"0.5e-2", Dec(5, -3), kDecimalExponent},
      {"10.035M", Dec(10035, 3), kDecimalSI},
      {"1.2e3", Dec(12, 2), kDecimalExponent},
      {"1.3E+6", Dec(13, 5), kDecimalExponent},
      {"1.40e9", Dec(14, 8), kDecimalExponent},
      {"1.53E12", Dec(153, 10), kDecimalExponent},
      {"1.6e15", Dec(16, 14), kDecimalExponent},
      {"1.7E18", Dec(17, 17), kDecimalExponent},
      {"9.01", Dec(901, -2), kDecimalSI},
      {"8.1k", Dec(81, 2), kDecimalSI},
      {"7.123456M", Dec(7123456, 0), kDecimalSI},
      {"6.987654321G", Dec(6987654321, 0), kDecimalSI},
      {"5.444T", Dec(5444, 9), kDecimalSI},
      {"40.1T", Dec(401, 11), kDecimalSI},
      {"300.2T", Dec(3002, 11), kDecimalSI},
      {"2.5P", Dec(25, 14), kDecimalSI},
      {"1.01E", Dec(101, 16), kDecimalSI},
      // Rounded up to the next nano-unit, or capped.
      {"3.001n", Dec(4, -9), kDecimalSI},
      {"1.1E-9", Dec(2, -9), kDecimalExponent},
      {"0.0000000001", Dec(1, -9), kDecimalSI},
      {"0.0000000005", Dec(1, -9), kDecimalSI},
      {"0.00000000050", Dec(1, -9), kDecimalSI},
      {"0.5e-9", Dec(1, -9), kDecimalExponent},
      {"0.9n", Dec(1, -9), kDecimalSI},
      {"0.00000012345", Dec(124, -9), kDecimalSI},
      {"0.00000012354", Dec(124, -9), kDecimalSI},
      {"9Ei", kBinaryCap, kBinarySI},
      {"9223372036854775807Ki", kBinaryCap, kBinarySI},
      {"12E", Dec(12, 18), kDecimalSI},
      // Fractional binary values.
      {"100.035Ki", Dec(10243584, -2), kBinarySI},
      {"0.5Mi", Dec(512 * 1024, 0), kBinarySI},
      {"0.05Gi", Dec(536870912, -1), kBinarySI},
      {"0.025Ti", Dec(274877906944, -1), kBinarySI},
      // Odd but accepted; a binary value under one unit becomes DecimalSI.
      {"0.000000000001Ki", Dec(2, -9), kDecimalSI},
      {".001", Dec(1, -3), kDecimalSI},
      {".0001k", Dec(100, -3), kDecimalSI},
      {"1.", Dec(1, 0), kDecimalSI},
      {"1.G", Dec(1, 9), kDecimalSI},
  };
  for (const ParseCase& c : cases) {
    ExpectParses(c.input, c.nanos, c.format);
    ExpectParses("-" + c.input, -c.nanos, c.format);
    ExpectParses("+" + c.input, c.nanos, c.format);
  }
}

// Inputs beyond upstream's table: shapes the grammar allows, exactness over long digit strings, and
// the edges of muster's range.
TEST(QuantityTest, ParsesEdgeCases) {
  const std::vector<ParseCase> cases = {
      {"+1", Dec(1, 0), kDecimalSI},
      {".5", Dec(5, -1), kDecimalSI},
      {"5.", Dec(5, 0), kDecimalSI},
      {"2e3", Dec(2, 3), kDecimalExponent},
      {"1.5Gi", Dec(1536LL << 20, 0), kBinarySI},
      {"100m", Dec(100, -3), kDecimalSI},
      {"-0", Dec(0, 0), kDecimalSI},
      {"007", Dec(7, 0), kDecimalSI},
      // Upstream reads a number with no digits as zero.
      {"-", 0, kDecimalSI},
      {"+", 0, kDecimalSI},
      {".", 0, kDecimalSI},
      {"-.", 0, kDecimalSI},
      {"k", 0, kDecimalSI},
      {"Ti", 0, kBinarySI},
      {"e3", 0, kDecimalExponent},
      {"0e-10", 0, kDecimalExponent},
      {"0.0Ki", 0, kBinarySI},
      {"0e2147483647", 0, kDecimalExponent},
      // Exponents at the int32 bounds: tiny values round up to one nano-unit.
      {"1e-2147483647", Dec(1, -9), kDecimalExponent},
      {"-.484785E-7466", Dec(-1, -9), kDecimalExponent},
      {"1000E", Dec(1, 21), kDecimalSI},
      // Long digit strings stay exact.
      {"1.000000000000000000000000000000000000000000000000001", Dec(1000000001, -9), kDecimalSI},
      {"0000000000000000000000000000000000000000000000000002k", Dec(2, 3), kDecimalSI},
      {"1000000000000000000000000000000000000000e-30", Dec(1, 9), kDecimalExponent},
      // The largest magnitude muster holds, exactly.
      {"170141183460469231731687303715.884105727", Quantity::kMaxNanos, kDecimalSI},
      {"-170141183460469231731687303715.884105727", -Quantity::kMaxNanos, kDecimalSI},
      // Binary values are capped, never rejected, however large.
      {"8Ei", kBinaryCap, kBinarySI},
      {"-99999999999999999999999999999999999999999999Ei", -kBinaryCap, kBinarySI},
      {"7.99999999999999999999Ei", kBinaryCap, kBinarySI},
  };
  for (const ParseCase& c : cases) ExpectParses(c.input, c.nanos, c.format);
}

struct ErrorCase {
  std::string input;
  std::string_view error;
};

TEST(QuantityTest, RejectsMalformedInput) {
  const std::vector<ErrorCase> cases = {
      {"", kQuantityFormatError},
      // Upstream's invalid list.
      {"1.1.M", kQuantityFormatError},
      {"1+1.0M", kQuantityFormatError},
      {"0.1mi", kQuantitySuffixError},
      {"0.1am", kQuantityFormatError},
      {"aoeu", kQuantityFormatError},
      {".5i", kQuantitySuffixError},
      {"1i", kQuantitySuffixError},
      {"-3.01i", kQuantitySuffixError},
      {"-3.01e-", kQuantitySuffixError},
      {"1e4294967297", kQuantitySuffixError},
      {" 1", kQuantityFormatError},
      {"1 ", kQuantityFormatError},
      // More shapes.
      {"1.1.1", kQuantityFormatError},
      {"1ki", kQuantitySuffixError},
      {"1KI", kQuantityFormatError},
      {"4 cores", kQuantityFormatError},
      {"1e", kQuantitySuffixError},
      {"1e+", kQuantitySuffixError},
      {"1ee3", kQuantitySuffixError},
      {"1e3e", kQuantityFormatError},
      {"1m1", kQuantitySuffixError},
      {"1Mi3", kQuantitySuffixError},
      {"--1", kQuantitySuffixError},
      {"+-1", kQuantitySuffixError},
      {"0x10", kQuantityFormatError},
      {"1,5", kQuantityFormatError},
      {"1_000", kQuantityFormatError},
      // The exponent must fit [-(2^31-1), 2^31-1].
      {"1e2147483648", kQuantitySuffixError},
      {"1E-2147483648", kQuantitySuffixError},
      {"1e99999999999999999999999999999", kQuantitySuffixError},
      // Upstream's arbitrary-precision path cannot parse an empty number.
      {"e-10", kQuantityNumericError},
      {".e-10", kQuantityNumericError},
      {"-e-12", kQuantityNumericError},
      {"Pi", kQuantityNumericError},
      {"Ei", kQuantityNumericError},
      // muster's limit.
      {"1e100", kQuantityTooLargeError},
      {"1E30", kQuantityTooLargeError},
      {"-1E30", kQuantityTooLargeError},
      {"1e2147483647", kQuantityTooLargeError},
      {"1000000000000000000000000000000", kQuantityTooLargeError},
      {"170141183460469231731687303715.884105728", kQuantityTooLargeError},
      {"170141183460469231731687303715.8841057271", kQuantityTooLargeError},
  };
  for (const ErrorCase& c : cases) {
    Quantity q = Quantity::FromValue(7, kBinarySI);
    std::string error;
    EXPECT_FALSE(Quantity::Parse(c.input, &q, &error)) << '"' << c.input << '"';
    EXPECT_EQ(error, c.error) << '"' << c.input << '"';
    EXPECT_EQ(q.String(), "7") << "a failed parse must leave its output alone";
    EXPECT_FALSE(Quantity::Parse(c.input).has_value()) << '"' << c.input << '"';
  }
}

TEST(QuantityTest, ParseAcceptsNullError) {
  Quantity q;
  EXPECT_FALSE(Quantity::Parse("bogus", &q, nullptr));
  EXPECT_TRUE(Quantity::Parse("1", &q, nullptr));
  EXPECT_EQ(q.Value(), 1);
}

struct StringCase {
  std::string input;
  std::string canonical;
};

// Upstream's TestQuantityString (each canonical form and an alternate spelling of it),
// TestQuantityParseEmit and TestParseQuantity; negated inputs print with a leading "-".
TEST(QuantityTest, PrintsCanonicalForm) {
  const std::vector<StringCase> cases = {
      {"1Gi", "1Gi"},
      {"1024Mi", "1Gi"},
      {"300Mi", "300Mi"},
      {"307200Ki", "300Mi"},
      {"6Ki", "6Ki"},
      {"1001Gi", "1001Gi"},
      {"1025024Mi", "1001Gi"},
      {"1Ti", "1Ti"},
      {"1024Gi", "1Ti"},
      {"5000m", "5"},
      {"0.5", "500m"},
      {"1G", "1G"},
      {"1000M", "1G"},
      {"0.001T", "1G"},
      {"1m", "1m"},
      {"1000u", "1m"},
      {"80m", "80m"},
      {"1.08", "1080m"},
      {"1080000000n", "1080m"},
      {"300M", "300M"},
      {"1T", "1T"},
      {"1E", "1E"},
      {"1000E", "1e21"},
      {"5000E", "5e21"},
      {"1000000E", "1e24"},
      {"1234567M", "1234567M"},
      {"1234567m", "1234567m"},
      {"3k", "3k"},
      {"1025", "1025"},
      {"0", "0"},
      {"00", "0"},
      {"0Gi", "0"},
      {".001e12", "1e9"},
      {"0.001e0", "1e-3"},
      {"1000e-12", "1e-9"},
      {"80e-3", "80e-3"},
      {"300e6", "300e6"},
      {"1e12", "1e12"},
      {"1e3", "1e3"},
      {"3e3", "3e3"},
      {"1n", "1n"},
      {"80n", "80n"},
      {"1080n", "1080n"},
      {"1.08u", "1080n"},
      {"1u", "1u"},
      {"80u", "80u"},
      {"1080u", "1080u"},
      // TestQuantityParseEmit.
      {"1Ki", "1Ki"},
      {"1Mi", "1Mi"},
      {".001Ki", "1024m"},
      {".000001Ki", "1024u"},
      {".000000001Ki", "1024n"},
      {".000000000001Ki", "2n"},
      // TestParseQuantity: values past int64 keep every digit.
      {"999999999999999999.0", "999999999999999999"},
      {"999999999999999999.1", "999999999999999999100m"},
      {"9999999999999999999", "9999999999999999999"},
      {"9999999999999999999000m", "9999999999999999999"},
      {"1000000000000000000", "1E"},
      {"1.0000000000000000001E", "1000000000000000000100m"},
      {"1.000000000000000001E", "1000000000000000001"},
      {"10000000000000000000", "10E"},
      {"10.0000000000000000001E", "10000000000000000000100m"},
      {"9223372036854775808", "9223372036854775808"},
      {"9223372036854775808.1", "9223372036854775808100m"},
      // Examples from the Quantity documentation.
      {"1500", "1500"},
      {"1.5", "1500m"},
      {"0.1", "100m"},
      {"1.5Gi", "1536Mi"},
      {"1536Mi", "1536Mi"},
      {"0.5Gi", "512Mi"},
      {"512", "512"},
      {"1024", "1024"},
      {"2e3", "2e3"},
      {"1.5e3", "1500"},
      // BinarySI that is fractional, or under 1Ki, prints as DecimalSI.
      {"1.5Ki", "1536"},
      {"100.035Ki", "102435840m"},
      {"0.5Ki", "512"},
      {"9Ei", "9223372036854775807"},
  };
  for (const StringCase& c : cases) {
    const Quantity q = MustParse(c.input);
    EXPECT_EQ(q.String(), c.canonical) << c.input;
    EXPECT_EQ(MustParse(q.String()), q) << "canonical form of " << c.input << " must round-trip";
    if (q.IsZero()) continue;
    EXPECT_EQ(MustParse("-" + c.input).String(), "-" + c.canonical) << c.input;
  }
}

struct FactoryCase {
  int64_t value;
  QuantityFormat format;
  std::string canonical;
};

// Upstream's TestNewSet and TestMilliNewSet.
TEST(QuantityTest, FactoriesPrintCanonically) {
  const std::vector<FactoryCase> values = {
      {1, kDecimalSI, "1"},
      {1000, kDecimalSI, "1k"},
      {1234000, kDecimalSI, "1234k"},
      {1024, kBinarySI, "1Ki"},
      {1000000, kDecimalExponent, "1e6"},
      {1024 * 1024, kBinarySI, "1Mi"},
      {2000, kBinarySI, "2000"},
      {-2000, kBinarySI, "-2000"},
      {1023, kBinarySI, "1023"},
      {1536 << 20, kBinarySI, "1536Mi"},
  };
  for (const FactoryCase& c : values) {
    const Quantity q = Quantity::FromValue(c.value, c.format);
    EXPECT_EQ(q.String(), c.canonical) << c.value;
    EXPECT_EQ(q.format(), c.format);
    EXPECT_EQ(MustParse(q.String()).Value(), c.value) << c.value;
  }
  const std::vector<FactoryCase> millis = {
      {1, kDecimalSI, "1m"},
      {1000, kDecimalSI, "1"},
      {1234000, kDecimalSI, "1234"},
      {1024, kBinarySI, "1024m"},
      {1000000, kDecimalExponent, "1e3"},
      {1024 * 1024, kBinarySI, "1048576m"},
      {0, kBinarySI, "0"},
  };
  for (const FactoryCase& c : millis) {
    const Quantity q = Quantity::FromMilli(c.value, c.format);
    EXPECT_EQ(q.String(), c.canonical) << c.value;
    EXPECT_EQ(MustParse(q.String()).MilliValue(), c.value) << c.value;
  }
}

TEST(QuantityTest, FactoriesCoverInt64) {
  EXPECT_EQ(Quantity::FromValue(INT64_MAX, kDecimalSI).Value(), INT64_MAX);
  EXPECT_EQ(Quantity::FromValue(INT64_MIN, kDecimalSI).Value(), INT64_MIN);
  EXPECT_EQ(Quantity::FromMilli(INT64_MIN, kDecimalSI).MilliValue(), INT64_MIN);
  EXPECT_EQ(Quantity::FromValue(INT64_MIN, kBinarySI).String(), "-8Ei");
  EXPECT_EQ(Quantity().String(), "0");
  EXPECT_EQ(Quantity().format(), kDecimalSI);
}

struct ValueCase {
  std::string input;
  int64_t value;
  int64_t milli;
};

// Upstream's TestNegativeValueRoundsAwayFromZero, plus saturation at the int64 limits.
TEST(QuantityTest, ValueAndMilliValueRoundAwayFromZero) {
  const std::vector<ValueCase> cases = {
      {"-.484785E-7466", -1, -1},
      {".484785E-7466", 1, 1},
      {"-.484785E-1", -1, -49},
      {".484785E-1", 1, 49},
      {"-0.0005", -1, -1},
      {"0.0005", 1, 1},
      {"-1500m", -2, -1500},
      {"1500m", 2, 1500},
      {"-9.5000000001Gi", -10200547329, -10200547328108},
      {"9.5000000001Gi", 10200547329, 10200547328108},
      {"-1", -1, -1000},
      {"1", 1, 1000},
      {"0", 0, 0},
      {"1n", 1, 1},
      {"-1n", -1, -1},
      {"0.5", 1, 500},
      {"-0.5", -1, -500},
      {"100m", 1, 100},
      {"1.5Gi", 1610612736, 1610612736000},
      {"1Mi", 1048576, 1048576000},
      {"2e3", 2000, 2000000},
      {"1E-3", 1, 1},
      {"9223372036854775807", INT64_MAX, INT64_MAX},
      {"-9223372036854775808", INT64_MIN, INT64_MIN},
      {"9223372036854775808", INT64_MAX, INT64_MAX},
      {"-9223372036854775809", INT64_MIN, INT64_MIN},
      {"9223372036854775.807", 9223372036854776, INT64_MAX},
      {"9223372036854775.808", 9223372036854776, INT64_MAX},
      {"1e25", INT64_MAX, INT64_MAX},
      {"-1e25", INT64_MIN, INT64_MIN},
  };
  for (const ValueCase& c : cases) {
    const Quantity q = MustParse(c.input);
    EXPECT_EQ(q.Value(), c.value) << c.input;
    EXPECT_EQ(q.MilliValue(), c.milli) << c.input;
    EXPECT_EQ(q.ScaledValue(0), c.value) << c.input;
    EXPECT_EQ(q.ScaledValue(-3), c.milli) << c.input;
  }
}

struct ScaledCase {
  std::string input;
  int scale;
  int64_t expected;
};

// Upstream's TestScaledValue, where input is 1 at the first scale, plus extreme scales.
TEST(QuantityTest, ScaledValue) {
  const std::vector<ScaledCase> cases = {
      {"1n", -9, 1},
      {"1n", -6, 1},
      {"1n", -3, 1},
      {"1n", 0, 1},
      {"1u", -9, 1000},
      {"1u", -6, 1},
      {"1u", -3, 1},
      {"1u", 0, 1},
      {"1m", -9, 1000 * 1000},
      {"1m", -6, 1000},
      {"1m", -3, 1},
      {"1m", 0, 1},
      {"1", -9, 1000 * 1000 * 1000},
      {"1", -6, 1000 * 1000},
      {"1", -3, 1000},
      {"1", 0, 1},
      {"100", -2, 100 * 100},
      {"1G", 9, 1},
      {"1500M", 9, 2},
      {"-1500M", 9, -2},
      {"1", 100, 1},
      {"-1", 100, -1},
      {"1", INT_MAX, 1},
      {"1", -100, INT64_MAX},
      {"-1", INT_MIN, INT64_MIN},
      {"1n", -18, 1000000000},
      {"1", -18, 1000000000000000000},
      {"10", -18, INT64_MAX},
  };
  for (const ScaledCase& c : cases) {
    EXPECT_EQ(MustParse(c.input).ScaledValue(c.scale), c.expected) << c.input << " @ " << c.scale;
  }
}

struct CmpCase {
  std::string a;
  std::string b;
  int expected;
};

TEST(QuantityTest, ComparesByValueOnly) {
  const std::vector<CmpCase> cases = {
      {"0", "0", 0},           {"100m", "50m", 1},
      {"50m", "100m", -1},     {"10000T", "100Gi", 1},
      {"1Ki", "1024", 0},      {"1k", "1e3", 0},
      {"0Ki", "0", 0},         {"-1", "1n", -1},
      {"1.000000001", "1", 1}, {"8Ei", "9223372036854775807", 0},
  };
  for (const CmpCase& c : cases) {
    const Quantity a = MustParse(c.a);
    const Quantity b = MustParse(c.b);
    EXPECT_EQ(a.Cmp(b), c.expected) << c.a << " vs " << c.b;
    EXPECT_EQ(b.Cmp(a), -c.expected) << c.b << " vs " << c.a;
    EXPECT_EQ(a == b, c.expected == 0) << c.a << " vs " << c.b;
    EXPECT_EQ(a < b, c.expected < 0) << c.a << " vs " << c.b;
    EXPECT_EQ(a > b, c.expected > 0) << c.a << " vs " << c.b;
  }
}

TEST(QuantityTest, SignAndIsZero) {
  EXPECT_EQ(MustParse("-1n").Sign(), -1);
  EXPECT_EQ(MustParse("0").Sign(), 0);
  EXPECT_EQ(MustParse("-0").Sign(), 0);
  EXPECT_EQ(MustParse("1Ei").Sign(), 1);
  EXPECT_TRUE(MustParse("0Mi").IsZero());
  EXPECT_TRUE(Quantity().IsZero());
  EXPECT_FALSE(MustParse("1n").IsZero());
}

struct ArithmeticCase {
  std::string a;
  std::string b;
  std::string sum;
  std::string difference;
};

// Upstream's TestAdd and TestSub: the result keeps the receiver's format unless the receiver was
// zero, in which case it takes the operand's.
TEST(QuantityTest, AddAndSub) {
  const std::vector<ArithmeticCase> cases = {
      {"10", "10", "20", "0"},
      {"10", "1Ki", "1034", "-1014"},
      {"2Ki", "1", "2049", "2047"},
      {"2Ki", "1Ki", "3Ki", "1Ki"},
      {"0", "50", "50", "-50"},
      {"50", "0", "50", "50"},
      {"0", "0", "0", "0"},
      {"0", "1Gi", "1Gi", "-1Gi"},
      {"0Ki", "100m", "100m", "-100m"},
      {"100m", "0", "100m", "100m"},
      {"1Gi", "0", "1Gi", "1Gi"},
      {"1.5", "500m", "2", "1"},
      {"1n", "1n", "2n", "0"},
      {"1e3", "1", "1001", "999"},
  };
  for (const ArithmeticCase& c : cases) {
    Quantity sum = MustParse(c.a);
    sum.Add(MustParse(c.b));
    EXPECT_EQ(sum.String(), c.sum) << c.a << " + " << c.b;
    Quantity difference = MustParse(c.a);
    difference.Sub(MustParse(c.b));
    EXPECT_EQ(difference.String(), c.difference) << c.a << " - " << c.b;
  }
}

TEST(QuantityTest, AddAndSubSaturate) {
  const Quantity max = MustParse("170141183460469231731687303715.884105727");
  Quantity q = max;
  q.Add(MustParse("1n"));
  EXPECT_EQ(q, max);
  q.Add(max);
  EXPECT_EQ(q, max);
  q.Neg();
  q.Sub(max);
  EXPECT_EQ(ToString(q.nanos()), ToString(-Quantity::kMaxNanos));
  q.Add(max);
  EXPECT_TRUE(q.IsZero());
}

TEST(QuantityTest, AddCancelsSub) {
  Quantity q;
  const std::vector<std::string> terms = {"1", "100m", "1.5Gi", "3n", "7e5", "123456789.987654321"};
  for (const std::string& term : terms) q.Add(MustParse(term));
  EXPECT_EQ(q.String(), "1734769527087654324n");
  for (const std::string& term : terms) q.Sub(MustParse(term));
  EXPECT_TRUE(q.IsZero());
}

TEST(QuantityTest, Neg) {
  Quantity q = Quantity::FromMilli(9010, kDecimalSI);
  q.Neg();
  EXPECT_EQ(q.String(), "-9010m");
  q.Neg();
  EXPECT_EQ(q.String(), "9010m");
  Quantity zero;
  zero.Neg();
  EXPECT_EQ(zero.String(), "0");
  Quantity binary = Quantity::FromValue(-10, kBinarySI);
  binary.Neg();
  EXPECT_EQ(binary, Quantity::FromValue(10, kDecimalSI));
  EXPECT_EQ(binary.format(), kBinarySI);
}

// A BinarySI value grown past 1024Ei by arithmetic has no binary suffix; like upstream, it prints
// every decimal digit rather than lose its magnitude.
TEST(QuantityTest, BinaryPastEiPrintsDecimal) {
  const Quantity ei = MustParse("1Ei");
  Quantity q = ei;
  for (int i = 1; i < 1024; ++i) q.Add(ei);
  EXPECT_EQ(q.String(), "1180591620717411303424");
  EXPECT_EQ(MustParse(q.String()), q);
  q.Sub(ei);
  EXPECT_EQ(q.String(), "1023Ei");
}

TEST(QuantityTest, StreamsCanonicalForm) {
  std::ostringstream os;
  os << MustParse("1.5Gi") << ' ' << MustParse("-0.1");
  EXPECT_EQ(os.str(), "1536Mi -100m");
}

}  // namespace
}  // namespace muster::api
