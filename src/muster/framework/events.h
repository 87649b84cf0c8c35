#pragma once

// Cluster events and queueing hints (upstream framework.ClusterEvent, ActionType, QueueingHint):
// a plugin that rejects a pod says which events might make it schedulable, optionally with a hint
// function that looks at the event's objects to decide.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "muster/api/kinds.h"
#include "muster/api/types.h"
#include "muster/framework/status.h"

namespace muster::framework {

// What an event is about (upstream's EventResource): an unscheduled pod (kPod), a pod bound to a
// node (kAssignedPod), an object of another kind a cluster delivers (Of<T>, one per kind of
// api::ClusterKinds), or, in a registration, anything (kWildCard).
class EventResource {
 public:
  static const EventResource kPod;
  static const EventResource kAssignedPod;
  static const EventResource kWildCard;
  static const EventResource kNode;

  template <typename T>
  requires(api::kIsClusterKind<T> && !std::is_same_v<T, api::Pod>) static constexpr EventResource
      Of() {
    return EventResource(static_cast<uint8_t>(kFirstKind + api::kClusterKindIndex<T>));
  }
  // How many there are: ids run from 0 to kCount - 1.
  static constexpr size_t kCount = 3 + api::ClusterKinds::size;

  constexpr uint8_t id() const { return id_; }
  constexpr bool operator==(const EventResource&) const = default;

 private:
  static constexpr uint8_t kFirstKind = 3;
  constexpr explicit EventResource(uint8_t id) : id_(id) {}
  uint8_t id_;
};

inline constexpr EventResource EventResource::kPod{0};
inline constexpr EventResource EventResource::kAssignedPod{1};
inline constexpr EventResource EventResource::kWildCard{2};
inline constexpr EventResource EventResource::kNode = EventResource::Of<api::Node>();

// Actions, as bits so that a registration can cover several.
enum ActionType : uint32_t {
  kAdd = 1u << 0,
  kDelete = 1u << 1,
  kUpdateNodeAllocatable = 1u << 2,
  kUpdateNodeLabel = 1u << 3,
  kUpdateNodeTaint = 1u << 4,
  kUpdateNodeCondition = 1u << 5,
  kUpdateNodeAnnotation = 1u << 6,
  kUpdatePodLabel = 1u << 7,
  kUpdatePodScaleDown = 1u << 8,
  kUpdatePodToleration = 1u << 9,
  kUpdatePodSchedulingGatesEliminated = 1u << 10,
  kUpdatePodOther = 1u << 11,  // any other change to a pod (status, annotations...)
  kUpdateOther = 1u << 12,     // any other change (PodGroup spec/status, node fields not above)
  kUpdateNodeDeclaredFeature = 1u << 13,  // node.status.declaredFeatures
  kUpdate = kUpdateNodeAllocatable | kUpdateNodeLabel | kUpdateNodeTaint | kUpdateNodeCondition |
            kUpdateNodeAnnotation | kUpdatePodLabel | kUpdatePodScaleDown | kUpdatePodToleration |
            kUpdatePodSchedulingGatesEliminated | kUpdatePodOther | kUpdateOther |
            kUpdateNodeDeclaredFeature,
  kAll = kAdd | kDelete | kUpdate,
};

struct ClusterEvent {
  EventResource resource = EventResource::kWildCard;
  uint32_t actions = kAll;
  std::string label;  // for logs and metrics, e.g. "NodeAdd", "AssignedPodDelete"

  // Whether an occurrence `e` is covered by this registration.
  bool Matches(const ClusterEvent& e) const {
    return (resource == EventResource::kWildCard || resource == e.resource) &&
           (actions & e.actions) != 0;
  }
};

// The objects of one event occurrence. Pointers are valid only during the hint call; either may
// be null (no old object on Add, no new object on Delete). Pod and Node events set the pointers
// of their kind; events of the other kinds set `old_object` and `new_object`, read with
// Old<T>() and New<T>().
struct EventObjects {
  const api::Pod* old_pod = nullptr;
  const api::Pod* new_pod = nullptr;
  const api::Node* old_node = nullptr;
  const api::Node* new_node = nullptr;
  api::AnyObject old_object;
  api::AnyObject new_object;

  template <typename T>
  const T* Old() const {
    return api::ObjectOf<T>(old_object);
  }
  template <typename T>
  const T* New() const {
    return api::ObjectOf<T>(new_object);
  }
};

enum class QueueingHint { kSkip, kQueue };

// Decides whether `event` may make `pod` (rejected by the registering plugin) schedulable. An
// error status counts as Queue, as upstream.
using QueueingHintFn =
    std::function<QueueingHint(const api::Pod& pod, const EventObjects& event, Status* error)>;

struct ClusterEventWithHint {
  ClusterEvent event;
  QueueingHintFn hint;  // empty: always Queue
};

}  // namespace muster::framework
