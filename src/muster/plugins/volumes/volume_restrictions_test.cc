#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/volumes/volumes.h"

// Upstream's volume_restrictions_test.go: disk conflicts of each in-tree kind, and
// ReadWriteOncePod claims in use.

namespace muster::plugins::volumes {
namespace {

using framework::Code;
using framework::Status;
using testing::FakeServices;
using testing::MakeClaim;
using testing::MakeNode;
using testing::MakePod;

api::Volume Disk(std::string_view kind, std::string_view id, bool read_only = false) {
  api::Volume v;
  v.name = "disk";
  v.source.kind = std::string(kind);
  if (kind == "gcePersistentDisk") {
    v.source.gce_persistent_disk = api::GCEPersistentDiskSource{std::string(id), read_only};
  } else if (kind == "awsElasticBlockStore") {
    v.source.aws_elastic_block_store = api::AWSElasticBlockStoreSource{std::string(id), read_only};
  } else if (kind == "iscsi") {
    v.source.iscsi = api::ISCSISource{"127.0.0.1:3260", std::string(id), read_only};
  }
  return v;
}

api::Volume RBD(std::vector<std::string> monitors) {
  api::Volume v;
  v.name = "disk";
  v.source.kind = "rbd";
  v.source.rbd = api::RBDSource{std::move(monitors), "bar", "foo", false};
  return v;
}

struct Outcome {
  Code pre_filter;
  Code filter = Code::kSuccess;
  std::string message;
};

// Runs PreFilter, then Filter on node-1, where `existing` already run.
Outcome Restrict(FakeServices& services, const api::Pod& pod,
                 const std::vector<api::Pod>& existing) {
  services.AddNode(MakeNode().Name("node-1").Obj());
  for (api::Pod p : existing) {
    p.spec.node_name = api::Symbol("node-1");
    services.AddPod(p);
  }
  VolumeRestrictions plugin(services.handle());
  const framework::PodInfoPtr info = framework::PodInfo::Make(pod);
  framework::CycleState state;
  framework::PreFilterResult result;
  const Status pre = plugin.PreFilter(state, *info, services.snapshot().List(), &result);
  if (!pre.IsSuccess()) return {pre.code(), Code::kSuccess, pre.Message()};
  const Status f = plugin.Filter(state, *info, *services.snapshot().Get(api::Symbol("node-1")));
  return {pre.code(), f.code(), f.Message()};
}

TEST(VolumeRestrictionsTest, InTreeDisksConflictOnOneNode) {
  const std::string disk(kErrDiskConflict);
  struct Case {
    const char* name;
    api::Volume mine;
    api::Volume theirs;
    Code filter;
  };
  const Case cases[] = {
      {"GCE same disk", Disk("gcePersistentDisk", "foo"), Disk("gcePersistentDisk", "foo"),
       Code::kUnschedulable},
      {"GCE other disk", Disk("gcePersistentDisk", "bar"), Disk("gcePersistentDisk", "foo"),
       Code::kSuccess},
      {"GCE same disk, both read-only", Disk("gcePersistentDisk", "foo", true),
       Disk("gcePersistentDisk", "foo", true), Code::kSuccess},
      {"AWS same volume", Disk("awsElasticBlockStore", "foo"), Disk("awsElasticBlockStore", "foo"),
       Code::kUnschedulable},
      {"AWS same volume, read-only does not help", Disk("awsElasticBlockStore", "foo", true),
       Disk("awsElasticBlockStore", "foo", true), Code::kUnschedulable},
      {"AWS other volume", Disk("awsElasticBlockStore", "bar"), Disk("awsElasticBlockStore", "foo"),
       Code::kSuccess},
      {"RBD shared monitor", RBD({"a", "b"}), RBD({"b", "c"}), Code::kUnschedulable},
      {"RBD no shared monitor", RBD({"c", "d"}), RBD({"a", "b"}), Code::kSuccess},
      {"ISCSI same iqn", Disk("iscsi", "iqn.2016-12.server:storage.target01"),
       Disk("iscsi", "iqn.2016-12.server:storage.target01"), Code::kUnschedulable},
      {"ISCSI other iqn", Disk("iscsi", "iqn.2017-12.server:storage.target01"),
       Disk("iscsi", "iqn.2016-12.server:storage.target01"), Code::kSuccess},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    FakeServices services;
    const Outcome o = Restrict(services, MakePod().Name("p").Volume(c.mine).Obj(),
                               {MakePod().Name("q").Volume(c.theirs).Obj()});
    EXPECT_EQ(o.pre_filter, Code::kSuccess);
    EXPECT_EQ(o.filter, c.filter);
    if (c.filter != Code::kSuccess) {
      EXPECT_EQ(o.message, disk);
    }
  }
}

TEST(VolumeRestrictionsTest, NothingToCheckIsSkipped) {
  FakeServices services;
  EXPECT_EQ(Restrict(services, MakePod().Name("p").Obj(),
                     {MakePod().Name("q").Volume(Disk("gcePersistentDisk", "foo")).Obj()})
                .pre_filter,
            Code::kSkip);
}

TEST(VolumeRestrictionsTest, ReadWriteOncePodClaimsInUse) {
  const std::string rwop(kErrReadWriteOncePodConflict);
  auto world = [](FakeServices& services) {
    services.AddObject(
        MakeClaim("claim-with-rwop-1", "").Modes({api::AccessMode::kReadWriteOncePod}).Obj());
    services.AddObject(
        MakeClaim("claim-with-rwop-2", "").Modes({api::AccessMode::kReadWriteOncePod}).Obj());
    services.AddObject(
        MakeClaim("claim-with-rwx", "").Modes({api::AccessMode::kReadWriteMany}).Obj());
  };
  {
    SCOPED_TRACE("the claim does not exist");
    FakeServices services;
    const Outcome o =
        Restrict(services, MakePod().Name("p").Claim("v", "claim-with-rwop-1").Obj(), {});
    EXPECT_EQ(o.pre_filter, Code::kUnschedulableAndUnresolvable);
    EXPECT_EQ(o.message, "persistentvolumeclaim \"claim-with-rwop-1\" not found");
  }
  {
    SCOPED_TRACE("nobody uses it");
    FakeServices services;
    world(services);
    EXPECT_EQ(Restrict(services, MakePod().Name("p").Claim("v", "claim-with-rwop-1").Obj(),
                       {MakePod().Name("q").Claim("v", "claim-with-rwx").Obj()})
                  .pre_filter,
              Code::kSkip);
  }
  {
    SCOPED_TRACE("another pod uses it");
    FakeServices services;
    world(services);
    const Outcome o = Restrict(services, MakePod().Name("p").Claim("v", "claim-with-rwop-1").Obj(),
                               {MakePod().Name("q").Claim("v", "claim-with-rwop-1").Obj(),
                                MakePod().Name("r").Claim("v", "claim-with-rwx").Obj()});
    EXPECT_EQ(o.pre_filter, Code::kSuccess);
    EXPECT_EQ(o.filter, Code::kUnschedulable);
    EXPECT_EQ(o.message, rwop);
  }
  {
    SCOPED_TRACE("a pod of another namespace uses a claim of that name");
    FakeServices services;
    world(services);
    EXPECT_EQ(
        Restrict(services, MakePod().Name("p").Claim("v", "claim-with-rwop-1").Obj(),
                 {MakePod().Name("q").Namespace("other").Claim("v", "claim-with-rwop-1").Obj()})
            .pre_filter,
        Code::kSkip);
  }
}

TEST(VolumeRestrictionsTest, PreemptionRemovingTheUserClearsTheConflict) {
  FakeServices services;
  services.AddObject(MakeClaim("rwop", "").Modes({api::AccessMode::kReadWriteOncePod}).Obj());
  services.AddNode(MakeNode().Name("node-1").Obj());
  api::Pod user = MakePod().Name("q").Claim("v", "rwop").Obj();
  user.spec.node_name = api::Symbol("node-1");
  services.AddPod(user);
  VolumeRestrictions plugin(services.handle());
  const framework::PodInfoPtr pod =
      framework::PodInfo::Make(MakePod().Name("p").Claim("v", "rwop").Obj());
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(plugin.PreFilter(state, *pod, services.snapshot().List(), &result).IsSuccess());
  const framework::NodeInfo& node = *services.snapshot().Get(api::Symbol("node-1"));
  EXPECT_EQ(plugin.Filter(state, *pod, node).code(), Code::kUnschedulable);
  const framework::PodInfoPtr victim = framework::PodInfo::Make(user);
  ASSERT_TRUE(plugin.RemovePod(state, *pod, *victim, node).IsSuccess());
  EXPECT_TRUE(plugin.Filter(state, *pod, node).IsSuccess());
  ASSERT_TRUE(plugin.AddPod(state, *pod, *victim, node).IsSuccess());
  EXPECT_EQ(plugin.Filter(state, *pod, node).code(), Code::kUnschedulable);
}

}  // namespace
}  // namespace muster::plugins::volumes
