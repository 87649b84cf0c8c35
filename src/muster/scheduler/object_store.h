#pragma once

// The scheduler's informer stores (upstream's listers): every pod it has heard of, by
// namespace/name and indexed by label, and the objects of the other kinds a cluster delivers
// (but nodes, which the cache holds). Plugins read them through framework::ObjectLister; the
// informer handlers write them.
//
// A stored pod is a PodInfo that the queue and the cache share; its slot in the store stays put
// while the pod is updated, which is what the label index points at.

#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "muster/framework/handle.h"
#include "muster/framework/node_info.h"

namespace muster::scheduler {

class ObjectStore final : public framework::ObjectLister {
 public:
  // Stores the pod as the informer reports it, returning its PodInfo.
  const framework::PodInfoPtr& StorePod(const api::PodPtr& pod);
  void ForgetPod(const api::Pod& pod);
  // The stored pod by namespace/name, or nullptr.
  const framework::PodInfoPtr* FindPod(const std::string& key) const;
  // Counts a scheduling attempt of the pod named `key` (namespace/name).
  void CountAttempt(const std::string& key);
  // The attempts counted for the pod named `key` while it was stored and before, by name: a
  // pod deleted and created again under its name goes on counting, as explain reports it.
  int Attempts(const std::string& key) const;

  // The objects of the other kinds.
  framework::ObjectTables& mutable_objects() { return objects_; }

  // ---- ObjectLister ----
  std::vector<const api::Pod*> PodsWithLabel(api::Symbol ns, api::Symbol key,
                                             api::Symbol value) const override;
  std::vector<const api::Pod*> PodsInGang(api::Symbol ns, const api::GangRef& gang) const override;
  const framework::ObjectTables& objects() const override { return objects_; }

 private:
  // Adds `stored` (an element of pods_, whose address the index keeps) to label_index_, or
  // removes it.
  void IndexLabels(const framework::PodInfoPtr& stored, bool add);
  // The same for gang_index_.
  void IndexGang(const framework::PodInfoPtr& stored, bool add);

  // A pod and its attempts, kept together: a cluster of a million pods holds one entry per
  // pod, not a second table of counts.
  struct Stored {
    framework::PodInfoPtr info;
    int attempts = 0;
  };
  std::unordered_map<std::string, Stored> pods_;
  // The counts of pods not stored (deleted, or attempted after their deletion), taken back
  // when a pod of the same name is stored.
  std::unordered_map<std::string, int> unstored_attempts_;
  // (namespace, label key, label value) -> the stored pods with that label, by namespace/name.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>,
           std::map<std::string, const framework::PodInfoPtr*>>
      label_index_;
  // (namespace, gang kind, gang name) -> the stored pods in that gang, by namespace/name.
  std::map<std::tuple<uint32_t, uint8_t, uint32_t>,
           std::map<std::string, const framework::PodInfoPtr*>>
      gang_index_;
  framework::ObjectTables objects_;
};

}  // namespace muster::scheduler
