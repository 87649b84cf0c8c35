#pragma once

// Where the API server is and who muster is to it: kubeconfig resolved as kubectl resolves it,
// or the in-cluster service account.

#include <optional>
#include <string>
#include <vector>

namespace muster::cluster::kube {

struct RestConfig {
  std::string server;  // https://host:port, without a trailing slash
  // TLS: the server's CA (a file or PEM data), the client certificate and key (files or data).
  std::string ca_file, ca_data;
  std::string cert_file, cert_data, key_file, key_data;
  bool insecure_skip_tls_verify = false;
  // The name the server's certificate is checked against (and sent as SNI) when it is not the
  // server's host: kubeconfig's tls-server-name, an extender's tlsConfig.serverName.
  std::string tls_server_name;
  // A bearer token, or a file holding one (re-read when it rotates).
  std::string token, token_file;
  double qps = 50;
  int burst = 100;
  // Where it came from, for messages: "kubeconfig /root/.kube/config, context kind-kind".
  std::string source;
  // Warnings to log once (insecure-skip-tls-verify).
  std::vector<std::string> warnings;
};

struct RestConfigOptions {
  std::string kubeconfig;  // --kubeconfig, else clientConnection.kubeconfig
  std::string context;     // --context
  // Read from the environment unless set (tests set them).
  std::optional<std::string> kubeconfig_env;  // KUBECONFIG
  std::optional<std::string> home;            // HOME
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  std::optional<std::string> service_host, service_port;  // KUBERNETES_SERVICE_HOST/_PORT
};

// Resolves the configuration: --kubeconfig, then KUBECONFIG (files separated by ':', merged
// as kubectl merges them: the first file to set a map entry or the current context wins), then
// ~/.kube/config, then the in-cluster service account. nullopt with *error set (one line naming
// the file and the entry) when none works or an entry cannot be used.
std::optional<RestConfig> LoadRestConfig(const RestConfigOptions& options, std::string* error);

}  // namespace muster::cluster::kube
