#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "muster/framework/clock.h"

namespace muster::framework {

// A clock on which time stands still until its owner advances it (to the next timer, or to
// follow the wall clock, as bench does). Timers due at the same time fire in the order they were
// added, so runs are deterministic.
class VirtualClock final : public LoopClock {
 public:
  explicit VirtualClock(api::Time start) : now_(start) {}

  api::Time Now() const override { return now_; }
  TimerId AddTimer(api::Time at, std::function<void()> fn, bool keeps_alive = true) override;
  void CancelTimer(TimerId id) override;

  // Fires every timer due now (including ones they add for now). Returns how many fired.
  size_t RunDue() override;
  // Moves time to the next timer (when it is later than now); false when none is pending.
  bool AdvanceToNext();
  // Like AdvanceToNext, but never past `limit`; false when no timer is due by then.
  bool AdvanceToNext(api::Time limit);
  void AdvanceTo(api::Time t) {
    if (t > now_) now_ = t;
  }
  // Timers that keep a simulation going (not housekeeping).
  size_t PendingKeepAlive() const { return keep_alive_; }
  size_t Pending() const { return timers_.size(); }
  std::optional<api::Time> NextTimer() const override;
  // The first timer that keeps a simulation going, passing over housekeeping ones.
  std::optional<api::Time> NextKeepAliveTimer() const;

 private:
  struct Timer {
    std::function<void()> fn;
    bool keeps_alive = true;
  };
  api::Time now_;
  // (time, id) -> timer; ids grow, so equal times fire in insertion order.
  std::map<std::pair<api::Time, TimerId>, Timer> timers_;
  std::map<TimerId, api::Time> when_;
  TimerId next_id_ = 1;
  size_t keep_alive_ = 0;
};

}  // namespace muster::framework
