#pragma once

// ImageLocality (upstream pkg/scheduler/framework/plugins/imagelocality): favours nodes that
// already hold the pod's container images, weighting each image by its size and by how widely it
// has spread across the cluster (so that one node holding a popular image does not attract every
// pod that uses it).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "muster/framework/handle.h"
#include "muster/framework/interface.h"
#include "muster/framework/registry.h"

namespace muster::plugins::imagelocality {

inline constexpr std::string_view kName = "ImageLocality";

inline constexpr int64_t kMB = 1024 * 1024;
// The score range's bounds: typical compressed image sizes (upstream minThreshold and
// maxContainerThreshold; the upper bound is per container of the pod).
inline constexpr int64_t kMinThreshold = 23 * kMB;
inline constexpr int64_t kMaxContainerThreshold = 1000 * kMB;

// The name a container runtime reports for `image` (upstream normalizedImageName): ":latest"
// appended when the reference names no tag or digest. Registries are not filled in: a pod that
// says "nginx" matches a node reporting "nginx:latest", not "docker.io/library/nginx:latest".
std::string NormalizedImageName(std::string_view image);

// The score of a node whose images the pod uses add up to `sum_scores` (upstream
// calculatePriority): clamped to [kMinThreshold, kMaxContainerThreshold * num_containers] and
// scaled to [0, 100].
int64_t CalculatePriority(int64_t sum_scores, int num_containers);

class ImageLocality final : public framework::ScorePlugin {
 public:
  // The plugin has no args; any given are ignored. It reads the cluster's node count from the
  // handle's snapshot.
  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);

  explicit ImageLocality(const framework::Handle& handle) : handle_(handle) {}

  std::string_view Name() const override { return kName; }

  // For each container (init containers included) whose image the node holds, the image's size
  // times the share of the cluster's nodes that hold it; summed and scaled by CalculatePriority.
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  framework::Status ScoreNodes(const framework::CycleState& state, const framework::PodInfo& pod,
                               std::span<framework::NodeInfo* const> nodes,
                               std::span<framework::NodeScore> scores) const override;

 private:
  // Constant after construction; its snapshot is read concurrently by Score.
  const framework::Handle& handle_;
};

}  // namespace muster::plugins::imagelocality
