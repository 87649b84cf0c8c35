#include "muster/plugins/noderesources/resource_allocation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "muster/api/pod_resources.h"
#include "muster/api/resources.h"
#include "muster/framework/interface.h"

namespace muster::plugins::noderesources {
namespace {

constexpr int64_t kMaxUtilization = 100;

// Products of a quantity and a score can pass int64 for large byte counts (upstream's Go
// arithmetic would wrap there); 128 bits keep them exact. __extension__ keeps -Wpedantic quiet
// about the GNU type, as in api/quantity.h.
__extension__ typedef __int128 Wide;

int64_t ScaledRatio(int64_t numerator, int64_t scale, int64_t denominator) {
  // The 128-bit division is a library call; most products fit in 64 bits.
  if (numerator >= 0 && scale > 0 && numerator <= INT64_MAX / scale) {
    return numerator * scale / denominator;
  }
  return static_cast<int64_t>(static_cast<Wide>(numerator) * scale / denominator);
}

}  // namespace

ScoredResources::ScoredResources(const std::vector<ResourceSpec>& specs, bool use_requested)
    : use_requested_(use_requested) {
  resources_.reserve(specs.size());
  for (const ResourceSpec& spec : specs) {
    Slot slot = Slot::kUntracked;
    if (spec.name == api::kResourceCPU) {
      slot = Slot::kCpu;
    } else if (spec.name == api::kResourceMemory) {
      slot = Slot::kMemory;
    } else if (spec.name == api::kResourceEphemeralStorage) {
      slot = Slot::kEphemeralStorage;
    } else if (api::IsScalarResourceName(spec.name)) {
      slot = Slot::kScalar;
    }
    resources_.push_back(Resource{slot, api::Symbol(spec.name), spec.weight});
  }
  cpu_then_memory_ = resources_.size() == 2 && resources_[0].slot == Slot::kCpu &&
                     resources_[1].slot == Slot::kMemory;
}

int64_t ScoredResources::PodRequest(const framework::PodInfo& pod, size_t i) const {
  const Resource& r = resources_[i];
  // With pod-level requests, the defaults for a container naming no cpu (memory) apply per
  // container before the pod-level figures replace the containers' sum (upstream
  // calculatePodResourceRequest), where the node's non-zero sums, which the PodInfo carries,
  // charge a default only for a resource nothing names.
  if ((r.slot == Slot::kCpu || r.slot == Slot::kMemory) && !use_requested_ &&
      api::HasPodLevelRequests(pod.pod)) {
    const api::Resource scored = api::PodRequests(pod.pod, {.non_zero = true});
    return r.slot == Slot::kCpu ? scored.milli_cpu : scored.memory;
  }
  switch (r.slot) {
    case Slot::kCpu:
      return use_requested_ ? pod.requests.milli_cpu : pod.non_zero_requests.milli_cpu;
    case Slot::kMemory:
      return use_requested_ ? pod.requests.memory : pod.non_zero_requests.memory;
    case Slot::kEphemeralStorage:
      return pod.requests.ephemeral_storage;
    case Slot::kScalar:
      return pod.requests.Scalar(r.name);
    case Slot::kUntracked:
      break;
  }
  return 0;
}

std::vector<int64_t> ScoredResources::PodRequests(const framework::PodInfo& pod) const {
  std::vector<int64_t> out(resources_.size());
  for (size_t i = 0; i < resources_.size(); ++i) out[i] = PodRequest(pod, i);
  return out;
}

ScoredResources::Usage ScoredResources::NodeUsage(const framework::NodeInfo& node, size_t i,
                                                  int64_t pod_request) const {
  const Resource& r = resources_[i];
  const api::Resource& allocatable = node.allocatable();
  switch (r.slot) {
    case Slot::kCpu: {
      const int64_t cpu = use_requested_ ? node.requested().milli_cpu : node.non_zero_milli_cpu();
      return {allocatable.milli_cpu, cpu + pod_request};
    }
    case Slot::kMemory: {
      const int64_t memory = use_requested_ ? node.requested().memory : node.non_zero_memory();
      return {allocatable.memory, memory + pod_request};
    }
    case Slot::kEphemeralStorage:
      return {allocatable.ephemeral_storage, node.requested().ephemeral_storage + pod_request};
    case Slot::kScalar:
      // An extended resource the pod does not ask for says nothing about how well it fits.
      if (pod_request == 0) return {};
      return {allocatable.Scalar(r.name), node.requested().Scalar(r.name) + pod_request};
    case Slot::kUntracked:
      break;
  }
  return {};
}

int64_t LeastRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0 || requested > capacity) return 0;
  return ScaledRatio(capacity - requested, framework::kMaxNodeScore, capacity);
}

int64_t MostRequestedScore(int64_t requested, int64_t capacity) {
  if (capacity == 0) return 0;
  // Non-zero requests can exceed capacity: pods without requests are charged the defaults.
  if (requested > capacity) requested = capacity;
  return ScaledRatio(requested, framework::kMaxNodeScore, capacity);
}

namespace {

// What the scorers below read of the resources, one view for any configured resources and one
// for the default (cpu then memory), whose fixed size and slots leave no per-resource dispatch
// in the loop over nodes. Both give the same usages, so the same arithmetic.
class AnyResources {
 public:
  AnyResources(const ScoredResources& resources, const PodRequestSource& pod)
      : resources_(resources), pod_(pod) {}
  size_t size() const { return resources_.size(); }
  int64_t weight(size_t i) const { return resources_.weight(i); }
  ScoredResources::Usage Usage(const framework::NodeInfo& node, size_t i) const {
    return resources_.NodeUsage(node, i, pod_[i]);
  }
  int64_t PodRequest(size_t i) const { return pod_[i]; }

 private:
  const ScoredResources& resources_;
  const PodRequestSource& pod_;
};

// Floor division of a nonnegative number below 2^52 by a divisor fixed in advance: a multiply
// by its reciprocal, then a step to correct the one the rounding may be off by. In a loop over
// nodes, where a division would hold up each node's score for tens of cycles.
class FixedDivisor {
 public:
  explicit FixedDivisor(int64_t divisor)
      : divisor_(divisor), reciprocal_(1.0 / static_cast<double>(divisor)) {}
  int64_t Divide(int64_t n) const {
    int64_t q = static_cast<int64_t>(static_cast<double>(n) * reciprocal_);
    if (q * divisor_ > n) {
      --q;
    } else if ((q + 1) * divisor_ <= n) {
      ++q;
    }
    return q;
  }

 private:
  int64_t divisor_;
  double reciprocal_;
};

class CpuThenMemory {
 public:
  CpuThenMemory(const ScoredResources& resources, const PodRequestSource& pod)
      : weights_{resources.weight(0), resources.weight(1)},
        weight_sum_(std::max<int64_t>(1, resources.weight(0) + resources.weight(1))),
        requests_{pod[0], pod[1]},
        use_requested_(resources.use_requested()) {}
  static constexpr size_t size() { return 2; }
  int64_t weight(size_t i) const { return weights_[i]; }
  // Whether both weights are positive (as validation leaves them), and their sum: what a
  // weighted average divides by when the node has both resources.
  bool positive_weights() const { return weights_[0] > 0 && weights_[1] > 0; }
  const FixedDivisor& weight_sum() const { return weight_sum_; }
  // From the node's resource summary: one cache line.
  ScoredResources::Usage Usage(const framework::NodeInfo& node, size_t i) const {
    const framework::ResourceSummary& r = node.summary();
    if (i == 0) {
      const int64_t cpu = use_requested_ ? r.requested_milli_cpu : r.non_zero_milli_cpu;
      return {r.allocatable_milli_cpu, cpu + requests_[0]};
    }
    const int64_t memory = use_requested_ ? r.requested_memory : r.non_zero_memory;
    return {r.allocatable_memory, memory + requests_[1]};
  }
  int64_t PodRequest(size_t i) const { return requests_[i]; }
  bool use_requested() const { return use_requested_; }

 private:
  std::array<int64_t, 2> weights_;
  FixedDivisor weight_sum_;
  std::array<int64_t, 2> requests_;
  bool use_requested_;
};

// The weighted average over the scored resources of a per-resource score, skipping resources
// the node does not have (upstream's leastResourceScorer and mostResourceScorer).
// (Inlined into each loop over nodes that calls it, with and without the memo.)
template <int64_t (*PerResource)(int64_t requested, int64_t capacity), typename Resources>
[[gnu::always_inline]] inline int64_t WeightedAverage(const Resources& resources,
                                                      const framework::NodeInfo& node) {
  if constexpr (std::is_same_v<Resources, CpuThenMemory>) {
    // A node with both (every node but a rare one): the weights' sum is known in advance.
    const ScoredResources::Usage cpu = resources.Usage(node, 0);
    const ScoredResources::Usage memory = resources.Usage(node, 1);
    if (cpu.allocatable != 0 && memory.allocatable != 0 && resources.positive_weights()) {
      return resources.weight_sum().Divide(
          PerResource(cpu.requested, cpu.allocatable) * resources.weight(0) +
          PerResource(memory.requested, memory.allocatable) * resources.weight(1));
    }
  }
  int64_t node_score = 0;
  int64_t weight_sum = 0;
  for (size_t i = 0; i < resources.size(); ++i) {
    const ScoredResources::Usage u = resources.Usage(node, i);
    if (u.allocatable == 0) continue;
    node_score += PerResource(u.requested, u.allocatable) * resources.weight(i);
    weight_sum += resources.weight(i);
  }
  return weight_sum == 0 ? 0 : node_score / weight_sum;
}

// How balanced the node's use of the resources is, 50 to 100: (1 - the standard deviation of
// the requested/allocatable fractions) * 100, each fraction at most 1 (upstream's
// balancedResourceScore); without the pod's requests when `with_pod` is false.
template <typename Resources>
int64_t Balance(const Resources& resources, const framework::NodeInfo& node, bool with_pod) {
  // Two passes over the fractions instead of a list of them keep this allocation-free; both
  // passes compute each fraction the same way, so the sums match upstream's bit for bit.
  auto fraction = [&](size_t i, double* out) {
    const ScoredResources::Usage u = resources.Usage(node, i);
    if (u.allocatable == 0) return false;
    const int64_t requested = with_pod ? u.requested : u.requested - resources.PodRequest(i);
    *out = std::min(1.0, static_cast<double>(requested) / static_cast<double>(u.allocatable));
    return true;
  };
  size_t count = 0;
  double total = 0;
  double first = 0;
  double second = 0;
  for (size_t i = 0; i < resources.size(); ++i) {
    double f = 0;
    if (!fraction(i, &f)) continue;
    if (count == 0) first = f;
    if (count == 1) second = f;
    total += f;
    ++count;
  }
  double deviation = 0;
  if (count == 2) {
    deviation = std::abs((first - second) / 2);
  } else if (count > 2) {
    const double mean = total / static_cast<double>(count);
    double sum = 0;
    for (size_t i = 0; i < resources.size(); ++i) {
      double f = 0;
      if (fraction(i, &f)) sum += (f - mean) * (f - mean);
    }
    deviation = std::sqrt(sum / static_cast<double>(count));
  }
  return static_cast<int64_t>((1 - deviation) * static_cast<double>(framework::kMaxNodeScore));
}

// Balance of cpu and memory with and without the pod: the default resources' case. Without the
// pod it is the node's own, which the node keeps when scoring counts requests (BalancedAllocation
// does).
[[gnu::always_inline]] inline void BalanceOfTwo(const CpuThenMemory& resources,
                                                const framework::NodeInfo& node, int64_t* with_pod,
                                                int64_t* without_pod) {
  const ScoredResources::Usage cpu = resources.Usage(node, 0);
  const ScoredResources::Usage memory = resources.Usage(node, 1);
  *with_pod = framework::CpuMemoryBalance(cpu.requested, cpu.allocatable, memory.requested,
                                          memory.allocatable);
  *without_pod = resources.use_requested()
                     ? node.cpu_memory_balance()
                     : framework::CpuMemoryBalance(
                           cpu.requested - resources.PodRequest(0), cpu.allocatable,
                           memory.requested - resources.PodRequest(1), memory.allocatable);
}

// upstream balancedResourceScorer since 1.36 (kubernetes#135573): the change in balance the pod
// makes, 75 for none, 100 from the least balanced to the most, 50 the other way round.
template <typename Resources>
[[gnu::always_inline]] inline int64_t Balanced(const Resources& resources,
                                               const framework::NodeInfo& node) {
  constexpr int64_t kHalf = framework::kMaxNodeScore / 2;
  int64_t with_pod = 0;
  int64_t without_pod = 0;
  if constexpr (std::is_same_v<Resources, CpuThenMemory>) {
    BalanceOfTwo(resources, node, &with_pod, &without_pod);
  } else {
    with_pod = Balance(resources, node, true);
    without_pod = Balance(resources, node, false);
  }
  return kHalf + (kHalf + with_pod - without_pod) / 2;
}

template <typename Resources>
void ScoreWith(ResourceScorer scorer, const Resources& resources,
               std::span<framework::NodeInfo* const> nodes,
               std::span<framework::NodeScore> scores) {
  switch (scorer) {
    case ResourceScorer::kLeastAllocated:
      framework::ScoreEachNode(nodes, scores, [&](const framework::NodeInfo& node) {
        return WeightedAverage<LeastRequestedScore>(resources, node);
      });
      return;
    case ResourceScorer::kMostAllocated:
      framework::ScoreEachNode(nodes, scores, [&](const framework::NodeInfo& node) {
        return WeightedAverage<MostRequestedScore>(resources, node);
      });
      return;
    case ResourceScorer::kBalancedAllocation:
      framework::ScoreEachNode(nodes, scores, [&](const framework::NodeInfo& node) {
        return Balanced(resources, node);
      });
      return;
  }
}

// Scores each node as `score` does, or as its memo remembers from a pod of the same shape on a
// node that has not changed since: `key` names the scorer and the shape, `base` the first of the
// two memo entries the scorer keeps to.
template <typename Score>
void ScoreRemembering(uint64_t key, size_t base, std::span<framework::NodeInfo* const> nodes,
                      std::span<framework::NodeScore> scores, const Score& score) {
  const size_t slot = base + (key & 1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    uint64_t memo = nodes[i]->score_memo(slot);
    if (memo >> 8 != key) {
      // Scores are 0 to 100: the low 8 bits hold them.
      memo = key << 8 | static_cast<uint64_t>(score(*nodes[i]));
      nodes[i]->set_score_memo(slot, memo);
    }
    scores[i] = framework::NodeScore{nodes[i]->name(), static_cast<int64_t>(memo & 0xFF)};
  }
}

}  // namespace

uint64_t ShapeMemoKeys::KeyFor(const ScoredResources& resources,
                               const std::vector<int64_t>& requests) {
  if (!resources.cpu_then_memory()) return 0;
  if (keys_.size() >= kMaxShapes) keys_.clear();
  const auto [it, first] = keys_.try_emplace({requests[0], requests[1]}, 0);
  if (first) return 0;
  if (it->second == 0) it->second = framework::NewScoreMemoKey();
  return it->second;
}

void ScoreNodes(ResourceScorer scorer, const ScoredResources& resources,
                const PodRequestSource& pod, std::span<framework::NodeInfo* const> nodes,
                std::span<framework::NodeScore> scores, uint64_t memo_key) {
  if (!resources.cpu_then_memory()) {
    ScoreWith(scorer, AnyResources(resources, pod), nodes, scores);
    return;
  }
  const CpuThenMemory view(resources, pod);
  if (memo_key == 0) {
    ScoreWith(scorer, view, nodes, scores);
    return;
  }
  // Two entries each for NodeResourcesFit's scorers and for BalancedAllocation's.
  static_assert(framework::NodeInfo::kScoreMemoSlots == 4);
  switch (scorer) {
    case ResourceScorer::kLeastAllocated:
      ScoreRemembering(memo_key, 0, nodes, scores, [&](const framework::NodeInfo& node) {
        return WeightedAverage<LeastRequestedScore>(view, node);
      });
      return;
    case ResourceScorer::kMostAllocated:
      ScoreRemembering(memo_key, 0, nodes, scores, [&](const framework::NodeInfo& node) {
        return WeightedAverage<MostRequestedScore>(view, node);
      });
      return;
    case ResourceScorer::kBalancedAllocation:
      ScoreRemembering(memo_key, 2, nodes, scores,
                       [&](const framework::NodeInfo& node) { return Balanced(view, node); });
      return;
  }
}

int64_t BrokenLinear(std::span<const FunctionShapePoint> shape, int64_t utilization) {
  for (size_t i = 0; i < shape.size(); ++i) {
    if (utilization > shape[i].utilization) continue;
    if (i == 0) return shape[0].score;
    const FunctionShapePoint& lo = shape[i - 1];
    const FunctionShapePoint& hi = shape[i];
    return lo.score + (hi.score - lo.score) * (utilization - lo.utilization) /
                          (hi.utilization - lo.utilization);
  }
  return shape.back().score;
}

RequestedToCapacityRatioScorer::RequestedToCapacityRatioScorer(
    const std::vector<UtilizationShapePoint>& shape) {
  shape_.reserve(shape.size());
  for (const UtilizationShapePoint& p : shape) {
    shape_.push_back(FunctionShapePoint{
        p.utilization, int64_t{p.score} * (framework::kMaxNodeScore / kMaxCustomPriorityScore)});
  }
}

int64_t RequestedToCapacityRatioScorer::Score(const ScoredResources& resources,
                                              const framework::NodeInfo& node,
                                              const PodRequestSource& pod) const {
  int64_t node_score = 0;
  int64_t weight_sum = 0;
  for (size_t i = 0; i < resources.size(); ++i) {
    const ScoredResources::Usage u = resources.NodeUsage(node, i, pod[i]);
    if (u.allocatable == 0) continue;
    const int64_t utilization = u.requested > u.allocatable
                                    ? kMaxUtilization
                                    : ScaledRatio(u.requested, kMaxUtilization, u.allocatable);
    const int64_t score = BrokenLinear(shape_, utilization);
    if (score <= 0) continue;
    node_score += score * resources.weight(i);
    weight_sum += resources.weight(i);
  }
  if (weight_sum == 0) return 0;
  return static_cast<int64_t>(
      std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
}

}  // namespace muster::plugins::noderesources
