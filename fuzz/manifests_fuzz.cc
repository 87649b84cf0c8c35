// The manifest decoders (api/manifests.h) on any text, as `muster validate -f` and `simulate -f`
// read a file: YAML and JSON (JSON is read as YAML), multi-document, `kind: List`. Bad input must
// come back as errors naming the file, never as a crash or a hang. What decodes cleanly is then
// charged as the scheduler charges it (pod requests, node allocatable), to reach the arithmetic
// on decoded quantities.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "muster/api/manifests.h"
#include "muster/api/pod_resources.h"
#include "muster/api/resources.h"

namespace api = muster::api;

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  api::LoadResult result;
  api::DecodeText(text, "input.yaml", result);
  api::FinishLoad(result);
  for (const std::string& e : result.errors) Check(e.find("input.yaml") != std::string::npos);
  for (const std::string& w : result.warnings) Check(w.starts_with("input.yaml"));
  if (!result.ok()) return 0;

  const api::Manifests& m = result.manifests;
  for (const api::ObjectEntry& e : m.order) Check(e.source.file == "input.yaml");
  api::Resource total;
  for (const api::Pod& pod : m.pods) {
    total.Add(api::PodFitRequests(pod));
    api::PodRequests(pod, {.non_zero = true});
    api::PodNonZeroRequests(pod);
  }
  for (const api::Node& node : m.nodes) {
    api::Resource allocatable = api::Resource::FromList(node.status.allocatable);
    allocatable.Sub(total);
    allocatable.ToList();
  }
  total.ToList();
  return 0;
}
