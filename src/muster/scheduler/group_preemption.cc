#include <algorithm>
#include <utility>
#include <vector>

#include "muster/scheduler/scheduler.h"

// The scheduler's half of gang-aware preemption: the trial the profile's GroupPostFilterPlugin
// works on. Pods taken out leave the cache (and the snapshot) until put back; the gang's members
// are placed as the whole-group cycle places them (TrialPlace). Whatever is still out when the
// trial ends goes back, so the cache leaves the trial as it came in.

namespace muster::scheduler {

class Scheduler::GangTrial final : public framework::GroupTrial {
 public:
  GangTrial(Scheduler& scheduler, const framework::Framework& fwk,
            std::span<const framework::PodInfo* const> members, int32_t assigned)
      : s_(scheduler), fwk_(fwk), members_(members), assigned_(assigned) {}
  GangTrial(const GangTrial&) = delete;
  GangTrial& operator=(const GangTrial&) = delete;
  ~GangTrial() override {
    for (Cache::TakenOut& taken : out_) s_.cache_.PutBack(std::move(taken));
    s_.cache_.UpdateSnapshot(s_.snapshot_);
  }

  const framework::Snapshot& snapshot() override {
    s_.cache_.UpdateSnapshot(s_.snapshot_);
    return s_.snapshot_;
  }
  bool TakeOut(const api::Pod& pod) override {
    std::optional<Cache::TakenOut> taken = s_.cache_.TakeOut(pod);
    if (!taken) return false;
    keys_.push_back(pod.metadata.Key());
    out_.push_back(std::move(*taken));
    return true;
  }
  void PutBack(const api::Pod& pod) override {
    const auto it = std::find(keys_.begin(), keys_.end(), pod.metadata.Key());
    if (it == keys_.end()) return;
    const auto i = it - keys_.begin();
    s_.cache_.PutBack(std::move(out_[i]));
    keys_.erase(it);
    out_.erase(out_.begin() + i);
  }
  std::vector<framework::TrialPlacement> PlaceMembers(
      std::span<const framework::TrialPlacement> fixed) override {
    return s_.TrialPlace(fwk_, members_, fixed, nullptr);
  }
  int32_t assigned() const override { return assigned_; }

 private:
  Scheduler& s_;
  const framework::Framework& fwk_;
  std::span<const framework::PodInfo* const> members_;
  const int32_t assigned_;
  // The pods out, by key (same order).
  std::vector<std::string> keys_;
  std::vector<Cache::TakenOut> out_;
};

framework::Status Scheduler::PreemptForGroup(framework::GroupPostFilterPlugin& plugin,
                                             const framework::Framework& fwk,
                                             const framework::Gang& gang,
                                             std::span<const framework::PodInfo* const> members,
                                             int32_t assigned, framework::AttemptTrace* trace,
                                             std::vector<framework::TrialPlacement>* nominations) {
  framework::GroupPostFilterResult result;
  framework::Status status;
  {
    GangTrial trial(*this, fwk, members, assigned);
    status = plugin.PostFilterGroup(gang, members, trial, trace, &result);
  }
  *nominations = std::move(result.nominations);
  return status;
}

}  // namespace muster::scheduler
