#include "muster/scheduler/update_actions.h"

#include "muster/api/pod_resources.h"

namespace muster::scheduler {
namespace {

bool SameTaints(const std::vector<api::Taint>& a, const std::vector<api::Taint>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].value != b[i].value || a[i].effect != b[i].effect) {
      return false;
    }
  }
  return true;
}

bool SameTolerations(const std::vector<api::Toleration>& a, const std::vector<api::Toleration>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].op != b[i].op || a[i].value != b[i].value ||
        a[i].effect != b[i].effect || a[i].toleration_seconds != b[i].toleration_seconds) {
      return false;
    }
  }
  return true;
}

bool SameConditions(const std::vector<api::NodeCondition>& a,
                    const std::vector<api::NodeCondition>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].type != b[i].type || a[i].status != b[i].status) return false;
  }
  return true;
}

}  // namespace

uint32_t PodUpdateActions(const api::Pod& old_pod, const api::Pod& new_pod) {
  uint32_t actions = 0;
  if (!(old_pod.metadata.labels == new_pod.metadata.labels)) actions |= framework::kUpdatePodLabel;
  const api::Resource old_req = api::PodRequests(old_pod);
  const api::Resource new_req = api::PodRequests(new_pod);
  api::Resource max = old_req;
  max.SetMax(new_req);
  if (!(max == new_req)) actions |= framework::kUpdatePodScaleDown;
  if (!old_pod.spec.scheduling_gates.empty() && new_pod.spec.scheduling_gates.empty()) {
    actions |= framework::kUpdatePodSchedulingGatesEliminated;
  }
  if (!SameTolerations(old_pod.spec.tolerations, new_pod.spec.tolerations)) {
    actions |= framework::kUpdatePodToleration;
  }
  return actions == 0 ? framework::kUpdatePodOther : actions;
}

uint32_t NodeUpdateActions(const api::Node& old_node, const api::Node& new_node) {
  uint32_t actions = 0;
  if (!(old_node.status.allocatable == new_node.status.allocatable)) {
    actions |= framework::kUpdateNodeAllocatable;
  }
  if (!(old_node.metadata.labels == new_node.metadata.labels)) {
    actions |= framework::kUpdateNodeLabel;
  }
  // Upstream counts spec.unschedulable as a taint change (it is enforced like one).
  if (!SameTaints(old_node.spec.taints, new_node.spec.taints) ||
      old_node.spec.unschedulable != new_node.spec.unschedulable) {
    actions |= framework::kUpdateNodeTaint;
  }
  if (!SameConditions(old_node.status.conditions, new_node.status.conditions)) {
    actions |= framework::kUpdateNodeCondition;
  }
  if (old_node.metadata.annotations != new_node.metadata.annotations) {
    actions |= framework::kUpdateNodeAnnotation;
  }
  if (old_node.status.declared_features != new_node.status.declared_features) {
    actions |= framework::kUpdateNodeDeclaredFeature;
  }
  return actions;
}

}  // namespace muster::scheduler
