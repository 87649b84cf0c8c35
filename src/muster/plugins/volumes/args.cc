#include "muster/plugins/volumes/args.h"

#include <utility>

#include <fmt/format.h>

namespace muster::plugins::volumes {

bool DecodeVolumeBindingArgs(const YAML::Node& args, VolumeBindingArgs* out, ArgsErrors& errors) {
  const size_t before = errors.list().size();
  ArgsObject root(errors, args, "", {"apiVersion", "kind", "bindTimeoutSeconds", "shape"});
  CheckArgsKind(root, kVolumeBindingName);
  if (std::optional<int64_t> timeout = root.Int("bindTimeoutSeconds", INT64_MIN, INT64_MAX)) {
    out->bind_timeout_seconds = *timeout;
  }
  std::vector<UtilizationShapePoint> shape;
  const bool has_shape = root.List("shape", [&](const YAML::Node& item, const std::string& path) {
    ArgsObject point(errors, item, path, {"utilization", "score"});
    UtilizationShapePoint p;
    if (auto u = point.Int("utilization", INT32_MIN, INT32_MAX)) {
      p.utilization = static_cast<int32_t>(*u);
    }
    if (auto s = point.Int("score", INT32_MIN, INT32_MAX)) p.score = static_cast<int32_t>(*s);
    shape.push_back(p);
  });
  if (has_shape) out->shape = std::move(shape);
  return errors.list().size() == before;
}

void SetDefaults(VolumeBindingArgs& args) {
  if (!args.bind_timeout_seconds) args.bind_timeout_seconds = kDefaultBindTimeoutSeconds;
  if (!args.shape || args.shape->empty()) {
    args.shape = std::vector<UtilizationShapePoint>{{0, kMaxCustomPriorityScore}, {100, 0}};
  }
}

std::vector<api::FieldError> Validate(const VolumeBindingArgs& args) {
  std::vector<api::FieldError> errors;
  if (args.bind_timeout_seconds && *args.bind_timeout_seconds < 0) {
    errors.push_back(api::FieldError::InvalidRendered(
        "bindTimeoutSeconds", std::to_string(*args.bind_timeout_seconds),
        "invalid BindTimeoutSeconds, should not be a negative value"));
  }
  // Upstream validateFunctionShape, as with StorageCapacityScoring on; an empty shape is what
  // that gate's defaulting replaces, so it is not checked.
  if (!args.shape || args.shape->empty()) return errors;
  const std::vector<UtilizationShapePoint>& shape = *args.shape;
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      errors.push_back(api::FieldError::InvalidRendered(
          api::ChildPath(api::IndexPath("shape", i), "utilization"),
          std::to_string(shape[i].utilization), "values must be sorted in increasing order"));
      break;
    }
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const std::string point = api::IndexPath("shape", i);
    if (shape[i].utilization < 0 || shape[i].utilization > 100) {
      errors.push_back(api::FieldError::InvalidRendered(api::ChildPath(point, "utilization"),
                                                        std::to_string(shape[i].utilization),
                                                        "not in valid range [0, 100]"));
    }
    if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
      errors.push_back(api::FieldError::InvalidRendered(
          api::ChildPath(point, "score"), std::to_string(shape[i].score),
          fmt::format("not in valid range [0, {}]", kMaxCustomPriorityScore)));
    }
  }
  return errors;
}

bool LoadVolumeBindingArgs(const framework::PluginArgs& args, VolumeBindingArgs* out,
                           std::string* error) {
  return LoadArgs(args, out, error, DecodeVolumeBindingArgs);
}

}  // namespace muster::plugins::volumes
