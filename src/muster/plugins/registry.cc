#include "muster/plugins/registry.h"

#include <cstdlib>
#include <optional>
#include <string>

#include "muster/plugins/coscheduling/coscheduling.h"
#include "muster/plugins/defaultbinder/default_binder.h"
#include "muster/plugins/defaultpreemption/default_preemption.h"
#include "muster/plugins/dynamicresources/dynamic_resources.h"
#include "muster/plugins/gangscheduling/gang_scheduling.h"
#include "muster/plugins/imagelocality/image_locality.h"
#include "muster/plugins/interpodaffinity/inter_pod_affinity.h"
#include "muster/plugins/nodeaffinity/node_affinity.h"
#include "muster/plugins/nodedeclaredfeatures/node_declared_features.h"
#include "muster/plugins/nodename/node_name.h"
#include "muster/plugins/nodeports/node_ports.h"
#include "muster/plugins/noderesources/balanced_allocation.h"
#include "muster/plugins/noderesources/fit.h"
#include "muster/plugins/nodeunschedulable/node_unschedulable.h"
#include "muster/plugins/podtopologyspread/pod_topology_spread.h"
#include "muster/plugins/queuesort/priority_sort.h"
#include "muster/plugins/schedulinggates/scheduling_gates.h"
#include "muster/plugins/tainttoleration/taint_toleration.h"
#include "muster/plugins/volumes/volume_binding.h"
#include "muster/plugins/volumes/volumes.h"

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
  add(tainttoleration::kName, tainttoleration::TaintToleration::New);
  add(nodeaffinity::kName, nodeaffinity::NodeAffinity::New);
  add(nodeports::kName, nodeports::NodePorts::New);
  add(volumes::kVolumeRestrictionsName, volumes::VolumeRestrictions::New);
  add(volumes::kNodeVolumeLimitsName, volumes::NodeVolumeLimits::New);
  add(volumes::kVolumeBindingName, volumes::VolumeBinding::New);
  add(volumes::kVolumeZoneName, volumes::VolumeZone::New);
  add(podtopologyspread::kName, podtopologyspread::PodTopologySpread::New);
  add(interpodaffinity::kName, interpodaffinity::InterPodAffinity::New);
  add(imagelocality::kName, imagelocality::ImageLocality::New);
  add(dynamicresources::kName, dynamicresources::DynamicResources::New);
  add(defaultpreemption::kName, defaultpreemption::DefaultPreemption::New);
  add(defaultbinder::kName, defaultbinder::DefaultBinder::New);
  add(gangscheduling::kName, gangscheduling::GangScheduling::New);
  add(nodedeclaredfeatures::kName, nodedeclaredfeatures::NodeDeclaredFeatures::New);
  // Out of tree upstream (scheduler-plugins); built in here, enabled by configuration.
  add(coscheduling::kName, coscheduling::Coscheduling::New);
  return registry;
}

api::Plugins DefaultPlugins() {
  // Upstream's v1 multiPoint list, in its order and with its weights.
  api::Plugins plugins;
  auto enable = [&](std::string_view name, std::optional<int32_t> weight = std::nullopt) {
    plugins.multi_point.enabled.push_back(api::PluginRef{std::string(name), weight});
  };
  enable(schedulinggates::kName);
  enable(queuesort::kName);
  enable(nodeunschedulable::kName);
  enable(nodename::kName);
  enable(tainttoleration::kName, 3);
  enable(nodeaffinity::kName, 2);
  enable(nodeports::kName);
  enable(noderesources::kFitName, 1);
  enable(volumes::kVolumeRestrictionsName);
  enable(volumes::kNodeVolumeLimitsName);
  enable(volumes::kVolumeBindingName);
  enable(volumes::kVolumeZoneName);
  enable(podtopologyspread::kName, 2);
  enable(interpodaffinity::kName, 2);
  // GA in 1.34: before DefaultPreemption, so that a claim it deallocates is tried again before
  // any pod is preempted.
  enable(dynamicresources::kName);
  enable(defaultpreemption::kName);
  enable(noderesources::kBalancedAllocationName, 1);
  enable(imagelocality::kName, 1);
  enable(defaultbinder::kName);
  // Added by upstream's applyFeatureGates with NodeDeclaredFeatures on (GA and locked on in 1.37),
  // after the v1 list and before the gates that follow it.
  enable(nodedeclaredfeatures::kName);
  // Behind the GenericWorkload and GangScheduling feature gates upstream (alpha in 1.35 and
  // 1.36, beta in 1.37); on here, so that pods naming a Workload or PodGroup of
  // scheduling.k8s.io are placed as their gang says, not one by one.
  enable(gangscheduling::kName);
  return plugins;
}

}  // namespace muster::plugins
