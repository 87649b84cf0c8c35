#pragma once

// Pods held at Permit (upstream's waitingPodsMap): each waits until every plugin that asked it
// to wait has allowed it, or until one rejects it or its wait for a plugin times out. What
// happens then is the caller's: the pod's binding cycle goes on, or it fails.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "muster/framework/clock.h"
#include "muster/framework/handle.h"
#include "muster/framework/node_info.h"

namespace muster::scheduler {

// The pod's uid, or its namespace/name when it has none (pods of hand-written manifests).
std::string PodUid(const api::Pod& pod);

class WaitingPodsMap final : public framework::WaitingPods {
 public:
  explicit WaitingPodsMap(framework::Clock& clock);
  ~WaitingPodsMap() override;
  WaitingPodsMap(const WaitingPodsMap&) = delete;
  WaitingPodsMap& operator=(const WaitingPodsMap&) = delete;

  // Holds `assumed` (the pod placed on `node`) until each of `pending` (plugin, timeout) allows
  // it: then `allowed` runs; a rejection or a timeout runs `rejected` with the Unschedulable
  // status to fail the pod with. Either runs once, after the pod has left the map.
  void Add(framework::PodInfoPtr assumed, api::Symbol node,
           const std::vector<std::pair<std::string, api::Duration>>& pending,
           std::function<void()> allowed, std::function<void(const framework::Status&)> rejected);
  // `uid` is taken by value: the entry that calls these is gone before they return.
  void Allow(std::string uid, std::string_view plugin);
  // `plugin` "" for a rejection of no plugin's (the pod was deleted). Called while Iterate runs,
  // the pod leaves the map at once but fails when the iteration ends.
  void Reject(std::string uid, std::string_view plugin, const std::string& message);

  // ---- WaitingPods ----
  void Iterate(const std::function<void(framework::WaitingPod&)>& fn) override;
  framework::WaitingPod* Get(std::string_view uid) override;

 private:
  class Entry;

  framework::Clock& clock_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> pods_;  // by uid
  std::vector<std::string> order_;                                   // uids, as they came
  // While Iterate runs: the rejections made meanwhile (each pod's failure and its status), run
  // when it ends.
  using Rejections =
      std::vector<std::pair<std::function<void(const framework::Status&)>, framework::Status>>;
  Rejections* deferred_ = nullptr;
};

}  // namespace muster::scheduler
