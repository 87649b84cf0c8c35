#pragma once

// A ClusterClient whose every write succeeds and changes nothing, for tests whose fakes record
// only the writes they look at (they override those).

#include <optional>
#include <string>
#include <vector>

#include "muster/framework/client.h"

namespace muster::testing {

class NullClient : public framework::ClusterClient {
 public:
  using Status = framework::Status;

  Status Bind(const api::Pod&, api::Symbol) override { return Status::OK(); }
  Status UpdatePodCondition(const api::Pod&, const api::Condition&,
                            const std::optional<std::string>&) override {
    return Status::OK();
  }
  Status NominatePod(const api::Pod&, api::Symbol) override { return Status::OK(); }
  Status DeletePod(const api::Pod&) override { return Status::OK(); }
  Status UpdatePodGroupStatus(const api::PodGroup&, const api::PodGroup::Status&) override {
    return Status::OK();
  }
  Status UpdateGroupCondition(const framework::ObjectReference&, const std::vector<api::Condition>&,
                              const api::Condition&) override {
    return Status::OK();
  }
  Status BindVolume(const api::PersistentVolume&) override { return Status::OK(); }
  Status SelectNode(const api::PersistentVolumeClaim&, api::Symbol) override {
    return Status::OK();
  }
  Status UpdateClaimStatus(const api::ResourceClaim&) override { return Status::OK(); }
  Status CreateClaim(const api::ResourceClaim&, api::ResourceClaim*) override {
    return Status::OK();
  }
  Status DeleteClaim(const api::ResourceClaim&) override { return Status::OK(); }
  Status SetExtendedResourceClaimStatus(const api::Pod&,
                                        const api::PodExtendedResourceClaimStatus&) override {
    return Status::OK();
  }
  void RecordEvent(framework::EventRecord) override {}
};

}  // namespace muster::testing
