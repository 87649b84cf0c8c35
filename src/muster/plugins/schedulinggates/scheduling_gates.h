#pragma once

// SchedulingGates (upstream pkg/scheduler/framework/plugins/schedulinggates): a pod with
// spec.schedulingGates stays out of the scheduling queue until its gates are removed.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::schedulinggates {

inline constexpr std::string_view kName = "SchedulingGates";

class SchedulingGates final : public framework::PreEnqueuePlugin,
                              public framework::EnqueueExtensions {
 public:
  // The plugin has no args; any given are ignored, as upstream ignores args of plugins that have
  // no args type.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  // UnschedulableAndUnresolvable "waiting for scheduling gates: [a b]" while the pod has gates.
  framework::Status PreEnqueue(const api::Pod& pod) override;

  // The pod's own update that removed its last gate.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;
  framework::QueueingHint IsSchedulableAfterGatesEliminated(const api::Pod& pod,
                                                            const framework::EventObjects& event,
                                                            framework::Status* error) const;
};

}  // namespace muster::plugins::schedulinggates
