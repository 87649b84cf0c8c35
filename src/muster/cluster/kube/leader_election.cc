#include "muster/cluster/kube/leader_election.h"

#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "muster/api/time.h"
#include "muster/framework/log.h"

namespace muster::cluster::kube {
namespace {

using Json = nlohmann::json;
using Steady = std::chrono::steady_clock;

std::string NowMicroTime() {
  return api::FormatMicroTime(
      std::chrono::time_point_cast<api::Duration>(std::chrono::system_clock::now()));
}

}  // namespace

LeaderElector::LeaderElector(Http& http, LeaderElectionConfig config,
                             std::function<void()> on_started, std::function<void()> on_stopped)
    : http_(http),
      config_(std::move(config)),
      on_started_(std::move(on_started)),
      on_stopped_(std::move(on_stopped)) {}

LeaderElector::~LeaderElector() { Stop(); }

std::string LeaderElector::DefaultIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device rd;
  std::mt19937_64 rng(rd());
  const uint64_t a = rng(), b = rng();
  return fmt::format("{}_{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", host, a >> 32, (a >> 16) & 0xffff,
                     a & 0xfff, (b >> 48 & 0x3fff) | 0x8000, b & 0xffffffffffff);
}

void LeaderElector::Start() {
  thread_ = std::thread([this] { Loop(); });
}

void LeaderElector::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stop_.exchange(true)) {
      if (thread_.joinable()) thread_.join();
      return;
    }
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool LeaderElector::SleepFor(std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  return !cv_.wait_for(lock, d, [this] { return stop_.load(); });
}

bool LeaderElector::LeaseValid() const { return LeaseTimeLeft().count() > 0; }

std::chrono::milliseconds LeaderElector::LeaseTimeLeft() const {
  if (!leading_.load()) return std::chrono::milliseconds(0);
  const Steady::duration left =
      Steady::duration(valid_until_.load()) - Steady::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::milliseconds>(left);
}

void LeaderElector::Loop() {
  // Acquire.
  log::Infof(0, "leader election: trying to take lease {}/{} as {}", config_.lease_namespace,
             config_.lease_name, config_.identity);
  Steady::time_point attempt;
  while (!stop_.load()) {
    attempt = Steady::now();
    if (TryAcquireOrRenew(attempt + config_.renew_deadline)) break;
    if (!SleepFor(config_.retry_period)) return;
  }
  if (stop_.load()) return;
  // The record written says it was renewed when the attempt began: the deadline runs from then.
  Steady::time_point valid_until = attempt + config_.renew_deadline;
  valid_until_.store(valid_until.time_since_epoch().count());
  leading_.store(true);
  log::Infof(0, "leader election: took lease {}/{}", config_.lease_namespace, config_.lease_name);
  on_started_();
  // Renew every retry period; each try is bounded by what is left of the renew deadline, and
  // leadership ends the moment it passes.
  auto left = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(valid_until - Steady::now());
  };
  while (left().count() > 0 && SleepFor(std::min(config_.retry_period, left()))) {
    attempt = Steady::now();
    if (attempt >= valid_until) break;
    if (TryAcquireOrRenew(valid_until)) {
      valid_until = attempt + config_.renew_deadline;
      valid_until_.store(valid_until.time_since_epoch().count());
    }
  }
  // Stopped with the deadline passed (the scheduler saw it first) is a loss too: nothing to
  // give up.
  if (!stop_.load() || Steady::now() >= valid_until) {
    log::Errorf(
        "leader election: lost lease {}/{} (not renewed within the renew deadline, "
        "{}ms)",
        config_.lease_namespace, config_.lease_name, config_.renew_deadline.count());
    leading_.store(false);
    on_stopped_();
    return;
  }
  // Stopped while leading.
  Release();
  leading_.store(false);
  on_stopped_();
}

bool LeaderElector::TryAcquireOrRenew(Steady::time_point deadline) {
  auto left = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Steady::now());
  };
  const std::string base =
      fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases", config_.lease_namespace);
  const std::string path = base + "/" + config_.lease_name;
  const std::string now = NowMicroTime();
  const int lease_seconds = static_cast<int>(
      std::chrono::duration_cast<std::chrono::seconds>(config_.lease_duration).count());
  if (left().count() <= 0) return false;
  const Response got = http_.Do("GET", path, "", "application/json", left());
  if (got.status == 404) {
    const Json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}},
        {"spec",
         {{"holderIdentity", config_.identity},
          {"leaseDurationSeconds", lease_seconds},
          {"acquireTime", now},
          {"renewTime", now},
          {"leaseTransitions", 0}}}};
    if (left().count() <= 0) return false;
    const Response r = http_.Do("POST", base, lease.dump(), "application/json", left());
    if (!r.ok()) log::Warningf("leader election: creating the lease: {}", r.Describe());
    return r.ok();
  }
  if (!got.ok()) {
    log::Warningf("leader election: reading the lease: {}", got.Describe());
    return false;
  }
  Json lease = Json::parse(got.body, nullptr, false);
  if (lease.is_discarded() || !lease.is_object()) return false;
  Json& spec = lease["spec"];
  if (!spec.is_object()) spec = Json::object();
  const std::string holder = spec.value("holderIdentity", "");
  const std::string record = spec.dump();
  if (record != observed_record_) {
    observed_record_ = record;
    observed_at_ = Steady::now();
  }
  const int held_for = spec.value("leaseDurationSeconds", lease_seconds);
  const bool expired = Steady::now() > observed_at_ + std::chrono::seconds(held_for);
  if (!holder.empty() && holder != config_.identity && !expired) return false;
  if (holder != config_.identity) {
    spec["acquireTime"] = now;
    spec["leaseTransitions"] = spec.value("leaseTransitions", 0) + (holder.empty() ? 0 : 1);
  }
  spec["holderIdentity"] = config_.identity;
  spec["leaseDurationSeconds"] = lease_seconds;
  spec["renewTime"] = now;
  // The update carries the resourceVersion read: a concurrent change makes it fail (409).
  if (left().count() <= 0) return false;
  const Response r = http_.Do("PUT", path, lease.dump(), "application/json", left());
  if (r.ok()) {
    observed_record_ = Json::parse(r.body, nullptr, false).value("spec", Json()).dump();
    observed_at_ = Steady::now();
  }
  return r.ok();
}

void LeaderElector::Release() {
  const std::string path = fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}",
                                       config_.lease_namespace, config_.lease_name);
  const auto timeout = config_.renew_deadline;
  const Response got = http_.Do("GET", path, "", "application/json", timeout);
  if (!got.ok()) return;
  Json lease = Json::parse(got.body, nullptr, false);
  if (lease.is_discarded() || lease["spec"].value("holderIdentity", "") != config_.identity) {
    return;
  }
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  lease["spec"]["renewTime"] = NowMicroTime();
  const Response r = http_.Do("PUT", path, lease.dump(), "application/json", timeout);
  if (r.ok()) {
    log::Infof(0, "leader election: released lease {}/{}", config_.lease_namespace,
               config_.lease_name);
  }
}

}  // namespace muster::cluster::kube
