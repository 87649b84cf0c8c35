#include "muster/api/pod_name.h"

namespace muster::api {

PodName PodName::Parse(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return {Symbol(), key};
  return {Symbol(key.substr(0, slash)), key.substr(slash + 1)};
}

std::string PodName::Key() const {
  if (ns.empty()) return std::string(name);
  std::string key(ns.str());
  key += '/';
  key += name;
  return key;
}

}  // namespace muster::api
