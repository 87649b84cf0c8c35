#pragma once

// A pod's identity within the cluster, its namespace and name, as views: the key of the
// scheduler's tables of pods. Those tables take it from the pod they hold instead of keeping a
// "namespace/name" string beside every pod (a heap copy each, and one more built for every
// lookup); a table of a million pods saves both.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "muster/api/intern.h"
#include "muster/api/types.h"

namespace muster::api {

struct PodName {
  Symbol ns;
  std::string_view name;  // views the pod's (or the parsed key's) text

  static PodName Of(const ObjectMeta& meta) { return {meta.namespace_, meta.name}; }
  static PodName Of(const Pod& pod) { return Of(pod.metadata); }
  // Of "namespace/name" as ObjectMeta::Key writes it ("name" alone has no namespace); the name
  // views `key`.
  static PodName Parse(std::string_view key);

  // "namespace/name", as ObjectMeta::Key writes it.
  std::string Key() const;

  friend bool operator==(const PodName&, const PodName&) = default;
};

// Hashes a PodName (the namespace's id with the name's text).
struct PodNameHash {
  using is_transparent = void;
  size_t operator()(const PodName& n) const noexcept {
    return std::hash<std::string_view>{}(n.name) ^ std::hash<Symbol>{}(n.ns);
  }
};

// Hash and equality for an unordered_set<T> whose key is PodName::Of(the pod T holds): T has a
// `PodName name() const`. Lookups take a PodName.
template <typename T>
struct ByPodName {
  using is_transparent = void;
  size_t operator()(const T& t) const noexcept { return PodNameHash{}(t.name()); }
  size_t operator()(const PodName& n) const noexcept { return PodNameHash{}(n); }
  bool operator()(const T& a, const T& b) const { return a.name() == b.name(); }
  bool operator()(const PodName& a, const T& b) const { return a == b.name(); }
  bool operator()(const T& a, const PodName& b) const { return a.name() == b; }
};

}  // namespace muster::api
