// CEL device selectors (api/cel/cel.h): whatever the text, Compile either refuses it with a
// non-empty error or gives a program; a program evaluates against a fixed device to a bool or a
// non-empty runtime error, the same answer every time. Nesting, length and runtime work are
// bounded, so no input may exhaust the stack or run away. Any violation traps.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/cel/cel.h"

using muster::api::DeviceAttribute;
using muster::api::DeviceCapacity;
using muster::api::DeviceView;
using muster::api::Quantity;
using muster::api::SemVer;
using muster::api::Symbol;
namespace cel = muster::api::cel;

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

// A device with one attribute of each kind, in two domains, and two capacities.
const DeviceView& SampleDevice() {
  static const std::vector<DeviceAttribute> attributes = {
      {Symbol("dra.example.com"), Symbol("model"), std::string("a100")},
      {Symbol("dra.example.com"), Symbol("count"), int64_t{8}},
      {Symbol("dra.example.com"), Symbol("enabled"), true},
      {Symbol("dra.example.com"), Symbol("version"), SemVer::Parse("1.2.3-rc.1").value()},
      {Symbol("other.example.com"), Symbol("name"), std::string("x")},
  };
  static const std::vector<DeviceCapacity> capacity = {
      {Symbol("dra.example.com"), Symbol("memory"), Quantity::Parse("40Gi").value()},
      {Symbol("dra.example.com"), Symbol("cores"), Quantity::Parse("1500m").value()},
  };
  static const DeviceView device{"dra.example.com", attributes, capacity, true};
  return device;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const cel::Compiled compiled = cel::Compile(text);
  Check((compiled.program == nullptr) != compiled.error.empty());
  if (!compiled.program) return 0;

  const cel::Result first = cel::Evaluate(*compiled.program, SampleDevice());
  Check(first.error.empty() || !first.matches);
  // Evaluation is deterministic and leaves the program as it was.
  const cel::Result second = cel::Evaluate(*compiled.program, SampleDevice());
  Check(first.matches == second.matches && first.error == second.error);

  // A device with nothing but a driver is a valid input too.
  const DeviceView empty{"", {}, {}, false};
  const cel::Result bare = cel::Evaluate(*compiled.program, empty);
  Check(bare.error.empty() || !bare.matches);
  return 0;
}
