#include "muster/plugins/dynamicresources/args.h"

#include <fmt/format.h>

#include "muster/api/feature_gates.h"

namespace muster::plugins::dynamicresources {
namespace {

constexpr std::string_view kName = "DynamicResources";

// A metav1.Duration: a Go duration string.
std::optional<api::Duration> ReadDuration(const ArgsObject& object, std::string_view field) {
  if (!object.Has(field)) return std::nullopt;
  const std::optional<std::string> text = object.String(field);
  if (!text) return std::nullopt;
  std::optional<api::Duration> d = api::ParseDuration(*text);
  if (!d) {
    object.errors().Add(
        object.FieldPath(field),
        fmt::format("invalid duration \"{}\" (want a Go duration like 10s)", *text));
    return d;
  }
  // muster keeps microseconds: a positive timeout finer than that is one, not none.
  if (*d == api::Duration::zero() && text->find_first_of("123456789") != std::string::npos &&
      text->front() != '-') {
    d = api::Duration(1);
  }
  return d;
}

}  // namespace

bool BindingConditionsEnabled() {
  return api::Features().Enabled(api::Feature::kDRADeviceBindingConditions) &&
         api::Features().Enabled(api::Feature::kDRAResourceClaimDeviceStatus);
}

bool DecodeDynamicResourcesArgs(const YAML::Node& args, DynamicResourcesArgs* out,
                                ArgsErrors& errors) {
  const size_t before = errors.list().size();
  ArgsObject root(errors, args, "", {"apiVersion", "kind", "filterTimeout", "bindingTimeout"});
  CheckArgsKind(root, kName);
  if (auto d = ReadDuration(root, "filterTimeout")) out->filter_timeout = d;
  if (auto d = ReadDuration(root, "bindingTimeout")) out->binding_timeout = d;
  return errors.list().size() == before;
}

void SetDefaults(DynamicResourcesArgs& args) {
  if (!args.filter_timeout && api::Features().Enabled(api::Feature::kDRASchedulerFilterTimeout)) {
    args.filter_timeout = kDefaultFilterTimeout;
  }
  if (!args.binding_timeout && BindingConditionsEnabled()) {
    args.binding_timeout = kDefaultBindingTimeout;
  }
}

std::vector<api::FieldError> Validate(const DynamicResourcesArgs& args) {
  std::vector<api::FieldError> errors;
  if (args.filter_timeout) {
    if (!api::Features().Enabled(api::Feature::kDRASchedulerFilterTimeout)) {
      // Upstream's message names the gate DRASchedulingFilterTimeout; it is kept as written.
      errors.push_back(api::FieldError::Forbidden(
          "filterTimeout", "DRASchedulingFilterTimeout feature gate is disabled"));
    } else if (*args.filter_timeout < api::Duration::zero()) {
      errors.push_back(api::FieldError::InvalidRendered(
          "filterTimeout", api::FormatDuration(*args.filter_timeout), "must be zero or positive"));
    }
  }
  if (!args.binding_timeout) {
  } else if (!BindingConditionsEnabled()) {
    errors.push_back(api::FieldError::Forbidden(
        "bindingTimeout",
        "DRADeviceBindingConditions or DRAResourceClaimDeviceStatus feature gate is disabled"));
  } else if (*args.binding_timeout < std::chrono::seconds(1)) {
    errors.push_back(api::FieldError::InvalidRendered(
        "bindingTimeout", api::FormatDuration(*args.binding_timeout), "must be at least 1 second"));
  }
  return errors;
}

bool LoadDynamicResourcesArgs(const framework::PluginArgs& args, DynamicResourcesArgs* out,
                              std::string* error) {
  return LoadArgs(args, out, error, DecodeDynamicResourcesArgs);
}

}  // namespace muster::plugins::dynamicresources
