#include "muster/plugins/interpodaffinity/args.h"

#include <cstdint>

#include <fmt/format.h>

#include "muster/plugins/interpodaffinity/inter_pod_affinity.h"

namespace muster::plugins::interpodaffinity {
namespace {

// A JSON boolean: a plain (unquoted) true or false, in the spellings YAML also accepts for them.
std::optional<bool> ReadBool(const ArgsObject& object, std::string_view field) {
  const YAML::Node node = object.Get(field);
  if (!IsPresent(node)) return std::nullopt;
  // yaml-cpp tags a quoted scalar "!": "true" in quotes is a string, as in JSON.
  if (node.IsScalar() && node.Tag() != "!") {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  object.errors().Add(object.FieldPath(field),
                      fmt::format("expected a boolean, got {}", DescribeYaml(node)));
  return std::nullopt;
}

}  // namespace

bool DecodeInterPodAffinityArgs(const YAML::Node& args, InterPodAffinityArgs* out,
                                ArgsErrors& errors) {
  const size_t before = errors.list().size();
  ArgsObject root(
      errors, args, "",
      {"apiVersion", "kind", "hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"});
  CheckArgsKind(root, kName);
  if (auto weight = root.Int("hardPodAffinityWeight", INT32_MIN, INT32_MAX)) {
    out->hard_pod_affinity_weight = static_cast<int32_t>(*weight);
  }
  if (auto ignore = ReadBool(root, "ignorePreferredTermsOfExistingPods")) {
    out->ignore_preferred_terms_of_existing_pods = *ignore;
  }
  return errors.list().size() == before;
}

void SetDefaults(InterPodAffinityArgs& args) {
  if (!args.hard_pod_affinity_weight) args.hard_pod_affinity_weight = kDefaultHardPodAffinityWeight;
}

std::vector<api::FieldError> Validate(const InterPodAffinityArgs& args) {
  std::vector<api::FieldError> errors;
  const int32_t w = args.hard_pod_affinity_weight.value_or(kDefaultHardPodAffinityWeight);
  if (w < kMinHardPodAffinityWeight || w > kMaxHardPodAffinityWeight) {
    errors.push_back(api::FieldError::InvalidRendered(
        "hardPodAffinityWeight", std::to_string(w),
        fmt::format("not in valid range [{}, {}]", kMinHardPodAffinityWeight,
                    kMaxHardPodAffinityWeight)));
  }
  return errors;
}

bool LoadInterPodAffinityArgs(const framework::PluginArgs& args, InterPodAffinityArgs* out,
                              std::string* error) {
  return LoadArgs(args, out, error, DecodeInterPodAffinityArgs);
}

}  // namespace muster::plugins::interpodaffinity
