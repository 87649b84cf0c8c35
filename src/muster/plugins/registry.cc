#include "muster/plugins/registry.h"

#include <cstdlib>
#include <optional>
#include <string>

#include "muster/plugins/defaultbinder/default_binder.h"
#include "muster/plugins/nodename/node_name.h"
#include "muster/plugins/noderesources/balanced_allocation.h"
#include "muster/plugins/noderesources/fit.h"
#include "muster/plugins/nodeunschedulable/node_unschedulable.h"
#include "muster/plugins/queuesort/priority_sort.h"
#include "muster/plugins/schedulinggates/scheduling_gates.h"

namespace muster::plugins {

framework::Registry InTreeRegistry() {
  framework::Registry registry;
  auto add = [&](std::string_view name, framework::PluginFactory factory) {
    // Names are distinct constants: a clash is a programming error caught by any test run.
    if (!registry.Register(std::string(name), std::move(factory)).IsSuccess()) std::abort();
  };
  add(schedulinggates::kName, schedulinggates::SchedulingGates::New);
  add(queuesort::kName, queuesort::PrioritySort::New);
  add(nodeunschedulable::kName, nodeunschedulable::NodeUnschedulable::New);
  add(nodename::kName, nodename::NodeName::New);
  add(noderesources::kFitName, noderesources::Fit::New);
  add(noderesources::kBalancedAllocationName, noderesources::BalancedAllocation::New);
  add(defaultbinder::kName, defaultbinder::DefaultBinder::New);
  return registry;
}

api::Plugins DefaultPlugins() {
  // Upstream's list also holds TaintToleration (weight 3), NodeAffinity (2), NodePorts,
  // VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone, PodTopologySpread (2),
  // InterPodAffinity (2), DefaultPreemption and ImageLocality (1). They are left out until those
  // plugins exist: a name the registry does not know would make every profile fail to build.
  // The order of the rest is upstream's.
  api::Plugins plugins;
  auto enable = [&](std::string_view name, std::optional<int32_t> weight = std::nullopt) {
    plugins.multi_point.enabled.push_back(api::PluginRef{std::string(name), weight});
  };
  enable(schedulinggates::kName);
  enable(queuesort::kName);
  enable(nodeunschedulable::kName);
  enable(nodename::kName);
  enable(noderesources::kFitName, 1);
  enable(noderesources::kBalancedAllocationName, 1);
  enable(defaultbinder::kName);
  return plugins;
}

}  // namespace muster::plugins
