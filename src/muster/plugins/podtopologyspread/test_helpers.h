#pragma once

// Test-only helpers for this plugin's tests: a pod wrapper with upstream st.MakePod()'s spread,
// affinity and ownership setters, the selectors upstream's tests share, and a harness that builds
// the plugin over a fake cluster.

#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/labels.h"
#include "muster/api/node_selector.h"
#include "muster/api/testing/builders.h"
#include "muster/api/time.h"
#include "muster/api/types.h"
#include "muster/framework/cycle_state.h"
#include "muster/framework/status.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/podtopologyspread/pod_topology_spread.h"

namespace muster::plugins::podtopologyspread::testutil {

inline constexpr auto kDoNotSchedule = api::UnsatisfiableConstraintAction::kDoNotSchedule;
inline constexpr auto kScheduleAnyway = api::UnsatisfiableConstraintAction::kScheduleAnyway;
inline constexpr auto kHonor = api::NodeInclusionPolicy::kHonor;
inline constexpr auto kIgnore = api::NodeInclusionPolicy::kIgnore;
inline constexpr std::string_view kHostname = "kubernetes.io/hostname";
inline constexpr std::string_view kZone = "topology.kubernetes.io/zone";

// st.MakeLabelSelector().Exists(key).
inline api::LabelSelector Exists(std::string_view key) {
  api::LabelSelector s;
  s.match_expressions.push_back(
      api::SelectorRequirement{api::Symbol(key), api::SelectorOperator::kExists, {}, 0});
  api::PrepareLabelSelector(s);
  return s;
}

// st.MakeLabelSelector().Label(k, v)...
inline api::LabelSelector MatchLabels(
    std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
  api::LabelSelector s;
  for (const auto& [k, v] : labels) s.match_labels.emplace_back(api::Symbol(k), api::Symbol(v));
  api::PrepareLabelSelector(s);
  return s;
}

inline api::LabelSelector Foo() { return Exists("foo"); }
inline api::LabelSelector Bar() { return Exists("bar"); }

// The upstream tests' st.MakePod() with the setters they use.
class TestPod {
 public:
  explicit TestPod(std::string_view name = "") {
    pod_ = testing::MakePod().Obj();
    if (!name.empty()) {
      pod_.metadata.name = std::string(name);
      pod_.metadata.uid = std::string(name);
    }
  }
  TestPod& Namespace(std::string_view ns) {
    pod_.metadata.namespace_ = api::Symbol(ns);
    return *this;
  }
  TestPod& Label(std::string_view key, std::string_view value) {
    pod_.metadata.labels.Set(api::Symbol(key), api::Symbol(value));
    return *this;
  }
  TestPod& Node(std::string_view node) {
    pod_.spec.node_name = api::Symbol(node);
    return *this;
  }
  TestPod& Terminating() {
    pod_.metadata.deletion_timestamp = api::Time{};
    return *this;
  }
  TestPod& Spread(int32_t max_skew, std::string_view key, api::UnsatisfiableConstraintAction action,
                  std::optional<api::LabelSelector> selector,
                  std::optional<int32_t> min_domains = std::nullopt,
                  std::optional<api::NodeInclusionPolicy> affinity_policy = std::nullopt,
                  std::optional<api::NodeInclusionPolicy> taints_policy = std::nullopt,
                  std::vector<std::string_view> match_label_keys = {}) {
    api::TopologySpreadConstraint c;
    c.max_skew = max_skew;
    c.topology_key = api::Symbol(key);
    c.when_unsatisfiable = action;
    c.label_selector = std::move(selector);
    c.min_domains = min_domains;
    c.node_affinity_policy = affinity_policy;
    c.node_taints_policy = taints_policy;
    for (std::string_view k : match_label_keys) c.match_label_keys.emplace_back(k);
    pod_.spec.topology_spread_constraints.push_back(std::move(c));
    return *this;
  }
  TestPod& NodeSelector(std::string_view key, std::string_view value) {
    pod_.spec.node_selector.Set(api::Symbol(key), api::Symbol(value));
    return *this;
  }
  // st's NodeAffinityIn/NotIn: one required term with one match expression.
  TestPod& NodeAffinity(std::string_view key, api::SelectorOperator op,
                        std::vector<std::string_view> values) {
    api::NodeSelectorTerm term;
    api::SelectorRequirement r{api::Symbol(key), op, {}, 0};
    for (std::string_view v : values) r.values.emplace_back(v);
    term.match_expressions.push_back(std::move(r));
    api::NodeSelector selector;
    selector.terms.push_back(std::move(term));
    api::PrepareNodeSelector(selector);
    if (!pod_.spec.affinity) pod_.spec.affinity.emplace();
    pod_.spec.affinity->node_affinity.emplace();
    pod_.spec.affinity->node_affinity->required = std::move(selector);
    return *this;
  }
  // st's Toleration(key): Exists, effect NoSchedule.
  TestPod& Toleration(std::string_view key) {
    api::Toleration t;
    t.key = api::Symbol(key);
    t.op = api::TolerationOperator::kExists;
    t.effect = api::TaintEffect::kNoSchedule;
    pod_.spec.tolerations.push_back(t);
    return *this;
  }
  // A controlling owner reference (st's OwnerReference sets controller: true).
  TestPod& Owner(std::string_view name, std::string_view api_version, std::string_view kind) {
    api::OwnerReference ref;
    ref.name = std::string(name);
    ref.api_version = std::string(api_version);
    ref.kind = std::string(kind);
    ref.uid = std::string(name);
    ref.controller = true;
    pod_.metadata.owner_references.push_back(std::move(ref));
    return *this;
  }

  const api::Pod& Obj() const { return pod_; }
  operator const api::Pod&() const { return pod_; }

 private:
  api::Pod pod_;
};

// st.MakeNode().Name(n) with upstream's `taints` (node.kubernetes.io/unschedulable:NoSchedule).
inline testing::NodeBuilder MakeNode(std::string_view name) {
  testing::NodeBuilder b;
  b.Name(name);
  return b;
}
inline constexpr std::string_view kUnschedulableTaint = "node.kubernetes.io/unschedulable";

// Args with defaultingType List and the given default constraints, as most upstream tests use.
inline PodTopologySpreadArgs ListArgs(std::vector<DefaultConstraint> constraints = {}) {
  PodTopologySpreadArgs args;
  args.defaulting_type = std::string(kListDefaulting);
  args.default_constraints = std::move(constraints);
  return args;
}

inline PodTopologySpreadArgs SystemArgs() {
  PodTopologySpreadArgs args;
  args.defaulting_type = std::string(kSystemDefaulting);
  return args;
}

// A fake cluster with the plugin built over it.
class Harness {
 public:
  Harness(const std::vector<api::Node>& nodes, const std::vector<api::Pod>& pods,
          const PodTopologySpreadArgs& args) {
    for (const api::Node& n : nodes) fake_.AddNode(n);
    for (const api::Pod& p : pods) fake_.AddPod(p);
    std::string error;
    plugin_ = PodTopologySpread::Create(args, fake_.handle(), &error);
    EXPECT_NE(plugin_, nullptr) << error;
  }

  PodTopologySpread& plugin() { return *plugin_; }
  // Binds another pod, through the cache into the snapshot, as between two cycles.
  void AddPod(const api::Pod& pod) { fake_.AddPod(pod); }
  const framework::NodeInfo& node(std::string_view name) const {
    return *fake_.snapshot().Get(api::Symbol(name));
  }
  std::span<framework::NodeInfo* const> all_nodes() const { return fake_.snapshot().List(); }
  // The snapshot's infos of these nodes, in this order.
  std::vector<framework::NodeInfo*> nodes(const std::vector<std::string>& names) const {
    std::vector<framework::NodeInfo*> out;
    for (const std::string& n : names) out.push_back(fake_.snapshot().Get(api::Symbol(n)));
    return out;
  }

 private:
  testing::FakeServices fake_;
  std::unique_ptr<PodTopologySpread> plugin_;
};

inline std::vector<std::string> NodeNames(const std::vector<api::Node>& nodes) {
  std::vector<std::string> out;
  for (const api::Node& n : nodes) out.push_back(n.metadata.name);
  return out;
}

}  // namespace muster::plugins::podtopologyspread::testutil
