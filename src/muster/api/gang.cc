#include "muster/api/gang.h"

namespace muster::api {

GangRef GangOf(const Pod& pod) {
  const Symbol group = PodGroupName(pod);
  if (group.empty()) return GangRef{};
  return GangRef{static_cast<uint8_t>(kClusterKindIndex<PodGroup>), group};
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

}  // namespace muster::api
