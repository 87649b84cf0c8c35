#pragma once

// A pod's identity within the cluster, its namespace and name, as views: the key of the
// scheduler's tables of pods. Those tables take it from the pod they hold instead of keeping a
// "namespace/name" string beside every pod (a heap copy each, and one more built for every
// lookup); a table of a million pods saves both.

#include <cstddef>
#include <cstdint>
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

// A PodName with its hash, computed once: what a ByPodName table is searched with.
struct HashedPodName {
  PodName name;
  uint32_t hash;

  explicit HashedPodName(PodName n) : name(n), hash(static_cast<uint32_t>(PodNameHash{}(n))) {}
  static HashedPodName Of(const Pod& pod) { return HashedPodName(PodName::Of(pod)); }
};

// Hash and equality for an unordered_set<T> whose key is PodName::Of(the pod T holds): T has a
// `PodName name() const` and keeps that name's HashedPodName::hash in `uint32_t name_hash`.
// Lookups take a HashedPodName.
//
// The table walks a bucket's chain through its nodes, and without the kept hash it would hash
// the name of every node it passes (to see where the bucket ends) and compare every name: the
// node, the pod's info, the pod and its name, four cache misses each in a table of a million
// pods. With it, a node that is not the one sought costs its own line, and the kept hash fits
// the padding of the entries that use it.
template <typename T>
struct ByPodName {
  using is_transparent = void;
  size_t operator()(const T& t) const noexcept { return t.name_hash; }
  size_t operator()(const HashedPodName& n) const noexcept { return n.hash; }
  bool operator()(const T& a, const T& b) const {
    return a.name_hash == b.name_hash && a.name() == b.name();
  }
  bool operator()(const HashedPodName& a, const T& b) const {
    return a.hash == b.name_hash && a.name == b.name();
  }
  bool operator()(const T& a, const HashedPodName& b) const { return (*this)(b, a); }
};

}  // namespace muster::api
