#include "muster/api/cel/issue.h"

#include <algorithm>
#include <string>

namespace muster::api::cel {
namespace {

// cel-go's Error.ToDisplayString: "ERROR: <input>:LINE:COL: MESSAGE", then the source line and a
// caret under the column. Columns count code points, from 1.
std::string DisplayIssue(std::string_view source, const Issue& issue) {
  if (!issue.offset) return "ERROR: <input>:-1:0: " + issue.message;
  const size_t offset = std::min(*issue.offset, source.size());
  const size_t line_start = source.rfind('\n', offset == 0 ? 0 : offset - 1);
  const size_t begin = (line_start == std::string_view::npos || offset == 0) ? 0 : line_start + 1;
  const size_t line_end = source.find('\n', begin);
  const std::string_view line =
      source.substr(begin, line_end == std::string_view::npos ? line_end : line_end - begin);
  const size_t line_number = 1 + std::count(source.begin(), source.begin() + begin, '\n');
  std::string dots;
  size_t column = 0;
  for (size_t i = begin; i < offset; ++i) {
    if ((static_cast<unsigned char>(source[i]) & 0xC0) == 0x80) continue;
    ++column;
    const bool wide = static_cast<unsigned char>(source[i]) >= 0x80;
    dots += wide ? "\uff0e" : ".";
  }
  const bool wide_caret =
      offset < source.size() && static_cast<unsigned char>(source[offset]) >= 0x80;
  std::string snippet(line);
  std::replace(snippet.begin(), snippet.end(), '\t', ' ');
  return "ERROR: <input>:" + std::to_string(line_number) + ":" + std::to_string(column + 1) + ": " +
         issue.message + "\n | " + snippet + "\n | " + dots + (wide_caret ? "\uff3e" : "^");
}

}  // namespace

std::string DisplayIssues(std::string_view source, std::vector<Issue> issues) {
  std::stable_sort(issues.begin(), issues.end(), [](const Issue& a, const Issue& b) {
    const long x = a.offset ? static_cast<long>(*a.offset) : -1;
    const long y = b.offset ? static_cast<long>(*b.offset) : -1;
    return x < y;
  });
  std::string out;
  for (const Issue& issue : issues) {
    if (!out.empty()) out += "\n";
    out += DisplayIssue(source, issue);
  }
  return out;
}

}  // namespace muster::api::cel
