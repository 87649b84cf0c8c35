#include "muster/plugins/queuesort/priority_sort.h"

namespace muster::plugins::queuesort {

std::unique_ptr<framework::Plugin> PrioritySort::New(const framework::PluginArgs& /*args*/,
                                                     framework::Handle& /*handle*/,
                                                     std::string* /*error*/) {
  return std::make_unique<PrioritySort>();
}

bool PrioritySort::Less(const framework::QueuedPodInfo& a,
                        const framework::QueuedPodInfo& b) const {
  const int32_t pa = a.info->priority;
  const int32_t pb = b.info->priority;
  return pa > pb || (pa == pb && a.timestamp < b.timestamp);
}

}  // namespace muster::plugins::queuesort
