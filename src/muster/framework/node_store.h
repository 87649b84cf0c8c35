#pragma once

// The nodes of a cluster and the pods placed on them, kept as NodeInfos, and the snapshot they
// bring up to date: the node half of upstream's scheduler cache (its node tree, which lists
// nodes with zones interleaved, and its image states). The scheduler's cache adds assumed pods
// on top of it; plugin tests build their snapshots with it alone.
//
// Not thread-safe.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "muster/api/types.h"
#include "muster/framework/node_info.h"
#include "muster/framework/snapshot.h"

namespace muster::framework {

class NodeStore {
 public:
  void AddNode(const api::Node& node);
  void UpdateNode(const api::Node& node);
  // A node removed while pods are still on it lingers, without its Node, until they go.
  void RemoveNode(const api::Node& node);
  // `info` counts on `node` (a NodeInfo is made for a node not seen yet).
  void AddPod(const PodInfoPtr& info, api::Symbol node);
  // Removes the entry that is `pod` itself (the pointer AddPod was given).
  void RemovePod(const PodInfo& pod, api::Symbol node);

  // Brings `snapshot` up to date, copying only the node infos changed since its last update.
  void UpdateSnapshot(Snapshot& snapshot);
  // The nodes known now (not only as of the last UpdateSnapshot, which orders them).
  size_t NodeCount() const {
    size_t n = 0;
    for (const auto& zone : zones_) n += zone.second.size();
    return n;
  }

 private:
  // Marks the node changed: the next UpdateSnapshot copies it.
  void Touch(api::Symbol node);
  void RebuildOrder();
  // Keeps images_ in step with a node's images (`add` false: the node's images go away).
  void TrackImages(const api::Node& node, bool add);
  std::vector<ImageState> ImageStatesOf(const api::Node& node) const;

  // A node is listed in zones_ and counted in images_ exactly when its NodeInfo has a node().
  std::unordered_map<api::Symbol, NodeInfo> nodes_;
  // Node names grouped by zone (insertion order), for upstream's zone-interleaved node order.
  std::vector<std::pair<std::string, std::vector<api::Symbol>>> zones_;
  std::vector<api::Symbol> node_order_;
  uint64_t generation_ = 0;
  std::vector<api::Symbol> dirty_;
  bool order_changed_ = true;
  // Image name -> how many nodes have it, for ImageLocality's spread. A node's ImageStates take
  // the counts when the node is copied into the snapshot, as upstream's NodeInfo.Snapshot does:
  // a node that did not change keeps the counts of its last copy (re-copying every node that has
  // an image whenever another node with it comes or goes made a cluster's first listing
  // quadratic in its nodes).
  std::unordered_map<std::string, int32_t> images_;
};

// The zone of a node as upstream's GetZoneKey: region and zone labels joined; "" without them.
std::string ZoneKey(const api::Node& node);

}  // namespace muster::framework
