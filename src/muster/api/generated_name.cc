#include "muster/api/generated_name.h"

namespace muster::api {

std::string GeneratedNameSuffix(std::mt19937_64& rng, size_t length) {
  std::uniform_int_distribution<size_t> pick(0, kGeneratedNameAlphabet.size() - 1);
  std::string s(length, ' ');
  for (char& c : s) c = kGeneratedNameAlphabet[pick(rng)];
  return s;
}

std::string GenerateName(std::string_view generate_name, std::mt19937_64& rng) {
  std::string name(generate_name.substr(0, kMaxGenerateNamePrefix));
  name += GeneratedNameSuffix(rng);
  return name;
}

}  // namespace muster::api
