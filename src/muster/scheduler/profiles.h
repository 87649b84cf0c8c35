#pragma once

// The scheduler's profiles (upstream profile.Map) and what each of their plugins registered for
// cluster events (upstream's queueing hint map per profile): the data the scheduling queue
// orders, gates and requeues pods by. Built once from the configuration, read-only after; the
// queue reads it directly, without calling back into the scheduler.

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "muster/framework/framework.h"
#include "muster/scheduler/queue.h"

namespace muster::scheduler {

class Profiles final : public QueueProfiles {
 public:
  // Takes the profiles that framework::CreateProfiles built, and records their plugins' events.
  void Set(std::vector<std::unique_ptr<framework::Framework>> profiles);
  bool empty() const { return profiles_.empty(); }
  // The profile named by the pod's spec.schedulerName, or nullptr: not this scheduler's pod.
  const framework::Framework* For(const api::Pod& pod) const;
  // The profiles' scheduler names, sorted.
  std::vector<std::string> SchedulerNames() const;
  // Whether some plugin registered for the event's resource itself (a wildcard registration
  // does not count) with one of its actions: upstream handles a kind's events only then.
  bool Registered(const framework::ClusterEvent& event) const {
    return (registered_actions_[event.resource.id()] & event.actions) != 0;
  }

  // ---- QueueProfiles ----
  int Compare(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;
  bool OrdersByPriorityThenTimestamp() const override;
  framework::Status PreEnqueue(const api::Pod& pod) const override;
  bool Interested(const std::string& plugin, const framework::ClusterEvent& event) const override;
  void ForEachHint(const api::Pod& pod, const std::string& plugin,
                   const framework::ClusterEvent& event,
                   const std::function<void(const framework::QueueingHintFn&)>& fn) const override;

 private:
  std::vector<std::unique_ptr<framework::Framework>> profiles_;
  std::map<std::string, const framework::Framework*, std::less<>> by_name_;
  // Per profile: plugin name -> the events it registered, with their hints.
  std::map<const framework::Framework*,
           std::map<std::string, std::vector<framework::ClusterEventWithHint>, std::less<>>>
      hints_;
  // Plugin name -> every event it registered, across profiles (the queue's event filter).
  std::map<std::string, std::vector<framework::ClusterEvent>, std::less<>> registered_events_;
  // Per resource: the actions any plugin registered.
  std::array<uint32_t, framework::EventResource::kCount> registered_actions_{};
};

}  // namespace muster::scheduler
