#include "muster/plugins/volumes/volume_binding.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/testing/fake_services.h"

// After upstream's volume_binding_test.go and binder_test.go: classes immediate-sc (Immediate)
// and wait-sc (WaitForFirstConsumer, no provisioner), provisioned-sc (WaitForFirstConsumer,
// with one); nodes labelled kubernetes.io/hostname; volumes with node affinity on it.

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

constexpr std::string_view kHost = "kubernetes.io/hostname";
constexpr auto kWait = api::VolumeBindingMode::kWaitForFirstConsumer;

class BindingWorld {
 public:
  BindingWorld() {
    services_.AddObject(MakeStorageClass("immediate-sc", "p"));
    services_.AddObject(MakeStorageClass("wait-sc", std::string(api::kNoProvisioner), kWait));
    services_.AddObject(MakeStorageClass("provisioned-sc", "csi.example.com", kWait));
    for (const char* n : {"node-a", "node-b"}) {
      services_.AddNode(MakeNode().Name(n).Label(kHost, n).Obj());
    }
  }

  // PreFilter, then Filter on every node: "node: code message" for each that fails.
  Status PreFilter(const api::Pod& pod) {
    info_ = framework::PodInfo::Make(pod);
    state_ = std::make_unique<framework::CycleState>();
    result_ = framework::PreFilterResult();
    return plugin_.PreFilter(*state_, *info_, services_.snapshot().List(), &result_);
  }
  Status Filter(std::string_view node) {
    return plugin_.Filter(*state_, *info_, *services_.snapshot().Get(api::Symbol(node)));
  }

  FakeServices services_;
  VolumeBinding plugin_{VolumeBindingArgs{}, services_.handle()};
  framework::PodInfoPtr info_;
  std::unique_ptr<framework::CycleState> state_;
  framework::PreFilterResult result_;  // the last PreFilter's
};

api::Pod PodWith(std::initializer_list<std::string_view> claims) {
  testing::PodBuilder b = MakePod().Name("pod-a");
  int i = 0;
  for (std::string_view c : claims) b.Claim("v" + std::to_string(i++), c);
  return b.Obj();
}

TEST(VolumeBindingTest, APodWithoutClaimsIsSkipped) {
  BindingWorld w;
  EXPECT_EQ(w.PreFilter(MakePod().Name("p").Obj()).code(), Code::kSkip);
}

// Upstream's TestGetEligibleNodes (kubernetes#109877): the bound volumes' kubernetes.io/hostname
// affinity narrows the nodes at PreFilter, intersected over the volumes that have it.
TEST(VolumeBindingTest, BoundLocalVolumesNarrowTheNodesAtPreFilter) {
  using Hosts = std::vector<std::string_view>;
  // A volume with one term per entry of `terms`, each requiring the hostname In those values;
  // an empty entry is a term on the zone instead.
  auto volume = [](std::string_view name, std::vector<Hosts> terms) {
    api::PersistentVolume pv = MakeVolume(name, "wait-sc").ClaimRef(std::string(name) + "-c").Obj();
    if (terms.empty()) return pv;
    pv.spec.node_affinity.emplace();
    for (const Hosts& hosts : terms) {
      api::SelectorRequirement r;
      r.key = api::Symbol(hosts.empty() ? "topology.kubernetes.io/zone" : kHost);
      for (std::string_view h : hosts.empty() ? Hosts{"z1"} : hosts) r.values.emplace_back(h);
      pv.spec.node_affinity->terms.push_back(api::NodeSelectorTerm{{r}, {}});
    }
    api::PrepareNodeSelector(*pv.spec.node_affinity);
    return pv;
  };
  struct Case {
    const char* name;
    std::vector<api::PersistentVolume> volumes;
    std::optional<std::vector<std::string>> want;  // nullopt: every node
  };
  const Case cases[] = {
      {"one local volume", {volume("pv-1", {{"node-a"}})}, std::vector<std::string>{"node-a"}},
      {"two, overlapping",
       {volume("pv-1", {{"node-a", "node-b"}}), volume("pv-2", {{"node-b", "node-c"}})},
       std::vector<std::string>{"node-b"}},
      {"two, on different nodes: none",
       {volume("pv-1", {{"node-a"}}), volume("pv-2", {{"node-b"}})},
       std::vector<std::string>{}},
      {"a local volume and one that is not",
       {volume("pv-1", {{"node-a"}}), volume("pv-2", {})},
       std::vector<std::string>{"node-a"}},
      {"zone affinity only", {volume("pv-1", {{}})}, std::nullopt},
      {"terms joined",
       {volume("pv-1", {{"node-a"}, {"node-c"}})},
       std::vector<std::string>{"node-a", "node-c"}},
      {"a term without a hostname adds nothing",
       {volume("pv-1", {{"node-a"}, {}})},
       std::vector<std::string>{"node-a"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    BindingWorld w;
    testing::PodBuilder pod = MakePod().Name("pod-a");
    for (const api::PersistentVolume& pv : c.volumes) {
      w.services_.AddObject(pv);
      const std::string claim = pv.metadata.name + "-c";
      w.services_.AddObject(MakeClaim(claim, "wait-sc").BoundTo(pv.metadata.name).Obj());
      pod.Claim(pv.metadata.name, claim);
    }
    ASSERT_TRUE(w.PreFilter(pod.Obj()).IsSuccess());
    if (!c.want) {
      EXPECT_TRUE(w.result_.AllNodes());
      continue;
    }
    ASSERT_FALSE(w.result_.AllNodes());
    std::vector<std::string> got;
    for (api::Symbol n : *w.result_.node_names) got.emplace_back(n.str());
    EXPECT_EQ(got, *c.want);
  }
}

TEST(VolumeBindingTest, PreFilterRefusesClaimsThatCannotBeUsed) {
  struct Case {
    const char* name;
    api::PersistentVolumeClaim claim;
    std::string message;
  };
  const Case cases[] = {
      {"unbound, Immediate", MakeClaim("pvc-a", "immediate-sc").Obj(),
       std::string(kErrUnboundImmediate)},
      {"pre-bound, not yet bound, WaitForFirstConsumer",
       MakeClaim("pvc-a", "wait-sc").VolumeName("pv-a").Obj(), std::string(kErrUnboundImmediate)},
      {"lost", MakeClaim("pvc-a", "wait-sc").BoundTo("pv-a").Phase(api::ClaimPhase::kLost).Obj(),
       "persistentvolumeclaim \"pvc-a\" bound to non-existent persistentvolume \"pv-a\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    BindingWorld w;
    w.services_.AddObject(c.claim);
    const Status s = w.PreFilter(PodWith({"pvc-a"}));
    EXPECT_EQ(s.code(), Code::kUnschedulableAndUnresolvable);
    EXPECT_EQ(s.Message(), c.message);
  }
  BindingWorld w;
  const Status missing = w.PreFilter(PodWith({"pvc-a"}));
  EXPECT_EQ(missing.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(missing.Message(), "persistentvolumeclaim \"pvc-a\" not found");
  const Status ephemeral =
      w.PreFilter(MakePod().Name("pod-a").Ephemeral("scratch", "wait-sc").Obj());
  EXPECT_EQ(ephemeral.Message(),
            "waiting for ephemeral volume controller to create the persistentvolumeclaim "
            "\"pod-a-scratch\"");
}

TEST(VolumeBindingTest, ABoundClaimsVolumeMustAdmitTheNode) {
  BindingWorld w;
  w.services_.AddObject(MakeVolume("pv-a", "wait-sc")
                            .NodeAffinity(kHost, {"node-a"})
                            .ClaimRef("pvc-a")
                            .Phase(api::VolumePhase::kBound)
                            .Obj());
  w.services_.AddObject(MakeClaim("pvc-a", "wait-sc").BoundTo("pv-a").Obj());
  w.services_.AddObject(MakeClaim("pvc-gone", "wait-sc").BoundTo("pv-gone").Obj());
  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-a"})).IsSuccess());
  EXPECT_TRUE(w.Filter("node-a").IsSuccess());
  const Status conflict = w.Filter("node-b");
  EXPECT_EQ(conflict.code(), Code::kUnschedulableAndUnresolvable);
  // Upstream's words since kubernetes#129887 (1.33).
  EXPECT_EQ(conflict.Message(), "node(s) didn't match PersistentVolume's node affinity");

  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-gone"})).IsSuccess());
  EXPECT_EQ(w.Filter("node-a").Message(), kErrVolumeNotExist);
}

TEST(VolumeBindingTest, UnboundClaimsMatchTheSmallestFittingVolume) {
  BindingWorld w;
  w.services_.AddObject(
      MakeVolume("pv-big", "wait-sc", "10Gi").NodeAffinity(kHost, {"node-a"}).Obj());
  w.services_.AddObject(
      MakeVolume("pv-small", "wait-sc", "2Gi").NodeAffinity(kHost, {"node-a"}).Obj());
  w.services_.AddObject(
      MakeVolume("pv-tiny", "wait-sc", "500Mi").NodeAffinity(kHost, {"node-a"}).Obj());
  w.services_.AddObject(
      MakeVolume("pv-rwx", "wait-sc", "1Gi").Modes({api::AccessMode::kReadWriteMany}).Obj());
  w.services_.AddObject(MakeClaim("pvc-a", "wait-sc", "1Gi").Obj());
  w.services_.AddObject(MakeClaim("pvc-b", "wait-sc", "5Gi").Obj());
  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-b", "pvc-a"})).IsSuccess());
  EXPECT_TRUE(w.Filter("node-a").IsSuccess());
  // node-b: no volume there, and the class provisions nothing.
  const Status none = w.Filter("node-b");
  EXPECT_EQ(none.code(), Code::kUnschedulableAndUnresolvable);
  EXPECT_EQ(none.Message(), kErrBindConflict);

  // Reserve assumes the choice (pvc-a, the smaller claim first, takes pv-small; pvc-b pv-big),
  // and PreBind writes it.
  ASSERT_TRUE(w.plugin_.Reserve(*w.state_, *w.info_, api::Symbol("node-a")).IsSuccess());
  ASSERT_EQ(w.plugin_.PreBind(*w.state_, *w.info_, api::Symbol("node-a")).code(), Code::kWait);
  EXPECT_EQ(w.services_.volume_bindings,
            (std::vector<std::string>{"pv-small -> default/pvc-a", "pv-big -> default/pvc-b"}));
  ASSERT_NE(w.plugin_.FindVolume("pv-small"), nullptr);
  ASSERT_TRUE(w.plugin_.FindVolume("pv-small")->spec.claim_ref);
  EXPECT_EQ(w.plugin_.FindVolume("pv-small")->spec.claim_ref->name, "pvc-a");

  // Another pod's claim cannot have them while the assumption holds.
  w.services_.AddObject(MakeClaim("pvc-c", "wait-sc", "1Gi").Obj());
  BindingWorld* world = &w;
  testing::PodBuilder other = MakePod().Name("pod-c");
  other.Claim("v", "pvc-c");
  world->info_ = framework::PodInfo::Make(other.Obj());
  framework::CycleState second;
  framework::PreFilterResult result;
  ASSERT_TRUE(
      w.plugin_.PreFilter(second, *w.info_, w.services_.snapshot().List(), &result).IsSuccess());
  // pv-tiny is too small, pv-rwx has the wrong modes, the others are taken.
  EXPECT_EQ(w.plugin_.Filter(second, *w.info_, *w.services_.snapshot().Get(api::Symbol("node-a")))
                .Message(),
            kErrBindConflict);
}

TEST(VolumeBindingTest, UnreserveForgetsTheAssumption) {
  BindingWorld w;
  w.services_.AddObject(MakeVolume("pv-a", "wait-sc").Obj());
  w.services_.AddObject(MakeClaim("pvc-a", "wait-sc").Obj());
  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-a"})).IsSuccess());
  ASSERT_TRUE(w.Filter("node-a").IsSuccess());
  ASSERT_TRUE(w.plugin_.Reserve(*w.state_, *w.info_, api::Symbol("node-a")).IsSuccess());
  EXPECT_TRUE(w.plugin_.FindVolume("pv-a")->spec.claim_ref.has_value());
  w.plugin_.Unreserve(*w.state_, *w.info_, api::Symbol("node-a"));
  EXPECT_FALSE(w.plugin_.FindVolume("pv-a")->spec.claim_ref.has_value());
  EXPECT_EQ(w.plugin_.PreBind(*w.state_, *w.info_, api::Symbol("node-a")).code(), Code::kSkip);
  EXPECT_TRUE(w.services_.volume_bindings.empty()) << "nothing reserved, nothing written";
}

TEST(VolumeBindingTest, ClaimsWithoutAVolumeAreProvisionedWhereTheClassAllows) {
  BindingWorld w;
  api::StorageClass zoned = MakeStorageClass("zoned-sc", "csi.example.com", kWait);
  zoned.allowed_topologies.push_back(
      api::TopologySelectorTerm{{{api::Symbol(kHost), {api::Symbol("node-b")}}}});
  w.services_.AddObject(zoned);
  w.services_.AddObject(MakeClaim("pvc-a", "provisioned-sc").Obj());
  w.services_.AddObject(MakeClaim("pvc-z", "zoned-sc").Obj());
  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-a"})).IsSuccess());
  EXPECT_TRUE(w.Filter("node-a").IsSuccess());
  ASSERT_TRUE(w.plugin_.Reserve(*w.state_, *w.info_, api::Symbol("node-a")).IsSuccess());
  ASSERT_EQ(w.plugin_.PreBind(*w.state_, *w.info_, api::Symbol("node-a")).code(), Code::kWait);
  EXPECT_EQ(w.services_.selected_nodes, std::vector<std::string>{"default/pvc-a -> node-a"});

  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-z"})).IsSuccess());
  EXPECT_EQ(w.Filter("node-a").Message(), kErrBindConflict) << "outside allowedTopologies";
  EXPECT_TRUE(w.Filter("node-b").IsSuccess());
}

// Upstream's checkBindings: after PreBind's writes, the binding waits until the PV controller
// has bound each claim, and fails when the cluster undoes the choice or time runs out.
TEST(VolumeBindingTest, PreBindWaitsUntilTheChosenVolumeIsBound) {
  BindingWorld w;
  api::PersistentVolume pv = MakeVolume("pv-a", "wait-sc").Obj();
  pv.metadata.resource_version = "1";
  w.services_.AddObject(pv);
  w.services_.AddObject(MakeClaim("pvc-a", "wait-sc").Uid("uid-a").Obj());
  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-a"})).IsSuccess());
  ASSERT_TRUE(w.Filter("node-a").IsSuccess());
  const api::Symbol node("node-a");
  ASSERT_TRUE(w.plugin_.Reserve(*w.state_, *w.info_, node).IsSuccess());
  ASSERT_EQ(w.plugin_.PreBind(*w.state_, *w.info_, node).code(), Code::kWait);
  auto wait = [&](int64_t seconds) {
    return w.plugin_.PreBindWait(*w.state_, *w.info_, node, std::chrono::seconds(seconds));
  };
  // The cache still holds the version PreBind wrote over.
  EXPECT_EQ(wait(1).code(), Code::kWait);
  // The write arrives; the claim is not bound yet.
  api::PersistentVolume written = MakeVolume("pv-a", "wait-sc").ClaimRef("pvc-a").Obj();
  written.spec.claim_ref->uid = "uid-a";
  written.metadata.resource_version = "2";
  w.services_.AddObject(written);
  EXPECT_EQ(wait(2).code(), Code::kWait);
  EXPECT_EQ(wait(600).Message(), "binding volumes: context deadline exceeded");
  // The PV controller binds it.
  w.services_.AddObject(MakeClaim("pvc-a", "wait-sc").Uid("uid-a").BoundTo("pv-a").Obj());
  EXPECT_TRUE(wait(3).IsSuccess());
  // The PV controller gave the volume back (its claimRef dropped): the binding fails.
  api::PersistentVolume reset = MakeVolume("pv-a", "wait-sc").Obj();
  reset.metadata.resource_version = "3";
  w.services_.AddObject(reset);
  const Status failed = wait(4);
  EXPECT_EQ(failed.code(), Code::kError);
  EXPECT_EQ(failed.Message(), "binding volumes: ClaimRef got reset for pv \"pv-a\"");
}

TEST(VolumeBindingTest, PreBindWaitsUntilTheProvisionedClaimIsBound) {
  BindingWorld w;
  api::PersistentVolumeClaim pvc = MakeClaim("pvc-p", "provisioned-sc").Obj();
  pvc.metadata.resource_version = "1";
  w.services_.AddObject(pvc);
  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-p"})).IsSuccess());
  ASSERT_TRUE(w.Filter("node-a").IsSuccess());
  const api::Symbol node("node-a");
  ASSERT_TRUE(w.plugin_.Reserve(*w.state_, *w.info_, node).IsSuccess());
  ASSERT_EQ(w.plugin_.PreBind(*w.state_, *w.info_, node).code(), Code::kWait);
  auto wait = [&] {
    return w.plugin_.PreBindWait(*w.state_, *w.info_, node, std::chrono::seconds(1));
  };
  auto claim = [&](std::string_view version) {
    testing::ClaimBuilder b = MakeClaim("pvc-p", "provisioned-sc");
    api::PersistentVolumeClaim c = b.Obj();
    c.metadata.resource_version = std::string(version);
    return c;
  };
  EXPECT_EQ(wait().code(), Code::kWait);
  api::PersistentVolumeClaim selected = claim("2");
  selected.metadata.annotations[std::string(api::kSelectedNodeAnnotation)] = "node-a";
  w.services_.AddObject(selected);
  EXPECT_EQ(wait().code(), Code::kWait) << "selected, not provisioned yet";

  // Provisioned, but where the node cannot reach it.
  api::PersistentVolumeClaim bound = selected;
  bound.metadata.resource_version = "3";
  bound.spec.volume_name = api::Symbol("pvc-made");
  bound.metadata.annotations[std::string(api::kBindCompletedAnnotation)] = "yes";
  w.services_.AddObject(bound);
  EXPECT_EQ(wait().code(), Code::kWait) << "the volume has not reached the cache";
  w.services_.AddObject(
      MakeVolume("pvc-made", "provisioned-sc").NodeAffinity(kHost, {"node-b"}).Obj());
  EXPECT_EQ(wait().Message(),
            "binding volumes: pv \"pvc-made\" node affinity doesn't match node \"node-a\": no "
            "matching NodeSelectorTerms");
  w.services_.AddObject(
      MakeVolume("pvc-made", "provisioned-sc").NodeAffinity(kHost, {"node-a"}).Obj());
  EXPECT_TRUE(wait().IsSuccess());

  // A provisioner that fails takes the selected node away: the binding fails at once.
  api::PersistentVolumeClaim reset = claim("4");
  reset.metadata.annotations["volume.kubernetes.io/storage-provisioner"] = "csi.example.com";
  w.services_.AddObject(reset);
  const Status failed = wait();
  EXPECT_EQ(failed.code(), Code::kError);
  EXPECT_EQ(failed.Message(), "binding volumes: provisioning failed for PVC \"pvc-p\"");
  // Upstream words it otherwise when the claim has no annotations left at all.
  w.services_.AddObject(claim("5"));
  EXPECT_EQ(wait().Message(), "binding volumes: selectedNode annotation reset for PVC \"pvc-p\"");
}

TEST(VolumeBindingTest, AClaimBeingProvisionedForOneNodeFitsNoOther) {
  BindingWorld w;
  w.services_.AddObject(MakeClaim("pvc-a", "provisioned-sc").SelectedNode("node-b").Obj());
  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-a"})).IsSuccess());
  EXPECT_EQ(w.Filter("node-a").Message(), kErrBindConflict);
  EXPECT_TRUE(w.Filter("node-b").IsSuccess());
}

TEST(VolumeBindingTest, StorageCapacityDecidesWhereADriverReportsIt) {
  BindingWorld w;
  api::CSIDriver driver;
  driver.metadata.name = "csi.example.com";
  driver.storage_capacity = true;
  w.services_.AddObject(driver);
  api::CSIStorageCapacity capacity;
  capacity.metadata.name = "cap-a";
  capacity.metadata.namespace_ = api::Symbol("kube-system");
  capacity.storage_class_name = "provisioned-sc";
  capacity.capacity = *api::Quantity::Parse("10Gi");
  api::LabelSelector on_a;
  on_a.match_labels.emplace_back(api::Symbol(kHost), api::Symbol("node-a"));
  capacity.node_topology = on_a;
  w.services_.AddObject(capacity);
  w.services_.AddObject(MakeClaim("pvc-a", "provisioned-sc", "5Gi").Obj());
  w.services_.AddObject(MakeClaim("pvc-huge", "provisioned-sc", "50Gi").Obj());
  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-a"})).IsSuccess());
  EXPECT_TRUE(w.Filter("node-a").IsSuccess());
  EXPECT_EQ(w.Filter("node-b").Message(), kErrNotEnoughSpace);
  ASSERT_TRUE(w.PreFilter(PodWith({"pvc-huge"})).IsSuccess());
  EXPECT_EQ(w.Filter("node-a").Message(), kErrNotEnoughSpace);
}

TEST(VolumeBindingTest, ShapeScoresTheUtilizationOfTheVolumesChosen) {
  // Upstream's test shape (the old VolumeCapacityPriority default): fuller is better.
  VolumeBindingArgs args;
  args.shape = std::vector<UtilizationShapePoint>{{0, 0}, {100, 10}};
  FakeServices services;
  for (const char* n : {"node-a", "node-b"}) {
    services.AddNode(MakeNode().Name(n).Label(kHost, n).Obj());
  }
  services.AddObject(MakeStorageClass("wait-sc", std::string(api::kNoProvisioner), kWait));
  services.AddObject(MakeVolume("pv-a", "wait-sc", "200Gi").NodeAffinity(kHost, {"node-a"}).Obj());
  services.AddObject(MakeVolume("pv-b", "wait-sc", "100Gi").NodeAffinity(kHost, {"node-b"}).Obj());
  services.AddObject(MakeClaim("pvc-a", "wait-sc", "50Gi").Obj());
  VolumeBinding plugin(args, services.handle());
  const framework::PodInfoPtr pod = framework::PodInfo::Make(PodWith({"pvc-a"}));
  framework::CycleState state;
  framework::PreFilterResult result;
  ASSERT_TRUE(plugin.PreFilter(state, *pod, services.snapshot().List(), &result).IsSuccess());
  for (const framework::NodeInfo* node : services.snapshot().List()) {
    ASSERT_TRUE(plugin.Filter(state, *pod, *node).IsSuccess());
  }
  ASSERT_TRUE(plugin.PreScore(state, *pod, services.snapshot().List()).IsSuccess());
  int64_t a = -1, b = -1;
  ASSERT_TRUE(
      plugin.Score(state, *pod, *services.snapshot().Get(api::Symbol("node-a")), &a).IsSuccess());
  ASSERT_TRUE(
      plugin.Score(state, *pod, *services.snapshot().Get(api::Symbol("node-b")), &b).IsSuccess());
  EXPECT_EQ(a, 25);  // 50 of 200: 25%
  EXPECT_EQ(b, 50);  // 50 of 100: 50%
}

TEST(FindMatchingVolumeTest, PreBoundVolumesAndTies) {
  const api::PersistentVolumeClaim claim = MakeClaim("pvc-a", "sc", "1Gi").Obj();
  const api::PersistentVolume first = MakeVolume("pv-1", "sc", "1Gi").Obj();
  const api::PersistentVolume second = MakeVolume("pv-2", "sc", "1Gi").Obj();
  const api::PersistentVolume prebound = MakeVolume("pv-3", "sc", "5Gi").ClaimRef("pvc-a").Obj();
  const api::PersistentVolume elsewhere =
      MakeVolume("pv-4", "sc", "5Gi").ClaimRef("pvc-a").NodeAffinity(kHost, {"node-b"}).Obj();
  api::LabelSet node_a;
  node_a.Set(api::Symbol(kHost), api::Symbol("node-a"));
  const std::vector<const api::PersistentVolume*> equal = {&first, &second};
  EXPECT_EQ(api::FindMatchingVolume(claim, equal, &node_a, {}), &first) << "first among equals";
  const std::vector<const api::PersistentVolume*> with_prebound = {&first, &prebound};
  EXPECT_EQ(api::FindMatchingVolume(claim, with_prebound, &node_a, {}), &prebound);
  // A volume pre-bound to the claim that the node cannot use: no match at all.
  const std::vector<const api::PersistentVolume*> with_elsewhere = {&first, &elsewhere};
  EXPECT_EQ(api::FindMatchingVolume(claim, with_elsewhere, &node_a, {}), nullptr);
  EXPECT_EQ(api::FindMatchingVolume(claim, with_elsewhere, nullptr, {}), &elsewhere);
  EXPECT_EQ(api::FindMatchingVolume(claim, equal, &node_a, {"pv-1"}), &second);
}

}  // namespace
}  // namespace muster::plugins::volumes
