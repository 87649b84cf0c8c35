#include "muster/sim/controllers/job.h"

#include <algorithm>

#include <fmt/format.h>

namespace muster::sim::controllers {
namespace {

constexpr api::Duration kFirstPodFailureBackoff = std::chrono::seconds(10);
constexpr api::Duration kMaxPodFailureBackoff = std::chrono::minutes(10);

// The pod's first condition that one of the patterns names, type and status alike.
const api::Condition* MatchingCondition(
    const api::Pod& pod, const std::vector<api::PodFailurePolicyOnPodConditionsPattern>& patterns) {
  for (const api::Condition& c : pod.status.conditions) {
    for (const auto& pattern : patterns) {
      if (c.type.str() == pattern.type && c.status.str() == pattern.status) return &c;
    }
  }
  return nullptr;
}

}  // namespace

PodFailureVerdict MatchPodFailurePolicy(const std::optional<api::PodFailurePolicy>& policy,
                                        const api::Pod& pod) {
  if (!policy) return {};
  for (size_t i = 0; i < policy->rules.size(); ++i) {
    const api::PodFailurePolicyRule& rule = policy->rules[i];
    const api::Condition* condition = MatchingCondition(pod, rule.on_pod_conditions);
    if (condition == nullptr) continue;
    switch (rule.action) {
      case api::PodFailurePolicyAction::kIgnore:
        return {.counts = false};
      case api::PodFailurePolicyAction::kFailJob:
        return {.fail_job = fmt::format(
                    "Pod {}/{} has condition {} matching FailJob rule at index {}",
                    pod.metadata.namespace_.str(), pod.metadata.name, condition->type.str(), i)};
      default:
        // Count, and FailIndex (which needs backoffLimitPerIndex, refused at decoding).
        return {};
    }
  }
  return {};
}

api::Duration PodFailureBackoff(int32_t failures) {
  if (failures <= 0) return api::Duration::zero();
  api::Duration backoff = kFirstPodFailureBackoff;
  for (int32_t i = 1; i < failures && backoff < kMaxPodFailureBackoff; ++i) backoff *= 2;
  return std::min(backoff, kMaxPodFailureBackoff);
}

std::string FormatIndexes(const std::vector<bool>& done) {
  std::string out;
  for (size_t first = 0; first < done.size(); ++first) {
    if (!done[first]) continue;
    size_t last = first;
    while (last + 1 < done.size() && done[last + 1]) ++last;
    if (!out.empty()) out += ",";
    out += std::to_string(first);
    if (last > first) out += fmt::format("{}{}", last == first + 1 ? "," : "-", last);
    first = last;
  }
  return out;
}

}  // namespace muster::sim::controllers
