#pragma once

// From a KubeSchedulerConfiguration to the frameworks of its profiles, in kube-scheduler's
// stages: defaulting and validation (upstream apis/config), one framework per profile (upstream
// framework/runtime NewFramework), and the checks across profiles (upstream profile.NewMap).

#include <memory>
#include <string>
#include <vector>

#include "muster/api/scheduler_config.h"
#include "muster/framework/framework.h"
#include "muster/framework/registry.h"

namespace muster::framework {

// Builds the profiles of a KubeSchedulerConfiguration (nullptr: one profile named
// default-scheduler with no customisation), as kube-scheduler does: `defaults` (upstream's default
// plugins, from the plugins layer: a multiPoint list with weights) merged with each profile's
// enabled/disabled lists per extension point, multiPoint expanded to every point a plugin
// implements, score weights (0 means 1), each plugin instantiated once with its pluginConfig args.
// Fails with every error found: an unknown plugin, a plugin enabled at a point it does not
// implement, a duplicate, not exactly one queueSort plugin, no bind plugin, queueSort differing
// between profiles, bad args.
std::vector<std::unique_ptr<Framework>> CreateProfiles(const api::SchedulerConfiguration* config,
                                                       const Registry& registry,
                                                       const api::Plugins& defaults,
                                                       SchedulerServices& services,
                                                       std::vector<std::string>* errors);

}  // namespace muster::framework
