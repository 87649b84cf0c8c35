#include "muster/scheduler/profiles.h"

namespace muster::scheduler {

void Profiles::Set(std::vector<std::unique_ptr<framework::Framework>> profiles) {
  profiles_ = std::move(profiles);
  for (const auto& p : profiles_) {
    by_name_[p->scheduler_name()] = p.get();
    auto& by_plugin = hints_[p.get()];
    for (auto& [plugin, events] : p->EventsToRegister()) {
      for (const framework::ClusterEventWithHint& e : events) {
        registered_events_[plugin].push_back(e.event);
        registered_actions_[e.event.resource.id()] |= e.event.actions;
      }
      by_plugin[plugin] = std::move(events);
    }
  }
}

const framework::Framework* Profiles::For(const api::Pod& pod) const {
  auto it = by_name_.find(pod.spec.scheduler_name.str());
  return it == by_name_.end() ? nullptr : it->second;
}

int Profiles::Compare(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const {
  // Every profile has the same QueueSort (the configuration is rejected otherwise).
  return profiles_.front()->QueueSortCompare(a, b);
}

bool Profiles::OrdersByPriorityThenTimestamp() const {
  return !profiles_.empty() && profiles_.front()->QueueSortOrdersByPriorityThenTimestamp();
}

framework::Status Profiles::PreEnqueue(const api::Pod& pod) const {
  const framework::Framework* fwk = For(pod);
  return fwk == nullptr ? framework::Status::OK() : fwk->RunPreEnqueuePlugins(pod);
}

bool Profiles::Interested(const std::string& plugin, const framework::ClusterEvent& event) const {
  auto it = registered_events_.find(plugin);
  if (it == registered_events_.end()) return false;
  for (const framework::ClusterEvent& registered : it->second) {
    if (registered.Matches(event)) return true;
  }
  return false;
}

void Profiles::ForEachHint(const api::Pod& pod, const std::string& plugin,
                           const framework::ClusterEvent& event,
                           const std::function<void(const framework::QueueingHintFn&)>& fn) const {
  const framework::Framework* fwk = For(pod);
  if (fwk == nullptr) return;
  auto p = hints_.find(fwk);
  if (p == hints_.end()) return;
  auto it = p->second.find(plugin);
  if (it == p->second.end()) return;
  for (const framework::ClusterEventWithHint& h : it->second) {
    if (h.event.Matches(event)) fn(h.hint);
  }
}

std::vector<std::string> Profiles::SchedulerNames() const {
  std::vector<std::string> names;
  for (const auto& [name, profile] : by_name_) names.push_back(name);
  return names;
}

}  // namespace muster::scheduler
