#include "muster/framework/cycle_state.h"

#include <algorithm>

namespace muster::framework {

StateData* CycleState::Read(std::string_view key) const {
  // Readers pass the same constant the writer did: its address finds the entry without comparing
  // characters (Read runs per node per plugin).
  for (const auto& [k, v] : entries_) {
    if (k.data() == key.data() && k.size() == key.size()) return v.get();
  }
  for (const auto& [k, v] : entries_) {
    if (k == key) return v.get();
  }
  return nullptr;
}

void CycleState::Write(std::string_view key, std::unique_ptr<StateData> data) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(data);
      return;
    }
  }
  entries_.emplace_back(key, std::move(data));
}

void CycleState::Delete(std::string_view key) {
  std::erase_if(entries_, [&](const auto& e) { return e.first == key; });
}

std::unique_ptr<CycleState> CycleState::Clone() const {
  auto copy = std::make_unique<CycleState>();
  for (const auto& [k, v] : entries_) copy->entries_.emplace_back(k, v ? v->Clone() : nullptr);
  copy->skip_filter_plugins = skip_filter_plugins;
  copy->skip_filter_at = skip_filter_at;
  copy->skip_score_at = skip_score_at;
  copy->plugin_tally = plugin_tally;
  copy->trace = trace;
  return copy;
}

bool CycleState::SkipFilter(std::string_view plugin) const {
  return std::find(skip_filter_plugins.begin(), skip_filter_plugins.end(), plugin) !=
         skip_filter_plugins.end();
}

}  // namespace muster::framework
