#include "muster/cluster/kube/extender.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "muster/cluster/kube/encode.h"
#include "muster/framework/node_info.h"

namespace muster::cluster::kube {
namespace {

using framework::Status;
using nlohmann::json;

// Go's encoding/json matches a field's name case-insensitively: an extender that answers
// "nodeNames" or "failedNodes" is read as kube-scheduler reads it.
const json* Field(const json& object, std::string_view name) {
  if (!object.is_object()) return nullptr;
  if (auto it = object.find(name); it != object.end()) return &*it;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (key.size() == name.size() &&
        std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        })) {
      return &*it;
    }
  }
  return nullptr;
}

bool Present(const json* j) { return j != nullptr && !j->is_null(); }

// The answer's own Error (ExtenderFilterResult's, ExtenderBindingResult's) when it sets one.
Status ErrorIn(const json& answer) {
  const json* error = Field(answer, "Error");
  if (!Present(error) || !error->is_string() || error->get<std::string>().empty()) {
    return Status::OK();
  }
  return Status::Error(error->get<std::string>());
}

// JSON text, with bytes that are not UTF-8 replaced by U+FFFD as Go's encoder replaces them
// (nlohmann would throw).
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// A FailedNodesMap: node name to reason.
std::map<std::string, std::string> FailedNodes(const json* j) {
  std::map<std::string, std::string> out;
  if (!Present(j) || !j->is_object()) return out;
  for (auto it = j->begin(); it != j->end(); ++it) {
    out[it.key()] = it->get<std::string>();  // strings: checked by the caller
  }
  return out;
}

RestConfig Transport(const api::ExtenderConfig& c) {
  RestConfig r;
  r.server = c.url_prefix;
  while (r.server.ends_with('/')) r.server.pop_back();
  r.qps = 0;  // no client-side rate limit, as upstream's plain http.Client
  if (c.tls_config) {
    const api::ExtenderTLSConfig& t = *c.tls_config;
    r.insecure_skip_tls_verify = t.insecure;
    r.tls_server_name = t.server_name;
    r.cert_file = t.cert_file;
    r.key_file = t.key_file;
    r.ca_file = t.ca_file;
    r.cert_data = t.cert_data;
    r.key_data = t.key_data;
    r.ca_data = t.ca_data;
  }
  // Upstream's makeTransport: HTTPS without a CA to check the server against skips the check.
  if (c.enable_https && r.ca_file.empty() && r.ca_data.empty()) r.insecure_skip_tls_verify = true;
  r.source = "extender " + c.url_prefix;
  return r;
}

}  // namespace

HttpExtender::HttpExtender(const api::ExtenderConfig& config)
    : config_(config), http_(Transport(config)) {
  for (const auto& r : config_.managed_resources) managed_.insert(r.name);
  url_ = config_.url_prefix;
  while (url_.ends_with('/')) url_.pop_back();
}

bool HttpExtender::IsInterested(const api::Pod& pod) const {
  if (managed_.empty()) return true;
  auto manages = [&](const std::vector<api::Container>& containers) {
    return std::any_of(containers.begin(), containers.end(), [&](const api::Container& c) {
      auto in = [&](const api::ResourceList& list) {
        return std::any_of(list.begin(), list.end(),
                           [&](const auto& entry) { return managed_.contains(entry.first.str()); });
      };
      return in(c.resources.requests) || in(c.resources.limits);
    });
  };
  return manages(pod.spec.containers) || manages(pod.spec.init_containers);
}

std::string HttpExtender::Args(const api::Pod& pod, std::span<framework::NodeInfo* const> nodes) {
  // The field names are the Go structs' own (extender/v1 has no json tags), and the field not
  // used is null, as encoding/json writes a nil pointer.
  std::string body = R"({"Pod":)" + Dump(EncodePod(pod));
  if (config_.node_cache_capable) {
    json names = json::array();
    for (const framework::NodeInfo* n : nodes) names.push_back(n->name().str());
    body += R"(,"Nodes":null,"NodeNames":)" + Dump(names);
  } else {
    // A NodeList of the nodes' JSON, each encoded once per node object (an update makes a new
    // one): a call over thousands of nodes copies text rather than encoding them again.
    std::lock_guard lock(nodes_mu_);
    body += R"(,"Nodes":{"metadata":{},"items":[)";
    for (size_t i = 0; i < nodes.size(); ++i) {
      const std::shared_ptr<const api::Node>& node = nodes[i]->node_ptr();
      auto [it, added] = node_text_.try_emplace(node.get());
      if (added) it->second = {node, Dump(EncodeNode(*node))};
      if (i > 0) body += ',';
      body += it->second.second;
    }
    body += R"(]},"NodeNames":null)";
    // Nodes gone from the cluster or replaced (held by this cache alone) are dropped each time
    // it has doubled.
    if (node_text_.size() > evict_at_) {
      std::erase_if(node_text_,
                    [](const auto& entry) { return entry.second.first.use_count() == 1; });
      evict_at_ = std::max<size_t>(64, 2 * node_text_.size());
    }
  }
  body += '}';
  return body;
}

Status HttpExtender::Send(const std::string& verb, const std::string& body, json* result,
                          framework::ExtenderCallStats* stats) {
  const auto began = std::chrono::steady_clock::now();
  const Response r =
      http_.Do("POST", "/" + verb, body, "application/json",
               std::chrono::duration_cast<std::chrono::milliseconds>(config_.http_timeout));
  Status s;
  if (!r.error.empty()) {
    s = Status::Error(r.error);
  } else if (r.status != 200) {
    s = Status::Error(
        fmt::format("failed {} with extender at URL {}/{}, code {}", verb, url_, verb, r.status));
  } else {
    *result = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (result->is_discarded()) {
      s = Status::Error(fmt::format("extender {}: the answer to {} is not JSON", url_, verb));
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::lock_guard lock(mu_);
  ++stats->calls;
  stats->seconds += seconds;
  return s;
}

Status HttpExtender::Counted(framework::ExtenderCallStats* stats, Status s) {
  if (!s.IsSuccess()) {
    std::lock_guard lock(mu_);
    ++stats->errors;
  }
  return s;
}

framework::ExtenderStats HttpExtender::Stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

Status HttpExtender::Filter(const api::Pod& pod, std::span<framework::NodeInfo* const> nodes,
                            framework::ExtenderFilterResult* result) {
  Status s = Counted(&stats_.filter, FilterCall(pod, nodes, result));
  if (s.IsSuccess() && !nodes.empty() && result->passed.empty()) {
    std::lock_guard lock(mu_);
    ++stats_.filter_kept_none;
    if (stats_.filter.calls == 1) stats_.first_filter_kept_none = true;
  }
  return s;
}

Status HttpExtender::FilterCall(const api::Pod& pod, std::span<framework::NodeInfo* const> nodes,
                                framework::ExtenderFilterResult* result) {
  if (!IsFilter()) {
    result->passed.assign(nodes.begin(), nodes.end());
    return Status::OK();
  }
  json answer;
  if (Status s = Send(config_.filter_verb, Args(pod, nodes), &answer, &stats_.filter);
      !s.IsSuccess()) {
    return s;
  }
  // What Go's decoder refuses (a value of the wrong type) fails the call, as upstream's does.
  auto malformed = [&](std::string_view field) {
    return Status::Error(fmt::format("extender {}: the answer to {} has a malformed {}", url_,
                                     config_.filter_verb, field));
  };
  if (!answer.is_object()) return malformed("ExtenderFilterResult");
  if (const json* error = Field(answer, "Error"); Present(error) && !error->is_string()) {
    return malformed("Error");
  }
  if (Status s = ErrorIn(answer); !s.IsSuccess()) return s;
  // The nodes it kept, found among those it was asked about, by name.
  std::unordered_map<std::string_view, framework::NodeInfo*> by_name;
  by_name.reserve(nodes.size());
  for (framework::NodeInfo* n : nodes) by_name.emplace(n->name().str(), n);
  auto keep = [&](const json* name) {
    const std::string text = Present(name) && name->is_string() ? name->get<std::string>() : "";
    auto it = by_name.find(text);
    if (it == by_name.end()) {
      return Status::Error(fmt::format(
          "extender \"{}\" claims a filtered node \"{}\" which is not found in the input node "
          "list",
          config_.url_prefix, text));
    }
    result->passed.push_back(it->second);
    return Status::OK();
  };
  const json* names = Field(answer, "NodeNames");
  const json* list = Field(answer, "Nodes");
  if (Present(names) && !names->is_array()) return malformed("NodeNames");
  if (Present(list) && !list->is_object()) return malformed("Nodes");
  if (config_.node_cache_capable && Present(names)) {
    for (const json& name : *names) {
      if (Status s = keep(&name); !s.IsSuccess()) return s;
    }
  } else if (Present(list)) {
    const json* items = Field(*list, "items");
    if (Present(items) && !items->is_array()) return malformed("Nodes.items");
    for (const json& item : Present(items) ? *items : json::array()) {
      const json* meta = item.is_object() ? Field(item, "metadata") : nullptr;
      if (Status s = keep(meta != nullptr ? Field(*meta, "name") : nullptr); !s.IsSuccess()) {
        return s;
      }
    }
  }
  for (const char* field : {"FailedNodes", "FailedAndUnresolvableNodes"}) {
    const json* map = Field(answer, field);
    if (!Present(map)) continue;
    if (!map->is_object() ||
        !std::all_of(map->begin(), map->end(), [](const json& v) { return v.is_string(); })) {
      return malformed(field);
    }
  }
  result->failed = FailedNodes(Field(answer, "FailedNodes"));
  result->failed_and_unresolvable = FailedNodes(Field(answer, "FailedAndUnresolvableNodes"));
  return Status::OK();
}

Status HttpExtender::Prioritize(const api::Pod& pod, std::span<framework::NodeInfo* const> nodes,
                                std::vector<std::pair<std::string, int64_t>>* scores,
                                int64_t* weight) {
  return Counted(&stats_.prioritize, PrioritizeCall(pod, nodes, scores, weight));
}

Status HttpExtender::PrioritizeCall(const api::Pod& pod,
                                    std::span<framework::NodeInfo* const> nodes,
                                    std::vector<std::pair<std::string, int64_t>>* scores,
                                    int64_t* weight) {
  *weight = 0;
  if (!IsPrioritizer()) {
    for (const framework::NodeInfo* n : nodes) scores->emplace_back(n->name().string(), 0);
    return Status::OK();
  }
  json answer;
  if (Status s = Send(config_.prioritize_verb, Args(pod, nodes), &answer, &stats_.prioritize);
      !s.IsSuccess()) {
    return s;
  }
  if (!answer.is_array() && !answer.is_null()) {
    return Status::Error(fmt::format("extender {}: the answer to {} is not a HostPriorityList",
                                     url_, config_.prioritize_verb));
  }
  for (const json& entry : answer.is_array() ? answer : json::array()) {
    const json* host = entry.is_object() ? Field(entry, "Host") : nullptr;
    const json* score = entry.is_object() ? Field(entry, "Score") : nullptr;
    // What Go's decoder refuses fails the call (and the extender gives no scores).
    if (!entry.is_object() || (Present(host) && !host->is_string()) ||
        (Present(score) && !score->is_number_integer())) {
      return Status::Error(fmt::format("extender {}: the answer to {} has a malformed HostPriority",
                                       url_, config_.prioritize_verb));
    }
    scores->emplace_back(Present(host) ? host->get<std::string>() : "",
                         Present(score) ? score->get<int64_t>() : 0);
  }
  *weight = config_.weight;
  return Status::OK();
}

Status HttpExtender::Bind(const api::Pod& pod, api::Symbol node) {
  return Counted(&stats_.bind, BindCall(pod, node));
}

Status HttpExtender::BindCall(const api::Pod& pod, api::Symbol node) {
  if (!IsBinder()) return Status::Error("unexpected empty bindVerb in extender");
  const json args = {{"PodName", pod.metadata.name},
                     {"PodNamespace", pod.metadata.namespace_.str()},
                     {"PodUID", pod.metadata.uid},
                     {"Node", node.str()}};
  json answer;
  if (Status s = Send(config_.bind_verb, Dump(args), &answer, &stats_.bind); !s.IsSuccess())
    return s;
  return ErrorIn(answer);
}

Status HttpExtender::ProcessPreemption(
    const api::Pod& pod, const framework::NodeToVictims& candidates,
    const std::function<const framework::NodeInfo*(std::string_view)>& node,
    framework::NodeToVictims* kept) {
  return Counted(&stats_.preempt, PreemptCall(pod, candidates, node, kept));
}

Status HttpExtender::PreemptCall(
    const api::Pod& pod, const framework::NodeToVictims& candidates,
    const std::function<const framework::NodeInfo*(std::string_view)>& node,
    framework::NodeToVictims* kept) {
  if (!SupportsPreemption()) {
    return Status::Error(
        fmt::format("preempt verb is not defined for extender {} but run into ProcessPreemption",
                    config_.url_prefix));
  }
  json victims = json::object();
  for (const auto& [name, v] : candidates) {
    json pods = json::array();
    for (const api::Pod* p : v.pods) {
      pods.push_back(config_.node_cache_capable ? json{{"UID", p->metadata.uid}} : EncodePod(*p));
    }
    victims[name] = {{"Pods", std::move(pods)}, {"NumPDBViolations", v.num_pdb_violations}};
  }
  // Only the map nodeCacheCapable calls for is set; the other is null.
  json args = {
      {"Pod", EncodePod(pod)}, {"NodeNameToVictims", nullptr}, {"NodeNameToMetaVictims", nullptr}};
  args[config_.node_cache_capable ? "NodeNameToMetaVictims" : "NodeNameToVictims"] =
      std::move(victims);
  json answer;
  if (Status s = Send(config_.preempt_verb, Dump(args), &answer, &stats_.preempt); !s.IsSuccess()) {
    return s;
  }
  // It always answers with UIDs, found again among each node's pods.
  const json* meta = Field(answer, "NodeNameToMetaVictims");
  if (!Present(meta) || !meta->is_object()) return Status::OK();
  for (auto it = meta->begin(); it != meta->end(); ++it) {
    const framework::NodeInfo* info = node(it.key());
    if (info == nullptr) {
      return Status::Error(fmt::format("nodeinfo not found for node name \"{}\"", it.key()));
    }
    framework::ExtenderVictims& out = (*kept)[it.key()];
    if (const json* n = Field(*it, "NumPDBViolations"); Present(n) && n->is_number_integer()) {
      out.num_pdb_violations = n->get<int64_t>();
    }
    const json* pods = Field(*it, "Pods");
    for (const json& p : Present(pods) && pods->is_array() ? *pods : json::array()) {
      const json* uid = Field(p, "UID");
      const std::string want = Present(uid) && uid->is_string() ? uid->get<std::string>() : "";
      const api::Pod* found = nullptr;
      for (const framework::PodInfoPtr& on_node : info->pods()) {
        if (on_node->pod.metadata.uid == want) found = &on_node->pod;
      }
      if (found == nullptr) {
        return Status::Error(fmt::format(
            "extender: {} claims to preempt pod (UID: {}) on node: {}, but the pod is not found "
            "on that node",
            config_.url_prefix, want, it.key()));
      }
      out.pods.push_back(found);
    }
  }
  return Status::OK();
}

std::vector<std::shared_ptr<framework::Extender>> NewHttpExtenders(
    const std::vector<api::ExtenderConfig>& configs) {
  std::vector<std::shared_ptr<framework::Extender>> out;
  for (const api::ExtenderConfig& c : configs) out.push_back(std::make_shared<HttpExtender>(c));
  return out;
}

}  // namespace muster::cluster::kube
