#include "muster/framework/real_clock.h"

#include <chrono>

namespace muster::framework {

api::Time RealClock::Now() const {
  return std::chrono::time_point_cast<api::Duration>(std::chrono::system_clock::now());
}

Clock::TimerId RealClock::AddTimer(api::Time at, std::function<void()> fn, bool /*keeps_alive*/) {
  std::lock_guard lock(mu_);
  const TimerId id = next_id_++;
  timers_.emplace(std::pair(at, id), std::move(fn));
  when_.emplace(id, at);
  cv_.notify_all();
  return id;
}

void RealClock::CancelTimer(TimerId id) {
  std::lock_guard lock(mu_);
  auto it = when_.find(id);
  if (it == when_.end()) return;
  timers_.erase(std::pair(it->second, id));
  when_.erase(it);
}

void RealClock::Post(std::function<void()> fn) {
  std::lock_guard lock(mu_);
  posted_.push_back(std::move(fn));
  cv_.notify_all();
}

void RealClock::Wake() {
  std::lock_guard lock(mu_);
  woken_ = true;
  cv_.notify_all();
}

size_t RealClock::RunDue() {
  std::deque<std::function<void()>> posted;
  {
    std::lock_guard lock(mu_);
    posted.swap(posted_);
  }
  size_t ran = 0;
  for (std::function<void()>& fn : posted) {
    fn();
    ++ran;
  }
  const api::Time now = Now();
  while (true) {
    std::function<void()> fn;
    {
      std::lock_guard lock(mu_);
      if (timers_.empty() || timers_.begin()->first.first > now) break;
      auto it = timers_.begin();
      fn = std::move(it->second);
      when_.erase(it->first.second);
      timers_.erase(it);
    }
    fn();
    ++ran;
  }
  return ran;
}

std::optional<api::Time> RealClock::NextTimer() const {
  std::lock_guard lock(mu_);
  if (timers_.empty()) return std::nullopt;
  return timers_.begin()->first.first;
}

void RealClock::Wait(std::optional<api::Time> deadline) {
  std::unique_lock lock(mu_);
  while (!woken_ && posted_.empty()) {
    std::optional<api::Time> until = deadline;
    if (!timers_.empty() && (!until || timers_.begin()->first.first < *until)) {
      until = timers_.begin()->first.first;
    }
    if (until && Now() >= *until) break;
    if (until) {
      cv_.wait_until(lock, *until);
    } else {
      cv_.wait(lock);
    }
  }
  woken_ = false;
}

}  // namespace muster::framework
