#pragma once

// The four volume plugins of kube-scheduler's default profile, registered under their upstream
// names with the extension points upstream's implement, so that a profile naming them (enabling,
// disabling, reweighting, configuring VolumeBinding's args) builds exactly as it would upstream:
//   VolumeRestrictions  (volumerestrictions) PreFilter with AddPod/RemovePod, Filter
//   NodeVolumeLimits    (nodevolumelimits)   PreFilter, Filter
//   VolumeBinding       (volumebinding)      PreFilter, Filter, PreScore, Score, Reserve, PreBind
//   VolumeZone          (volumezone)         PreFilter, Filter
//
// Why they do nothing: muster models no volumes (no PersistentVolumes, claims, storage classes,
// CSI drivers, and pods carry no spec.volumes). Upstream, each of these plugins returns Skip from
// PreFilter for a pod that uses none of the volumes it checks, and then its Filter (and, for
// VolumeBinding, its Score) does not run, Reserve finds nothing to assume and PreBind nothing to
// bind. Every pod muster schedules is such a pod, so Skip from PreFilter and success elsewhere is
// exactly upstream's behaviour for it. None of them can reject a pod, so no cluster event can
// make a pod they rejected schedulable: they register none.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/framework/interface.h"
#include "muster/framework/registry.h"
#include "muster/plugins/volumes/args.h"

namespace muster::plugins::volumes {

inline constexpr std::string_view kVolumeRestrictionsName = "VolumeRestrictions";
inline constexpr std::string_view kNodeVolumeLimitsName = "NodeVolumeLimits";
inline constexpr std::string_view kVolumeZoneName = "VolumeZone";
// kVolumeBindingName is in args.h.

// Upstream: disk conflicts (GCE PD, AWS EBS, RBD, iSCSI volumes) and ReadWriteOncePod claims in
// use. No args.
class VolumeRestrictions final : public framework::PreFilterPlugin,
                                 public framework::PreFilterExtensions,
                                 public framework::FilterPlugin,
                                 public framework::EnqueueExtensions {
 public:
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kVolumeRestrictionsName; }
  // Skip: the pod has no volume to check.
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
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override { return {}; }
};

// Upstream CSILimits: the node's CSI attach limits against the pod's volumes. No args.
class NodeVolumeLimits final : public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::EnqueueExtensions {
 public:
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kNodeVolumeLimitsName; }
  // Skip: the pod has no claim, ephemeral or migratable inline volume.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override { return {}; }
};

// Upstream: binds the pod's claims to volumes (or provisions them) on the chosen node. Its args
// are decoded and validated (args.h) and otherwise unused.
class VolumeBinding final : public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::PreScorePlugin,
                            public framework::ScorePlugin,
                            public framework::ReservePlugin,
                            public framework::PreBindPlugin,
                            public framework::EnqueueExtensions {
 public:
  // nullptr with *error when the args are bad.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  explicit VolumeBinding(const VolumeBindingArgs& args) : args_(args) {}

  std::string_view Name() const override { return kVolumeBindingName; }
  const VolumeBindingArgs& args() const { return args_; }

  // Skip: the pod has no claim.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Skip: no static binding to score, and capacity scoring is gated off.
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<framework::NodeInfo* const> feasible) override;
  // 0, as upstream scores a node without volumes to bind.
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  // Success: every volume of the pod is (vacuously) bound.
  framework::Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            api::Symbol node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                 api::Symbol node) override;
  // Success: nothing to bind.
  framework::Status PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                            api::Symbol node) override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override { return {}; }

 private:
  // Constant after construction.
  VolumeBindingArgs args_;
};

// Upstream: the zones of the pod's bound volumes against the node's zone labels. No args.
class VolumeZone final : public framework::PreFilterPlugin,
                         public framework::FilterPlugin,
                         public framework::EnqueueExtensions {
 public:
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  std::string_view Name() const override { return kVolumeZoneName; }
  // Skip: the pod has no bound volume with topology.
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override { return {}; }
};

}  // namespace muster::plugins::volumes
