#pragma once

// Gangs: pods of one namespace that are placed together or not at all. Each gang API says which
// gang a pod belongs to (GangOf) and which gangs its objects define (the `gangs` of its row in
// Kinds()). The layers above read a GangRef and GangDefinitions, never the API's own types, so
// that a second gang API is a producer of them, not a change to their readers.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "muster/api/kinds.h"

namespace muster::api {

// The gang a pod belongs to: the kind that defines it and its name in the pod's namespace.
struct GangRef {
  static constexpr uint8_t kNone = 0xff;

  // The defining kind's place in ClusterKinds (kClusterKindIndex), or kNone: in no gang.
  uint8_t kind = kNone;
  Symbol name;

  bool empty() const { return kind == kNone; }
  // Whether the gang is one the kind T defines.
  template <typename T>
  bool Of() const {
    return kind == kClusterKindIndex<T>;
  }

  friend bool operator==(const GangRef&, const GangRef&) = default;
};
static_assert(ClusterKinds::size < GangRef::kNone);

// The gang `pod` belongs to, from whichever API names it: spec.schedulingGroup (a
// scheduling.k8s.io PodGroup), spec.workloadRef (a v1alpha1 Workload's pod group, named
// "<workload>/<group>", with "/<replica key>" when the pod has one), or scheduler-plugins'
// PodGroup label (PodGroupName), in that order. Gang names of different kinds can be told apart
// in one namespace: only a Workload's contain '/'; the two PodGroup kinds share names, and a
// namespace should not hold one of each with the same name.
GangRef GangOf(const Pod& pod);

// How many of a gang's members can be scheduled, or are: bound, or without scheduling gates.
int32_t SchedulableMembers(const std::vector<const Pod*>& members);

// The name of the gang definition (GangsDefinedBy) that `gang` is an instance of: its name,
// without the replica key of a Workload's gang.
Symbol GangDefinitionName(const GangRef& gang);

// The gangs `object` defines; none when its kind is not a gang API's.
std::vector<GangDefinition> GangsDefinedBy(const AnyObject& object);

// What a scheduler's preemption evicts `pod` with (KEP-5710's disruption modes, KEP-6012's
// trees): the highest group above it whose disruption mode is All, a scheduling.k8s.io PodGroup
// or a CompositePodGroup it descends from (an All above overrides a Single below, as upstream),
// or its scheduler-plugins PodGroup, whose gangs always go whole; empty: the pod goes alone.
// `priority`, when given, is set to the priority of the highest group that sets one from the
// unit up (a tree's priority is its root's), the same for every pod of the unit. `objects` has
// Get<T>(namespace, name); a parent that is
// missing, or a chain longer than kMaxGroupParents, ends the walk there.
inline constexpr int kMaxGroupParents = 16;
template <typename Objects>
GangRef EvictionUnit(const Pod& pod, const Objects& objects,
                     std::optional<int32_t>* priority = nullptr) {
  const GangRef gang = GangOf(pod);
  const Symbol ns = pod.metadata.namespace_;
  if (gang.Of<PodGroup>()) {
    return objects.template Get<PodGroup>(ns, gang.name) != nullptr ? gang : GangRef{};
  }
  if (!gang.Of<SchedulingPodGroup>()) return GangRef{};
  const auto* group = objects.template Get<SchedulingPodGroup>(ns, gang.name);
  if (group == nullptr) return GangRef{};
  GangRef unit;
  // The unit's priority comes from its own level and those above, which all its pods share.
  std::optional<int32_t> unit_priority;
  auto visit = [&](const PodGroupPolicy& policy, const GangRef& at) {
    if (policy.disruption_mode == DisruptionMode::kPodGroup) {
      unit = at;
      unit_priority = policy.priority;
    } else if (policy.priority) {
      unit_priority = policy.priority;
    }
  };
  visit(group->spec.policy, gang);
  Symbol parent = group->spec.parent;
  for (int i = 0; !parent.empty() && i < kMaxGroupParents; ++i) {
    const auto* composite = objects.template Get<CompositePodGroup>(ns, parent);
    if (composite == nullptr) break;
    visit(composite->spec.policy,
          GangRef{static_cast<uint8_t>(kClusterKindIndex<CompositePodGroup>), parent});
    parent = composite->spec.parent;
  }
  if (priority != nullptr && !unit.empty()) *priority = unit_priority;
  return unit;
}

}  // namespace muster::api
