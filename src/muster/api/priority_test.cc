#include "muster/api/priority.h"

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::api {
namespace {

using testing::MakePod;

PriorityClass Class(std::string name, int32_t value, bool global_default = false) {
  PriorityClass pc;
  pc.metadata.name = std::move(name);
  pc.value = value;
  pc.global_default = global_default;
  return pc;
}

TEST(PriorityResolverTest, NoClassesGivesZero) {
  PriorityResolver resolver({});
  Pod pod = MakePod().Name("p").Obj();
  EXPECT_EQ(resolver.Admit(pod), "");
  EXPECT_EQ(pod.spec.priority, 0);
  EXPECT_EQ(pod.spec.preemption_policy, PreemptionPolicy::kPreemptLowerPriority);
}

TEST(PriorityResolverTest, NamedClass) {
  std::vector<PriorityClass> classes = {Class("high", 1000), Class("low", 10)};
  PriorityResolver resolver(classes);
  Pod pod = MakePod().Name("p").PriorityClassName("high").Obj();
  EXPECT_EQ(resolver.Admit(pod), "");
  EXPECT_EQ(pod.spec.priority, 1000);
}

TEST(PriorityResolverTest, GlobalDefaultAppliesWithoutName) {
  std::vector<PriorityClass> classes = {Class("high", 1000), Class("normal", 50, true)};
  PriorityResolver resolver(classes);
  Pod pod = MakePod().Name("p").Obj();
  EXPECT_EQ(resolver.Admit(pod), "");
  EXPECT_EQ(pod.spec.priority, 50);
}

TEST(PriorityResolverTest, LowestGlobalDefaultWins) {
  std::vector<PriorityClass> classes = {Class("a", 70, true), Class("b", 20, true)};
  PriorityResolver resolver(classes);
  Pod pod = MakePod().Name("p").Obj();
  EXPECT_EQ(resolver.Admit(pod), "");
  EXPECT_EQ(pod.spec.priority, 20);
}

TEST(PriorityResolverTest, MissingClassIsAnError) {
  PriorityResolver resolver({});
  Pod pod = MakePod().Name("p").PriorityClassName("gold").Obj();
  EXPECT_EQ(resolver.Admit(pod), "no PriorityClass with name gold was found");
  EXPECT_FALSE(pod.spec.priority.has_value()) << "a refused pod is left unchanged";
}

TEST(PriorityResolverTest, SystemClassesExist) {
  PriorityResolver resolver({});
  Pod pod = MakePod().Name("p").PriorityClassName("system-node-critical").Obj();
  EXPECT_EQ(resolver.Admit(pod), "");
  EXPECT_EQ(pod.spec.priority, 2000001000);
}

TEST(PriorityResolverTest, ExplicitPriorityMustAgree) {
  std::vector<PriorityClass> classes = {Class("high", 1000)};
  PriorityResolver resolver(classes);
  Pod agree = MakePod().Name("a").PriorityClassName("high").Priority(1000).Obj();
  EXPECT_EQ(resolver.Admit(agree), "");
  Pod disagree = MakePod().Name("d").PriorityClassName("high").Priority(5).Obj();
  EXPECT_NE(resolver.Admit(disagree).find("must not be provided in pod spec"), std::string::npos);
}

TEST(PriorityResolverTest, ClassPreemptionPolicyIsInherited) {
  PriorityClass never = Class("batch", 10);
  never.preemption_policy = PreemptionPolicy::kNever;
  std::vector<PriorityClass> classes = {never};
  PriorityResolver resolver(classes);
  Pod pod = MakePod().Name("p").PriorityClassName("batch").Obj();
  EXPECT_EQ(resolver.Admit(pod), "");
  EXPECT_EQ(pod.spec.preemption_policy, PreemptionPolicy::kNever);
}

TEST(ValidatePriorityClassTest, Limits) {
  EXPECT_EQ(ValidatePriorityClass(Class("ok", 1000000000)), "");
  EXPECT_NE(ValidatePriorityClass(Class("too-high", 1000000001)), "");
  EXPECT_NE(ValidatePriorityClass(Class("system-mine", 5)), "");
}

}  // namespace
}  // namespace muster::api
