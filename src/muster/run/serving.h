#pragma once

// What `muster run` serves, as kube-scheduler serves it: /healthz, /livez, /readyz and /metrics
// over HTTPS on --secure-port (10259), with a self-signed certificate unless one is given;
// authentication delegated to the API server (TokenReview) and authorization too
// (SubjectAccessReview: the verb on the non-resource path, `get /metrics`), except for the
// paths always allowed (the health checks, which probes reach without credentials). A
// plain-HTTP listener (--metrics-bind-address) only when asked for, without authentication.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "muster/cluster/kube/http.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace muster::run {

struct ServingOptions {
  int secure_port = 10259;  // 0: no HTTPS listener
  std::string bind_address = "0.0.0.0";
  std::string tls_cert_file;  // with tls_private_key_file; empty: self-signed
  std::string tls_private_key_file;
  std::vector<std::string> always_allow_paths = {"/healthz", "/readyz", "/livez"};
  std::string insecure_address;  // --metrics-bind-address: plain HTTP, no authentication
};

// Who a bearer token is, by the API server's TokenReview.
struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

// Delegated authentication and authorization, each answer cached for ten seconds as
// kube-scheduler's delegating authenticator and authorizer cache theirs.
class DelegatedAuth {
 public:
  // `authn` asks TokenReviews, `authz` SubjectAccessReviews (the same client, or the ones of
  // --authentication-kubeconfig and --authorization-kubeconfig).
  DelegatedAuth(cluster::kube::Http& authn, cluster::kube::Http& authz);

  enum class Verdict { kAllowed, kUnauthenticated, kForbidden, kError };
  struct Decision {
    Verdict verdict = Verdict::kError;
    std::string message;  // for the response: who may not do what, or what failed
  };
  // The request's Authorization header (empty when none), its verb and path.
  Decision Check(const std::string& authorization, const std::string& verb,
                 const std::string& path);

 private:
  std::optional<UserInfo> Authenticate(const std::string& token, std::string* error);
  std::optional<bool> Authorize(const UserInfo& user, const std::string& verb,
                                const std::string& path, std::string* error);

  cluster::kube::Http& authn_;
  cluster::kube::Http& authz_;
  using Clock = std::chrono::steady_clock;
  std::mutex mu_;
  std::map<std::string, std::pair<Clock::time_point, std::optional<UserInfo>>> tokens_;
  std::map<std::string, std::pair<Clock::time_point, bool>> decisions_;
};

// The handlers, on one or two listeners, each on its own thread.
class Serving {
 public:
  // `ready` for /readyz, `metrics` renders /metrics; `auth` may be nullptr only when the
  // secure port is off.
  Serving(const std::atomic<bool>& ready, std::function<std::string()> metrics,
          DelegatedAuth* auth);
  ~Serving();

  // Starts the listeners the options ask for; false with *error (naming the flag) when one
  // cannot: a certificate that does not load, an address that cannot be listened on.
  bool Start(const ServingOptions& options, std::string* error);
  void Stop();

 private:
  void Routes(httplib::Server& server);
  void Listen(httplib::Server& server);

  const std::atomic<bool>& ready_;
  std::function<std::string()> metrics_;
  DelegatedAuth* auth_;
  std::vector<std::unique_ptr<httplib::Server>> servers_;
  std::vector<std::thread> threads_;
};

}  // namespace muster::run
