#include "muster/cluster/kube/rest_config.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/base64.h"

namespace muster::cluster::kube {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> Env(const std::optional<std::string>& override_value, const char* name) {
  if (override_value) return override_value;
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

// One kubeconfig file's named entries, with the folder its relative paths start from.
struct Entry {
  YAML::Node node;
  fs::path dir;
  std::string file;
};

struct Merged {
  std::map<std::string, Entry> clusters, users, contexts;
  std::string current_context;
  std::string files;  // for messages
};

// Adds `file`'s entries that earlier files did not set (kubectl's merge rule).
bool MergeFile(const fs::path& file, Merged& merged, std::string* error) {
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    *error = fmt::format("kubeconfig {}: cannot read the file", file.string());
    return false;
  } catch (const YAML::Exception& e) {
    *error = fmt::format("kubeconfig {}: line {}, column {}: invalid YAML: {}", file.string(),
                         e.mark.line + 1, e.mark.column + 1, e.msg);
    return false;
  }
  if (!doc.IsMap() && !doc.IsNull()) {
    *error = fmt::format("kubeconfig {}: expected a Config object", file.string());
    return false;
  }
  merged.files += (merged.files.empty() ? "" : ":") + file.string();
  const fs::path dir = fs::absolute(file).parent_path();
  auto take = [&](const char* list, const char* inner, std::map<std::string, Entry>& into) {
    const YAML::Node items = doc[list];
    if (!items || !items.IsSequence()) return true;
    for (size_t i = 0; i < items.size(); ++i) {
      const YAML::Node item = items[i];
      if (!item.IsMap() || !item["name"] || !item["name"].IsScalar()) {
        *error = fmt::format("kubeconfig {}: {}[{}].name: Required value", file.string(), list, i);
        return false;
      }
      into.emplace(item["name"].Scalar(), Entry{item[inner], dir, file.string()});
    }
    return true;
  };
  if (!take("clusters", "cluster", merged.clusters) || !take("users", "user", merged.users) ||
      !take("contexts", "context", merged.contexts)) {
    return false;
  }
  if (merged.current_context.empty() && doc["current-context"] &&
      doc["current-context"].IsScalar()) {
    merged.current_context = doc["current-context"].Scalar();
  }
  return true;
}

std::string Field(const YAML::Node& n, const char* key) {
  if (!n || !n.IsMap() || !n[key] || !n[key].IsScalar()) return "";
  return n[key].Scalar();
}

std::string Resolve(const Entry& e, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (e.dir / path).string();
}

bool Data(const Entry& e, const char* key, const std::string& what, std::string* out,
          std::string* error) {
  const std::string text = Field(e.node, key);
  if (text.empty()) return true;
  auto decoded = api::Base64Decode(text);
  if (!decoded) {
    *error = fmt::format("kubeconfig {}: {} {}: {} is not valid base64", e.file, what, key, key);
    return false;
  }
  *out = std::move(*decoded);
  return true;
}

std::optional<RestConfig> FromKubeconfig(const Merged& m, const std::string& context_flag,
                                         std::string* error) {
  const std::string context_name = context_flag.empty() ? m.current_context : context_flag;
  if (context_name.empty()) {
    *error =
        fmt::format("kubeconfig {}: no current-context is set and no --context was given", m.files);
    return std::nullopt;
  }
  auto ctx = m.contexts.find(context_name);
  if (ctx == m.contexts.end()) {
    *error = fmt::format("kubeconfig {}: context \"{}\" does not exist", m.files, context_name);
    return std::nullopt;
  }
  const std::string cluster_name = Field(ctx->second.node, "cluster");
  const std::string user_name = Field(ctx->second.node, "user");
  auto cluster = m.clusters.find(cluster_name);
  if (cluster == m.clusters.end()) {
    *error = fmt::format("kubeconfig {}: context \"{}\" names cluster \"{}\", which does not exist",
                         m.files, context_name, cluster_name);
    return std::nullopt;
  }
  RestConfig c;
  c.source = fmt::format("kubeconfig {}, context {}", m.files, context_name);
  const Entry& cl = cluster->second;
  c.server = Field(cl.node, "server");
  while (!c.server.empty() && c.server.back() == '/') c.server.pop_back();
  if (c.server.empty()) {
    *error = fmt::format("kubeconfig {}: cluster \"{}\" has no server", cl.file, cluster_name);
    return std::nullopt;
  }
  if (!c.server.starts_with("https://") && !c.server.starts_with("http://")) {
    c.server = "https://" + c.server;
  }
  c.ca_file = Resolve(cl, Field(cl.node, "certificate-authority"));
  if (!Data(cl, "certificate-authority-data", "cluster " + cluster_name, &c.ca_data, error)) {
    return std::nullopt;
  }
  c.insecure_skip_tls_verify = Field(cl.node, "insecure-skip-tls-verify") == "true";
  c.tls_server_name = Field(cl.node, "tls-server-name");
  if (c.insecure_skip_tls_verify) {
    c.warnings.push_back(fmt::format(
        "cluster \"{}\" sets insecure-skip-tls-verify: the server's certificate is not checked",
        cluster_name));
  }
  if (!user_name.empty()) {
    auto user = m.users.find(user_name);
    if (user == m.users.end()) {
      *error = fmt::format("kubeconfig {}: context \"{}\" names user \"{}\", which does not exist",
                           m.files, context_name, user_name);
      return std::nullopt;
    }
    const Entry& u = user->second;
    for (const char* unsupported : {"exec", "auth-provider"}) {
      if (u.node && u.node.IsMap() && u.node[unsupported]) {
        *error = fmt::format(
            "kubeconfig {}: user \"{}\": {} credentials are not supported by muster; use a "
            "token, a token file or a client certificate",
            u.file, user_name, unsupported);
        return std::nullopt;
      }
    }
    c.token = Field(u.node, "token");
    c.token_file = Resolve(u, Field(u.node, "tokenFile"));
    c.cert_file = Resolve(u, Field(u.node, "client-certificate"));
    c.key_file = Resolve(u, Field(u.node, "client-key"));
    if (!Data(u, "client-certificate-data", "user " + user_name, &c.cert_data, error) ||
        !Data(u, "client-key-data", "user " + user_name, &c.key_data, error)) {
      return std::nullopt;
    }
    const bool has_cert = !c.cert_file.empty() || !c.cert_data.empty();
    const bool has_key = !c.key_file.empty() || !c.key_data.empty();
    if (has_cert != has_key) {
      *error = fmt::format("kubeconfig {}: user \"{}\" has a client {} without its {}", u.file,
                           user_name, has_cert ? "certificate" : "key",
                           has_cert ? "key" : "certificate");
      return std::nullopt;
    }
  }
  for (const std::string* f : {&c.ca_file, &c.cert_file, &c.key_file, &c.token_file}) {
    if (!f->empty() && !fs::exists(*f)) {
      *error = fmt::format("kubeconfig {}: file {} does not exist", m.files, *f);
      return std::nullopt;
    }
  }
  return c;
}

std::optional<RestConfig> InCluster(const RestConfigOptions& o, std::string* error) {
  const auto host = Env(o.service_host, "KUBERNETES_SERVICE_HOST");
  const auto port = Env(o.service_port, "KUBERNETES_SERVICE_PORT");
  const fs::path dir = o.service_account_dir;
  if (!host || !port || host->empty() || !fs::exists(dir / "token")) {
    *error =
        "no kubeconfig found (--kubeconfig, KUBECONFIG, ~/.kube/config) and not running in a "
        "cluster (KUBERNETES_SERVICE_HOST and the service account token are not there)";
    return std::nullopt;
  }
  RestConfig c;
  const bool v6 = host->find(':') != std::string::npos;
  c.server = fmt::format("https://{}{}{}:{}", v6 ? "[" : "", *host, v6 ? "]" : "", *port);
  c.token_file = (dir / "token").string();
  if (fs::exists(dir / "ca.crt")) c.ca_file = (dir / "ca.crt").string();
  c.source = fmt::format("in-cluster service account ({})", dir.string());
  return c;
}

}  // namespace

std::optional<RestConfig> LoadRestConfig(const RestConfigOptions& options, std::string* error) {
  Merged merged;
  if (!options.kubeconfig.empty()) {
    if (!fs::exists(options.kubeconfig)) {
      *error = fmt::format("kubeconfig {}: the file does not exist", options.kubeconfig);
      return std::nullopt;
    }
    if (!MergeFile(options.kubeconfig, merged, error)) return std::nullopt;
    return FromKubeconfig(merged, options.context, error);
  }
  if (auto env = Env(options.kubeconfig_env, "KUBECONFIG"); env && !env->empty()) {
    std::stringstream list(*env);
    std::string file;
    while (std::getline(list, file, ':')) {
      if (file.empty() || !fs::exists(file)) continue;  // kubectl skips missing files
      if (!MergeFile(file, merged, error)) return std::nullopt;
    }
    if (!merged.files.empty()) return FromKubeconfig(merged, options.context, error);
  }
  if (auto home = Env(options.home, "HOME"); home && !home->empty()) {
    const fs::path file = fs::path(*home) / ".kube" / "config";
    if (fs::exists(file)) {
      if (!MergeFile(file, merged, error)) return std::nullopt;
      return FromKubeconfig(merged, options.context, error);
    }
  }
  if (!options.context.empty()) {
    *error = fmt::format("--context {} given but no kubeconfig was found", options.context);
    return std::nullopt;
  }
  return InCluster(options, error);
}

}  // namespace muster::cluster::kube
