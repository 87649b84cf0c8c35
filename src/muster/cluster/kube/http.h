#pragma once

// HTTP to a Kubernetes API server, with libcurl: TLS as the rest config says (the server's CA,
// a client certificate, a bearer token re-read when its file changes), keep-alive connections
// reused across requests, HTTP/2 where the server offers it, and client-go's client-side rate
// limit (a token bucket of `qps` tokens a second holding `burst`). Thread-safe: the informers,
// the binders and the leader elector share one.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "muster/cluster/kube/rest_config.h"

namespace muster::cluster::kube {

struct Response {
  long status = 0;  // the HTTP status; 0 when no answer came (see error)
  std::string body;
  std::string error;  // the transport's error (connection refused, TLS...), empty otherwise

  bool ok() const { return status >= 200 && status < 300; }
  // "409 Conflict: <the server's message>", or the transport error, for logs.
  std::string Describe() const;
};

// client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter): `burst` tokens at first,
// refilled at `qps` a second; Acquire waits for one. qps <= 0 means no limit.
class RateLimiter {
 public:
  RateLimiter(double qps, int burst);
  void Acquire();

 private:
  std::mutex mu_;
  double qps_;
  double burst_;
  double tokens_;
  std::chrono::steady_clock::time_point last_;
};

class Http {
 public:
  explicit Http(RestConfig config);
  ~Http();
  Http(const Http&) = delete;
  Http& operator=(const Http&) = delete;

  // One request (rate limited). `path` starts with "/" and may carry a query. It gives up after
  // `timeout` (the leader elector bounds each request by what is left of its renew deadline).
  Response Do(std::string_view method, const std::string& path, const std::string& body = "",
              std::string_view content_type = "application/json",
              std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // A streaming GET (a watch): calls on_line with each newline-terminated line of the body as
  // it arrives, until the server ends the response, on_line returns false, `stop` becomes true
  // (checked at least once a second), or the connection fails. The response has no body.
  Response Stream(const std::string& path, const std::function<bool(std::string_view)>& on_line,
                  const std::atomic<bool>& stop, const std::function<void()>& on_open = {});

  const RestConfig& config() const { return config_; }

  struct Handle;  // a curl handle and its transfer's state (http.cc)

 private:
  std::unique_ptr<Handle> Take();
  void Give(std::unique_ptr<Handle> handle);
  std::string Token();
  void Prepare(Handle& h, std::string_view method, const std::string& path);

  RestConfig config_;
  // Where requests go: the server, with tls_server_name in place of its host when set, and
  // then curl's connect-to entry that still reaches the real host ("name:port:host:port").
  std::string base_url_;
  std::string connect_to_;
  RateLimiter limiter_;
  std::mutex mu_;
  std::vector<std::unique_ptr<Handle>> idle_;
  std::string token_;
  std::chrono::steady_clock::time_point token_read_{};
};

}  // namespace muster::cluster::kube
