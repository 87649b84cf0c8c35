#pragma once

// The `muster bench` workloads: upstream's scheduler_perf test cases
// (kubernetes/kubernetes test/integration/scheduler_perf: misc/, affinity/ and
// topology_spreading/performance-config.yaml) with their node and pod templates
// (templates/*.yaml) and the counts of the 5000-node cases that carry a throughput threshold,
// plus muster's gang workloads. As upstream, a workload is a list of operations run in order;
// the one CreatePods marked `measured` is what its throughput is measured on.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "muster/api/time.h"
#include "muster/api/types.h"

namespace muster::bench {

// Upstream's templates, one enumerator per file (templates/ unless noted).
enum class NodeTemplate {
  kDefault,   // node-default.yaml: 4 cpu, 32Gi, 110 pods
  kWithName,  // node-with-name.yaml: scheduler-perf-node, 4 cpu, 32Gi, 90000 pods
  kChurn,     // churn/node-default.yaml: room for no pod at all
};

enum class PodTemplate {
  kDefault,                         // pod-default.yaml: 100m cpu, 500Mi
  kWithPodAntiAffinity,             // pod-with-pod-anti-affinity.yaml
  kWithPodAffinity,                 // pod-with-pod-affinity.yaml
  kWithPreferredPodAffinity,        // pod-with-preferred-pod-affinity.yaml
  kWithNodeAffinity,                // pod-with-node-affinity.yaml
  kWithTopologySpreading,           // pod-with-topology-spreading.yaml
  kWithPreferredTopologySpreading,  // pod-with-preferred-topology-spreading.yaml
  kLight,                           // light-pod.yaml: no requests
  kGated,                           // gated-pod.yaml: gate test.k8s.io/hold
  kLowPriority,                     // pod-low-priority.yaml: 900m cpu
  kHighPriority,                    // pod-high-priority.yaml: priority 10, 3 cpu
  kHighPriorityLargeCpu,            // pod-high-priority-large-cpu.yaml: priority 10, 9 cpu
  kGangMember,                      // muster's: pod-default's container in a PodGroup
  kGangMemberLarge,                 // muster's: 1200m cpu in a PodGroup (3 fit a node)
};

// The object a template describes, named `name`: nodes get the kubernetes.io/hostname label as
// upstream's node preparer adds it; pods are in namespace `ns`. Selectors come prepared.
api::Node MakeNode(NodeTemplate t, std::string_view name);
api::Pod MakePod(PodTemplate t, std::string_view name, std::string_view ns);
// The template's metadata.generateName ("pod-", "scheduler-perf-", ...).
std::string_view GenerateName(NodeTemplate t);
std::string_view GenerateName(PodTemplate t);

// ---- operations (upstream opcodes) ----

// createNodes. `label_values` non-empty: upstream's labelNodePrepareStrategy, which gives
// `label_key` the values round-robin.
struct CreateNodes {
  int32_t count = 0;
  NodeTemplate node_template = NodeTemplate::kDefault;
  std::string label_key;
  std::vector<std::string> label_values;
  // Set: each node has a CSINode letting kCSIDriver attach this many volumes (upstream's
  // nodeAllocatableStrategy csiNodeAllocatable).
  std::optional<int32_t> csi_attach_limit;
  // Set: each node has a ResourceSlice of this many devices of kDraDriver (upstream's
  // createResourceDriver maxClaimsPerNode), and the DeviceClass kDraClass selects them.
  std::optional<int32_t> dra_devices;
};

// The DRA workloads' driver and class (upstream dra/templates).
inline constexpr std::string_view kDraDriver = "test-driver.cdi.k8s.io";
inline constexpr std::string_view kDraClass = "test-class";

// The CSI driver of the volume workloads.
inline constexpr std::string_view kCSIDriver = "ebs.csi.aws.com";

// createNamespaces: prefix-0 ... prefix-(count-1).
struct CreateNamespaces {
  std::string prefix;
  int32_t count = 0;
};

// muster's: one PodGroup per entry of `min_members`, named group-00000, group-00001, ...
struct CreatePodGroups {
  std::string ns;
  std::vector<int32_t> min_members;
};

// createPods. Without `skip_wait` the run waits until every pod is bound. Gang templates fill
// the PodGroups of `ns` in order, minMember pods each. `expect_bound`: how many of the pods can
// be bound (all when unset); a measured op is done when that many are.
struct CreatePods {
  int32_t count = 0;
  PodTemplate pod_template = PodTemplate::kDefault;
  std::string ns;
  bool measured = false;   // upstream collectMetrics
  bool skip_wait = false;  // upstream skipWaitToCompletion
  std::optional<int32_t> expect_bound;
  // When groups do not all fit, the scheduler may place a different set of whole groups than
  // expect_bound's prediction and fill the cluster a few pods short of it. Once no more can
  // bind, at least this many bound is done too, not a stall.
  std::optional<int32_t> settled_bound;
  // Each pod gets a claim of its own, bound to a CSI volume of its own (upstream's
  // persistentVolumeTemplatePath pv-csi.yaml with persistentVolumeClaimTemplatePath pvc.yaml).
  bool csi_volume = false;
  // Each pod asks for one device of kDraClass through a ResourceClaimTemplate, its claim made
  // as the resource claim controller makes it (upstream's pod-with-claim-template.yaml).
  bool dra_claim = false;
};

// barrier with stageRequirement Attempted: every pod created so far has been through the queue.
struct Barrier {};

// deletePods with deletePodsPerSecond and skipWaitToCompletion: deletes the pods of `ns`, one
// every 1/per_second, in the background.
struct DeletePods {
  std::string ns;
  int32_t per_second = 0;
};

// churn: every `interval`, in the background. kCreate creates one object of each template;
// kRecreate (number 1) alternately creates and deletes one of each.
struct Churn {
  enum class Mode { kCreate, kRecreate };
  Mode mode = Mode::kCreate;
  std::string ns;
  std::vector<PodTemplate> pods;
  std::vector<NodeTemplate> nodes;
  api::Duration interval{};
};

using Op = std::variant<CreateNodes, CreateNamespaces, CreatePodGroups, CreatePods, Barrier,
                        DeletePods, Churn>;

// ---- workloads ----

// The scheduler profile a workload runs with.
enum class Profile {
  kDefault,       // upstream's default plugins
  kCoscheduling,  // plus Coscheduling as examples/config/coscheduling.yaml enables it
  // The same with examples/config/coscheduling-advanced.yaml's args (podGroupBackoffSeconds:
  // 10): groups contending for too little room otherwise keep taking it from each other.
  kCoschedulingWithBackoff,
};

struct Workload {
  std::string name;
  // Where upstream defines it (or what muster adds), for reports.
  std::string source;
  // The scheduling throughput upstream requires of the 5000-node case (pods/s); unset when
  // upstream sets none.
  std::optional<double> upstream_threshold;
  // What muster aims at on two cores (pods/s): 30x upstream's threshold, or the gang target.
  std::optional<double> target;
  Profile profile = Profile::kDefault;
  // Upstream's counts: the node count and the measured pod count the operations scale from.
  int32_t default_nodes = 0;
  int32_t default_pods = 0;
  // The operations for `nodes` nodes and `pods` measured pods. Other counts keep their ratio to
  // these; a count the cluster could not hold (one anti-affinity pod per node, one preemptor
  // per node) is clamped, so a scaled-down run still finishes with every pod placed.
  std::vector<Op> (*plan)(int32_t nodes, int32_t pods) = nullptr;
  // A run at the scale of a large cluster (minutes and gigabytes): `muster bench` runs it only
  // when named (`make bench-scale`), never as part of the whole set.
  bool at_scale = false;
};

// Every workload, in the order `muster bench` runs them (those at scale only when named).
std::span<const Workload> Workloads();
// nullptr when there is no such workload.
const Workload* FindWorkload(std::string_view name);

}  // namespace muster::bench
