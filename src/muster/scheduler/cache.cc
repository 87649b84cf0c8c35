#include "muster/scheduler/cache.h"

#include <algorithm>

#include <fmt/format.h>

namespace muster::scheduler {

using framework::Status;

namespace {

const api::Symbol kZoneLabel("topology.kubernetes.io/zone");
const api::Symbol kRegionLabel("topology.kubernetes.io/region");
const api::Symbol kLegacyZoneLabel("failure-domain.beta.kubernetes.io/zone");
const api::Symbol kLegacyRegionLabel("failure-domain.beta.kubernetes.io/region");

}  // namespace

std::string ZoneKey(const api::Node& node) {
  const api::LabelSet& labels = node.metadata.labels;
  const api::Symbol* zone = labels.Get(kZoneLabel);
  if (zone == nullptr) zone = labels.Get(kLegacyZoneLabel);
  const api::Symbol* region = labels.Get(kRegionLabel);
  if (region == nullptr) region = labels.Get(kLegacyRegionLabel);
  if (zone == nullptr && region == nullptr) return "";
  // The separator cannot appear in a label value, so distinct pairs give distinct keys.
  return fmt::format("{}:\x1f:{}", region ? region->str() : "", zone ? zone->str() : "");
}

framework::NodeInfo& Cache::NodeInfoFor(api::Symbol node) { return nodes_[node]; }

void Cache::Touch(api::Symbol node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  it->second.set_generation(++generation_);
  dirty_.push_back(node);
}

void Cache::AddPodToNode(const framework::PodInfoPtr& info, api::Symbol node) {
  NodeInfoFor(node).AddPod(info);
  Touch(node);
}

void Cache::RemovePodFromNode(const framework::PodInfo& pod, api::Symbol node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  it->second.RemovePodInfo(&pod);
  Touch(node);
  // A node deleted while pods were still on it lingers (without its Node) until they go.
  if (it->second.node() == nullptr && it->second.pods().empty()) {
    nodes_.erase(it);
    dirty_.push_back(node);
  }
}

Status Cache::AssumePod(framework::PodInfoPtr pod) {
  const std::string key = pod->Key();
  if (pod_states_.contains(key)) {
    return Status::Error(fmt::format("pod {} is in the cache, so can't be assumed", key));
  }
  const api::Symbol node = pod->pod.spec.node_name;
  AddPodToNode(pod, node);
  pod_states_.emplace(key, PodState{std::move(pod), node, /*assumed=*/true, false});
  return Status::OK();
}

Status Cache::FinishBinding(const api::Pod& pod) {
  auto it = pod_states_.find(pod.metadata.Key());
  if (it != pod_states_.end() && it->second.assumed) it->second.binding_finished = true;
  return Status::OK();
}

Status Cache::ForgetPod(const api::Pod& pod) {
  const std::string key = pod.metadata.Key();
  auto it = pod_states_.find(key);
  if (it == pod_states_.end()) return Status::OK();
  if (!it->second.assumed) {
    return Status::Error(fmt::format("pod {} wasn't assumed so cannot be forgotten", key));
  }
  if (it->second.node != pod.spec.node_name) {
    return Status::Error(fmt::format("pod {} was assumed on {} but assigned to {}", key,
                                     it->second.node.str(), pod.spec.node_name.str()));
  }
  RemovePodFromNode(*it->second.info, it->second.node);
  pod_states_.erase(it);
  return Status::OK();
}

Status Cache::AddPod(framework::PodInfoPtr info) {
  const api::Pod& pod = info->pod;
  const std::string key = pod.metadata.Key();
  auto it = pod_states_.find(key);
  if (it != pod_states_.end()) {
    if (!it->second.assumed) return Status::Error(fmt::format("pod {} was already in added state", key));
    // The binding is confirmed. The pod may have been bound elsewhere than assumed.
    RemovePodFromNode(*it->second.info, it->second.node);
    pod_states_.erase(it);
  }
  const api::Symbol node = pod.spec.node_name;
  AddPodToNode(info, node);
  pod_states_.emplace(key, PodState{std::move(info), node, false, false});
  return Status::OK();
}

Status Cache::UpdatePod(const api::Pod& old_pod, framework::PodInfoPtr new_info) {
  const std::string key = old_pod.metadata.Key();
  auto it = pod_states_.find(key);
  if (it != pod_states_.end() && !it->second.assumed) {
    RemovePodFromNode(*it->second.info, it->second.node);
    pod_states_.erase(it);
  }
  // Not cached yet, or assumed (an update before the add: the confirmation), or re-added.
  return AddPod(std::move(new_info));
}

Status Cache::RemovePod(const api::Pod& pod) {
  auto it = pod_states_.find(pod.metadata.Key());
  if (it == pod_states_.end()) return Status::OK();
  RemovePodFromNode(*it->second.info, it->second.node);
  pod_states_.erase(it);
  return Status::OK();
}

bool Cache::IsAssumedPod(const api::Pod& pod) const {
  auto it = pod_states_.find(pod.metadata.Key());
  return it != pod_states_.end() && it->second.assumed;
}

const framework::PodInfo* Cache::GetPod(const std::string& key) const {
  auto it = pod_states_.find(key);
  return it == pod_states_.end() ? nullptr : it->second.info.get();
}

void Cache::TrackImages(const api::Node& node, bool add) {
  const api::Symbol name(node.metadata.name);
  for (const api::ContainerImage& image : node.status.images) {
    for (const std::string& image_name : image.names) {
      auto& [size, nodes] = image_nodes_[image_name];
      if (add) {
        if (nodes.empty()) size = image.size_bytes;
        if (std::find(nodes.begin(), nodes.end(), name) == nodes.end()) nodes.push_back(name);
      } else {
        std::erase(nodes, name);
      }
      // Every node with this image now sees a different count.
      for (api::Symbol other : nodes) Touch(other);
      if (nodes.empty()) image_nodes_.erase(image_name);
    }
  }
}

std::vector<framework::ImageState> Cache::ImageStatesOf(const api::Node& node) const {
  std::vector<framework::ImageState> states;
  for (const api::ContainerImage& image : node.status.images) {
    for (const std::string& image_name : image.names) {
      auto it = image_nodes_.find(image_name);
      if (it == image_nodes_.end()) continue;
      states.push_back(framework::ImageState{image_name, image.size_bytes,
                                             static_cast<int32_t>(it->second.second.size())});
    }
  }
  return states;
}

void Cache::AddNode(const api::Node& node) {
  const api::Symbol name(node.metadata.name);
  framework::NodeInfo& info = NodeInfoFor(name);
  info.SetNode(std::make_shared<const api::Node>(node));
  TrackImages(node, true);
  const std::string zone = ZoneKey(node);
  auto z = std::find_if(zones_.begin(), zones_.end(), [&](const auto& e) { return e.first == zone; });
  if (z == zones_.end()) {
    zones_.emplace_back(zone, std::vector<api::Symbol>{name});
  } else if (std::find(z->second.begin(), z->second.end(), name) == z->second.end()) {
    z->second.push_back(name);
  }
  order_changed_ = true;
  Touch(name);
}

void Cache::UpdateNode(const api::Node& node) {
  const api::Symbol name(node.metadata.name);
  auto it = nodes_.find(name);
  if (it == nodes_.end() || it->second.node() == nullptr) {
    AddNode(node);
    return;
  }
  if (ZoneKey(*it->second.node()) != ZoneKey(node)) {
    RemoveNode(*it->second.node());
    AddNode(node);
    return;
  }
  TrackImages(*it->second.node(), false);
  it->second.SetNode(std::make_shared<const api::Node>(node));
  TrackImages(node, true);
  Touch(name);
}

void Cache::RemoveNode(const api::Node& node) {
  const api::Symbol name(node.metadata.name);
  for (auto& [zone, names] : zones_) std::erase(names, name);
  std::erase_if(zones_, [](const auto& z) { return z.second.empty(); });
  order_changed_ = true;
  auto it = nodes_.find(name);
  if (it == nodes_.end()) return;
  if (it->second.node() != nullptr) TrackImages(*it->second.node(), false);
  if (it->second.pods().empty()) {
    nodes_.erase(it);
    dirty_.push_back(name);
  } else {
    it->second.RemoveNode();
    Touch(name);
  }
}

void Cache::RebuildOrder() {
  node_order_.clear();
  // Round-robin over zones, as upstream's node tree lists them, so that the first nodes the
  // scheduler examines are spread across zones.
  size_t longest = 0;
  for (const auto& z : zones_) longest = std::max(longest, z.second.size());
  for (size_t i = 0; i < longest; ++i) {
    for (const auto& z : zones_) {
      if (i < z.second.size()) node_order_.push_back(z.second[i]);
    }
  }
}

void Cache::UpdateSnapshot(framework::Snapshot& snapshot) {
  framework::SnapshotBuilder builder(snapshot);
  bool affinity_changed = false;
  std::sort(dirty_.begin(), dirty_.end());
  dirty_.erase(std::unique(dirty_.begin(), dirty_.end()), dirty_.end());
  for (api::Symbol name : dirty_) {
    auto it = nodes_.find(name);
    if (it == nodes_.end() || it->second.node() == nullptr) {
      builder.Erase(name);
      order_changed_ = true;
      continue;
    }
    const framework::NodeInfo* old = snapshot.Get(name);
    if (old == nullptr) order_changed_ = true;
    it->second.SetImageStates(ImageStatesOf(*it->second.node()));
    if (old == nullptr ||
        old->pods_with_affinity().size() != it->second.pods_with_affinity().size() ||
        old->pods_with_required_anti_affinity().size() !=
            it->second.pods_with_required_anti_affinity().size()) {
      affinity_changed = true;
    }
    builder.Put(it->second);
  }
  dirty_.clear();
  if (order_changed_) {
    RebuildOrder();
    builder.SetOrder(node_order_);
    order_changed_ = false;
  } else if (affinity_changed) {
    builder.RefreshAffinityLists();
  }
  builder.set_generation(generation_);
}

}  // namespace muster::scheduler
