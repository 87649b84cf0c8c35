#pragma once

// What Filter and Score share (upstream podtopologyspread/common.go): a pod's spread constraints
// resolved against its labels, which nodes a constraint counts, and how matching pods are
// counted. Everything here that runs per node is allocation-free.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "muster/api/intern.h"
#include "muster/api/labels.h"
#include "muster/api/types.h"
#include "muster/framework/node_info.h"

namespace muster::plugins::podtopologyspread {

// One spread constraint of the pod being scheduled, with its selector final (upstream
// topologySpreadConstraint): matchLabelKeys merged in, or the default selector for default
// constraints.
struct Constraint {
  int32_t max_skew = 0;
  api::Symbol topology_key;
  // nullopt selects no pod (upstream labels.Nothing(), what a nil labelSelector means).
  std::optional<api::LabelSelector> selector;
  int32_t min_domains = 1;
  bool honor_node_affinity = true;  // nodeAffinityPolicy, nil meaning Honor
  bool honor_node_taints = false;   // nodeTaintsPolicy, nil meaning Ignore
  // Whether the pod being scheduled matches its own selector.
  bool self_match = false;
  // Names the count of matching pods in the scheduled pod's namespace in each node's
  // PodCountMemo (see SetCountKeys); 0 counts without the memo.
  uint32_t count_key = 0;

  bool Selects(const api::LabelSet& labels) const {
    return selector.has_value() && selector->Matches(labels);
  }
};

// The label keys upstream treats specially (v1.LabelHostname, v1.LabelTopologyZone).
api::Symbol HostnameKey();
api::Symbol ZoneKey();

// Upstream filterTopologySpreadConstraints: the constraints with `action` resolved for a pod with
// `pod_labels`, in order. matchLabelKeys found in the pod's labels are ANDed into the selector (a
// nil selector stays nil). False with *error set when a selector does not parse.
bool ResolveConstraints(const std::vector<api::TopologySpreadConstraint>& constraints,
                        const api::LabelSet& pod_labels, api::UnsatisfiableConstraintAction action,
                        std::vector<Constraint>* out, std::string* error);

// The selector of the pod's default constraints, standing in for upstream helper.DefaultSelector
// (see the definition); nullopt when there is none, which means no default constraints apply.
std::optional<api::LabelSelector> DefaultSelector(const api::Pod& pod);

// Upstream nodeLabelsMatchSpreadConstraints: the node carries every constraint's topology key.
bool NodeHasAllTopologyKeys(const api::LabelSet& node_labels,
                            std::span<const Constraint> constraints);

// Upstream nodeaffinity.GetRequiredNodeAffinity(pod).Match(node), parse errors ignored: the pod's
// nodeSelector and its required node affinity terms.
bool MatchesRequiredNodeAffinity(const api::Pod& pod, const api::LabelSet& node_labels,
                                 api::Symbol node_name);

// Upstream matchNodeInclusionPolicies: whether `node` counts for constraint `c` of `pod`.
bool NodeIncluded(const Constraint& c, const api::Pod& pod, const api::Node& node,
                  api::Symbol node_name);

// Gives each constraint the memo key of "pods in `ns` that its selector picks", the same key for
// the same selector and namespace in every cycle.
void SetCountKeys(std::vector<Constraint>& constraints, api::Symbol ns);

// Upstream countPodsMatchSelector: pods on `node` in namespace `ns` that `c` selects, terminating
// pods (deletionTimestamp set) excluded. Remembered in the node's memo under c.count_key (which
// SetCountKeys must have given for `ns`), so only nodes changed since the last count are walked.
int64_t CountMatchingPods(const framework::NodeInfo& node, const Constraint& c, api::Symbol ns);

}  // namespace muster::plugins::podtopologyspread
