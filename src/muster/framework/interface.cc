#include "muster/framework/interface.h"

#include <algorithm>

namespace muster::framework {

void PreFilterResult::Merge(const PreFilterResult& other) {
  if (other.AllNodes()) return;
  if (AllNodes()) {
    node_names = other.node_names;
    return;
  }
  std::vector<api::Symbol> kept;
  for (api::Symbol name : *node_names) {
    if (std::find(other.node_names->begin(), other.node_names->end(), name) !=
        other.node_names->end()) {
      kept.push_back(name);
    }
  }
  node_names = std::move(kept);
}

}  // namespace muster::framework
