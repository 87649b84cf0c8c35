#pragma once

// The plugin's cycle state (upstream preFilterState and preScoreState). Internal to the plugin;
// tests read it to compare counts.

#include <memory>

#include "muster/framework/cycle_state.h"
#include "muster/plugins/interpodaffinity/terms.h"
#include "muster/plugins/interpodaffinity/topology_map.h"

namespace muster::plugins::interpodaffinity {

struct PreFilterState final : framework::StateData {
  // Existing pods whose required anti-affinity terms select the incoming pod, per topology pair.
  TopologyMap existing_anti_affinity_counts;
  // Existing pods that match all of the incoming pod's required affinity terms (one per term).
  TopologyMap affinity_counts;
  // Existing pods that each of the incoming pod's required anti-affinity terms selects.
  TopologyMap anti_affinity_counts;
  // Shared with clones: it does not change once PreFilter wrote it.
  std::shared_ptr<const IncomingPod> pod;
  // Whether the incoming pod matches all its own required affinity terms (the first pod of a
  // group may then go where none matches).
  bool matches_own_affinity = false;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

struct PreScoreState final : framework::StateData {
  // Summed term weights per topology pair; zero sums are kept, as upstream.
  TopologyMap topology_score;

  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreScoreState>(*this);
  }
};

}  // namespace muster::plugins::interpodaffinity
