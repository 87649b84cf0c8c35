#include "muster/framework/client.h"

namespace muster::framework {

ObjectReference ReferenceTo(const api::ObjectMeta& meta, std::string kind,
                            std::string api_version) {
  return ObjectReference{
      std::move(api_version), std::move(kind), meta.namespace_.string(), meta.name, meta.uid,
      meta.resource_version};
}

ObjectReference ReferenceTo(const api::PodGroup& group) {
  return ReferenceTo(
      group.metadata, "PodGroup",
      group.api_version.empty() ? "scheduling.x-k8s.io/v1alpha1" : group.api_version);
}

}  // namespace muster::framework
