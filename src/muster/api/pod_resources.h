#pragma once

#include "muster/api/resources.h"
#include "muster/api/types.h"

namespace muster::api {

// What the scheduler charges a container that requests no cpu or memory, when scoring (upstream
// pkg/scheduler/util DefaultMilliCPURequest and DefaultMemoryRequest).
inline constexpr int64_t kDefaultMilliCPURequest = 100;
inline constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;

// A pod's effective request, as upstream's resourcehelper.PodRequests: the larger of the app
// containers' sum and what any init container needs while it runs, where a restartable init
// container (a sidecar) adds to the app containers and to every init container started after it;
// plus the pod overhead. With `non_zero`, a container that does not request cpu (or memory) counts
// as requesting the defaults above, as scoring does.
Resource PodRequests(const Pod& pod, bool non_zero = false);

// The requests the Fit filter checks and NodeInfo accounts: PodRequests plus the pod itself
// (allowed_pod_number is 1).
Resource PodFitRequests(const Pod& pod);

}  // namespace muster::api
