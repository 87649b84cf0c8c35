#include "muster/cluster/kube/decode.h"

#include <tuple>
#include <utility>

#include <simdjson.h>

#include "muster/api/json_document.h"
#include "muster/api/kinds.h"
#include "muster/api/manifests.h"

namespace muster::cluster::kube {
namespace {

// One parser per thread (each informer decodes on its own), keeping its buffers between calls.
thread_local simdjson::dom::parser parser;

template <typename T>
std::optional<T> DecodeObject(simdjson::dom::element object, const std::string& api_version,
                              const std::string& what, std::string* error) {
  std::vector<std::string> errors;
  std::optional<T> decoded = api::DecodeAs<T>(api::ToDocument(object), api_version, what, &errors);
  if (!decoded && !errors.empty()) *error = errors.front();
  return decoded;
}

}  // namespace

template <typename T>
std::optional<ListPage<T>> DecodeListPage(const std::string& body, const std::string& api_version,
                                          const std::string& what) {
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc) != simdjson::SUCCESS) return std::nullopt;
  ListPage<T> page;
  std::string_view v;
  if (doc["metadata"]["resourceVersion"].get(v) == simdjson::SUCCESS) {
    page.resource_version = std::string(v);
  }
  if (doc["metadata"]["continue"].get(v) == simdjson::SUCCESS) page.continue_token = v;
  simdjson::dom::array array;
  if (doc["items"].get(array) == simdjson::SUCCESS) {
    for (simdjson::dom::element item : array) {
      std::string error;
      if (std::optional<T> obj = DecodeObject<T>(item, api_version, what, &error)) {
        page.items.push_back(std::move(*obj));
      } else {
        page.skipped.push_back(std::move(error));
      }
    }
  }
  return page;
}

template <typename T>
WatchEvent<T> DecodeWatchEvent(std::string_view line, const std::string& api_version,
                               const std::string& what) {
  WatchEvent<T> event;
  if (line.empty()) return event;
  simdjson::dom::element ev;
  if (parser.parse(line.data(), line.size()).get(ev) != simdjson::SUCCESS) {
    event.type = WatchEventType::kNotJson;
    return event;
  }
  std::string_view type;
  simdjson::dom::element object;
  if (ev["type"].get(type) != simdjson::SUCCESS || ev["object"].get(object) != simdjson::SUCCESS) {
    return event;
  }
  if (type == "ERROR") {
    event.type = WatchEventType::kError;
    if (object["code"].get(event.code) != simdjson::SUCCESS) event.code = 0;
    std::string_view message;
    if (object["message"].get(message) == simdjson::SUCCESS) event.message = message;
    return event;
  }
  std::string_view version;
  if (object["metadata"]["resourceVersion"].get(version) == simdjson::SUCCESS) {
    event.resource_version = std::string(version);
  }
  if (type == "BOOKMARK") {
    event.type = WatchEventType::kBookmark;
    return event;
  }
  if (type == "ADDED") {
    event.type = WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    event.type = WatchEventType::kModified;
  } else if (type == "DELETED") {
    event.type = WatchEventType::kDeleted;
  } else {
    return event;
  }
  event.object = DecodeObject<T>(object, api_version, what, &event.error);
  return event;
}

// The decoders of every kind a cluster delivers, compiled here: an external table of their
// addresses makes the compiler emit each.
template <typename... T>
constexpr auto Decoders(api::KindList<T...>) {
  return std::tuple{std::pair{&DecodeListPage<T>, &DecodeWatchEvent<T>}...};
}
extern const auto kDecoders = Decoders(api::ClusterKinds{});

}  // namespace muster::cluster::kube
