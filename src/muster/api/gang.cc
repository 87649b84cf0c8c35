#include "muster/api/gang.h"

#include <algorithm>
#include <string>

namespace muster::api {

int32_t SchedulableMembers(const std::vector<const Pod*>& members) {
  return static_cast<int32_t>(std::count_if(members.begin(), members.end(), [](const Pod* p) {
    return !p->spec.node_name.empty() || p->spec.scheduling_gates.empty();
  }));
}

GangRef GangOf(const Pod& pod) {
  if (!pod.spec.scheduling_group.empty()) {
    return GangRef{static_cast<uint8_t>(kClusterKindIndex<SchedulingPodGroup>),
                   pod.spec.scheduling_group};
  }
  if (const PodSpec::WorkloadReference& ref = pod.spec.workload_ref; !ref.name.empty()) {
    std::string name = ref.name.string() + "/" + ref.pod_group.string();
    if (!ref.replica_key.empty()) name += "/" + ref.replica_key.string();
    return GangRef{static_cast<uint8_t>(kClusterKindIndex<Workload>), Symbol(name)};
  }
  const Symbol group = PodGroupName(pod);
  if (group.empty()) return GangRef{};
  return GangRef{static_cast<uint8_t>(kClusterKindIndex<PodGroup>), group};
}

Symbol GangDefinitionName(const GangRef& gang) {
  if (!gang.Of<Workload>()) return gang.name;
  const std::string_view name = gang.name.str();
  const size_t group = name.find('/');
  const size_t replica = group == std::string_view::npos ? group : name.find('/', group + 1);
  return replica == std::string_view::npos ? gang.name : Symbol(name.substr(0, replica));
}

std::vector<GangDefinition> GangsDefinedBy(const AnyObject& object) {
  return std::visit(
      []<typename P>(const P& p) -> std::vector<GangDefinition> {
        if constexpr (std::is_same_v<P, std::monostate>) {
          return {};
        } else {
          using T = typename P::element_type;
          const auto gangs = KindOf<std::remove_const_t<T>>().gangs;
          if (gangs == nullptr) return {};
          return gangs(*p);
        }
      },
      object);
}

std::vector<GangDefinition> WorkloadGangs(const Workload& workload) {
  std::vector<GangDefinition> gangs;
  if (!workload.DefinesGroups()) return gangs;
  for (const PodGroupTemplate& g : workload.pod_groups) {
    if (g.policy.gang()) {
      gangs.push_back({Symbol(workload.metadata.name + "/" + g.name), *g.policy.min_count});
    }
  }
  return gangs;
}

std::vector<std::string_view> ApiVersionsOfKind(std::string_view name) {
  std::vector<std::string_view> versions;
  std::apply(
      [&](const auto&... kind) {
        ((kind.name == name
              ? static_cast<void>(versions.insert(versions.end(), kind.api_versions.begin(),
                                                  kind.api_versions.end()))
              : static_cast<void>(0)),
         ...);
      },
      Kinds());
  return versions;
}

const PodGroupTemplate* Workload::Group(std::string_view name) const {
  for (const PodGroupTemplate& g : pod_groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

std::string_view SchedulingPodGroup::ScheduledCondition() const {
  return api_version == "scheduling.k8s.io/v1alpha2" ? "PodGroupScheduled"
                                                     : "PodGroupInitiallyScheduled";
}

}  // namespace muster::api
