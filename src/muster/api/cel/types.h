#pragma once

// The checker's types: CEL's primitive and parameterized types, and Kubernetes' device,
// quantity and semver types, as cel-go names them.

#include <cstdint>
#include <string>

namespace muster::api::cel {

enum class TypeKind : uint8_t {
  kDyn,
  kError,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kNull,
  kList,
  kMap,
  kDevice,
  kQuantity,
  kSemver,
};

struct Type {
  TypeKind kind;
  const Type* key = nullptr;   // a map's keys
  const Type* elem = nullptr;  // a list's elements, a map's values
};

inline constexpr Type kDynT{TypeKind::kDyn};
inline constexpr Type kErrorT{TypeKind::kError};
inline constexpr Type kBoolT{TypeKind::kBool};
inline constexpr Type kIntT{TypeKind::kInt};
inline constexpr Type kUintT{TypeKind::kUint};
inline constexpr Type kDoubleT{TypeKind::kDouble};
inline constexpr Type kStringT{TypeKind::kString};
inline constexpr Type kBytesT{TypeKind::kBytes};
inline constexpr Type kNullT{TypeKind::kNull};
inline constexpr Type kDeviceT{TypeKind::kDevice};
inline constexpr Type kQuantityT{TypeKind::kQuantity};
inline constexpr Type kSemverT{TypeKind::kSemver};
inline constexpr Type kListDynT{TypeKind::kList, nullptr, &kDynT};
inline constexpr Type kListStringT{TypeKind::kList, nullptr, &kStringT};
inline constexpr Type kMapDynT{TypeKind::kMap, &kDynT, &kDynT};
inline constexpr Type kAttrsT{TypeKind::kMap, &kStringT, &kDynT};
inline constexpr Type kAttrDomainsT{TypeKind::kMap, &kStringT, &kAttrsT};
inline constexpr Type kCapsT{TypeKind::kMap, &kStringT, &kQuantityT};
inline constexpr Type kCapDomainsT{TypeKind::kMap, &kStringT, &kCapsT};

// cel-go's name of a type, as its errors print it: "int", "list(string)", "kubernetes.Quantity".
std::string TypeName(const Type* t);

bool SameType(const Type* a, const Type* b);

// cel-go's assignability, without type parameters: dyn (and an earlier error) goes anywhere.
bool Assignable(const Type* to, const Type* from);

}  // namespace muster::api::cel
