#pragma once

// What the scheduler talks to (DESIGN.md layer 5): object events in, writes out. `memory` is the
// in-memory cluster of simulate, bench and tests; `kube` a real API server. Both deliver the same
// events, for every kind of api::ClusterKinds, to a ClusterObserver: the scheduler's informer
// handlers first, then the simulation's controllers and recorders.

#include <algorithm>
#include <type_traits>
#include <variant>
#include <vector>

#include "muster/api/gang.h"
#include "muster/api/kinds.h"
#include "muster/api/types.h"
#include "muster/framework/client.h"

namespace muster::cluster {

// An observer overrides the events it watches; the others do nothing (client-go's handler
// funcs, where a nil func skips its event). Objects come as the cluster's own shared objects,
// as an informer's cache hands them out, so that an observer may keep one without copying it;
// an update's two objects are of the same kind. api::ObjectOf<T> picks out the kinds an observer
// cares about.
class ClusterObserver {
 public:
  virtual ~ClusterObserver() = default;
  virtual void OnAdd(const api::AnyObject& /*object*/) {}
  virtual void OnUpdate(const api::AnyObject& /*old_object*/,
                        const api::AnyObject& /*new_object*/) {}
  virtual void OnDelete(const api::AnyObject& /*object*/) {}
};

// An observer written per kind (client-go's ResourceEventHandlerFuncs): Self declares
//   void Added(const api::Shared<T>&), void Updated(const api::Shared<T>& old_object,
//   const api::Shared<T>& new_object), void Deleted(const api::Shared<T>&)
// for the kinds T it watches, as overloads or a template; events of a kind it declares nothing
// for pass it by. An observer of gangs, whichever API defines them (api/gang.h), declares
//   void GangDefined(api::Symbol ns, const api::GangDefinition&),
//   void GangRemoved(api::Symbol ns, api::Symbol name)
// and hears of each gang as an object comes to define it or defines it anew (a changed
// minCount), and as no object defines it any more; it sees these after the object's own event.
// All must be public: they are looked up from here, and one this class cannot see would pass
// every event by.
template <typename Self>
class TypedObserver : public ClusterObserver {
 public:
  void OnAdd(const api::AnyObject& object) final {
    std::visit(
        [this](const auto& o) {
          if constexpr (requires { self().Added(o); }) self().Added(o);
        },
        object);
    if constexpr (kWatchesGangs) GangsChanged(api::AnyObject{}, object);
  }
  void OnUpdate(const api::AnyObject& old_object, const api::AnyObject& new_object) final {
    std::visit(
        [this, &new_object](const auto& o) {
          using Ptr = std::remove_cvref_t<decltype(o)>;
          if constexpr (requires { self().Updated(o, o); }) {
            self().Updated(o, std::get<Ptr>(new_object));
          }
        },
        old_object);
    if constexpr (kWatchesGangs) GangsChanged(old_object, new_object);
  }
  void OnDelete(const api::AnyObject& object) final {
    std::visit(
        [this](const auto& o) {
          if constexpr (requires { self().Deleted(o); }) self().Deleted(o);
        },
        object);
    if constexpr (kWatchesGangs) GangsChanged(object, api::AnyObject{});
  }

 private:
  // clang-format 14 misplaces requires-clauses.
  // clang-format off
  static constexpr bool kWatchesGangs = requires(Self& s) {
    s.GangDefined(api::Symbol(), api::GangDefinition{});
    s.GangRemoved(api::Symbol(), api::Symbol());
  };
  // clang-format on

  Self& self() { return static_cast<Self&>(*this); }

  void GangsChanged(const api::AnyObject& old_object, const api::AnyObject& new_object) {
    const std::vector<api::GangDefinition> before = api::GangsDefinedBy(old_object);
    const std::vector<api::GangDefinition> after = api::GangsDefinedBy(new_object);
    if (before.empty() && after.empty()) return;
    const api::Symbol ns = api::MetaOf(after.empty() ? old_object : new_object).namespace_;
    auto find = [](const std::vector<api::GangDefinition>& in, api::Symbol name) {
      return std::find_if(in.begin(), in.end(),
                          [&](const api::GangDefinition& g) { return g.name == name; });
    };
    for (const api::GangDefinition& gang : before) {
      if (find(after, gang.name) == after.end()) self().GangRemoved(ns, gang.name);
    }
    for (const api::GangDefinition& gang : after) {
      auto was = find(before, gang.name);
      if (was == before.end() || *was != gang) self().GangDefined(ns, gang);
    }
  }
};

// The condition preemption sets on a victim before deleting it, as upstream's preemption
// executor sets it; `scheduler` names the scheduler that preempts.
inline api::Condition PreemptionCondition(std::string_view scheduler, api::Time now) {
  return api::Condition{
      api::Symbol("DisruptionTarget"), api::Symbol("True"), "PreemptionByScheduler",
      std::string(scheduler) + ": preempting to accommodate a higher priority pod", now};
}

// A cluster: the scheduler's writes (ClusterClient) plus a stream of object events.
class Cluster : public framework::ClusterClient {
 public:
  // Observers are told of every change after it is made, in order.
  virtual void AddObserver(ClusterObserver* observer) = 0;
};

}  // namespace muster::cluster
