#include "muster/api/pod_resources.h"

namespace muster::api {
namespace {

Resource ContainerRequests(const Container& c, bool non_zero) {
  Resource r = Resource::FromList(c.resources.requests);
  if (non_zero) {
    if (!c.resources.requests.Has(kResourceCPU)) r.milli_cpu = kDefaultMilliCPURequest;
    if (!c.resources.requests.Has(kResourceMemory)) r.memory = kDefaultMemoryRequest;
  }
  return r;
}

}  // namespace

Resource PodRequests(const Pod& pod, bool non_zero) {
  Resource requests;
  for (const Container& c : pod.spec.containers) requests.Add(ContainerRequests(c, non_zero));

  // Sidecars started so far keep running while each later init container runs.
  Resource sidecars;
  Resource init_peak;
  for (const Container& c : pod.spec.init_containers) {
    Resource need = ContainerRequests(c, non_zero);
    if (c.restart_policy_always) {
      requests.Add(need);
      sidecars.Add(need);
      need = sidecars;
    } else {
      need.Add(sidecars);
    }
    init_peak.SetMax(need);
  }
  requests.SetMax(init_peak);
  if (!pod.spec.overhead.empty()) requests.Add(Resource::FromList(pod.spec.overhead));
  return requests;
}

Resource PodFitRequests(const Pod& pod) {
  Resource r = PodRequests(pod);
  r.allowed_pod_number = 1;
  return r;
}

}  // namespace muster::api
