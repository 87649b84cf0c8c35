#pragma once

#include "muster/api/resources.h"
#include "muster/api/types.h"

namespace muster::api {

// What the scheduler charges a container that requests no cpu or memory, when scoring (upstream
// pkg/scheduler/util DefaultMilliCPURequest and DefaultMemoryRequest).
inline constexpr int64_t kDefaultMilliCPURequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;

// How PodRequests counts, as the scheduler sets upstream's resourcehelper.PodResourcesOptions.
struct RequestOptions {
  // Count what the kubelet admitted and applied beside the spec (InPlacePodVerticalScaling, on
  // since 1.33 and GA in 1.35): while a resize is under way a container counts the larger of
  // each; when the resize is infeasible, only what the kubelet has. Off for a pod not yet
  // scheduled, as the Fit filter reads it.
  bool use_status = true;
  // A container that does not name cpu (memory) counts the defaults above, as scoring does.
  bool non_zero = false;
};

// A pod's effective request, as upstream's resourcehelper.PodRequests: the larger of the app
// containers' sum and what any init container needs while it runs, where a restartable init
// container (a sidecar) adds to the app containers and to every init container started after it;
// then each resource the pod-level requests name (cpu, memory, hugepages-*, KEP-2837) replaces
// the containers' figure; plus the pod overhead.
Resource PodRequests(const Pod& pod, RequestOptions options = {});

// The cpu and memory a node's non-zero sums count for a bound pod (upstream PodInfo's
// calculateResource): PodRequests with the defaults per container, except that with pod-level
// requests a default applies only to a resource that neither the pod nor any container names.
Resource PodNonZeroRequests(const Pod& pod);

// The requests the Fit filter checks and NodeInfo accounts: PodRequests plus the pod itself
// (allowed_pod_number is 1).
Resource PodFitRequests(const Pod& pod);

// The containers' requests (limits) by the sidecar rule, without pod-level resources, overhead
// or status (upstream AggregateContainerRequests and AggregateContainerLimits): what the API
// server defaults and validates pod-level resources against.
Resource ContainerRequestsSum(const PodSpec& spec);
Resource ContainerLimitsSum(const PodSpec& spec);

// Whether the resources the kubelet reports in the pod's status change what PodRequests counts
// (a resize under way or infeasible, or pod-level resources); a decoder drops them otherwise.
bool StatusChangesRequests(const Pod& pod);

// Whether the pod sets pod-level requests for a resource that may have them and the
// PodLevelResources feature gate is on (upstream IsPodLevelRequestsSet, as the scheduler asks).
bool HasPodLevelRequests(const Pod& pod);

// The resource names pod-level resources may name: cpu, memory and hugepages-* (upstream
// IsSupportedPodLevelResource).
bool IsSupportedPodLevelResource(std::string_view name);

// Whether the pod's PodResizePending condition says the resize is infeasible.
bool IsPodResizeInfeasible(const Pod& pod);

}  // namespace muster::api
