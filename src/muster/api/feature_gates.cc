#include "muster/api/feature_gates.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

namespace muster::api {
namespace {

constexpr std::array<FeatureSpec, static_cast<size_t>(Feature::kCount)> kModelled = {{
    {"PodLevelResources", true, FeatureStage::kBeta, false},
    {"InPlacePodVerticalScaling", true, FeatureStage::kGA, true},
    {"InPlacePodLevelResourcesVerticalScaling", true, FeatureStage::kBeta, false},
    {"SchedulerPopFromBackoffQ", true, FeatureStage::kBeta, false},
    {"NominatedNodeNameForExpectation", true, FeatureStage::kBeta, false},
    {"DRASchedulerFilterTimeout", true, FeatureStage::kBeta, false},
    {"TaintTolerationComparisonOperators", false, FeatureStage::kAlpha, false},
    {"NodeDeclaredFeatures", true, FeatureStage::kGA, true},
    {"VolumeLimitScaling", true, FeatureStage::kBeta, false},
    {"ContainerRestartRules", true, FeatureStage::kBeta, false},
    {"RestartAllContainersOnContainerExits", true, FeatureStage::kBeta, false},
    {"DRADeviceBindingConditions", true, FeatureStage::kBeta, false},
    {"DRAResourceClaimDeviceStatus", true, FeatureStage::kGA, true},
    {"TopologyAwareWorkloadScheduling", false, FeatureStage::kAlpha, false},
    {"CompositePodGroup", false, FeatureStage::kAlpha, false},
}};

// The other gates of kube-scheduler 1.37 that bear on scheduling, and what muster does with
// each: decides as with it at `muster_on` whatever it is set to (a setting against that is
// refused), or, `internal`, changes only how kube-scheduler works, not what it decides
// (accepted, and said to change nothing here).
struct OtherGate {
  FeatureSpec spec;
  bool muster_on;
  bool internal;
};
constexpr OtherGate kOthers[] = {
    {{"SchedulerQueueingHints", true, FeatureStage::kGA, true}, true, false},
    {{"SchedulerAsyncPreemption", true, FeatureStage::kBeta, false}, false, true},
    {{"SchedulerAsyncAPICalls", false, FeatureStage::kBeta, false}, false, true},
    {{"OpportunisticBatching", true, FeatureStage::kBeta, false}, false, true},
    {{"InterPodAffinityHostnameFastPath", false, FeatureStage::kAlpha, false}, false, true},
    {{"SchedulerPreQueueingHints", false, FeatureStage::kAlpha, false}, false, true},
    {{"StorageCapacityScoring", true, FeatureStage::kBeta, false}, true, false},
    {{"DynamicResourceAllocation", true, FeatureStage::kGA, true}, true, false},
    {{"GenericWorkload", false, FeatureStage::kBeta, false}, true, false},
    {{"GangScheduling", false, FeatureStage::kAlpha, false}, true, false},
    {{"SchedulerPreEnqueuePodStatus", true, FeatureStage::kBeta, false}, true, false},
    {{"DRAExtendedResource", true, FeatureStage::kGA, true}, true, false},
    {{"DRAWorkloadResourceClaims", false, FeatureStage::kBeta, false}, false, false},
    {{"InPlacePodVerticalScalingSchedulerPreemption", false, FeatureStage::kAlpha, false},
     false,
     false},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Go's strconv.ParseBool.
std::optional<bool> ParseBool(std::string_view v) {
  for (std::string_view t : {"1", "t", "T", "true", "TRUE", "True"}) {
    if (v == t) return true;
  }
  for (std::string_view f : {"0", "f", "F", "false", "FALSE", "False"}) {
    if (v == f) return false;
  }
  return std::nullopt;
}

FeatureGates& Process() {
  static FeatureGates gates;
  return gates;
}

}  // namespace

const FeatureSpec& SpecOf(Feature feature) { return kModelled[static_cast<size_t>(feature)]; }

FeatureGates::FeatureGates() {
  for (size_t i = 0; i < kModelled.size(); ++i) enabled_[i] = kModelled[i].default_on;
}

bool FeatureGates::Apply(std::string_view spec, std::string* error,
                         std::vector<std::string>* warnings) {
  FeatureGates next = *this;
  std::vector<std::string> said;
  while (!spec.empty()) {
    const size_t comma = spec.find(',');
    const std::string_view item = Trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      *error = fmt::format("missing bool value for {}", item);
      return false;
    }
    const std::string_view name = Trim(item.substr(0, eq));
    const std::string_view value = Trim(item.substr(eq + 1));
    const std::optional<bool> on = ParseBool(value);
    if (!on) {
      *error = fmt::format(
          "invalid value of {}={}, err: strconv.ParseBool: parsing \"{}\": "
          "invalid syntax",
          name, value, value);
      return false;
    }
    auto locked = [&](const FeatureSpec& s) {
      *error = fmt::format("cannot set feature gate {} to {}, feature is locked to {}", s.name, *on,
                           s.default_on);
      return false;
    };
    auto modelled = std::find_if(kModelled.begin(), kModelled.end(),
                                 [&](const FeatureSpec& s) { return s.name == name; });
    if (modelled != kModelled.end()) {
      if (modelled->locked && *on != modelled->default_on) return locked(*modelled);
      next.enabled_[static_cast<size_t>(modelled - kModelled.begin())] = *on;
      continue;
    }
    auto other = std::find_if(std::begin(kOthers), std::end(kOthers),
                              [&](const OtherGate& g) { return g.spec.name == name; });
    if (other == std::end(kOthers)) {
      *error = fmt::format("unrecognized feature gate: {}", name);
      return false;
    }
    if (other->spec.locked && *on != other->spec.default_on) return locked(other->spec);
    if (other->internal) {
      said.push_back(
          fmt::format("--feature-gates: {} changes how kube-scheduler works, not what "
                      "it decides: muster accepts it and decides the same",
                      name));
      continue;
    }
    if (*on != other->muster_on) {
      *error = fmt::format(
          "{}={}: muster decides as kube-scheduler does with {}={} and cannot "
          "change it",
          name, *on, name, other->muster_on);
      return false;
    }
  }
  // Upstream's gate says it: "Enabling the CompositePodGroup feature gate requires that the
  // GenericWorkload and TopologyAwareWorkloadScheduling feature gates are enabled as well"
  // (GenericWorkload muster keeps on). kube-scheduler then logs a configuration error and
  // leaves composite groups alone; a command line here says so and stops.
  if (next.Enabled(Feature::kCompositePodGroup) &&
      !next.Enabled(Feature::kTopologyAwareWorkloadScheduling)) {
    *error =
        "CompositePodGroup=true requires TopologyAwareWorkloadScheduling=true as well "
        "(upstream's dependency between the two gates)";
    return false;
  }
  *this = next;
  if (warnings != nullptr) warnings->insert(warnings->end(), said.begin(), said.end());
  return true;
}

const FeatureGates& Features() { return Process(); }

void SetFeatures(const FeatureGates& gates) { Process() = gates; }

}  // namespace muster::api
