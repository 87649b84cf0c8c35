#pragma once

// A CEL compile error and how cel-go prints it.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace muster::api::cel {

// One compile error. `offset` is a byte offset into the expression; nullopt is cel-go's
// NoLocation, printed as -1:0.
struct Issue {
  std::optional<size_t> offset;
  std::string message;
};

// cel-go's display of compile errors: each issue as "ERROR: <input>:LINE:COL: MESSAGE", the
// source line and a caret under the column, in source order, one after another.
std::string DisplayIssues(std::string_view source, std::vector<Issue> issues);

}  // namespace muster::api::cel
