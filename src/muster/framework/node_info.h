#pragma once

// The scheduler's view of a pod and of a node with the pods on it (upstream framework.PodInfo and
// framework.NodeInfo). Built once per change by the cache and shared, immutable, with snapshots:
// a snapshot holds its own copy of a NodeInfo only for nodes that changed since it was taken.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "muster/api/resources.h"
#include "muster/api/types.h"

namespace muster::framework {

// A pod with what the hot path needs precomputed.
struct PodInfo {
  api::Pod pod;
  api::Resource requests;           // PodRequests: what Fit checks and the node accounts
  api::Resource non_zero_requests;  // PodRequests with defaults, for scoring (cpu and memory)
  bool has_affinity = false;            // required or preferred pod affinity/anti-affinity
  bool has_required_anti_affinity = false;

  static std::shared_ptr<const PodInfo> Make(api::Pod pod);

  std::string Key() const { return pod.metadata.Key(); }
};

using PodInfoPtr = std::shared_ptr<const PodInfo>;

// A used host port: (ip, protocol, port). An empty ip means 0.0.0.0 (every address).
struct HostPort {
  api::Symbol ip;
  api::Protocol protocol = api::Protocol::kTCP;
  int32_t port = 0;
  friend bool operator==(const HostPort&, const HostPort&) = default;
};

// Host ports in use on a node, with upstream HostPortInfo's conflict rule: same protocol and port,
// and either address is 0.0.0.0 or they are equal.
class HostPortInfo {
 public:
  void Add(const HostPort& p) { ports_.push_back(p); }
  void Remove(const HostPort& p);
  bool Conflicts(const HostPort& p) const;
  size_t size() const { return ports_.size(); }

 private:
  std::vector<HostPort> ports_;
};

// An image on a node and how many nodes of the cluster have it (for ImageLocality's spread).
struct ImageState {
  std::string name;
  int64_t size_bytes = 0;
  int32_t num_nodes = 0;
};

class NodeInfo {
 public:
  NodeInfo() = default;
  explicit NodeInfo(std::shared_ptr<const api::Node> node) { SetNode(std::move(node)); }

  const api::Node* node() const { return node_.get(); }
  const std::shared_ptr<const api::Node>& node_ptr() const { return node_; }
  api::Symbol name() const { return name_; }
  void SetNode(std::shared_ptr<const api::Node> node);
  void RemoveNode() { node_.reset(); }

  const std::vector<PodInfoPtr>& pods() const { return pods_; }
  const std::vector<PodInfoPtr>& pods_with_affinity() const { return pods_with_affinity_; }
  const std::vector<PodInfoPtr>& pods_with_required_anti_affinity() const {
    return pods_with_required_anti_affinity_;
  }
  const HostPortInfo& used_ports() const { return used_ports_; }
  const api::Resource& requested() const { return requested_; }
  const api::Resource& non_zero_requested() const { return non_zero_requested_; }
  const api::Resource& allocatable() const { return allocatable_; }
  const std::vector<ImageState>& image_states() const { return image_states_; }
  void SetImageStates(std::vector<ImageState> states) { image_states_ = std::move(states); }

  void AddPod(PodInfoPtr pod);
  // False when the pod (by namespace/name and uid) is not on this node.
  bool RemovePod(const api::Pod& pod);

  // Bumped on every change; the snapshot copies nodes whose generation moved.
  uint64_t generation() const { return generation_; }
  void set_generation(uint64_t g) { generation_ = g; }

 private:
  std::shared_ptr<const api::Node> node_;
  api::Symbol name_;
  std::vector<PodInfoPtr> pods_;
  std::vector<PodInfoPtr> pods_with_affinity_;
  std::vector<PodInfoPtr> pods_with_required_anti_affinity_;
  HostPortInfo used_ports_;
  api::Resource requested_;
  api::Resource non_zero_requested_;
  api::Resource allocatable_;
  std::vector<ImageState> image_states_;
  uint64_t generation_ = 0;
};

// The host ports a pod holds: its app containers' and its sidecars' (restartable init containers).
std::vector<HostPort> PodHostPorts(const api::Pod& pod);

}  // namespace muster::framework
