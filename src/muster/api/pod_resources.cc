#include "muster/api/pod_resources.h"

#include <algorithm>

#include "muster/api/feature_gates.h"

namespace muster::api {
namespace {

// Which of a container's lists a sum reads (upstream containerSpecRequests,
// containerAllocatedRequests, containerActuatedRequests and containerSpecLimits).
enum class Source { kSpec, kAllocated, kActuated, kLimits };

// The defaults a container that does not name cpu (memory) is charged, if any.
struct Defaults {
  bool cpu = false;
  bool memory = false;
};

const ContainerResourcesStatus* FindStatus(const PodResourcesStatus* status,
                                           const std::string& name) {
  if (status == nullptr) return nullptr;
  for (const ContainerResourcesStatus& s : status->containers) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// The list `source` reads for the container; nullptr counts nothing (an infeasible resize the
// kubelet reported nothing about).
const ResourceList* ContainerList(const Container& c, const PodResourcesStatus* status,
                                  Source source, bool infeasible) {
  if (source == Source::kSpec) return &c.resources.requests;
  if (source == Source::kLimits) return &c.resources.limits;
  if (const ContainerResourcesStatus* s = FindStatus(status, c.name)) {
    if (source == Source::kActuated && s->resources.actuated) return &*s->resources.actuated;
    if (s->resources.allocated) return &*s->resources.allocated;
  }
  return infeasible ? nullptr : &c.resources.requests;
}

Resource ListRequests(const ResourceList* list, Defaults defaults) {
  Resource r = list != nullptr ? Resource::FromList(*list) : Resource();
  if (defaults.cpu && (list == nullptr || !list->Has(kResourceCPU))) {
    r.milli_cpu = kDefaultMilliCPURequest;
  }
  if (defaults.memory && (list == nullptr || !list->Has(kResourceMemory))) {
    r.memory = kDefaultMemoryRequest;
  }
  return r;
}

// The containers' sum by the sidecar rule, each container read from `source` (upstream
// aggregateContainerResourcesByFn).
Resource Aggregate(const PodSpec& spec, const PodResourcesStatus* status, Source source,
                   bool infeasible, Defaults defaults) {
  auto requests = [&](const Container& c) {
    return ListRequests(ContainerList(c, status, source, infeasible), defaults);
  };
  Resource sum;
  for (const Container& c : spec.containers) sum.Add(requests(c));

  // Sidecars started so far keep running while each later init container runs.
  Resource sidecars;
  Resource init_peak;
  for (const Container& c : spec.init_containers) {
    Resource need = requests(c);
    if (c.restart_policy_always) {
      sum.Add(need);
      sidecars.Add(need);
      need = sidecars;
    } else {
      need.Add(sidecars);
    }
    init_peak.SetMax(need);
  }
  sum.SetMax(init_peak);
  return sum;
}

// The kubelet's pod-level figures count (InPlacePodLevelResourcesVerticalScaling).
bool PodLevelResize() {
  return Features().Enabled(Feature::kInPlacePodLevelResourcesVerticalScaling);
}

int64_t Amount(Symbol name, const Quantity& q) {
  return name.str() == kResourceCPU ? q.MilliValue() : q.Value();
}

// Sets the resource `name` of `r` to `value` (a pod-level figure replacing the containers').
void Replace(Resource& r, Symbol name, int64_t value) {
  const std::string_view text = name.str();
  if (text == kResourceCPU) {
    r.milli_cpu = value;
  } else if (text == kResourceMemory) {
    r.memory = value;
  } else {
    r.SetScalar(name, value);
  }
}

// The pod-level requests replace the containers' figures for the resources they name (upstream
// applyPodLevelResources). Where the kubelet reports the pod's own resources, each is the larger
// of the spec's (unless the resize is infeasible) and the kubelet's less the overhead (upstream
// effectivePodLevelResources).
void ApplyPodLevel(Resource& requests, const Pod& pod, const ResourcesStatus* status,
                   bool infeasible) {
  std::vector<std::pair<Symbol, int64_t>> effective;
  auto merge = [&](Symbol name, int64_t value) {
    auto it = std::find_if(effective.begin(), effective.end(),
                           [&](const auto& e) { return e.first == name; });
    if (it == effective.end()) {
      effective.emplace_back(name, value);
    } else {
      it->second = std::max(it->second, value);
    }
  };
  if (status == nullptr || !infeasible) {
    for (const auto& [name, q] : pod.spec.resources->requests) merge(name, Amount(name, q));
  }
  if (status != nullptr) {
    for (const auto* list : {&status->actuated, &status->allocated}) {
      if (!*list) continue;
      for (const auto& [name, q] : **list) {
        int64_t value = Amount(name, q);
        if (const Quantity* overhead = pod.spec.overhead.Get(name)) {
          value = std::max<int64_t>(0, value - Amount(name, *overhead));
        }
        merge(name, value);
      }
    }
  }
  for (const auto& [name, value] : effective) {
    if (IsSupportedPodLevelResource(name.str())) Replace(requests, name, value);
  }
}

Resource Requests(const Pod& pod, RequestOptions options, Defaults defaults) {
  const PodResourcesStatus* status = options.use_status ? pod.status.resources.get() : nullptr;
  Resource requests;
  bool infeasible = false;
  if (status == nullptr) {
    requests = Aggregate(pod.spec, nullptr, Source::kSpec, false, defaults);
  } else {
    // Each sum is taken whole, then the larger of them per resource (upstream's max of the spec,
    // allocated and actuated aggregates); the pod's own figures stand for the containers' when
    // the kubelet reports both.
    infeasible = IsPodResizeInfeasible(pod);
    if (!infeasible) requests = Aggregate(pod.spec, status, Source::kSpec, false, defaults);
    if (PodLevelResize() && status->pod.allocated && status->pod.actuated) {
      requests.SetMax(Resource::FromList(*status->pod.allocated));
      requests.SetMax(Resource::FromList(*status->pod.actuated));
    } else {
      requests.SetMax(Aggregate(pod.spec, status, Source::kAllocated, infeasible, defaults));
      requests.SetMax(Aggregate(pod.spec, status, Source::kActuated, infeasible, defaults));
    }
  }
  if (HasPodLevelRequests(pod)) {
    const ResourcesStatus* level = nullptr;
    if (status != nullptr && PodLevelResize() && (status->pod.allocated || status->pod.actuated)) {
      level = &status->pod;
    }
    ApplyPodLevel(requests, pod, level, infeasible);
  }
  if (!pod.spec.overhead.empty()) requests.Add(Resource::FromList(pod.spec.overhead));
  return requests;
}

// Whether the pod's requests, before the defaults, name `resource` at all: a list PodRequests
// reads, the pod-level requests or the overhead (upstream's key in the computed requests).
bool Names(const Pod& pod, std::string_view resource) {
  auto in = [&](const ResourceList& list) { return list.Has(resource); };
  auto in_optional = [&](const std::optional<ResourceList>& list) { return list && in(*list); };
  const PodResourcesStatus* status = pod.status.resources.get();
  if (status == nullptr || !IsPodResizeInfeasible(pod)) {
    for (const auto* containers : {&pod.spec.containers, &pod.spec.init_containers}) {
      for (const Container& c : *containers) {
        if (in(c.resources.requests)) return true;
      }
    }
  }
  if (status != nullptr) {
    for (const ContainerResourcesStatus& s : status->containers) {
      if (in_optional(s.resources.allocated) || in_optional(s.resources.actuated)) return true;
    }
    if (PodLevelResize() &&
        (in_optional(status->pod.allocated) || in_optional(status->pod.actuated))) {
      return true;
    }
  }
  return in(pod.spec.resources->requests) || in(pod.spec.overhead);
}

}  // namespace

bool IsSupportedPodLevelResource(std::string_view name) {
  return name == kResourceCPU || name == kResourceMemory || IsHugePageResourceName(name);
}

bool HasPodLevelRequests(const Pod& pod) {
  if (pod.spec.resources == nullptr || !Features().Enabled(Feature::kPodLevelResources)) {
    return false;
  }
  for (const auto& [name, q] : pod.spec.resources->requests) {
    if (IsSupportedPodLevelResource(name.str())) return true;
  }
  return false;
}

bool IsPodResizeInfeasible(const Pod& pod) {
  const Condition* c = FindCondition(pod.status.conditions, "PodResizePending");
  return c != nullptr && c->reason == "Infeasible";
}

Resource ContainerRequestsSum(const PodSpec& spec) {
  return Aggregate(spec, nullptr, Source::kSpec, false, {});
}

Resource ContainerLimitsSum(const PodSpec& spec) {
  return Aggregate(spec, nullptr, Source::kLimits, false, {});
}

Resource PodRequests(const Pod& pod, RequestOptions options) {
  return Requests(pod, options, {options.non_zero, options.non_zero});
}

Resource PodNonZeroRequests(const Pod& pod) {
  if (!HasPodLevelRequests(pod)) return PodRequests(pod, {.non_zero = true});
  return Requests(pod, {}, {!Names(pod, kResourceCPU), !Names(pod, kResourceMemory)});
}

Resource PodFitRequests(const Pod& pod) {
  Resource r = PodRequests(pod);
  r.allowed_pod_number = 1;
  return r;
}

bool StatusChangesRequests(const Pod& pod) {
  if (pod.status.resources == nullptr) return false;
  if (IsPodResizeInfeasible(pod) || HasPodLevelRequests(pod)) return true;
  for (const bool non_zero : {false, true}) {
    if (!(PodRequests(pod, {.use_status = true, .non_zero = non_zero}) ==
          PodRequests(pod, {.use_status = false, .non_zero = non_zero}))) {
      return true;
    }
  }
  return false;
}

}  // namespace muster::api
