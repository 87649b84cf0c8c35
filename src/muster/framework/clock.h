#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "muster/api/time.h"

namespace muster::framework {

// Time, injected (DESIGN.md: no sleeps in the core). The scheduler reads Now() and schedules its
// timers (backoff expiry, Permit timeouts, the unschedulable-pods flush) through AddTimer; the
// simulator's clock is virtual and fires timers in time order, a real clock fires them from a
// timer thread onto the scheduler's loop.
class Clock {
 public:
  using TimerId = uint64_t;

  virtual ~Clock() = default;
  virtual api::Time Now() const = 0;
  // Runs `fn` on the scheduler's loop at `at` (or as soon as possible when `at` has passed).
  // A timer without `keeps_alive` is housekeeping (the periodic flush of unschedulable pods): a
  // simulation whose only remaining timers are housekeeping has reached its end.
  virtual TimerId AddTimer(api::Time at, std::function<void()> fn, bool keeps_alive = true) = 0;
  // A timer that has not fired yet does not fire. Unknown or fired ids are ignored.
  virtual void CancelTimer(TimerId id) = 0;
};

// A clock whose timers its owner fires on the scheduler's own thread, between scheduling cycles
// (the host's loop): the virtual clock of simulate and bench, and a real clock.
class LoopClock : public Clock {
 public:
  // Fires every timer due by Now(), in time order, including those they add for now. Returns
  // how many fired.
  virtual size_t RunDue() = 0;
  // When the next timer is due, if any.
  virtual std::optional<api::Time> NextTimer() const = 0;
};

}  // namespace muster::framework
