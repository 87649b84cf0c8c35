#pragma once

// What an informer reads from the API server, decoded: a page of a list and a line of a watch
// stream. No I/O and no logging here: the informer (kube_cluster.cc) fetches and logs, these
// functions only decode, so that tests and fuzz/kube_fuzz.cc can feed them any bytes.
//
// T is Pod, Node, Namespace, PodGroup or PodDisruptionBudget (what KubeCluster watches). The JSON
// is parsed with simdjson, by one parser per thread that keeps its buffers from call to call.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace muster::cluster::kube {

// One page of a list (GET .../pods?limit=500).
template <typename T>
struct ListPage {
  std::optional<std::string> resource_version;  // metadata.resourceVersion, when present
  std::string continue_token;                   // metadata.continue; empty on the last page
  std::vector<T> items;                         // the items muster can read, in order
  std::vector<std::string> skipped;             // per item it cannot read: its first error
};

// Decodes a list's body, its items as objects of `api_version` (errors name `what`, for example
// "list pods"). nullopt when the body is not JSON.
template <typename T>
std::optional<ListPage<T>> DecodeListPage(const std::string& body, const std::string& api_version,
                                          const std::string& what);

enum class WatchEventType : uint8_t {
  kAdded,
  kModified,
  kDeleted,
  kBookmark,
  kError,    // the server ends the watch with a Status (410 Gone: relist)
  kIgnored,  // a blank line, a line without type or object, or a type muster does not know
  kNotJson,
};

// One line of a watch stream.
template <typename T>
struct WatchEvent {
  WatchEventType type = WatchEventType::kIgnored;
  // The object's metadata.resourceVersion, for any line with a type and an object but ERROR.
  std::optional<std::string> resource_version;
  // kAdded, kModified, kDeleted: the object, or nothing and `error` (its first) when muster
  // cannot read it.
  std::optional<T> object;
  std::string error;
  // kError: the Status's code and message (0 and "" when absent).
  int64_t code = 0;
  std::string message;
};

// Decodes one line of a watch of objects of `api_version` (errors name `what`, for example
// "watch pods").
template <typename T>
WatchEvent<T> DecodeWatchEvent(std::string_view line, const std::string& api_version,
                               const std::string& what);

}  // namespace muster::cluster::kube
