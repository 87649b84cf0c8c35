#include "muster/plugins/helper/device_classes.h"

#include <algorithm>

#include "muster/api/resources.h"

namespace muster::plugins::helper {

const api::DeviceClass* DeviceClassFor(const framework::ObjectLister& lister,
                                       api::Symbol resource) {
  const std::string_view name = resource.str();
  if (name.starts_with(api::kDeviceClassResourcePrefix)) {
    return lister.Get<api::DeviceClass>(
        api::Symbol(name.substr(api::kDeviceClassResourcePrefix.size())));
  }
  // An explicit name is an extended resource's (validation keeps kubernetes.io/ names out).
  if (!api::IsExtendedResourceName(name)) return nullptr;
  const api::DeviceClass* best = nullptr;
  for (const api::DeviceClass* c : lister.objects().Of<api::DeviceClass>().List()) {
    if (c->spec.extended_resource_name != name) continue;
    if (best == nullptr) {
      best = c;
      continue;
    }
    const auto created = c->metadata.creation_timestamp.value_or(api::Time{});
    const auto best_created = best->metadata.creation_timestamp.value_or(api::Time{});
    if (created > best_created ||
        (created == best_created && c->metadata.name < best->metadata.name)) {
      best = c;
    }
  }
  return best;
}

std::vector<DeviceBackedResource> DeviceBackedResources(const framework::ObjectLister& lister,
                                                        const api::Resource& request) {
  std::vector<DeviceBackedResource> out;
  for (const auto& [name, quantity] : request.scalar) {
    if (quantity == 0) continue;
    if (const api::DeviceClass* c = DeviceClassFor(lister, name)) {
      out.push_back(DeviceBackedResource{name, api::Symbol(c->metadata.name)});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const DeviceBackedResource& a, const DeviceBackedResource& b) {
              return a.resource.str() < b.resource.str();
            });
  return out;
}

}  // namespace muster::plugins::helper
