#pragma once

// PrioritySort (upstream pkg/scheduler/framework/plugins/queuesort): the activeQ order.

#include <memory>
#include <string>
#include <string_view>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::queuesort {

inline constexpr std::string_view kName = "PrioritySort";

class PrioritySort final : public framework::QueueSortPlugin {
 public:
  // The plugin has no args; any given are ignored, as upstream ignores args of plugins that have
  // no args type.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  // Higher priority first; among equals, the one queued earlier.
  bool Less(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;
  int Compare(const framework::QueuedPodInfo& a, const framework::QueuedPodInfo& b) const override;
  bool OrdersByPriorityThenTimestamp() const override { return true; }
};

}  // namespace muster::plugins::queuesort
