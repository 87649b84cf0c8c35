#pragma once

// Scheduler services for plugin tests: a snapshot built from nodes and bound pods (through the
// NodeStore the scheduler's cache uses), a virtual clock, a client that records what plugins write,
// object listers, waiting pods and nominated pods the test sets, and a Framework (the plugins'
// Handle) that tests may fill with plugins.
//
//   FakeServices fake;
//   fake.AddNode(MakeNode().Name("n1").Capacity({{"cpu", "4"}}).Obj());
//   fake.AddPod(MakePod().Name("p").NodeName("n1").Obj());
//   auto plugin = MyPlugin::New(args, fake.handle(), &error);

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "muster/framework/framework.h"
#include "muster/framework/node_store.h"
#include "muster/framework/testing/fake_clock.h"
#include "muster/framework/virtual_clock.h"

namespace muster::testing {

class FakeServices final : public framework::SchedulerServices,
                           public framework::ClusterClient,
                           public framework::ObjectLister,
                           public framework::WaitingPods {
 public:
  // `metrics`, when given, is where plugins register their series (Handle::metrics).
  explicit FakeServices(framework::Metrics* metrics = nullptr);

  framework::Framework& handle() { return *framework_; }
  framework::VirtualClock& virtual_clock() { return clock_; }

  // Cluster state: nodes and bound pods go into the snapshot; every pod is listed.
  void AddNode(const api::Node& node);
  void AddPod(const api::Pod& pod);  // bound when spec.nodeName is set
  // Removes the pod (from its node, when bound); an error when the fake has no such pod.
  framework::Status RemovePod(const api::Pod& pod);
  void UpdateNode(const api::Node& node);
  void RemoveNode(const api::Node& node);
  // An object the lister returns (a PodGroup, a PodDisruptionBudget, a Namespace...).
  template <typename T>
  requires framework::ObjectTables::kListed<T>
  void AddObject(T object) {
    ++version_;
    objects_.Of<T>().Set(std::make_shared<const T>(std::move(object)));
  }
  void Nominate(const api::Pod& pod, api::Symbol node) {
    nominated_.emplace_back(framework::PodInfo::Make(pod), node);
  }
  // Brings the snapshot up to date (AddNode/AddPod do it already).
  void Refresh() { nodes_.UpdateSnapshot(snapshot_); }

  // What plugins wrote.
  std::vector<std::pair<std::string, std::string>> bindings;  // pod key, node
  std::vector<std::string> deleted;                           // pod keys
  std::vector<framework::EventRecord> events;
  std::vector<std::pair<std::string, api::PodGroup::Status>> group_status_updates;
  // UpdateGroupCondition's: the object's kind/namespace/name, and the condition.
  std::vector<std::pair<std::string, api::Condition>> group_condition_updates;
  std::vector<std::pair<std::string, api::Condition>> condition_updates;
  // status.nominatedNodeName as written, alone or with a condition: (pod, node or "").
  std::vector<std::pair<std::string, std::string>> nominations;
  // UpdateClaimStatus's claims, as written.
  std::vector<api::ResourceClaim> claim_updates;
  // CreateClaim's claims as stored (named "<generateName>0", "...1"), DeleteClaim's keys, and
  // SetExtendedResourceClaimStatus's (pod key, status).
  std::vector<api::ResourceClaim> claims_created;
  std::vector<std::string> claims_deleted;
  std::vector<std::pair<std::string, api::PodExtendedResourceClaimStatus>> extended_claim_statuses;
  // BindVolume's "volume -> namespace/claim"; SelectNode's "namespace/claim -> node".
  std::vector<std::string> volume_bindings;
  std::vector<std::string> selected_nodes;
  std::vector<std::string> activated;
  // What plugins asked of the queue: RetryAt's (pod, time), the pods QueueOrderChanged named.
  std::vector<std::pair<std::string, api::Time>> retried;
  std::vector<std::string> reordered;
  // The extenders plugins see (Handle::extenders).
  std::vector<framework::Extender*> extenders_for_plugins;

  // ---- SchedulerServices ----
  const framework::Snapshot& snapshot() const override { return snapshot_; }
  framework::Clock& clock() override { return clock_; }
  framework::WaitingPods& waiting_pods() override { return *this; }
  framework::ClusterClient& client() override { return *this; }
  const framework::ObjectLister& lister() const override { return *this; }
  std::span<framework::Extender* const> extenders() const override { return extenders_for_plugins; }
  // Changes with every object the test adds, updates or removes, as the scheduler's does.
  uint64_t ClusterVersion() const override { return version_; }
  void RetryAt(const std::string& pod_key, api::Time at, uint64_t) override {
    retried.emplace_back(pod_key, at);
  }
  void QueueOrderChanged(std::span<const std::string> keys) override {
    reordered.insert(reordered.end(), keys.begin(), keys.end());
  }
  void ActivatePods(std::span<const std::string> keys) override {
    activated.insert(activated.end(), keys.begin(), keys.end());
  }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(api::Symbol node) const override;
  api::Symbol NominatedNodeOf(const api::Pod& pod) const override;
  int parallelism() const override { return 4; }
  framework::Metrics* metrics() override { return metrics_; }

  // ---- ClusterClient ----
  framework::Status Bind(const api::Pod& pod, api::Symbol node) override;
  framework::Status UpdatePodCondition(const api::Pod& pod, const api::Condition& condition,
                                       const std::optional<std::string>& nominated) override;
  framework::Status NominatePod(const api::Pod& pod, api::Symbol node) override;
  framework::Status DeletePod(const api::Pod& pod) override;
  framework::Status UpdatePodGroupStatus(const api::PodGroup& group,
                                         const api::PodGroup::Status& status) override;
  framework::Status BindVolume(const api::PersistentVolume& pv) override;
  framework::Status SelectNode(const api::PersistentVolumeClaim& pvc, api::Symbol node) override;
  // Stores the claim (in objects()) as written.
  framework::Status UpdateClaimStatus(const api::ResourceClaim& claim) override;
  framework::Status CreateClaim(const api::ResourceClaim& claim,
                                api::ResourceClaim* created) override;
  framework::Status DeleteClaim(const api::ResourceClaim& claim) override;
  framework::Status SetExtendedResourceClaimStatus(
      const api::Pod& pod, const api::PodExtendedResourceClaimStatus& status) override;
  framework::Status UpdateGroupCondition(const framework::ObjectReference& object,
                                         const std::vector<api::Condition>& /*current*/,
                                         const api::Condition& condition) override {
    group_condition_updates.emplace_back(object.kind + " " + object.Key(), condition);
    return framework::Status::OK();
  }
  void RecordEvent(framework::EventRecord event) override { events.push_back(std::move(event)); }

  // ---- ObjectLister ----
  std::vector<const api::Pod*> PodsWithLabel(api::Symbol ns, api::Symbol key,
                                             api::Symbol value) const override;
  std::vector<const api::Pod*> PodsInGang(api::Symbol ns, const api::GangRef& gang) const override;
  const framework::ObjectTables& objects() const override { return objects_; }

  // ---- WaitingPods: tests add waiting pods; Allow/Reject are recorded ----
  struct FakeWaitingPod final : framework::WaitingPod {
    api::Pod pod_;
    api::Symbol node_;
    std::vector<std::string> pending;
    std::vector<std::string> allowed_by;
    std::vector<std::pair<std::string, std::string>> rejected_by;  // plugin, message
    const api::Pod& pod() const override { return pod_; }
    api::Symbol node() const override { return node_; }
    std::vector<std::string> PendingPlugins() const override { return pending; }
    void Allow(std::string_view plugin) override { allowed_by.emplace_back(plugin); }
    void Reject(std::string_view plugin, std::string message) override {
      rejected_by.emplace_back(std::string(plugin), std::move(message));
    }
  };
  FakeWaitingPod& AddWaitingPod(const api::Pod& pod, api::Symbol node,
                                std::vector<std::string> pending);
  void Iterate(const std::function<void(framework::WaitingPod&)>& fn) override;
  framework::WaitingPod* Get(std::string_view uid) override;

 private:
  uint64_t version_ = 0;
  framework::Metrics* metrics_;
  framework::VirtualClock clock_;
  framework::NodeStore nodes_;
  std::map<std::string, framework::PodInfoPtr> bound_;  // by namespace/name
  framework::Snapshot snapshot_;
  std::unique_ptr<framework::Framework> framework_;
  std::map<std::string, api::Pod> pods_;
  framework::ObjectTables objects_;
  std::vector<std::pair<framework::PodInfoPtr, api::Symbol>> nominated_;
  std::vector<std::unique_ptr<FakeWaitingPod>> waiting_;
};

}  // namespace muster::testing
