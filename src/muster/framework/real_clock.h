#pragma once

// The wall clock of `muster run`, as a LoopClock: its timers fire on the scheduler's thread
// when that thread calls RunDue, and other threads (informers, binders, the leader elector) hand
// work to that thread with Post. Wait blocks the scheduler's thread until something is due.

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>

#include "muster/framework/clock.h"

namespace muster::framework {

class RealClock final : public LoopClock {
 public:
  api::Time Now() const override;
  // Thread-safe, as is CancelTimer.
  TimerId AddTimer(api::Time at, std::function<void()> fn, bool keeps_alive = true) override;
  void CancelTimer(TimerId id) override;
  // Runs what was posted before the call, in the order it was posted, then the timers due by
  // Now() in time order.
  size_t RunDue() override;
  std::optional<api::Time> NextTimer() const override;

  // Runs `fn` on the scheduler's thread at its next RunDue, after what was posted before it.
  // From any thread.
  void Post(std::function<void()> fn);
  // Blocks until something was posted, a timer is due, `deadline` passes, or Wake is called.
  void Wait(std::optional<api::Time> deadline = std::nullopt);
  // Ends a Wait early (a stop request).
  void Wake();

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> posted_;
  std::map<std::pair<api::Time, TimerId>, std::function<void()>> timers_;
  std::map<TimerId, api::Time> when_;
  TimerId next_id_ = 1;
  bool woken_ = false;
};

}  // namespace muster::framework
