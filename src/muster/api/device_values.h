#pragma once

// What a device of a ResourceSlice publishes of itself (resource.k8s.io/v1): its attributes and
// its capacity, each under a qualified name "<domain>/<name>", the domain defaulting to the
// driver's name. Device selectors (CEL, api/cel/cel.h) read them.

#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "muster/api/intern.h"
#include "muster/api/quantity.h"
#include "muster/api/semver.h"

namespace muster::api {

// A device attribute's value: exactly one of bool, int, string and version.
using AttributeValue = std::variant<bool, int64_t, std::string, SemVer>;

// One attribute, its name split: "gpu.example.com/model" is domain "gpu.example.com" and name
// "model"; a name without a domain has the driver's name as its domain.
struct DeviceAttribute {
  Symbol domain;
  Symbol name;
  AttributeValue value;
};

struct DeviceCapacity {
  Symbol domain;
  Symbol name;
  Quantity value;
};

// What a selector sees of one device: CEL's `device`.
struct DeviceView {
  std::string_view driver;
  std::span<const DeviceAttribute> attributes;
  std::span<const DeviceCapacity> capacity;
  bool allow_multiple_allocations = false;
};

}  // namespace muster::api
