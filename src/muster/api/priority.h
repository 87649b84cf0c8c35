#pragma once

#include <span>
#include <string>
#include <vector>

#include "muster/api/types.h"

namespace muster::api {

// The built-in classes every cluster has.
inline constexpr std::string_view kSystemClusterCritical = "system-cluster-critical";
inline constexpr std::string_view kSystemNodeCritical = "system-node-critical";

// What the Priority admission plugin does when a pod is created (upstream
// plugin/pkg/admission/priority): the pod's spec.priority and spec.preemptionPolicy come from its
// priorityClassName, or from the global default class (the lowest-valued one if several claim to
// be), or are 0 and PreemptLowerPriority. The classes are the user's plus the two system classes.
class PriorityResolver {
 public:
  explicit PriorityResolver(std::span<const PriorityClass> classes);

  // Sets spec.priority and spec.preemptionPolicy on `pod`. Returns an error message, leaving the
  // pod unchanged, when the class does not exist or spec.priority disagrees with it, as the API
  // server would refuse the pod.
  std::string Admit(Pod& pod) const;

  const PriorityClass* Find(std::string_view name) const;

 private:
  std::vector<PriorityClass> classes_;
  const PriorityClass* global_default_ = nullptr;
};

// Validation of a PriorityClass as the API server does it. Empty when valid.
std::string ValidatePriorityClass(const PriorityClass& pc);

}  // namespace muster::api
