#include "muster/plugins/defaultpreemption/args.h"

#include <string>

namespace muster::plugins::defaultpreemption {
namespace {

constexpr std::string_view kPercentageField = "minCandidateNodesPercentage";
constexpr std::string_view kAbsoluteField = "minCandidateNodesAbsolute";

}  // namespace

bool DecodeDefaultPreemptionArgs(const YAML::Node& args, DefaultPreemptionArgs* out,
                                 ArgsErrors& errors) {
  const size_t before = errors.list().size();
  ArgsObject root(errors, args, "", {"apiVersion", "kind", kPercentageField, kAbsoluteField});
  CheckArgsKind(root, kName);
  // The v1 fields are int32: a value outside that range does not decode.
  if (auto v = root.Int(kPercentageField, INT32_MIN, INT32_MAX)) {
    out->min_candidate_nodes_percentage = static_cast<int32_t>(*v);
  }
  if (auto v = root.Int(kAbsoluteField, INT32_MIN, INT32_MAX)) {
    out->min_candidate_nodes_absolute = static_cast<int32_t>(*v);
  }
  return errors.list().size() == before;
}

std::vector<api::FieldError> Validate(const DefaultPreemptionArgs& args) {
  std::vector<api::FieldError> errors;
  const std::string percentage_path(kPercentageField);
  const std::string absolute_path(kAbsoluteField);
  const int32_t percentage = args.min_candidate_nodes_percentage;
  const int32_t absolute = args.min_candidate_nodes_absolute;
  if (percentage < 0 || percentage > 100) {
    errors.push_back(api::FieldError::InvalidRendered(percentage_path, std::to_string(percentage),
                                                      "not in valid range [0, 100]"));
  }
  if (absolute < 0) {
    errors.push_back(api::FieldError::InvalidRendered(absolute_path, std::to_string(absolute),
                                                      "not in valid range [0, inf)"));
  }
  if (percentage == 0 && absolute == 0) {
    errors.push_back(api::FieldError::InvalidRendered(
        percentage_path, "0", "cannot be zero at the same time as minCandidateNodesAbsolute"));
    errors.push_back(api::FieldError::InvalidRendered(
        absolute_path, "0", "cannot be zero at the same time as minCandidateNodesPercentage"));
  }
  return errors;
}

bool LoadDefaultPreemptionArgs(const framework::PluginArgs& args, DefaultPreemptionArgs* out,
                               std::string* error) {
  ArgsErrors errors(args.error_prefix);
  // Validation runs only on args that decoded, as a type error leaves a field at its default.
  if (DecodeDefaultPreemptionArgs(args.args, out, errors)) {
    for (const api::FieldError& e : Validate(*out)) errors.Add(e);
  }
  if (errors.empty()) return true;
  *error = errors.Joined();
  return false;
}

}  // namespace muster::plugins::defaultpreemption
