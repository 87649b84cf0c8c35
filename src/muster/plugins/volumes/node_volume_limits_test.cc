#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "muster/api/feature_gates.h"
#include "muster/api/testing/builders.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/volumes/volumes.h"

// After upstream's csi_test.go: claims bound to CSI volumes of a driver (ebs.csi.aws.com) whose
// CSINode allows `limit` attachments, in-tree EBS volumes migrated to it, unbound claims counted
// through their class's provisioner, and a volume shared with a pod on the node counted once.

namespace muster::plugins::volumes {
namespace {

using framework::Code;
using framework::Status;
using testing::FakeServices;
using testing::MakeClaim;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeStorageClass;
using testing::MakeVolume;

constexpr std::string_view kEBS = "ebs.csi.aws.com";
constexpr std::string_view kGCE = "pd.csi.storage.gke.io";

class LimitsWorld {
 public:
  // The CSINode lists `drivers` with `limit` (nullopt: no allocatable count); without
  // `csi_node`, the node has none.
  explicit LimitsWorld(std::optional<int32_t> limit, bool csi_node = true,
                       std::vector<std::string_view> drivers = {kEBS, kGCE}) {
    services_.AddNode(MakeNode().Name("node-1").Obj());
    for (std::string_view driver : {kEBS, kGCE}) {
      for (int j = 0; j < 4; ++j) {
        const std::string name = fmt::format("csi-{}-{}", driver, j);
        services_.AddObject(MakeVolume(name, "").CSI(driver, name).Obj());
        services_.AddObject(MakeClaim(name, "").BoundTo(name).Obj());
      }
    }
    // Unbound claims: one of a class provisioned by the EBS driver, one of no class.
    services_.AddObject(MakeStorageClass("csi-sc", kEBS));
    services_.AddObject(MakeClaim("csi-4", "csi-sc").Obj());
    services_.AddObject(MakeClaim("csi-5", "").Obj());
    // Bound to a volume that does not exist: counted through its class.
    services_.AddObject(MakeClaim("csi-6", "csi-sc").BoundTo("missing-in-action").Obj());
    if (csi_node) {
      api::CSINode n;
      n.metadata.name = "node-1";
      for (std::string_view d : drivers) {
        n.drivers.push_back(api::CSINode::Driver{std::string(d), "id", {}, limit});
      }
      services_.AddObject(n);
    }
  }

  // Places `existing` on node-1, then filters `pod` there.
  Status Filter(const api::Pod& pod, const std::vector<api::Pod>& existing) {
    for (api::Pod p : existing) {
      p.spec.node_name = api::Symbol("node-1");
      services_.AddPod(p);
    }
    NodeVolumeLimits plugin(services_.handle());
    const framework::PodInfoPtr info = framework::PodInfo::Make(pod);
    framework::CycleState state;
    framework::PreFilterResult result;
    const Status pre = plugin.PreFilter(state, *info, services_.snapshot().List(), &result);
    if (!pre.IsSuccess()) return pre;
    return plugin.Filter(state, *info, *services_.snapshot().Get(api::Symbol("node-1")));
  }

  FakeServices services_;
};

api::Pod Using(std::string_view name, std::initializer_list<std::string_view> claims) {
  testing::PodBuilder b = MakePod().Name(name);
  int i = 0;
  for (std::string_view c : claims) b.Claim(fmt::format("v{}", i++), c);
  return b.Obj();
}

std::string EBS(int j) { return fmt::format("csi-{}-{}", kEBS, j); }
std::string GCE(int j) { return fmt::format("csi-{}-{}", kGCE, j); }

api::Volume InlineEBS(std::string_view id) {
  api::Volume v;
  v.name = "inline";
  v.source.kind = "awsElasticBlockStore";
  v.source.aws_elastic_block_store = api::AWSElasticBlockStoreSource{std::string(id), false};
  return v;
}

TEST(NodeVolumeLimitsTest, CountsPerDriverAgainstTheCSINodesLimit) {
  const api::Pod one = Using("one", {EBS(0)});
  const api::Pod two = Using("two", {EBS(1), EBS(2)});
  const api::Pod running = Using("running", {EBS(3)});
  struct Case {
    const char* name;
    std::optional<int32_t> limit;
    std::vector<api::Pod> existing;
    Code want;
  };
  const Case cases[] = {
      {"room for four", 4, {running, two}, Code::kSuccess},
      {"three attached, limit two", 2, {running, two}, Code::kUnschedulable},
      {"no limit", std::nullopt, {running, two}, Code::kSuccess},
      {"an unbound claim counts through its class's provisioner",
       2,
       {Using("pending", {"csi-4"}), two},
       Code::kUnschedulable},
      {"one unbound claim for two pods counts once",
       4,
       {Using("pending", {"csi-4"}), Using("pending2", {"csi-4"}), two},
       Code::kSuccess},
      {"a claim on a missing volume counts through its class",
       2,
       {Using("missing", {"csi-6"}), two},
       Code::kUnschedulable},
      {"a claim of no class is not counted",
       2,
       {running, Using("nosc", {"csi-5"})},
       Code::kSuccess},
      {"other drivers' volumes count against their own limits",
       2,
       {Using("gce", {GCE(1), GCE(2)}), Using("ebs", {EBS(1)})},
       Code::kSuccess},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    LimitsWorld world(c.limit);
    const Status s = world.Filter(one, c.existing);
    EXPECT_EQ(s.code(), c.want) << s.Message();
    if (c.want == Code::kUnschedulable) {
      EXPECT_EQ(s.Message(), kErrMaxVolumeCount);
    }
  }
}

// Upstream's TestVolumeLimitScalingGate, and the rules of checkCSIDriverOnNode around it.
TEST(NodeVolumeLimitsTest, ADriverMissingOnTheNodeKeepsThePodAwayWhenItsCSIDriverAsks) {
  const api::Pod one = Using("one", {EBS(0)});
  const std::string kMissing = fmt::format("{} CSI driver is not installed on the node", kEBS);
  struct Case {
    const char* name;
    bool gate = true;
    bool csi_node = true;                   // the node has a CSINode...
    std::vector<std::string_view> drivers;  // ...listing these drivers
    std::optional<int32_t> limit;           // with this allocatable count
    bool csi_driver = true;                 // a CSIDriver object for EBS...
    std::optional<bool> prevent;            // ...with this field
    api::Pod pod;
    std::vector<api::Pod> existing;
    Code want;
  };
  const Case cases[] = {
      {"prevent not set: the missing driver is not checked",
       true,
       true,
       {},
       0,
       true,
       std::nullopt,
       one,
       {},
       Code::kSuccess},
      {"prevent set and the driver missing",
       true,
       true,
       {},
       0,
       true,
       true,
       one,
       {},
       Code::kUnschedulable},
      {"the gate off: no check", false, true, {}, 0, true, true, one, {}, Code::kSuccess},
      {"the driver installed, within its limit",
       true,
       true,
       {kEBS},
       2,
       true,
       true,
       one,
       {},
       Code::kSuccess},
      {"no CSIDriver object: no check",
       true,
       true,
       {},
       0,
       false,
       std::nullopt,
       one,
       {},
       Code::kSuccess},
      {"prevent false", true, true, {}, 0, true, false, one, {}, Code::kSuccess},
      {"no CSINode at all", true, false, {}, 0, true, true, one, {}, Code::kUnschedulable},
      {"installed without an allocatable count",
       true,
       true,
       {kEBS},
       std::nullopt,
       true,
       true,
       one,
       {},
       Code::kSuccess},
      {"checked before counting: a volume another pod there has attached too",
       true,
       true,
       {},
       0,
       true,
       true,
       one,
       {Using("running", {EBS(0)})},
       Code::kUnschedulable},
      {"an unbound claim, by its class's provisioner",
       true,
       true,
       {kGCE},
       4,
       true,
       true,
       Using("pending", {"csi-4"}),
       {},
       Code::kUnschedulable},
      {"only the drivers the pod needs",
       true,
       true,
       {kGCE},
       4,
       true,
       true,
       Using("gce", {GCE(0)}),
       {},
       Code::kSuccess},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    api::FeatureGates gates;
    gates.Set(api::Feature::kVolumeLimitScaling, c.gate);
    const api::ScopedFeatures scoped(gates);
    LimitsWorld world(c.limit, c.csi_node, c.drivers);
    if (c.csi_driver) {
      api::CSIDriver driver;
      driver.metadata.name = std::string(kEBS);
      driver.prevent_pod_scheduling_if_missing = c.prevent;
      world.services_.AddObject(driver);
    }
    const Status s = world.Filter(c.pod, c.existing);
    EXPECT_EQ(s.code(), c.want) << s.Message();
    if (c.want == Code::kUnschedulable) {
      EXPECT_EQ(s.Message(), kMissing);
    }
  }
}

TEST(NodeVolumeLimitsTest, AVolumeAlreadyOnTheNodeCostsNothing) {
  LimitsWorld world(2);
  // Two attached; the pod's volume is one of them.
  EXPECT_TRUE(world.Filter(Using("p", {EBS(1)}), {Using("two", {EBS(1), EBS(2)})}).IsSuccess());
}

TEST(NodeVolumeLimitsTest, InTreeVolumesCountAsTheirCSIDriver) {
  {
    SCOPED_TRACE("inline EBS with the EBS driver full");
    LimitsWorld world(2);
    EXPECT_EQ(world
                  .Filter(MakePod().Name("p").Volume(InlineEBS("aws-inline1")).Obj(),
                          {Using("two", {EBS(1), EBS(2)})})
                  .code(),
              Code::kUnschedulable);
  }
  {
    SCOPED_TRACE("the same volume by its CSI handle");
    LimitsWorld world(2);
    EXPECT_TRUE(world
                    .Filter(MakePod().Name("p").Volume(InlineEBS(EBS(1))).Obj(),
                            {Using("two", {EBS(1), EBS(2)})})
                    .IsSuccess());
  }
  {
    SCOPED_TRACE("no CSINode: nothing is migrated, nothing limited");
    LimitsWorld world(2, /*csi_node=*/false);
    EXPECT_TRUE(world
                    .Filter(MakePod().Name("p").Volume(InlineEBS("aws-inline1")).Obj(),
                            {Using("two", {EBS(1), EBS(2)})})
                    .IsSuccess());
  }
}

TEST(NodeVolumeLimitsTest, PodsWithoutCountedVolumesAreSkipped) {
  LimitsWorld world(2);
  api::Volume config;
  config.name = "config";
  config.source.kind = "configMap";
  EXPECT_EQ(world.Filter(MakePod().Name("p").Volume(config).Obj(), {}).code(), Code::kSkip);
}

TEST(NodeVolumeLimitsTest, MissingAndForeignClaims) {
  {
    LimitsWorld world(std::nullopt);
    const Status s = world.Filter(Using("p", {"nowhere"}), {});
    EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_EQ(s.Message(),
              "looking up PVC default/nowhere: persistentvolumeclaim \"nowhere\" not found");
  }
  {
    LimitsWorld world(std::nullopt);
    const api::Pod pod = MakePod().Name("abc").Uid("abc-uid").Ephemeral("xyz", "csi-sc").Obj();
    world.services_.AddObject(MakeClaim("abc-xyz", "csi-sc").Obj());  // not the pod's
    const Status s = world.Filter(pod, {});
    EXPECT_EQ(s.code(), Code::kError);
    EXPECT_EQ(s.Message(),
              "PVC default/abc-xyz was not created for pod default/abc (pod is not owner)");
  }
  {
    LimitsWorld world(2);
    const api::Pod pod = MakePod().Name("abc").Uid("abc-uid").Ephemeral("xyz", "csi-sc").Obj();
    world.services_.AddObject(MakeClaim("abc-xyz", "csi-sc").OwnedBy(pod).Obj());
    EXPECT_EQ(world.Filter(pod, {Using("two", {EBS(1), EBS(2)})}).code(), Code::kUnschedulable);
  }
}

}  // namespace
}  // namespace muster::plugins::volumes

namespace muster::plugins::volumes {
namespace {

// A VolumeAttachment on node-1 by `attacher` of persistent volume `pv` (inline when empty).
api::VolumeAttachment Attachment(std::string_view name, std::string_view attacher,
                                 std::string_view pv, std::string_view node = "node-1") {
  api::VolumeAttachment va;
  va.metadata.name = std::string(name);
  va.attacher = std::string(attacher);
  va.persistent_volume_name = std::string(pv);
  va.node_name = api::Symbol(node);
  return va;
}

// kubernetes#127757 (1.32): the node's VolumeAttachments count against its limit. Upstream's two
// TestCSILimits cases first (limit 2, the pod on csi-ebs-0, no pods on the node), then the rules
// of getNodeVolumeAttachmentInfo.
TEST(NodeVolumeLimitsTest, VolumeAttachmentsCount) {
  const api::Pod pod = Using("p", {EBS(0)});
  struct Case {
    const char* name;
    std::vector<api::VolumeAttachment> attachments;
    std::vector<api::Pod> existing;
    Code want;
  };
  const Case cases[] = {
      {"should count VolumeAttachments towards volume limit when no pods exist",
       {Attachment("va-0", kEBS, EBS(0)), Attachment("va-1", kEBS, EBS(1))},
       {},
       Code::kUnschedulable},
      // The pod's own volume, attached already, counts beside the pod's: 1 + 1 of 2.
      {"should schedule pod when VolumeAttachments count does not exceed limit",
       {Attachment("va-0", kEBS, EBS(0))},
       {},
       Code::kSuccess},
      {"an attachment a pod on the node counts already is not counted again",
       {Attachment("va-1", kEBS, EBS(1))},
       {Using("running", {EBS(1)})},
       Code::kSuccess},
      {"two attachments of one volume count once",
       {Attachment("va-1", kEBS, EBS(1)), Attachment("va-1b", kEBS, EBS(1))},
       {},
       Code::kSuccess},
      {"another node's attachments do not count",
       {Attachment("va-1", kEBS, EBS(1), "node-2"), Attachment("va-2", kEBS, EBS(2), "node-2")},
       {},
       Code::kSuccess},
      {"another driver's attachments do not count",
       {Attachment("va-1", kGCE, GCE(1)), Attachment("va-2", kGCE, GCE(2))},
       {},
       Code::kSuccess},
      {"an inline volume's attachment is not counted",
       {Attachment("va-1", kEBS, ""), Attachment("va-2", kEBS, EBS(2))},
       {},
       Code::kSuccess},
      {"an attachment of a missing volume is not counted",
       {Attachment("va-1", kEBS, "gone"), Attachment("va-2", kEBS, EBS(2))},
       {},
       Code::kSuccess},
      {"an attachment without an attacher is not counted",
       {Attachment("va-1", "", EBS(1)), Attachment("va-2", kEBS, EBS(2))},
       {},
       Code::kSuccess},
      {"attachments and a pod together fill the node",
       {Attachment("va-1", kEBS, EBS(1))},
       {Using("running", {EBS(2)})},
       Code::kUnschedulable},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    LimitsWorld world(2);
    for (const api::VolumeAttachment& va : c.attachments) world.services_.AddObject(va);
    const Status s = world.Filter(pod, c.existing);
    EXPECT_EQ(s.code(), c.want) << s.Message();
    if (c.want == Code::kUnschedulable) {
      EXPECT_EQ(s.Message(), kErrMaxVolumeCount);
    }
  }
}

// Upstream's TestCSILimitsDeletedVolumeAttachmentQHint.
TEST(NodeVolumeLimitsTest, AVolumeAttachmentDeletedWakesPodsWithClaims) {
  FakeServices services;
  NodeVolumeLimits plugin(services.handle());
  framework::QueueingHintFn hint;
  for (const framework::ClusterEventWithHint& e : plugin.EventsToRegister()) {
    if (e.event.label == "VolumeAttachmentDelete") hint = e.hint;
  }
  ASSERT_TRUE(hint);
  auto deleted = [&](const api::Pod& pod, std::string_view attacher) {
    framework::EventObjects objects;
    objects.old_object = api::AnyObject(
        std::make_shared<const api::VolumeAttachment>(Attachment("va", attacher, "pv1")));
    return hint(pod, objects, nullptr);
  };
  api::Volume inline_gce;
  inline_gce.name = "gce";
  inline_gce.source.kind = "gcePersistentDisk";
  inline_gce.source.gce_persistent_disk = api::GCEPersistentDiskSource{"test", false};
  EXPECT_EQ(deleted(Using("p", {"pvc1"}), "test.storage.gke.io"), framework::QueueingHint::kQueue);
  EXPECT_EQ(deleted(MakePod().Name("p").Volume(InlineEBS("test")).Obj(), kEBS),
            framework::QueueingHint::kQueue);
  EXPECT_EQ(deleted(MakePod().Name("p").Volume(inline_gce).Obj(), kEBS),
            framework::QueueingHint::kSkip);
  EXPECT_EQ(deleted(MakePod().Name("p").Obj(), "test.storage.gke.io"),
            framework::QueueingHint::kSkip);
}

}  // namespace
}  // namespace muster::plugins::volumes
