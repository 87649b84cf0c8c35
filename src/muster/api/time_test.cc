#include "muster/api/time.h"

#include <gtest/gtest.h>

namespace muster::api {
namespace {

using std::chrono::microseconds;

TEST(DurationTest, ParsesGoDurations) {
  struct Case {
    const char* text;
    int64_t micros;
  } cases[] = {
      {"0", 0},
      {"5s", 5'000'000},
      {"300ms", 300'000},
      {"1.5h", 5'400'000'000},
      {"2h45m", 9'900'000'000},
      {"-1s", -1'000'000},
      {"1m30s", 90'000'000},
      {"10us", 10},
      {"1500ns", 1},
      {".5s", 500'000},
      {"0.3s", 300'000},
      {"+2m", 120'000'000},
  };
  for (const Case& c : cases) {
    auto d = ParseDuration(c.text);
    ASSERT_TRUE(d.has_value()) << c.text;
    EXPECT_EQ(d->count(), c.micros) << c.text;
  }
}

TEST(DurationTest, RejectsMalformed) {
  for (const char* text : {"", "5", "s", "1x", "1.s5", "--1s", "1 s", "abc"}) {
    EXPECT_FALSE(ParseDuration(text).has_value()) << text;
  }
}

// Go's time.Duration counts nanoseconds in 64 bits: what is past that is no Go duration.
TEST(DurationTest, RejectsWhatGoCannotHold) {
  EXPECT_TRUE(ParseDuration("2562047h").has_value());
  EXPECT_TRUE(ParseDuration("2562047h47m16s").has_value());
  EXPECT_FALSE(ParseDuration("2562047h47m17s").has_value());
  EXPECT_FALSE(ParseDuration("100000000h").has_value());
}

TEST(DurationTest, FormatsLikeGo) {
  EXPECT_EQ(FormatDuration(microseconds(0)), "0s");
  EXPECT_EQ(FormatDuration(std::chrono::seconds(37)), "37s");
  EXPECT_EQ(FormatDuration(microseconds(1'500'000)), "1.5s");
  EXPECT_EQ(FormatDuration(std::chrono::seconds(150)), "2m30s");
  EXPECT_EQ(FormatDuration(std::chrono::hours(1)), "1h0m0s");
  EXPECT_EQ(FormatDuration(microseconds(250'000)), "250ms");
  EXPECT_EQ(FormatDuration(microseconds(-2'000'000)), "-2s");
}

TEST(TimeTest, RoundTripsRFC3339) {
  auto t = ParseTime("2024-05-01T10:00:00Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(FormatTime(*t), "2024-05-01T10:00:00Z");
  auto offset = ParseTime("2024-05-01T12:30:00+02:30");
  ASSERT_TRUE(offset.has_value());
  EXPECT_EQ(FormatTime(*offset), "2024-05-01T10:00:00Z");
  auto frac = ParseTime("2024-05-01T10:00:00.25Z");
  ASSERT_TRUE(frac.has_value());
  EXPECT_EQ((*frac - *t).count(), 250'000);
  // MicroTime keeps the microseconds (Events' eventTime, Leases' renewTime).
  EXPECT_EQ(FormatMicroTime(*frac), "2024-05-01T10:00:00.250000Z");
  EXPECT_EQ(FormatMicroTime(*t), "2024-05-01T10:00:00.000000Z");
}

TEST(TimeTest, RejectsMalformed) {
  for (const char* text : {"", "2024-05-01", "2024-13-01T00:00:00Z", "2024-02-30T00:00:00Z",
                           "2024-05-01T10:00:00", "2024-05-01T25:00:00Z"}) {
    EXPECT_FALSE(ParseTime(text).has_value()) << text;
  }
}

}  // namespace
}  // namespace muster::api
