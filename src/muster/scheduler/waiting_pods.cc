#include "muster/scheduler/waiting_pods.h"

#include <fmt/format.h>

namespace muster::scheduler {

std::string PodUid(const api::Pod& pod) {
  return pod.metadata.uid.empty() ? pod.metadata.Key() : pod.metadata.uid;
}

class WaitingPodsMap::Entry final : public framework::WaitingPod {
 public:
  Entry(WaitingPodsMap& map, framework::PodInfoPtr assumed, api::Symbol node)
      : map_(map), assumed_(std::move(assumed)), node_(node), uid_(PodUid(assumed_->pod)) {}

  const api::Pod& pod() const override { return assumed_->pod; }
  api::Symbol node() const override { return node_; }
  std::vector<std::string> PendingPlugins() const override {
    std::vector<std::string> names;
    for (const auto& [name, timer] : pending_) names.push_back(name);
    return names;
  }
  void Allow(std::string_view plugin) override { map_.Allow(uid_, plugin); }
  void Reject(std::string_view plugin, std::string message) override {
    map_.Reject(uid_, plugin, message);
  }

  WaitingPodsMap& map_;
  const framework::PodInfoPtr assumed_;
  const api::Symbol node_;
  const std::string uid_;
  std::map<std::string, framework::Clock::TimerId, std::less<>> pending_;  // plugin -> timeout
  std::function<void()> allowed_;
  std::function<void(const framework::Status&)> rejected_;
};

WaitingPodsMap::WaitingPodsMap(framework::Clock& clock) : clock_(clock) {}

WaitingPodsMap::~WaitingPodsMap() {
  for (auto& [uid, entry] : pods_) {
    for (auto& [plugin, timer] : entry->pending_) clock_.CancelTimer(timer);
  }
}

void WaitingPodsMap::Add(framework::PodInfoPtr assumed, api::Symbol node,
                         const std::vector<std::pair<std::string, api::Duration>>& pending,
                         std::function<void()> allowed,
                         std::function<void(const framework::Status&)> rejected) {
  auto entry = std::make_unique<Entry>(*this, std::move(assumed), node);
  entry->allowed_ = std::move(allowed);
  entry->rejected_ = std::move(rejected);
  const std::string uid = entry->uid_;
  for (const auto& [plugin, timeout] : pending) {
    const std::string message = fmt::format("rejected due to timeout after waiting {} at plugin {}",
                                            api::FormatDuration(timeout), plugin);
    // An init-capture, not the structured binding itself (clang 14 refuses capturing those).
    entry->pending_[plugin] =
        clock_.AddTimer(clock_.Now() + timeout,
                        [this, uid, plugin = plugin, message] { Reject(uid, plugin, message); });
  }
  order_.push_back(uid);
  pods_.emplace(uid, std::move(entry));
}

void WaitingPodsMap::Allow(std::string uid, std::string_view plugin) {
  auto it = pods_.find(uid);
  if (it == pods_.end()) return;
  Entry& entry = *it->second;
  auto p = entry.pending_.find(plugin);
  if (p == entry.pending_.end()) return;
  clock_.CancelTimer(p->second);
  entry.pending_.erase(p);
  if (!entry.pending_.empty()) return;
  const std::function<void()> allowed = std::move(entry.allowed_);
  pods_.erase(it);
  std::erase(order_, uid);
  allowed();
}

void WaitingPodsMap::Reject(std::string uid, std::string_view plugin, const std::string& message) {
  auto it = pods_.find(uid);
  if (it == pods_.end()) return;
  for (auto& [name, timer] : it->second->pending_) clock_.CancelTimer(timer);
  const std::function<void(const framework::Status&)> rejected = std::move(it->second->rejected_);
  pods_.erase(it);
  std::erase(order_, uid);
  framework::Status status = framework::Status::Unschedulable(message);
  if (!plugin.empty()) status.WithPlugin(std::string(plugin));
  if (deferred_ != nullptr) {
    deferred_->emplace_back(rejected, std::move(status));
    return;
  }
  rejected(status);
}

void WaitingPodsMap::Iterate(const std::function<void(framework::WaitingPod&)>& fn) {
  // Rejections made while iterating take effect at once (the pods leave the map, a later
  // rejection of theirs is ignored), but their pods fail only once the iteration is over, as
  // upstream's rejections are signals that each pod's binding cycle acts on later: a plugin
  // that rejects a group's waiting pods rejects them all with its own message before the first
  // one's Unreserve runs.
  Rejections rejected;
  auto* const outer = std::exchange(deferred_, &rejected);
  // Copy the order: fn may allow or reject, which removes pods.
  const std::vector<std::string> order = order_;
  for (const std::string& uid : order) {
    auto it = pods_.find(uid);
    if (it != pods_.end()) fn(*it->second);
  }
  deferred_ = outer;
  for (auto& [fail, status] : rejected) fail(status);
}

framework::WaitingPod* WaitingPodsMap::Get(std::string_view uid) {
  auto it = pods_.find(uid);
  return it == pods_.end() ? nullptr : it->second.get();
}

}  // namespace muster::scheduler
