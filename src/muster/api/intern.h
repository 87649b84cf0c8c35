#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace muster::api {

// Symbol is an interned string: label keys and values, namespaces, node names, resource names.
// The hot path compares and hashes Symbols as 32-bit integers; the text is looked up only for
// output. Symbol{} is the empty string. Symbols order by id (intern order), not by text: sort by
// str() where output must be lexical.
//
// Interning is thread-safe. Looking a Symbol's text up is lock-free, and the returned view stays
// valid for the life of the process (interned strings are never freed).
class Symbol {
 public:
  constexpr Symbol() = default;
  explicit Symbol(std::string_view text);

  std::string_view str() const;
  std::string string() const { return std::string(str()); }
  constexpr uint32_t id() const { return id_; }
  constexpr bool empty() const { return id_ == 0; }

  friend constexpr bool operator==(Symbol a, Symbol b) { return a.id_ == b.id_; }
  friend constexpr std::strong_ordering operator<=>(Symbol a, Symbol b) { return a.id_ <=> b.id_; }

 private:
  uint32_t id_ = 0;
};

// Two symbols as one integer, the first in the high half: a key for hash maps by namespace and
// name that builds no string.
constexpr uint64_t PairId(Symbol a, Symbol b) { return (uint64_t{a.id()} << 32) | b.id(); }

// Orders Symbols by their text, for deterministic output.
struct LexicalLess {
  bool operator()(Symbol a, Symbol b) const { return a.str() < b.str(); }
};

// The number of distinct strings interned so far (including the empty string).
size_t InternedCount();

}  // namespace muster::api

template <>
struct std::hash<muster::api::Symbol> {
  size_t operator()(muster::api::Symbol s) const noexcept {
    // Fibonacci hashing spreads the small dense ids over the table.
    return static_cast<size_t>(s.id()) * 0x9E3779B97F4A7C15ull;
  }
};
