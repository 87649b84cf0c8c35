#pragma once

// The four volume plugins of kube-scheduler's default profile, with upstream's semantics
// (pkg/scheduler/framework/plugins/{volumerestrictions, nodevolumelimits, volumebinding,
// volumezone}), their verdicts, messages and events:
//   VolumeRestrictions  PreFilter with AddPod/RemovePod, Filter: in-tree disk conflicts and
//                       ReadWriteOncePod claims in use
//   NodeVolumeLimits    PreFilter, Filter: the node's CSI attach limits (CSINode)
//   VolumeBinding       PreFilter, Filter, PreScore, Score, Reserve, PreBind: claims bound,
//                       matched to volumes or provisioned on the chosen node (volume_binding.h)
//   VolumeZone          PreFilter, Filter: the zones of the pod's bound volumes
// A pod without the volumes a plugin checks is skipped at its PreFilter, and costs nothing more.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"
#include "muster/plugins/volumes/args.h"

namespace muster::plugins::volumes {

inline constexpr std::string_view kVolumeRestrictionsName = "VolumeRestrictions";
inline constexpr std::string_view kNodeVolumeLimitsName = "NodeVolumeLimits";
inline constexpr std::string_view kVolumeZoneName = "VolumeZone";
// kVolumeBindingName is in args.h.

inline constexpr std::string_view kErrDiskConflict = "node(s) had no available disk";
inline constexpr std::string_view kErrReadWriteOncePodConflict =
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";
inline constexpr std::string_view kErrMaxVolumeCount = "node(s) exceed max volume count";
inline constexpr std::string_view kErrNoVolumeZone = "node(s) had no available volume zone";

// Disk conflicts between in-tree volumes (GCE PD, AWS EBS, RBD, iSCSI) of the pod and of those on
// the node, and ReadWriteOncePod claims another pod already uses. Both are Unschedulable:
// preemption can end the conflict. No args.
class VolumeRestrictions final : public framework::PreFilterPlugin,
                                 public framework::PreFilterExtensions,
                                 public framework::FilterPlugin,
                                 public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kStateKey = "PreFilterVolumeRestrictions";

  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);
  explicit VolumeRestrictions(framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return kVolumeRestrictionsName; }
  // UnschedulableAndUnresolvable when a claim does not exist; Skip when the pod has neither an
  // in-tree disk to check nor a ReadWriteOncePod claim in use.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  const framework::PreFilterExtensions* Extensions() const override { return this; }
  framework::Status AddPod(framework::CycleState& state, const framework::PodInfo& pod_to_schedule,
                           const framework::PodInfo& pod_to_add,
                           const framework::NodeInfo& node) const override;
  framework::Status RemovePod(framework::CycleState& state,
                              const framework::PodInfo& pod_to_schedule,
                              const framework::PodInfo& pod_to_remove,
                              const framework::NodeInfo& node) const override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Pods deleted (hint: their volumes or claims were the conflict), nodes added, claims added.
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  framework::Handle& handle_;
};

// The node's CSI attach limits (CSINode allocatable.count per driver, and the legacy
// attachable-volumes-* allocatable) against the volumes the pod would add: its claims' CSI
// volumes and its in-tree volumes CSI migration moves to a driver, a volume already attached
// there for another pod not counted twice. The node's VolumeAttachments of persistent CSI
// volumes count too (since 1.32, kubernetes#127757), whether attached yet or still detaching,
// unless a pod on the node already counts the volume; as upstream, one for the pod's own
// volume counts beside it. No args.
class NodeVolumeLimits final : public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::EnqueueExtensions {
 public:
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);
  // Reads the VolumeLimitScaling gate once, as upstream's plugin does when it is made.
  explicit NodeVolumeLimits(framework::Handle& handle);

  // A node's VolumeAttachments of persistent volumes: the driver and the volume's name.
  struct NodeAttachment {
    std::string attacher;
    api::Symbol volume;
  };
  using AttachmentsByNode = std::unordered_map<api::Symbol, std::vector<NodeAttachment>>;

  std::string_view Name() const override { return kNodeVolumeLimitsName; }
  // Skip: the pod has no claim, ephemeral volume or migratable in-tree volume. Else works out
  // the volumes the pod needs attached, once for every node.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // With VolumeLimitScaling (KEP-5030; beta, on in 1.37), a node whose CSINode does not list a
  // driver the pod needs is turned away when that driver's CSIDriver asks for it
  // (spec.preventPodSchedulingIfMissing), before any counting.
  // CSINodes added or updated, assigned pods deleted (hint: they had volumes), claims added,
  // VolumeAttachments deleted (hint: the pod has a claim).
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  // The VolumeAttachments by node, rebuilt when their table changes.
  std::shared_ptr<const AttachmentsByNode> CurrentAttachments();

  framework::Handle& handle_;
  const bool volume_limit_scaling_;
  uint64_t attachments_version_ = ~uint64_t{0};
  std::shared_ptr<const AttachmentsByNode> attachments_;
};

// The zones and regions of the pod's bound volumes (their topology labels) against the node's.
// No args.
class VolumeZone final : public framework::PreFilterPlugin,
                         public framework::FilterPlugin,
                         public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kStateKey = "PreFilterVolumeZone";

  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);
  explicit VolumeZone(framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return kVolumeZoneName; }
  // UnschedulableAndUnresolvable when a claim, class or volume is missing, or an Immediate claim
  // is unbound; Skip when no bound volume has topology labels.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

 private:
  framework::Handle& handle_;
};

}  // namespace muster::plugins::volumes
