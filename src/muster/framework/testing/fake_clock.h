#pragma once

#include "muster/framework/virtual_clock.h"

namespace muster::testing {

// A virtual clock starting at a fixed time, for unit tests of timed behaviour.
inline api::Time TestEpoch() { return std::chrono::sys_days(std::chrono::year(2025) / 1 / 1); }

}  // namespace muster::testing
