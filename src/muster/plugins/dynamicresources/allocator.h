#pragma once

// The structured allocator (k8s.io/dynamic-resource-allocation/structured): given the devices
// ResourceSlices publish, the devices already allocated, and a pod's claims, find devices for
// every claim on one node, or say that there are none (or why allocating failed outright).
//
// It follows upstream's search: claims in order, their requests in order, each device of a
// request tried in pool order (pools by driver and name, slices by name, devices as listed, as
// upstream's incubating allocator orders them), depth first with backtracking, the first
// complete solution winning. Features: admin access, firstAvailable (prioritized lists), All,
// matchAttribute constraints, device taints and tolerations, partitionable devices (shared
// counters), binding conditions (pools without them first; their conditions copied into the
// results) and bindsToNode. Consumable capacity is not modelled (refused on input).

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "muster/api/dra.h"
#include "muster/api/types.h"

namespace muster::plugins::dynamicresources {

// A device by driver, pool and name; printed "driver/pool/device".
struct DeviceId {
  api::Symbol driver;
  api::Symbol pool;
  api::Symbol device;

  friend bool operator==(const DeviceId&, const DeviceId&) = default;
  std::string String() const;
};

struct DeviceIdHash {
  size_t operator()(const DeviceId& id) const noexcept {
    return (static_cast<size_t>(id.driver.id()) * 0x9E3779B97F4A7C15ull) ^
           (static_cast<size_t>(id.pool.id()) * 0xC2B2AE3D27D4EB4Full) ^
           (static_cast<size_t>(id.device.id()) * 0x165667B19E3779F9ull);
  }
};

using DeviceSet = std::unordered_set<DeviceId, DeviceIdHash>;

// The devices claims' allocations hold (admin access aside, which holds nothing).
void AddAllocated(const api::ResourceClaim& claim, DeviceSet* set);

// The ResourceSlices, indexed once for every node and pod: slices by the node they name, the
// rest apart; pools by driver and name, with the generation that counts and how many slices it
// has.
class Inventory {
 public:
  explicit Inventory(std::vector<const api::ResourceSlice*> slices);

  bool empty() const { return slices_.empty(); }
  // Whether any device consumes shared counters (partitionable devices).
  bool consumes_counters() const { return consumes_counters_; }

  // A pool as one node sees it: the slices of its current generation that reach the node (by
  // name), or incomplete or invalid (with why), when it cannot be used.
  struct PoolView {
    api::Symbol driver;
    api::Symbol name;
    bool incomplete = false;
    std::string invalid;  // why the pool is invalid; empty when it is valid
    std::vector<const api::ResourceSlice*> slices;
    // The pool's counter sets (from every slice of its generation, whichever node they reach).
    std::vector<const api::CounterSet*> counter_sets;
  };
  // The pools with slices that reach the node, by driver then name. When every slice names its
  // node (the usual node-local drivers), each node's are worked out once, here, and `scratch`
  // is not used; otherwise they are gathered into `scratch`.
  const std::vector<PoolView>& PoolsFor(const api::LabelSet& labels, api::Symbol node,
                                        std::vector<PoolView>* scratch) const;

  // The device `id` names, or nullptr (for counters consumed by devices allocated elsewhere).
  const api::Device* Find(const DeviceId& id) const;

 private:
  struct Pool {
    int64_t generation = 0;
    int64_t slices_at_generation = 0;
    int64_t resource_slice_count = 0;
    std::vector<const api::ResourceSlice*> counter_slices;  // of that generation
  };

  std::vector<const api::ResourceSlice*> slices_;
  bool consumes_counters_ = false;
  bool binding_conditions_ = false;  // whether any device has binding conditions
  std::unordered_map<api::Symbol, std::vector<const api::ResourceSlice*>> by_node_;
  std::vector<const api::ResourceSlice*> elsewhere_;  // node selectors, all nodes, per device
  std::unordered_map<uint64_t, Pool> pools_;          // by PairId(driver, pool)
  std::unordered_map<DeviceId, const api::Device*, DeviceIdHash> devices_;
  // With every slice on a named node: each node's pools, gathered once.
  std::unordered_map<api::Symbol, std::vector<PoolView>> by_node_pools_;

  std::vector<PoolView> Gather(const api::LabelSet& labels, api::Symbol node) const;
};

// One allocation: a result per claim, in the claims' order; or none, with `error` (a fatal
// error: Filter's Error) or without (no devices fit on this node).
struct AllocationOutcome {
  std::vector<api::AllocationResult> results;
  std::string error;
  // The error is about this node's pools (invalid ones), not the claims: Filter turns the node
  // away rather than failing the attempt.
  bool node_error = false;
  // The search was stopped (Allocate's `stop` said so) before it found an answer.
  bool stopped = false;
  bool ok() const { return error.empty() && !results.empty(); }
};

// Allocates for one scheduling cycle's claims against the cluster as it was at PreFilter.
class Allocator {
 public:
  // `classes` finds a DeviceClass by name (nullptr when none). `allocated` and `pending`: the
  // devices in use, by claims the cluster has allocated and by claims being allocated.
  Allocator(const Inventory& inventory, const DeviceSet& allocated, const DeviceSet& pending,
            std::function<const api::DeviceClass*(api::Symbol)> classes);

  // Devices for every claim of `claims` (none allocated yet) on the node. `stop`, when given, is
  // asked now and then while the search goes on (at its first device and every 256th after);
  // when it says true the search ends, `stopped`.
  AllocationOutcome Allocate(const api::LabelSet& labels, api::Symbol node,
                             std::span<const api::ResourceClaim* const> claims,
                             const std::function<bool()>* stop = nullptr) const;

  // Why Allocate finds nothing on the node, for `muster explain`: the first request that
  // cannot be met even alone ("claim default/x, request gpu: 3 device(s) of class
  // gpu.example.com match on the node, 3 in use, 1 needed"), or that each can be but not all
  // together.
  std::string Diagnose(const api::LabelSet& labels, api::Symbol node,
                       std::span<const api::ResourceClaim* const> claims) const;

  // What was left in use: the counters consumed from each counter set by allocated devices
  // (by pool, counter set and counter).
  struct CounterKey {
    DeviceId set;  // driver, pool, counter set name
    api::Symbol counter;
    friend bool operator==(const CounterKey&, const CounterKey&) = default;
  };
  struct CounterKeyHash {
    size_t operator()(const CounterKey& k) const noexcept {
      return DeviceIdHash{}(k.set) ^ (static_cast<size_t>(k.counter.id()) * 0x27D4EB2F165667C5ull);
    }
  };

 private:
  friend class Search;
  const Inventory& inventory_;
  const DeviceSet& allocated_;
  const DeviceSet& pending_;
  std::function<const api::DeviceClass*(api::Symbol)> classes_;
  // DRADeviceBindingConditions (with DRAResourceClaimDeviceStatus): devices with binding
  // conditions may be allocated, their conditions copied into the results, and bindsToNode
  // heeded.
  bool binding_conditions_;
  std::unordered_map<CounterKey, api::Quantity, CounterKeyHash> consumed_;
};

// "ns/name", as upstream's klog.KObj prints a claim.
std::string ClaimName(const api::ResourceClaim& claim);

}  // namespace muster::plugins::dynamicresources
