#include "muster/api/scheduler_config.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "muster/api/base64.h"
#include "muster/api/decoder.h"
#include "muster/api/kinds.h"
#include "muster/api/labels.h"
#include "muster/api/resources.h"

namespace muster::api {

std::vector<std::pair<std::string, std::string>> LeaderElectionProblems(
    const LeaderElectionConfig& l) {
  std::vector<std::pair<std::string, std::string>> problems;
  auto invalid = [&](std::string field, Duration value, std::string_view why) {
    problems.emplace_back(std::move(field),
                          fmt::format("Invalid value: \"{}\": {}", FormatDuration(value), why));
  };
  if (l.lease_duration <= Duration::zero()) {
    invalid("leaseDuration", l.lease_duration, "must be greater than zero");
  }
  if (l.renew_deadline <= Duration::zero()) {
    invalid("renewDeadline", l.renew_deadline, "must be greater than zero");
  }
  if (l.retry_period <= Duration::zero()) {
    invalid("retryPeriod", l.retry_period, "must be greater than zero");
  }
  if (l.lease_duration <= l.renew_deadline) {
    invalid("leaseDuration", l.renew_deadline, "LeaseDuration must be greater than RenewDeadline");
  }
  if (l.retry_period > Duration::zero() && l.renew_deadline * 5 <= l.retry_period * 6) {
    invalid("renewDeadline", l.renew_deadline,
            "renewDeadline must be greater than retryPeriod*JitterFactor (1.2)");
  }
  for (const auto& [field, value] :
       {std::pair<std::string, const std::string*>{"resourceLock", &l.resource_lock},
        {"resourceNamespace", &l.resource_namespace},
        {"resourceName", &l.resource_name}}) {
    if (value->empty()) {
      problems.emplace_back(field, fmt::format("Invalid value: \"\": {} is required", field));
    }
  }
  if (!l.resource_lock.empty() && l.resource_lock != "leases") {
    // The other locks (endpoints, configmaps and their *leases pairs) are gone from client-go.
    problems.emplace_back(
        "resourceLock",
        fmt::format("Unsupported value: \"{}\": supported values: \"leases\"", l.resource_lock));
  }
  return problems;
}

namespace decoding {
namespace {

// ---- KubeSchedulerConfiguration (strict) ----

PluginSet ReadPluginSet(Decoder& d, const YAML::Node& n, const std::string& path) {
  PluginSet set;
  Map m(d, n, path, Fields::kStrict);
  auto read = [&](std::string_view field, std::vector<PluginRef>& out) {
    ReadList(d, m.Get(field), m.Path(field), [&](const YAML::Node& item, const std::string& p) {
      Map pm(d, item, p, Fields::kStrict);
      PluginRef ref;
      ref.name = ReadString(d, pm.Get("name"), pm.Path("name")).value_or("");
      if (ref.name.empty()) d.Error(pm.Path("name"), "Required value");
      if (auto w = ReadInt(d, pm.Get("weight"), pm.Path("weight"))) {
        ref.weight = static_cast<int32_t>(*w);
      }
      out.push_back(std::move(ref));
    });
  };
  read("enabled", set.enabled);
  read("disabled", set.disabled);
  return set;
}

Plugins ReadPlugins(Decoder& d, const YAML::Node& n, const std::string& path) {
  Plugins plugins;
  Map m(d, n, path, Fields::kStrict);
  const std::pair<std::string_view, PluginSet*> points[] = {{"preEnqueue", &plugins.pre_enqueue},
                                                            {"queueSort", &plugins.queue_sort},
                                                            {"preFilter", &plugins.pre_filter},
                                                            {"filter", &plugins.filter},
                                                            {"postFilter", &plugins.post_filter},
                                                            {"preScore", &plugins.pre_score},
                                                            {"score", &plugins.score},
                                                            {"reserve", &plugins.reserve},
                                                            {"permit", &plugins.permit},
                                                            {"preBind", &plugins.pre_bind},
                                                            {"bind", &plugins.bind},
                                                            {"postBind", &plugins.post_bind},
                                                            {"multiPoint", &plugins.multi_point}};
  for (const auto& [field, set] : points) *set = ReadPluginSet(d, m.Get(field), m.Path(field));
  return plugins;
}

std::optional<int32_t> ReadPercentage(Decoder& d, Map& m, std::string_view field) {
  auto v = ReadInt(d, m.Get(field), m.Path(field));
  if (!v) return std::nullopt;
  if (*v < 0 || *v > 100) {
    d.Error(m.Path(field), fmt::format("Invalid value: {}: not in valid range [0-100]", *v));
  }
  return static_cast<int32_t>(*v);
}

void ValidateLeaderElection(Decoder& d, Map& le, const LeaderElectionConfig& l) {
  for (const auto& [field, why] : LeaderElectionProblems(l)) d.Error(le.Path(field), why);
}

// The []byte fields of a tlsConfig: base64 in the file, as encoding/json writes them.
std::string ReadBytes(Decoder& d, const YAML::Node& n, const std::string& path) {
  const std::optional<std::string> text = ReadString(d, n, path);
  if (!text) return "";
  std::optional<std::string> bytes = Base64Decode(*text);
  if (!bytes) d.Error(path, "illegal base64 data");
  return bytes.value_or("");
}

ExtenderConfig ReadExtender(Decoder& d, const YAML::Node& item, const std::string& p) {
  Map em(d, item, p, Fields::kStrict);
  ExtenderConfig e;
  auto string = [&](std::string_view field) {
    return ReadString(d, em.Get(field), em.Path(field)).value_or("");
  };
  e.url_prefix = string("urlPrefix");
  e.filter_verb = string("filterVerb");
  e.preempt_verb = string("preemptVerb");
  e.prioritize_verb = string("prioritizeVerb");
  e.bind_verb = string("bindVerb");
  e.weight = ReadInt(d, em.Get("weight"), em.Path("weight"), INT64_MIN, INT64_MAX).value_or(0);
  e.enable_https = ReadBool(d, em.Get("enableHTTPS"), em.Path("enableHTTPS")).value_or(false);
  if (Present(em.Get("tlsConfig"))) {
    Map tm(d, em.Get("tlsConfig"), em.Path("tlsConfig"), Fields::kStrict);
    ExtenderTLSConfig& t = e.tls_config.emplace();
    t.insecure = ReadBool(d, tm.Get("insecure"), tm.Path("insecure")).value_or(false);
    t.server_name = ReadString(d, tm.Get("serverName"), tm.Path("serverName")).value_or("");
    t.cert_file = ReadString(d, tm.Get("certFile"), tm.Path("certFile")).value_or("");
    t.key_file = ReadString(d, tm.Get("keyFile"), tm.Path("keyFile")).value_or("");
    t.ca_file = ReadString(d, tm.Get("caFile"), tm.Path("caFile")).value_or("");
    t.cert_data = ReadBytes(d, tm.Get("certData"), tm.Path("certData"));
    t.key_data = ReadBytes(d, tm.Get("keyData"), tm.Path("keyData"));
    t.ca_data = ReadBytes(d, tm.Get("caData"), tm.Path("caData"));
  }
  // Zero (or absent) is upstream's 5s default.
  if (auto timeout = ReadDuration(d, em.Get("httpTimeout"), em.Path("httpTimeout"));
      timeout && *timeout != Duration::zero()) {
    e.http_timeout = *timeout;
  }
  e.node_cache_capable =
      ReadBool(d, em.Get("nodeCacheCapable"), em.Path("nodeCacheCapable")).value_or(false);
  e.ignorable = ReadBool(d, em.Get("ignorable"), em.Path("ignorable")).value_or(false);
  ReadList(d, em.Get("managedResources"), em.Path("managedResources"),
           [&](const YAML::Node& r, const std::string& rp) {
             Map rm(d, r, rp, Fields::kStrict);
             ExtenderConfig::ManagedResource resource;
             resource.name = ReadString(d, rm.Get("name"), rm.Path("name")).value_or("");
             resource.ignored_by_scheduler =
                 ReadBool(d, rm.Get("ignoredByScheduler"), rm.Path("ignoredByScheduler"))
                     .value_or(false);
             e.managed_resources.push_back(std::move(resource));
           });
  if (e.url_prefix.empty()) d.Error(em.Path("urlPrefix"), "Required value");
  return e;
}

// Upstream's validateExtenders: a positive weight where prioritize is set, managed resources
// that are valid extended resource names and unique across all extenders, at most one binder.
void ValidateExtenders(Decoder& d, const std::vector<ExtenderConfig>& extenders) {
  int binders = 0;
  std::set<std::string> managed;
  for (size_t i = 0; i < extenders.size(); ++i) {
    const ExtenderConfig& e = extenders[i];
    const std::string path = IndexPath("extenders", i);
    if (!e.prioritize_verb.empty() && e.weight <= 0) {
      d.Error(
          ChildPath(path, "weight"),
          fmt::format("Invalid value: {}: must have a positive weight applied to it", e.weight));
    }
    if (!e.bind_verb.empty()) ++binders;
    for (size_t j = 0; j < e.managed_resources.size(); ++j) {
      const std::string& name = e.managed_resources[j].name;
      const std::string field =
          ChildPath(IndexPath(ChildPath(path, "managedResources"), j), "name");
      for (const std::string& why : LabelKeyErrors(name)) {
        d.Error(field, FieldError::Invalid("", name, why).message);
      }
      if (!IsExtendedResourceName(name)) {
        d.Error(field,
                FieldError::Invalid("", name, "is an invalid extended resource name").message);
      }
      if (!managed.insert(name).second) {
        d.Error(field,
                FieldError::Invalid("", name, "duplicate extender managed resource name").message);
      }
    }
  }
  if (binders > 1) {
    d.Error("extenders",
            FieldError::Invalid("", fmt::format("found {} extenders implementing bind", binders),
                                "only one extender can implement bind")
                .message);
  }
}

// Upstream's buildExtenders: the resources an extender manages with ignoredByScheduler become
// NodeResourcesFit's ignoredResources in every profile (replacing the profile's own), so that
// the scheduler leaves them to the extender.
void IgnoreExtenderResources(SchedulerConfiguration& c) {
  YAML::Node ignored(YAML::NodeType::Sequence);
  for (const ExtenderConfig& e : c.extenders) {
    for (const ExtenderConfig::ManagedResource& r : e.managed_resources) {
      if (r.ignored_by_scheduler) ignored.push_back(r.name);
    }
  }
  if (ignored.size() == 0) return;
  if (c.profiles.empty()) c.profiles.emplace_back();  // the default profile, made explicit
  for (SchedulerProfile& profile : c.profiles) {
    auto it = std::find_if(profile.plugin_config.begin(), profile.plugin_config.end(),
                           [](const PluginConfig& pc) { return pc.name == "NodeResourcesFit"; });
    if (it == profile.plugin_config.end()) {
      PluginConfig pc;
      pc.name = "NodeResourcesFit";
      pc.error_prefix = fmt::format("{} (KubeSchedulerConfiguration): extenders", c.source);
      it = profile.plugin_config.insert(profile.plugin_config.end(), std::move(pc));
    }
    // A copy: the document's own args stay as they were read.
    YAML::Node args =
        it->args && it->args.IsMap() ? YAML::Clone(it->args) : YAML::Node(YAML::NodeType::Map);
    args["ignoredResources"] = YAML::Clone(ignored);
    it->args = args;
  }
}

}  // namespace

SchedulerConfiguration ReadSchedulerConfig(Decoder& d, Map& m, const std::string& api_version) {
  SchedulerConfiguration c;
  c.api_version = api_version;
  c.source = d.source().ToString();
  if (auto p = ReadInt(d, m.Get("parallelism"), "parallelism")) {
    if (*p <= 0)
      d.Error("parallelism",
              fmt::format("Invalid value: {}: should be an integer value greater than zero", *p));
    c.parallelism = static_cast<int32_t>(*p);
  }
  {
    Map le(d, m.Get("leaderElection"), "leaderElection", Fields::kStrict);
    auto& l = c.leader_election;
    l.leader_elect = ReadBool(d, le.Get("leaderElect"), le.Path("leaderElect")).value_or(true);
    l.lease_duration = ReadDuration(d, le.Get("leaseDuration"), le.Path("leaseDuration"))
                           .value_or(l.lease_duration);
    l.renew_deadline = ReadDuration(d, le.Get("renewDeadline"), le.Path("renewDeadline"))
                           .value_or(l.renew_deadline);
    l.retry_period =
        ReadDuration(d, le.Get("retryPeriod"), le.Path("retryPeriod")).value_or(l.retry_period);
    l.resource_lock =
        ReadString(d, le.Get("resourceLock"), le.Path("resourceLock")).value_or(l.resource_lock);
    l.resource_name =
        ReadString(d, le.Get("resourceName"), le.Path("resourceName")).value_or(l.resource_name);
    l.resource_namespace = ReadString(d, le.Get("resourceNamespace"), le.Path("resourceNamespace"))
                               .value_or(l.resource_namespace);
    if (l.leader_elect) ValidateLeaderElection(d, le, l);
  }
  {
    Map cc(d, m.Get("clientConnection"), "clientConnection", Fields::kStrict);
    auto& cl = c.client_connection;
    cl.kubeconfig = ReadString(d, cc.Get("kubeconfig"), cc.Path("kubeconfig")).value_or("");
    cl.accept_content_types =
        ReadString(d, cc.Get("acceptContentTypes"), cc.Path("acceptContentTypes")).value_or("");
    cl.content_type =
        ReadString(d, cc.Get("contentType"), cc.Path("contentType")).value_or(cl.content_type);
    cl.qps = ReadNumber(d, cc.Get("qps"), cc.Path("qps")).value_or(cl.qps);
    cl.burst =
        static_cast<int32_t>(ReadInt(d, cc.Get("burst"), cc.Path("burst")).value_or(cl.burst));
  }
  c.percentage_of_nodes_to_score = ReadPercentage(d, m, "percentageOfNodesToScore");
  if (auto v = ReadInt(d, m.Get("podInitialBackoffSeconds"), "podInitialBackoffSeconds", INT64_MIN,
                       INT64_MAX)) {
    if (*v <= 0)
      d.Error("podInitialBackoffSeconds",
              fmt::format("Invalid value: {}: must be greater than 0", *v));
    c.pod_initial_backoff_seconds = *v;
  }
  if (auto v =
          ReadInt(d, m.Get("podMaxBackoffSeconds"), "podMaxBackoffSeconds", INT64_MIN, INT64_MAX)) {
    c.pod_max_backoff_seconds = *v;
  }
  if (c.pod_max_backoff_seconds < c.pod_initial_backoff_seconds) {
    d.Error("podMaxBackoffSeconds",
            fmt::format("Invalid value: {}: must be greater than or equal to "
                        "PodInitialBackoffSeconds",
                        c.pod_max_backoff_seconds));
  }
  c.enable_profiling =
      ReadBool(d, m.Get("enableProfiling"), "enableProfiling").value_or(c.enable_profiling);
  c.enable_contention_profiling =
      ReadBool(d, m.Get("enableContentionProfiling"), "enableContentionProfiling")
          .value_or(c.enable_contention_profiling);
  c.delay_cache_until_active =
      ReadBool(d, m.Get("delayCacheUntilActive"), "delayCacheUntilActive").value_or(false);
  // Fields of the older versions that v1 dropped; accepted where their version has them.
  if (api_version != "kubescheduler.config.k8s.io/v1") {
    ReadString(d, m.Get("healthzBindAddress"), "healthzBindAddress");
    ReadString(d, m.Get("metricsBindAddress"), "metricsBindAddress");
  }
  std::set<std::string> scheduler_names;
  ReadList(d, m.Get("profiles"), "profiles", [&](const YAML::Node& item, const std::string& p) {
    Map pm(d, item, p, Fields::kStrict);
    SchedulerProfile profile;
    if (auto name = ReadString(d, pm.Get("schedulerName"), pm.Path("schedulerName"))) {
      profile.scheduler_name = *name;
    }
    if (profile.scheduler_name.empty()) d.Error(pm.Path("schedulerName"), "Required value");
    if (!scheduler_names.insert(profile.scheduler_name).second) {
      d.Error(pm.Path("schedulerName"),
              fmt::format("Duplicate value: \"{}\"", profile.scheduler_name));
    }
    profile.percentage_of_nodes_to_score = ReadPercentage(d, pm, "percentageOfNodesToScore");
    if (YAML::Node plugins = pm.Get("plugins"); Present(plugins)) {
      profile.plugins = ReadPlugins(d, plugins, pm.Path("plugins"));
    }
    std::set<std::string> configured;
    ReadList(d, pm.Get("pluginConfig"), pm.Path("pluginConfig"),
             [&](const YAML::Node& cfg, const std::string& cp) {
               Map cm(d, cfg, cp, Fields::kStrict);
               PluginConfig pc;
               pc.name = ReadString(d, cm.Get("name"), cm.Path("name")).value_or("");
               if (pc.name.empty()) d.Error(cm.Path("name"), "Required value");
               if (!configured.insert(pc.name).second) {
                 d.Error(cm.Path("name"), fmt::format("Duplicate value: \"{}\"", pc.name));
               }
               pc.args = cm.Get("args");
               pc.error_prefix = fmt::format("{}: {}", d.Context(), cm.Path("args"));
               profile.plugin_config.push_back(std::move(pc));
             });
    c.profiles.push_back(std::move(profile));
  });
  ReadList(d, m.Get("extenders"), "extenders", [&](const YAML::Node& item, const std::string& p) {
    c.extenders.push_back(ReadExtender(d, item, p));
  });
  ValidateExtenders(d, c.extenders);
  IgnoreExtenderResources(c);
  return c;
}

}  // namespace decoding
}  // namespace muster::api
