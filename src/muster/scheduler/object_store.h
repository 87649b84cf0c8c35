#pragma once

// The scheduler's informer stores (upstream's listers): every pod it has heard of, by
// namespace/name and indexed by label, and the objects of the other kinds a cluster delivers
// (but nodes, which the cache holds). Plugins read them through framework::ObjectLister; the
// informer handlers write them.
//
// A stored pod is a PodInfo that the queue and the cache share; its slot in the store stays put
// while the pod is updated, which is what the label index points at. Nothing keeps the pod's
// "namespace/name" beside it: the store and its indexes find a pod by the name it carries.

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "muster/api/pod_name.h"
#include "muster/framework/handle.h"
#include "muster/framework/node_info.h"

namespace muster::scheduler {

class ObjectStore final : public framework::ObjectLister {
 public:
  // Stores the pod as the informer reports it, returning its PodInfo.
  const framework::PodInfoPtr& StorePod(const api::PodPtr& pod);
  void ForgetPod(const api::Pod& pod);
  // The stored pod of that name, or nullptr.
  const framework::PodInfoPtr* FindPod(api::PodName name) const;
  // Counts a scheduling attempt of the pod of that name.
  void CountAttempt(api::PodName name);
  // The attempts counted for the pod of that name while it was stored and before: a pod
  // deleted and created again under its name goes on counting, as explain reports it.
  int Attempts(api::PodName name) const;

  // The objects of the other kinds.
  framework::ObjectTables& mutable_objects() { return objects_; }

  // ---- ObjectLister ----
  std::vector<const api::Pod*> PodsWithLabel(api::Symbol ns, api::Symbol key,
                                             api::Symbol value) const override;
  std::vector<const api::Pod*> PodsInGang(api::Symbol ns, const api::GangRef& gang) const override;
  const framework::ObjectTables& objects() const override { return objects_; }

 private:
  // A pod and its attempts, kept together: a cluster of a million pods holds one entry per
  // pod, not a second table of counts. Its key is the name of the pod it holds, which an update
  // (the same pod, newer) does not change.
  struct Stored {
    mutable framework::PodInfoPtr info;
    mutable int attempts = 0;
    uint32_t name_hash = 0;  // of name(): api::ByPodName

    // `name` is the pod's, as the lookup before the insert hashed it.
    Stored(framework::PodInfoPtr pod, const api::HashedPodName& name)
        : info(std::move(pod)), name_hash(name.hash) {}
    api::PodName name() const { return api::PodName::Of(info->pod); }
  };
  // The pods of one index entry (one namespace), in name order: entries of pods_, whose
  // addresses stay put.
  struct ByName {
    bool operator()(const Stored* a, const Stored* b) const {
      return a->info->pod.metadata.name < b->info->pod.metadata.name;
    }
  };
  using PodSet = std::set<const Stored*, ByName>;

  // Adds `stored` to label_index_, or removes it.
  void IndexLabels(const Stored& stored, bool add);
  // The same for gang_index_.
  void IndexGang(const Stored& stored, bool add);

  std::unordered_set<Stored, api::ByPodName<Stored>, api::ByPodName<Stored>> pods_;
  // The counts of pods not stored (deleted, or attempted after their deletion), by
  // namespace/name, taken back when a pod of the same name is stored.
  std::unordered_map<std::string, int> unstored_attempts_;
  // (namespace, label key, label value) -> the stored pods with that label.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, PodSet> label_index_;
  // (namespace, gang kind, gang name) -> the stored pods in that gang.
  std::map<std::tuple<uint32_t, uint8_t, uint32_t>, PodSet> gang_index_;
  framework::ObjectTables objects_;
};

}  // namespace muster::scheduler
