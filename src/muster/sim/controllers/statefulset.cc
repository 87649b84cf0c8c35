#include "muster/sim/controllers/statefulset.h"

#include <cstdint>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "muster/api/kinds.h"

namespace muster::sim::controllers {
namespace {

class StatefulSet final : public Workload {
 public:
  StatefulSet(const Context& context, VolumeController& volumes, const api::StatefulSet& s)
      : Workload(context, api::KindOf<api::StatefulSet>().name,
                 api::KindOf<api::StatefulSet>().api_versions.front(), s.metadata, s.template_),
        volumes_(volumes),
        replicas_(s.replicas),
        ordered_(s.pod_management_policy == api::PodManagementPolicy::kOrderedReady),
        claim_templates_(s.volume_claim_templates),
        selector_labels_(s.selector.match_labels) {}

  void PodPhaseChanged(const api::Pod& pod) override {
    if (pod.status.phase == api::PodPhase::kSucceeded) {
      std::erase(active_, pod.metadata.Key());
      Sync();
    } else if (pod.status.phase == api::PodPhase::kFailed) {
      // Upstream deletes a failed pod and creates its ordinal again once it is gone (OnPodDelete).
      context_.cluster.Delete<api::Pod>(pod.metadata.Key());
    } else if (pod.status.phase == api::PodPhase::kRunning && ordered_) {
      Sync();
    }
  }
  // A StatefulSet recreates the same ordinal.
  void PodDeleted(const api::Pod& pod) override {
    std::erase(active_, pod.metadata.Key());
    const std::string prefix = meta().name + "-";
    const int ordinal = std::stoi(pod.metadata.name.substr(prefix.size()));
    CreatePodFor(ordinal);
  }

 private:
  void Manage() override {
    if (!ordered_) {
      while (next_ordinal_ < replicas_ && CreatePodFor(next_ordinal_)) ++next_ordinal_;
    } else if (next_ordinal_ < replicas_) {
      // OrderedReady: the next ordinal only once every earlier one runs.
      for (const std::string& key : active_) {
        const api::Pod* p = context_.cluster.Get<api::Pod>(key);
        if (p == nullptr || p->status.phase != api::PodPhase::kRunning) return;
      }
      if (CreatePodFor(next_ordinal_)) ++next_ordinal_;
    }
  }

  api::Pod PodFor(int ordinal) override {
    api::Pod pod = FromTemplate();
    pod.metadata.name = fmt::format("{}-{}", meta().name, ordinal);
    pod.metadata.labels.Set(api::Symbol("statefulset.kubernetes.io/pod-name"),
                            api::Symbol(pod.metadata.name));
    Own(pod);
    // Each of its claims, `<template>-<pod>`, created first.
    for (const api::ClaimTemplate& t : claim_templates_) {
      api::PersistentVolumeClaim claim;
      claim.metadata.name = fmt::format("{}-{}", t.name, pod.metadata.name);
      claim.metadata.namespace_ = pod.metadata.namespace_;
      claim.metadata.labels = t.labels;
      for (const auto& [key, value] : selector_labels_) claim.metadata.labels.Set(key, value);
      claim.metadata.annotations = t.annotations;
      claim.spec = t.spec;
      api::Volume volume;
      volume.name = t.name;
      volume.claim_name = api::Symbol(claim.metadata.name);
      volume.source.kind = "persistentVolumeClaim";
      std::erase_if(pod.spec.volumes, [&](const api::Volume& v) { return v.name == t.name; });
      pod.spec.volumes.push_back(std::move(volume));
      volumes_.CreateClaim(std::move(claim));
    }
    return pod;
  }

  std::string FailedCreateMessage(const std::string& pod, const std::string& error) const override {
    return fmt::format("create Pod {} in StatefulSet {} failed error: {}", pod, meta().name, error);
  }

  VolumeController& volumes_;
  const int32_t replicas_;
  const bool ordered_;  // OrderedReady
  const std::vector<api::ClaimTemplate> claim_templates_;
  // The selector's labels, which its claims carry too.
  const std::vector<std::pair<api::Symbol, api::Symbol>> selector_labels_;
  int32_t next_ordinal_ = 0;  // the next ordinal to make
};

}  // namespace

Workload& StatefulSetController::Add(const api::StatefulSet& s) {
  stateful_sets_.push_back(std::make_unique<StatefulSet>(context_, volumes_, s));
  return *stateful_sets_.back();
}

}  // namespace muster::sim::controllers
