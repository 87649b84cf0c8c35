#include "muster/framework/trace.h"

namespace muster::framework {

void AttemptTrace::RecordFilter(const std::string& node, int plugin, const Status& verdict) {
  const std::lock_guard lock(mu_);
  NodeFilter& record = filtered_[node];
  if (!record.verdicts.empty() && plugin <= record.verdicts.back().plugin) {
    record.verdicts.clear();
    record.rejected_with_nominated = false;
  }
  record.verdicts.push_back(Verdict{plugin, verdict.code(), verdict.Message()});
}

void AttemptTrace::NominatedPass(const std::string& node, int nominated_pods, bool passed) {
  const std::lock_guard lock(mu_);
  NodeFilter& record = filtered_[node];
  record.nominated_pods = nominated_pods;
  record.rejected_with_nominated = !passed;
}

}  // namespace muster::framework
