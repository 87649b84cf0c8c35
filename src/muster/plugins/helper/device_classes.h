#pragma once

#include <vector>

#include "muster/api/dra.h"
#include "muster/api/resources.h"
#include "muster/framework/handle.h"

namespace muster::plugins::helper {

// The DeviceClass whose devices serve extended resource `resource` (upstream's
// DeviceClassResolver, DRAExtendedResource): the class `name` for
// "deviceclass.resource.kubernetes.io/<name>"; otherwise, among the classes whose
// spec.extendedResourceName is `resource`, the one created last (the first by name among those
// created at the same time). Null when none serves it: a native resource, or a name no class
// takes.
const api::DeviceClass* DeviceClassFor(const framework::ObjectLister& lister, api::Symbol resource);

// An extended resource a pod asks for that a DeviceClass serves.
struct DeviceBackedResource {
  api::Symbol resource;
  api::Symbol device_class;
};

// The extended resources `request` asks for (a quantity other than 0) that a DeviceClass serves
// (DeviceClassFor), by name: what NodeResourcesFit leaves to DynamicResources on a node that has
// none of them, and what DynamicResources asks devices for there.
std::vector<DeviceBackedResource> DeviceBackedResources(const framework::ObjectLister& lister,
                                                        const api::Resource& request);

}  // namespace muster::plugins::helper
