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

// Devices in use, each with how many holders it has: in a cluster that went wrong two claims
// may hold one device, and the release of either leaves it in use.
class DeviceSet {
 public:
  void insert(const DeviceId& id) { ++holders_[id]; }
  // One holder fewer; the device is free when none is left.
  void erase(const DeviceId& id) {
    auto it = holders_.find(id);
    if (it != holders_.end() && --it->second == 0) holders_.erase(it);
  }
  bool contains(const DeviceId& id) const { return holders_.contains(id); }
  bool empty() const { return holders_.empty(); }
  size_t size() const { return holders_.size(); }
  // Calls f(id) for each device, in no order.
  template <typename F>
  void ForEach(F&& f) const {
    for (const auto& [id, n] : holders_) f(id);
  }

 private:
  std::unordered_map<DeviceId, uint32_t, DeviceIdHash> holders_;
};

// The devices a claim's allocation holds (admin access aside, which holds nothing), added to
// the set or taken from it.
void AddAllocated(const api::ResourceClaim& claim, DeviceSet* set);
void RemoveAllocated(const api::ResourceClaim& claim, DeviceSet* set);

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
  // A device one node may be given, with its pool and slice.
  struct Candidate {
    const PoolView* pool;
    const api::ResourceSlice* slice;
    const api::Device* device;
    DeviceId id;
  };
  // What one node sees: the pools with slices that reach it, by driver then name, and their
  // devices in the order the search tries them (pools in that order, slices by name, devices
  // as listed).
  struct NodeView {
    std::vector<PoolView> pools;
    std::vector<Candidate> candidates;  // pointing into `pools`
  };
  // When every slice names its node (the usual node-local drivers), each node's view is worked
  // out once, here, and `scratch` is not used; otherwise it is gathered into `scratch`.
  const NodeView& For(const api::LabelSet& labels, api::Symbol node, NodeView* scratch) const;

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
  // With every slice on a named node: each node's view, gathered once.
  std::unordered_map<api::Symbol, NodeView> by_node_views_;

  NodeView Gather(const api::LabelSet& labels, api::Symbol node) const;
};

// Claims to allocate, their requests looked up once (classes, names, counts): what the search
// on each node starts from (Allocator::Prepare). It points into the claims and the classes,
// which must outlive it.
class ClaimRequests {
 public:
  size_t size() const { return claims_.size(); }

 private:
  friend class Allocator;
  friend class Search;

  // A request, or one subrequest of a firstAvailable.
  struct Request {
    std::string name;    // "req" or "req/sub"
    api::Symbol symbol;  // the same, interned (constraints and configurations name it)
    std::string label;   // how messages name it: the request's or the subrequest's name
    api::Symbol parent;  // the request's name
    const api::DeviceRequestSpec* spec = nullptr;
    const api::DeviceClass* cls = nullptr;
    bool all = false;   // allocationMode All: as many as the node has
    int64_t count = 0;  // ExactCount's
    size_t index = 0;   // among every claim's alternatives, for a search's state per node
  };
  struct Claim {
    const api::ResourceClaim* claim = nullptr;
    std::vector<std::vector<Request>> requests;  // the alternatives of each request
    size_t first_request = 0;                    // among every claim's requests
    size_t first_constraint = 0;                 // among every claim's constraints
    // Why the next request could not be prepared: a search that comes this far fails with it.
    // The claims after this one are not prepared.
    std::string error;
  };
  std::vector<Claim> claims_;
  size_t alternatives_ = 0;
  size_t requests_ = 0;
  size_t constraints_ = 0;
};

// One allocation: a result per claim, in the claims' order; or none, with `error` (a fatal
// error: Filter's Error) or without (no devices fit on this node).
struct AllocationOutcome {
  // The search found devices for every claim; `results` holds them when they were asked for.
  bool found = false;
  std::vector<api::AllocationResult> results;
  std::string error;
  // The error is about this node's pools (invalid ones), not the claims: Filter turns the node
  // away rather than failing the attempt.
  bool node_error = false;
  // The search was stopped (Allocate's `stop` said so) before it found an answer.
  bool stopped = false;
  bool ok() const { return error.empty() && found; }
};

// Allocates for one scheduling cycle's claims against the cluster as it was at PreFilter.
class Allocator {
 public:
  // `classes` finds a DeviceClass by name (nullptr when none). `allocated` and `pending`: the
  // devices in use, by claims the cluster has allocated and by claims being allocated.
  Allocator(const Inventory& inventory, const DeviceSet& allocated, const DeviceSet& pending,
            std::function<const api::DeviceClass*(api::Symbol)> classes);

  // The requests of `claims`, for Allocate on many nodes.
  ClaimRequests Prepare(std::span<const api::ResourceClaim* const> claims) const;

  // What a successful Allocate returns: the allocation results, or only that there are some
  // (Filter's verdict: Reserve asks again on the node chosen).
  enum class Answer { kResults, kVerdict };
  // Devices for every claim of `claims` (none allocated yet) on the node. `stop`, when given, is
  // asked now and then while the search goes on (at its first device and every 256th after);
  // when it says true the search ends, `stopped`.
  AllocationOutcome Allocate(const api::LabelSet& labels, api::Symbol node,
                             const ClaimRequests& claims,
                             const std::function<bool()>* stop = nullptr,
                             Answer answer = Answer::kResults) const;
  AllocationOutcome Allocate(const api::LabelSet& labels, api::Symbol node,
                             std::span<const api::ResourceClaim* const> claims,
                             const std::function<bool()>* stop = nullptr,
                             Answer answer = Answer::kResults) const {
    return Allocate(labels, node, Prepare(claims), stop, answer);
  }

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
