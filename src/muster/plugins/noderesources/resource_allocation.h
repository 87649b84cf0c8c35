#pragma once

// The resource scoring shared by NodeResourcesFit and NodeResourcesBalancedAllocation (upstream
// resource_allocation.go, least_allocated.go, most_allocated.go, requested_to_capacity_ratio.go,
// balanced_allocation.go). Every function here runs per node per pod: none allocates.

#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "muster/api/intern.h"
#include "muster/framework/node_info.h"
#include "muster/plugins/noderesources/args.h"

namespace muster::plugins::noderesources {

// The configured resources of a scorer, resolved once to the slots of api::Resource.
class ScoredResources {
 public:
  // `use_requested`: take cpu and memory from the requests as written (BalancedAllocation) rather
  // than from the non-zero requests, which count a container that requests no cpu (or memory) as
  // asking for the scheduler's defaults (NodeResourcesFit).
  ScoredResources(const std::vector<ResourceSpec>& specs, bool use_requested);

  size_t size() const { return resources_.size(); }
  bool empty() const { return resources_.empty(); }
  int64_t weight(size_t i) const { return resources_[i].weight; }
  bool use_requested() const { return use_requested_; }
  // Exactly cpu then memory, the default: the scorers take a path without per-resource dispatch.
  bool cpu_then_memory() const { return cpu_then_memory_; }

  // The pod's request of resource i (upstream calculatePodResourceRequest).
  int64_t PodRequest(const framework::PodInfo& pod, size_t i) const;
  std::vector<int64_t> PodRequests(const framework::PodInfo& pod) const;

  // Resource i's allocatable on the node and what the node would have requested with the pod
  // (upstream calculateResourceAllocatableRequest). Both are 0 when the node does not track the
  // resource, and for an extended resource the pod does not request: scorers skip a resource
  // whose allocatable is 0.
  struct Usage {
    int64_t allocatable = 0;
    int64_t requested = 0;
  };
  Usage NodeUsage(const framework::NodeInfo& node, size_t i, int64_t pod_request) const;

 private:
  enum class Slot : uint8_t { kCpu, kMemory, kEphemeralStorage, kScalar, kUntracked };
  struct Resource {
    Slot slot;
    api::Symbol name;  // for kScalar
    int64_t weight;
  };

  std::vector<Resource> resources_;
  bool use_requested_;
  bool cpu_then_memory_ = false;
};

// The pod's request of each scored resource: the vector PreScore computed, or read off the PodInfo
// when PreScore did not run for this cycle.
class PodRequestSource {
 public:
  PodRequestSource(const ScoredResources& resources, const framework::PodInfo& pod,
                   const std::vector<int64_t>* precomputed)
      : resources_(resources), pod_(pod), precomputed_(precomputed) {}

  int64_t operator[](size_t i) const {
    return precomputed_ != nullptr ? (*precomputed_)[i] : resources_.PodRequest(pod_, i);
  }

 private:
  const ScoredResources& resources_;
  const framework::PodInfo& pod_;
  const std::vector<int64_t>* precomputed_;
};

// Scores in [0, 100] of one resource; 0 when capacity is 0.
int64_t LeastRequestedScore(int64_t requested, int64_t capacity);
int64_t MostRequestedScore(int64_t requested, int64_t capacity);

// The scorers of nodes' resource use with a pod:
//   kLeastAllocated, kMostAllocated: the weighted mean of the per-resource scores over the
//     resources the node has; integer division, as upstream.
//   kBalancedAllocation: the change in balance the pod makes (1.36+): 50 + (50 + B(with the
//     pod) - B(without it)) / 2, where B is (1 - standard deviation of the requested/allocatable
//     fractions) * 100, each fraction capped at 1; a single resource (or none) has deviation 0.
enum class ResourceScorer : uint8_t { kLeastAllocated, kMostAllocated, kBalancedAllocation };

// The keys one scorer remembers its scores under in the nodes' memos (NodeInfo::score_memo): one
// per pod shape, what the pod asks for of the default resources (cpu then memory), once the shape
// has come a second time. A shape seen once has none: the scorer of pods that all differ neither
// reads nor writes a memo. PreScore asks, on the scheduling thread.
class ShapeMemoKeys {
 public:
  // The key for the pod's requests of cpu and memory, or 0 (do not remember).
  uint64_t KeyFor(const ScoredResources& resources, const std::vector<int64_t>& requests);

 private:
  // Shapes beyond this many start the count again: a bound on any input.
  static constexpr size_t kMaxShapes = 4096;
  struct Hash {
    size_t operator()(const std::pair<int64_t, int64_t>& shape) const {
      return static_cast<size_t>(static_cast<uint64_t>(shape.first) * 0x9E3779B97F4A7C15u ^
                                 static_cast<uint64_t>(shape.second));
    }
  };
  // 0 for a shape seen once.
  std::unordered_map<std::pair<int64_t, int64_t>, uint64_t, Hash> keys_;
};

// Fills scores[i] with nodes[i]'s name and its score by `scorer`. With a `memo_key`
// (ShapeMemoKeys), each node's score is taken from its memo, or worked out and remembered there.
void ScoreNodes(ResourceScorer scorer, const ScoredResources& resources,
                const PodRequestSource& pod, std::span<framework::NodeInfo* const> nodes,
                std::span<framework::NodeScore> scores, uint64_t memo_key = 0);

// A point of upstream helper.FunctionShape, its score already on the [0, 100] scale.
struct FunctionShapePoint {
  int64_t utilization = 0;
  int64_t score = 0;
};

// upstream helper.BuildBrokenLinearFunction: linear between the points (integer arithmetic),
// flat before the first and after the last.
int64_t BrokenLinear(std::span<const FunctionShapePoint> shape, int64_t utilization);

// RequestedToCapacityRatio: each resource's utilization percentage mapped through the shape;
// resources scoring 0 are left out of the weighted mean, which is rounded.
class RequestedToCapacityRatioScorer {
 public:
  // Scales the configured scores (0..kMaxCustomPriorityScore) to 0..100.
  explicit RequestedToCapacityRatioScorer(const std::vector<UtilizationShapePoint>& shape);

  int64_t Score(const ScoredResources& resources, const framework::NodeInfo& node,
                const PodRequestSource& pod) const;

 private:
  std::vector<FunctionShapePoint> shape_;
};

}  // namespace muster::plugins::noderesources
