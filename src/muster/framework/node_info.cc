#include "muster/framework/node_info.h"

#include <algorithm>

#include "muster/api/pod_resources.h"

namespace muster::framework {

std::shared_ptr<const PodInfo> PodInfo::Make(api::Pod pod) {
  auto info = std::make_shared<PodInfo>();
  info->requests = api::PodRequests(pod);
  info->non_zero_requests = api::PodRequests(pod, /*non_zero=*/true);
  if (pod.spec.affinity) {
    const auto& a = *pod.spec.affinity;
    const bool affinity = a.pod_affinity && (!a.pod_affinity->required.empty() ||
                                             !a.pod_affinity->preferred.empty());
    const bool anti = a.pod_anti_affinity && (!a.pod_anti_affinity->required.empty() ||
                                              !a.pod_anti_affinity->preferred.empty());
    info->has_affinity = affinity || anti;
    info->has_required_anti_affinity =
        a.pod_anti_affinity && !a.pod_anti_affinity->required.empty();
  }
  info->pod = std::move(pod);
  return info;
}

void HostPortInfo::Remove(const HostPort& p) {
  auto it = std::find(ports_.begin(), ports_.end(), p);
  if (it != ports_.end()) ports_.erase(it);
}

bool HostPortInfo::Conflicts(const HostPort& p) const {
  static const api::Symbol kAnyAddress("0.0.0.0");
  auto any = [](api::Symbol ip) { return ip.empty() || ip == kAnyAddress; };
  for (const HostPort& used : ports_) {
    if (used.port != p.port || used.protocol != p.protocol) continue;
    if (any(used.ip) || any(p.ip) || used.ip == p.ip) return true;
  }
  return false;
}

void NodeInfo::SetNode(std::shared_ptr<const api::Node> node) {
  node_ = std::move(node);
  name_ = api::Symbol(node_->metadata.name);
  allocatable_ = api::Resource::FromList(node_->status.allocatable);
}

void NodeInfo::AddPod(PodInfoPtr pod) {
  requested_.Add(pod->requests);
  requested_.allowed_pod_number += 1;
  non_zero_requested_.milli_cpu += pod->non_zero_requests.milli_cpu;
  non_zero_requested_.memory += pod->non_zero_requests.memory;
  for (const HostPort& p : PodHostPorts(pod->pod)) used_ports_.Add(p);
  if (pod->has_affinity) pods_with_affinity_.push_back(pod);
  if (pod->has_required_anti_affinity) pods_with_required_anti_affinity_.push_back(pod);
  pods_.push_back(std::move(pod));
}

bool NodeInfo::RemovePod(const api::Pod& pod) {
  auto same = [&](const PodInfoPtr& p) {
    return p->pod.metadata.uid == pod.metadata.uid &&
           p->pod.metadata.namespace_ == pod.metadata.namespace_ &&
           p->pod.metadata.name == pod.metadata.name;
  };
  auto it = std::find_if(pods_.begin(), pods_.end(), same);
  if (it == pods_.end()) return false;
  const PodInfoPtr info = *it;
  pods_.erase(it);
  std::erase_if(pods_with_affinity_, same);
  std::erase_if(pods_with_required_anti_affinity_, same);
  requested_.Sub(info->requests);
  requested_.allowed_pod_number -= 1;
  non_zero_requested_.milli_cpu -= info->non_zero_requests.milli_cpu;
  non_zero_requested_.memory -= info->non_zero_requests.memory;
  for (const HostPort& p : PodHostPorts(info->pod)) used_ports_.Remove(p);
  return true;
}

std::vector<HostPort> PodHostPorts(const api::Pod& pod) {
  std::vector<HostPort> ports;
  auto collect = [&](const api::Container& c) {
    for (const api::ContainerPort& p : c.ports) {
      if (p.host_port > 0) ports.push_back(HostPort{p.host_ip, p.protocol, p.host_port});
    }
  };
  // App containers and sidecars hold their ports for the pod's life; ordinary init containers
  // have finished before the app starts (upstream util.GetHostPorts).
  for (const api::Container& c : pod.spec.containers) collect(c);
  for (const api::Container& c : pod.spec.init_containers) {
    if (c.restart_policy_always) collect(c);
  }
  return ports;
}

}  // namespace muster::framework
