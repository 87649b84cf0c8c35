#include "muster/api/resources.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "muster/api/labels.h"

namespace muster::api {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Sums saturate at the int64 limits instead of overflowing: one quantity may come near them
// ("9E" of memory is valid), and a pod or a node adds several.
int64_t Plus(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) return b > 0 ? INT64_MAX : INT64_MIN;
  return sum;
}

int64_t Minus(int64_t a, int64_t b) {
  int64_t difference;
  if (__builtin_sub_overflow(a, b, &difference)) return b < 0 ? INT64_MAX : INT64_MIN;
  return difference;
}

}  // namespace

bool IsHugePageResourceName(std::string_view name) { return StartsWith(name, "hugepages-"); }

bool IsPrefixedNativeResource(std::string_view name) {
  return name.find("kubernetes.io/") != std::string_view::npos;
}

bool IsNativeResource(std::string_view name) {
  return name.find('/') == std::string_view::npos || IsPrefixedNativeResource(name);
}

bool IsExtendedResourceName(std::string_view name) {
  if (IsNativeResource(name) || StartsWith(name, "requests.")) return false;
  return IsValidLabelKey(std::string("requests.") + std::string(name));
}

bool IsAttachableVolumeResourceName(std::string_view name) {
  return StartsWith(name, "attachable-volumes-");
}

bool IsScalarResourceName(std::string_view name) {
  return IsExtendedResourceName(name) || IsHugePageResourceName(name) ||
         IsPrefixedNativeResource(name) || IsAttachableVolumeResourceName(name);
}

bool IsContainerResourceName(std::string_view name) {
  return name == kResourceCPU || name == kResourceMemory || name == kResourceEphemeralStorage ||
         IsHugePageResourceName(name) || IsExtendedResourceName(name);
}

const Quantity* ResourceList::Get(Symbol name) const {
  for (const auto& [n, q] : entries_) {
    if (n == name) return &q;
  }
  return nullptr;
}

void ResourceList::Set(Symbol name, Quantity q) {
  for (auto& [n, existing] : entries_) {
    if (n == name) {
      existing = q;
      return;
    }
  }
  auto pos =
      std::lower_bound(entries_.begin(), entries_.end(), name.str(),
                       [](const Entry& e, std::string_view text) { return e.first.str() < text; });
  entries_.insert(pos, Entry{name, q});
}

Resource Resource::FromList(const ResourceList& list) {
  Resource r;
  for (const auto& [name, q] : list) {
    const std::string_view text = name.str();
    if (text == kResourceCPU) {
      r.milli_cpu = Plus(r.milli_cpu, q.MilliValue());
    } else if (text == kResourceMemory) {
      r.memory = Plus(r.memory, q.Value());
    } else if (text == kResourcePods) {
      r.allowed_pod_number = Plus(r.allowed_pod_number, q.Value());
    } else if (text == kResourceEphemeralStorage) {
      r.ephemeral_storage = Plus(r.ephemeral_storage, q.Value());
    } else if (IsScalarResourceName(text)) {
      r.AddScalar(name, q.Value());
    }
  }
  return r;
}

int64_t Resource::Scalar(Symbol name) const {
  for (const auto& [n, v] : scalar) {
    if (n == name) return v;
  }
  return 0;
}

void Resource::SetScalar(Symbol name, int64_t value) {
  auto pos = std::lower_bound(scalar.begin(), scalar.end(), name,
                              [](const auto& e, Symbol s) { return e.first < s; });
  if (pos != scalar.end() && pos->first == name) {
    pos->second = value;
  } else {
    scalar.insert(pos, {name, value});
  }
}

void Resource::AddScalar(Symbol name, int64_t value) {
  auto pos = std::lower_bound(scalar.begin(), scalar.end(), name,
                              [](const auto& e, Symbol s) { return e.first < s; });
  if (pos != scalar.end() && pos->first == name) {
    pos->second = Plus(pos->second, value);
  } else {
    scalar.insert(pos, {name, value});
  }
}

void Resource::Add(const Resource& other) {
  milli_cpu = Plus(milli_cpu, other.milli_cpu);
  memory = Plus(memory, other.memory);
  ephemeral_storage = Plus(ephemeral_storage, other.ephemeral_storage);
  allowed_pod_number = Plus(allowed_pod_number, other.allowed_pod_number);
  for (const auto& [name, value] : other.scalar) AddScalar(name, value);
}

void Resource::Sub(const Resource& other) {
  milli_cpu = Minus(milli_cpu, other.milli_cpu);
  memory = Minus(memory, other.memory);
  ephemeral_storage = Minus(ephemeral_storage, other.ephemeral_storage);
  allowed_pod_number = Minus(allowed_pod_number, other.allowed_pod_number);
  for (const auto& [name, value] : other.scalar) SetScalar(name, Minus(Scalar(name), value));
}

void Resource::SetMax(const Resource& other) {
  milli_cpu = std::max(milli_cpu, other.milli_cpu);
  memory = std::max(memory, other.memory);
  ephemeral_storage = std::max(ephemeral_storage, other.ephemeral_storage);
  allowed_pod_number = std::max(allowed_pod_number, other.allowed_pod_number);
  for (const auto& [name, value] : other.scalar) {
    if (value > Scalar(name)) SetScalar(name, value);
  }
}

bool Resource::IsZero() const {
  return milli_cpu == 0 && memory == 0 && ephemeral_storage == 0 && allowed_pod_number == 0 &&
         std::all_of(scalar.begin(), scalar.end(), [](const auto& e) { return e.second == 0; });
}

ResourceList Resource::ToList() const {
  ResourceList list;
  if (milli_cpu != 0)
    list.Set(kResourceCPU, Quantity::FromMilli(milli_cpu, QuantityFormat::kDecimalSI));
  if (memory != 0)
    list.Set(kResourceMemory, Quantity::FromValue(memory, QuantityFormat::kBinarySI));
  if (ephemeral_storage != 0) {
    list.Set(kResourceEphemeralStorage,
             Quantity::FromValue(ephemeral_storage, QuantityFormat::kBinarySI));
  }
  if (allowed_pod_number != 0) {
    list.Set(kResourcePods, Quantity::FromValue(allowed_pod_number, QuantityFormat::kDecimalSI));
  }
  for (const auto& [name, value] : scalar) {
    list.Set(name, Quantity::FromValue(value, IsHugePageResourceName(name.str())
                                                  ? QuantityFormat::kBinarySI
                                                  : QuantityFormat::kDecimalSI));
  }
  return list;
}

}  // namespace muster::api
