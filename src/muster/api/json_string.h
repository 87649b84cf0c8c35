#pragma once

#include <string>
#include <string_view>

namespace muster::api {

// `text` as a JSON string literal, quotes included (control characters as \uXXXX).
std::string JsonString(std::string_view text);
// The same, appended to `out`.
void AppendJsonString(std::string& out, std::string_view text);

}  // namespace muster::api
