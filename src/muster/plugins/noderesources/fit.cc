#include "muster/plugins/noderesources/fit.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "muster/api/pod_resources.h"
#include "muster/plugins/helper/device_classes.h"

namespace muster::plugins::noderesources {
namespace {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::Code;
using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;

// The requests Filter checks, computed once per pod by PreFilter.
struct PreFilterState final : framework::StateData {
  api::Resource request;
  // Extended resources of `request` that devices may serve (Fit::DeviceBacked).
  std::vector<api::Symbol> device_backed;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

// The pod's request of each scored resource, computed once per pod by PreScore.
struct PreScoreState final : framework::StateData {
  std::vector<int64_t> pod_requests;
  uint64_t memo_key = 0;  // ShapeMemoKeys'

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

enum class Shortage : uint8_t { kPods, kCpu, kMemory, kEphemeralStorage, kScalar };

// The fit check itself, allocation-free: calls `report` for each shortage, in upstream's order,
// on a node with `allocatable`, of which `requested` is taken by `pods` pods. `name` is set for
// kScalar only. An extended resource in `device_backed` that the node has none of is left to
// DynamicResources (upstream's shouldDelegateResourceToDRA).
template <typename Report>
void CheckFit(const api::Resource& request, const api::Resource& allocatable,
              const api::Resource& requested, int64_t pods,
              std::span<const api::Symbol> device_backed, Report&& report) {
  if (pods + 1 > allocatable.allowed_pod_number) {
    // A full node is never unresolvable: preemption frees pod slots.
    report(Shortage::kPods, api::Symbol(), 1, pods, allocatable.allowed_pod_number, false);
  }
  auto check = [&](Shortage kind, api::Symbol name, int64_t want, int64_t used, int64_t capacity) {
    if (want > 0 && want > capacity - used) {
      report(kind, name, want, used, capacity, want > capacity);
    }
  };
  check(Shortage::kCpu, api::Symbol(), request.milli_cpu, requested.milli_cpu,
        allocatable.milli_cpu);
  check(Shortage::kMemory, api::Symbol(), request.memory, requested.memory, allocatable.memory);
  check(Shortage::kEphemeralStorage, api::Symbol(), request.ephemeral_storage,
        requested.ephemeral_storage, allocatable.ephemeral_storage);
  for (const auto& [name, want] : request.scalar) {
    const int64_t capacity = allocatable.Scalar(name);
    if (capacity <= 0 &&
        std::find(device_backed.begin(), device_backed.end(), name) != device_backed.end()) {
      continue;
    }
    check(Shortage::kScalar, name, want, requested.Scalar(name), capacity);
  }
}

template <typename Report>
void CheckFit(const api::Resource& request, const framework::NodeInfo& node,
              std::span<const api::Symbol> device_backed, Report&& report) {
  CheckFit(request, node.allocatable(), node.requested(), node.num_pods(), device_backed,
           std::forward<Report>(report));
}

// CheckFit finding no shortage, for a request without extended resources: read from the node's
// resource summary alone, one cache line. NativeShortages below == 0, stopping at the first
// shortage: kept apart because it is the path of every node that passes (computing the key
// there instead cost 0.7-0.9% more instructions on SchedulingBasic and GangContended).
bool FitsNative(const api::Resource& request, const framework::ResourceSummary& node) {
  auto fits = [](int64_t want, int64_t free) { return want <= 0 || want <= free; };
  return node.free_pods >= 1 &&
         fits(request.milli_cpu, node.allocatable_milli_cpu - node.requested_milli_cpu) &&
         fits(request.memory, node.allocatable_memory - node.requested_memory) &&
         fits(request.ephemeral_storage, node.free_ephemeral_storage);
}

// Bit i of a shortage key: the i-th kind of Shortage is short. kUnresolvable: the node could not
// hold the request even empty.
constexpr uint32_t ShortageBit(Shortage kind) { return 1u << static_cast<uint32_t>(kind); }
constexpr uint32_t kUnresolvable = 0x10;

// CheckFit's findings as a shortage key (0 when the pod fits), for a request without extended
// resources: also read from the summary.
uint32_t NativeShortages(const api::Resource& request, const framework::NodeInfo& node) {
  const framework::ResourceSummary& r = node.summary();
  uint32_t key = r.free_pods < 1 ? ShortageBit(Shortage::kPods) : 0;
  auto check = [&key](Shortage kind, int64_t want, int64_t free, auto&& capacity) {
    if (want <= 0 || want <= free) return;
    key |= ShortageBit(kind);
    if (want > capacity()) key |= kUnresolvable;
  };
  check(Shortage::kCpu, request.milli_cpu, r.allocatable_milli_cpu - r.requested_milli_cpu,
        [&] { return r.allocatable_milli_cpu; });
  check(Shortage::kMemory, request.memory, r.allocatable_memory - r.requested_memory,
        [&] { return r.allocatable_memory; });
  check(Shortage::kEphemeralStorage, request.ephemeral_storage, r.free_ephemeral_storage,
        [&] { return node.allocatable().ephemeral_storage; });
  return key;
}

std::string_view ResourceName(Shortage kind, api::Symbol name) {
  switch (kind) {
    case Shortage::kPods:
      return api::kResourcePods;
    case Shortage::kCpu:
      return api::kResourceCPU;
    case Shortage::kMemory:
      return api::kResourceMemory;
    case Shortage::kEphemeralStorage:
      return api::kResourceEphemeralStorage;
    case Shortage::kScalar:
      break;
  }
  return name.str();
}

std::string Reason(Shortage kind, api::Symbol name) {
  if (kind == Shortage::kPods) return "Too many pods";
  return fmt::format("Insufficient {}", ResourceName(kind, name));
}

// Filter's failures that involve only pods, cpu, memory and ephemeral storage, built once and
// pinned, by shortage key.
const std::array<Status, 32>& NativeFailures() {
  static const std::array<Status, 32> failures = [] {
    std::array<Status, 32> all;
    for (uint32_t key = 0; key < all.size(); ++key) {
      if ((key & 0xF) == 0) continue;  // no shortage: never a failure
      std::vector<std::string> reasons;
      for (Shortage kind :
           {Shortage::kPods, Shortage::kCpu, Shortage::kMemory, Shortage::kEphemeralStorage}) {
        if (key & ShortageBit(kind)) {
          reasons.push_back(Reason(kind, api::Symbol()));
        }
      }
      const Code code =
          key & kUnresolvable ? Code::kUnschedulableAndUnresolvable : Code::kUnschedulable;
      all[key] = Status::Pinned(code, std::move(reasons), kFitName);
    }
    return all;
  }();
  return failures;
}

// Upstream's "the pod requests nothing": an extended resource listed with quantity 0 still counts
// as requested here.
bool RequestsNothing(const api::Resource& r) {
  return r.milli_cpu == 0 && r.memory == 0 && r.ephemeral_storage == 0 && r.scalar.empty();
}

QueueingHint Misdelivered(Status* error, std::string_view what) {
  if (error != nullptr) *error = Status::Error(fmt::format("NodeResourcesFit: {}", what));
  return QueueingHint::kQueue;
}

// Upstream isSchedulableAfterPodScaleDown: the target pod itself shrank, or a scheduled pod shrank
// in a resource the target requests.
bool ScaleDownMayHelp(const api::Pod& target, const api::Pod& original, const api::Pod& modified) {
  if (modified.metadata.uid == target.metadata.uid) return true;
  if (modified.spec.node_name.empty()) return false;
  const api::Resource before = api::PodRequests(original);
  const api::Resource after = api::PodRequests(modified);
  const api::Resource wanted = api::PodRequests(target);
  if (wanted.milli_cpu != 0 && before.milli_cpu > after.milli_cpu) return true;
  if (wanted.memory != 0 && before.memory > after.memory) return true;
  if (wanted.ephemeral_storage != 0 && before.ephemeral_storage > after.ephemeral_storage) {
    return true;
  }
  for (const auto& [name, quantity] : wanted.scalar) {
    if (quantity != 0 && before.Scalar(name) > after.Scalar(name)) return true;
  }
  return false;
}

}  // namespace

std::vector<InsufficientResource> Fits(const api::Resource& request,
                                       const framework::NodeInfo& node) {
  std::vector<InsufficientResource> out;
  CheckFit(
      request, node, {},
      [&](Shortage kind, api::Symbol name, int64_t want, int64_t used, int64_t capacity,
          bool unresolvable) {
        out.push_back(InsufficientResource{std::string(ResourceName(kind, name)),
                                           Reason(kind, name), want, used, capacity, unresolvable});
      });
  return out;
}

bool HaveAnyRequestedResourcesIncreased(const api::Resource& request,
                                        const api::Resource& old_allocatable,
                                        const api::Resource& new_allocatable) {
  if (new_allocatable.allowed_pod_number > old_allocatable.allowed_pod_number) return true;
  if (RequestsNothing(request)) return false;
  if ((request.milli_cpu > 0 && new_allocatable.milli_cpu > old_allocatable.milli_cpu) ||
      (request.memory > 0 && new_allocatable.memory > old_allocatable.memory) ||
      (request.ephemeral_storage > 0 &&
       new_allocatable.ephemeral_storage > old_allocatable.ephemeral_storage)) {
    return true;
  }
  for (const auto& [name, quantity] : request.scalar) {
    if (quantity != 0 && new_allocatable.Scalar(name) > old_allocatable.Scalar(name)) return true;
  }
  return false;
}

std::unique_ptr<Fit> Fit::Create(const NodeResourcesFitArgs& args, std::string* error) {
  const std::vector<api::FieldError> errors = Validate(args);
  if (!errors.empty()) {
    *error = JoinFieldErrors(errors);
    return nullptr;
  }
  return std::unique_ptr<Fit>(new Fit(args));
}

std::unique_ptr<framework::Plugin> Fit::New(const framework::PluginArgs& args,
                                            framework::Handle& handle, std::string* error) {
  NodeResourcesFitArgs decoded;
  if (!LoadNodeResourcesFitArgs(args, &decoded, error)) return nullptr;
  auto fit = std::unique_ptr<Fit>(new Fit(decoded));
  fit->handle_ = &handle;
  return fit;
}

Fit::Fit(const NodeResourcesFitArgs& args)
    : ignored_resource_groups_(args.ignored_resource_groups),
      scored_(args.scoring_strategy->resources, /*use_requested=*/false) {
  for (const std::string& name : args.ignored_resources) ignored_resources_.emplace_back(name);
  const ScoringStrategy& s = *args.scoring_strategy;
  if (s.type == kMostAllocated) {
    strategy_ = Strategy::kMostAllocated;
  } else if (s.type == kRequestedToCapacityRatio) {
    strategy_ = Strategy::kRequestedToCapacityRatio;
    ratio_scorer_.emplace(s.requested_to_capacity_ratio->shape);
  } else {
    strategy_ = Strategy::kLeastAllocated;
  }
}

bool Fit::IsIgnored(api::Symbol resource) const {
  // Only extended resources can be ignored; a listed native name has no effect, as upstream.
  if (!api::IsExtendedResourceName(resource.str())) return false;
  if (std::find(ignored_resources_.begin(), ignored_resources_.end(), resource) !=
      ignored_resources_.end()) {
    return true;
  }
  if (ignored_resource_groups_.empty()) return false;
  const std::string_view name = resource.str();
  const std::string_view group = name.substr(0, name.find('/'));
  return std::find(ignored_resource_groups_.begin(), ignored_resource_groups_.end(), group) !=
         ignored_resource_groups_.end();
}

std::vector<api::Symbol> Fit::DeviceBacked(const api::Resource& request) const {
  std::vector<api::Symbol> out;
  if (handle_ == nullptr) return out;
  for (const helper::DeviceBackedResource& r :
       helper::DeviceBackedResources(handle_->lister(), request)) {
    out.push_back(r.resource);
  }
  return out;
}

api::Resource Fit::CheckedRequest(const api::Resource& requests) const {
  api::Resource checked = requests;
  std::erase_if(checked.scalar,
                [&](const auto& entry) { return entry.second == 0 || IsIgnored(entry.first); });
  return checked;
}

Status Fit::PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                      std::span<framework::NodeInfo* const> /*nodes*/,
                      framework::PreFilterResult* /*result*/) {
  auto s = std::make_unique<PreFilterState>();
  // Deciding what to skip here, once per pod, keeps Filter to plain comparisons.
  // What the pod asks for, from its spec (upstream computePodResourceRequest): the PodInfo's
  // requests also count a resize the kubelet reports, for a pod on a node.
  s->request = CheckedRequest(pod.pod.status.resources == nullptr
                                  ? pod.requests
                                  : api::PodRequests(pod.pod, {.use_status = false}));
  if (!s->request.scalar.empty()) s->device_backed = DeviceBacked(s->request);
  state.Write(kPreFilterStateKey, std::move(s));
  return Status::OK();
}

Status Fit::Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                   const framework::NodeInfo& node) const {
  return framework::FilterOneNode(*this, state, pod, node);
}

size_t Fit::FilterNodes(const framework::CycleState& state, const framework::PodInfo& /*pod*/,
                        std::span<const framework::NodeInfo* const> nodes,
                        std::span<Status> statuses) const {
  const auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) {
    const Status missing = Status::Error(
        fmt::format("error reading \"{}\" from cycleState: not found", kPreFilterStateKey));
    std::fill(statuses.begin(), statuses.end(), missing);
    return statuses.size();
  }
  const std::array<Status, 32>& native_failures = NativeFailures();
  // A loop of its own for the pods without extended resources (nearly all): it reads only the
  // nodes' resource summaries.
  if (s->request.scalar.empty()) {
    return framework::FilterEachNode(nodes, statuses, [&](const framework::NodeInfo& node) {
      if (FitsNative(s->request, node.summary())) return Status::OK();
      return native_failures[NativeShortages(s->request, node)];
    });
  }
  return framework::FilterEachNode(nodes, statuses, [&](const framework::NodeInfo& node) {
    uint32_t key = 0;
    bool scalar = false;
    CheckFit(s->request, node, s->device_backed,
             [&](Shortage kind, api::Symbol, int64_t, int64_t, int64_t, bool unresolvable) {
               if (kind == Shortage::kScalar) {
                 scalar = true;
               } else {
                 key |= ShortageBit(kind);
               }
               if (unresolvable) key |= kUnresolvable;
             });
    if (!scalar) return native_failures[key];  // Success when key is 0
    // Extended resources: reasons built for the occasion.
    std::vector<std::string> reasons;
    CheckFit(s->request, node, s->device_backed,
             [&](Shortage kind, api::Symbol name, int64_t, int64_t, int64_t, bool) {
               reasons.push_back(Reason(kind, name));
             });
    return Status(key & kUnresolvable ? Code::kUnschedulableAndUnresolvable : Code::kUnschedulable,
                  std::move(reasons));
  });
}

std::vector<ClusterEventWithHint> Fit::EventsToRegister() const {
  auto pod_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterPodEvent(pod, e, error);
  };
  auto node_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterNodeChange(pod, e, error);
  };
  // Upstream registers Pod events, which cover assigned and unscheduled pods alike: a scheduled
  // pod frees room; an unscheduled one matters when it held a nomination or is the pod itself.
  constexpr uint32_t kPodActions = framework::kDelete | framework::kUpdatePodScaleDown;
  // Taint and label updates are what upstream registers when it pre-checks nodes before queueing;
  // the hint turns them away unless allocatable grew, so they cost nothing when they do not help.
  constexpr uint32_t kNodeActions = framework::kAdd | framework::kUpdateNodeAllocatable |
                                    framework::kUpdateNodeTaint | framework::kUpdateNodeLabel;
  auto class_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterDeviceClassEvent(pod, e, error);
  };
  return {
      {ClusterEvent{framework::EventResource::kAssignedPod, kPodActions,
                    "AssignedPodDelete|UpdatePodScaleDown"},
       pod_hint},
      {ClusterEvent{framework::EventResource::kPod, kPodActions, "PodDelete|UpdatePodScaleDown"},
       pod_hint},
      {ClusterEvent{framework::EventResource::kNode, kNodeActions,
                    "NodeAdd|UpdateNodeAllocatable|UpdateNodeTaint|UpdateNodeLabel"},
       node_hint},
      // DRAExtendedResource (GA in 1.37): a class may now serve a resource the pod asks for.
      {ClusterEvent{framework::EventResource::Of<api::DeviceClass>(),
                    framework::kAdd | framework::kUpdateOther, "DeviceClassAdd|Update"},
       class_hint},
  };
}

QueueingHint Fit::IsSchedulableAfterPodEvent(const api::Pod& pod, const EventObjects& event,
                                             Status* error) const {
  if (event.old_pod == nullptr) return Misdelivered(error, "pod event without the old pod");
  if (event.new_pod == nullptr) {
    const api::Pod& deleted = *event.old_pod;
    // An unscheduled pod held no resources, unless a nomination reserved them.
    if (deleted.spec.node_name.empty() && deleted.status.nominated_node_name.empty()) {
      return QueueingHint::kSkip;
    }
    return QueueingHint::kQueue;
  }
  return ScaleDownMayHelp(pod, *event.old_pod, *event.new_pod) ? QueueingHint::kQueue
                                                               : QueueingHint::kSkip;
}

QueueingHint Fit::IsSchedulableAfterNodeChange(const api::Pod& pod, const EventObjects& event,
                                               Status* error) const {
  if (event.new_node == nullptr) return Misdelivered(error, "node event without the new node");
  // Whether the pod fits the node while empty (upstream isFit), checking the whole request,
  // ignored resources included, as upstream does.
  const api::Resource request = api::PodRequests(pod, {.use_status = false});
  const api::Resource allocatable = api::Resource::FromList(event.new_node->status.allocatable);
  bool fits = true;
  CheckFit(request, allocatable, api::Resource(), 0, DeviceBacked(request),
           [&](auto&&...) { fits = false; });
  if (!fits) return QueueingHint::kSkip;
  if (event.old_node == nullptr) return QueueingHint::kQueue;
  return HaveAnyRequestedResourcesIncreased(
             request, api::Resource::FromList(event.old_node->status.allocatable), allocatable)
             ? QueueingHint::kQueue
             : QueueingHint::kSkip;
}

// Upstream isSchedulableAfterDeviceClassEvent: a class added or changed that now serves an
// extended resource the pod asks for.
QueueingHint Fit::IsSchedulableAfterDeviceClassEvent(const api::Pod& pod, const EventObjects& event,
                                                     Status* error) const {
  const api::DeviceClass* after = event.New<api::DeviceClass>();
  if (after == nullptr) return Misdelivered(error, "device class event without the new class");
  const api::DeviceClass* before = event.Old<api::DeviceClass>();
  if (before != nullptr &&
      before->spec.extended_resource_name == after->spec.extended_resource_name) {
    return QueueingHint::kSkip;
  }
  const api::Resource request = api::PodRequests(pod, {.use_status = false});
  for (const auto& [name, quantity] : request.scalar) {
    const std::string_view n = name.str();
    const bool implicit = before == nullptr && n.starts_with(api::kDeviceClassResourcePrefix) &&
                          n.substr(api::kDeviceClassResourcePrefix.size()) == after->metadata.name;
    if (implicit ||
        (!after->spec.extended_resource_name.empty() && n == after->spec.extended_resource_name)) {
      return QueueingHint::kQueue;
    }
  }
  return QueueingHint::kSkip;
}

Status Fit::PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                     std::span<framework::NodeInfo* const> /*feasible*/) {
  auto s = std::make_unique<PreScoreState>();
  s->pod_requests = scored_.PodRequests(pod);
  if (strategy_ != Strategy::kRequestedToCapacityRatio) {
    s->memo_key = memo_keys_.KeyFor(scored_, s->pod_requests);
  }
  state.Write(kPreScoreStateKey, std::move(s));
  return Status::OK();
}

Status Fit::Score(const framework::CycleState& state, const framework::PodInfo& pod,
                  const framework::NodeInfo& node, int64_t* score) const {
  return framework::ScoreOneNode(*this, state, pod, node, score);
}

Status Fit::ScoreNodes(const framework::CycleState& state, const framework::PodInfo& pod,
                       std::span<framework::NodeInfo* const> nodes,
                       std::span<framework::NodeScore> scores) const {
  if (scored_.empty()) return Status::Error("resources not found");
  const auto* s = state.Read<PreScoreState>(kPreScoreStateKey);
  const PodRequestSource requests(scored_, pod, s != nullptr ? &s->pod_requests : nullptr);
  const uint64_t memo_key = s != nullptr ? s->memo_key : 0;
  switch (strategy_) {
    case Strategy::kLeastAllocated:
      noderesources::ScoreNodes(ResourceScorer::kLeastAllocated, scored_, requests, nodes, scores,
                                memo_key);
      break;
    case Strategy::kMostAllocated:
      noderesources::ScoreNodes(ResourceScorer::kMostAllocated, scored_, requests, nodes, scores,
                                memo_key);
      break;
    case Strategy::kRequestedToCapacityRatio:
      framework::ScoreEachNode(nodes, scores, [&](const framework::NodeInfo& node) {
        return ratio_scorer_->Score(scored_, node, requests);
      });
      break;
  }
  return Status::OK();
}

}  // namespace muster::plugins::noderesources
