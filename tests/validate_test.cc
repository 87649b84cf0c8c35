// `muster validate` in process: the listing's facts are what simulate will use (a workload's
// pods admitted as they will be when created), and what the API server accepts it accepts.

#include "muster/cli/validate.h"

#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace muster {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Validated {
  int status = -1;
  std::string out;
  std::string err;
};

// Validates the file at `path`, or `input` when `path` is "-".
Validated Validate(const std::string& path, const std::string& input = "") {
  std::istringstream in(input);
  std::ostringstream out, err;
  Validated v;
  v.status = cli::RunValidate({path}, "", api::FieldValidation::kStrict, in, out, err);
  v.out = out.str();
  v.err = err.str();
  return v;
}

const std::string kRoot = MUSTER_SOURCE_DIR;

TEST(ValidateTest, AWorkloadsPodsHaveThePriorityTheirClassResolvesTo) {
  const Validated v = Validate(kRoot + "/tests/data/workload-priority.yaml");
  ASSERT_EQ(v.status, cli::kExitOk) << v.err;
  EXPECT_THAT(v.out, HasSubstr("default/train"));
  EXPECT_THAT(v.out, HasSubstr("backoffLimit 0 pod requests cpu=1 priority 1000\n"));
  EXPECT_THAT(v.out, HasSubstr("replicas 1 pod requests cpu=1 priority 1000\n"));
  EXPECT_THAT(v.out, Not(HasSubstr("priority 0")));
}

// The API server accepts a workload whose template names a class that does not exist (its
// admission refuses the pods): a warning naming file, document and field, not an error.
TEST(ValidateTest, AWorkloadWithAMissingPriorityClassIsAWarning) {
  const std::string path = kRoot + "/tests/scenarios/workload-missing-priority-class/all.yaml";
  const Validated v = Validate(path);
  ASSERT_EQ(v.status, cli::kExitOk) << v.err;
  EXPECT_THAT(v.err, HasSubstr("warning: " + path +
                               ": document 2 (Job default/batch): "
                               "spec.template.spec.priorityClassName: no PriorityClass with name "
                               "gold was found: its pods cannot be created"));
  EXPECT_THAT(v.err, HasSubstr("warning: " + path +
                               ": document 3 (Deployment default/web): "
                               "spec.template.spec.priorityClassName"));
  EXPECT_THAT(v.err, HasSubstr("warning: " + path + ": document 4 (StatefulSet default/db): "));
  EXPECT_THAT(v.out, HasSubstr("priority unresolved (no PriorityClass with name gold was found)"));
  EXPECT_THAT(v.out, HasSubstr("4 object(s) valid"));
}

// A bare pod with that class is refused by the API server itself.
TEST(ValidateTest, APodWithAMissingPriorityClassIsAnError) {
  const Validated v = Validate("-", R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  priorityClassName: gold
  containers: [{name: c, image: i}]
)");
  EXPECT_EQ(v.status, cli::kExitBadInput);
  EXPECT_THAT(v.err,
              HasSubstr("error: <stdin>: document 1 (Pod default/p): spec.priorityClassName: "
                        "no PriorityClass with name gold was found"));
}

TEST(ValidateTest, APodFailurePolicyThatTheApiServerRefusesExitsTwo) {
  const Validated v = Validate("-", R"(apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions: [{type: DisruptionTarget}]
  template:
    spec:
      restartPolicy: OnFailure
      containers: [{name: c, image: i}]
)");
  EXPECT_EQ(v.status, cli::kExitBadInput);
  EXPECT_THAT(v.err, HasSubstr("error: <stdin>: document 1 (Job default/train): "
                               "spec.template.spec.restartPolicy: Invalid value: \"OnFailure\": "
                               "only \"Never\" is supported when podFailurePolicy is specified"));
}

// muster reads the configuration versions kube-scheduler has dropped (the seeds write v1beta2),
// and says which releases still read the file.
TEST(ValidateTest, DroppedConfigurationVersionsAreWarnedOf) {
  auto config = [](std::string_view version) {
    return "apiVersion: kubescheduler.config.k8s.io/" + std::string(version) +
           "\nkind: KubeSchedulerConfiguration\nprofiles: [{schedulerName: default-scheduler}]\n";
  };
  const Validated beta2 = Validate("-", config("v1beta2"));
  ASSERT_EQ(beta2.status, cli::kExitOk) << beta2.err;
  EXPECT_THAT(beta2.err,
              HasSubstr("warning: <stdin>: document 1: kube-scheduler 1.28 and later refuse "
                        "kubescheduler.config.k8s.io/v1beta2 (muster reads it); 1.27 "
                        "is the last release that reads it"));
  const Validated beta3 = Validate("-", config("v1beta3"));
  EXPECT_THAT(beta3.err, HasSubstr("kube-scheduler 1.29 and later refuse "
                                   "kubescheduler.config.k8s.io/v1beta3 (muster reads it); 1.28 "
                                   "is the last release that reads it"));
  const Validated v1 = Validate("-", config("v1"));
  EXPECT_THAT(v1.err, Not(HasSubstr("refuse")));
}

}  // namespace
}  // namespace muster
