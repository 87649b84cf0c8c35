#pragma once

// What DRA drivers do for devices with binding conditions (KEP-5007), for simulate (a real
// cluster's drivers, or the controllers that attach their devices, do it there): when a claim
// is allocated with such a device, its driver readies the device and reports every binding
// condition True in the claim's status.devices. A device is ready at once, or the
// `muster.dev/binding-after` of the ResourceSlice that publishes it after it was first
// allocated (later allocations wait what is left of that, as an attachment under way would).
// With `muster.dev/binding-fails-after` (shorter than binding-after, when both are given), the
// device's first allocation fails instead: its first failure condition is reported True then. The
// scheduler, waiting at PreBind, binds the pod, or gives the claim up and tries again
// (DynamicResources).

#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "muster/cluster/cluster.h"
#include "muster/cluster/memory.h"

namespace muster::sim {

inline constexpr std::string_view kBindingAfter = "muster.dev/binding-after";
inline constexpr std::string_view kBindingFailsAfter = "muster.dev/binding-fails-after";

class DeviceDriver final : public cluster::TypedObserver<DeviceDriver> {
 public:
  // `at` runs a function that long from now (the simulation's own timers, which it waits for).
  using At = std::function<void(api::Duration, std::function<void()>)>;
  DeviceDriver(cluster::MemoryCluster& cluster, framework::Clock& clock, At at)
      : cluster_(cluster), clock_(clock), at_(std::move(at)) {}

  void Added(const api::Shared<api::ResourceClaim>& claim) { Look(*claim); }
  void Updated(const api::Shared<api::ResourceClaim>&,
               const api::Shared<api::ResourceClaim>& claim) {
    Look(*claim);
  }

 private:
  // A device by driver, pool and name.
  using Device = std::tuple<api::Symbol, api::Symbol, api::Symbol>;
  // A device of an allocation: the claim's uid, when it was allocated, and the device.
  using Key = std::tuple<std::string, api::Time, Device>;

  void Look(const api::ResourceClaim& claim);
  // Reports the device's conditions, if the claim still holds that allocation.
  void Report(const std::string& claim_key, const Key& key, bool failed);

  cluster::MemoryCluster& cluster_;
  framework::Clock& clock_;
  At at_;
  std::set<Key> seen_;
  std::map<Device, api::Time> ready_at_;  // from the device's first allocation
};

}  // namespace muster::sim
