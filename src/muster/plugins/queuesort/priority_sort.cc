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
  if (pa != pb) return pa > pb ? -1 : 1;
  return a.timestamp < b.timestamp ? -1 : b.timestamp < a.timestamp ? 1 : 0;
}

}  // namespace muster::plugins::queuesort
