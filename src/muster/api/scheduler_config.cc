#include "muster/api/scheduler_config.h"

#include <fmt/format.h>

namespace muster::api {

std::vector<std::pair<std::string, std::string>> LeaderElectionProblems(
    const LeaderElectionConfig& l) {
  std::vector<std::pair<std::string, std::string>> problems;
  auto invalid = [&](std::string field, Duration value, std::string_view why) {
    problems.emplace_back(std::move(field),
                          fmt::format("Invalid value: \"{}\": {}", FormatDuration(value), why));
  };
  if (l.lease_duration <= Duration::zero()) {
    invalid("leaseDuration", l.lease_duration, "must be greater than zero");
  }
  if (l.renew_deadline <= Duration::zero()) {
    invalid("renewDeadline", l.renew_deadline, "must be greater than zero");
  }
  if (l.retry_period <= Duration::zero()) {
    invalid("retryPeriod", l.retry_period, "must be greater than zero");
  }
  if (l.lease_duration <= l.renew_deadline) {
    invalid("leaseDuration", l.renew_deadline, "LeaseDuration must be greater than RenewDeadline");
  }
  if (l.retry_period > Duration::zero() && l.renew_deadline * 5 <= l.retry_period * 6) {
    invalid("renewDeadline", l.renew_deadline,
            "renewDeadline must be greater than retryPeriod*JitterFactor (1.2)");
  }
  for (const auto& [field, value] : {std::pair<std::string, const std::string*>{
                                         "resourceLock", &l.resource_lock},
                                     {"resourceNamespace", &l.resource_namespace},
                                     {"resourceName", &l.resource_name}}) {
    if (value->empty()) {
      problems.emplace_back(field, fmt::format("Invalid value: \"\": {} is required", field));
    }
  }
  if (!l.resource_lock.empty() && l.resource_lock != "leases") {
    // The other locks (endpoints, configmaps and their *leases pairs) are gone from client-go.
    problems.emplace_back("resourceLock",
                          fmt::format("Unsupported value: \"{}\": supported values: \"leases\"",
                                      l.resource_lock));
  }
  return problems;
}

}  // namespace muster::api
