#include "muster/framework/virtual_clock.h"

namespace muster::framework {

Clock::TimerId VirtualClock::AddTimer(api::Time at, std::function<void()> fn, bool keeps_alive) {
  if (at < now_) at = now_;
  const TimerId id = next_id_++;
  timers_.emplace(std::make_pair(at, id), Timer{std::move(fn), keeps_alive});
  when_.emplace(id, at);
  if (keeps_alive) ++keep_alive_;
  return id;
}

void VirtualClock::CancelTimer(TimerId id) {
  auto w = when_.find(id);
  if (w == when_.end()) return;
  auto it = timers_.find(std::make_pair(w->second, id));
  if (it != timers_.end()) {
    if (it->second.keeps_alive) --keep_alive_;
    timers_.erase(it);
  }
  when_.erase(w);
}

size_t VirtualClock::RunDue() {
  size_t fired = 0;
  while (!timers_.empty() && timers_.begin()->first.first <= now_) {
    auto it = timers_.begin();
    Timer timer = std::move(it->second);
    when_.erase(it->first.second);
    timers_.erase(it);
    if (timer.keeps_alive) --keep_alive_;
    timer.fn();
    ++fired;
  }
  return fired;
}

bool VirtualClock::AdvanceToNext() {
  if (timers_.empty()) return false;
  AdvanceTo(timers_.begin()->first.first);
  return true;
}

bool VirtualClock::AdvanceToNext(api::Time limit) {
  if (timers_.empty() || timers_.begin()->first.first > limit) return false;
  AdvanceTo(timers_.begin()->first.first);
  return true;
}

std::optional<api::Time> VirtualClock::NextTimer() const {
  if (timers_.empty()) return std::nullopt;
  return timers_.begin()->first.first;
}

std::optional<api::Time> VirtualClock::NextKeepAliveTimer() const {
  if (keep_alive_ == 0) return std::nullopt;
  // Housekeeping timers are few (a queue's flush, a tidy-up): the walk is short.
  for (const auto& [when, timer] : timers_) {
    if (timer.keeps_alive) return when.first;
  }
  return std::nullopt;
}

}  // namespace muster::framework
