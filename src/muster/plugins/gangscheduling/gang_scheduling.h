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
// Its events: a pod added to the group, the group (or Workload) added or updated.

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

 private:
  // The gang's members the scheduler knows: not terminal, not being deleted.
  std::vector<const api::Pod*> Members(const api::Pod& pod, const api::GangRef& gang) const;
  framework::QueueingHint OnPodAdded(const api::Pod& pod,
                                     const framework::EventObjects& event) const;
  framework::QueueingHint OnGroupChanged(const api::Pod& pod,
                                         const framework::EventObjects& event) const;

  framework::Handle& handle_;
};

}  // namespace muster::plugins::gangscheduling
