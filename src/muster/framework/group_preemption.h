#pragma once

// Preemption for a gang as a whole (KEP-5710's workload-aware preemption; upstream's
// PodGroupPostFilter). When a gang's whole-group cycle falls short of its quorum, the scheduler
// hands the gang to the profile's GroupPostFilterPlugin (DefaultPreemption) together with a
// GroupTrial: a what-if of the cluster in which pods can be taken off their nodes and the gang's
// pending members placed as the cycle places them. The plugin chooses the victims for the gang
// across nodes, evicts them and names a node for each member to nominate; its members then
// preempt nothing one by one.
//
// A GroupPostFilterPlugin is also a PostFilterPlugin of the profile: the profile finds it among
// its PostFilter plugins once, as they are installed (Framework::group_post_filter).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/snapshot.h"

namespace muster::framework {

// A member of the gang and the node a trial placed it on.
struct TrialPlacement {
  const PodInfo* pod = nullptr;
  api::Symbol node;
};

// What a trial's placement came to.
struct TrialResult {
  // Where each member placed went, in the order placed.
  std::vector<TrialPlacement> placements;
  // Whether the gang is placed whole: with the members on a node before the trial, its quorum
  // (a composite group's tree: its root placed); with `fixed`, every member listed.
  bool whole = false;
  // A composite group's tree not placed whole: why (the cycle's message for the tree).
  std::string why;
};

// The scheduler's what-if of one gang's placement. Pods taken out stay out until put back; the
// trial puts back whatever is still out when it ends. Scheduling thread only.
class GroupTrial {
 public:
  virtual ~GroupTrial() = default;

  // The cluster as the trial has it now (without the pods taken out).
  virtual const Snapshot& snapshot() = 0;
  // Takes `pod` off its node (bound, or assumed: binding or waiting at Permit); false when the
  // scheduler does not have it on a node.
  virtual bool TakeOut(const api::Pod& pod) = 0;
  // Puts a pod taken out back on its node, as it was.
  virtual void PutBack(const api::Pod& pod) = 0;
  // Places the gang's pending members as the cycle does (in its order, each seeing those placed
  // before it; a composite group's tree from its root down, a subtree that falls short undone)
  // and undoes the placements before returning them. With `fixed` (an earlier call's
  // placements), each member is tried only on the node it had there, and a member it does not
  // list is not placed.
  virtual TrialResult PlaceMembers(std::span<const TrialPlacement> fixed) = 0;
  // Members on a node before the trial (bound, or assumed): they count towards the quorum with
  // the placements.
  virtual int32_t assigned() const = 0;
};

struct GroupPostFilterResult {
  // The node to nominate for each member placed; empty when nothing was preempted.
  std::vector<TrialPlacement> nominations;
};

class GroupPostFilterPlugin {
 public:
  virtual ~GroupPostFilterPlugin() = default;
  // Success with result->nominations once the victims are evicted; Unschedulable when
  // preemption cannot help the gang or it may not preempt (nothing is evicted then), with the
  // reason for the gang's message; UnschedulableAndUnresolvable when nothing of lower priority
  // runs (nothing worth saying); Error when an eviction failed. `pending` are the members the
  // cycle tried to place, in its order.
  virtual Status PostFilterGroup(const Gang& gang, std::span<const PodInfo* const> pending,
                                 GroupTrial& trial, AttemptTrace* trace,
                                 GroupPostFilterResult* result) = 0;
};

}  // namespace muster::framework
