// What `muster run` reads from the API server (cluster/kube/decode.h): a list's body or the lines
// of a watch stream, decoded as one of the kinds it watches (the first byte picks the kind and
// which of the two). Whatever the server sends, decoding gives objects, errors or skipped lines,
// never a crash or a hang.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "muster/api/types.h"
#include "muster/cluster/kube/decode.h"

namespace api = muster::api;
namespace kube = muster::cluster::kube;

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

template <typename T>
void Decode(bool watch, std::string_view input, const std::string& api_version) {
  if (!watch) {
    const std::optional<kube::ListPage<T>> page =
        kube::DecodeListPage<T>(std::string(input), api_version, "list things");
    if (page) {
      for (const std::string& error : page->skipped) Check(error.starts_with("list things"));
    }
    return;
  }
  // The stream, cut into lines as Http::Stream cuts it.
  while (!input.empty()) {
    const size_t end = input.find('\n');
    const std::string_view line = input.substr(0, end);
    input.remove_prefix(end == std::string_view::npos ? input.size() : end + 1);
    kube::WatchEvent<T> event = kube::DecodeWatchEvent<T>(line, api_version, "watch");
    const bool has_object = event.type == kube::WatchEventType::kAdded ||
                            event.type == kube::WatchEventType::kModified ||
                            event.type == kube::WatchEventType::kDeleted;
    Check(has_object || !event.object);
    if (has_object && !event.object) Check(event.error.starts_with("watch"));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool watch = data[0] & 1;
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  switch ((data[0] >> 1) % 6) {
    case 0:
      Decode<api::Pod>(watch, input, "v1");
      break;
    case 1:
      Decode<api::Node>(watch, input, "v1");
      break;
    case 2:
      Decode<api::Namespace>(watch, input, "v1");
      break;
    case 3:
      Decode<api::PodGroup>(watch, input, "scheduling.x-k8s.io/v1alpha1");
      break;
    case 4:
      Decode<api::PodGroup>(watch, input, "scheduling.sigs.k8s.io/v1alpha1");
      break;
    default:
      Decode<api::PodDisruptionBudget>(watch, input, "policy/v1");
      break;
  }
  return 0;
}
