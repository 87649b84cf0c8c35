#include "muster/plugins/noderesources/args.h"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

namespace muster::plugins::noderesources {
namespace {

constexpr std::array<std::string_view, 3> kSupportedStrategies = {kLeastAllocated, kMostAllocated,
                                                                  kRequestedToCapacityRatio};

// Reads `resources: [{name, weight}]` of either args type.
std::vector<ResourceSpec> ReadResources(const ArgsObject& parent) {
  std::vector<ResourceSpec> out;
  parent.List("resources", [&](const YAML::Node& item, const std::string& path) {
    ArgsObject spec(parent.errors(), item, path, {"name", "weight"});
    ResourceSpec r;
    if (auto name = spec.String("name")) r.name = *name;
    if (auto weight = spec.Int("weight", INT64_MIN, INT64_MAX)) r.weight = *weight;
    out.push_back(std::move(r));
  });
  return out;
}

std::string Invalid(int64_t value) { return std::to_string(value); }

// Upstream validateFunctionShape.
void ValidateShape(const std::vector<UtilizationShapePoint>& shape, const std::string& path,
                   std::vector<api::FieldError>& errors) {
  if (shape.empty()) {
    errors.push_back(api::FieldError::Required(path, "at least one point must be specified"));
    return;
  }
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errors.push_back(api::FieldError::InvalidRendered(
          api::ChildPath(api::IndexPath(path, i), "utilization"), Invalid(shape[i].utilization),
          "values must be sorted in increasing order"));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const std::string point = api::IndexPath(path, i);
    if (shape[i].utilization < 0 || shape[i].utilization > 100) {
      errors.push_back(api::FieldError::InvalidRendered(api::ChildPath(point, "utilization"),
                                                        Invalid(shape[i].utilization),
                                                        "not in valid range [0, 100]"));
    }
    if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
      errors.push_back(api::FieldError::InvalidRendered(
          api::ChildPath(point, "score"), Invalid(shape[i].score),
          fmt::format("not in valid range [0, {}]", kMaxCustomPriorityScore)));
    }
  }
}

// Upstream validateResources: weights of a scoring strategy.
void ValidateWeights(const std::vector<ResourceSpec>& resources, const std::string& path,
                     std::vector<api::FieldError>& errors) {
  for (size_t i = 0; i < resources.size(); ++i) {
    if (resources[i].weight <= 0 || resources[i].weight > 100) {
      errors.push_back(api::FieldError::InvalidRendered(
          api::ChildPath(api::IndexPath(path, i), "weight"), Invalid(resources[i].weight),
          fmt::format("resource weight of {} not in valid range (0, 100]", resources[i].name)));
    }
  }
}

// metav1 validation.ValidateLabelName: one Invalid error per message of IsQualifiedName.
void ValidateLabelName(const std::string& name, const std::string& path,
                       std::vector<api::FieldError>& errors) {
  for (const std::string& message : api::LabelKeyErrors(name)) {
    errors.push_back(api::FieldError::Invalid(path, name, message));
  }
}

}  // namespace

std::vector<ResourceSpec> DefaultResources() {
  return {ResourceSpec{"cpu", 1}, ResourceSpec{"memory", 1}};
}

bool DecodeNodeResourcesFitArgs(const YAML::Node& args, NodeResourcesFitArgs* out,
                                ArgsErrors& errors) {
  const size_t before = errors.list().size();
  ArgsObject root(
      errors, args, "",
      {"apiVersion", "kind", "ignoredResources", "ignoredResourceGroups", "scoringStrategy"});
  CheckArgsKind(root, kFitName);
  if (auto list = root.StringList("ignoredResources")) out->ignored_resources = std::move(*list);
  if (auto list = root.StringList("ignoredResourceGroups")) {
    out->ignored_resource_groups = std::move(*list);
  }
  if (root.Has("scoringStrategy")) {
    ArgsObject strategy(errors, root.Get("scoringStrategy"), root.FieldPath("scoringStrategy"),
                        {"type", "resources", "requestedToCapacityRatio"});
    ScoringStrategy s;
    if (auto type = strategy.String("type")) s.type = *type;
    s.resources = ReadResources(strategy);
    if (strategy.Has("requestedToCapacityRatio")) {
      ArgsObject ratio(errors, strategy.Get("requestedToCapacityRatio"),
                       strategy.FieldPath("requestedToCapacityRatio"), {"shape"});
      RequestedToCapacityRatioParam param;
      ratio.List("shape", [&](const YAML::Node& item, const std::string& path) {
        ArgsObject point(errors, item, path, {"utilization", "score"});
        UtilizationShapePoint p;
        if (auto u = point.Int("utilization", INT32_MIN, INT32_MAX)) {
          p.utilization = static_cast<int32_t>(*u);
        }
        if (auto sc = point.Int("score", INT32_MIN, INT32_MAX)) p.score = static_cast<int32_t>(*sc);
        param.shape.push_back(p);
      });
      s.requested_to_capacity_ratio = std::move(param);
    }
    out->scoring_strategy = std::move(s);
  }
  return errors.list().size() == before;
}

bool DecodeNodeResourcesBalancedAllocationArgs(const YAML::Node& args,
                                               NodeResourcesBalancedAllocationArgs* out,
                                               ArgsErrors& errors) {
  const size_t before = errors.list().size();
  ArgsObject root(errors, args, "", {"apiVersion", "kind", "resources"});
  CheckArgsKind(root, kBalancedAllocationName);
  out->resources = ReadResources(root);
  return errors.list().size() == before;
}

void SetDefaults(NodeResourcesFitArgs& args) {
  if (!args.scoring_strategy) {
    args.scoring_strategy = ScoringStrategy{std::string(kLeastAllocated), DefaultResources(), {}};
  }
  std::vector<ResourceSpec>& resources = args.scoring_strategy->resources;
  if (resources.empty()) resources = DefaultResources();
  for (ResourceSpec& r : resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

void SetDefaults(NodeResourcesBalancedAllocationArgs& args) {
  if (args.resources.empty()) {
    args.resources = DefaultResources();
    return;
  }
  for (ResourceSpec& r : args.resources) {
    if (r.weight == 0) r.weight = 1;
  }
}

std::vector<api::FieldError> Validate(const NodeResourcesFitArgs& args) {
  std::vector<api::FieldError> errors;
  for (size_t i = 0; i < args.ignored_resources.size(); ++i) {
    ValidateLabelName(args.ignored_resources[i], api::IndexPath("ignoredResources", i), errors);
  }
  for (size_t i = 0; i < args.ignored_resource_groups.size(); ++i) {
    const std::string& group = args.ignored_resource_groups[i];
    const std::string path = api::IndexPath("ignoredResourceGroups", i);
    if (group.find('/') != std::string::npos) {
      errors.push_back(
          api::FieldError::Invalid(path, group, "resource group name can't contain '/'"));
    }
    ValidateLabelName(group, path, errors);
  }

  const std::string strategy_path = "scoringStrategy";
  if (!args.scoring_strategy) {
    errors.push_back(api::FieldError::Required(strategy_path, "ScoringStrategy field is required"));
    return errors;
  }
  const ScoringStrategy& s = *args.scoring_strategy;
  if (std::find(kSupportedStrategies.begin(), kSupportedStrategies.end(), s.type) ==
      kSupportedStrategies.end()) {
    // field.NotSupported: the supported values, quoted and sorted.
    std::string supported;
    for (std::string_view v : kSupportedStrategies) {
      if (!supported.empty()) supported += ", ";
      supported += api::GoQuote(v);
    }
    errors.push_back(api::FieldError{api::FieldError::Type::kInvalid,
                                     api::ChildPath(strategy_path, "type"),
                                     fmt::format("Unsupported value: {}: supported values: {}",
                                                 api::GoQuote(s.type), supported)});
  }
  ValidateWeights(s.resources, api::ChildPath(strategy_path, "resources"), errors);
  const std::string ratio_path = api::ChildPath(strategy_path, "requestedToCapacityRatio");
  if (s.type == kRequestedToCapacityRatio) {
    if (!s.requested_to_capacity_ratio) {
      errors.push_back(api::FieldError::Required(
          ratio_path, "must be specified when type is RequestedToCapacityRatio"));
    } else {
      ValidateShape(s.requested_to_capacity_ratio->shape, api::ChildPath(ratio_path, "shape"),
                    errors);
    }
  } else if (s.requested_to_capacity_ratio) {
    errors.push_back(api::FieldError::Forbidden(
        ratio_path, "must be nil when type is not RequestedToCapacityRatio"));
  }
  return errors;
}

std::vector<api::FieldError> Validate(const NodeResourcesBalancedAllocationArgs& args) {
  std::vector<api::FieldError> errors;
  std::set<std::string> seen;
  for (size_t i = 0; i < args.resources.size(); ++i) {
    const ResourceSpec& r = args.resources[i];
    const std::string path = api::IndexPath("resources", i);
    if (!seen.insert(r.name).second) {
      // field.Duplicate.
      errors.push_back(api::FieldError{api::FieldError::Type::kInvalid,
                                       api::ChildPath(path, "name"),
                                       "Duplicate value: " + api::GoQuote(r.name)});
    }
    if (r.weight != 1) {
      errors.push_back(api::FieldError::InvalidRendered(api::ChildPath(path, "weight"),
                                                        Invalid(r.weight), "must be 1"));
    }
  }
  return errors;
}

bool LoadNodeResourcesFitArgs(const framework::PluginArgs& args, NodeResourcesFitArgs* out,
                              std::string* error) {
  return LoadArgs(args, out, error, DecodeNodeResourcesFitArgs);
}

bool LoadNodeResourcesBalancedAllocationArgs(const framework::PluginArgs& args,
                                             NodeResourcesBalancedAllocationArgs* out,
                                             std::string* error) {
  return LoadArgs(args, out, error, DecodeNodeResourcesBalancedAllocationArgs);
}

}  // namespace muster::plugins::noderesources
