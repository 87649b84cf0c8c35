#pragma once

// Fluent builders for the objects tests need, after upstream's st.MakePod() wrappers:
//   Pod p = MakePod().Name("web").Namespace("prod").Req({{"cpu", "500m"}}).Obj();

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "muster/api/types.h"

namespace muster::testing {

using ResourcePairs = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// A ResourceList from name/quantity text; aborts the test binary on a malformed quantity.
api::ResourceList MakeResourceList(ResourcePairs pairs);

class PodBuilder {
 public:
  PodBuilder();
  PodBuilder& Name(std::string_view name);
  PodBuilder& Namespace(std::string_view ns);
  PodBuilder& Label(std::string_view key, std::string_view value);
  PodBuilder& Annotation(std::string_view key, std::string_view value);
  // Adds an app container with these requests (limits unset).
  PodBuilder& Req(ResourcePairs requests);
  // Adds an init container; `sidecar` makes it restartable (restartPolicy: Always).
  PodBuilder& InitReq(ResourcePairs requests, bool sidecar = false);
  PodBuilder& Overhead(ResourcePairs overhead);
  PodBuilder& NodeName(std::string_view node);
  PodBuilder& Priority(int32_t priority);
  PodBuilder& PriorityClassName(std::string_view name);
  PodBuilder& SchedulingGate(std::string_view gate);
  PodBuilder& SchedulerName(std::string_view name);
  PodBuilder& Toleration(api::Toleration t);
  PodBuilder& HostPort(int32_t port, api::Protocol protocol = api::Protocol::kTCP,
                       std::string_view host_ip = "");
  PodBuilder& Phase(api::PodPhase phase);
  PodBuilder& PodGroup(std::string_view group);

  const api::Pod& Obj() const { return pod_; }

 private:
  api::Pod pod_;
};

inline PodBuilder MakePod() { return PodBuilder(); }

class NodeBuilder {
 public:
  NodeBuilder& Name(std::string_view name);
  NodeBuilder& Label(std::string_view key, std::string_view value);
  // Sets capacity and allocatable.
  NodeBuilder& Capacity(ResourcePairs resources);
  NodeBuilder& Taint(std::string_view key, std::string_view value, api::TaintEffect effect);
  NodeBuilder& Unschedulable(bool unschedulable = true);
  NodeBuilder& Image(std::string_view name, int64_t size_bytes);

  const api::Node& Obj() const { return node_; }

 private:
  api::Node node_;
};

inline NodeBuilder MakeNode() { return NodeBuilder(); }

// A PodGroup in the default namespace (its pods: MakePod().PodGroup(name)).
api::PodGroup MakePodGroup(std::string_view name, int32_t min_member);

}  // namespace muster::testing
