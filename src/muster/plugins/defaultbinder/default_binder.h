#pragma once

// DefaultBinder (upstream pkg/scheduler/framework/plugins/defaultbinder): binds through the
// cluster client (POST pods/binding).

#include <memory>
#include <string>
#include <string_view>

#include "muster/framework/handle.h"
#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::defaultbinder {

inline constexpr std::string_view kName = "DefaultBinder";

class DefaultBinder final : public framework::BindPlugin {
 public:
  explicit DefaultBinder(framework::Handle& handle) : handle_(handle) {}

  // The plugin has no args; any given are ignored, as upstream ignores args of plugins that have
  // no args type.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  // Binds every pod (never Skip). A failed write is an Error.
  framework::Status Bind(framework::CycleState& state, const framework::PodInfo& pod,
                         api::Symbol node) override;

 private:
  framework::Handle& handle_;  // outlives the plugin: the profile owns both
};

}  // namespace muster::plugins::defaultbinder
