#pragma once

// VolumeBinding (upstream volumebinding and its binder): a pod's claims decide where it may run.
//  - PreFilter: every claim exists (not lost, not being deleted; an ephemeral volume's made for
//    the pod); an unbound claim of an Immediate class keeps the pod pending; Skip without claims.
//  - Filter: a bound claim's volume admits the node (its node affinity); each unbound claim of
//    a WaitForFirstConsumer class either matches an available volume (smallest that fits, by
//    class, size, access modes, volume mode, selector and node affinity) or can be provisioned
//    there (a provisioner, the class's allowedTopologies, CSI storage capacity).
//  - Score: with a `shape` (StorageCapacityScoring), the utilization of the volumes chosen.
//  - Reserve assumes the choice (the volume's claimRef, the claim's selected node), so that later
//    cycles do not give one volume to two pods; Unreserve forgets it; PreBind writes it and the
//    binding waits until the claims are bound (PreBindWait).

#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/storage.h"
#include "muster/framework/interface.h"
#include "muster/plugins/volumes/args.h"

namespace muster::plugins::volumes {

// Since kubernetes#129887 (1.33); "node(s) had volume node affinity conflict" before.
inline constexpr std::string_view kErrNodeConflict =
    "node(s) didn't match PersistentVolume's node affinity";
inline constexpr std::string_view kErrBindConflict =
    "node(s) didn't find available persistent volumes to bind";
inline constexpr std::string_view kErrNotEnoughSpace = "node(s) did not have enough free storage";
inline constexpr std::string_view kErrVolumeNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
inline constexpr std::string_view kErrUnboundImmediate =
    "pod has unbound immediate PersistentVolumeClaims";

class VolumeBinding final : public framework::PreFilterPlugin,
                            public framework::FilterPlugin,
                            public framework::PreScorePlugin,
                            public framework::ScorePlugin,
                            public framework::ReservePlugin,
                            public framework::PreBindPlugin,
                            public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kStateKey = "PreFilterVolumeBinding";

  // nullptr with *error when the args are bad.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  VolumeBinding(const VolumeBindingArgs& args, framework::Handle& handle);

  std::string_view Name() const override { return kVolumeBindingName; }
  const VolumeBindingArgs& args() const { return args_; }

  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  // Skip without a shape, or with nothing to score.
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<framework::NodeInfo* const> feasible) override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  framework::Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            api::Symbol node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                 api::Symbol node) override;
  // Writes what Reserve assumed (each chosen volume's claimRef, each claim's selected node),
  // then Wait; Skip when every claim was bound already.
  framework::Status PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                            api::Symbol node) override;
  // Success when PreBind will write (a claim to bind), Skip when every claim is bound already.
  framework::Status PreBindPreFlight(const framework::CycleState& state,
                                     const framework::PodInfo& pod,
                                     api::Symbol node) const override;
  // Success once the PV controller and the provisioner have bound every claim (volumeName and
  // the bind-completed annotation); an error when they undid the choice (a volume's claimRef
  // reset, a claim's selected node taken away by a provisioner that failed), when a volume
  // does not admit the node, or after bindTimeoutSeconds.
  framework::Status PreBindWait(framework::CycleState& state, const framework::PodInfo& pod,
                                api::Symbol node, api::Duration waited) override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  // The claim and the volume as this plugin sees them: the cluster's, or the one Reserve
  // assumed while the cluster still holds the version it was assumed on.
  const api::PersistentVolumeClaim* FindClaim(api::Symbol ns, api::Symbol name) const;
  const api::PersistentVolume* FindVolume(std::string_view name) const;

 private:
  template <typename T>
  struct Assumed {
    std::string base_version;  // the cluster's resourceVersion it was assumed on
    T object;
    std::string pod;  // the pod it was assumed for
  };

  // Drops what the cluster has moved past (written, or changed by someone else).
  void ForgetStale();

  // Constant after construction.
  VolumeBindingArgs args_;
  framework::Handle& handle_;
  // The shape's points, scores scaled to MaxNodeScore; empty: no scoring.
  std::vector<UtilizationShapePoint> shape_;
  // Written on the scheduling thread only (Reserve, Unreserve, PreFilter), read during Filter.
  std::map<std::string, Assumed<api::PersistentVolume>, std::less<>> assumed_volumes_;
  std::map<std::string, Assumed<api::PersistentVolumeClaim>, std::less<>> assumed_claims_;
};

}  // namespace muster::plugins::volumes
