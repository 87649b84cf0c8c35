#include "muster/cluster/kube/cluster_read.h"

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <utility>

#include <fmt/format.h>
#include <simdjson.h>

#include "muster/api/feature_gates.h"
#include "muster/api/json_string.h"
#include "muster/api/kinds.h"
#include "muster/api/manifests.h"
#include "muster/api/time.h"
#include "muster/cluster/kube/discovery.h"

namespace muster::cluster::kube {
namespace {

using framework::Status;

// The item as one line of JSON, with its kind and apiVersion (a list's items carry neither) and
// without metadata.managedFields (who wrote which field: nothing the scheduler reads, and often
// most of an object's bytes).
std::string ItemJson(simdjson::dom::object item, std::string_view api_version,
                     std::string_view kind) {
  std::string out = "{\"apiVersion\":";
  api::AppendJsonString(out, api_version);
  out += ",\"kind\":";
  api::AppendJsonString(out, kind);
  for (auto field : item) {
    if (field.key == "apiVersion" || field.key == "kind") continue;
    out += ',';
    api::AppendJsonString(out, field.key);
    out += ':';
    simdjson::dom::object metadata;
    if (field.key != "metadata" || field.value.get(metadata) != simdjson::SUCCESS) {
      out += simdjson::minify(field.value);
      continue;
    }
    out += '{';
    bool first = true;
    for (auto m : metadata) {
      if (m.key == "managedFields") continue;
      if (!first) out += ',';
      first = false;
      api::AppendJsonString(out, m.key);
      out += ':';
      out += simdjson::minify(m.value);
    }
    out += '}';
  }
  out += '}';
  return out;
}

std::string_view StringAt(simdjson::dom::element e, std::string_view pointer) {
  std::string_view v;
  if (e.at_pointer(pointer).get(v) != simdjson::SUCCESS) return {};
  return v;
}

// One object read, on its way to the snapshot.
struct Item {
  std::string creation;  // metadata.creationTimestamp (pods are ordered by it)
  std::string json;
};

// Lists `path` in pages, calling keep(item) for each. A list whose continue token expired (the
// server answers 410 Gone) starts again, its items so far dropped through `restart`, as an
// informer's list would; a few times at most.
template <typename Keep, typename Restart>
Status ListAll(Http& http, const std::string& path, std::string_view resource, Keep&& keep,
               Restart&& restart) {
  constexpr int kMaxRestarts = 5;
  simdjson::dom::parser parser;
  std::string cont;
  const char* sep = path.find('?') == std::string::npos ? "?" : "&";
  for (int restarts = 0;;) {
    std::string page_path = fmt::format("{}{}limit=500", path, sep);
    if (!cont.empty()) page_path += "&continue=" + cont;
    const Response r = http.Do("GET", page_path);
    if (r.status == 410 && !cont.empty()) {
      if (++restarts > kMaxRestarts) {
        return Status::Error(
            fmt::format("list {}: the list expired {} times before it ended "
                        "(the cluster changes faster than it can be read)",
                        resource, restarts));
      }
      restart();
      cont.clear();
      continue;
    }
    if (r.status == 403) {
      return Status::Error(Forbidden("list", std::string(resource), r, kSimulateRbac));
    }
    if (!r.ok()) return Status::Error(fmt::format("list {}: {}", resource, r.Describe()));
    simdjson::dom::element doc;
    if (parser.parse(r.body).get(doc) != simdjson::SUCCESS) {
      return Status::Error(fmt::format("list {}: the server's answer is not JSON", resource));
    }
    std::string_view next;
    cont = doc["metadata"]["continue"].get(next) == simdjson::SUCCESS ? std::string(next) : "";
    simdjson::dom::array items;
    if (doc["items"].get(items) == simdjson::SUCCESS) {
      for (simdjson::dom::element item : items) keep(item);
    }
    if (cont.empty()) return Status::OK();
  }
}

// Reads every object of kind T in `api_version` into `items` (the loader decodes them, as the
// informers of `muster run` do, when it reads the snapshot).
template <typename T>
Status ReadKind(Http& http, const std::string& api_version, const ClusterReadOptions& options,
                std::vector<Item>* items, ClusterRead* out) {
  const api::Kind<T>& kind = api::KindOf<T>();
  // The PriorityClasses are no cluster kind (the scheduler reads a pod's priority off the pod).
  const std::string_view resource =
      std::is_same_v<T, api::PriorityClass> ? "priorityclasses" : kind.resource;
  std::string path = ResourcePath(api_version, resource);
  if constexpr (std::is_same_v<T, api::Pod>) {
    // Finished pods hold nothing (kube-scheduler's informer leaves them out the same way).
    path += "?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed";
  }
  const size_t first = items->size();
  const size_t nodes = out->nodes;
  const size_t bound = out->bound_pods;
  const size_t pending = out->pending_pods;
  const size_t other = out->other_objects;
  auto keep = [&](simdjson::dom::element element) {
    simdjson::dom::object object;
    if (element.get(object) != simdjson::SUCCESS) return;
    if constexpr (std::is_same_v<T, api::Pod>) {
      const bool bound = !StringAt(element, "/spec/nodeName").empty();
      if (!bound && !options.scheduler_names.empty()) {
        const std::string_view scheduler = StringAt(element, "/spec/schedulerName");
        if (std::find(options.scheduler_names.begin(), options.scheduler_names.end(), scheduler) ==
            options.scheduler_names.end()) {
          return;
        }
      }
      ++(bound ? out->bound_pods : out->pending_pods);
    } else if constexpr (std::is_same_v<T, api::Node>) {
      ++out->nodes;
    } else {
      ++out->other_objects;
    }
    items->push_back(Item{std::string(StringAt(element, "/metadata/creationTimestamp")),
                          ItemJson(object, api_version, kind.name)});
  };
  auto restart = [&] {
    items->resize(first);
    out->nodes = nodes;
    out->bound_pods = bound;
    out->pending_pods = pending;
    out->other_objects = other;
  };
  return ListAll(http, path, resource, keep, restart);
}

}  // namespace

Status ReadCluster(Http& http, const ClusterReadOptions& options, ClusterRead* out) {
  if (Status s = CheckServer(http); !s.IsSuccess()) return s;
  const api::Time now =
      std::chrono::time_point_cast<api::Duration>(std::chrono::system_clock::now());
  std::vector<Item> items;
  // The PriorityClasses first: the pods' classes, and those new manifests may name.
  Status status = ReadKind<api::PriorityClass>(http, "scheduling.k8s.io/v1", options, &items, out);
  if (!status.IsSuccess()) return status;
  std::vector<Unserved> unserved;
  size_t pods_from = items.size();
  api::ForEachClusterKind([&]<typename T>(std::type_identity<T>) {
    if (!status.IsSuccess()) return;
    const api::Kind<T>& kind = api::KindOf<T>();
    if (kind.gate && !api::Features().Enabled(*kind.gate)) return;
    std::vector<std::string> served;
    status = ServedVersions(http, KindToReadOf<T>(), &served, kSimulateRbac);
    if (!status.IsSuccess()) return;
    if (served.empty()) {
      unserved.push_back({kind.name, kind.api_versions.front(), kind.when_unserved});
    }
    if constexpr (std::is_same_v<T, api::Pod>) pods_from = items.size();
    for (const std::string& v : served) {
      status = ReadKind<T>(http, v, options, &items, out);
      if (!status.IsSuccess()) return;
    }
  });
  if (!status.IsSuccess()) return status;
  if (!unserved.empty()) {
    out->warnings.push_back(
        fmt::format("not read: the API server does not serve {}", UnservedKinds(unserved)));
  }
  // Pods last (ClusterKinds ends with them), in the order they were created.
  std::stable_sort(items.begin() + static_cast<std::ptrdiff_t>(pods_from), items.end(),
                   [](const Item& a, const Item& b) { return a.creation < b.creation; });

  std::string& text = out->snapshot;
  text = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"annotations\":{";
  api::AppendJsonString(text, api::kSnapshotOfAnnotation);
  text += ':';
  api::AppendJsonString(text, http.config().server);
  text += ',';
  api::AppendJsonString(text, api::kSnapshotAtAnnotation);
  text += ':';
  api::AppendJsonString(text, api::FormatTime(now));
  text += "}},\"items\":[";
  for (size_t i = 0; i < items.size(); ++i) {
    text += i == 0 ? "\n" : ",\n";
    text += items[i].json;
  }
  text += "\n]}\n";
  return Status::OK();
}

}  // namespace muster::cluster::kube
