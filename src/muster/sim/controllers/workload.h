#pragma once

// What the controllers of workloads share (ReplicaSet, StatefulSet, Job; a Deployment's pods are
// its ReplicaSet's): one object as its controller keeps it, the pods it made and still counts,
// and the making of a pod from its template (named, labelled, owned), which the API server may
// refuse. Each controller's own state and rules are in its subclass (replicaset.cc,
// statefulset.cc, job.cc).

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/types.h"
#include "muster/framework/client.h"
#include "muster/sim/controllers/controller.h"

namespace muster::sim::controllers {

// The seed of an object's own random draws: its key's hash mixed with the run's seed, so that
// the names it draws do not depend on what else the run holds.
uint64_t SeedFor(const api::ObjectMeta& meta, uint64_t seed);

class Workload {
 public:
  virtual ~Workload() = default;
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  // Its metadata; its uid is set (made up from its kind and key when it had none), which the
  // controller references of its pods name.
  const api::ObjectMeta& meta() const { return meta_; }
  // Whether the pod `key` (namespace/name) is one it made and counts still: the pods whose
  // events come to it.
  bool Counts(const std::string& key) const;
  // Its creation came: it makes its pods.
  void Create();
  // Whether its creation came.
  bool created() const { return created_; }
  // A pod it counts changed phase.
  virtual void PodPhaseChanged(const api::Pod& pod) = 0;
  // A pod it counts was deleted.
  virtual void PodDeleted(const api::Pod& pod) = 0;

 protected:
  // `kind` and `api_version`: the row of the kind whose controller runs it, which owns its pods
  // and is named in its Events. The seed of its draws is SeedFor(meta, context.seed).
  Workload(const Context& context, std::string_view kind, std::string_view api_version,
           api::ObjectMeta meta, api::PodTemplateSpec pod_template);

  // Makes the pods it still wants (Manage), unless the API server refused one of its pods.
  void Sync();
  // The controller's rule for the pods it still wants, which it makes (CreatePodFor).
  virtual void Manage() = 0;
  // The pod the controller makes for `ordinal` (a StatefulSet's ordinal, an Indexed Job's
  // completion index; 0 for the others), from FromTemplate, a name, then Own.
  virtual api::Pod PodFor(int ordinal) = 0;
  // The message of the FailedCreate Warning when the API server refused the pod `pod` with
  // `error`, in upstream's words for the kind (by default, the ReplicaSet's and the Job's).
  virtual std::string FailedCreateMessage(const std::string& pod, const std::string& error) const;

  // Makes the pod for `ordinal` and creates it; from then on it counts the pod (the last of
  // active_). False when the API server refused it: the Warning is recorded, and the workload
  // makes no more pods (nothing in a simulation would make a later try succeed).
  bool CreatePodFor(int ordinal);
  // A pod of the template, in the workload's namespace, with the template's labels and
  // annotations (not muster.dev/create-after: the workload's creation is what it delayed).
  api::Pod FromTemplate() const;
  // Names `pod` `prefix` and random characters (generateName), a name no pod has.
  void SetGeneratedName(api::Pod& pod, const std::string& prefix);
  // Makes `pod` the workload's (its controller reference) with the template's spec.
  void Own(api::Pod& pod) const;
  // The workload, for its Events.
  framework::ObjectReference Reference() const;

  const Context& context_;
  // The keys (namespace/name) of the pods it counts, not yet finished, in the order it made
  // them.
  std::vector<std::string> active_;

 private:
  const std::string_view kind_;
  const std::string_view api_version_;
  api::ObjectMeta meta_;
  const api::PodTemplateSpec pod_template_;
  std::mt19937_64 rng_;
  bool created_ = false;        // its creation came
  bool cannot_create_ = false;  // the API server refused a pod: it makes no more
};

}  // namespace muster::sim::controllers
