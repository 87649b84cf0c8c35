#pragma once

// Cluster events and queueing hints (upstream framework.ClusterEvent, ActionType, QueueingHint):
// a plugin that rejects a pod says which events might make it schedulable, optionally with a hint
// function that looks at the event's objects to decide.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "muster/api/types.h"
#include "muster/framework/status.h"

namespace muster::framework {

enum class EventResource : uint8_t {
  kPod,          // an unscheduled pod (upstream "Pod" for pending pods)
  kAssignedPod,  // a pod bound to a node
  kNode,
  kPodGroup,
  kWildCard,
};

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
  kUpdate = kUpdateNodeAllocatable | kUpdateNodeLabel | kUpdateNodeTaint | kUpdateNodeCondition |
            kUpdateNodeAnnotation | kUpdatePodLabel | kUpdatePodScaleDown | kUpdatePodToleration |
            kUpdatePodSchedulingGatesEliminated | kUpdatePodOther | kUpdateOther,
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
// be null (no old object on Add, no new object on Delete). For PodGroup events `old_group` and
// `new_group` are set instead.
struct EventObjects {
  const api::Pod* old_pod = nullptr;
  const api::Pod* new_pod = nullptr;
  const api::Node* old_node = nullptr;
  const api::Node* new_node = nullptr;
  const api::PodGroup* old_group = nullptr;
  const api::PodGroup* new_group = nullptr;
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
