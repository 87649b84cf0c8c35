#pragma once

// muster's simulation annotations (muster.dev/create-after, run-for, binding-after, ...:
// docs/simulating.md, "Simulating your own manifests"), and reading them off an object as the
// simulation acts on it.

#include <optional>
#include <string>
#include <string_view>

#include "muster/api/time.h"
#include "muster/api/types.h"

namespace muster::sim {

// The annotations of DESIGN.md's simulate contract.
inline constexpr std::string_view kCreateAfter = "muster.dev/create-after";
inline constexpr std::string_view kDeleteAfter = "muster.dev/delete-after";
inline constexpr std::string_view kRunFor = "muster.dev/run-for";
inline constexpr std::string_view kUngateAfter = "muster.dev/ungate-after";

// The duration the annotation `key` of `meta` gives, or nullopt when the object has none. Its
// value was validated as a duration when the object was read.
inline std::optional<api::Duration> AnnotatedDuration(const api::ObjectMeta& meta,
                                                      std::string_view key) {
  auto it = meta.annotations.find(std::string(key));
  if (it == meta.annotations.end()) return std::nullopt;
  return api::ParseDuration(it->second);
}

}  // namespace muster::sim
