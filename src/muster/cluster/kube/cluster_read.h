#pragma once

// Reads a live cluster once, for `muster simulate --kubeconfig`: every kind the scheduler reads
// (ClusterKinds) and the PriorityClasses, listed in pages, nothing watched and nothing written.
// What was read is kept as a snapshot: one JSON `kind: List` whose items are the server's objects
// as it served them (with their kind and apiVersion, without metadata.managedFields), marked as
// a snapshot so that the manifest loader decodes them as served objects (api/manifests.h). The
// simulation is built from that text whether it comes from the server or from a saved file, so
// the two give the same simulation.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "muster/cluster/kube/http.h"
#include "muster/framework/status.h"

namespace muster::cluster::kube {

struct ClusterReadOptions {
  // Pending pods (no spec.nodeName) are kept only when their schedulerName is one of these;
  // empty: all of them. Bound pods are always kept: they hold their nodes' resources.
  std::vector<std::string> scheduler_names;
};

struct ClusterRead {
  std::string snapshot;  // the JSON List
  std::vector<std::string> warnings;
  size_t nodes = 0;
  size_t bound_pods = 0;
  size_t pending_pods = 0;  // kept
  size_t other_objects = 0;
};

// Lists the cluster behind `http` (the same discovery as `muster run`: an optional kind the
// server does not serve is left out, with one warning). Pods that have finished (Succeeded,
// Failed) are not read. The objects are not decoded here: the loader decodes the snapshot, and
// leaves out, with a warning each, those muster cannot read, as `muster run` passes over them.
// The pods come in the order they were created (then by namespace and name), which is the order
// the simulation queues the pending ones in. An error (one line) when the server cannot be
// reached or refuses a list.
framework::Status ReadCluster(Http& http, const ClusterReadOptions& options, ClusterRead* out);

}  // namespace muster::cluster::kube
