#pragma once

// Which actions an update amounts to, as upstream's PodSchedulingPropertiesChange and
// NodeSchedulingPropertiesChange classify them.

#include <cstdint>

#include "muster/api/types.h"
#include "muster/framework/events.h"

namespace muster::scheduler {

// Bits of framework::ActionType; kUpdatePodOther when nothing specific changed.
uint32_t PodUpdateActions(const api::Pod& old_pod, const api::Pod& new_pod);
// Bits of framework::ActionType; 0 when nothing the scheduler reads changed.
uint32_t NodeUpdateActions(const api::Node& old_node, const api::Node& new_node);

}  // namespace muster::scheduler
