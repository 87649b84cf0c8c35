#pragma once

#include "muster/cluster/cluster.h"
#include "muster/scheduler/scheduler.h"

namespace muster::cluster {

// Delivers a cluster's object events to the scheduler's informer handlers.
class SchedulerObserver final : public ClusterObserver {
 public:
  explicit SchedulerObserver(scheduler::Scheduler& s) : s_(s) {}
  void OnPodAdd(const api::PodPtr& pod) override { s_.OnPodAdd(pod); }
  void OnPodUpdate(const api::PodPtr& o, const api::PodPtr& n) override { s_.OnPodUpdate(o, n); }
  void OnPodDelete(const api::PodPtr& pod) override { s_.OnPodDelete(pod); }
  void OnNodeAdd(const api::Node& node) override { s_.OnNodeAdd(node); }
  void OnNodeUpdate(const api::Node& o, const api::Node& n) override { s_.OnNodeUpdate(o, n); }
  void OnNodeDelete(const api::Node& node) override { s_.OnNodeDelete(node); }
  void OnPodGroupAdd(const api::PodGroup& g) override { s_.OnPodGroupAdd(g); }
  void OnPodGroupUpdate(const api::PodGroup& o, const api::PodGroup& n) override {
    s_.OnPodGroupUpdate(o, n);
  }
  void OnPodGroupDelete(const api::PodGroup& g) override { s_.OnPodGroupDelete(g); }
  void OnNamespaceAdd(const api::Namespace& ns) override { s_.OnNamespaceAdd(ns); }
  void OnPodDisruptionBudgetAdd(const api::PodDisruptionBudget& pdb) override {
    s_.OnPodDisruptionBudgetAdd(pdb);
  }

 private:
  scheduler::Scheduler& s_;
};

}  // namespace muster::cluster
