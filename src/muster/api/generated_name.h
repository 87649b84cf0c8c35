#pragma once

// The names the API server gives objects created with only metadata.generateName
// (apimachinery's SimpleNameGenerator): the prefix, cut to 58 characters, and 5 characters drawn
// from an alphabet without vowels (no words) and without look-alike characters.

#include <cstddef>
#include <random>
#include <string>
#include <string_view>

namespace muster::api {

inline constexpr std::string_view kGeneratedNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";
inline constexpr size_t kGeneratedSuffixLength = 5;
// 63 (a DNS label) less the suffix.
inline constexpr size_t kMaxGenerateNamePrefix = 58;

// `length` characters of kGeneratedNameAlphabet.
std::string GeneratedNameSuffix(std::mt19937_64& rng, size_t length = kGeneratedSuffixLength);

// A name for `generate_name`: the prefix (cut to kMaxGenerateNamePrefix) and a suffix.
std::string GenerateName(std::string_view generate_name, std::mt19937_64& rng);

}  // namespace muster::api
