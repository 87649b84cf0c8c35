#pragma once

// CEL device selectors (resource.k8s.io DeviceSelector.cel.expression), with the semantics of
// k8s.io/dynamic-resource-allocation/cel: the single variable `device` (driver, attributes,
// capacity, allowMultipleAllocations), CEL's standard operators and macros, the string extension
// functions, Kubernetes' quantity() and semver() libraries, and cel.bind().
//
// Compile parses and type-checks as cel-go does and reports its errors in cel-go's format,
// prefixed as Kubernetes prefixes them ("compilation failed: ERROR: <input>:1:8: ..."). What can
// be settled once is settled there: literal attribute names are interned, literal regular
// expressions compiled, literal quantity() and semver() arguments parsed.
//
// Evaluate runs per device per node, so the shapes selectors usually take (comparing the driver,
// an attribute or a capacity with a literal, `in` a literal list, && and || of those) allocate
// nothing. Runtime errors read as cel-go's ("no such key: model", "no such overload"), and work is
// bounded by Kubernetes' runtime cost limit for selectors.
//
// Not supported: map literals, optional syntax (`a.?b`, `[?x]`), the map() and filter() macros,
// timestamps and durations, and the list-valued attributes of newer API versions.

#include <memory>
#include <string>
#include <string_view>

#include "muster/api/device_values.h"

namespace muster::api::cel {

// A compiled expression. Immutable: evaluating it from many threads at once is safe.
class Program;

// The outcome of Compile: exactly one of `program` and `error` is set.
struct Compiled {
  std::shared_ptr<const Program> program;
  std::string error;
};

// Parses and checks `expression`, which must evaluate to bool (or to a dynamically typed value,
// checked when evaluated).
Compiled Compile(std::string_view expression);

// Whether `device` matches. A non-empty `error` is a runtime error (a missing attribute, a type
// mismatch under a dynamically typed attribute, the cost limit); `matches` is then false.
struct Result {
  bool matches = false;
  std::string error;
};

Result Evaluate(const Program& program, const DeviceView& device);

// Kubernetes' limits: the code point length cel-go's parser accepts, the nesting depth it
// accepts, and the runtime cost a selector may spend (resource.k8s.io's
// CELSelectorExpressionMaxCost). Cost here counts evaluation steps plus a tenth of each byte a
// string or list operation touches, close to cel-go's tracker but not the same count.
inline constexpr size_t kMaxExpressionCodePoints = 100'000;
inline constexpr int kMaxRecursionDepth = 250;
inline constexpr uint64_t kMaxCost = 1'000'000;

}  // namespace muster::api::cel
