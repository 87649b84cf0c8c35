#pragma once

// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection with
// kube-scheduler's settings: try to take the lease every retry period; once held, renew it
// every retry period; when no renewal succeeded for the renew deadline, leadership is lost.
// The renew deadline is kept whatever the network does: each request is bounded by the time
// left before it, and LeaseValid() says false the moment it passes, even while a request
// hangs. As renewDeadline < leaseDuration, this instance stops leading before any other can
// take the lease.
// Expiry is judged by the local clock from when this elector last saw the record change, as
// client-go does, so that clock skew between machines does not matter.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "muster/cluster/kube/http.h"

namespace muster::cluster::kube {

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name = "kube-scheduler";
  std::string identity;  // hostname_uuid
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
};

class LeaderElector {
 public:
  // `on_started` and `on_stopped` run on the elector's thread: leadership won, and lost (or
  // given up at Stop). on_stopped runs only after on_started.
  LeaderElector(Http& http, LeaderElectionConfig config, std::function<void()> on_started,
                std::function<void()> on_stopped);
  ~LeaderElector();
  void Start();
  // Stops trying; a leader gives the lease up (holder cleared), so that another instance
  // takes it at once, as ReleaseOnCancel does.
  void Stop();
  bool leading() const { return leading_.load(); }
  // Whether this instance leads and its last renewal is within the renew deadline: what may
  // schedule and bind. Any thread.
  bool LeaseValid() const;
  // What is left of the renew deadline while leading (zero or less once it passed, or when not
  // leading). Any thread.
  std::chrono::milliseconds LeaseTimeLeft() const;
  // "hostname_<random uuid>", as kube-scheduler's identity.
  static std::string DefaultIdentity();

 private:
  void Loop();
  // One try, its requests given up by `deadline`: true when this elector holds the lease
  // afterwards.
  bool TryAcquireOrRenew(std::chrono::steady_clock::time_point deadline);
  void Release();
  bool SleepFor(std::chrono::milliseconds d);  // false when stopped

  Http& http_;
  LeaderElectionConfig config_;
  std::function<void()> on_started_, on_stopped_;
  std::atomic<bool> leading_{false};
  // While leading: the renew deadline of the last successful renewal (steady clock ticks).
  std::atomic<std::chrono::steady_clock::rep> valid_until_{0};
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  // The record last seen and when (local steady time) it was first seen.
  std::string observed_record_;
  std::chrono::steady_clock::time_point observed_at_{};
};

}  // namespace muster::cluster::kube
