#include "muster/framework/registry.h"

#include <fmt/format.h>

namespace muster::framework {

Status Registry::Register(const std::string& name, PluginFactory factory) {
  if (factories_.contains(name)) {
    return Status::Error(fmt::format("a plugin named {} already exists", name));
  }
  factories_.emplace(name, std::move(factory));
  return Status::OK();
}

Status Registry::Merge(const Registry& other) {
  for (const auto& [name, factory] : other.factories_) {
    if (factories_.contains(name)) {
      return Status::Error(fmt::format("a plugin named {} already exists", name));
    }
  }
  for (const auto& [name, factory] : other.factories_) factories_.emplace(name, factory);
  return Status::OK();
}

const PluginFactory* Registry::Find(const std::string& name) const {
  auto it = factories_.find(name);
  return it == factories_.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories_) names.push_back(name);
  return names;
}

}  // namespace muster::framework
