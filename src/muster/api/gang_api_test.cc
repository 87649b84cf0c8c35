// Kubernetes' own gang API (scheduling.k8s.io Workload and PodGroup, KEP-4671): each version
// decoded with its fields and defaults, and refused where its API server refuses it, with
// its messages (kubernetes/kubernetes pkg/apis/scheduling/validation for 1.35, the declarative
// validation of the types' +k8s tags for 1.36 and later).

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/gang.h"
#include "muster/api/manifests.h"

namespace muster::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

LoadResult Decode(std::string_view text) {
  LoadResult result;
  DecodeText(text, "gang.yaml", result);
  FinishLoad(result);
  return result;
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

TEST(GangApiTest, WorkloadTemplatesValidation) {
  EXPECT_EQ(OnlyError("apiVersion: scheduling.k8s.io/v1alpha2\nkind: Workload\n"
                      "metadata: {name: w}\nspec:\n  podGroupTemplates:\n"
                      "  - {name: a, schedulingPolicy: {basic: {}}}\n"
                      "  - {name: a, schedulingPolicy: {basic: {}}}\n"),
            "spec.podGroupTemplates[1]: Duplicate value: \"a\"");
  EXPECT_EQ(OnlyError("apiVersion: scheduling.k8s.io/v1beta1\nkind: Workload\n"
                      "metadata: {name: w}\nspec: {}\n"),
            "spec.podGroupTemplates: Required value");
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
