#include "muster/sim/controllers/workload.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "muster/api/generated_name.h"
#include "muster/sim/annotations.h"

namespace muster::sim::controllers {
namespace {

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace

uint64_t SeedFor(const api::ObjectMeta& meta, uint64_t seed) { return Fnv1a(meta.Key()) ^ seed; }

Workload::Workload(const Context& context, std::string_view kind, std::string_view api_version,
                   api::ObjectMeta meta, api::PodTemplateSpec pod_template)
    : context_(context),
      kind_(kind),
      api_version_(api_version),
      meta_(std::move(meta)),
      pod_template_(std::move(pod_template)),
      rng_(SeedFor(meta_, context.seed)) {
  if (meta_.uid.empty()) meta_.uid = fmt::format("uid-{}-{}", kind_, meta_.Key());
}

bool Workload::Counts(const std::string& key) const {
  return std::find(active_.begin(), active_.end(), key) != active_.end();
}

void Workload::Create() {
  created_ = true;
  Sync();
}

void Workload::Sync() {
  if (cannot_create_) return;
  Manage();
}

std::string Workload::FailedCreateMessage(const std::string& /*pod*/,
                                          const std::string& error) const {
  return "Error creating: " + error;
}

bool Workload::CreatePodFor(int ordinal) {
  api::Pod pod = PodFor(ordinal);
  const std::string key = pod.metadata.Key();
  const std::string name = pod.metadata.name;
  if (std::string refused = context_.create_pod(std::move(pod)); !refused.empty()) {
    // The template names a PriorityClass that does not exist.
    cannot_create_ = true;
    const std::string error = fmt::format("pods \"{}\" is forbidden: {}", name, refused);
    context_.cluster.RecordEvent(framework::EventRecord{
        Reference(), "Warning", "FailedCreate", "Create", FailedCreateMessage(name, error)});
    return false;
  }
  active_.push_back(key);
  return true;
}

api::Pod Workload::FromTemplate() const {
  api::Pod pod;
  pod.metadata.labels = pod_template_.metadata.labels;
  pod.metadata.annotations = pod_template_.metadata.annotations;
  pod.metadata.annotations.erase(std::string(kCreateAfter));
  pod.metadata.namespace_ = meta_.namespace_;
  return pod;
}

void Workload::SetGeneratedName(api::Pod& pod, const std::string& prefix) {
  do {
    pod.metadata.name = prefix + api::GeneratedNameSuffix(rng_);
  } while (context_.cluster.Get<api::Pod>(pod.metadata.Key()) != nullptr);
}

void Workload::Own(api::Pod& pod) const {
  api::OwnerReference owner;
  owner.api_version = std::string(api_version_);
  owner.kind = std::string(kind_);
  owner.name = meta_.name;
  owner.uid = meta_.uid;
  owner.controller = true;
  owner.block_owner_deletion = true;
  pod.metadata.owner_references.push_back(owner);
  pod.spec = pod_template_.spec;
}

framework::ObjectReference Workload::Reference() const {
  return framework::ReferenceTo(meta_, std::string(kind_), std::string(api_version_));
}

}  // namespace muster::sim::controllers
