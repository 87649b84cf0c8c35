#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "muster/framework/handle.h"
#include "muster/framework/interface.h"
#include "muster/framework/status.h"

namespace muster::framework {

// A plugin's `args` from the profile's pluginConfig, undecoded. Each plugin decodes its own
// strictly (unknown fields are errors) and validates them, reporting errors as
// "<error_prefix>.<field>: <message>".
struct PluginArgs {
  YAML::Node args;           // null when the profile gives none: use the defaults
  std::string error_prefix;  // e.g. "cfg.yaml: document 1 (KubeSchedulerConfiguration):
                             // profiles[0].pluginConfig[1].args"
};

// Builds a plugin, or returns nullptr with *error set (bad args).
using PluginFactory = std::function<std::unique_ptr<Plugin>(const PluginArgs& args, Handle& handle,
                                                            std::string* error)>;

// Plugin name to factory (upstream runtime.Registry). In-tree plugins register in
// plugins/registry.cc; out-of-tree ones Merge theirs in.
class Registry {
 public:
  // Error when the name is taken.
  Status Register(const std::string& name, PluginFactory factory);
  // Adds every entry of `other`; error (and no change) on any duplicate name.
  Status Merge(const Registry& other);
  const PluginFactory* Find(const std::string& name) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, PluginFactory> factories_;
};

}  // namespace muster::framework
