#pragma once

// A scheduler extender over HTTP (upstream HTTPExtender): each verb is a POST of JSON to
// urlPrefix/verb in k8s.io/kube-scheduler/extender/v1's wire format, with the configured TLS
// and timeout. simulate and run share it: the extender is a real server either way.

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "muster/api/scheduler_config.h"
#include "muster/cluster/kube/http.h"
#include "muster/framework/extender.h"

namespace muster::cluster::kube {

class HttpExtender final : public framework::Extender {
 public:
  explicit HttpExtender(const api::ExtenderConfig& config);

  const std::string& Name() const override { return config_.url_prefix; }
  bool IsFilter() const override { return !config_.filter_verb.empty(); }
  bool IsPrioritizer() const override { return !config_.prioritize_verb.empty(); }
  bool IsBinder() const override { return !config_.bind_verb.empty(); }
  bool SupportsPreemption() const override { return !config_.preempt_verb.empty(); }
  bool IsIgnorable() const override { return config_.ignorable; }
  bool IsInterested(const api::Pod& pod) const override;

  framework::Status Filter(const api::Pod& pod, std::span<framework::NodeInfo* const> nodes,
                           framework::ExtenderFilterResult* result) override;
  framework::Status Prioritize(const api::Pod& pod, std::span<framework::NodeInfo* const> nodes,
                               std::vector<std::pair<std::string, int64_t>>* scores,
                               int64_t* weight) override;
  framework::Status Bind(const api::Pod& pod, api::Symbol node) override;
  framework::Status ProcessPreemption(
      const api::Pod& pod, const framework::NodeToVictims& candidates,
      const std::function<const framework::NodeInfo*(std::string_view)>& node,
      framework::NodeToVictims* kept) override;

  framework::ExtenderStats Stats() const override;

 private:
  // The verbs' bodies; the public verbs count their failures.
  framework::Status FilterCall(const api::Pod& pod, std::span<framework::NodeInfo* const> nodes,
                               framework::ExtenderFilterResult* result);
  framework::Status PrioritizeCall(const api::Pod& pod, std::span<framework::NodeInfo* const> nodes,
                                   std::vector<std::pair<std::string, int64_t>>* scores,
                                   int64_t* weight);
  framework::Status BindCall(const api::Pod& pod, api::Symbol node);
  framework::Status PreemptCall(
      const api::Pod& pod, const framework::NodeToVictims& candidates,
      const std::function<const framework::NodeInfo*(std::string_view)>& node,
      framework::NodeToVictims* kept);
  // POSTs `args` to urlPrefix/verb and reads the JSON answer into *result, counting the call
  // and its time in *stats. Errors as upstream's send words them.
  framework::Status Send(const std::string& verb, const std::string& body, nlohmann::json* result,
                         framework::ExtenderCallStats* stats);
  // `s`, counted in *stats when it is a failure.
  framework::Status Counted(framework::ExtenderCallStats* stats, framework::Status s);
  // ExtenderArgs as JSON text: the pod, and the nodes by name (nodeCacheCapable) or in full.
  std::string Args(const api::Pod& pod, std::span<framework::NodeInfo* const> nodes);

  api::ExtenderConfig config_;
  std::set<std::string, std::less<>> managed_;
  std::string url_;  // urlPrefix without a trailing '/'
  Http http_;
  mutable std::mutex mu_;  // stats_
  framework::ExtenderStats stats_;
  std::mutex nodes_mu_;  // node_text_
  // Each node's v1 JSON, by node object (held, so that its address is not reused).
  std::unordered_map<const api::Node*, std::pair<std::shared_ptr<const api::Node>, std::string>>
      node_text_;
  size_t evict_at_ = 64;  // node_text_'s size at which it is next swept
};

// The configuration's extenders over HTTP, in its order.
std::vector<std::shared_ptr<framework::Extender>> NewHttpExtenders(
    const std::vector<api::ExtenderConfig>& configs);

}  // namespace muster::cluster::kube
