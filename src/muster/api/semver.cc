#include "muster/api/semver.h"

#include <algorithm>
#include <charconv>
#include <tuple>

// Parsing follows github.com/blang/semver/v4, the library behind Kubernetes' CEL semver(), and
// reports its error messages, so that a CEL runtime error reads as it does upstream.

namespace muster::api {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllDigits(std::string_view s) { return std::all_of(s.begin(), s.end(), IsDigit); }

// Letters, digits and '-': what a pre-release or build identifier may contain.
bool AllAlphanumeric(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
  });
}

bool HasLeadingZero(std::string_view s) { return s.size() > 1 && s[0] == '0'; }

bool Fail(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
  return false;
}

std::string Quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Go's strconv.ParseUint(s, 10, 64) for a string already known to hold only digits.
bool ParseNumber(std::string_view s, uint64_t* out, std::string* error) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (s.empty() || ec == std::errc::invalid_argument) {
    return Fail(error, "strconv.ParseUint: parsing " + Quoted(s) + ": invalid syntax");
  }
  if (ec == std::errc::result_out_of_range) {
    return Fail(error, "strconv.ParseUint: parsing " + Quoted(s) + ": value out of range");
  }
  return end == s.data() + s.size();
}

// One of major, minor and patch; `what` names it for the error.
bool ParseVersionNumber(std::string_view s, std::string_view what, uint64_t* out,
                        std::string* error) {
  std::string capitalized(what);
  capitalized[0] = static_cast<char>(capitalized[0] - 'a' + 'A');
  if (!AllDigits(s)) {
    return Fail(error,
                "Invalid character(s) found in " + std::string(what) + " number " + Quoted(s));
  }
  if (HasLeadingZero(s)) {
    return Fail(error, capitalized + " number must not contain leading zeroes " + Quoted(s));
  }
  return ParseNumber(s, out, error);
}

// Splits s at every '.', keeping empty parts, as Go's strings.Split.
std::vector<std::string_view> SplitDots(std::string_view s) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t dot = s.find('.', start);
    parts.push_back(s.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

// Numeric identifiers hold no leading zeros, so the longer one is the larger.
int CompareNumeric(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

}  // namespace

std::optional<SemVer> SemVer::Parse(std::string_view text, std::string* error) {
  if (text.empty()) {
    Fail(error, "Version string empty");
    return std::nullopt;
  }
  // major.minor.(patch-pre+build)
  const size_t first = text.find('.');
  const size_t second = first == std::string_view::npos ? first : text.find('.', first + 1);
  if (second == std::string_view::npos) {
    Fail(error, "No Major.Minor.Patch elements found");
    return std::nullopt;
  }
  SemVer v;
  if (!ParseVersionNumber(text.substr(0, first), "major", &v.major, error) ||
      !ParseVersionNumber(text.substr(first + 1, second - first - 1), "minor", &v.minor, error)) {
    return std::nullopt;
  }
  std::string_view patch = text.substr(second + 1);
  std::string_view build;
  bool has_build = false;
  if (const size_t plus = patch.find('+'); plus != std::string_view::npos) {
    build = patch.substr(plus + 1);
    patch = patch.substr(0, plus);
    has_build = true;
  }
  std::string_view pre;
  bool has_pre = false;
  if (const size_t dash = patch.find('-'); dash != std::string_view::npos) {
    pre = patch.substr(dash + 1);
    patch = patch.substr(0, dash);
    has_pre = true;
  }
  if (!ParseVersionNumber(patch, "patch", &v.patch, error)) return std::nullopt;
  if (has_pre) {
    for (std::string_view id : SplitDots(pre)) {
      if (id.empty()) {
        Fail(error, "Prerelease is empty");
        return std::nullopt;
      }
      if (AllDigits(id)) {
        uint64_t unused;
        if (HasLeadingZero(id)) {
          Fail(error, "Numeric PreRelease version must not contain leading zeroes " + Quoted(id));
          return std::nullopt;
        }
        if (!ParseNumber(id, &unused, error)) return std::nullopt;
      } else if (!AllAlphanumeric(id)) {
        Fail(error, "Invalid character(s) found in prerelease " + Quoted(id));
        return std::nullopt;
      }
      v.pre_release.emplace_back(id);
    }
  }
  if (has_build) {
    for (std::string_view id : SplitDots(build)) {
      if (id.empty()) {
        Fail(error, "Build meta data is empty");
        return std::nullopt;
      }
      if (!AllAlphanumeric(id)) {
        Fail(error, "Invalid character(s) found in build meta data " + Quoted(id));
        return std::nullopt;
      }
    }
    v.build = std::string(build);
  }
  return v;
}

std::optional<SemVer> SemVer::ParseNormalized(std::string_view text, std::string* error) {
  if (text.starts_with('v')) text.remove_prefix(1);
  // At most three parts: the last keeps any further dots, pre-release and build.
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t dot = parts.size() < 2 ? text.find('.', start) : std::string_view::npos;
    parts.emplace_back(text.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  for (std::string& part : parts) {
    if (part.size() <= 1) continue;
    part.erase(0, part.find_first_not_of('0') == std::string::npos ? part.size()
                                                                   : part.find_first_not_of('0'));
    if (part.empty() || !IsDigit(part[0])) part.insert(0, "0");
  }
  if (parts.size() < 3) {
    if (parts.back().find_first_of("+-") != std::string::npos) {
      Fail(error, "short version cannot contain PreRelease/Build meta data");
      return std::nullopt;
    }
    parts.resize(3, "0");
  }
  return Parse(parts[0] + "." + parts[1] + "." + parts[2], error);
}

std::string SemVer::String() const {
  std::string out =
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  for (size_t i = 0; i < pre_release.size(); ++i) {
    out += i == 0 ? '-' : '.';
    out += pre_release[i];
  }
  if (!build.empty()) out += "+" + build;
  return out;
}

std::strong_ordering operator<=>(const SemVer& a, const SemVer& b) {
  if (auto c = std::tie(a.major, a.minor, a.patch) <=> std::tie(b.major, b.minor, b.patch);
      c != 0) {
    return c;
  }
  // A release sorts above its pre-releases.
  if (a.pre_release.empty() || b.pre_release.empty()) {
    return a.pre_release.empty() <=> b.pre_release.empty();
  }
  const size_t common = std::min(a.pre_release.size(), b.pre_release.size());
  for (size_t i = 0; i < common; ++i) {
    const std::string& x = a.pre_release[i];
    const std::string& y = b.pre_release[i];
    const bool x_numeric = AllDigits(x);
    const bool y_numeric = AllDigits(y);
    int c;
    if (x_numeric && y_numeric) {
      c = CompareNumeric(x, y);
    } else if (x_numeric != y_numeric) {
      c = x_numeric ? -1 : 1;
    } else {
      c = x.compare(y);
    }
    if (c != 0) return c < 0 ? std::strong_ordering::less : std::strong_ordering::greater;
  }
  return a.pre_release.size() <=> b.pre_release.size();
}

}  // namespace muster::api
