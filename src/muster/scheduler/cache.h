#pragma once

// The scheduler's cache of nodes and the pods on them (upstream internal/cache). It counts pods
// the scheduler has assumed onto a node before the API server confirms the binding, so that the
// next cycle sees the node's resources as taken.
//
// A pod's life in the cache:
//
//   +-------------------------------------------+  +----+
//   |                            Add            |  |    |
//   |                                           |  |    | Update
//   +      Assume                Add            v  v    |
//  Initial +--------> Assumed +------------+---> Added <--+
//   ^                +   +               |       +
//   |                |   |               |       |
//   |                |   |     Add       |       | Remove
//   |                |   |   +-----------+       |
//   |                |   +-> FinishBinding       |
//   |      Forget    |                           v
//   +<---------------+                        Deleted
//
//  - Assume: the scheduling cycle chose a node; the pod counts on it from now on.
//  - FinishBinding: the binding cycle is done; the pod stays assumed until the API server's
//    update arrives (Add), which confirms it (moving it if it was bound elsewhere).
//  - Forget: the binding cycle failed (or Permit rejected the pod); the node gets its room back.
//  - Add/Update/Remove: the informer's view of bound pods. An assumed pod that is removed is
//    forgotten.
// Assumed pods do not expire: muster's binding cycles always end in FinishBinding or Forget.
//
// Not thread-safe: the scheduler calls it from its one scheduling thread.

#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "muster/api/pod_name.h"
#include "muster/api/types.h"
#include "muster/framework/node_info.h"
#include "muster/framework/node_store.h"
#include "muster/framework/snapshot.h"
#include "muster/framework/status.h"

namespace muster::scheduler {

class Cache {
 public:
  framework::Status AssumePod(framework::PodInfoPtr pod);
  framework::Status FinishBinding(const api::Pod& pod);
  framework::Status ForgetPod(const api::Pod& pod);
  // A pod bound to a node, as the informer reports it. The cache keeps `info` itself: the
  // scheduler's store shares it.
  framework::Status AddPod(framework::PodInfoPtr info);
  framework::Status AddPod(const api::Pod& pod) { return AddPod(framework::PodInfo::Make(pod)); }
  framework::Status UpdatePod(const api::Pod& old_pod, framework::PodInfoPtr new_info);
  framework::Status UpdatePod(const api::Pod& old_pod, const api::Pod& new_pod) {
    return UpdatePod(old_pod, framework::PodInfo::Make(new_pod));
  }
  framework::Status RemovePod(const api::Pod& pod);
  bool IsAssumedPod(const api::Pod& pod) const;
  // The cached copy of a pod by its name (assumed or added), or nullptr.
  const framework::PodInfo* GetPod(api::PodName name) const;

  // A pod taken off its node for a what-if (a gang's preemption trial), with everything the
  // cache knew of it, so that PutBack restores it exactly.
  class TakenOut {
    friend class Cache;
    framework::PodInfoPtr info_;
    bool assumed_ = false;
    bool binding_finished_ = false;
  };
  // nullopt when the cache does not have the pod.
  std::optional<TakenOut> TakeOut(const api::Pod& pod);
  void PutBack(TakenOut taken);

  void AddNode(const api::Node& node);
  void UpdateNode(const api::Node& node);
  void RemoveNode(const api::Node& node);

  // Brings `snapshot` up to date, copying only the node infos changed since its last update.
  void UpdateSnapshot(framework::Snapshot& snapshot);

  size_t NodeCount() const { return nodes_.NodeCount(); }
  size_t PodCount() const { return pod_states_.size(); }
  size_t AssumedPodCount() const { return assumed_.size(); }

 private:
  // Keyed by the name of the pod it holds: a pod's state is replaced whole when its PodInfo is.
  struct PodState {
    framework::PodInfoPtr info;
    uint32_t name_hash = 0;  // of name(): api::ByPodName
    mutable bool assumed = false;
    mutable bool binding_finished = false;

    // `name` is the pod's, as the lookup before the insert hashed it.
    PodState(framework::PodInfoPtr pod, const api::HashedPodName& name, bool assumed,
             bool binding_finished)
        : info(std::move(pod)),
          name_hash(name.hash),
          assumed(assumed),
          binding_finished(binding_finished) {}
    api::PodName name() const { return api::PodName::Of(info->pod); }
    // The node the cache counts the pod on: the one its info names (an assumed pod's info is
    // the copy on the node it was assumed on).
    api::Symbol node() const { return info->pod.spec.node_name; }
  };
  using PodStates =
      std::unordered_set<PodState, api::ByPodName<PodState>, api::ByPodName<PodState>>;

  void Erase(PodStates::iterator it);

  framework::NodeStore nodes_;
  PodStates pod_states_;
  // The names of the assumed pods (views into their states' pods): a few, where pod_states_
  // holds every pod, so that asking whether a pod is assumed (every attempt does) stays in
  // cache.
  std::unordered_set<api::PodName, api::PodNameHash> assumed_;
};

}  // namespace muster::scheduler
