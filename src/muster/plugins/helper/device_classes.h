#pragma once

#include "muster/api/dra.h"
#include "muster/framework/handle.h"

namespace muster::plugins::helper {

// The DeviceClass whose devices serve extended resource `resource` (upstream's
// DeviceClassResolver, DRAExtendedResource): the class `name` for
// "deviceclass.resource.kubernetes.io/<name>"; otherwise, among the classes whose
// spec.extendedResourceName is `resource`, the one created last (the first by name among those
// created at the same time). Null when none serves it: a native resource, or a name no class
// takes.
const api::DeviceClass* DeviceClassFor(const framework::ObjectLister& lister, api::Symbol resource);

}  // namespace muster::plugins::helper
