#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/volumes/volumes.h"

// Upstream's volume_zone_test.go tables: a pod on one claim, bound to a volume whose labels
// carry zones and regions (beta and GA), against nodes labelled one way or the other.

namespace muster::plugins::volumes {
namespace {

using framework::Code;
using testing::FakeServices;
using testing::MakeClaim;
using testing::MakeNode;
using testing::MakePod;
using testing::MakeStorageClass;
using testing::MakeVolume;

constexpr std::string_view kBetaZone = "failure-domain.beta.kubernetes.io/zone";
constexpr std::string_view kBetaRegion = "failure-domain.beta.kubernetes.io/region";
constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kRegion = "topology.kubernetes.io/region";

// The claims, volumes and classes of upstream's table, and one node.
class ZoneWorld {
 public:
  ZoneWorld() {
    auto volume = [&](std::string_view name,
                      std::initializer_list<std::pair<std::string_view, std::string_view>> labels) {
      testing::VolumeBuilder b = MakeVolume(name, "");
      for (const auto& [k, v] : labels) b.Label(k, v);
      services_.AddObject(b.Obj());
    };
    volume("Vol_1", {{kBetaZone, "us-west1-a"}});
    volume("Vol_2", {{kBetaRegion, "us-west1"}, {"uselessLabel", "none"}});
    volume("Vol_Stable_1", {{kZone, "us-west1-a"}});
    volume("Vol_Stable_2", {{kRegion, "us-west1"}});
    volume("Vol_Stable_3", {{kZone, "us-west1-a"}, {kRegion, "us-west1-a"}});
    volume("Vol_3", {{kBetaZone, "us-west1-c__us-west1-a"}});
    volume("Vol_Stable_Multi", {{kZone, "us-west1-c__us-west1-a"}});
    for (const char* name : {"Vol_1", "Vol_2", "Vol_Stable_1", "Vol_Stable_2", "Vol_Stable_3",
                             "Vol_3", "Vol_Stable_Multi"}) {
      services_.AddObject(MakeClaim(std::string("PVC_") + name, "").BoundTo(name).Obj());
    }
    services_.AddObject(MakeClaim("PVC_4", "").BoundTo("Vol_not_exist").Obj());
    services_.AddObject(MakeClaim("PVC_EmptySC", "").Obj());
    services_.AddObject(MakeClaim("PVC_NoSC", "Class_0").Obj());
    services_.AddObject(MakeClaim("PVC_ImmediateSC", "Class_Immediate").Obj());
    services_.AddObject(MakeClaim("PVC_WaitSC", "Class_Wait").Obj());
    services_.AddObject(MakeStorageClass("Class_Immediate", "p"));
    services_.AddObject(
        MakeStorageClass("Class_Wait", "p", api::VolumeBindingMode::kWaitForFirstConsumer));
  }

  struct Verdict {
    Code pre_filter;
    Code filter;
    std::string message;
  };

  Verdict Run(std::string_view claim,
              std::initializer_list<std::pair<std::string_view, std::string_view>> node_labels) {
    testing::NodeBuilder node = MakeNode().Name("host1");
    for (const auto& [k, v] : node_labels) node.Label(k, v);
    services_.AddNode(node.Obj());
    VolumeZone plugin(services_.handle());
    const framework::PodInfoPtr pod =
        framework::PodInfo::Make(MakePod().Name("pod").Claim("v", claim).Obj());
    framework::CycleState state;
    framework::PreFilterResult result;
    const framework::Status pre =
        plugin.PreFilter(state, *pod, services_.snapshot().List(), &result);
    if (!pre.IsSuccess()) return {pre.code(), Code::kSuccess, pre.Message()};
    const framework::Status f =
        plugin.Filter(state, *pod, *services_.snapshot().Get(api::Symbol("host1")));
    return {pre.code(), f.code(), f.Message()};
  }

  FakeServices services_;
};

TEST(VolumeZoneTest, APodWithoutVolumesIsSkipped) {
  FakeServices services_;
  services_.AddNode(MakeNode().Name("host1").Obj());
  VolumeZone plugin(services_.handle());
  framework::CycleState state;
  framework::PreFilterResult result;
  EXPECT_EQ(plugin
                .PreFilter(state, *framework::PodInfo::Make(MakePod().Name("p").Obj()),
                           services_.snapshot().List(), &result)
                .code(),
            Code::kSkip);
}

TEST(VolumeZoneTest, ZonesAndRegionsAgainstTheNodesLabels) {
  const std::string conflict(kErrNoVolumeZone);
  struct Case {
    const char* name;
    const char* claim;
    std::initializer_list<std::pair<std::string_view, std::string_view>> labels;
    Code filter;
  };
  const Case cases[] = {
      {"node without labels", "PVC_Vol_1", {}, Code::kSuccess},
      {"beta zone matched", "PVC_Vol_1", {{kBetaZone, "us-west1-a"}}, Code::kSuccess},
      {"beta region matched", "PVC_Vol_2", {{kBetaRegion, "us-west1"}}, Code::kSuccess},
      {"beta region mismatched",
       "PVC_Vol_2",
       {{kBetaRegion, "no_us-west1"}},
       Code::kUnschedulableAndUnresolvable},
      {"beta zone mismatched",
       "PVC_Vol_1",
       {{kBetaZone, "no_us-west1-a"}},
       Code::kUnschedulableAndUnresolvable},
      {"zone matched", "PVC_Vol_Stable_1", {{kZone, "us-west1-a"}}, Code::kSuccess},
      {"region matched", "PVC_Vol_Stable_2", {{kRegion, "us-west1"}}, Code::kSuccess},
      {"region mismatched",
       "PVC_Vol_Stable_2",
       {{kRegion, "no_us-west1"}},
       Code::kUnschedulableAndUnresolvable},
      {"zone mismatched",
       "PVC_Vol_Stable_1",
       {{kZone, "no_us-west1-a"}},
       Code::kUnschedulableAndUnresolvable},
      {"volume zone and region, node zone only",
       "PVC_Vol_Stable_3",
       {{kZone, "us-west1-a"}},
       Code::kUnschedulableAndUnresolvable},
      {"GA volume label, beta node label: no fallback that way",
       "PVC_Vol_Stable_1",
       {{kBetaZone, "us-west1-a"}},
       Code::kUnschedulableAndUnresolvable},
      {"beta volume label, GA node label", "PVC_Vol_1", {{kZone, "us-west1-a"}}, Code::kSuccess},
      {"beta volume label, GA node label mismatched",
       "PVC_Vol_1",
       {{kZone, "us-west1-b"}},
       Code::kUnschedulableAndUnresolvable},
      {"several zones, beta", "PVC_Vol_3", {{kBetaZone, "us-west1-a"}}, Code::kSuccess},
      {"several zones, GA", "PVC_Vol_Stable_Multi", {{kZone, "us-west1-a"}}, Code::kSuccess},
      {"one zone of others",
       "PVC_Vol_1",
       {{kBetaZone, "us-west1-b"}},
       Code::kUnschedulableAndUnresolvable},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ZoneWorld fresh;
    const ZoneWorld::Verdict v = fresh.Run(c.claim, c.labels);
    EXPECT_EQ(v.pre_filter, Code::kSuccess);
    EXPECT_EQ(v.filter, c.filter);
    if (c.filter != Code::kSuccess) {
      EXPECT_EQ(v.message, conflict);
    }
  }
}

TEST(VolumeZoneTest, UnboundClaimsAndMissingObjects) {
  struct Case {
    const char* claim;
    Code pre_filter;
    const char* message;
  };
  const Case cases[] = {
      {"PVC_EmptySC", Code::kUnschedulableAndUnresolvable,
       "PersistentVolumeClaim had no pv name and storageClass name"},
      {"PVC_NoSC", Code::kUnschedulableAndUnresolvable,
       "storageclass.storage.k8s.io \"Class_0\" not found"},
      {"PVC_ImmediateSC", Code::kUnschedulableAndUnresolvable, "PersistentVolume had no name"},
      // Bound later, on the node chosen: nothing for this plugin to check.
      {"PVC_WaitSC", Code::kSkip, ""},
      {"PVC_4", Code::kUnschedulableAndUnresolvable,
       "persistentvolume \"Vol_not_exist\" not found"},
      {"PVC_missing", Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"PVC_missing\" not found"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.claim);
    ZoneWorld fresh;
    const ZoneWorld::Verdict v = fresh.Run(c.claim, {{kBetaZone, "us-west1-a"}});
    EXPECT_EQ(v.pre_filter, c.pre_filter);
    EXPECT_EQ(v.message, c.message);
  }
}

}  // namespace
}  // namespace muster::plugins::volumes
