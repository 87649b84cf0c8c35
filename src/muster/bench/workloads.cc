#include "muster/bench/workloads.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <span>

namespace muster::bench {
namespace {

using api::Symbol;

constexpr std::string_view kHostnameLabel = "kubernetes.io/hostname";
constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";
constexpr std::string_view kWithNameNode = "scheduler-perf-node";

// Pods a node-default.yaml node holds of pod-default.yaml's 100m cpu (memory allows 65, the pod
// count 110).
constexpr int64_t kDefaultPodsPerNode = 40;
// node-with-name.yaml's pod capacity.
constexpr int64_t kWithNamePods = 90000;
// kGangMemberLarge pods a node-default.yaml node holds (3 x 1200m of 4 cpu).
constexpr int64_t kLargeGangPodsPerNode = 3;

api::Quantity Q(std::string_view text) {
  std::optional<api::Quantity> q = api::Quantity::Parse(text);
  if (!q) std::abort();  // the literals below are valid quantities
  return *q;
}

api::Container Pause(std::string_view image, std::string_view cpu, std::string_view memory,
                     bool limits, bool port) {
  api::Container c;
  c.name = "pause";
  c.image = Symbol(image);
  if (port) c.ports.push_back(api::ContainerPort{"", 80, 0, api::Protocol::kTCP, Symbol()});
  if (!cpu.empty()) {
    c.resources.requests.Set(api::kResourceCPU, Q(cpu));
    c.resources.requests.Set(api::kResourceMemory, Q(memory));
    if (limits) c.resources.limits = c.resources.requests;
  }
  return c;
}

api::LabelSelector MatchLabel(std::string_view key, std::string_view value) {
  api::LabelSelector sel;
  sel.match_labels.emplace_back(Symbol(key), Symbol(value));
  api::PrepareLabelSelector(sel);
  return sel;
}

// The templates' pod (anti-)affinity term: pods labelled color=`color` in sched-1 or sched-0.
api::PodAffinityTerm ColorTerm(std::string_view color, std::string_view topology_key) {
  api::PodAffinityTerm term;
  term.label_selector = MatchLabel("color", color);
  term.namespaces = {Symbol("sched-1"), Symbol("sched-0")};
  term.topology_key = Symbol(topology_key);
  return term;
}

api::TopologySpreadConstraint BlueSpread(api::UnsatisfiableConstraintAction action) {
  api::TopologySpreadConstraint c;
  c.max_skew = 5;
  c.topology_key = Symbol(kZoneLabel);
  c.when_unsatisfiable = action;
  c.label_selector = MatchLabel("color", "blue");
  return c;
}

// ---- plans ----

int64_t Floor1(int64_t v) { return std::max<int64_t>(v, 1); }

// A measured count and an initial count of measured * num / den, the measured count lowered
// when both together exceed `capacity` pods.
struct Counts {
  int32_t initial = 0;
  int32_t measured = 0;
};

Counts Scale(int32_t measured, int64_t num, int64_t den, int64_t capacity) {
  int64_t m = measured;
  if (m + m * num / den > capacity) m = capacity * den / (den + num);
  m = Floor1(m);
  return {static_cast<int32_t>(m * num / den), static_cast<int32_t>(m)};
}

CreateNodes Nodes(int32_t count, std::vector<std::string> zones = {}) {
  CreateNodes op;
  op.count = count;
  if (!zones.empty()) {
    op.label_key = std::string(kZoneLabel);
    op.label_values = std::move(zones);
  }
  return op;
}

CreatePods Pods(int32_t count, PodTemplate t, std::string ns, bool measured = false) {
  CreatePods op;
  op.count = count;
  op.pod_template = t;
  op.ns = std::move(ns);
  op.measured = measured;
  return op;
}

// misc: SchedulingBasic/5000Nodes_10000Pods.
std::vector<Op> SchedulingBasic(int32_t nodes, int32_t pods) {
  const Counts c = Scale(pods, 1, 10, kDefaultPodsPerNode * nodes);
  return {Nodes(nodes), Pods(c.initial, PodTemplate::kDefault, "namespace-1"),
          Pods(c.measured, PodTemplate::kDefault, "namespace-2", true)};
}

// affinity: the Scheduling*Affinity cases share this shape: pods of one template in sched-0,
// then measured ones in sched-1.
std::vector<Op> AffinityPlan(int32_t nodes, Counts c, PodTemplate t,
                             std::vector<std::string> zones) {
  return {Nodes(nodes, std::move(zones)), CreateNamespaces{"sched", 2},
          Pods(c.initial, t, "sched-0"), Pods(c.measured, t, "sched-1", true)};
}

// affinity: SchedulingPodAntiAffinity/5000Nodes_2000Pods. Anti-affinity on the hostname allows
// one pod per node.
std::vector<Op> SchedulingPodAntiAffinity(int32_t nodes, int32_t pods) {
  return AffinityPlan(nodes, Scale(pods, 1, 2, nodes), PodTemplate::kWithPodAntiAffinity, {});
}

// affinity: SchedulingPodAffinity/5000Nodes_5000Pods. Every node is in zone1.
std::vector<Op> SchedulingPodAffinity(int32_t nodes, int32_t pods) {
  return AffinityPlan(nodes, Scale(pods, 1, 1, kDefaultPodsPerNode * nodes),
                      PodTemplate::kWithPodAffinity, {"zone1"});
}

// affinity: SchedulingPreferredPodAffinity/5000Nodes_5000Pods.
std::vector<Op> SchedulingPreferredPodAffinity(int32_t nodes, int32_t pods) {
  return AffinityPlan(nodes, Scale(pods, 1, 1, kDefaultPodsPerNode * nodes),
                      PodTemplate::kWithPreferredPodAffinity, {});
}

// affinity: SchedulingNodeAffinity/5000Nodes_10000Pods. Every node is in zone1.
std::vector<Op> SchedulingNodeAffinity(int32_t nodes, int32_t pods) {
  const Counts c = Scale(pods, 1, 2, kDefaultPodsPerNode * nodes);
  return {Nodes(nodes, {"zone1"}), Pods(c.initial, PodTemplate::kWithNodeAffinity, "namespace-1"),
          Pods(c.measured, PodTemplate::kWithNodeAffinity, "namespace-2", true)};
}

std::vector<Op> SpreadingPlan(int32_t nodes, int32_t pods, PodTemplate measured) {
  const Counts c = Scale(pods, 1, 1, kDefaultPodsPerNode * nodes);
  return {Nodes(nodes, {"moon-1", "moon-2", "moon-3"}),
          Pods(c.initial, PodTemplate::kDefault, "namespace-1"),
          Pods(c.measured, measured, "namespace-2", true)};
}

// topology_spreading: TopologySpreading/5000Nodes_5000Pods.
std::vector<Op> TopologySpreading(int32_t nodes, int32_t pods) {
  return SpreadingPlan(nodes, pods, PodTemplate::kWithTopologySpreading);
}

// topology_spreading: PreferredTopologySpreading/5000Nodes_5000Pods.
std::vector<Op> PreferredTopologySpreading(int32_t nodes, int32_t pods) {
  return SpreadingPlan(nodes, pods, PodTemplate::kWithPreferredTopologySpreading);
}

// misc: Unschedulable/5kNodes/100Init/10kPods: a pod no node can hold (9 cpu, priority 10)
// every 200ms while the measured pods are scheduled.
std::vector<Op> Unschedulable(int32_t nodes, int32_t pods) {
  const Counts c = Scale(pods, 1, 100, kDefaultPodsPerNode * nodes);
  Churn churn;
  churn.mode = Churn::Mode::kCreate;
  churn.ns = "namespace-2";
  churn.pods = {PodTemplate::kHighPriorityLargeCpu};
  churn.interval = std::chrono::milliseconds(200);
  return {Nodes(nodes), Pods(std::max(c.initial, 1), PodTemplate::kDefault, "namespace-1"), churn,
          Pods(c.measured, PodTemplate::kDefault, "namespace-3", true)};
}

// misc: SchedulingWhileGated/1Node_10000GatedPods: one node (upstream's count is fixed, so
// --nodes does not apply); gated pods that stay gated; pods scheduled then deleted at 50/s
// while the measured pods are scheduled.
std::vector<Op> SchedulingWhileGated(int32_t, int32_t pods) {
  const int32_t measured = static_cast<int32_t>(std::min<int64_t>(Floor1(pods), kWithNamePods / 2));
  CreateNodes node;
  node.count = 1;
  node.node_template = NodeTemplate::kWithName;
  CreatePods gated =
      Pods(static_cast<int32_t>(Floor1(measured / 2)), PodTemplate::kGated, "namespace-1");
  gated.skip_wait = true;
  return {node,
          gated,
          Barrier{},
          Pods(measured, PodTemplate::kLight, "namespace-3"),
          DeletePods{"namespace-3", 50},
          Pods(measured, PodTemplate::kLight, "namespace-5", true)};
}

// misc: PreemptionBasic/1000Nodes: four 900m pods fill each node; each measured pod (3 cpu,
// priority 10) must preempt three of them. One preemptor fits a node.
std::vector<Op> PreemptionBasic(int32_t nodes, int32_t pods) {
  return {Nodes(nodes), Pods(4 * nodes, PodTemplate::kLowPriority, "namespace-1"),
          Pods(std::min(pods, nodes), PodTemplate::kHighPriority, "namespace-2", true)};
}

// misc: SchedulingWithMixedChurn/5000Nodes_10000Pods: every second a node with room for no pod
// and an unschedulable pod are created, and deleted the next second. (Upstream also churns a
// Service; muster does not model Services, and one selecting app=foo affects none of these pods.)
std::vector<Op> SchedulingWithMixedChurn(int32_t nodes, int32_t pods) {
  Churn churn;
  churn.mode = Churn::Mode::kRecreate;
  churn.ns = "namespace-1";
  churn.nodes = {NodeTemplate::kChurn};
  churn.pods = {PodTemplate::kHighPriorityLargeCpu};
  churn.interval = std::chrono::seconds(1);
  const int32_t measured =
      static_cast<int32_t>(std::min<int64_t>(pods, kDefaultPodsPerNode * nodes));
  return {Nodes(nodes), churn, Pods(measured, PodTemplate::kDefault, "namespace-2", true)};
}

// muster: 1000 PodGroups of 16 pod-default pods, minMember 16; all fit.
std::vector<Op> GangBasic(int32_t nodes, int32_t pods) {
  const int64_t groups = std::min<int64_t>(Floor1(pods / 16), kDefaultPodsPerNode * nodes / 16);
  CreatePodGroups pg{"gang", std::vector<int32_t>(static_cast<size_t>(Floor1(groups)), 16)};
  const int32_t count = static_cast<int32_t>(pg.min_members.size()) * 16;
  return {Nodes(nodes), pg, Pods(count, PodTemplate::kGangMember, "gang", true)};
}

// PodGroups of `sizes` pods in turn (minMember = size), 1200m each, three to a node, `pods` in
// all: more than the cluster holds. Groups fit in order until one does not; it waits whole
// while others after it may still fit. Measured: the pods of the groups that fit.
std::vector<Op> ContendedGangs(int32_t nodes, int32_t pods, std::span<const int32_t> sizes) {
  CreatePodGroups pg{"gang", {}};
  int32_t total = 0;
  for (size_t i = 0; total < pods; ++i) {
    pg.min_members.push_back(sizes[i % sizes.size()]);
    total += pg.min_members.back();
  }
  // Nothing fragments (every pod fits any free slot). A first-fit pass in queue order (group
  // name order) predicts the groups that fit; the scheduler re-sorts groups that failed, so it
  // may place others and stop with fewer free slots than the smallest group.
  const int64_t slots = kLargeGangPodsPerNode * int64_t{nodes};
  int64_t free_slots = slots;
  int32_t fit = 0;
  for (int32_t size : pg.min_members) {
    if (size > free_slots) continue;
    free_slots -= size;
    fit += size;
  }
  const int32_t smallest = *std::min_element(sizes.begin(), sizes.end());
  CreatePods op = Pods(total, PodTemplate::kGangMemberLarge, "gang", true);
  op.expect_bound = fit;
  op.settled_bound = static_cast<int32_t>(std::min<int64_t>(fit, slots - (smallest - 1)));
  return {Nodes(nodes), pg, op};
}

// muster: PodGroups of 16, 12 and 8 pods in turn, beyond capacity (5000 nodes, 18000 pods).
std::vector<Op> GangContended(int32_t nodes, int32_t pods) {
  static constexpr std::array<int32_t, 3> kSizes = {16, 12, 8};
  return ContendedGangs(nodes, pods, kSizes);
}

// muster: many PodGroups of 32 compete for a cluster that holds a quarter of them (1000 nodes,
// 3000 slots, 12000 pods): in upstream's per-pod mode each group that cannot fit is partly
// placed, held at Permit and released again.
std::vector<Op> GangOversubscribed(int32_t nodes, int32_t pods) {
  static constexpr std::array<int32_t, 1> kSizes = {32};
  return ContendedGangs(nodes, pods, kSizes);
}

// volumes: SchedulingCSIPVs-shaped (volumes/performance-config.yaml): nodes whose CSINode
// allows 39 attachments of the driver, every pod on a claim bound to its own CSI volume, so
// that VolumeBinding, VolumeZone, VolumeRestrictions and NodeVolumeLimits all run for each.
std::vector<Op> SchedulingCSIPVs(int32_t nodes, int32_t pods) {
  const Counts c = Scale(pods, 1, 5, 39 * int64_t{nodes});
  CreateNodes n = Nodes(nodes);
  n.csi_attach_limit = 39;
  CreatePods initial = Pods(c.initial, PodTemplate::kDefault, "namespace-1");
  initial.csi_volume = true;
  CreatePods measured = Pods(c.measured, PodTemplate::kDefault, "namespace-2", true);
  measured.csi_volume = true;
  return {n, initial, measured};
}

// dra: SchedulingWithResourceClaimTemplate (dra/performance-config.yaml): nodes each with a
// ResourceSlice of 10 devices, every pod with a claim from a template for one of them; the
// initial and the measured pods together fill every device.
std::vector<Op> SchedulingWithResourceClaimTemplate(int32_t nodes, int32_t pods) {
  constexpr int32_t kDevicesPerNode = 10;
  const Counts c = Scale(pods, 1, 1, int64_t{kDevicesPerNode} * nodes);
  CreateNodes n = Nodes(nodes);
  n.dra_devices = kDevicesPerNode;
  CreatePods initial = Pods(c.initial, PodTemplate::kDefault, "init");
  initial.dra_claim = true;
  CreatePods measured = Pods(c.measured, PodTemplate::kDefault, "test", true);
  measured.dra_claim = true;
  return {n, initial, measured};
}

double Target(double threshold) { return 30 * threshold; }

constexpr double kGangTarget = 20000;

// At scale: 50,000 nodes (the largest cluster Kubernetes supports) and a million measured pods.
constexpr int32_t kScaleNodes = 50000;
constexpr int32_t kScalePods = 1000000;
// SchedulingBasic at scale: twice the 8,505 pods/s of fab7e47 (2026-11-29), the first build
// measured there.
constexpr double kScaleTarget = 17000;

const std::vector<Workload>& All() {
  static const std::vector<Workload> workloads = {
      {"SchedulingBasic", "misc/performance-config.yaml SchedulingBasic/5000Nodes_10000Pods", 680,
       Target(680), Profile::kDefault, 5000, 10000, SchedulingBasic},
      {"SchedulingPodAntiAffinity",
       "affinity/performance-config.yaml SchedulingPodAntiAffinity/5000Nodes_2000Pods", 60,
       Target(60), Profile::kDefault, 5000, 2000, SchedulingPodAntiAffinity},
      {"SchedulingPodAffinity",
       "affinity/performance-config.yaml SchedulingPodAffinity/5000Nodes_5000Pods", 35, Target(35),
       Profile::kDefault, 5000, 5000, SchedulingPodAffinity},
      {"SchedulingPreferredPodAffinity",
       "affinity/performance-config.yaml SchedulingPreferredPodAffinity/5000Nodes_5000Pods", 90,
       Target(90), Profile::kDefault, 5000, 5000, SchedulingPreferredPodAffinity},
      {"SchedulingNodeAffinity",
       "affinity/performance-config.yaml SchedulingNodeAffinity/5000Nodes_10000Pods", 220,
       Target(220), Profile::kDefault, 5000, 10000, SchedulingNodeAffinity},
      {"TopologySpreading",
       "topology_spreading/performance-config.yaml TopologySpreading/5000Nodes_5000Pods", 460,
       Target(460), Profile::kDefault, 5000, 5000, TopologySpreading},
      {"PreferredTopologySpreading",
       "topology_spreading/performance-config.yaml PreferredTopologySpreading/5000Nodes_5000Pods",
       340, Target(340), Profile::kDefault, 5000, 5000, PreferredTopologySpreading},
      {"Unschedulable", "misc/performance-config.yaml Unschedulable/5kNodes/100Init/10kPods", 590,
       Target(590), Profile::kDefault, 5000, 10000, Unschedulable},
      {"SchedulingWhileGated",
       "misc/performance-config.yaml SchedulingWhileGated/1Node_10000GatedPods", 910, Target(910),
       Profile::kDefault, 1, 20000, SchedulingWhileGated},
      {"PreemptionBasic", "misc/performance-config.yaml PreemptionBasic/1000Nodes", std::nullopt,
       std::nullopt, Profile::kDefault, 1000, 1000, PreemptionBasic},
      {"SchedulingWithMixedChurn",
       "misc/performance-config.yaml SchedulingWithMixedChurn/5000Nodes_10000Pods", 710,
       Target(710), Profile::kDefault, 5000, 10000, SchedulingWithMixedChurn},
      {"SchedulingCSIPVs",
       "muster, after volumes/performance-config.yaml SchedulingCSIPVs: each pod on its own "
       "claim bound to a CSI volume, nodes with CSI attach limits",
       std::nullopt, std::nullopt, Profile::kDefault, 5000, 5000, SchedulingCSIPVs},
      {"SchedulingWithResourceClaimTemplate",
       "dra/performance-config.yaml SchedulingWithResourceClaimTemplate/5000pods_500nodes", 40,
       Target(40), Profile::kDefault, 500, 2500, SchedulingWithResourceClaimTemplate},
      {"GangBasic", "muster: 1000 PodGroups x 16 pods, all fit (Coscheduling)", std::nullopt,
       kGangTarget, Profile::kCoscheduling, 5000, 16000, GangBasic},
      {"GangContended",
       "muster: PodGroups of 16/12/8 pods beyond capacity, some wait whole (Coscheduling)",
       std::nullopt, kGangTarget, Profile::kCoschedulingWithBackoff, 5000, 18000, GangContended},
      {"GangOversubscribed",
       "muster: PodGroups of 32 pods, four times what the cluster holds (Coscheduling)",
       std::nullopt, kGangTarget, Profile::kCoschedulingWithBackoff, 1000, 12000,
       GangOversubscribed},
      {"SchedulingBasicAtScale",
       "muster: SchedulingBasic at 50,000 nodes and 1M measured pods (~2 min, ~2.5 GiB)",
       std::nullopt, kScaleTarget, Profile::kDefault, kScaleNodes, kScalePods, SchedulingBasic,
       /*at_scale=*/true},
      {"GangBasicAtScale",
       "muster: GangBasic at 50,000 nodes, 62,500 PodGroups x 16 pods (Coscheduling)", std::nullopt,
       kGangTarget, Profile::kCoscheduling, kScaleNodes, kScalePods, GangBasic,
       /*at_scale=*/true},
  };
  return workloads;
}

}  // namespace

std::string_view GenerateName(NodeTemplate t) {
  switch (t) {
    case NodeTemplate::kDefault:
      return "scheduler-perf-";
    case NodeTemplate::kWithName:
      return "";
    case NodeTemplate::kChurn:
      return "node-churn-";
  }
  return "";
}

std::string_view GenerateName(PodTemplate t) {
  switch (t) {
    case PodTemplate::kDefault:
    case PodTemplate::kLowPriority:
    case PodTemplate::kHighPriority:
      return "pod-";
    case PodTemplate::kWithPodAntiAffinity:
      return "anti-affinity-pod-";
    case PodTemplate::kWithPodAffinity:
      return "affinity-pod-";
    case PodTemplate::kWithPreferredPodAffinity:
      return "preferred-affinity-pod-";
    case PodTemplate::kWithNodeAffinity:
      return "node-affinity-";
    case PodTemplate::kWithTopologySpreading:
    case PodTemplate::kWithPreferredTopologySpreading:
      return "spreading-pod-";
    case PodTemplate::kLight:
      return "light-pod-";
    case PodTemplate::kGated:
      return "gated-pod-";
    case PodTemplate::kHighPriorityLargeCpu:
      return "pod-h-";
    case PodTemplate::kGangMember:
    case PodTemplate::kGangMemberLarge:
      return "gang-pod-";
  }
  return "";
}

api::Node MakeNode(NodeTemplate t, std::string_view name) {
  api::Node node;
  node.metadata.name =
      name.empty() && t == NodeTemplate::kWithName ? std::string(kWithNameNode) : std::string(name);
  node.metadata.labels.Set(Symbol(kHostnameLabel), Symbol(node.metadata.name));
  api::ResourceList& capacity = node.status.capacity;
  switch (t) {
    case NodeTemplate::kDefault:
      capacity.Set(api::kResourcePods, Q("110"));
      capacity.Set(api::kResourceCPU, Q("4"));
      capacity.Set(api::kResourceMemory, Q("32Gi"));
      break;
    case NodeTemplate::kWithName:
      capacity.Set(api::kResourcePods, Q("90000"));
      capacity.Set(api::kResourceCPU, Q("4"));
      capacity.Set(api::kResourceMemory, Q("32Gi"));
      break;
    case NodeTemplate::kChurn:
      capacity.Set(api::kResourcePods, Q("0"));
      break;
  }
  // The API server defaults allocatable to capacity.
  node.status.allocatable = capacity;
  node.status.conditions.push_back(api::NodeCondition{"Ready", "True", "", ""});
  return node;
}

api::Pod MakePod(PodTemplate t, std::string_view name, std::string_view ns) {
  api::Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = Symbol(ns);
  api::PodSpec& spec = pod.spec;
  switch (t) {
    case PodTemplate::kDefault:
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10.1", "100m", "500Mi", true, true));
      break;
    case PodTemplate::kWithPodAntiAffinity: {
      pod.metadata.labels.Set(Symbol("color"), Symbol("green"));
      api::PodAffinity anti;
      anti.required.push_back(ColorTerm("green", kHostnameLabel));
      spec.affinity.emplace().pod_anti_affinity = std::move(anti);
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10.2", "100m", "500Mi", true, true));
      break;
    }
    case PodTemplate::kWithPodAffinity: {
      pod.metadata.labels.Set(Symbol("color"), Symbol("blue"));
      api::PodAffinity affinity;
      affinity.required.push_back(ColorTerm("blue", kZoneLabel));
      spec.affinity.emplace().pod_affinity = std::move(affinity);
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10.1", "100m", "500Mi", true, true));
      break;
    }
    case PodTemplate::kWithPreferredPodAffinity: {
      pod.metadata.labels.Set(Symbol("color"), Symbol("red"));
      api::PodAffinity affinity;
      affinity.preferred.push_back(
          api::WeightedPodAffinityTerm{1, ColorTerm("red", kHostnameLabel)});
      spec.affinity.emplace().pod_affinity = std::move(affinity);
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10.1", "100m", "500Mi", true, true));
      break;
    }
    case PodTemplate::kWithNodeAffinity: {
      api::SelectorRequirement zone;
      zone.key = Symbol(kZoneLabel);
      zone.op = api::SelectorOperator::kIn;
      zone.values = {Symbol("zone1"), Symbol("zone2")};
      api::NodeSelector required;
      required.terms.emplace_back().match_expressions.push_back(std::move(zone));
      api::PrepareNodeSelector(required);
      spec.affinity.emplace().node_affinity.emplace().required = std::move(required);
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10.1", "100m", "500Mi", true, true));
      break;
    }
    case PodTemplate::kWithTopologySpreading:
      pod.metadata.labels.Set(Symbol("color"), Symbol("blue"));
      spec.topology_spread_constraints.push_back(
          BlueSpread(api::UnsatisfiableConstraintAction::kDoNotSchedule));
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10", "100m", "500Mi", true, true));
      break;
    case PodTemplate::kWithPreferredTopologySpreading:
      pod.metadata.labels.Set(Symbol("color"), Symbol("blue"));
      spec.topology_spread_constraints.push_back(
          BlueSpread(api::UnsatisfiableConstraintAction::kScheduleAnyway));
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10.1", "100m", "500Mi", true, true));
      break;
    case PodTemplate::kLight:
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10.2", "", "", false, false));
      break;
    case PodTemplate::kGated:
      spec.scheduling_gates.push_back("test.k8s.io/hold");
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10", "", "", false, false));
      break;
    case PodTemplate::kLowPriority:
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10", "900m", "500Mi", true, true));
      break;
    case PodTemplate::kHighPriority:
      spec.priority = 10;
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10", "3000m", "500Mi", true, true));
      break;
    case PodTemplate::kHighPriorityLargeCpu:
      spec.priority = 10;
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10.1", "9", "500Mi", false, true));
      break;
    case PodTemplate::kGangMember:
      spec.containers.push_back(Pause("registry.k8s.io/pause:3.10.1", "100m", "500Mi", true, true));
      break;
    case PodTemplate::kGangMemberLarge:
      spec.containers.push_back(
          Pause("registry.k8s.io/pause:3.10.1", "1200m", "500Mi", true, true));
      break;
  }
  return pod;
}

std::span<const Workload> Workloads() { return All(); }

const Workload* FindWorkload(std::string_view name) {
  for (const Workload& w : All()) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

}  // namespace muster::bench
