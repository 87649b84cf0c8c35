#pragma once

// The args of NodeAffinity (kubescheduler.config.k8s.io/v1 NodeAffinityArgs): decoding and
// validation with upstream's messages (validation_pluginargs.go ValidateNodeAffinityArgs, which
// runs the node-affinity parser over addedAffinity). There are no v1 defaults.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/labels.h"
#include "muster/api/types.h"
#include "muster/framework/registry.h"
#include "muster/plugins/args.h"

namespace muster::plugins::nodeaffinity {

// The plugin's registry name; its args kind is "NodeAffinityArgs".
inline constexpr std::string_view kName = "NodeAffinity";

struct NodeAffinityArgs {
  // Node affinity every pod of the profile gets on top of its own: the required selector is
  // ANDed with the pod's (a node must match both), the preferred terms add to its score.
  std::optional<api::NodeAffinity> added_affinity;
};

// Strict decoding of the YAML args (null args decode to no added affinity), reporting into
// `errors`. An operator the parser does not know is reported here, with upstream's validation
// path and message, since api::SelectorOperator cannot hold it. Returns false when anything was
// reported.
bool DecodeNodeAffinityArgs(const YAML::Node& args, NodeAffinityArgs* out, ArgsErrors& errors);

// Upstream's validation: the parse errors of every non-empty required term and of every
// non-empty preferred term of non-zero weight, paths relative to the args (preferred terms'
// errors name the term, not its preference field, as upstream's do).
std::vector<api::FieldError> Validate(const NodeAffinityArgs& args);

// Decode and validate: what the plugin factory runs. False with *error set (one error per line).
bool LoadNodeAffinityArgs(const framework::PluginArgs& args, NodeAffinityArgs* out,
                          std::string* error);

}  // namespace muster::plugins::nodeaffinity
