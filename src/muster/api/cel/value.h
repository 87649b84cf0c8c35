#pragma once

// The evaluator's values: a few words each, pointing into the device, the program or the
// evaluation's arena.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "muster/api/device_values.h"
#include "muster/api/intern.h"
#include "muster/api/quantity.h"
#include "muster/api/semver.h"

namespace muster::api::cel {

enum class Kind : uint8_t {
  kNull,
  kBool,
  kInt,
  kUint,
  kDouble,
  kString,
  kBytes,
  kList,
  kMap,
  kQuantity,
  kSemver,
  kDevice,
  kError,
};

// The device's maps: all attribute domains, the attributes of one domain, and the same for
// capacity. kEmpty is the empty map a lookup of an absent domain gives, as upstream's default.
enum class MapKind : uint8_t { kAttrDomains, kAttrs, kCapDomains, kCaps, kEmpty };

// A CEL value. Strings point into the device, the program or the evaluation's arena; nothing
// here owns memory, so a Value copies as a few words.
struct Value {
  Kind kind = Kind::kNull;
  MapKind map = MapKind::kEmpty;
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    struct {
      const char* data;
      size_t size;
    } s;
    struct {
      const Value* data;
      size_t size;
    } list;
    Symbol domain;
    const SemVer* semver;
    const std::string* error;
    Quantity q;
  };

  Value() : i(0) {}
  static Value Bool(bool v) {
    Value x;
    x.kind = Kind::kBool;
    x.b = v;
    return x;
  }
  static Value Int(int64_t v) {
    Value x;
    x.kind = Kind::kInt;
    x.i = v;
    return x;
  }
  static Value Uint(uint64_t v) {
    Value x;
    x.kind = Kind::kUint;
    x.u = v;
    return x;
  }
  static Value Double(double v) {
    Value x;
    x.kind = Kind::kDouble;
    x.d = v;
    return x;
  }
  static Value String(std::string_view v, Kind kind = Kind::kString) {
    Value x;
    x.kind = kind;
    x.s = {v.data(), v.size()};
    return x;
  }
  static Value List(const Value* data, size_t size) {
    Value x;
    x.kind = Kind::kList;
    x.list = {data, size};
    return x;
  }
  static Value Map(MapKind kind, Symbol domain = Symbol()) {
    Value x;
    x.kind = Kind::kMap;
    x.map = kind;
    x.domain = domain;
    return x;
  }
  static Value Quant(const Quantity& v) {
    Value x;
    x.kind = Kind::kQuantity;
    x.q = v;
    return x;
  }
  static Value Sem(const SemVer* v) {
    Value x;
    x.kind = Kind::kSemver;
    x.semver = v;
    return x;
  }
  static Value Err(const std::string* message) {
    Value x;
    x.kind = Kind::kError;
    x.error = message;
    return x;
  }
  static Value Device() {
    Value x;
    x.kind = Kind::kDevice;
    return x;
  }

  std::string_view str() const { return {s.data, s.size}; }
  bool IsError() const { return kind == Kind::kError; }
};

// Kubernetes' and cel-go's names for a value's type, as its errors print them.
std::string_view ValueTypeName(const Value& v);

// The Go type cel-go names when asked to iterate a value that cannot be.
std::string_view GoTypeName(const Value& v);

// The shared message for an error that carries no detail ("no such overload", "integer
// overflow", "division by zero", ...), so that raising it allocates nothing.
const std::string* StaticError(std::string_view which);

Value NoSuchOverload();

}  // namespace muster::api::cel
