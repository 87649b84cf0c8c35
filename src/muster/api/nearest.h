#pragma once

// "Did you mean": the known name nearest a misspelt one (a field, a plugin, a kind), for
// messages. Near means a few edits (insertions, deletions, substitutions, swaps of neighbours)
// relative to the name's length, compared without regard to case.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace muster::api {

// The edit distance (optimal string alignment) between `a` and `b`, case-insensitive.
size_t EditDistance(std::string_view a, std::string_view b);

// The candidate nearest `word`, when one is near enough to be a likely misspelling: at most two
// edits, and fewer than a third of the word's length. nullopt when none is, or `word` is one.
std::optional<std::string> Nearest(std::string_view word,
                                   const std::vector<std::string>& candidates);

// "; did you mean \"X\"?" for the nearest candidate, or "" when none is near.
std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace muster::api
