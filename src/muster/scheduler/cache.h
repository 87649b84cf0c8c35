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

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "muster/api/types.h"
#include "muster/framework/node_info.h"
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
  // The cached copy of a pod by namespace/name (assumed or added), or nullptr.
  const framework::PodInfo* GetPod(const std::string& key) const;

  void AddNode(const api::Node& node);
  void UpdateNode(const api::Node& node);
  void RemoveNode(const api::Node& node);

  // Brings `snapshot` up to date, copying only the node infos changed since its last update.
  void UpdateSnapshot(framework::Snapshot& snapshot);

  size_t NodeCount() const { return node_order_.size(); }
  size_t PodCount() const { return pod_states_.size(); }

 private:
  struct PodState {
    framework::PodInfoPtr info;
    api::Symbol node;
    bool assumed = false;
    bool binding_finished = false;
  };

  framework::NodeInfo& NodeInfoFor(api::Symbol node);
  void AddPodToNode(const framework::PodInfoPtr& info, api::Symbol node);
  void RemovePodFromNode(const framework::PodInfo& pod, api::Symbol node);
  void Touch(api::Symbol node);
  void RebuildOrder();
  // Keeps image_nodes_ in step with a node's images (`add` false: the node's images go away).
  void TrackImages(const api::Node& node, bool add);
  std::vector<framework::ImageState> ImageStatesOf(const api::Node& node) const;

  std::unordered_map<api::Symbol, framework::NodeInfo> nodes_;
  std::unordered_map<std::string, PodState> pod_states_;
  // Node names grouped by zone (insertion order), for upstream's zone-interleaved node order.
  std::vector<std::pair<std::string, std::vector<api::Symbol>>> zones_;
  std::vector<api::Symbol> node_order_;
  uint64_t generation_ = 0;
  std::vector<api::Symbol> dirty_;
  bool order_changed_ = true;
  // Image name -> its size and the nodes that have it, for ImageLocality's spread.
  std::map<std::string, std::pair<int64_t, std::vector<api::Symbol>>> image_nodes_;
};

// The zone of a node as upstream's GetZoneKey: region and zone labels joined; "" without them.
std::string ZoneKey(const api::Node& node);

}  // namespace muster::scheduler
