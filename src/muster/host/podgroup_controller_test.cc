#include "muster/host/podgroup_controller.h"

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::host {
namespace {

using api::PodGroupPhase;

api::Pod Member(std::string name, api::PodPhase phase, bool bound) {
  auto b = testing::MakePod().Name(name).PodGroup("g").Phase(phase);
  if (bound) b.NodeName("n1");
  api::Pod pod = b.Obj();
  api::OwnerReference ref;
  ref.name = "job";
  pod.metadata.owner_references.push_back(ref);
  return pod;
}

api::PodGroup::Status Compute(PodGroupPhase phase, const std::vector<api::Pod>& pods) {
  api::PodGroup g;
  g.spec.min_member = 2;
  g.status.phase = phase;
  std::vector<const api::Pod*> ptrs;
  for (const api::Pod& p : pods) ptrs.push_back(&p);
  return PodGroupController::Compute(g, ptrs);
}

TEST(PodGroupControllerTest, PhasesFollowUpstreamRules) {
  using P = api::PodPhase;
  // Too few pods: Pending.
  EXPECT_EQ(Compute(PodGroupPhase::kPending, {Member("a", P::kPending, false)}).phase,
            PodGroupPhase::kPending);
  // Enough pods: Scheduling, occupied by their owner.
  auto s = Compute(PodGroupPhase::kPending,
                   {Member("a", P::kPending, false), Member("b", P::kPending, false)});
  EXPECT_EQ(s.phase, PodGroupPhase::kScheduling);
  EXPECT_EQ(s.occupied_by, "default/job");
  // minMember bound: Scheduled.
  s = Compute(PodGroupPhase::kScheduling,
              {Member("a", P::kPending, true), Member("b", P::kPending, true)});
  EXPECT_EQ(s.phase, PodGroupPhase::kScheduled);
  EXPECT_EQ(s.scheduled, 2);
  // Running.
  s = Compute(PodGroupPhase::kScheduled,
              {Member("a", P::kRunning, true), Member("b", P::kRunning, true)});
  EXPECT_EQ(s.phase, PodGroupPhase::kRunning);
  EXPECT_EQ(s.running, 2);
  // A failure among enough finished pods: Failed.
  s = Compute(PodGroupPhase::kRunning,
              {Member("a", P::kFailed, true), Member("b", P::kRunning, true)});
  EXPECT_EQ(s.phase, PodGroupPhase::kFailed);
  // All succeeded: Finished.
  s = Compute(PodGroupPhase::kRunning,
              {Member("a", P::kSucceeded, true), Member("b", P::kSucceeded, true)});
  EXPECT_EQ(s.phase, PodGroupPhase::kFinished);
  EXPECT_EQ(s.succeeded, 2);
  // Members gone: back to Pending.
  EXPECT_EQ(Compute(PodGroupPhase::kScheduled, {Member("a", P::kRunning, true)}).phase,
            PodGroupPhase::kPending);
}

}  // namespace
}  // namespace muster::host
