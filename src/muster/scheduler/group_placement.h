#pragma once

// Placing groups, shared by the group cycle (group_cycle.cc) and a gang's preemption trial
// (group_preemption.cc): the domains of a topology key, and a composite group's tree placed
// from its root down. Private to the scheduler.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "muster/scheduler/scheduler.h"

namespace muster::scheduler {

// How much of the domain's room is left free, averaged over cpu, memory and the extended
// resources the gang asks for: 0 when the domain is full, 1 when it is empty.
double FreeShare(const framework::Snapshot& snapshot, const std::vector<api::Symbol>& nodes,
                 const std::vector<api::Symbol>& scalars);

// The domains of `key` among the snapshot's nodes (only those in `within`, unless it is
// empty), by value, in order; *held: the domains members already on a node are in, which hold
// the group to theirs (only it is returned when there is one).
std::map<std::string, std::vector<api::Symbol>> DomainsOf(
    const framework::Snapshot& snapshot, api::Symbol key,
    const std::unordered_set<uint32_t>& within, const std::vector<const api::Pod*>& members,
    std::set<std::string>* held);

// Restricts the cycle's placements to one domain's nodes, named `key=value` in messages.
void Restrict(std::unordered_set<uint32_t>& placement, std::string& placement_name, api::Symbol key,
              const std::string& value, const std::vector<api::Symbol>& nodes);

// Adds the extended resources `pod` asks for to *scalars (each once), for FreeShare.
void AddScalars(const framework::PodInfo& pod, std::vector<api::Symbol>* scalars);

// A composite group's tree (KEP-6012), placed from its root down, greedily as upstream: each
// composite tries its children in order (groups by their own policy, composites recursively)
// and is placed when minGroupCount of them are (one for a basic composite), its subtree undone
// otherwise; a topology constraint puts its subtree in one domain of the key, within its
// parent's, each domain tried and the tightest fit kept. A gang that is no tree but has a
// topology constraint is placed as a one-group tree. The placer decides which member is
// tried when and what is undone; its caller's Hooks do the placing, so that the group cycle
// (members assumed and reserved for good) and a preemption trial (assumed, then forgotten)
// place a tree alike. Members are the caller's indices, tried in index order within a group.
class Scheduler::TreePlacer {
 public:
  enum class Tried {
    kPlaced,  // on a node, until undone
    kFailed,  // fits nowhere now: stays in its group's pool
    kGone,    // neither (turned away for good this cycle): leaves the pool
  };
  struct Hooks {
    // Tries member i on the cluster as it is now.
    std::function<Tried(size_t)> place;
    // Takes member i off its node; always the last placed.
    std::function<void(size_t)> undo;
    // Why these members of a group did not fit, for its message ("" when no one asks).
    std::function<std::string(std::span<const size_t>)> why_not;
  };
  // A leaf group of the tree: its members not placed, those on a node before the cycle, those
  // tried, and what became of it.
  struct Group {
    std::vector<size_t> pool;
    int32_t assigned = 0;
    int32_t attempted = 0;
    bool placed = false;
    std::string message;
  };

  TreePlacer(Scheduler& scheduler, const framework::Gang& root, Hooks hooks);
  TreePlacer(const TreePlacer&) = delete;
  TreePlacer& operator=(const TreePlacer&) = delete;

  // A pending member of the tree (of the leaf group pod.gang names); `pod` outlives the placer.
  void Add(size_t member, const framework::PodInfo& pod);
  // Places the tree; true when its root is placed. *why: the root's message (how many groups
  // placed, or down the tree to the first group that fell short).
  bool Place(std::string* why);

  std::map<api::Symbol, Group>& groups() { return groups_; }
  // The members placed, in the order they were.
  const std::vector<size_t>& placed() const { return placed_; }

 private:
  Group& GroupOf(size_t member);
  bool PlaceNode(const framework::Gang& node, std::string* why);
  bool PlaceBody(const framework::Gang& node, std::string* why);
  bool PlaceGroup(const framework::Gang& leaf, std::string* why);
  bool PlaceComposite(const framework::Gang& node, std::string* why);
  // Undoes the placements after the first `mark`, their members back to their pools.
  void UndoTo(size_t mark);
  // UndoTo(mark), and every leaf of `node` placed before says it fit but `why`.
  void Unplace(const framework::Gang& node, size_t mark, const std::string& why);

  Scheduler& s_;
  const framework::Gang& root_;
  Hooks hooks_;
  std::map<api::Symbol, Group> groups_;
  std::vector<size_t> placed_;
  // Each member's pod, by index.
  std::vector<const framework::PodInfo*> pods_;
};

}  // namespace muster::scheduler
