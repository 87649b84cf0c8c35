#include "muster/api/yaml_int.h"

#include <charconv>
#include <system_error>

#include <fmt/format.h>

namespace muster::api {

std::optional<int64_t> ReadYamlInt(const YAML::Node& node, int64_t min, int64_t max,
                                   IntOverflow overflow, std::string (*describe)(const YAML::Node&),
                                   std::string* error) {
  // yaml-cpp tags a quoted scalar "!" (a plain one "?").
  if (!node || !node.IsScalar() || node.Tag() == "!") {
    *error = fmt::format("expected an integer, got {}", describe(node));
    return std::nullopt;
  }
  const std::string& s = node.Scalar();
  const char* begin = s.data() + (s.size() > 1 && s[0] == '+' ? 1 : 0);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(begin, s.data() + s.size(), value);
  if (ec == std::errc::result_out_of_range && overflow == IntOverflow::kOutOfRange) {
    *error = fmt::format("integer {} out of range [{}, {}]", s, min, max);
    return std::nullopt;
  }
  if (ec != std::errc() || end != s.data() + s.size()) {
    *error = fmt::format("expected an integer, got {}", describe(node));
    return std::nullopt;
  }
  if (value < min || value > max) {
    *error = fmt::format("integer {} out of range [{}, {}]", value, min, max);
    return std::nullopt;
  }
  return value;
}

}  // namespace muster::api
