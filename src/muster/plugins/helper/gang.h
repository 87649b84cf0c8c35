#pragma once

#include <string_view>

#include "muster/framework/interface.h"

namespace muster::plugins::helper {

// The group cycle's count of a gang's members without scheduling gates (bound members count as
// without), for the gang plugins' PreFilterGroup: UnschedulableAndUnresolvable when fewer than
// min_count of them can be scheduled, preemption being no help ("1/3 members have scheduling
// gates; 2 can be scheduled (minCount 3)", the quorum named `quorum_name` as the plugin's API
// names it); Success otherwise.
framework::Status CheckSchedulableMembers(const framework::Gang& gang,
                                          std::string_view quorum_name);

}  // namespace muster::plugins::helper
