#include "muster/plugins/podtopologyspread/common.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "muster/api/node_selector.h"
#include "muster/api/taints.h"

namespace muster::plugins::podtopologyspread {
namespace {

// Labels the StatefulSet controller stamps on each pod besides the template's. They are not in
// the StatefulSet's selector, and the first two differ from pod to pod, so a selector built from
// a pod's labels must leave them out (see DefaultSelector).
constexpr std::array<std::string_view, 3> kStatefulSetPodLabels = {
    "statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index",
    "controller-revision-hash"};

std::string SelectorError(const api::LabelSelector& selector) {
  std::string message;
  for (const api::FieldError& e : api::ValidateLabelSelector(selector)) {
    if (!message.empty()) message += ", ";
    message += e.ToString();
  }
  return message.empty() ? "invalid label selector" : message;
}

}  // namespace

api::Symbol HostnameKey() {
  static const api::Symbol key("kubernetes.io/hostname");
  return key;
}

api::Symbol ZoneKey() {
  static const api::Symbol key("topology.kubernetes.io/zone");
  return key;
}

bool ResolveConstraints(const std::vector<api::TopologySpreadConstraint>& constraints,
                        const api::LabelSet& pod_labels, api::UnsatisfiableConstraintAction action,
                        std::vector<Constraint>* out, std::string* error) {
  for (const api::TopologySpreadConstraint& tsc : constraints) {
    if (tsc.when_unsatisfiable != action) continue;
    Constraint c;
    c.max_skew = tsc.max_skew;
    c.topology_key = tsc.topology_key;
    c.selector = tsc.label_selector;
    if (c.selector) {
      if (!api::IsWellFormed(*c.selector)) {
        *error = SelectorError(*c.selector);
        return false;
      }
      // Parsed once here, so that matching over every pod on every node skips the checks.
      c.selector->prepared = api::Prepared::kValid;
      // matchLabelKeys: the pod's own values for those keys, ANDed with the selector. Upstream
      // adds them unvalidated (labels.SelectorFromSet), so the verdict above stands.
      for (api::Symbol key : tsc.match_label_keys) {
        if (const api::Symbol* value = pod_labels.Get(key)) {
          c.selector->match_labels.emplace_back(key, *value);
        }
      }
    }
    c.min_domains = tsc.min_domains.value_or(1);
    c.honor_node_affinity = tsc.node_affinity_policy.value_or(api::NodeInclusionPolicy::kHonor) ==
                            api::NodeInclusionPolicy::kHonor;
    c.honor_node_taints = tsc.node_taints_policy.value_or(api::NodeInclusionPolicy::kIgnore) ==
                          api::NodeInclusionPolicy::kHonor;
    c.self_match = c.Selects(pod_labels);
    out->push_back(std::move(c));
  }
  return true;
}

// Upstream builds the selector from every Service selecting the pod and from the selector of the
// pod's controlling ReplicationController, ReplicaSet or StatefulSet, found through informers.
// muster's ObjectLister holds none of those objects, so the controller's selector is stood in for
// by the pod's own labels: a controller's selector must match its pod template's labels, so the
// pods it creates carry identical values for every key it selects on, and the labels are the
// closest selector available. It can be stricter than the real one where sibling pods' labels
// differ beyond the selector; the per-pod labels the StatefulSet controller adds are left out for
// that reason. Services are not modelled, so a pod with no controller gets no default constraints
// (upstream would use a selecting Service's selector).
std::optional<api::LabelSelector> DefaultSelector(const api::Pod& pod) {
  const api::OwnerReference* owner = pod.metadata.ControllerRef();
  if (owner == nullptr) return std::nullopt;
  // Upstream compares the owner's group/version/kind exactly.
  const bool replica_set = owner->api_version == "apps/v1" && owner->kind == "ReplicaSet";
  const bool stateful_set = owner->api_version == "apps/v1" && owner->kind == "StatefulSet";
  const bool replication_controller =
      owner->api_version == "v1" && owner->kind == "ReplicationController";
  if (!replica_set && !stateful_set && !replication_controller) return std::nullopt;
  api::LabelSelector selector;
  for (const auto& [key, value] : pod.metadata.labels) {
    if (stateful_set && std::find(kStatefulSetPodLabels.begin(), kStatefulSetPodLabels.end(),
                                  key.str()) != kStatefulSetPodLabels.end()) {
      continue;
    }
    selector.match_labels.emplace_back(key, value);
  }
  // An empty selector would select everything; upstream treats it as "no default constraints".
  if (selector.Empty()) return std::nullopt;
  // Upstream builds selectors from label sets without validating them (labels.SelectorFromSet).
  selector.prepared = api::Prepared::kValid;
  return selector;
}

bool NodeHasAllTopologyKeys(const api::LabelSet& node_labels,
                            std::span<const Constraint> constraints) {
  for (const Constraint& c : constraints) {
    if (!node_labels.Has(c.topology_key)) return false;
  }
  return true;
}

bool MatchesRequiredNodeAffinity(const api::Pod& pod, const api::LabelSet& node_labels,
                                 api::Symbol node_name) {
  for (const auto& [key, value] : pod.spec.node_selector) {
    const api::Symbol* got = node_labels.Get(key);
    if (got == nullptr || *got != value) return false;
  }
  const auto& affinity = pod.spec.affinity;
  if (affinity && affinity->node_affinity && affinity->node_affinity->required) {
    return affinity->node_affinity->required->Matches(node_labels, node_name);
  }
  return true;
}

bool NodeIncluded(const Constraint& c, const api::Pod& pod, const api::Node& node,
                  api::Symbol node_name) {
  if (c.honor_node_affinity && !MatchesRequiredNodeAffinity(pod, node.metadata.labels, node_name)) {
    return false;
  }
  if (c.honor_node_taints &&
      api::FindMatchingUntoleratedTaint(node.spec.taints, pod.spec.tolerations,
                                        api::BlocksScheduling) != nullptr) {
    return false;
  }
  return true;
}

void SetCountKeys(std::vector<Constraint>& constraints, api::Symbol ns) {
  std::string text;
  for (Constraint& c : constraints) {
    if (!c.selector) continue;
    // The prefix keeps these keys apart from other strings.
    text = "podtopologyspread count:";
    text += std::to_string(ns.id());
    text += '|';
    api::AppendSelectorIds(*c.selector, &text);
    c.count_key = api::Symbol(text).id();
  }
}

int64_t CountMatchingPods(const framework::NodeInfo& node, const Constraint& c, api::Symbol ns) {
  // A nil selector matches nothing: skip the walk.
  if (!c.selector) return 0;
  return framework::CountPods(node, c.count_key, [&](const framework::PodInfo& info) {
    const api::Pod& p = info.pod;
    // Terminating pods are about to leave (upstream issue 87621).
    return !p.metadata.deletion_timestamp.has_value() && p.metadata.namespace_ == ns &&
           c.selector->Matches(p.metadata.labels);
  });
}

}  // namespace muster::plugins::podtopologyspread
