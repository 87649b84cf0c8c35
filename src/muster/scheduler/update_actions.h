#pragma once

// The cluster events the scheduler's informer handlers raise, and which actions an update
// amounts to, as upstream's PodSchedulingPropertiesChange and NodeSchedulingPropertiesChange
// classify them.

#include <cstdint>

#include "muster/api/types.h"
#include "muster/framework/events.h"

namespace muster::scheduler {

inline const framework::ClusterEvent kAssignedPodAdd{framework::EventResource::kAssignedPod,
                                                     framework::kAdd, "AssignedPodAdd"};
inline const framework::ClusterEvent kAssignedPodDelete{framework::EventResource::kAssignedPod,
                                                        framework::kDelete, "AssignedPodDelete"};
inline const framework::ClusterEvent kUnscheduledPodAdd{framework::EventResource::kPod,
                                                        framework::kAdd, "UnscheduledPodAdd"};
inline const framework::ClusterEvent kUnscheduledPodDelete{
    framework::EventResource::kPod, framework::kDelete, "UnscheduledPodDelete"};
inline const framework::ClusterEvent kNodeAdd{framework::EventResource::kNode, framework::kAdd,
                                              "NodeAdd"};
inline const framework::ClusterEvent kNodeDelete{framework::EventResource::kNode,
                                                 framework::kDelete, "NodeDelete"};

// Bits of framework::ActionType; kUpdatePodOther when nothing specific changed.
uint32_t PodUpdateActions(const api::Pod& old_pod, const api::Pod& new_pod);
// Bits of framework::ActionType; 0 when nothing the scheduler reads changed.
uint32_t NodeUpdateActions(const api::Node& old_node, const api::Node& new_node);

}  // namespace muster::scheduler
