#pragma once

// Test-only builders for pod affinity terms, after upstream's st.MakePod().PodAffinityIn(...)
// wrappers, and a fixture that runs the plugin over a FakeServices cluster. Selectors are
// prepared, as the manifest decoder prepares them.

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "muster/api/testing/builders.h"
#include "muster/api/types.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/interpodaffinity/inter_pod_affinity.h"

namespace muster::plugins::interpodaffinity::test {

struct Expr {
  std::string_view key;
  api::SelectorOperator op;
  std::vector<std::string_view> values;
};

inline api::LabelSelector Selector(
    std::initializer_list<Expr> exprs,
    std::initializer_list<std::pair<std::string_view, std::string_view>> match_labels = {}) {
  api::LabelSelector s;
  for (const auto& [k, v] : match_labels)
    s.match_labels.emplace_back(api::Symbol(k), api::Symbol(v));
  for (const Expr& e : exprs) {
    api::SelectorRequirement r;
    r.key = api::Symbol(e.key);
    r.op = e.op;
    for (std::string_view v : e.values) r.values.emplace_back(v);
    s.match_expressions.push_back(std::move(r));
  }
  api::PrepareLabelSelector(s);
  return s;
}

inline api::PodAffinityTerm Term(api::LabelSelector selector, std::string_view topology_key,
                                 std::vector<std::string_view> namespaces = {},
                                 std::optional<api::LabelSelector> namespace_selector = {}) {
  api::PodAffinityTerm t;
  t.label_selector = std::move(selector);
  t.topology_key = api::Symbol(topology_key);
  for (std::string_view ns : namespaces) t.namespaces.emplace_back(ns);
  t.namespace_selector = std::move(namespace_selector);
  return t;
}

inline api::PodAffinityTerm In(std::string_view key, std::string_view topology_key,
                               std::vector<std::string_view> values) {
  return Term(Selector({{key, api::SelectorOperator::kIn, std::move(values)}}), topology_key);
}
inline api::PodAffinityTerm NotIn(std::string_view key, std::string_view topology_key,
                                  std::vector<std::string_view> values) {
  return Term(Selector({{key, api::SelectorOperator::kNotIn, std::move(values)}}), topology_key);
}
inline api::PodAffinityTerm Exists(std::string_view key, std::string_view topology_key) {
  return Term(Selector({{key, api::SelectorOperator::kExists, {}}}), topology_key);
}

// A pod with affinity terms added to what a PodBuilder made.
class AffinityPod {
 public:
  AffinityPod(const testing::PodBuilder& b) : pod_(b.Obj()) {}  // NOLINT: implicit by design

  AffinityPod& Affinity(api::PodAffinityTerm t) {
    Mutable(affinity()).required.push_back(std::move(t));
    return *this;
  }
  AffinityPod& AntiAffinity(api::PodAffinityTerm t) {
    Mutable(anti()).required.push_back(std::move(t));
    return *this;
  }
  AffinityPod& PreferredAffinity(int32_t weight, api::PodAffinityTerm t) {
    Mutable(affinity()).preferred.push_back({weight, std::move(t)});
    return *this;
  }
  AffinityPod& PreferredAntiAffinity(int32_t weight, api::PodAffinityTerm t) {
    Mutable(anti()).preferred.push_back({weight, std::move(t)});
    return *this;
  }
  // Copies the affinity of another pod (upstream's shared *v1.Affinity values).
  AffinityPod& WithAffinity(const std::optional<api::Affinity>& a) {
    pod_.spec.affinity = a;
    return *this;
  }

  const api::Pod& Obj() const { return pod_; }
  operator const api::Pod&() const { return pod_; }  // NOLINT: implicit by design

 private:
  std::optional<api::PodAffinity>& affinity() {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    return pod_.spec.affinity->pod_affinity;
  }
  std::optional<api::PodAffinity>& anti() {
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    return pod_.spec.affinity->pod_anti_affinity;
  }
  static api::PodAffinity& Mutable(std::optional<api::PodAffinity>& a) {
    if (!a) a.emplace();
    return *a;
  }

  api::Pod pod_;
};

inline api::Node Node(std::string_view name,
                      std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  testing::NodeBuilder b = testing::MakeNode().Name(name);
  for (const auto& [k, v] : labels) b.Label(k, v);
  return b.Obj();
}

inline api::Namespace Namespace(
    std::string_view name,
    std::initializer_list<std::pair<std::string_view, std::string_view>> labels = {}) {
  api::Namespace ns;
  ns.metadata.name = std::string(name);
  for (const auto& [k, v] : labels) ns.metadata.labels.Set(api::Symbol(k), api::Symbol(v));
  return ns;
}

// Upstream's `namespaces` fixture of scoring_test.go.
inline void AddTeamNamespaces(testing::FakeServices& fake) {
  fake.AddObject(Namespace("subteam1.team1", {{"team", "team1"}}));
  fake.AddObject(Namespace("subteam2.team1", {{"team", "team1"}}));
  fake.AddObject(Namespace("subteam1.team2", {{"team", "team2"}}));
  fake.AddObject(Namespace("subteam2.team2", {{"team", "team2"}}));
}

// A cluster of nodes and pods; existing pods without a name get a unique one.
struct Cluster {
  testing::FakeServices fake;

  Cluster(const std::vector<api::Node>& nodes, const std::vector<api::Pod>& pods) {
    for (const api::Node& n : nodes) fake.AddNode(n);
    int i = 0;
    for (api::Pod p : pods) {
      if (p.metadata.name.empty()) {
        p.metadata.name = "existing-" + std::to_string(i);
        p.metadata.uid = p.metadata.name;
      }
      ++i;
      fake.AddPod(p);
    }
  }

  const framework::NodeInfo& NodeInfo(std::string_view name) const {
    return *fake.snapshot().Get(api::Symbol(name));
  }
};

inline framework::Status Unresolvable(std::string_view reason) {
  return framework::Status(framework::Code::kUnschedulableAndUnresolvable, std::string(reason));
}
inline framework::Status Unschedulable(std::string_view reason) {
  return framework::Status(framework::Code::kUnschedulable, std::string(reason));
}

}  // namespace muster::plugins::interpodaffinity::test
