#include "muster/plugins/queuesort/priority_sort.h"

namespace muster::plugins::queuesort {

std::unique_ptr<framework::Plugin> PrioritySort::New(const framework::PluginArgs& /*args*/,
                                                     framework::Handle& /*handle*/,
                                                     std::string* /*error*/) {
  return std::make_unique<PrioritySort>();
}

bool PrioritySort::Less(const framework::QueuedPodInfo& a,
                        const framework::QueuedPodInfo& b) const {
  return Compare(a, b) < 0;
}

// Higher priority first, then the earlier timestamp.
int PrioritySort::Compare(const framework::QueuedPodInfo& a,
                          const framework::QueuedPodInfo& b) const {
  const int32_t pa = a.info->priority;
  const int32_t pb = b.info->priority;
  if (const int c = framework::ThreeWay(pb, pa); c != 0) return c;
  return framework::ThreeWay(a.timestamp, b.timestamp);
}

}  // namespace muster::plugins::queuesort
