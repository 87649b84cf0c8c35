#pragma once

// A scheduler extender (upstream framework.Extender): a webhook asked, at upstream's points in
// the scheduling and binding cycles, to filter and score the nodes a pod may go to, to bind it,
// and to trim preemption's candidates. The cluster layer implements it over HTTP with
// k8s.io/kube-scheduler/extender/v1's wire format; tests implement it in memory.
//
// Calls come from the scheduling loop (Filter, ProcessPreemption; Prioritize, to several
// extenders at once) and from the binding cycle (Bind), so an implementation is thread-safe. A
// call that fails (transport, HTTP status, a malformed answer, or the extender's own `Error`)
// returns an Error status; those muster words name the extender's URL.

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "muster/api/types.h"
#include "muster/framework/status.h"

namespace muster::framework {

class NodeInfo;

// The name a pod's unschedulable plugins carry when an extender turned nodes away (upstream
// framework.ExtenderName): such a pod is retried on any cluster event, as extenders register
// for none.
inline constexpr std::string_view kExtenderName = "Extender";
// Upstream extenderv1.MaxExtenderPriority: an extender scores 0..10, scaled to the plugins'
// 0..100 (times its weight) before it is added to their total.
inline constexpr int64_t kMaxExtenderPriority = 10;

// What a filter call answered: the nodes that passed (among those asked about, in the order
// the extender gave them), and why the others failed, node by node. A node in both failure
// maps counts as unresolvable.
struct ExtenderFilterResult {
  std::vector<NodeInfo*> passed;
  std::map<std::string, std::string> failed;
  std::map<std::string, std::string> failed_and_unresolvable;
};

// One node's victims in preemption (upstream extenderv1.Victims).
struct ExtenderVictims {
  std::vector<const api::Pod*> pods;
  int64_t num_pdb_violations = 0;
};
using NodeToVictims = std::map<std::string, ExtenderVictims>;

// How often an extender was called for one verb, how many calls failed, and the time they
// took (wall-clock seconds).
struct ExtenderCallStats {
  uint64_t calls = 0;
  uint64_t errors = 0;
  double seconds = 0;
};
struct ExtenderStats {
  ExtenderCallStats filter, prioritize, bind, preempt;
  // Filter answers that kept none of the nodes they were asked about, and whether the run's
  // first answer was one: the mark of an extender that remembers an earlier run (ExtenderNotes).
  uint64_t filter_kept_none = 0;
  bool first_filter_kept_none = false;
};

class Extender {
 public:
  virtual ~Extender() = default;
  // Its calls so far, for the report.
  virtual ExtenderStats Stats() const { return {}; }

  // Its urlPrefix: how logs, errors and explain name it.
  virtual const std::string& Name() const = 0;
  virtual bool IsFilter() const = 0;
  virtual bool IsPrioritizer() const = 0;
  virtual bool IsBinder() const = 0;
  virtual bool SupportsPreemption() const = 0;
  // A failure of an ignorable extender skips it rather than failing the pod's attempt.
  virtual bool IsIgnorable() const = 0;
  // Whether it has a say about `pod`: it manages no resources, or the pod's containers (init
  // containers included) request or limit one it manages.
  virtual bool IsInterested(const api::Pod& pod) const = 0;

  // The nodes among `nodes` that the pod may go to.
  virtual Status Filter(const api::Pod& pod, std::span<NodeInfo* const> nodes,
                        ExtenderFilterResult* result) = 0;
  // Scores 0..kMaxExtenderPriority for (some of) `nodes`, by node name, and the weight they
  // carry.
  virtual Status Prioritize(const api::Pod& pod, std::span<NodeInfo* const> nodes,
                            std::vector<std::pair<std::string, int64_t>>* scores,
                            int64_t* weight) = 0;
  // Binds the pod to `node` (the extender writes the Binding).
  virtual Status Bind(const api::Pod& pod, api::Symbol node) = 0;
  // Preemption's candidates trimmed: the nodes and victims the extender keeps. It names its
  // victims by UID; each is found among the pods on its node, which `node` looks up by name
  // (nullptr when the snapshot has no such node).
  virtual Status ProcessPreemption(const api::Pod& pod, const NodeToVictims& candidates,
                                   const std::function<const NodeInfo*(std::string_view)>& node,
                                   NodeToVictims* kept) = 0;
};

}  // namespace muster::framework
