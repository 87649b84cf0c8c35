#include "muster/run/serving.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include "muster/framework/log.h"

namespace muster::run {
namespace {

using Json = nlohmann::json;

constexpr auto kCacheFor = std::chrono::seconds(10);
constexpr auto kReviewTimeout = std::chrono::seconds(5);

// A Status body, as the API server and kube-scheduler answer a refused request.
std::string StatusBody(int code, std::string_view reason, std::string_view message) {
  return Json({{"kind", "Status"},
               {"apiVersion", "v1"},
               {"metadata", Json::object()},
               {"status", "Failure"},
               {"message", message},
               {"reason", reason},
               {"details", Json::object()},
               {"code", code}})
      .dump();
}

// An in-memory self-signed certificate (RSA 2048, SHA-256, a year) for localhost, 127.0.0.1
// and the host name, as kube-scheduler generates one when given no --tls-cert-file.
struct SelfSigned {
  X509* cert = nullptr;
  EVP_PKEY* key = nullptr;
  ~SelfSigned() {
    X509_free(cert);
    EVP_PKEY_free(key);
  }
};

bool MakeSelfSigned(SelfSigned* out, std::string* error) {
  out->key = EVP_RSA_gen(2048);
  out->cert = X509_new();
  if (out->key == nullptr || out->cert == nullptr) {
    *error = "cannot generate a self-signed certificate (OpenSSL)";
    return false;
  }
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  const std::string cn = fmt::format("{}@{}", host, std::time(nullptr));
  X509_set_version(out->cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(out->cert), static_cast<long>(std::time(nullptr)));
  X509_gmtime_adj(X509_getm_notBefore(out->cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(out->cert), 365L * 24 * 3600);
  X509_set_pubkey(out->cert, out->key);
  X509_NAME* name = X509_get_subject_name(out->cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(out->cert, name);
  const std::string san = fmt::format("DNS:localhost,IP:127.0.0.1,DNS:{}", host);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, out->cert, out->cert, nullptr, nullptr, 0);
  for (const auto& [nid, value] : {std::pair<int, std::string>{NID_subject_alt_name, san},
                                   {NID_basic_constraints, "critical,CA:FALSE"},
                                   {NID_ext_key_usage, "serverAuth"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
    if (ext == nullptr) {
      *error = "cannot generate a self-signed certificate (an extension)";
      return false;
    }
    X509_add_ext(out->cert, ext, -1);
    X509_EXTENSION_free(ext);
  }
  if (X509_sign(out->cert, out->key, EVP_sha256()) == 0) {
    *error = "cannot sign the self-signed certificate";
    return false;
  }
  return true;
}

// "host:port", ":port" or "port" (--metrics-bind-address).
bool SplitHostPort(const std::string& address, std::string* host, int* port) {
  std::string p = address;
  *host = "0.0.0.0";
  if (const size_t colon = address.rfind(':'); colon != std::string::npos) {
    if (colon > 0) *host = address.substr(0, colon);
    p = address.substr(colon + 1);
  }
  if (host->size() > 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  try {
    size_t used = 0;
    *port = std::stoi(p, &used);
    return used == p.size() && *port > 0 && *port < 65536;
  } catch (...) {
    return false;
  }
}

}  // namespace

DelegatedAuth::DelegatedAuth(cluster::kube::Http& authn, cluster::kube::Http& authz)
    : authn_(authn), authz_(authz) {}

std::optional<UserInfo> DelegatedAuth::Authenticate(const std::string& token, std::string* error) {
  // Cached by the token's digest: the tokens themselves are not kept.
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
  const std::string key(reinterpret_cast<const char*>(digest), sizeof digest);
  {
    std::lock_guard lock(mu_);
    if (auto it = tokens_.find(key); it != tokens_.end() && it->second.first > Clock::now()) {
      return it->second.second;
    }
  }
  const Json review = {{"apiVersion", "authentication.k8s.io/v1"},
                       {"kind", "TokenReview"},
                       {"spec", {{"token", token}}}};
  const cluster::kube::Response r = authn_.Do("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                                              review.dump(), "application/json", kReviewTimeout);
  if (!r.ok()) {
    *error = "TokenReview: " + r.Describe();
    return std::nullopt;
  }
  std::optional<UserInfo> user;
  try {
    const Json body = Json::parse(r.body);
    const Json& status = body.at("status");
    if (status.value("authenticated", false)) {
      const Json& u = status.at("user");
      UserInfo info;
      info.name = u.value("username", "");
      info.uid = u.value("uid", "");
      if (u.contains("groups")) info.groups = u["groups"].get<std::vector<std::string>>();
      if (u.contains("extra")) {
        info.extra = u["extra"].get<std::map<std::string, std::vector<std::string>>>();
      }
      user = std::move(info);
    }
  } catch (const std::exception& e) {
    *error = fmt::format("TokenReview: the answer cannot be read: {}", e.what());
    return std::nullopt;
  }
  std::lock_guard lock(mu_);
  if (tokens_.size() > 4096) tokens_.clear();
  // A refusal is remembered as "nobody" (the empty name), an acceptance as the user.
  tokens_[key] = {Clock::now() + kCacheFor, user ? user : UserInfo{}};
  return user ? user : UserInfo{};
}

std::optional<bool> DelegatedAuth::Authorize(const UserInfo& user, const std::string& verb,
                                             const std::string& path, std::string* error) {
  Json spec = {{"user", user.name},
               {"groups", user.groups},
               {"nonResourceAttributes", {{"path", path}, {"verb", verb}}}};
  if (!user.uid.empty()) spec["uid"] = user.uid;
  if (!user.extra.empty()) spec["extra"] = user.extra;
  // The whole review is the key, as upstream's webhook authorizer caches: who (extra included)
  // and what.
  const std::string key = spec.dump();
  {
    std::lock_guard lock(mu_);
    if (auto it = decisions_.find(key); it != decisions_.end() && it->second.first > Clock::now()) {
      return it->second.second;
    }
  }
  const Json review = {
      {"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
  const cluster::kube::Response r =
      authz_.Do("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", review.dump(),
                "application/json", kReviewTimeout);
  if (!r.ok()) {
    *error = "SubjectAccessReview: " + r.Describe();
    return std::nullopt;
  }
  bool allowed = false;
  try {
    allowed = Json::parse(r.body).at("status").value("allowed", false);
  } catch (const std::exception& e) {
    *error = fmt::format("SubjectAccessReview: the answer cannot be read: {}", e.what());
    return std::nullopt;
  }
  std::lock_guard lock(mu_);
  if (decisions_.size() > 4096) decisions_.clear();
  decisions_[key] = {Clock::now() + kCacheFor, allowed};
  return allowed;
}

DelegatedAuth::Decision DelegatedAuth::Check(const std::string& authorization,
                                             const std::string& verb, const std::string& path) {
  // "Bearer <token>", the scheme in any case, as upstream's bearer token authenticator reads it.
  constexpr std::string_view kBearer = "bearer";
  std::istringstream fields(authorization);
  std::string scheme, token, more;
  fields >> scheme >> token;
  const bool bearer =
      scheme.size() == kBearer.size() &&
      std::equal(kBearer.begin(), kBearer.end(), scheme.begin(),
                 [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
  if (!bearer || token.empty() || (fields >> more)) {
    return {Verdict::kUnauthenticated, "Unauthorized"};
  }
  std::string error;
  const std::optional<UserInfo> user = Authenticate(token, &error);
  if (!user) return {Verdict::kError, error};
  if (user->name.empty()) return {Verdict::kUnauthenticated, "Unauthorized"};
  const std::optional<bool> allowed = Authorize(*user, verb, path, &error);
  if (!allowed) return {Verdict::kError, error};
  if (!*allowed) {
    return {Verdict::kForbidden,
            fmt::format("forbidden: User \"{}\" cannot {} path \"{}\"", user->name, verb, path)};
  }
  return {Verdict::kAllowed, ""};
}

Serving::Serving(const std::atomic<bool>& ready, std::function<std::string()> metrics,
                 DelegatedAuth* auth)
    : ready_(ready), metrics_(std::move(metrics)), auth_(auth) {}

Serving::~Serving() { Stop(); }

void Serving::Routes(httplib::Server& server) {
  for (const char* path : {"/healthz", "/livez"}) {
    server.Get(path, [](const httplib::Request&, httplib::Response& res) {
      res.set_content("ok", "text/plain");
    });
  }
  server.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    if (ready_.load()) {
      res.set_content("ok", "text/plain");
    } else {
      res.status = 503;
      res.set_content("not ready: informers not synced yet, or stopping", "text/plain");
    }
  });
  server.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics_(), "text/plain; version=0.0.4; charset=utf-8");
  });
}

namespace {

// Binds `server` as Go's net.Listen binds (what kube-scheduler does): SO_REUSEADDR, so that a
// restart finds its port free of the last run's TIME_WAIT, and not SO_REUSEPORT, httplib's
// default, with which a second instance binds the same port and the kernel shares the probes
// and scrapes between the two. False with *why ("address already in use") when it cannot.
bool BindExclusive(httplib::Server& server, const std::string& host, int port, std::string* why) {
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  errno = 0;
  if (server.bind_to_port(host.c_str(), port)) return true;
  *why = errno != 0 ? std::strerror(errno) : "cannot listen there";
  return false;
}

// host:port as Go writes a listen address ("[::1]:10259" for IPv6).
std::string ListenAddress(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port)
                                             : fmt::format("{}:{}", host, port);
}

}  // namespace

void Serving::Listen(httplib::Server& server) {
  // A pool larger than httplib's default (8), and short timeouts: a few slow or unauthenticated
  // clients (each may hold a worker through a TokenReview) cannot starve the kubelet's probes.
  server.new_task_queue = [] { return new httplib::ThreadPool(32); };
  server.set_read_timeout(std::chrono::seconds(10));
  server.set_write_timeout(std::chrono::seconds(10));
  server.set_keep_alive_timeout(5);
  auto ended = std::make_shared<std::atomic<bool>>(false);
  threads_.emplace_back([&server, ended] {
    server.listen_after_bind();
    ended->store(true);
  });
  // httplib's stop() does nothing until the listener runs: wait for it, so that Stop() never
  // waits on an accept that nothing will end.
  while (!server.is_running() && !ended->load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

bool Serving::Start(const ServingOptions& options, std::string* error) {
  if (options.secure_port != 0) {
    if (options.secure_port < 0 || options.secure_port > 65535) {
      *error = fmt::format("--secure-port {}: must be between 0 and 65535", options.secure_port);
      return false;
    }
    if (options.tls_cert_file.empty() != options.tls_private_key_file.empty()) {
      *error = "--tls-cert-file and --tls-private-key-file: give both or neither";
      return false;
    }
    std::unique_ptr<httplib::SSLServer> server;
    if (!options.tls_cert_file.empty()) {
      server = std::make_unique<httplib::SSLServer>(options.tls_cert_file.c_str(),
                                                    options.tls_private_key_file.c_str());
      if (!server->is_valid()) {
        *error = fmt::format(
            "--tls-cert-file {}, --tls-private-key-file {}: not a certificate and its key",
            options.tls_cert_file, options.tls_private_key_file);
        return false;
      }
    } else {
      SelfSigned self;
      if (!MakeSelfSigned(&self, error)) return false;
      server = std::make_unique<httplib::SSLServer>(self.cert, self.key);
      if (!server->is_valid()) {
        *error = "the self-signed certificate was refused (OpenSSL)";
        return false;
      }
    }
    // Every request but the ones to the paths always allowed is authenticated and authorized
    // by the API server first.
    server->set_pre_routing_handler([this, allow = options.always_allow_paths](
                                        const httplib::Request& req, httplib::Response& res) {
      using R = httplib::Server::HandlerResponse;
      if (std::find(allow.begin(), allow.end(), req.path) != allow.end()) return R::Unhandled;
      std::string verb = req.method;
      std::transform(verb.begin(), verb.end(), verb.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (verb == "head") verb = "get";
      const DelegatedAuth::Decision d =
          auth_->Check(req.get_header_value("Authorization"), verb, req.path);
      switch (d.verdict) {
        case DelegatedAuth::Verdict::kAllowed:
          return R::Unhandled;
        case DelegatedAuth::Verdict::kUnauthenticated:
          res.status = 401;
          res.set_content(StatusBody(401, "Unauthorized", d.message), "application/json");
          break;
        case DelegatedAuth::Verdict::kForbidden:
          res.status = 403;
          res.set_content(StatusBody(403, "Forbidden", d.message), "application/json");
          break;
        case DelegatedAuth::Verdict::kError:
          log::Error("Unable to authenticate or authorize a request",
                     {{"path", req.path}, {"err", d.message}});
          res.status = 500;
          res.set_content(StatusBody(500, "InternalError", "Internal Server Error"),
                          "application/json");
          break;
      }
      return R::Handled;
    });
    Routes(*server);
    if (std::string why; !BindExclusive(*server, options.bind_address, options.secure_port, &why)) {
      *error = fmt::format("--bind-address {}, --secure-port {}: listen tcp {}: {}",
                           options.bind_address, options.secure_port,
                           ListenAddress(options.bind_address, options.secure_port), why);
      return false;
    }
    log::Info(0, "Serving securely",
              {{"address", fmt::format("{}:{}", options.bind_address, options.secure_port)},
               {"certificate",
                options.tls_cert_file.empty() ? "self-signed" : options.tls_cert_file.c_str()}});
    servers_.push_back(std::move(server));
    Listen(*servers_.back());
  }
  if (!options.insecure_address.empty()) {
    std::string host;
    int port = 0;
    if (!SplitHostPort(options.insecure_address, &host, &port)) {
      *error = fmt::format("--metrics-bind-address {}: not host:port", options.insecure_address);
      return false;
    }
    auto server = std::make_unique<httplib::Server>();
    Routes(*server);
    if (std::string why; !BindExclusive(*server, host, port, &why)) {
      *error = fmt::format("--metrics-bind-address {}: listen tcp {}: {}", options.insecure_address,
                           ListenAddress(host, port), why);
      return false;
    }
    log::Info(0, "Serving insecurely (plain HTTP, no authentication)",
              {{"address", options.insecure_address}});
    servers_.push_back(std::move(server));
    Listen(*servers_.back());
  }
  return true;
}

void Serving::Stop() {
  for (const std::unique_ptr<httplib::Server>& s : servers_) s->stop();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  servers_.clear();
}

}  // namespace muster::run
