#include <algorithm>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "muster/scheduler/cycle.h"
#include "muster/scheduler/group_placement.h"
#include "muster/scheduler/scheduler.h"

// The scheduler's half of gang-aware preemption: the trial the profile's GroupPostFilterPlugin
// works on. Pods taken out leave the cache (and the snapshot) until put back; the gang's members
// are placed as the whole-group cycle places them (TrialPlace). Whatever is still out when the
// trial ends goes back, so the cache leaves the trial as it came in.

namespace muster::scheduler {

class Scheduler::GangTrial final : public framework::GroupTrial {
 public:
  GangTrial(Scheduler& scheduler, const framework::Framework& fwk, const framework::Gang& gang,
            std::span<const framework::PodInfo* const> members, int32_t assigned)
      : s_(scheduler), fwk_(fwk), gang_(gang), members_(members), assigned_(assigned) {}
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
  framework::TrialResult PlaceMembers(std::span<const framework::TrialPlacement> fixed) override {
    framework::TrialResult result;
    if (fixed.empty() && (gang_.composite() || !gang_.topology_key.empty())) {
      PlaceTree(&result);
      return result;
    }
    result.placements = s_.TrialPlace(fwk_, members_, fixed, nullptr);
    const auto placed = static_cast<int32_t>(result.placements.size());
    result.whole = fixed.empty() ? assigned_ + placed >= gang_.min_count
                                 : result.placements.size() == fixed.size();
    return result;
  }
  int32_t assigned() const override { return assigned_; }

 private:
  // A composite group's tree, or a gang held to one domain of its topology key, placed as the
  // group cycle places a tree (a TreePlacer: every domain tried, as kubernetes#140683 runs the
  // placement algorithm in the trial), each member assumed while placed, then forgotten.
  void PlaceTree(framework::TrialResult* result) {
    // Not held to the domain the cycle chose: the trial chooses again.
    const std::unordered_set<uint32_t> cycle_placement = std::exchange(s_.placement_, {});
    const std::string cycle_placement_name = std::exchange(s_.placement_name_, {});
    std::vector<framework::PodInfoPtr> on_node(members_.size());
    Scheduler::TreePlacer::Hooks hooks;
    hooks.place = [&](size_t i) {
      framework::CycleState state;
      Diagnosis diagnosis;
      api::Symbol host;
      if (!s_.SchedulePod(fwk_, state, *members_[i], &host, &diagnosis).IsSuccess()) {
        return Scheduler::TreePlacer::Tried::kFailed;
      }
      framework::PodInfoPtr pod = framework::PodInfo::OnNode(*members_[i], host);
      if (!s_.cache_.AssumePod(pod).IsSuccess()) return Scheduler::TreePlacer::Tried::kFailed;
      on_node[i] = std::move(pod);
      return Scheduler::TreePlacer::Tried::kPlaced;
    };
    hooks.undo = [&](size_t i) {
      s_.cache_.ForgetPod(on_node[i]->pod);
      on_node[i].reset();
    };
    hooks.why_not = [](std::span<const size_t>) { return std::string(); };
    Scheduler::TreePlacer tree(s_, gang_, std::move(hooks));
    for (size_t i = 0; i < members_.size(); ++i) tree.Add(i, *members_[i]);
    std::string why;
    result->whole = tree.Place(&why);
    if (!result->whole) result->why = std::move(why);
    for (const size_t i : tree.placed()) {
      result->placements.push_back({members_[i], on_node[i]->pod.spec.node_name});
      s_.cache_.ForgetPod(on_node[i]->pod);
    }
    s_.cache_.UpdateSnapshot(s_.snapshot_);
    s_.placement_ = cycle_placement;
    s_.placement_name_ = cycle_placement_name;
  }

  Scheduler& s_;
  const framework::Framework& fwk_;
  const framework::Gang& gang_;
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
    GangTrial trial(*this, fwk, gang, members, assigned);
    status = plugin.PostFilterGroup(gang, members, trial, trace, &result);
  }
  *nominations = std::move(result.nominations);
  return status;
}

}  // namespace muster::scheduler
