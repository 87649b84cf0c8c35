#include "muster/sim/device_driver.h"

#include <algorithm>

#include "muster/sim/annotations.h"

namespace muster::sim {
namespace {

// The slice's duration annotation, or nullopt (no slice, or no annotation).
std::optional<api::Duration> After(const api::ResourceSlice* slice, std::string_view key) {
  return slice == nullptr ? std::nullopt : AnnotatedDuration(slice->metadata, key);
}

}  // namespace

void DeviceDriver::Look(const api::ResourceClaim& claim) {
  const std::optional<api::AllocationResult>& allocation = claim.status.allocation;
  if (!allocation) return;
  const api::Time allocated = allocation->allocation_timestamp.value_or(api::Time{});
  for (const api::DeviceRequestAllocationResult& r : allocation->devices) {
    if (r.binding_conditions.empty()) continue;
    const Device device{r.driver, r.pool, r.device};
    const Key key{claim.metadata.uid, allocated, device};
    if (!seen_.insert(key).second) continue;
    // The slice of the pool's newest generation that publishes the device.
    const api::ResourceSlice* from = nullptr;
    for (const auto& [name, slice] : cluster_.Objects<api::ResourceSlice>()) {
      if (slice->spec.driver != r.driver || slice->spec.pool.name != r.pool) continue;
      if (from != nullptr && from->spec.pool.generation > slice->spec.pool.generation) continue;
      const bool has = std::any_of(slice->spec.devices.begin(), slice->spec.devices.end(),
                                   [&](const api::Device& d) { return d.name == r.device; });
      if (has) from = slice.get();
    }
    const api::Time now = clock_.Now();
    const std::optional<api::Duration> after = After(from, kBindingAfter);
    const auto [ready, first] =
        ready_at_.try_emplace(device, now + after.value_or(api::Duration::zero()));
    const std::optional<api::Duration> fails = After(from, kBindingFailsAfter);
    const bool failed = first && fails && (!after || *fails < *after);
    const api::Duration wait =
        failed ? *fails : std::max(ready->second - now, api::Duration::zero());
    at_(wait,
        [this, claim_key = claim.metadata.Key(), key, failed] { Report(claim_key, key, failed); });
  }
}

void DeviceDriver::Report(const std::string& claim_key, const Key& key, bool failed) {
  const auto& [uid, allocated, which] = key;
  // Named references, not bindings: the lambdas below use them, and clang 14 (the fuzz build's)
  // does not capture structured bindings.
  const auto& driver = std::get<0>(which);
  const auto& pool = std::get<1>(which);
  const auto& device = std::get<2>(which);
  const api::ResourceClaim* claim = cluster_.Get<api::ResourceClaim>(claim_key);
  if (claim == nullptr || claim->metadata.uid != uid || !claim->status.allocation ||
      claim->status.allocation->allocation_timestamp.value_or(api::Time{}) != allocated) {
    return;  // deallocated, or allocated anew, in the meantime
  }
  const auto& results = claim->status.allocation->devices;
  auto result = std::find_if(results.begin(), results.end(), [&](const auto& r) {
    return r.driver == driver && r.pool == pool && r.device == device;
  });
  if (result == results.end()) return;
  api::ResourceClaim updated = *claim;
  auto status = std::find_if(updated.status.devices.begin(), updated.status.devices.end(),
                             [&](const api::AllocatedDeviceStatus& d) {
                               return d.driver == driver && d.pool == pool && d.device == device;
                             });
  if (status == updated.status.devices.end()) {
    updated.status.devices.push_back(api::AllocatedDeviceStatus{driver, pool, device, {}, {}});
    status = std::prev(updated.status.devices.end());
  }
  auto set = [&](const std::string& type, std::string reason, std::string message) {
    const api::Symbol symbol(type);
    std::erase_if(status->conditions, [&](const api::Condition& c) { return c.type == symbol; });
    status->conditions.push_back(api::Condition{symbol, api::Symbol("True"), std::move(reason),
                                                std::move(message), clock_.Now()});
  };
  if (failed && !result->binding_failure_conditions.empty()) {
    set(result->binding_failure_conditions.front(), "BindingFailed",
        "the simulated driver failed to prepare the device (muster.dev/binding-fails-after)");
  } else {
    for (const std::string& type : result->binding_conditions) {
      set(type, "Ready", "the simulated driver prepared the device");
    }
  }
  cluster_.Update(std::move(updated));
}

}  // namespace muster::sim
