// Kubernetes' own gang API (scheduling.k8s.io Workload and PodGroup, KEP-4671): each version
// decoded with its fields and defaults, and refused where its API server refuses it, with
// its messages (kubernetes/kubernetes pkg/apis/scheduling/validation for 1.35, the declarative
// validation of the types' +k8s tags for 1.36 and later).

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/feature_gates.h"
#include "muster/api/gang.h"
#include "muster/api/manifests.h"
#include "muster/api/testing/decode.h"

namespace muster::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The gates of a cluster that schedules gangs by topology (alpha in 1.37) and composite groups.
FeatureGates Alpha() {
  FeatureGates gates;
  std::string error;
  gates.Apply("TopologyAwareWorkloadScheduling=true,CompositePodGroup=true", &error, nullptr);
  return gates;
}

// Decoded with those gates on; DecodeDefault with 1.37's defaults.
LoadResult DecodeDefault(std::string_view text) { return testing::Decode(text, "gang.yaml"); }
LoadResult Decode(std::string_view text) {
  const ScopedFeatures alpha(Alpha());
  return testing::Decode(text, "gang.yaml");
}

// The one error decoding `text` gives, without its "gang.yaml: document 1 (...): " prefix.
std::string OnlyError(std::string_view text) {
  LoadResult r = Decode(text);
  if (r.errors.size() != 1) {
    std::string all;
    for (const std::string& e : r.errors) all += "\n  " + e;
    return "want one error, got " + std::to_string(r.errors.size()) + ":" + all;
  }
  const std::string& e = r.errors[0];
  const size_t field = e.find("): ");
  return field == std::string::npos ? e : e.substr(field + 3);
}

TEST(GangApiTest, V1alpha1WorkloadDefinesItsGangPodGroups) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: job-1, namespace: ml}
spec:
  controllerRef: {apiGroup: batch, kind: Job, name: job-1}
  podGroups:
  - name: workers
    policy: {gang: {minCount: 4}}
  - name: driver
    policy: {basic: {}}
---
apiVersion: v1
kind: Pod
metadata: {name: w-0, namespace: ml}
spec:
  workloadRef: {name: job-1, podGroup: workers, podGroupReplicaKey: "0"}
  containers: [{name: c, image: i}]
)");
  ASSERT_THAT(r.errors, IsEmpty());
  ASSERT_EQ(r.manifests.workloads.size(), 1u);
  const Workload& w = r.manifests.workloads[0];
  EXPECT_TRUE(w.DefinesGroups());
  ASSERT_TRUE(w.controller_ref.has_value());
  EXPECT_EQ(w.controller_ref->kind, "Job");
  ASSERT_EQ(w.pod_groups.size(), 2u);
  EXPECT_EQ(w.pod_groups[0].policy.min_count, 4);
  EXPECT_FALSE(w.pod_groups[1].policy.gang());
  EXPECT_THAT(WorkloadGangs(w), ElementsAre(GangDefinition{Symbol("job-1/workers"), 4}));

  const Pod& pod = r.manifests.pods[0];
  EXPECT_EQ(pod.spec.workload_ref.pod_group, Symbol("workers"));
  const GangRef gang = GangOf(pod);
  EXPECT_TRUE(gang.Of<Workload>());
  EXPECT_EQ(gang.name, Symbol("job-1/workers/0")) << "each replica key is a gang of its own";
  EXPECT_EQ(GangDefinitionName(gang), Symbol("job-1/workers"));
}

TEST(GangApiTest, V1alpha2PodGroupAndTheirPods) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: train}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 8}}
    schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: train-workers-0}
spec:
  podGroupTemplateRef: {workload: {workloadName: train, podGroupTemplateName: workers}}
  schedulingPolicy: {gang: {minCount: 8}}
  schedulingConstraints: {topology: [{key: topology.kubernetes.io/zone}]}
  disruptionMode: PodGroup
  priorityClassName: high
  priority: 1000
status:
  conditions:
  - {type: PodGroupScheduled, status: "False", reason: Unschedulable, message: m,
     lastTransitionTime: "2026-01-01T00:00:00Z", observedGeneration: 1}
---
apiVersion: v1
kind: Pod
metadata: {name: w-0}
spec:
  schedulingGroup: {podGroupName: train-workers-0}
  containers: [{name: c, image: i}]
)");
  ASSERT_THAT(r.errors, IsEmpty());
  EXPECT_FALSE(r.manifests.workloads[0].DefinesGroups());
  EXPECT_THAT(WorkloadGangs(r.manifests.workloads[0]), IsEmpty())
      << "a v1alpha2 Workload's templates are not gangs: its PodGroups are";
  ASSERT_EQ(r.manifests.scheduling_pod_groups.size(), 1u);
  const SchedulingPodGroup& pg = r.manifests.scheduling_pod_groups[0];
  EXPECT_EQ(pg.spec.workload_name, "train");
  EXPECT_EQ(pg.spec.template_name, "workers");
  EXPECT_EQ(pg.spec.policy.min_count, 8);
  EXPECT_THAT(pg.spec.policy.topology_keys, ElementsAre(Symbol("topology.kubernetes.io/zone")));
  EXPECT_EQ(pg.spec.policy.disruption_mode, DisruptionMode::kPodGroup);
  EXPECT_EQ(pg.spec.policy.priority, 1000);
  EXPECT_EQ(pg.ScheduledCondition(), "PodGroupScheduled");
  ASSERT_EQ(pg.status.conditions.size(), 1u);
  EXPECT_EQ(pg.status.conditions[0].reason, "Unschedulable");
  EXPECT_TRUE(r.manifests.pod_groups.empty()) << "not scheduler-plugins' PodGroup";
  // Both acted on (gang-aware preemption): no warning.
  EXPECT_THAT(r.warnings, IsEmpty());

  const GangRef gang = GangOf(r.manifests.pods[0]);
  EXPECT_TRUE(gang.Of<SchedulingPodGroup>());
  EXPECT_EQ(gang.name, Symbol("train-workers-0"));
}

TEST(GangApiTest, V1beta1AndV1alpha3PodGroups) {
  for (std::string_view version : {"v1beta1", "v1alpha3"}) {
    LoadResult r = Decode(fmt::format(R"(
apiVersion: scheduling.k8s.io/{}
kind: PodGroup
metadata: {{name: g}}
spec:
  workloadRef: {{workloadName: train, templateName: workers}}
  schedulingPolicy: {{gang: {{minCount: 2}}}}
  disruptionMode: {{all: {{}}}}
  preemptionPolicy: Never
)",
                                      version));
    ASSERT_THAT(r.errors, IsEmpty()) << version;
    const SchedulingPodGroup& pg = r.manifests.scheduling_pod_groups[0];
    EXPECT_EQ(pg.spec.workload_name, "train");
    EXPECT_EQ(pg.spec.template_name, "workers");
    EXPECT_EQ(pg.spec.policy.disruption_mode, DisruptionMode::kPodGroup);
    EXPECT_EQ(pg.spec.policy.preemption_policy, PreemptionPolicy::kNever);
    EXPECT_EQ(pg.ScheduledCondition(), "PodGroupInitiallyScheduled");
  }
}

TEST(GangApiTest, TheTwoPodGroupKindsAreToldApartByApiGroup) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: g}
spec: {minMember: 2}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec: {schedulingPolicy: {basic: {}}}
)");
  ASSERT_THAT(r.errors, IsEmpty()) << "one of each kind is no duplicate";
  EXPECT_EQ(r.manifests.pod_groups.size(), 1u);
  EXPECT_EQ(r.manifests.scheduling_pod_groups.size(), 1u);

  EXPECT_THAT(OnlyError("apiVersion: scheduling.k8s.io/v1alpha1\nkind: PodGroup\n"
                        "metadata: {name: g}\n"),
              HasSubstr("apiVersion: no kind \"PodGroup\" is registered for version "
                        "\"scheduling.k8s.io/v1alpha1\" (expected scheduling.x-k8s.io/v1alpha1, "
                        "scheduling.sigs.k8s.io/v1alpha1, scheduling.k8s.io/v1beta1"));
}

// 1.35's handwritten validation.
TEST(GangApiTest, V1alpha1WorkloadValidation) {
  auto workload = [](std::string_view groups) {
    return fmt::format(
        "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\nmetadata: {{name: w}}\n"
        "spec:\n  podGroups: {}\n",
        groups);
  };
  EXPECT_EQ(OnlyError(workload("[]")),
            "spec.podGroups: Required value: must have at least one item");
  EXPECT_EQ(
      OnlyError(workload("[" +
                         std::string("{name: a, policy: {basic: {}}}, {name: b, policy: "
                                     "{basic: {}}}, {name: c, policy: {basic: {}}}, {name: d, "
                                     "policy: {basic: {}}}, {name: e, policy: {basic: {}}}, "
                                     "{name: f, policy: {basic: {}}}, {name: g, policy: "
                                     "{basic: {}}}, {name: h, policy: {basic: {}}}, {name: i, "
                                     "policy: {basic: {}}}") +
                         "]")),
      "spec.podGroups: Too many: 9: must have at most 8 items");
  EXPECT_EQ(OnlyError(workload("[{name: a, policy: {basic: {}}}, {name: a, policy: {basic: {}}}]")),
            "spec.podGroups[1].name: Duplicate value: \"a\"");
  EXPECT_EQ(OnlyError(workload("[{name: a, policy: {}}]")),
            "spec.podGroups[0].policy: Required value: exactly one of `basic`, `gang` is required");
  EXPECT_EQ(OnlyError(workload("[{name: a, policy: {basic: {}, gang: {minCount: 2}}}]")),
            "spec.podGroups[0].policy: Invalid value: \"{`basic`, `gang`}\": exactly one of "
            "`basic`, `gang` is required, but multiple fields are set");
  EXPECT_EQ(OnlyError(workload("[{name: a, policy: {gang: {minCount: 0}}}]")),
            "spec.podGroups[0].policy.gang.minCount: Invalid value: 0: must be greater than zero");
  EXPECT_THAT(OnlyError(workload("[{name: Bad_Name, policy: {basic: {}}}]")),
              HasSubstr("spec.podGroups[0].name: Invalid value: \"Bad_Name\": a lowercase RFC "
                        "1123 label must consist of"));
}

// 1.36 and later: the declarative validation's messages.
TEST(GangApiTest, PodGroupValidation) {
  auto group = [](std::string_view spec, std::string_view version = "v1beta1") {
    return fmt::format(
        "apiVersion: scheduling.k8s.io/{}\nkind: PodGroup\nmetadata: {{name: g}}\nspec: {}\n",
        version, spec);
  };
  EXPECT_EQ(OnlyError(group("{schedulingPolicy: {gang: {minCount: 0}}}")),
            "spec.schedulingPolicy.gang.minCount: Required value");
  EXPECT_EQ(OnlyError(group("{schedulingPolicy: {gang: {minCount: -1}}}")),
            "spec.schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or "
            "equal to 1");
  EXPECT_EQ(OnlyError(group("{schedulingPolicy: {}}")),
            "spec.schedulingPolicy: Invalid value: \"\": must specify one of: `basic`, `gang`");
  EXPECT_EQ(OnlyError(group("{schedulingPolicy: {basic: {}, gang: {minCount: 1}}}")),
            "spec.schedulingPolicy: Invalid value: \"{`basic`, `gang`}\": must specify exactly "
            "one of: `basic`, `gang`");
  EXPECT_EQ(OnlyError(group("{}")), "spec.schedulingPolicy: Required value");
  EXPECT_EQ(OnlyError(group("{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: "
                            "[{key: a}, {key: b}]}}")),
            "spec.schedulingConstraints.topology: Too many: 2: must have at most 1 item");
  EXPECT_EQ(OnlyError(group("{schedulingPolicy: {basic: {}}, schedulingConstraints: {topology: "
                            "[{key: \"\"}]}}")),
            "spec.schedulingConstraints.topology[0].key: Required value");
  EXPECT_EQ(OnlyError(group("{schedulingPolicy: {basic: {}}, disruptionMode: Gang}", "v1alpha2")),
            "spec.disruptionMode: Unsupported value: \"Gang\": supported values: \"Pod\", "
            "\"PodGroup\"");
  EXPECT_EQ(OnlyError(group("{schedulingPolicy: {basic: {}}, priority: 2000000000}")),
            "spec.priority: Invalid value: 2000000000: must be less than or equal to 1000000000");
  EXPECT_EQ(OnlyError(group("{schedulingPolicy: {basic: {}}, workloadRef: {workloadName: w}}")),
            "spec.workloadRef.templateName: Required value");
}

// A pod group's claims (DRAWorkloadResourceClaims, beta and off by default in 1.37): dropped as
// the API server drops them, each member then getting claims of its own.
TEST(GangApiTest, APodGroupsClaimsAreDroppedWithTheirGateOff) {
  LoadResult r = Decode(
      "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
      "spec: {schedulingPolicy: {gang: {minCount: 2}}, resourceClaims: [{name: gpu, "
      "resourceClaimTemplateName: gpus}]}\n");
  EXPECT_THAT(r.errors, IsEmpty());
  ASSERT_EQ(r.manifests.scheduling_pod_groups.size(), 1u);
  EXPECT_THAT(r.warnings,
              ElementsAre(HasSubstr("spec.resourceClaims: dropped, as the API server drops it "
                                    "while the DRAWorkloadResourceClaims feature gate is off")));
}

// A topology constraint (TopologyAwareWorkloadScheduling, alpha and off by default in 1.37):
// dropped as the API server drops it with the gate off, and said so.
TEST(GangApiTest, ATopologyConstraintIsDroppedWithItsGateOff) {
  const LoadResult r = DecodeDefault(
      "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
      "spec: {schedulingPolicy: {gang: {minCount: 2}}, schedulingConstraints: {topology: "
      "[{key: topology.kubernetes.io/zone}, {key: b}]}}\n");
  ASSERT_THAT(r.errors, IsEmpty()) << "dropped before it is validated";
  ASSERT_EQ(r.manifests.scheduling_pod_groups.size(), 1u);
  EXPECT_THAT(r.manifests.scheduling_pod_groups[0].spec.policy.topology_keys, IsEmpty());
  EXPECT_THAT(r.warnings,
              ElementsAre(HasSubstr("spec.schedulingConstraints: dropped, as the API server drops "
                                    "it while the TopologyAwareWorkloadScheduling feature gate "
                                    "is off")));
}

TEST(GangApiTest, WorkloadTemplatesValidation) {
  EXPECT_EQ(OnlyError("apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\n"
                      "metadata: {name: w}\nspec:\n  podGroupTemplates:\n"
                      "  - {name: a, schedulingPolicy: {basic: {}}}\n"
                      "  - {name: a, schedulingPolicy: {basic: {}}}\n"),
            "spec.podGroupTemplates[1]: Duplicate value: \"a\"");
  EXPECT_EQ(OnlyError("apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\n"
                      "metadata: {name: w}\nspec: {}\n"),
            "spec.podGroupTemplates: Required value");
  // 1.37: one of the two template lists, a union.
  EXPECT_EQ(OnlyError("apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\n"
                      "metadata: {name: w}\nspec: {}\n"),
            "spec: Invalid value: \"\": must specify one of: `podGroupTemplates`, "
            "`compositePodGroupTemplates`");
}

// ---- Composite groups (KEP-6012, 1.37, alpha) ----

constexpr std::string_view kTree = R"(
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: serve}
spec:
  compositePodGroupTemplates:
  - name: serve
    schedulingPolicy: {gang: {minGroupCount: 2}}
    schedulingConstraints: {topology: [{key: rack}]}
    podGroupTemplates:
    - {name: prefill, schedulingPolicy: {gang: {minCount: 2}}}
    compositePodGroupTemplates:
    - name: decode
      schedulingPolicy: {basic: {}}
      podGroupTemplates:
      - {name: decode-a, schedulingPolicy: {gang: {minCount: 4}}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: serve}
spec:
  workloadRef: {workloadName: serve, templateName: serve}
  schedulingPolicy: {gang: {minGroupCount: 2}}
  schedulingConstraints: {topology: [{key: rack}]}
  disruptionMode: {all: {}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: decode}
spec:
  parentCompositePodGroupName: serve
  workloadRef: {workloadName: serve, templateName: decode}
  schedulingPolicy: {basic: {}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: prefill}
spec:
  parentCompositePodGroupName: serve
  workloadRef: {workloadName: serve, templateName: prefill}
  schedulingPolicy: {gang: {minCount: 2}}
)";

TEST(GangApiTest, CompositePodGroupsAndTheirTemplates) {
  const LoadResult r = Decode(kTree);
  ASSERT_THAT(r.errors, IsEmpty());
  EXPECT_THAT(r.warnings, IsEmpty());
  ASSERT_EQ(r.manifests.workloads.size(), 1u);
  const Workload& w = r.manifests.workloads[0];
  EXPECT_TRUE(w.pod_groups.empty());
  ASSERT_EQ(w.composites.size(), 1u);
  const CompositePodGroupTemplate& t = w.composites[0];
  EXPECT_EQ(t.name, "serve");
  EXPECT_EQ(t.policy.min_count, 2);
  EXPECT_THAT(t.policy.topology_keys, ElementsAre(Symbol("rack")));
  ASSERT_EQ(t.pod_groups.size(), 1u);
  EXPECT_EQ(t.pod_groups[0].policy.min_count, 2);
  ASSERT_EQ(t.composites.size(), 1u);
  EXPECT_FALSE(t.composites[0].policy.gang());
  ASSERT_EQ(r.manifests.composite_pod_groups.size(), 2u);
  const CompositePodGroup& root = r.manifests.composite_pod_groups[0];
  EXPECT_TRUE(root.spec.parent.empty());
  EXPECT_EQ(root.spec.workload_name, "serve");
  EXPECT_EQ(root.spec.policy.min_count, 2);
  EXPECT_EQ(root.spec.policy.disruption_mode, DisruptionMode::kPodGroup);
  EXPECT_EQ(r.manifests.composite_pod_groups[1].spec.parent, Symbol("serve"));
  EXPECT_EQ(r.manifests.scheduling_pod_groups[0].spec.parent, Symbol("serve"));
}

// With the CompositePodGroup gate off (1.37's default), as the API server: the kind is not
// served, the Workload's field forbidden, a PodGroup's parent dropped.
TEST(GangApiTest, CompositePodGroupsNeedTheirGate) {
  const LoadResult r = DecodeDefault(kTree);
  EXPECT_THAT(r.errors,
              ElementsAre(HasSubstr("spec.compositePodGroupTemplates: Forbidden: the "
                                    "CompositePodGroup feature gate is off"),
                          HasSubstr("CompositePodGroup default/serve): the API server does not "
                                    "serve CompositePodGroups"),
                          HasSubstr("CompositePodGroup default/decode): the API server does not "
                                    "serve CompositePodGroups")));
  EXPECT_THAT(r.warnings, ::testing::Contains(HasSubstr(
                              "spec.parentCompositePodGroupName: dropped, as the API server drops "
                              "it while the CompositePodGroup feature gate is off")));
}

TEST(GangApiTest, CompositeValidation) {
  auto workload = [](std::string_view templates) {
    return fmt::format(
        "apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {{name: w}}\n"
        "spec:\n  compositePodGroupTemplates:\n{}",
        templates);
  };
  auto leaf = [](std::string_view name, std::string_view extra = "") {
    return fmt::format("{{name: {}, schedulingPolicy: {{basic: {{}}}}{}}}", name, extra);
  };
  // A composite with no child.
  EXPECT_EQ(OnlyError(workload("  - {name: c, schedulingPolicy: {basic: {}}}\n")),
            "spec.compositePodGroupTemplates[0]: Invalid value: \"c\": must have at least one "
            "child PodGroupTemplate or CompositePodGroupTemplate");
  // Names unique across the tree, whatever the list.
  EXPECT_EQ(OnlyError(workload(fmt::format("  - name: c\n    schedulingPolicy: {{basic: {{}}}}\n"
                                           "    podGroupTemplates: [{}]\n",
                                           leaf("c")))),
            "spec.compositePodGroupTemplates[0].podGroupTemplates[0].name: Duplicate value: "
            "\"c\"");
  // Four composite levels are one too many (PodGroups are the fourth).
  std::string deep = fmt::format(
      "{{name: l, schedulingPolicy: {{basic: {{}}}}, podGroupTemplates: "
      "[{}]}}",
      leaf("p"));
  for (const char* name : {"c3", "c2", "c1"}) {
    deep = fmt::format(
        "{{name: {}, schedulingPolicy: {{basic: {{}}}}, "
        "compositePodGroupTemplates: [{}]}}",
        name, deep);
  }
  EXPECT_EQ(OnlyError(workload("  - " + deep + "\n")),
            "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0]."
            "compositePodGroupTemplates[0].compositePodGroupTemplates[0]: Invalid value: \"l\": "
            "maximum template hierarchy depth is 4");
  // One priority for the whole tree.
  EXPECT_EQ(OnlyError(workload(fmt::format("  - name: c\n    schedulingPolicy: {{gang: "
                                           "{{minGroupCount: 1}}}}\n    priority: 10\n"
                                           "    podGroupTemplates: [{}]\n",
                                           leaf("p", ", priority: 20")))),
            "spec: Invalid value: null: detected multiple priority configurations");
  // minGroupCount as minCount is validated.
  EXPECT_EQ(OnlyError(workload(fmt::format("  - name: c\n    schedulingPolicy: {{gang: "
                                           "{{minGroupCount: -1}}}}\n    podGroupTemplates: [{}]\n",
                                           leaf("p")))),
            "spec.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount: Invalid "
            "value: -1: must be greater than or equal to 1");
  // Both lists, or neither.
  EXPECT_EQ(OnlyError("apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\nmetadata: {name: w}\n"
                      "spec:\n  podGroupTemplates: [{name: a, schedulingPolicy: {basic: {}}}]\n"
                      "  compositePodGroupTemplates: [{name: c, schedulingPolicy: {basic: {}}, "
                      "podGroupTemplates: [{name: p, schedulingPolicy: {basic: {}}}]}]\n"),
            "spec: Invalid value: \"{podGroupTemplates, compositePodGroupTemplates}\": must "
            "specify exactly one of: `podGroupTemplates`, `compositePodGroupTemplates`");
  // A PodGroup naming a parent names its workload too.
  EXPECT_EQ(OnlyError("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: g}\n"
                      "spec: {parentCompositePodGroupName: c, schedulingPolicy: {basic: {}}}\n"),
            "spec.workloadRef: Required value: must be specified when "
            "`parentCompositePodGroupName` is specified");
  EXPECT_EQ(OnlyError("apiVersion: scheduling.k8s.io/v1alpha3\nkind: CompositePodGroup\n"
                      "metadata: {name: c}\nspec: {schedulingPolicy: {basic: {}}}\n"),
            "spec.workloadRef: Required value");
}

TEST(GangApiTest, PodGangReferences) {
  EXPECT_EQ(OnlyError("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                      "  workloadRef: {name: w}\n  containers: [{name: c, image: i}]\n"),
            "spec.workloadRef.podGroup: Required value");
  EXPECT_THAT(OnlyError("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                        "  workloadRef: {name: w, podGroup: g}\n"
                        "  schedulingGroup: {podGroupName: g}\n"
                        "  containers: [{name: c, image: i}]\n"),
              HasSubstr("spec.schedulingGroup: Forbidden: a pod names one gang"));
  EXPECT_THAT(OnlyError("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
                        "  schedulingGroup: {podGroupName: Bad_Name}\n"
                        "  containers: [{name: c, image: i}]\n"),
              HasSubstr("spec.schedulingGroup.podGroupName: Invalid value: \"Bad_Name\""));
}

}  // namespace
}  // namespace muster::api
