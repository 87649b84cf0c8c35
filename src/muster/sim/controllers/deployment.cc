#include "muster/sim/controllers/deployment.h"

#include <random>

#include "muster/api/generated_name.h"

namespace muster::sim::controllers {

Workload& DeploymentController::Add(const api::Deployment& d) {
  api::ReplicaSet rs;
  rs.metadata = d.metadata;
  rs.metadata.uid.clear();  // an object of its own: the workload gives it its own uid
  std::mt19937_64 hash_rng(SeedFor(d.metadata, context_.seed));
  rs.metadata.name = d.metadata.name + "-" + api::GeneratedNameSuffix(hash_rng, 10);
  rs.template_ = d.template_;
  rs.template_.metadata.labels.Set(
      api::Symbol("pod-template-hash"),
      api::Symbol(rs.metadata.name.substr(d.metadata.name.size() + 1)));
  rs.replicas = d.replicas;
  return replica_sets_.Add(rs);
}

}  // namespace muster::sim::controllers
