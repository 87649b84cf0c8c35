#pragma once

// An in-memory API server: object stores, uids and resource versions, the pod binding
// subresource, and watchers. Changes are delivered to observers through the clock (as timers due
// now), like an informer's watch: never from inside the call that made them, so a scheduler
// writing to the cluster is not re-entered.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "muster/cluster/cluster.h"
#include "muster/framework/clock.h"

namespace muster::cluster {

// An Event as the cluster stored it, with the time it was recorded.
struct StoredEvent {
  api::Time time;       // first occurrence
  api::Time last_time;  // latest occurrence
  int32_t count = 1;    // occurrences, aggregated as Kubernetes' event correlator does
  framework::EventRecord record;
};

class MemoryCluster final : public Cluster {
 public:
  explicit MemoryCluster(framework::Clock& clock) : clock_(clock) {}

  void AddObserver(ClusterObserver* observer) override { observers_.push_back(observer); }

  // ---- writes by users and controllers ----
  // Each fills uid, resourceVersion and creationTimestamp when unset. Create fails (returns an
  // error status) when the object exists; Update and Delete when it does not.
  framework::Status CreatePod(api::Pod pod);
  framework::Status UpdatePod(api::Pod pod);
  framework::Status DeletePodByKey(const std::string& key);
  framework::Status CreateNode(api::Node node);
  framework::Status UpdateNode(const api::Node& node);
  framework::Status DeleteNode(const std::string& name);
  framework::Status CreatePodGroup(api::PodGroup group);
  framework::Status UpdatePodGroup(const api::PodGroup& group);
  framework::Status DeletePodGroup(const std::string& key);
  framework::Status CreateNamespace(api::Namespace ns);
  framework::Status CreatePodDisruptionBudget(api::PodDisruptionBudget pdb);

  // ---- reads ----
  const api::Pod* GetPod(const std::string& key) const;
  const api::Node* GetNode(const std::string& name) const;
  const api::PodGroup* GetPodGroup(const std::string& key) const;
  // Pods by namespace/name. Each is immutable once stored: a change stores a new one, and the
  // observers are told with the stored objects themselves.
  using PodMap = std::map<std::string, api::PodPtr>;
  const PodMap& pods() const { return pods_; }
  const std::map<std::string, api::Node>& nodes() const { return nodes_; }
  const std::map<std::string, api::PodGroup>& pod_groups() const { return pod_groups_; }
  const std::vector<StoredEvent>& events() const { return events_; }
  // Increases with every object change (not with Events).
  uint64_t revision() const { return revision_; }

  // ---- framework::ClusterClient (the scheduler's writes) ----
  framework::Status Bind(const api::Pod& pod, api::Symbol node) override;
  framework::Status UpdatePodCondition(const api::Pod& pod, const api::PodCondition& condition,
                                       const std::optional<std::string>& nominated_node) override;
  framework::Status DeletePod(const api::Pod& pod) override;
  framework::Status UpdatePodGroupStatus(const api::PodGroup& group,
                                         const api::PodGroup::Status& status) override;
  void RecordEvent(framework::EventRecord event) override;

 private:
  void Stamp(api::ObjectMeta& meta);
  void Notify(std::function<void(ClusterObserver&)> fn);
  // pods_.find through pod_index_: every bind looks its pod up.
  PodMap::iterator FindPod(std::string_view key);
  // Stores `pod` in place of *it with the next resource version, and tells the observers.
  framework::Status ReplacePod(PodMap::iterator it, api::Pod pod);

  framework::Clock& clock_;
  std::vector<ClusterObserver*> observers_;
  // Ordered for the report; indexed by key (string_views into pods_' keys) for lookups.
  PodMap pods_;
  std::unordered_map<std::string_view, PodMap::iterator> pod_index_;
  std::map<std::string, api::Node> nodes_;
  std::unordered_set<api::Symbol> node_names_;  // nodes_' keys, for the check of every bind
  std::map<std::string, api::PodGroup> pod_groups_;
  std::map<std::string, api::Namespace> namespaces_;
  std::map<std::string, api::PodDisruptionBudget> pdbs_;
  std::vector<StoredEvent> events_;
  // A hash of (object, type, reason, message) -> the indices in events_ of the events with it,
  // for aggregation.
  std::unordered_multimap<uint64_t, size_t> event_index_;
  uint64_t revision_ = 0;
  uint64_t next_uid_ = 1;
};

}  // namespace muster::cluster
