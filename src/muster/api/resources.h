#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "muster/api/intern.h"
#include "muster/api/quantity.h"

namespace muster::api {

inline constexpr std::string_view kResourceCPU = "cpu";
inline constexpr std::string_view kResourceMemory = "memory";
inline constexpr std::string_view kResourceEphemeralStorage = "ephemeral-storage";
inline constexpr std::string_view kResourcePods = "pods";

// Resource names as upstream classifies them (k8s.io/kubernetes pkg/apis/core/v1/helper).
bool IsHugePageResourceName(std::string_view name);
bool IsPrefixedNativeResource(std::string_view name);
bool IsNativeResource(std::string_view name);
bool IsExtendedResourceName(std::string_view name);
bool IsAttachableVolumeResourceName(std::string_view name);
// Resources the scheduler accounts beyond cpu, memory, ephemeral-storage and pods.
bool IsScalarResourceName(std::string_view name);
// Names a container may request: cpu, memory, ephemeral-storage, hugepages-*, extended.
bool IsContainerResourceName(std::string_view name);

// A resource name to quantity map as it appears in objects (requests, allocatable, minResources).
// Kept sorted by name text so that output is deterministic.
class ResourceList {
 public:
  using Entry = std::pair<Symbol, Quantity>;

  const Quantity* Get(Symbol name) const;
  const Quantity* Get(std::string_view name) const { return Get(Symbol(name)); }
  bool Has(std::string_view name) const { return Get(name) != nullptr; }
  void Set(Symbol name, Quantity q);
  void Set(std::string_view name, Quantity q) { Set(Symbol(name), q); }

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  friend bool operator==(const ResourceList&, const ResourceList&) = default;

 private:
  std::vector<Entry> entries_;
};

// The scheduler's working form of a ResourceList: the four resources every pod and node has in
// fixed slots, the rest (extended resources, hugepages) in a short vector sorted by Symbol id.
// CPU is in millicores; everything else in whole units, as upstream's framework.Resource. Sums
// and differences saturate at the int64 limits (upstream's wrap around).
struct Resource {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t allowed_pod_number = 0;
  std::vector<std::pair<Symbol, int64_t>> scalar;

  static Resource FromList(const ResourceList& list);

  int64_t Scalar(Symbol name) const;
  void SetScalar(Symbol name, int64_t value);
  void AddScalar(Symbol name, int64_t value);

  void Add(const Resource& other);
  void Sub(const Resource& other);
  // Each resource becomes the larger of the two.
  void SetMax(const Resource& other);
  bool IsZero() const;

  friend bool operator==(const Resource&, const Resource&) = default;

  // As a ResourceList (cpu as a decimal quantity, memory in binary units), for output.
  ResourceList ToList() const;
};

}  // namespace muster::api
