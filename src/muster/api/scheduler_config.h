#pragma once

// KubeSchedulerConfiguration (kubescheduler.config.k8s.io v1, v1beta3, v1beta2) as decoded from a
// file, with upstream's defaults for the top-level fields. Plugin args stay undecoded YAML here:
// each plugin decodes and validates its own (the scheduler layer does that when it builds a
// profile).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "muster/api/time.h"

namespace muster::api {

inline constexpr std::string_view kSchedulerConfigGroup = "kubescheduler.config.k8s.io";

struct PluginRef {
  std::string name;
  std::optional<int32_t> weight;  // score plugins only
};

struct PluginSet {
  std::vector<PluginRef> enabled;
  std::vector<PluginRef> disabled;
};

struct Plugins {
  PluginSet pre_enqueue, queue_sort, pre_filter, filter, post_filter, pre_score, score, reserve,
      permit, pre_bind, bind, post_bind, multi_point;
};

struct PluginConfig {
  std::string name;
  YAML::Node args;           // null when absent
  std::string error_prefix;  // "file: document N (KubeSchedulerConfiguration):
                             // profiles[0].pluginConfig[1].args"
};

struct SchedulerProfile {
  std::string scheduler_name = "default-scheduler";
  std::optional<int32_t> percentage_of_nodes_to_score;
  std::optional<Plugins> plugins;
  std::vector<PluginConfig> plugin_config;
};

struct LeaderElectionConfig {
  bool leader_elect = true;
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  std::string resource_lock = "leases";
  std::string resource_name = "kube-scheduler";
  std::string resource_namespace = "kube-system";
};

// What is wrong with a leader election configuration that is on, as component-base's
// ValidateLeaderElectionConfiguration and client-go's elector check it (leaseDuration >
// renewDeadline > retryPeriod * JitterFactor 1.2: a leader stops leading before its lease can
// expire, after retrying at least once): each problem as (field, message), the field as the
// configuration names it ("leaseDuration"). Empty when it is valid.
std::vector<std::pair<std::string, std::string>> LeaderElectionProblems(
    const LeaderElectionConfig& l);

struct ClientConnectionConfig {
  std::string kubeconfig;
  std::string accept_content_types;
  std::string content_type = "application/vnd.kubernetes.protobuf";
  double qps = 50;
  int32_t burst = 100;
};

// An extender's TLS client settings (upstream ExtenderTLSConfig): the server's CA, a client
// certificate and key, each a file or PEM data (`*Data`, base64 in the file, decoded here), the
// name the server's certificate must carry, and `insecure` to skip verifying it.
struct ExtenderTLSConfig {
  bool insecure = false;
  std::string server_name;
  std::string cert_file, key_file, ca_file;
  std::string cert_data, key_data, ca_data;
};

// A scheduler extender (upstream Extender): a webhook called at `urlPrefix` + "/" + verb.
inline constexpr Duration kDefaultExtenderTimeout = std::chrono::seconds(5);
struct ExtenderConfig {
  std::string url_prefix;
  std::string filter_verb, preempt_verb, prioritize_verb, bind_verb;
  int64_t weight = 0;
  bool enable_https = false;
  std::optional<ExtenderTLSConfig> tls_config;
  Duration http_timeout = kDefaultExtenderTimeout;
  bool node_cache_capable = false;
  bool ignorable = false;
  struct ManagedResource {
    std::string name;
    bool ignored_by_scheduler = false;
  };
  std::vector<ManagedResource> managed_resources;
};

struct SchedulerConfiguration {
  std::string api_version;
  std::string source;  // "file: document N", for messages
  int32_t parallelism = 16;
  LeaderElectionConfig leader_election;
  ClientConnectionConfig client_connection;
  std::optional<int32_t> percentage_of_nodes_to_score;
  int64_t pod_initial_backoff_seconds = 1;
  int64_t pod_max_backoff_seconds = 10;
  bool enable_profiling = true;
  bool enable_contention_profiling = true;
  bool delay_cache_until_active = false;
  std::vector<SchedulerProfile> profiles;  // empty: one default profile
  std::vector<ExtenderConfig> extenders;
};

}  // namespace muster::api
