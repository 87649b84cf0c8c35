#include "muster/sim/controllers/job.h"

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::sim::controllers {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

api::PodFailurePolicyRule OnCondition(api::PodFailurePolicyAction action, std::string type,
                                      std::string status = "True") {
  api::PodFailurePolicyRule rule;
  rule.action = action;
  rule.on_pod_conditions.push_back({std::move(type), std::move(status)});
  return rule;
}

// A pod preempted by the scheduler, as the cluster leaves it: Failed, DisruptionTarget=True.
api::Pod Preempted() {
  api::Pod pod = testing::MakePod().Name("w-1").Namespace("ml").Obj();
  pod.status.phase = api::PodPhase::kFailed;
  pod.status.conditions.push_back({api::Symbol("DisruptionTarget"), api::Symbol("True"),
                                   "PreemptionByScheduler", "preempted", std::nullopt});
  return pod;
}

TEST(PodFailurePolicyTest, WithoutAPolicyOrAMatchingRuleTheFailureCounts) {
  EXPECT_TRUE(MatchPodFailurePolicy(std::nullopt, Preempted()).counts);
  api::PodFailurePolicy policy;
  policy.rules.push_back(OnCondition(api::PodFailurePolicyAction::kIgnore, "ConfigIssue"));
  policy.rules.push_back(
      OnCondition(api::PodFailurePolicyAction::kFailJob, "DisruptionTarget", "False"));
  const PodFailureVerdict verdict = MatchPodFailurePolicy(policy, Preempted());
  EXPECT_TRUE(verdict.counts);
  EXPECT_FALSE(verdict.fail_job);
}

TEST(PodFailurePolicyTest, TheFirstMatchingRuleDecides) {
  api::PodFailurePolicy policy;
  policy.rules.push_back(OnCondition(api::PodFailurePolicyAction::kCount, "ConfigIssue"));
  policy.rules.push_back(OnCondition(api::PodFailurePolicyAction::kIgnore, "DisruptionTarget"));
  policy.rules.push_back(OnCondition(api::PodFailurePolicyAction::kFailJob, "DisruptionTarget"));
  EXPECT_FALSE(MatchPodFailurePolicy(policy, Preempted()).counts) << "Ignore";

  policy.rules.erase(policy.rules.begin() + 1);
  const PodFailureVerdict fail = MatchPodFailurePolicy(policy, Preempted());
  EXPECT_TRUE(fail.counts);
  EXPECT_EQ(fail.fail_job,
            "Pod ml/w-1 has condition DisruptionTarget matching FailJob rule at index 1");

  policy.rules[1].action = api::PodFailurePolicyAction::kCount;
  EXPECT_TRUE(MatchPodFailurePolicy(policy, Preempted()).counts);
  EXPECT_FALSE(MatchPodFailurePolicy(policy, Preempted()).fail_job);
}

TEST(PodFailurePolicyTest, ExitCodeRulesNeverMatchSimulatedPods) {
  api::PodFailurePolicyRule rule;
  rule.action = api::PodFailurePolicyAction::kFailJob;
  rule.on_exit_codes = api::PodFailurePolicyOnExitCodes{std::nullopt, "NotIn", {0}};
  api::PodFailurePolicy policy;
  policy.rules.push_back(rule);
  const PodFailureVerdict verdict = MatchPodFailurePolicy(policy, Preempted());
  EXPECT_TRUE(verdict.counts);
  EXPECT_FALSE(verdict.fail_job);
}

TEST(PodFailureBackoffTest, DoublesFromTenSecondsUpToTenMinutes) {
  EXPECT_EQ(PodFailureBackoff(0), api::Duration::zero());
  EXPECT_EQ(PodFailureBackoff(1), seconds(10));
  EXPECT_EQ(PodFailureBackoff(2), seconds(20));
  EXPECT_EQ(PodFailureBackoff(6), seconds(320));
  EXPECT_EQ(PodFailureBackoff(7), minutes(10));
  EXPECT_EQ(PodFailureBackoff(1000), minutes(10));
}

TEST(FormatIndexesTest, RunsOfThreeOrMoreAreRanges) {
  EXPECT_EQ(FormatIndexes({}), "");
  EXPECT_EQ(FormatIndexes({false, false}), "");
  EXPECT_EQ(FormatIndexes({true}), "0");
  EXPECT_EQ(FormatIndexes({true, true}), "0,1");
  EXPECT_EQ(FormatIndexes({false, true, false, true, true, true, false, true, true}), "1,3-5,7,8");
}

}  // namespace
}  // namespace muster::sim::controllers
