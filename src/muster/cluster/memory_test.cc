#include "muster/cluster/memory.h"

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/virtual_clock.h"

namespace muster::cluster {
namespace {

using testing::MakeNode;
using testing::MakePod;
using testing::MakePodGroup;

// Records pod updates as "old node -> new node" and the new pod's resource version.
class UpdateRecorder final : public TypedObserver<UpdateRecorder> {
 public:
  void Added(const api::PodPtr& /*pod*/) { ++pods_added; }
  void Updated(const api::PodPtr& old_pod, const api::PodPtr& new_pod) {
    updates.push_back(std::string(old_pod->spec.node_name.str()) + " -> " +
                      std::string(new_pod->spec.node_name.str()));
    versions.push_back(new_pod->metadata.resource_version);
  }

  int pods_added = 0;
  std::vector<std::string> updates;
  std::vector<std::string> versions;
};

class MemoryClusterTest : public ::testing::Test {
 protected:
  MemoryClusterTest() {
    cluster_.AddObserver(&recorder_);
    EXPECT_TRUE(cluster_.Create(MakeNode().Name("node-a").Obj()).IsSuccess());
    EXPECT_TRUE(cluster_.Create(MakeNode().Name("node-b").Obj()).IsSuccess());
    EXPECT_TRUE(cluster_.Create(MakePod().Name("web").Namespace("prod").Obj()).IsSuccess());
    clock_.RunDue();
  }

  const api::Pod& Web() const { return *cluster_.Get<api::Pod>("prod/web"); }

  framework::VirtualClock clock_{api::Time{}};
  MemoryCluster cluster_{clock_};
  UpdateRecorder recorder_;
};

// Creating what exists fails as the API server's conflict, and leaves the stored object, its
// version and the cluster's revision as they were; no observer hears of it.
TEST_F(MemoryClusterTest, CreatingAnObjectThatExistsChangesNothing) {
  const std::string version = Web().metadata.resource_version;
  const uint64_t revision = cluster_.revision();
  const api::Pod* stored = cluster_.Get<api::Pod>("prod/web");
  const framework::Status s =
      cluster_.Create(MakePod().Name("web").Namespace("prod").Label("app", "other").Obj());
  EXPECT_FALSE(s.IsSuccess());
  EXPECT_EQ(s.Message(), "pods \"prod/web\" already exists");
  EXPECT_EQ(cluster_.Get<api::Pod>("prod/web"), stored);
  EXPECT_EQ(Web().metadata.resource_version, version);
  EXPECT_EQ(cluster_.revision(), revision);
  EXPECT_FALSE(cluster_.Create(MakeNode().Name("node-a").Obj()).IsSuccess());
  EXPECT_EQ(cluster_.Objects<api::Node>().size(), 2u);
  clock_.RunDue();
  EXPECT_EQ(recorder_.pods_added, 1) << "web's own creation, in the fixture";
  EXPECT_TRUE(recorder_.updates.empty());
  EXPECT_EQ(cluster_.Get<api::Pod>("prod/nothing"), nullptr);
}

// pods() walks the pods in key order, as an ordered map of "namespace/name" would, whether it is
// read for the first time, after creations only, after deletions, or after both; a binding
// replaces a pod without moving it.
TEST_F(MemoryClusterTest, PodsAreWalkedInKeyOrderAcrossCreationsAndDeletions) {
  std::set<std::string> expected = {"prod/web"};
  auto walked = [&] {
    std::vector<std::string> keys;
    for (const auto& [key, pod] : cluster_.pods()) {
      EXPECT_EQ(pod->metadata.Key(), key);
      keys.push_back(key);
    }
    EXPECT_EQ(keys.size(), cluster_.pods().size());
    return keys;
  };
  auto in_order = [&] { return std::vector<std::string>(expected.begin(), expected.end()); };
  auto create = [&](const std::string& ns, const std::string& name) {
    ASSERT_TRUE(cluster_.Create(MakePod().Name(name).Namespace(ns).Obj()).IsSuccess());
    expected.insert(ns + "/" + name);
  };
  auto remove = [&](const std::string& key) {
    ASSERT_TRUE(cluster_.Delete<api::Pod>(key).IsSuccess());
    expected.erase(key);
  };
  // Names whose order is not their creation's ("web-10" before "web-9"; "dev" before "prod").
  for (int i = 12; i > 0; i -= 3) create("prod", "web-" + std::to_string(i));
  create("dev", "api");
  EXPECT_EQ(walked(), in_order()) << "read first";
  for (int i = 1; i < 12; i += 3) create("prod", "web-" + std::to_string(i));
  create("a", "z");
  EXPECT_EQ(walked(), in_order()) << "after creations";
  remove("prod/web-9");
  remove("a/z");
  EXPECT_EQ(walked(), in_order()) << "after deletions";
  create("prod", "web-9");
  remove("prod/web-12");
  create("zz", "last");
  ASSERT_TRUE(cluster_.Bind(*cluster_.Get<api::Pod>("dev/api"), api::Symbol("node-a")).IsSuccess());
  EXPECT_EQ(walked(), in_order()) << "after both, and a binding";
  EXPECT_EQ(cluster_.Get<api::Pod>("dev/api")->spec.node_name, api::Symbol("node-a"));
  EXPECT_EQ(cluster_.Get<api::Pod>("prod/web-12"), nullptr);
  EXPECT_FALSE(cluster_.pods().empty());
}

TEST_F(MemoryClusterTest, BindAssignsTheNodeAndTellsObserversOnce) {
  const std::string version = Web().metadata.resource_version;
  ASSERT_TRUE(cluster_.Bind(Web(), api::Symbol("node-b")).IsSuccess());
  EXPECT_EQ(Web().spec.node_name, api::Symbol("node-b"));
  ASSERT_EQ(Web().status.conditions.size(), 1u);
  EXPECT_EQ(Web().status.conditions[0].type.str(), "PodScheduled");
  EXPECT_EQ(Web().status.conditions[0].status.str(), "True");
  EXPECT_NE(Web().metadata.resource_version, version);
  EXPECT_TRUE(recorder_.updates.empty()) << "told through the clock, not from inside Bind";
  clock_.RunDue();
  EXPECT_EQ(recorder_.updates, std::vector<std::string>{" -> node-b"});
  EXPECT_EQ(recorder_.versions, std::vector<std::string>{Web().metadata.resource_version});
}

TEST_F(MemoryClusterTest, BindRefusesAnAssignedPodAnUnknownPodAndAnUnknownNode) {
  ASSERT_TRUE(cluster_.Bind(Web(), api::Symbol("node-a")).IsSuccess());
  const api::Pod bound = Web();
  EXPECT_EQ(cluster_.Bind(bound, api::Symbol("node-b")).Message(),
            "pod web is already assigned to node \"node-a\"");
  EXPECT_EQ(cluster_.Bind(MakePod().Name("ghost").Namespace("prod").Obj(), api::Symbol("node-a"))
                .Message(),
            "pods \"ghost\" not found");
  ASSERT_TRUE(cluster_.Create(MakePod().Name("api").Namespace("prod").Obj()).IsSuccess());
  EXPECT_EQ(cluster_.Bind(*cluster_.Get<api::Pod>("prod/api"), api::Symbol("node-z")).Message(),
            "nodes \"node-z\" not found");
  EXPECT_EQ(Web().spec.node_name, api::Symbol("node-a")) << "a refused bind changes nothing";
  EXPECT_TRUE(cluster_.Get<api::Pod>("prod/api")->spec.node_name.empty());
}

TEST_F(MemoryClusterTest, BindRefusesANodeDeletedSince) {
  ASSERT_TRUE(cluster_.Delete<api::Node>("node-b").IsSuccess());
  EXPECT_EQ(cluster_.Bind(Web(), api::Symbol("node-b")).Message(), "nodes \"node-b\" not found");
  ASSERT_TRUE(cluster_.Create(MakeNode().Name("node-b").Obj()).IsSuccess());
  EXPECT_TRUE(cluster_.Bind(Web(), api::Symbol("node-b")).IsSuccess()) << "created again";
}

TEST_F(MemoryClusterTest, UpdatePodConditionReplacesTheConditionOfItsType) {
  const api::Symbol scheduled("PodScheduled"), no("False");
  const api::Condition unschedulable{scheduled, no, "Unschedulable", "no room", {}};
  ASSERT_TRUE(cluster_.UpdatePodCondition(Web(), unschedulable, "node-a").IsSuccess());
  const api::Condition again{scheduled, no, "Unschedulable", "still none", {}};
  ASSERT_TRUE(cluster_.UpdatePodCondition(Web(), again, std::nullopt).IsSuccess());
  ASSERT_EQ(Web().status.conditions.size(), 1u);
  EXPECT_EQ(Web().status.conditions[0].message, "still none");
  EXPECT_EQ(Web().status.nominated_node_name, api::Symbol("node-a")) << "kept when not given";
  clock_.RunDue();
  EXPECT_EQ(recorder_.updates.size(), 2u);
}

// Preemption's deletion: the victim is seen to end Failed with upstream's DisruptionTarget
// condition (for a Job's pod failure policy), then to go.
TEST_F(MemoryClusterTest, APreemptedPodEndsFailedWithDisruptionTargetBeforeItGoes) {
  struct Watcher final : TypedObserver<Watcher> {
    void Updated(const api::PodPtr&, const api::PodPtr& pod) { seen.push_back(pod); }
    void Deleted(const api::PodPtr& pod) { seen.push_back(pod); }
    std::vector<api::PodPtr> seen;
  } watcher;
  cluster_.AddObserver(&watcher);
  ASSERT_TRUE(cluster_.Bind(Web(), api::Symbol("node-a")).IsSuccess());
  clock_.RunDue();
  watcher.seen.clear();
  ASSERT_TRUE(cluster_.DeletePod(Web()).IsSuccess());
  EXPECT_EQ(cluster_.Get<api::Pod>("prod/web"), nullptr);
  clock_.RunDue();
  ASSERT_EQ(watcher.seen.size(), 2u) << "an update, then the deletion";
  for (const api::PodPtr& pod : watcher.seen) {
    EXPECT_EQ(pod->status.phase, api::PodPhase::kFailed);
    const api::Condition* target = api::FindCondition(pod->status.conditions, "DisruptionTarget");
    ASSERT_NE(target, nullptr);
    EXPECT_EQ(target->status.str(), "True");
    EXPECT_EQ(target->reason, "PreemptionByScheduler");
    EXPECT_EQ(target->message,
              "default-scheduler: preempting to accommodate a higher priority pod");
  }
  EXPECT_FALSE(cluster_.DeletePod(MakePod().Name("ghost").Namespace("prod").Obj()).IsSuccess());
}

// As Kubernetes' event correlator: a repeat of an event (same object, type, reason and message,
// whatever its action) counts on the first; any other difference is an event of its own.
TEST_F(MemoryClusterTest, RepeatedEventsAreCountedOnTheFirst) {
  auto event = [](std::string name, std::string reason, std::string message) {
    framework::ObjectReference pod;
    pod.namespace_ = "prod";
    pod.name = std::move(name);
    return framework::EventRecord{pod, "Warning", std::move(reason), "Scheduling",
                                  std::move(message)};
  };
  cluster_.RecordEvent(event("web", "FailedScheduling", "0/2 nodes are available"));
  clock_.AdvanceTo(clock_.Now() + std::chrono::seconds(5));
  framework::EventRecord repeat = event("web", "FailedScheduling", "0/2 nodes are available");
  repeat.action = "Retrying";
  cluster_.RecordEvent(repeat);
  cluster_.RecordEvent(event("web", "FailedScheduling", "0/3 nodes are available"));
  cluster_.RecordEvent(event("api", "FailedScheduling", "0/2 nodes are available"));
  cluster_.RecordEvent(event("web", "Preempted", "0/2 nodes are available"));
  const std::vector<StoredEvent>& events = cluster_.events();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].count, 2);
  EXPECT_EQ(events[0].last_time - events[0].time, std::chrono::seconds(5));
  EXPECT_EQ(events[0].record.action, "Scheduling") << "the first keeps its own fields";
  for (size_t i = 1; i < events.size(); ++i) EXPECT_EQ(events[i].count, 1) << i;
  EXPECT_EQ(events[1].record.message, "0/3 nodes are available");
  EXPECT_EQ(events[2].record.regarding.name, "api");
  EXPECT_EQ(events[3].record.reason, "Preempted");
}

// A cluster that keeps no Events (muster bench's) records none, and nothing else changes.
TEST_F(MemoryClusterTest, AClusterThatKeepsNoEventsRecordsNone) {
  EXPECT_TRUE(cluster_.RecordsEvents());
  cluster_.KeepEvents(false);
  // Said to the scheduler, which then does not write the messages it would drop.
  EXPECT_FALSE(cluster_.RecordsEvents());
  framework::ObjectReference pod;
  pod.namespace_ = "default";
  pod.name = "web";
  const uint64_t revision = cluster_.revision();
  cluster_.RecordEvent(framework::EventRecord{pod, "Warning", "FailedScheduling", "Scheduling",
                                              "0/2 nodes are available"});
  EXPECT_TRUE(cluster_.events().empty());
  EXPECT_EQ(cluster_.revision(), revision);
  cluster_.KeepEvents(true);
  cluster_.RecordEvent(framework::EventRecord{pod, "Warning", "FailedScheduling", "Scheduling",
                                              "0/2 nodes are available"});
  EXPECT_EQ(cluster_.events().size(), 1u);
}

// An observer of gangs hears of a gang as an object defines it or changes its minCount, and as
// it goes; not of the object's other changes.
TEST_F(MemoryClusterTest, GangObserversHearOfGangsNotOfTheObjectsDefiningThem) {
  struct Watcher final : TypedObserver<Watcher> {
    void GangDefined(api::Symbol ns, const api::GangDefinition& gang) {
      seen.push_back(std::string(ns.str()) + "/" + std::string(gang.name.str()) + " min " +
                     std::to_string(gang.min_count));
    }
    void GangRemoved(api::Symbol ns, api::Symbol name) {
      seen.push_back("removed " + std::string(ns.str()) + "/" + std::string(name.str()));
    }
    std::vector<std::string> seen;
  } watcher;
  cluster_.AddObserver(&watcher);
  api::PodGroup group = MakePodGroup("train", 3);
  ASSERT_TRUE(cluster_.Create(group).IsSuccess());
  clock_.RunDue();
  group = *cluster_.Get<api::PodGroup>("default/train");
  group.status.running = 2;
  ASSERT_TRUE(cluster_.Update(group).IsSuccess());
  clock_.RunDue();
  EXPECT_EQ(watcher.seen, std::vector<std::string>{"default/train min 3"})
      << "a status change defines nothing new";
  group = *cluster_.Get<api::PodGroup>("default/train");
  group.spec.min_member = 2;
  ASSERT_TRUE(cluster_.Update(group).IsSuccess());
  ASSERT_TRUE(cluster_.Delete<api::PodGroup>("default/train").IsSuccess());
  ASSERT_TRUE(cluster_.Create(MakePod().Name("member").PodGroup("train").Obj()).IsSuccess());
  clock_.RunDue();
  EXPECT_EQ(watcher.seen, (std::vector<std::string>{"default/train min 3", "default/train min 2",
                                                    "removed default/train"}));
}

}  // namespace
}  // namespace muster::cluster
