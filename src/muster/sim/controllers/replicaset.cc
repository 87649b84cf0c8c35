#include "muster/sim/controllers/replicaset.h"

#include <cstdint>
#include <string>

#include "muster/api/kinds.h"

namespace muster::sim::controllers {
namespace {

class ReplicaSet final : public Workload {
 public:
  ReplicaSet(const Context& context, const api::ReplicaSet& rs)
      : Workload(context, api::KindOf<api::ReplicaSet>().name,
                 api::KindOf<api::ReplicaSet>().api_versions.front(), rs.metadata, rs.template_),
        replicas_(rs.replicas) {}

  void PodPhaseChanged(const api::Pod& pod) override {
    if (pod.status.phase == api::PodPhase::kSucceeded) {
      std::erase(active_, pod.metadata.Key());
      ++succeeded_;
      Sync();
    } else if (pod.status.phase == api::PodPhase::kFailed) {
      Replace(pod);
    }
  }
  // Gone before it succeeded: a failure.
  void PodDeleted(const api::Pod& pod) override { Replace(pod); }

 private:
  void Manage() override {
    while (static_cast<int32_t>(active_.size()) + succeeded_ < replicas_ && CreatePodFor(0)) {
    }
  }
  api::Pod PodFor(int /*ordinal*/) override {
    api::Pod pod = FromTemplate();
    SetGeneratedName(pod, meta().name + "-");
    Own(pod);
    return pod;
  }
  // A pod that failed, or went before it succeeded, no longer counts: another takes its place.
  void Replace(const api::Pod& pod) {
    std::erase(active_, pod.metadata.Key());
    Sync();
  }

  const int32_t replicas_;
  int32_t succeeded_ = 0;  // the pods that succeeded
};

}  // namespace

Workload& ReplicaSetController::Add(const api::ReplicaSet& rs) {
  replica_sets_.push_back(std::make_unique<ReplicaSet>(context_, rs));
  return *replica_sets_.back();
}

}  // namespace muster::sim::controllers
