#pragma once

// The args of DynamicResources (kubescheduler.config.k8s.io/v1 DynamicResourcesArgs): decoding,
// v1 defaults and validation with upstream's messages (validation_pluginargs.go
// ValidateDynamicResourcesArgs), as kube-scheduler 1.37 reads them.
//
//  - filterTimeout: how long Filter may search one node for devices (default 10s; 0 turns the
//    limit off). It belongs to the DRASchedulerFilterTimeout gate (beta, on since 1.34): with the
//    gate off, giving it is an error, as upstream's validation makes it. The limit bounds work,
//    so it is measured on the process's monotonic clock, in `simulate` as in `run`: a simulation
//    differs from one run to the next only when a node's search takes that long.
//  - bindingTimeout: how long PreBind waits for devices' binding conditions, and how long after
//    its allocation a claim may go on waiting for them (default 600s, at least 1s). It belongs
//    to DRADeviceBindingConditions and DRAResourceClaimDeviceStatus (both on in 1.37): with
//    either off, giving it is an error and nothing is defaulted.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/labels.h"
#include "muster/api/time.h"
#include "muster/framework/registry.h"
#include "muster/plugins/args.h"

namespace muster::plugins::dynamicresources {

inline constexpr api::Duration kDefaultFilterTimeout = std::chrono::seconds(10);
inline constexpr api::Duration kDefaultBindingTimeout = std::chrono::seconds(600);

struct DynamicResourcesArgs {
  std::optional<api::Duration> filter_timeout;   // nullopt until SetDefaults
  std::optional<api::Duration> binding_timeout;  // nullopt until SetDefaults

  friend bool operator==(const DynamicResourcesArgs&, const DynamicResourcesArgs&) = default;
};

// Strict decoding of the YAML args (null args decode to nothing set), reporting into `errors`.
// Returns false when anything was reported.
bool DecodeDynamicResourcesArgs(const YAML::Node& args, DynamicResourcesArgs* out,
                                ArgsErrors& errors);

// The v1 defaults, each when absent and with its gates on: filterTimeout 10s, bindingTimeout
// 600s.
void SetDefaults(DynamicResourcesArgs& args);

// Whether devices' binding conditions are in force: both of their gates on.
bool BindingConditionsEnabled();

// Upstream's validation against the process's feature gates, paths relative to the args.
std::vector<api::FieldError> Validate(const DynamicResourcesArgs& args);

// Decode, default and validate: what the plugin factory runs. The defaults follow the gates, as
// upstream's do (no filterTimeout is defaulted with its gate off, so only one the user wrote is
// refused). False with *error set (one error per line) when the args are bad.
bool LoadDynamicResourcesArgs(const framework::PluginArgs& args, DynamicResourcesArgs* out,
                              std::string* error);

}  // namespace muster::plugins::dynamicresources
