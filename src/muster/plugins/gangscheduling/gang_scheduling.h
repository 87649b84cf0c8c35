#pragma once

// GangScheduling (upstream pkg/scheduler/framework/plugins/gangscheduling): Kubernetes' own gang
// API (KEP-4671), every version of it:
//   - 1.35, scheduling.k8s.io/v1alpha1: a pod names a Workload's pod group in spec.workloadRef;
//     the group's policy is in the Workload, and each podGroupReplicaKey is a gang of its own;
//   - 1.36 and 1.37, v1alpha2, v1alpha3 and v1beta1: a pod names a PodGroup in
//     spec.schedulingGroup.podGroupName; the PodGroup carries the policy, and its status the
//     PodGroupScheduled (v1alpha2) or PodGroupInitiallyScheduled (later) condition.
// A group with the gang policy is placed all or nothing, a `basic` one pod by pod.
//
//   PreEnqueue  keeps a pod out of the queue while its group does not exist or, for a gang,
//               while fewer than minCount of its pods exist (upstream's messages);
//   GroupOf     names the gang, so that the scheduler places it in one whole-group cycle
//               (framework::GroupPlugin): its pending members against one snapshot, kept only
//               when minCount of them fit, nothing held otherwise. That is upstream's pod group
//               scheduling cycle of 1.36 and later, where 1.35 held members at Permit instead.
// With the CompositePodGroup feature gate (1.37, alpha), a PodGroup may name a parent
// CompositePodGroup: the tree under the root is placed as one gang, each composite when
// minGroupCount of its children are (each as its own policy says), and a member waits at
// PreEnqueue until the whole tree could meet its quorum, as upstream's hierarchy.
// Its events: a pod added to the group, the group (or Workload) added or updated, a composite
// group added.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::gangscheduling {

inline constexpr std::string_view kName = "GangScheduling";

class GangScheduling final : public framework::PreEnqueuePlugin,
                             public framework::EnqueueExtensions,
                             public framework::GroupPlugin {
 public:
  explicit GangScheduling(framework::Handle& handle) : handle_(handle) {}

  // The plugin has no args; any given are ignored, as upstream ignores args of plugins that
  // have no args type.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kName; }

  framework::Status PreEnqueue(const api::Pod& pod) override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  bool Handles(const api::GangRef& gang) const override;
  // The pod's gang; nullopt when its group is `basic`, or missing (PreEnqueue holds those).
  std::optional<framework::Gang> GroupOf(const framework::PodInfo& pod) override;
  // Enough members, and enough of them without scheduling gates.
  framework::Status PreFilterGroup(const framework::Gang& gang,
                                   std::span<framework::NodeInfo* const> nodes) override;

  // What the pod's group says of its scheduling, and where its status goes; nullopt with
  // *why (PreEnqueue's message) when the group does not exist.
  struct Group {
    const api::PodGroupPolicy* policy = nullptr;
    const api::SchedulingPodGroup* pod_group = nullptr;  // null for a v1alpha1 Workload's
    const api::Workload* workload = nullptr;             // null for a PodGroup
  };
  std::optional<Group> GroupOfPod(const api::Pod& pod, std::string* why) const;

  // The root of the tree a pod group whose parent is `parent` is in, following parents; null
  // with *why (upstream's message) when one of them does not exist or the parents loop.
  const api::CompositePodGroup* RootOf(api::Symbol ns, api::Symbol parent, std::string* why) const;

 private:
  // A composite group's children, groups and composites, by creation time (then name).
  struct Child {
    const api::SchedulingPodGroup* group = nullptr;
    const api::CompositePodGroup* composite = nullptr;
  };
  std::vector<Child> ChildrenOf(const api::CompositePodGroup& composite) const;
  // Whether the tree under `composite` could meet its quorum with the pods that exist (a group
  // has minCount pods, or one for a basic group; a composite minGroupCount such children, one
  // for a basic one). `pod`, not yet listed perhaps, counts in its own group.
  bool TreeReady(const api::CompositePodGroup& composite, const api::Pod& pod) const;
  // The gang of a group (a tree's leaf) and of a composite group's whole tree.
  framework::Gang LeafGang(const api::SchedulingPodGroup& group) const;
  framework::Gang TreeGang(const api::CompositePodGroup& composite) const;
  // The root of the tree the pod's group is in, or null (no such group, or a root itself);
  // *missing, when given: whether the group has a parent but its tree cannot be built.
  const api::CompositePodGroup* RootOfPod(const api::Pod& pod, bool* missing = nullptr) const;

  // The gang's members the scheduler knows: not terminal, not being deleted.
  std::vector<const api::Pod*> Members(const api::Pod& pod, const api::GangRef& gang) const;
  std::vector<const api::Pod*> Members(api::Symbol ns, const api::GangRef& gang) const;
  framework::QueueingHint OnPodAdded(const api::Pod& pod,
                                     const framework::EventObjects& event) const;
  framework::QueueingHint OnGroupChanged(const api::Pod& pod,
                                         const framework::EventObjects& event) const;

  framework::Handle& handle_;
  // A pod added to a tree is asked about by every held member of the tree: the tree's
  // readiness is worked out once per added pod, not once per member.
  struct ReadyMemo {
    const api::Pod* added = nullptr;
    std::string added_key;
    const api::CompositePodGroup* root = nullptr;
    bool ready = false;
  };
  mutable ReadyMemo ready_memo_;
};

}  // namespace muster::plugins::gangscheduling
