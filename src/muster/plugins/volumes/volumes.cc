#include "muster/plugins/volumes/volumes.h"

namespace muster::plugins::volumes {
namespace {

using framework::Status;

// What every volume plugin's PreFilter returns for a pod without the volumes it checks, which is
// every pod muster schedules (see volumes.h).
Status NothingToCheck() { return Status(framework::Code::kSkip); }

}  // namespace

// ---- VolumeRestrictions ----

std::unique_ptr<framework::Plugin> VolumeRestrictions::New(const framework::PluginArgs& /*args*/,
                                                           framework::Handle& /*handle*/,
                                                           std::string* /*error*/) {
  return std::make_unique<VolumeRestrictions>();
}

Status VolumeRestrictions::PreFilter(framework::CycleState& /*state*/,
                                     const framework::PodInfo& /*pod*/,
                                     std::span<framework::NodeInfo* const> /*nodes*/,
                                     framework::PreFilterResult* /*result*/) {
  return NothingToCheck();
}

// The runtime does not call the extensions of a plugin whose PreFilter skipped; these answer
// anyway, with the nothing-changed upstream reports for a pod without conflicting claims.
Status VolumeRestrictions::AddPod(framework::CycleState& /*state*/,
                                  const framework::PodInfo& /*pod_to_schedule*/,
                                  const framework::PodInfo& /*pod_to_add*/,
                                  const framework::NodeInfo& /*node*/) const {
  return Status::OK();
}

Status VolumeRestrictions::RemovePod(framework::CycleState& /*state*/,
                                     const framework::PodInfo& /*pod_to_schedule*/,
                                     const framework::PodInfo& /*pod_to_remove*/,
                                     const framework::NodeInfo& /*node*/) const {
  return Status::OK();
}

Status VolumeRestrictions::Filter(const framework::CycleState& /*state*/,
                                  const framework::PodInfo& /*pod*/,
                                  const framework::NodeInfo& /*node*/) const {
  return Status::OK();
}

// ---- NodeVolumeLimits ----

std::unique_ptr<framework::Plugin> NodeVolumeLimits::New(const framework::PluginArgs& /*args*/,
                                                         framework::Handle& /*handle*/,
                                                         std::string* /*error*/) {
  return std::make_unique<NodeVolumeLimits>();
}

Status NodeVolumeLimits::PreFilter(framework::CycleState& /*state*/,
                                   const framework::PodInfo& /*pod*/,
                                   std::span<framework::NodeInfo* const> /*nodes*/,
                                   framework::PreFilterResult* /*result*/) {
  return NothingToCheck();
}

Status NodeVolumeLimits::Filter(const framework::CycleState& /*state*/,
                                const framework::PodInfo& /*pod*/,
                                const framework::NodeInfo& /*node*/) const {
  return Status::OK();
}

// ---- VolumeBinding ----

std::unique_ptr<framework::Plugin> VolumeBinding::New(const framework::PluginArgs& args,
                                                      framework::Handle& /*handle*/,
                                                      std::string* error) {
  VolumeBindingArgs decoded;
  if (!LoadVolumeBindingArgs(args, &decoded, error)) return nullptr;
  return std::make_unique<VolumeBinding>(decoded);
}

Status VolumeBinding::PreFilter(framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
                                std::span<framework::NodeInfo* const> /*nodes*/,
                                framework::PreFilterResult* /*result*/) {
  return NothingToCheck();
}

Status VolumeBinding::Filter(const framework::CycleState& /*state*/,
                             const framework::PodInfo& /*pod*/,
                             const framework::NodeInfo& /*node*/) const {
  return Status::OK();
}

Status VolumeBinding::PreScore(framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
                               std::span<framework::NodeInfo* const> /*feasible*/) {
  return Status(framework::Code::kSkip);
}

Status VolumeBinding::Score(const framework::CycleState& /*state*/,
                            const framework::PodInfo& /*pod*/, const framework::NodeInfo& /*node*/,
                            int64_t* score) const {
  *score = 0;
  return Status::OK();
}

Status VolumeBinding::Reserve(framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
                              api::Symbol /*node*/) {
  return Status::OK();
}

void VolumeBinding::Unreserve(framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
                              api::Symbol /*node*/) {}

Status VolumeBinding::PreBind(framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
                              api::Symbol /*node*/) {
  return Status::OK();
}

// ---- VolumeZone ----

std::unique_ptr<framework::Plugin> VolumeZone::New(const framework::PluginArgs& /*args*/,
                                                   framework::Handle& /*handle*/,
                                                   std::string* /*error*/) {
  return std::make_unique<VolumeZone>();
}

Status VolumeZone::PreFilter(framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
                             std::span<framework::NodeInfo* const> /*nodes*/,
                             framework::PreFilterResult* /*result*/) {
  return NothingToCheck();
}

Status VolumeZone::Filter(const framework::CycleState& /*state*/, const framework::PodInfo& /*pod*/,
                          const framework::NodeInfo& /*node*/) const {
  return Status::OK();
}

}  // namespace muster::plugins::volumes
