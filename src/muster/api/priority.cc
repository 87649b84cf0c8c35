#include "muster/api/priority.h"

#include <fmt/format.h>

namespace muster::api {
namespace {

PriorityClass SystemClass(std::string_view name, int32_t value) {
  PriorityClass pc;
  pc.metadata.name = std::string(name);
  pc.value = value;
  return pc;
}

}  // namespace

PriorityResolver::PriorityResolver(std::span<const PriorityClass> classes)
    : classes_(classes.begin(), classes.end()) {
  classes_.push_back(SystemClass(kSystemClusterCritical, kSystemCriticalPriority));
  classes_.push_back(SystemClass(kSystemNodeCritical, kSystemCriticalPriority + 1000));
  for (const PriorityClass& pc : classes_) {
    if (pc.global_default && (global_default_ == nullptr || pc.value < global_default_->value)) {
      global_default_ = &pc;
    }
  }
}

const PriorityClass* PriorityResolver::Find(std::string_view name) const {
  for (const PriorityClass& pc : classes_) {
    if (pc.metadata.name == name) return &pc;
  }
  return nullptr;
}

std::string PriorityResolver::Admit(Pod& pod) const {
  int32_t value = 0;
  std::optional<PreemptionPolicy> policy;
  if (!pod.spec.priority_class_name.empty()) {
    const PriorityClass* pc = Find(pod.spec.priority_class_name.str());
    if (pc == nullptr) {
      return fmt::format("no PriorityClass with name {} was found",
                         pod.spec.priority_class_name.str());
    }
    value = pc->value;
    policy = pc->preemption_policy;
  } else if (global_default_ != nullptr) {
    value = global_default_->value;
    policy = global_default_->preemption_policy;
  }
  if (pod.spec.priority.has_value() && *pod.spec.priority != value) {
    return fmt::format(
        "the integer value of priority ({}) must not be provided in pod spec; priority admission "
        "controller computed {} from the given PriorityClass name",
        *pod.spec.priority, value);
  }
  pod.spec.priority = value;
  if (!pod.spec.preemption_policy.has_value()) {
    pod.spec.preemption_policy = policy.value_or(PreemptionPolicy::kPreemptLowerPriority);
  }
  return "";
}

std::string ValidatePriorityClass(const PriorityClass& pc) {
  const bool system_name = pc.metadata.name.starts_with("system-");
  if (system_name && pc.metadata.name != kSystemClusterCritical &&
      pc.metadata.name != kSystemNodeCritical) {
    return "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved";
  }
  if (pc.value > kHighestUserDefinablePriority && !system_name) {
    return fmt::format("value: Forbidden: maximum allowed value of a user defined priority is {}",
                       kHighestUserDefinablePriority);
  }
  return "";
}

}  // namespace muster::api
