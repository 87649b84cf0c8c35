// PodDisruptionBudget (policy/v1) and Lease (coordination.k8s.io/v1).

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/decoder.h"
#include "muster/api/kinds.h"
#include "muster/api/object_decoding.h"

namespace muster::api::decoding {
namespace {

IntOrString ReadIntOrString(Decoder& d, const YAML::Node& n, const std::string& path) {
  IntOrString v;
  if (n.IsScalar() && n.Tag() != "!" && ParseLabelInt(n.Scalar()).has_value()) {
    if (auto i = ReadInt(d, n, path)) v.int_value = static_cast<int32_t>(*i);
  } else if (auto s = ReadString(d, n, path)) {
    v.is_string = true;
    v.str_value = *s;
    const bool percent = !s->empty() && s->back() == '%' &&
                         std::all_of(s->begin(), s->end() - 1, [](char c) { return isdigit(c); }) &&
                         s->size() > 1;
    if (!percent)
      d.Error(path, fmt::format(
                        "Invalid value: \"{}\": must be an integer or percentage (e.g '5%')", *s));
  }
  return v;
}

PodDisruptionBudget ReadPDB(Decoder& d, Map& m) {
  PodDisruptionBudget pdb;
  pdb.metadata = ReadObjectMeta<PodDisruptionBudget>(d, m);
  Map s(d, m.Get("spec"), "spec");
  s.Known({"unhealthyPodEvictionPolicy"});
  if (YAML::Node n = s.Get("minAvailable"); Present(n)) {
    pdb.min_available = ReadIntOrString(d, n, s.Path("minAvailable"));
  }
  if (YAML::Node n = s.Get("maxUnavailable"); Present(n)) {
    pdb.max_unavailable = ReadIntOrString(d, n, s.Path("maxUnavailable"));
  }
  if (pdb.min_available && pdb.max_unavailable) {
    d.Error("spec", "Invalid value: minAvailable and maxUnavailable cannot be both set");
  }
  pdb.selector = ReadOptionalLabelSelector(d, s.Get("selector"), s.Path("selector"));
  Map st(d, m.Get("status"), "status");
  st.Known({"observedGeneration", "conditions"});
  auto counter = [&](std::string_view field) {
    return static_cast<int32_t>(ReadInt(d, st.Get(field), st.Path(field), 0).value_or(0));
  };
  pdb.status.disruptions_allowed = counter("disruptionsAllowed");
  pdb.status.current_healthy = counter("currentHealthy");
  pdb.status.desired_healthy = counter("desiredHealthy");
  pdb.status.expected_pods = counter("expectedPods");
  ReadMapEntries(d, st.Get("disruptedPods"), st.Path("disruptedPods"),
                 [&](const std::string& pod, const YAML::Node& when, const std::string& path) {
                   ReadTime(d, when, path);
                   pdb.status.disrupted_pods.push_back(pod);
                 });
  std::sort(pdb.status.disrupted_pods.begin(), pdb.status.disrupted_pods.end());
  return pdb;
}

Lease ReadLease(Decoder& d, Map& m) {
  Lease l;
  l.metadata = ReadObjectMeta<Lease>(d, m);
  Map s(d, m.Get("spec"), "spec");
  s.Known({"strategy", "preferredHolder"});
  l.holder_identity = ReadString(d, s.Get("holderIdentity"), s.Path("holderIdentity")).value_or("");
  if (auto v = ReadInt(d, s.Get("leaseDurationSeconds"), s.Path("leaseDurationSeconds"), 1)) {
    l.lease_duration_seconds = static_cast<int32_t>(*v);
  }
  l.acquire_time = ReadTime(d, s.Get("acquireTime"), s.Path("acquireTime"));
  l.renew_time = ReadTime(d, s.Get("renewTime"), s.Path("renewTime"));
  l.lease_transitions = static_cast<int32_t>(
      ReadInt(d, s.Get("leaseTransitions"), s.Path("leaseTransitions"), 0).value_or(0));
  return l;
}

}  // namespace

PodDisruptionBudget DecodePodDisruptionBudget(Decoder& d, Map& m, const std::string&) {
  return ReadPDB(d, m);
}
Lease DecodeLease(Decoder& d, Map& m, const std::string&) { return ReadLease(d, m); }

}  // namespace muster::api::decoding
