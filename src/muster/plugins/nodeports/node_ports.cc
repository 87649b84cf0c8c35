#include "muster/plugins/nodeports/node_ports.h"

#include <utility>

#include <fmt/format.h>

namespace muster::plugins::nodeports {
namespace {

using framework::ClusterEvent;
using framework::ClusterEventWithHint;
using framework::EventObjects;
using framework::HostPort;
using framework::QueueingHint;
using framework::Status;

// The pod's host ports, computed once per pod so that Filter only compares.
struct PreFilterState final : framework::StateData {
  std::vector<HostPort> ports;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

bool FitsPorts(std::span<const HostPort> wanted, const framework::HostPortInfo& in_use) {
  for (const HostPort& p : wanted) {
    if (in_use.Conflicts(p)) return false;
  }
  return true;
}

}  // namespace

std::vector<HostPort> HostPortsOf(const api::Pod& pod) {
  std::vector<HostPort> ports;
  auto collect = [&](const api::Container& c) {
    for (const api::ContainerPort& p : c.ports) {
      if (p.host_port > 0) ports.push_back(HostPort{p.host_ip, p.protocol, p.host_port});
    }
  };
  for (const api::Container& c : pod.spec.init_containers) {
    if (c.restart_policy_always) collect(c);
  }
  for (const api::Container& c : pod.spec.containers) collect(c);
  return ports;
}

std::unique_ptr<framework::Plugin> NodePorts::New(const framework::PluginArgs& /*args*/,
                                                  framework::Handle& /*handle*/,
                                                  std::string* /*error*/) {
  return std::make_unique<NodePorts>();
}

Status NodePorts::PreFilter(framework::CycleState& state, const framework::PodInfo& pod,
                            std::span<framework::NodeInfo* const> /*nodes*/,
                            framework::PreFilterResult* /*result*/) {
  std::vector<HostPort> ports = HostPortsOf(pod.pod);
  if (ports.empty()) return Status(framework::Code::kSkip);
  auto s = std::make_unique<PreFilterState>();
  s->ports = std::move(ports);
  state.Write(kPreFilterStateKey, std::move(s));
  return Status::OK();
}

Status NodePorts::Filter(const framework::CycleState& state, const framework::PodInfo& /*pod*/,
                         const framework::NodeInfo& node) const {
  const auto* s = state.Read<PreFilterState>(kPreFilterStateKey);
  if (s == nullptr) {
    return Status::Error(
        fmt::format("reading \"{}\" from cycleState: not found", kPreFilterStateKey));
  }
  if (FitsPorts(s->ports, node.used_ports())) return Status::OK();
  static const Status kConflict =
      framework::SharedFailure(framework::Code::kUnschedulable, kErrReason, kName);
  return kConflict;
}

std::vector<ClusterEventWithHint> NodePorts::EventsToRegister() const {
  auto pod_hint = [this](const api::Pod& pod, const EventObjects& e, Status* error) {
    return IsSchedulableAfterPodDeleted(pod, e, error);
  };
  // Upstream's Pod/Delete covers scheduled pods and pending ones holding a nomination alike. Node
  // additions get no hint: any new node may have the ports free. Upstream also registers node
  // label and taint updates when it pre-checks nodes before queueing; muster has no pre-check,
  // and such updates never free a port.
  return {
      {ClusterEvent{framework::EventResource::kAssignedPod, framework::kDelete,
                    "AssignedPodDelete"},
       pod_hint},
      {ClusterEvent{framework::EventResource::kPod, framework::kDelete, "PodDelete"}, pod_hint},
      {ClusterEvent{framework::EventResource::kNode, framework::kAdd, "NodeAdd"}, {}},
  };
}

QueueingHint NodePorts::IsSchedulableAfterPodDeleted(const api::Pod& pod, const EventObjects& event,
                                                     Status* error) const {
  if (event.old_pod == nullptr) {
    if (error != nullptr) *error = Status::Error("NodePorts: pod event without the deleted pod");
    return QueueingHint::kQueue;
  }
  const api::Pod& deleted = *event.old_pod;
  // An unscheduled pod held no ports, unless a nomination reserved them.
  if (deleted.spec.node_name.empty() && deleted.status.nominated_node_name.empty()) {
    return QueueingHint::kSkip;
  }
  const std::vector<HostPort> freed = HostPortsOf(deleted);
  if (freed.empty()) return QueueingHint::kSkip;
  framework::HostPortInfo in_use;
  for (const HostPort& p : freed) in_use.Add(p);
  return FitsPorts(HostPortsOf(pod), in_use) ? QueueingHint::kSkip : QueueingHint::kQueue;
}

}  // namespace muster::plugins::nodeports
