#pragma once

// Kubernetes' feature gates as kube-scheduler 1.37 reads them (upstream DefaultFeatureGate and
// --feature-gates): the gates whose behaviour muster models, at 1.37's defaults unless a
// command's --feature-gates sets them, and the other gates kube-scheduler knows, which muster
// accepts and says it does not model.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace muster::api {

// The gates whose behaviour muster models.
enum class Feature : uint8_t {
  kPodLevelResources,                        // KEP-2837: beta, on since 1.34
  kInPlacePodVerticalScaling,                // KEP-1287: GA in 1.35, locked on
  kInPlacePodLevelResourcesVerticalScaling,  // the pod's own resize figures: beta, on in 1.36
  kSchedulerPopFromBackoffQ,                 // KEP-5142: beta, on since 1.33
  kNominatedNodeNameForExpectation,          // KEP-5278: beta, on since 1.35
  kDRASchedulerFilterTimeout,             // DynamicResourcesArgs.filterTimeout: beta, on since 1.34
  kTaintTolerationComparisonOperators,    // KEP-5471, tolerations' Lt and Gt: alpha, off
  kNodeDeclaredFeatures,                  // KEP-5328: GA in 1.37, locked on
  kVolumeLimitScaling,                    // KEP-5030, CSI drivers missing: beta, on in 1.37
  kContainerRestartRules,                 // KEP-5307, containers' restart rules: beta, on
  kRestartAllContainersOnContainerExits,  // KEP-5532, RestartAllContainers: beta, on in 1.36
  kDRADeviceBindingConditions,            // KEP-5007, devices' binding conditions: beta, on
  kDRAResourceClaimDeviceStatus,          // KEP-4817, claims' status.devices: GA in 1.37, locked
  kTopologyAwareWorkloadScheduling,       // KEP-5732, a group's topology constraint: alpha, off
  kCompositePodGroup,                     // KEP-6012, groups of groups: alpha, off in 1.37
  kCount,
};

enum class FeatureStage : uint8_t { kAlpha, kBeta, kGA, kDeprecated };

struct FeatureSpec {
  std::string_view name;
  bool default_on;
  FeatureStage stage;
  bool locked;  // GA (or deprecated) and locked to its default: it cannot be set otherwise
};

const FeatureSpec& SpecOf(Feature feature);

class FeatureGates {
 public:
  FeatureGates();  // 1.37's defaults

  bool Enabled(Feature feature) const { return enabled_[static_cast<size_t>(feature)]; }
  void Set(Feature feature, bool on) { enabled_[static_cast<size_t>(feature)] = on; }

  // Applies a --feature-gates value ("A=true,B=false") as kube-scheduler does: an unknown gate, a
  // value that is not a boolean or a locked gate set against its lock is an error (kube-scheduler's
  // message) and changes nothing. A gate kube-scheduler knows and muster does not model is
  // accepted and named in *warnings. A gate on whose dependencies are off is an error too.
  bool Apply(std::string_view spec, std::string* error, std::vector<std::string>* warnings);

 private:
  std::array<bool, static_cast<size_t>(Feature::kCount)> enabled_{};
};

// The process's gates (upstream DefaultFeatureGate): 1.37's defaults until a command's
// --feature-gates sets them, before anything is decoded or scheduled.
const FeatureGates& Features();
void SetFeatures(const FeatureGates& gates);

// Sets the process's gates for its lifetime and restores the previous ones after (tests).
class ScopedFeatures {
 public:
  explicit ScopedFeatures(const FeatureGates& gates) : saved_(Features()) { SetFeatures(gates); }
  ~ScopedFeatures() { SetFeatures(saved_); }
  ScopedFeatures(const ScopedFeatures&) = delete;
  ScopedFeatures& operator=(const ScopedFeatures&) = delete;

 private:
  FeatureGates saved_;
};

}  // namespace muster::api
