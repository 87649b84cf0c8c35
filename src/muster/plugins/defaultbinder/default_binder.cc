#include "muster/plugins/defaultbinder/default_binder.h"

namespace muster::plugins::defaultbinder {

std::unique_ptr<framework::Plugin> DefaultBinder::New(const framework::PluginArgs& /*args*/,
                                                      framework::Handle& handle,
                                                      std::string* /*error*/) {
  return std::make_unique<DefaultBinder>(handle);
}

framework::Status DefaultBinder::Bind(framework::CycleState& /*state*/,
                                      const framework::PodInfo& pod, api::Symbol node) {
  framework::Status status = handle_.client().Bind(pod.pod, node);
  if (status.IsSuccess() || status.IsError()) return status;
  // Upstream turns any client failure into an Error; a client reporting another code is still a
  // failed write.
  return framework::Status::Error(status.Message());
}

}  // namespace muster::plugins::defaultbinder
