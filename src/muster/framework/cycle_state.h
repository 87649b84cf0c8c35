#pragma once

#include <bitset>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "muster/api/intern.h"

namespace muster::framework {

// Data a plugin keeps for one pod's scheduling cycle (computed in PreFilter, read in Filter).
// Clone must produce an independent copy: preemption runs what-if Filter passes on a clone and
// mutates it through AddPod/RemovePod.
class StateData {
 public:
  virtual ~StateData() = default;
  virtual std::unique_ptr<StateData> Clone() const = 0;
};

// Per-cycle keyed storage, as upstream's CycleState. Keys are string literals that outlive the
// state (each plugin's "PreFilter" + name constant); a handful of entries, so a flat vector.
//
// Not synchronised: written by the scheduling thread in PreFilter/PreScore, read concurrently
// by Filter/Score over nodes (reads only).
struct PluginTally;
class AttemptTrace;

class CycleState {
 public:
  CycleState() = default;
  CycleState(const CycleState&) = delete;
  CycleState& operator=(const CycleState&) = delete;

  // nullptr when absent.
  StateData* Read(std::string_view key) const;
  template <typename T>
  T* Read(std::string_view key) const {
    return static_cast<T*>(Read(key));
  }
  void Write(std::string_view key, std::unique_ptr<StateData> data);
  void Delete(std::string_view key);

  std::unique_ptr<CycleState> Clone() const;

  // Plugins whose PreFilter returned Skip: their Filter (and PreFilter extensions) are not run
  // this cycle.
  std::vector<std::string_view> skip_filter_plugins;
  bool SkipFilter(std::string_view plugin) const;
  // Plugins skipped at Filter and at Score (PreScore returned Skip), by position in the
  // profile's Filter and Score lists: the framework checks these per node, not names.
  static constexpr size_t kMaxPluginsPerPoint = 64;
  std::bitset<kMaxPluginsPerPoint> skip_filter_at;
  std::bitset<kMaxPluginsPerPoint> skip_score_at;
  // Set on the cycles whose plugins are timed (Metrics::SamplePluginsThisCycle): Filter and
  // Score tally their calls per node here, the other points observe each call at once. Clones
  // share it: preemption's what-if Filter calls count too.
  std::shared_ptr<PluginTally> plugin_tally;
  // Set on the attempts `muster explain` records (see trace.h); nullptr otherwise. Clones share
  // it: Filter's pass with nominated pods runs on one.
  std::shared_ptr<AttemptTrace> trace;

 private:
  std::vector<std::pair<std::string_view, std::unique_ptr<StateData>>> entries_;
};

}  // namespace muster::framework
