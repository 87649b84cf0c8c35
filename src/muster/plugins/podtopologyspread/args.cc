#include "muster/plugins/podtopologyspread/args.h"

#include <initializer_list>
#include <utility>

#include <fmt/format.h>

namespace muster::plugins::podtopologyspread {
namespace {

constexpr std::string_view kDoNotSchedule = "DoNotSchedule";
constexpr std::string_view kScheduleAnyway = "ScheduleAnyway";

// A labelSelector is forbidden in default constraints; it is read only as strictly as needed to
// report fields a LabelSelector does not have.
void CheckLabelSelectorShape(ArgsErrors& errors, const YAML::Node& node, const std::string& path) {
  ArgsObject selector(errors, node, path, {"matchLabels", "matchExpressions"});
  const YAML::Node labels = selector.Get("matchLabels");
  if (IsPresent(labels) && !labels.IsMap()) {
    errors.Add(selector.FieldPath("matchLabels"),
               fmt::format("expected an object, got {}", DescribeYaml(labels)));
  }
  selector.List("matchExpressions", [&](const YAML::Node& item, const std::string& item_path) {
    ArgsObject requirement(errors, item, item_path, {"key", "operator", "values"});
    requirement.String("key");
    requirement.String("operator");
    requirement.StringList("values");
  });
}

DefaultConstraint ReadConstraint(ArgsErrors& errors, const YAML::Node& node,
                                 const std::string& path) {
  ArgsObject m(errors, node, path,
               {"maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains",
                "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys"});
  DefaultConstraint c;
  if (auto v = m.Int("maxSkew", INT32_MIN, INT32_MAX)) c.max_skew = static_cast<int32_t>(*v);
  if (auto v = m.String("topologyKey")) c.topology_key = std::move(*v);
  if (auto v = m.String("whenUnsatisfiable")) c.when_unsatisfiable = std::move(*v);
  if (m.Has("labelSelector")) {
    c.has_label_selector = true;
    CheckLabelSelectorShape(errors, m.Get("labelSelector"), m.FieldPath("labelSelector"));
  }
  if (auto v = m.Int("minDomains", INT32_MIN, INT32_MAX)) c.min_domains = static_cast<int32_t>(*v);
  if (auto v = m.String("nodeAffinityPolicy")) c.node_affinity_policy = std::move(*v);
  if (auto v = m.String("nodeTaintsPolicy")) c.node_taints_policy = std::move(*v);
  if (auto v = m.StringList("matchLabelKeys")) c.match_label_keys = std::move(*v);
  return c;
}

// field.NotSupported: the value quoted, then the supported values quoted in the order given.
api::FieldError NotSupported(std::string path, std::string_view value,
                             std::initializer_list<std::string_view> supported) {
  std::string list;
  for (std::string_view v : supported) {
    if (!list.empty()) list += ", ";
    list += api::GoQuote(v);
  }
  return api::FieldError{
      api::FieldError::Type::kInvalid, std::move(path),
      fmt::format("Unsupported value: {}: supported values: {}", api::GoQuote(value), list)};
}

}  // namespace

bool DecodePodTopologySpreadArgs(const YAML::Node& args, PodTopologySpreadArgs* out,
                                 ArgsErrors& errors) {
  const size_t before = errors.list().size();
  ArgsObject root(errors, args, "", {"apiVersion", "kind", "defaultConstraints", "defaultingType"});
  CheckArgsKind(root, kName);
  root.List("defaultConstraints", [&](const YAML::Node& item, const std::string& path) {
    out->default_constraints.push_back(ReadConstraint(errors, item, path));
  });
  if (auto v = root.String("defaultingType")) out->defaulting_type = std::move(*v);
  return errors.list().size() == before;
}

void SetDefaults(PodTopologySpreadArgs& args) {
  if (args.defaulting_type.empty()) args.defaulting_type = std::string(kSystemDefaulting);
}

std::vector<api::FieldError> Validate(const PodTopologySpreadArgs& args) {
  std::vector<api::FieldError> errors;
  const std::string type_path = "defaultingType";
  if (args.defaulting_type != kSystemDefaulting && args.defaulting_type != kListDefaulting) {
    errors.push_back(
        NotSupported(type_path, args.defaulting_type, {kSystemDefaulting, kListDefaulting}));
  } else if (args.defaulting_type == kSystemDefaulting && !args.default_constraints.empty()) {
    errors.push_back(api::FieldError::Invalid(type_path, args.defaulting_type,
                                              "when .defaultConstraints are not empty"));
  }

  const std::string list_path = "defaultConstraints";
  for (size_t i = 0; i < args.default_constraints.size(); ++i) {
    const DefaultConstraint& c = args.default_constraints[i];
    const std::string path = api::IndexPath(list_path, i);
    if (c.max_skew <= 0) {
      errors.push_back(api::FieldError::InvalidRendered(api::ChildPath(path, "maxSkew"),
                                                        std::to_string(c.max_skew),
                                                        "not in valid range (0, inf)"));
    }
    const std::string key_path = api::ChildPath(path, "topologyKey");
    if (c.topology_key.empty()) {
      errors.push_back(api::FieldError::Required(key_path, "can not be empty"));
    } else {
      for (const std::string& message : api::LabelKeyErrors(c.topology_key)) {
        errors.push_back(api::FieldError::Invalid(key_path, c.topology_key, message));
      }
    }
    const std::string when_path = api::ChildPath(path, "whenUnsatisfiable");
    if (c.when_unsatisfiable.empty()) {
      errors.push_back(api::FieldError::Required(when_path, "can not be empty"));
    } else if (c.when_unsatisfiable != kDoNotSchedule && c.when_unsatisfiable != kScheduleAnyway) {
      // Upstream lists the supported actions sorted, which is also this order.
      errors.push_back(
          NotSupported(when_path, c.when_unsatisfiable, {kDoNotSchedule, kScheduleAnyway}));
    }
    if (c.has_label_selector) {
      errors.push_back(
          api::FieldError::Forbidden(api::ChildPath(path, "labelSelector"),
                                     "constraint must not define a selector, as they deduced for "
                                     "each pod"));
    }
    for (size_t j = 0; j < i; ++j) {
      const DefaultConstraint& other = args.default_constraints[j];
      if (other.topology_key == c.topology_key &&
          other.when_unsatisfiable == c.when_unsatisfiable) {
        // field.Duplicate, whose value is the "{key, action}" pair.
        errors.push_back(api::FieldError{
            api::FieldError::Type::kInvalid, path,
            "Duplicate value: " +
                api::GoQuote(fmt::format("{{{}, {}}}", c.topology_key, c.when_unsatisfiable))});
        break;
      }
    }
  }
  return errors;
}

bool LoadPodTopologySpreadArgs(const framework::PluginArgs& args, PodTopologySpreadArgs* out,
                               std::string* error) {
  return LoadArgs(args, out, error, DecodePodTopologySpreadArgs);
}

}  // namespace muster::plugins::podtopologyspread
