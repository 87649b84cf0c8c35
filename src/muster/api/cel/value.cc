#include "muster/api/cel/value.h"

#include <string>
#include <string_view>

namespace muster::api::cel {

std::string_view ValueTypeName(const Value& v) {
  switch (v.kind) {
    case Kind::kNull:
      return "null_type";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kUint:
      return "uint";
    case Kind::kDouble:
      return "double";
    case Kind::kString:
      return "string";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return "list";
    case Kind::kMap:
      return "map";
    case Kind::kQuantity:
      return "kubernetes.Quantity";
    case Kind::kSemver:
      return "kubernetes.Semver";
    case Kind::kDevice:
      return "kubernetes.DRADevice";
    case Kind::kError:
      return "*error*";
  }
  return "dyn";
}

std::string_view GoTypeName(const Value& v) {
  switch (v.kind) {
    case Kind::kNull:
      return "types.Null";
    case Kind::kBool:
      return "types.Bool";
    case Kind::kInt:
      return "types.Int";
    case Kind::kUint:
      return "types.Uint";
    case Kind::kDouble:
      return "types.Double";
    case Kind::kString:
      return "types.String";
    case Kind::kBytes:
      return "types.Bytes";
    case Kind::kQuantity:
      return "cel.Quantity";
    case Kind::kSemver:
      return "cel.Semver";
    default:
      return "map[string]interface {}";
  }
}

const std::string* StaticError(std::string_view which) {
  // Messages that carry no detail are shared, so raising them allocates nothing.
  static const std::string kNoSuchOverload = "no such overload";
  static const std::string kIntOverflow = "integer overflow";
  static const std::string kUintOverflow = "unsigned integer overflow";
  static const std::string kDivideByZero = "division by zero";
  static const std::string kModulusByZero = "modulus by zero";
  static const std::string kCost = "operation cancelled: actual cost limit exceeded";
  if (which == kIntOverflow) return &kIntOverflow;
  if (which == kUintOverflow) return &kUintOverflow;
  if (which == kDivideByZero) return &kDivideByZero;
  if (which == kModulusByZero) return &kModulusByZero;
  if (which == kCost) return &kCost;
  return &kNoSuchOverload;
}

Value NoSuchOverload() { return Value::Err(StaticError("no such overload")); }

}  // namespace muster::api::cel
