#include "muster/framework/node_store.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

namespace muster::framework {
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

void NodeStore::Touch(api::Symbol node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  it->second.set_generation(++generation_);
  dirty_.push_back(node);
}

void NodeStore::AddPod(const PodInfoPtr& info, api::Symbol node) {
  nodes_[node].AddPod(info);
  Touch(node);
}

void NodeStore::RemovePod(const PodInfo& pod, api::Symbol node) {
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

namespace {

// The distinct names of a node's images: a name listed twice counts the node once, as in
// upstream's set of nodes per image.
std::vector<std::string_view> ImageNames(const api::Node& node) {
  std::vector<std::string_view> names;
  for (const api::ContainerImage& image : node.status.images) {
    for (const std::string& name : image.names) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

void NodeStore::TrackImages(const api::Node& node, bool add) {
  for (std::string_view name : ImageNames(node)) {
    if (add) {
      ++images_[std::string(name)];
      continue;
    }
    auto it = images_.find(std::string(name));
    if (it != images_.end() && --it->second == 0) images_.erase(it);
  }
}

std::vector<ImageState> NodeStore::ImageStatesOf(const api::Node& node) const {
  std::vector<ImageState> states;
  for (const api::ContainerImage& image : node.status.images) {
    for (const std::string& image_name : image.names) {
      auto it = images_.find(image_name);
      if (it == images_.end()) continue;
      states.push_back(ImageState{image_name, image.size_bytes, it->second});
    }
  }
  return states;
}

void NodeStore::AddNode(const api::Node& node) {
  const api::Symbol name(node.metadata.name);
  NodeInfo& info = nodes_[name];
  if (info.node() != nullptr) {
    // Known already: listed in its zone and counted in its images.
    UpdateNode(node);
    return;
  }
  info.SetNode(std::make_shared<const api::Node>(node));
  TrackImages(node, true);
  const std::string zone = ZoneKey(node);
  auto z =
      std::find_if(zones_.begin(), zones_.end(), [&](const auto& e) { return e.first == zone; });
  if (z == zones_.end()) {
    zones_.emplace_back(zone, std::vector<api::Symbol>{name});
  } else {
    z->second.push_back(name);
  }
  order_changed_ = true;
  Touch(name);
}

void NodeStore::UpdateNode(const api::Node& node) {
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

void NodeStore::RemoveNode(const api::Node& node) {
  const api::Symbol name(node.metadata.name);
  auto it = nodes_.find(name);
  if (it == nodes_.end() || it->second.node() == nullptr) return;  // not listed
  // Listed under the zone of the node as the store has it.
  const std::string zone = ZoneKey(*it->second.node());
  for (auto& [key, names] : zones_) {
    if (key == zone) std::erase(names, name);
  }
  std::erase_if(zones_, [](const auto& z) { return z.second.empty(); });
  order_changed_ = true;
  TrackImages(*it->second.node(), false);
  if (it->second.pods().empty()) {
    nodes_.erase(it);
    dirty_.push_back(name);
  } else {
    it->second.RemoveNode();
    Touch(name);
  }
}

void NodeStore::RebuildOrder() {
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

void NodeStore::UpdateSnapshot(Snapshot& snapshot) {
  SnapshotBuilder builder(snapshot);
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
    const NodeInfo* old = snapshot.Get(name);
    if (old == nullptr) order_changed_ = true;
    it->second.SetImageStates(ImageStatesOf(*it->second.node()));
    // The lists hold the snapshot's copies, which Put assigns in place: only a node that joins
    // or leaves one changes it (upstream's condition).
    if (old == nullptr || old->has_pods_with_affinity() != it->second.has_pods_with_affinity() ||
        old->has_pods_with_required_anti_affinity() !=
            it->second.has_pods_with_required_anti_affinity()) {
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

}  // namespace muster::framework
