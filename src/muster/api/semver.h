#pragma once

// Semantic versions (semver.org 2.0.0): a device's `version` attribute, and CEL's semver().

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace muster::api {

struct SemVer {
  uint64_t major = 0;
  uint64_t minor = 0;
  uint64_t patch = 0;
  // The dot-separated pre-release identifiers ("rc", "1" of "1.0.0-rc.1"); none for a release.
  std::vector<std::string> pre_release;
  // The build metadata after "+", which takes no part in comparisons.
  std::string build;

  // Parses `text` strictly by semver.org 2.0.0: three numbers without leading zeros, then an
  // optional "-pre.release" and "+build"; nullopt otherwise. `error`, unless null, says why.
  static std::optional<SemVer> Parse(std::string_view text, std::string* error = nullptr);
  // CEL's semver(text, true): a leading "v" dropped, missing minor and patch taken as 0 and
  // leading zeros dropped before parsing strictly.
  static std::optional<SemVer> ParseNormalized(std::string_view text, std::string* error = nullptr);

  std::string String() const;

  // semver.org precedence: numbers, then a pre-release below its release, identifiers compared
  // numerically when both are numbers, else as ASCII, a numeric one below an alphanumeric one,
  // and a longer list above its prefix. Build metadata is ignored.
  friend std::strong_ordering operator<=>(const SemVer& a, const SemVer& b);
  friend bool operator==(const SemVer& a, const SemVer& b) { return (a <=> b) == 0; }
};

}  // namespace muster::api
