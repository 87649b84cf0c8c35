#pragma once

// DynamicResources (upstream pkg/scheduler/framework/plugins/dynamicresources): a pod's
// ResourceClaims (resource.k8s.io/v1) decide where it may run, and get their devices while it
// is placed.
//  - PreEnqueue: every claim exists (a template's was made for the pod), none is being deleted.
//  - PreFilter: the classes exist, no claim is being allocated for another pod; an allocated
//    claim's node selector limits the nodes; Skip for a pod without claims.
//  - Filter: the structured allocator finds devices for the unallocated claims on the node
//    ("cannot allocate all claims"); an allocated claim reaches the node. A search that runs
//    past the args' filterTimeout fails the attempt with an Error (1.36: a timeout may pass,
//    so the pod retries after its backoff rather than wait for an event).
//  - PostFilter: when no node fits, an allocated claim that keeps the pod off every node and
//    that no other pod uses is deallocated, so that the next attempt may allocate it anew.
//  - Score: with firstAvailable requests, nodes where earlier subrequests fit score higher.
//  - Reserve finds the devices on the chosen node again (Filter keeps verdicts, and
//    allocations only for Score) and holds them in memory (other pods' cycles see them in
//    use); Unreserve lets them go; PreBind writes the allocation (with its
//    allocationTimestamp), the finalizer and the pod's reservation.
//  - Binding conditions (DRADeviceBindingConditions, beta and on in 1.37): a pod whose devices
//    wait for them is bound once their drivers set them True in the claim's status.devices;
//    a failure condition, or bindingTimeout from the allocation, fails the binding, and the
//    claim, unavailable to every node from then on, is deallocated at PostFilter.
// Every status but PostFilter's is UnschedulableAndUnresolvable or Error, as upstream's.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/dra.h"
#include "muster/framework/handle.h"
#include "muster/framework/interface.h"
#include "muster/framework/registry.h"
#include "muster/plugins/dynamicresources/allocator.h"
#include "muster/plugins/dynamicresources/args.h"
#include "muster/plugins/helper/device_classes.h"

namespace prometheus {
class Counter;
class Histogram;
template <typename T>
class Family;
}  // namespace prometheus

namespace muster::plugins::dynamicresources {

inline constexpr std::string_view kName = "DynamicResources";

inline constexpr std::string_view kErrCannotAllocate = "cannot allocate all claims";
inline constexpr std::string_view kErrLeftOverExtendedClaim =
    "cannot schedule extended resource claim";

// An extended resource a pod asks for that a DeviceClass serves (DRAExtendedResource).
using ExtendedResource = helper::DeviceBackedResource;

// A pod's claim for its extended resources as one node needs it, and which of its requests each
// container's resource uses.
struct ExtendedClaim {
  std::shared_ptr<const api::ResourceClaim> claim;
  std::vector<api::ContainerExtendedResourceRequest> mappings;
};

// Upstream's createRequestsAndMappings: the requests of a pod's claim for its extended
// `resources` (sorted by name), and which of them each container's resource uses. A regular
// container or a sidecar asking for n of a resource gets a request of n devices, named
// "container-<index in init and regular containers>-request-<index of the resource among its
// sorted requests>"; a plain init container first uses the requests of the sidecars and regular
// containers that start after it and asks only for what they lack, and of the plain init
// containers' own requests only the largest stays (they run one after the other), the others'
// mappings pointing to it. The requests come sorted by name.
void ExtendedResourceRequests(const api::Pod& pod, std::span<const ExtendedResource> resources,
                              std::vector<api::DeviceRequest>* requests,
                              std::vector<api::ContainerExtendedResourceRequest>* mappings);
inline constexpr std::string_view kErrNotAvailable = "resourceclaim not available on the node";

class DynamicResources final : public framework::PreEnqueuePlugin,
                               public framework::PreFilterPlugin,
                               public framework::FilterPlugin,
                               public framework::PostFilterPlugin,
                               public framework::PreScorePlugin,
                               public framework::ScorePlugin,
                               public framework::ReservePlugin,
                               public framework::PreBindPlugin,
                               public framework::EnqueueExtensions {
 public:
  static constexpr std::string_view kStateKey = "PreFilterDynamicResources";

  static std::unique_ptr<framework::Plugin> New(const framework::PluginArgs& args,
                                                framework::Handle& handle, std::string* error);
  explicit DynamicResources(framework::Handle& handle,
                            const DynamicResourcesArgs& args = DefaultArgs());

  // The args a profile without pluginConfig for the plugin gets.
  static DynamicResourcesArgs DefaultArgs();
  // What filterTimeout is measured on: the process's monotonic clock, unless a test gives another.
  using MonotonicClock = std::function<std::chrono::steady_clock::time_point()>;
  void SetMonotonicClockForTest(MonotonicClock clock) { monotonic_ = std::move(clock); }

  std::string_view Name() const override { return kName; }

  framework::Status PreEnqueue(const api::Pod& pod) override;
  framework::Status PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                              std::span<framework::NodeInfo* const> nodes,
                              framework::PreFilterResult* result) override;
  framework::Status Filter(const framework::CycleState& state, const framework::PodInfo& pod,
                           const framework::NodeInfo& node) const override;
  framework::Status PostFilter(framework::CycleState& state, const framework::PodInfo& pod,
                               const framework::NodeToStatus& statuses,
                               framework::PostFilterResult* result) override;
  // Skip unless a claim to allocate has firstAvailable requests (nothing else scores).
  framework::Status PreScore(framework::CycleState& state, const framework::PodInfo& pod,
                             std::span<framework::NodeInfo* const> feasible) override;
  framework::Status Score(const framework::CycleState& state, const framework::PodInfo& pod,
                          const framework::NodeInfo& node, int64_t* score) const override;
  bool HasNormalizeScore() const override { return true; }
  framework::Status NormalizeScore(const framework::CycleState& state,
                                   const framework::PodInfo& pod,
                                   std::span<framework::NodeScore> scores) const override;
  framework::Status Reserve(framework::CycleState& state, const framework::PodInfo& pod,
                            api::Symbol node) override;
  void Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                 api::Symbol node) override;
  // Writes the allocations and reservations; with devices that wait for binding conditions,
  // Wait (a BindingConditionsPending event), and PreBindWait lets the binding go on once their
  // drivers have set them, or fails it when one says the binding failed or bindingTimeout ran
  // out.
  framework::Status PreBind(framework::CycleState& state, const framework::PodInfo& pod,
                            api::Symbol node) override;
  framework::Status PreBindWait(framework::CycleState& state, const framework::PodInfo& pod,
                                api::Symbol node, api::Duration waited) override;
  // Success when the pod has claims, which PreBind writes (upstream's PreBindPreFlight looks no
  // further), Skip when it has none.
  framework::Status PreBindPreFlight(const framework::CycleState& state,
                                     const framework::PodInfo& pod,
                                     api::Symbol node) const override;
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override;

  // The claim as this plugin sees it: the cluster's, or what Reserve and PreBind made of it
  // while the cluster still holds the version they started from.
  std::shared_ptr<const api::ResourceClaim> FindClaim(api::Symbol ns, api::Symbol name) const;
  // The devices the allocation `result` holds, and the node selector, as explain tells them.
  static std::string Describe(const api::AllocationResult& result);

  // The cycle's state (defined in dynamic_resources.cc, whose helpers take it).
  struct State;

 private:
  // Filter's search on `node` for `claims` (the pod's to allocate, and the node's variant of
  // its claim for extended resources); the allocation is kept for Score when it scores.
  framework::Status FilterClaims(const State& s, const framework::NodeInfo& node,
                                 const ClaimRequests* claims) const;

  struct Assumed {
    std::string base_version;  // the cluster's resourceVersion it was assumed on
    std::shared_ptr<const api::ResourceClaim> claim;
    std::string pod_uid;
    bool written = false;  // PreBind wrote it; until then it is being allocated
    // A pod's claim for its extended resources, not created yet (keyed by ExtendedKey): no
    // stored claim makes it stale.
    bool unborn = false;
  };

  // The claim an earlier attempt made for the pod's extended resources, or null.
  std::shared_ptr<const api::ResourceClaim> FindExtendedClaim(const api::Pod& pod) const;
  // The key of the pod's claim for its extended resources in assumed_ before it is created.
  static std::string ExtendedKey(const api::Pod& pod);

  // The pod's claims, in its order (entries the controller decided need no claim left out), or
  // why they cannot be had.
  framework::Status PodClaims(const api::Pod& pod,
                              std::vector<std::shared_ptr<const api::ResourceClaim>>* out) const;
  // The slices, indexed, rebuilt when their table changes; the devices allocated in the
  // cluster, brought up to date with the claims' changes since the last cycle.
  std::shared_ptr<const Inventory> CurrentInventory();
  std::shared_ptr<const DeviceSet> CurrentAllocated();
  void ForgetStale();

  framework::Handle& handle_;
  // How long Filter may search one node; zero or nullopt: as long as it takes.
  std::optional<api::Duration> filter_timeout_;
  // How long devices may wait for their binding conditions; nullopt with the feature off.
  std::optional<api::Duration> binding_timeout_;
  prometheus::Family<prometheus::Counter>* binding_allocations_ = nullptr;
  prometheus::Family<prometheus::Histogram>* binding_wait_ = nullptr;
  MonotonicClock monotonic_ = [] { return std::chrono::steady_clock::now(); };
  uint64_t slices_version_ = ~uint64_t{0};
  std::shared_ptr<const Inventory> inventory_;
  // The devices the cluster's claims hold, kept up to date from the claim table's changes.
  uint64_t claims_version_ = 0;
  std::shared_ptr<DeviceSet> allocated_;
  // Claims being allocated or written, by namespace/name. PreBind runs on the binding thread.
  mutable std::mutex mu_;
  std::map<std::string, Assumed, std::less<>> assumed_;
};

}  // namespace muster::plugins::dynamicresources
