#include "muster/cluster/kube/discovery.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace muster::cluster::kube {

using framework::Status;

std::string ResourcePath(std::string_view api_version, std::string_view resource,
                         std::string_view ns) {
  const std::string root = api_version.find('/') == std::string_view::npos
                               ? fmt::format("/api/{}", api_version)
                               : fmt::format("/apis/{}", api_version);
  if (ns.empty()) return fmt::format("{}/{}", root, resource);
  return fmt::format("{}/namespaces/{}/{}", root, ns, resource);
}

std::string Forbidden(const std::string& verb, const std::string& resource, const Response& r,
                      std::string_view rbac) {
  return fmt::format(
      "the API server refused to let muster {} {} ({}): muster's ServiceAccount (or user) needs "
      "{} on {}; see {}",
      verb, resource, r.Describe(), verb, resource, rbac);
}

Status CheckServer(Http& http) {
  const Response version = http.Do("GET", "/version");
  if (version.status == 0) {
    return Status::Error(
        fmt::format("cannot reach the API server ({}): {}", http.config().source, version.error));
  }
  if (version.status == 401) {
    return Status::Error(fmt::format("the API server at {} refused muster's credentials ({}): {}",
                                     http.config().server, http.config().source,
                                     version.Describe()));
  }
  return Status::OK();
}

Status ServedVersions(Http& http, const KindToRead& kind, std::vector<std::string>* served,
                      std::string_view rbac) {
  const bool required = kind.when_unserved.empty();
  for (std::string_view version : kind.api_versions) {
    const std::string path = ResourcePath(version, kind.resource);
    if (!required) {
      const Response discovery = http.Do("GET", fmt::format("/apis/{}", version));
      if (!discovery.ok() ||
          discovery.body.find(fmt::format("\"{}\"", kind.resource)) == std::string::npos) {
        continue;
      }
    }
    const Response r = http.Do("GET", path + "?limit=1");
    if (r.status == 401) {
      return Status::Error(fmt::format("the API server refused muster's credentials ({}): {}",
                                       http.config().source, r.Describe()));
    }
    if (r.status == 403) {
      return Status::Error(Forbidden("list", std::string(kind.resource), r, rbac));
    }
    if (required && r.status == 404) {
      return Status::Error(fmt::format("the API server does not serve {} ({}): muster needs it",
                                       path, r.Describe()));
    }
    if (required && !r.ok()) {
      return Status::Error(fmt::format("list {}: {}", kind.resource, r.Describe()));
    }
    if (!r.ok()) continue;
    served->emplace_back(version);
    // Versions of one API group serve the same objects: the newest served is read.
    if (kind.one_group) break;
  }
  return Status::OK();
}

std::string UnservedKinds(const std::vector<Unserved>& unserved) {
  std::vector<std::pair<std::string_view, std::vector<std::string_view>>> groups;
  for (const Unserved& u : unserved) {
    const std::string_view group = u.api_version.substr(0, u.api_version.find('/'));
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const auto& entry) { return entry.first == group; });
    if (g == groups.end()) {
      groups.emplace_back(group, std::vector<std::string_view>{u.kind});
    } else if (std::find(g->second.begin(), g->second.end(), u.kind) == g->second.end()) {
      g->second.push_back(u.kind);
    }
  }
  std::vector<std::string> parts;
  for (const auto& [group, kinds] : groups) {
    parts.push_back(fmt::format("{} ({})", fmt::join(kinds, ", "), group));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string UnservedMessage(const std::vector<Unserved>& unserved) {
  std::vector<std::string_view> consequences;
  for (const Unserved& u : unserved) {
    if (std::find(consequences.begin(), consequences.end(), u.consequence) == consequences.end()) {
      consequences.push_back(u.consequence);
    }
  }
  return fmt::format("the API server does not serve {}: {}", UnservedKinds(unserved),
                     fmt::join(consequences, "; "));
}

}  // namespace muster::cluster::kube
