#include "muster/plugins/imagelocality/image_locality.h"

#include <span>
#include <vector>

namespace muster::plugins::imagelocality {
namespace {

constexpr std::string_view kLatestSuffix = ":latest";

// Upstream's test: the last ':' (if any) does not come after the last '/' (if any), so the
// reference has no tag ("gcr.io:5000/root" is a registry port, not a tag).
bool NeedsDefaultTag(std::string_view image) {
  const size_t colon = image.rfind(':');
  if (colon == std::string_view::npos) return true;
  const size_t slash = image.rfind('/');
  return slash != std::string_view::npos && colon <= slash;
}

// Whether `reported` (a name in the node's status) is NormalizedImageName(image), without
// building the normalized string: Score runs per node and must not allocate.
bool SameImage(std::string_view reported, std::string_view image) {
  if (!NeedsDefaultTag(image)) return reported == image;
  return reported.size() == image.size() + kLatestSuffix.size() && reported.starts_with(image) &&
         reported.ends_with(kLatestSuffix);
}

const framework::ImageState* FindImage(std::span<const framework::ImageState> states,
                                       std::string_view image) {
  for (const framework::ImageState& s : states) {
    if (SameImage(s.name, image)) return &s;
  }
  return nullptr;
}

// Upstream scaledImageScore, with its floating-point steps, so that rounding matches.
int64_t ScaledImageScore(const framework::ImageState& state, size_t total_nodes) {
  const double spread = static_cast<double>(state.num_nodes) / static_cast<double>(total_nodes);
  return static_cast<int64_t>(static_cast<double>(state.size_bytes) * spread);
}

}  // namespace

std::string NormalizedImageName(std::string_view image) {
  std::string name(image);
  if (NeedsDefaultTag(image)) name += kLatestSuffix;
  return name;
}

int64_t CalculatePriority(int64_t sum_scores, int num_containers) {
  const int64_t max_threshold = kMaxContainerThreshold * num_containers;
  if (sum_scores < kMinThreshold) {
    sum_scores = kMinThreshold;
  } else if (sum_scores > max_threshold) {
    sum_scores = max_threshold;
  }
  return framework::kMaxNodeScore * (sum_scores - kMinThreshold) / (max_threshold - kMinThreshold);
}

std::unique_ptr<framework::Plugin> ImageLocality::New(const framework::PluginArgs& /*args*/,
                                                      framework::Handle& handle,
                                                      std::string* /*error*/) {
  return std::make_unique<ImageLocality>(handle);
}

framework::Status ImageLocality::Score(const framework::CycleState& state,
                                       const framework::PodInfo& pod,
                                       const framework::NodeInfo& node, int64_t* score) const {
  return framework::ScoreOneNode(*this, state, pod, node, score);
}

framework::Status ImageLocality::ScoreNodes(const framework::CycleState& /*state*/,
                                            const framework::PodInfo& pod,
                                            std::span<framework::NodeInfo* const> nodes,
                                            std::span<framework::NodeScore> scores) const {
  const size_t total_nodes = handle_.snapshot().NumNodes();
  const int num_containers =
      static_cast<int>(pod.pod.spec.init_containers.size() + pod.pod.spec.containers.size());
  framework::ScoreEachNode(nodes, scores, [&](const framework::NodeInfo& node) {
    const std::span<const framework::ImageState> states = node.image_states();
    int64_t sum = 0;
    // A scored node is in the snapshot, so total_nodes is at least 1 whenever an image is found.
    auto add = [&](const std::vector<api::Container>& containers) {
      if (states.empty() || total_nodes == 0) return;
      for (const api::Container& c : containers) {
        if (const framework::ImageState* s = FindImage(states, c.image.str())) {
          sum += ScaledImageScore(*s, total_nodes);
        }
      }
    };
    add(pod.pod.spec.init_containers);
    add(pod.pod.spec.containers);
    return CalculatePriority(sum, num_containers);
  });
  return framework::Status::OK();
}

}  // namespace muster::plugins::imagelocality
