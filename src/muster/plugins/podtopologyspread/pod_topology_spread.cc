#include "muster/plugins/podtopologyspread/pod_topology_spread.h"

#include <utility>

#include <fmt/format.h>

#include "muster/framework/metrics.h"

namespace muster::plugins::podtopologyspread {
namespace {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::EventObjects;
using framework::QueueingHint;
using framework::Status;

api::TopologySpreadConstraint MakeSystemDefault(api::Symbol key, int32_t max_skew) {
  api::TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = key;
  c.when_unsatisfiable = api::UnsatisfiableConstraintAction::kScheduleAnyway;
  return c;
}

// A validated args entry as the API type. Upstream compares policies with "Honor" and
// actions with the two known values, so anything else behaves as Ignore here too.
api::TopologySpreadConstraint ToApi(const DefaultConstraint& d) {
  api::TopologySpreadConstraint c;
  c.max_skew = d.max_skew;
  c.topology_key = api::Symbol(d.topology_key);
  c.when_unsatisfiable = d.when_unsatisfiable == "ScheduleAnyway"
                             ? api::UnsatisfiableConstraintAction::kScheduleAnyway
                             : api::UnsatisfiableConstraintAction::kDoNotSchedule;
  c.min_domains = d.min_domains;
  auto policy = [](const std::optional<std::string>& p) -> std::optional<api::NodeInclusionPolicy> {
    if (!p) return std::nullopt;
    return *p == "Honor" ? api::NodeInclusionPolicy::kHonor : api::NodeInclusionPolicy::kIgnore;
  };
  c.node_affinity_policy = policy(d.node_affinity_policy);
  c.node_taints_policy = policy(d.node_taints_policy);
  for (const std::string& key : d.match_label_keys) c.match_label_keys.emplace_back(key);
  return c;
}

QueueingHint Misdelivered(Status* error, std::string_view what) {
  if (error != nullptr) *error = Status::Error(fmt::format("PodTopologySpread: {}", what));
  return QueueingHint::kQueue;
}

// Upstream involvedInTopologySpreading: the pod itself, or an assigned pod of its namespace.
bool Involved(const api::Pod& incoming, const api::Pod& target) {
  return incoming.metadata.uid == target.metadata.uid ||
         (!incoming.spec.node_name.empty() &&
          incoming.metadata.namespace_ == target.metadata.namespace_);
}

bool SameToleration(const api::Toleration& a, const api::Toleration& b) {
  return a.key == b.key && a.op == b.op && a.value == b.value && a.effect == b.effect &&
         a.toleration_seconds == b.toleration_seconds;
}

bool SameTolerations(const std::vector<api::Toleration>& a, const std::vector<api::Toleration>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!SameToleration(a[i], b[i])) return false;
  }
  return true;
}

bool AnySelects(const std::vector<Constraint>& constraints, const api::LabelSet& labels) {
  for (const Constraint& c : constraints) {
    if (c.Selects(labels)) return true;
  }
  return false;
}

// Upstream checkTopologyKeyLabelsChanged: a missing label reads as "", as a Go map lookup does.
bool TopologyValuesChanged(const api::LabelSet& before, const api::LabelSet& after,
                           const std::vector<Constraint>& constraints) {
  for (const Constraint& c : constraints) {
    const api::Symbol* a = before.Get(c.topology_key);
    const api::Symbol* b = after.Get(c.topology_key);
    if ((a != nullptr ? *a : api::Symbol()) != (b != nullptr ? *b : api::Symbol())) return true;
  }
  return false;
}

}  // namespace

std::unique_ptr<PodTopologySpread> PodTopologySpread::Create(const PodTopologySpreadArgs& args,
                                                             framework::Handle& handle,
                                                             std::string* error) {
  const std::vector<api::FieldError> errors = Validate(args);
  if (!errors.empty()) {
    *error = JoinFieldErrors(errors);
    return nullptr;
  }
  return std::unique_ptr<PodTopologySpread>(new PodTopologySpread(args, handle));
}

std::unique_ptr<framework::Plugin> PodTopologySpread::New(const framework::PluginArgs& args,
                                                          framework::Handle& handle,
                                                          std::string* error) {
  PodTopologySpreadArgs decoded;
  if (!LoadPodTopologySpreadArgs(args, &decoded, error)) return nullptr;
  return std::unique_ptr<PodTopologySpread>(new PodTopologySpread(decoded, handle));
}

PodTopologySpread::PodTopologySpread(const PodTopologySpreadArgs& args, framework::Handle& handle)
    : handle_(handle) {
  if (framework::Metrics* m = handle.metrics()) busy_ = m->Goroutines(Name()).get();
  if (args.defaulting_type == kSystemDefaulting) {
    default_constraints_ = {MakeSystemDefault(HostnameKey(), 3), MakeSystemDefault(ZoneKey(), 5)};
    system_defaulted_ = true;
    return;
  }
  for (const DefaultConstraint& d : args.default_constraints) {
    default_constraints_.push_back(ToApi(d));
  }
}

bool PodTopologySpread::GetConstraints(const api::Pod& pod,
                                       api::UnsatisfiableConstraintAction action,
                                       std::vector<Constraint>* out, std::string* error) const {
  const bool hard = action == api::UnsatisfiableConstraintAction::kDoNotSchedule;
  std::string detail;
  if (!pod.spec.topology_spread_constraints.empty()) {
    if (ResolveConstraints(pod.spec.topology_spread_constraints, pod.metadata.labels, action, out,
                           &detail)) {
      return true;
    }
    *error = fmt::format("obtaining pod's {} topology spread constraints: {}",
                         hard ? "hard" : "soft", detail);
    return false;
  }
  std::vector<Constraint> defaults;
  if (!ResolveConstraints(default_constraints_, pod.metadata.labels, action, &defaults, &detail)) {
    *error = fmt::format("setting default {} topology spread constraints: {}",
                         hard ? "hard" : "soft", detail);
    return false;
  }
  if (defaults.empty()) return true;
  std::optional<api::LabelSelector> selector = DefaultSelector(pod);
  if (!selector) return true;
  for (Constraint& c : defaults) {
    c.selector = selector;
    c.self_match = c.Selects(pod.metadata.labels);
    out->push_back(std::move(c));
  }
  return true;
}

std::vector<ClusterEventWithHint> PodTopologySpread::EventsToRegister() const {
  auto pod_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterPodChange(pod, e, error);
  };
  auto node_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterNodeChange(pod, e, error);
  };
  // Upstream registers Pod events, which cover assigned and unscheduled pods alike: assigned pods
  // are what is counted, and the pod's own new toleration matters under nodeTaintsPolicy Honor.
  constexpr uint32_t kPodActions = framework::kAdd | framework::kUpdatePodLabel |
                                   framework::kUpdatePodToleration | framework::kDelete;
  constexpr uint32_t kNodeActions = framework::kAdd | framework::kDelete |
                                    framework::kUpdateNodeLabel | framework::kUpdateNodeTaint;
  return {
      {ClusterEvent{framework::EventResource::kAssignedPod, kPodActions,
                    "AssignedPodAdd|UpdatePodLabel|UpdatePodToleration|AssignedPodDelete"},
       pod_hint},
      {ClusterEvent{framework::EventResource::kPod, kPodActions,
                    "PodAdd|UpdatePodLabel|UpdatePodToleration|PodDelete"},
       pod_hint},
      {ClusterEvent{framework::EventResource::kNode, kNodeActions,
                    "NodeAdd|NodeDelete|UpdateNodeLabel|UpdateNodeTaint"},
       node_hint},
  };
}

QueueingHint PodTopologySpread::IsSchedulableAfterPodChange(const api::Pod& pod,
                                                            const EventObjects& event,
                                                            Status* error) const {
  const api::Pod* before = event.old_pod;
  const api::Pod* after = event.new_pod;
  if (before == nullptr && after == nullptr) return Misdelivered(error, "pod event without pods");
  if ((after != nullptr && !Involved(*after, pod)) ||
      (before != nullptr && !Involved(*before, pod))) {
    // An unscheduled pod, or one in another namespace, is not counted.
    return QueueingHint::kSkip;
  }
  std::vector<Constraint> constraints;
  std::string detail;
  if (!GetConstraints(pod, api::UnsatisfiableConstraintAction::kDoNotSchedule, &constraints,
                      &detail)) {
    return Misdelivered(error, detail);
  }
  if (before != nullptr && after != nullptr) {
    if (pod.metadata.uid == after->metadata.uid &&
        !SameTolerations(before->spec.tolerations, after->spec.tolerations)) {
      for (const Constraint& c : constraints) {
        // A new toleration may bring tainted nodes' domains into the count.
        if (c.honor_node_taints) return QueueingHint::kQueue;
      }
    }
    if (before->metadata.labels == after->metadata.labels) return QueueingHint::kSkip;
    for (const Constraint& c : constraints) {
      if (c.Selects(before->metadata.labels) != c.Selects(after->metadata.labels)) {
        return QueueingHint::kQueue;
      }
    }
    return QueueingHint::kSkip;
  }
  const api::Pod& changed = after != nullptr ? *after : *before;
  return AnySelects(constraints, changed.metadata.labels) ? QueueingHint::kQueue
                                                          : QueueingHint::kSkip;
}

QueueingHint PodTopologySpread::IsSchedulableAfterNodeChange(const api::Pod& pod,
                                                             const EventObjects& event,
                                                             Status* error) const {
  const api::Node* before = event.old_node;
  const api::Node* after = event.new_node;
  if (before == nullptr && after == nullptr) {
    return Misdelivered(error, "node event without nodes");
  }
  std::vector<Constraint> constraints;
  std::string detail;
  if (!GetConstraints(pod, api::UnsatisfiableConstraintAction::kDoNotSchedule, &constraints,
                      &detail)) {
    return Misdelivered(error, detail);
  }
  const bool before_matches =
      before != nullptr && NodeHasAllTopologyKeys(before->metadata.labels, constraints);
  const bool after_matches =
      after != nullptr && NodeHasAllTopologyKeys(after->metadata.labels, constraints);
  if (before != nullptr && after != nullptr) {
    if (before_matches != after_matches) return QueueingHint::kQueue;
    if (after_matches &&
        (TopologyValuesChanged(before->metadata.labels, after->metadata.labels, constraints) ||
         before->spec.taints != after->spec.taints)) {
      return QueueingHint::kQueue;
    }
    return QueueingHint::kSkip;
  }
  return (after != nullptr ? after_matches : before_matches) ? QueueingHint::kQueue
                                                             : QueueingHint::kSkip;
}

}  // namespace muster::plugins::podtopologyspread
