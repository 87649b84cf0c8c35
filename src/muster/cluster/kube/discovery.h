#pragma once

// Which of the kinds muster reads an API server serves, and in which apiVersions: what `muster
// run` watches and what `muster simulate --kubeconfig` lists. A required kind must be served and
// listable; an optional one (a CRD, an alpha API) is read where the server serves it.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/kinds.h"
#include "muster/cluster/kube/http.h"
#include "muster/framework/status.h"

namespace muster::cluster::kube {

// The REST path of a resource in `api_version` ("v1", "scheduling.x-k8s.io/v1alpha1"), across
// namespaces or in `ns`.
std::string ResourcePath(std::string_view api_version, std::string_view resource,
                         std::string_view ns = "");

// The role that grants what each command needs, for a 403's message.
inline constexpr std::string_view kRunRbac = "deploy/rbac.yaml";
inline constexpr std::string_view kSimulateRbac = "deploy/rbac-simulate.yaml";

// What muster needs to do with a resource, for a 403's message naming the role in `rbac`.
std::string Forbidden(const std::string& verb, const std::string& resource, const Response& r,
                      std::string_view rbac = kRunRbac);

// Whether the server behind `http` answers (GET /version) and takes the credentials: an error
// (one line) naming the server and where its configuration came from otherwise.
framework::Status CheckServer(Http& http);

// What discovery needs of a kind's row in api::Kinds().
struct KindToRead {
  std::string_view name;
  std::string_view resource;
  std::span<const std::string_view> api_versions;  // newest first
  std::string_view when_unserved;                  // empty: required
  bool one_group = false;
};

template <typename T>
KindToRead KindToReadOf() {
  const api::Kind<T>& kind = api::KindOf<T>();
  return {kind.name, kind.resource, kind.api_versions, kind.when_unserved, kind.one_group};
}

// The apiVersions of `kind` to read from the server behind `http`, each answering a list of one:
// the newest served only, for a kind whose versions are one API group's; none for an optional
// kind the server does not serve. An error (one line) when the server refuses the credentials,
// forbids the list (naming the role in `rbac`), or does not serve a required kind.
framework::Status ServedVersions(Http& http, const KindToRead& kind,
                                 std::vector<std::string>* served,
                                 std::string_view rbac = kRunRbac);

// One optional kind the server does not serve.
struct Unserved {
  std::string_view kind;
  std::string_view api_version;  // the newest muster reads
  std::string_view consequence;
};

// The kinds of each API group together: "Workload, PodGroup (scheduling.k8s.io); DeviceClass
// (resource.k8s.io)".
std::string UnservedKinds(const std::vector<Unserved>& unserved);

// One line for every optional kind the server does not serve (an older release, an API turned
// off): the kinds of each API group together, each consequence said once.
//   the API server does not serve Workload, PodGroup (scheduling.k8s.io); DeviceClass, ...
//   (resource.k8s.io): pods naming a Workload ... wait for it; ...
std::string UnservedMessage(const std::vector<Unserved>& unserved);

}  // namespace muster::cluster::kube
