#pragma once

// The in-tree plugins: their registry and the default plugin set of a profile.

#include "muster/api/scheduler_config.h"
#include "muster/framework/registry.h"

namespace muster::plugins {

// Every in-tree plugin under its upstream name, with a factory that decodes its args.
framework::Registry InTreeRegistry();

// Upstream's v1 default plugins (pkg/scheduler/apis/config/v1/default_plugins.go
// getDefaultPlugins): one multiPoint list, in upstream's order, with upstream's score weights,
// limited to the plugins InTreeRegistry() has.
api::Plugins DefaultPlugins();

}  // namespace muster::plugins
