#pragma once

// Gangs: pods of one namespace that are placed together or not at all. Each gang API says which
// gang a pod belongs to (GangOf) and which gangs its objects define (the `gangs` of its row in
// Kinds()). The layers above read a GangRef and GangDefinitions, never the API's own types, so
// that a second gang API is a producer of them, not a change to their readers.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "muster/api/kinds.h"

namespace muster::api {

// The gang a pod belongs to: the kind that defines it and its name in the pod's namespace.
struct GangRef {
  static constexpr uint8_t kNone = 0xff;

  // The defining kind's place in ClusterKinds (kClusterKindIndex), or kNone: in no gang.
  uint8_t kind = kNone;
  Symbol name;

  bool empty() const { return kind == kNone; }
  // Whether the gang is one the kind T defines.
  template <typename T>
  bool Of() const {
    return kind == kClusterKindIndex<T>;
  }

  friend bool operator==(const GangRef&, const GangRef&) = default;
};
static_assert(ClusterKinds::size < GangRef::kNone);

// The gang `pod` belongs to, from whichever API names it: today scheduler-plugins' PodGroup,
// through its label (PodGroupName).
GangRef GangOf(const Pod& pod);

// The gangs `object` defines; none when its kind is not a gang API's.
std::vector<GangDefinition> GangsDefinedBy(const AnyObject& object);

}  // namespace muster::api
