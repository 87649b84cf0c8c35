#include "muster/api/json_string.h"

#include <fmt/format.h>

namespace muster::api {

void AppendJsonString(std::string& out, std::string_view text) {
  out += '"';
  for (const unsigned char ch : text) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (ch < 0x20) {
          out += fmt::format("\\u{:04x}", ch);
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  out += '"';
}

std::string JsonString(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

}  // namespace muster::api
