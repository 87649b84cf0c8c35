#include "muster/api/time.h"

#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace muster::api {
namespace {

// Microseconds per unit, and the unit's spelling.
struct Unit {
  std::string_view name;
  double micros;
};
constexpr Unit kUnits[] = {{"ns", 1e-3}, {"us", 1},  {"\xC2\xB5s", 1}, {"\xCE\xBCs", 1},
                           {"ms", 1e3},  {"s", 1e6}, {"m", 60e6},      {"h", 3600e6}};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::optional<Duration> ParseDuration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  bool negative = false;
  if (text.front() == '-' || text.front() == '+') {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text == "0") return Duration::zero();
  if (text.empty()) return std::nullopt;
  long double total = 0;
  while (!text.empty()) {
    size_t i = 0;
    long double value = 0;
    bool digits = false;
    while (i < text.size() && IsDigit(text[i])) {
      value = value * 10 + (text[i] - '0');
      digits = true;
      ++i;
    }
    if (i < text.size() && text[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < text.size() && IsDigit(text[i])) {
        value += (text[i] - '0') * scale;
        scale /= 10;
        digits = true;
        ++i;
      }
    }
    if (!digits) return std::nullopt;
    text.remove_prefix(i);
    size_t unit_len = 0;
    while (unit_len < text.size() && !IsDigit(text[unit_len]) && text[unit_len] != '.') {
      ++unit_len;
    }
    const std::string_view unit_name = text.substr(0, unit_len);
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (u.name == unit_name) unit = &u;
    }
    if (unit == nullptr) return std::nullopt;
    total += value * unit->micros;
    text.remove_prefix(unit_len);
  }
  // Go's time.Duration counts nanoseconds in 64 bits: 2562047h47m16.854775807s at most.
  if (total * 1000 > static_cast<long double>(std::numeric_limits<int64_t>::max())) {
    return std::nullopt;
  }
  const auto micros = static_cast<int64_t>(total + 1e-6L);  // guard against 0.3 * 1e6 = 299999.99
  return Duration(negative ? -micros : micros);
}

std::string FormatDuration(Duration d) {
  int64_t us = d.count();
  if (us == 0) return "0s";
  std::string sign = us < 0 ? "-" : "";
  uint64_t u = us < 0 ? static_cast<uint64_t>(-(us + 1)) + 1 : static_cast<uint64_t>(us);
  auto fraction = [](uint64_t value, int digits) {
    // value has `digits` decimal places; trailing zeros are dropped as Go does.
    std::string frac = fmt::format("{:0{}}", value, digits);
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    return frac.empty() ? std::string() : "." + frac;
  };
  if (u < 1000) return sign + fmt::format("{}\xC2\xB5s", u);
  if (u < 1000000) return sign + fmt::format("{}{}ms", u / 1000, fraction(u % 1000, 3));
  const uint64_t seconds = u / 1000000;
  const std::string sec = fmt::format("{}{}s", seconds % 60, fraction(u % 1000000, 6));
  if (seconds < 60) return sign + sec;
  const uint64_t minutes = seconds / 60;
  if (minutes < 60) return sign + fmt::format("{}m{}", minutes, sec);
  return sign + fmt::format("{}h{}m{}", minutes / 60, minutes % 60, sec);
}

std::optional<Time> ParseTime(std::string_view s) {
  // YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM)
  auto num = [&](size_t pos, size_t len) -> std::optional<int> {
    if (pos + len > s.size()) return std::nullopt;
    int v = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (!IsDigit(s[i])) return std::nullopt;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  auto year = num(0, 4), month = num(5, 2), day = num(8, 2), hour = num(11, 2), min = num(14, 2),
       sec = num(17, 2);
  if (!year || !month || !day || !hour || !min || !sec || s[4] != '-' || s[7] != '-' ||
      (s[10] != 'T' && s[10] != 't' && s[10] != ' ') || s[13] != ':' || s[16] != ':') {
    return std::nullopt;
  }
  using namespace std::chrono;
  const year_month_day ymd{std::chrono::year(*year), std::chrono::month(*month),
                           std::chrono::day(*day)};
  if (!ymd.ok() || *hour > 23 || *min > 59 || *sec > 60) return std::nullopt;
  size_t i = 19;
  int64_t micros = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    int64_t scale = 100000;
    size_t start = i;
    while (i < s.size() && IsDigit(s[i])) {
      micros += (s[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
    if (i == start) return std::nullopt;
  }
  int offset_minutes = 0;
  if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
    ++i;
  } else if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    auto oh = num(i + 1, 2), om = num(i + 4, 2);
    if (!oh || !om || s[i + 3] != ':') return std::nullopt;
    offset_minutes = (*oh * 60 + *om) * (s[i] == '-' ? -1 : 1);
    i += 6;
  } else {
    return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  Time t = sys_days(ymd) + hours(*hour) + minutes(*min) + seconds(*sec) + microseconds(micros);
  return t - minutes(offset_minutes);
}

std::string FormatTime(Time t) {
  using namespace std::chrono;
  const auto day = floor<days>(t);
  const year_month_day ymd(day);
  const hh_mm_ss hms(floor<seconds>(t - day));
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                     hms.hours().count(), hms.minutes().count(), hms.seconds().count());
}

std::string FormatMicroTime(Time t) {
  const std::string seconds = FormatTime(t);  // ...Z
  const auto micros = (t.time_since_epoch() % std::chrono::seconds(1)).count();
  return fmt::format("{}.{:06d}Z", seconds.substr(0, seconds.size() - 1), micros);
}

}  // namespace muster::api
