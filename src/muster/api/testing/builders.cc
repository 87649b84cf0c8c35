#include "muster/api/testing/builders.h"

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace muster::testing {

api::ResourceList MakeResourceList(ResourcePairs pairs) {
  api::ResourceList list;
  for (const auto& [name, text] : pairs) {
    std::optional<api::Quantity> q = api::Quantity::Parse(text);
    if (!q) {
      std::fprintf(stderr, "test builder: bad quantity %.*s\n", static_cast<int>(text.size()),
                   text.data());
      std::abort();
    }
    list.Set(name, *q);
  }
  return list;
}

PodBuilder::PodBuilder() {
  pod_.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
}

PodBuilder& PodBuilder::Name(std::string_view name) {
  pod_.metadata.name = std::string(name);
  pod_.metadata.uid = std::string(name);
  return *this;
}

PodBuilder& PodBuilder::Namespace(std::string_view ns) {
  pod_.metadata.namespace_ = api::Symbol(ns);
  return *this;
}

PodBuilder& PodBuilder::Label(std::string_view key, std::string_view value) {
  pod_.metadata.labels.Set(api::Symbol(key), api::Symbol(value));
  return *this;
}

PodBuilder& PodBuilder::Annotation(std::string_view key, std::string_view value) {
  pod_.metadata.annotations[std::string(key)] = std::string(value);
  return *this;
}

PodBuilder& PodBuilder::Req(ResourcePairs requests) {
  api::Container c;
  c.name = fmt::format("c{}", pod_.spec.containers.size());
  c.resources.requests = MakeResourceList(requests);
  pod_.spec.containers.push_back(std::move(c));
  return *this;
}

PodBuilder& PodBuilder::InitReq(ResourcePairs requests, bool sidecar) {
  api::Container c;
  c.name = fmt::format("init{}", pod_.spec.init_containers.size());
  c.resources.requests = MakeResourceList(requests);
  c.restart_policy_always = sidecar;
  pod_.spec.init_containers.push_back(std::move(c));
  return *this;
}

PodBuilder& PodBuilder::Overhead(ResourcePairs overhead) {
  pod_.spec.overhead = MakeResourceList(overhead);
  return *this;
}

PodBuilder& PodBuilder::NodeName(std::string_view node) {
  pod_.spec.node_name = api::Symbol(node);
  return *this;
}

PodBuilder& PodBuilder::Priority(int32_t priority) {
  pod_.spec.priority = priority;
  return *this;
}

PodBuilder& PodBuilder::PriorityClassName(std::string_view name) {
  pod_.spec.priority_class_name = std::string(name);
  return *this;
}

PodBuilder& PodBuilder::SchedulingGate(std::string_view gate) {
  pod_.spec.scheduling_gates.emplace_back(gate);
  return *this;
}

PodBuilder& PodBuilder::SchedulerName(std::string_view name) {
  pod_.spec.scheduler_name = std::string(name);
  return *this;
}

PodBuilder& PodBuilder::Toleration(api::Toleration t) {
  pod_.spec.tolerations.push_back(std::move(t));
  return *this;
}

PodBuilder& PodBuilder::HostPort(int32_t port, api::Protocol protocol, std::string_view host_ip) {
  if (pod_.spec.containers.empty()) Req({});
  api::ContainerPort p;
  p.container_port = port;
  p.host_port = port;
  p.protocol = protocol;
  p.host_ip = api::Symbol(host_ip);
  pod_.spec.containers.back().ports.push_back(p);
  return *this;
}

PodBuilder& PodBuilder::Phase(api::PodPhase phase) {
  pod_.status.phase = phase;
  return *this;
}

PodBuilder& PodBuilder::PodGroup(std::string_view group) {
  return Label(api::kPodGroupLabel, group);
}

NodeBuilder& NodeBuilder::Name(std::string_view name) {
  node_.metadata.name = std::string(name);
  node_.metadata.uid = std::string(name);
  return *this;
}

NodeBuilder& NodeBuilder::Label(std::string_view key, std::string_view value) {
  node_.metadata.labels.Set(api::Symbol(key), api::Symbol(value));
  return *this;
}

NodeBuilder& NodeBuilder::Capacity(ResourcePairs resources) {
  node_.status.capacity = MakeResourceList(resources);
  node_.status.allocatable = node_.status.capacity;
  return *this;
}

NodeBuilder& NodeBuilder::Taint(std::string_view key, std::string_view value,
                                api::TaintEffect effect) {
  node_.spec.taints.push_back(api::Taint{api::Symbol(key), api::Symbol(value), effect});
  return *this;
}

NodeBuilder& NodeBuilder::Unschedulable(bool unschedulable) {
  node_.spec.unschedulable = unschedulable;
  return *this;
}

NodeBuilder& NodeBuilder::Image(std::string_view name, int64_t size_bytes) {
  node_.status.images.push_back(api::ContainerImage{{std::string(name)}, size_bytes});
  return *this;
}

api::PodGroup MakePodGroup(std::string_view name, int32_t min_member) {
  api::PodGroup group;
  group.metadata.namespace_ = api::Symbol(api::kDefaultNamespace);
  group.metadata.name = std::string(name);
  group.spec.min_member = min_member;
  return group;
}

}  // namespace muster::testing
