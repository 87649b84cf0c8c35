#include "muster/plugins/helper/gang.h"

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"

namespace muster::plugins::helper {
namespace {

using framework::Code;
using framework::Status;
using testing::MakePod;

TEST(CheckSchedulableMembers, BoundMembersCountAsWithoutGates) {
  const api::Pod ungated = MakePod().Name("ungated").Obj();
  const api::Pod gated = MakePod().Name("gated").SchedulingGate("wait").Obj();
  const api::Pod bound = MakePod().Name("bound").SchedulingGate("wait").NodeName("n1").Obj();
  framework::Gang gang;
  gang.min_count = 2;
  gang.members = {&ungated, &gated, &bound};
  EXPECT_TRUE(CheckSchedulableMembers(gang, "minCount").IsSuccess());

  gang.min_count = 3;
  EXPECT_EQ(CheckSchedulableMembers(gang, "minCount"),
            Status(Code::kUnschedulableAndUnresolvable,
                   "1/3 members have scheduling gates; 2 can be scheduled (minCount 3)"));
  EXPECT_EQ(CheckSchedulableMembers(gang, "minMember").Message(),
            "1/3 members have scheduling gates; 2 can be scheduled (minMember 3)");
}

}  // namespace
}  // namespace muster::plugins::helper
