#include "muster/cluster/kube/http.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <curl/curl.h>
#include <fmt/format.h>
#include <simdjson.h>

#include "muster/framework/log.h"

namespace muster::cluster::kube {
namespace {

// client-go's request log: at -v=6 one line per request, at -v=8 its headers too, the
// credentials masked. Nothing secret is ever logged: not a token, not a body.
void LogRequest(std::string_view method, const std::string& url, long status, CURLcode code,
                std::chrono::steady_clock::time_point began, bool authorized) {
  if (!log::V(6)) return;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - began)
                      .count();
  if (log::V(8)) {
    log::Info(
        8, "Request Headers",
        {{"Accept", "application/json"}, {"Authorization", authorized ? "Bearer <masked>" : ""}});
  }
  if (code != CURLE_OK) {
    log::Info(6, "HTTP",
              {{"verb", method},
               {"url", url},
               {"error", curl_easy_strerror(code)},
               {"milliseconds", static_cast<int64_t>(ms)}});
  } else {
    log::Info(6, "HTTP",
              {{"verb", method},
               {"url", url},
               {"status", status},
               {"milliseconds", static_cast<int64_t>(ms)}});
  }
}

// curl_global_init once per process, before the first handle.
void GlobalInit() {
  static const bool done = [] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return true;
  }();
  (void)done;
}

// The `message` of a metav1.Status body; the body itself (cut short) when it has none.
std::string StatusMessage(const std::string& body) {
  simdjson::dom::parser parser;
  std::string_view message;
  if (parser.parse(body).at_key("message").get(message) == simdjson::SUCCESS) {
    return std::string(message);
  }
  return body.size() > 200 ? body.substr(0, 200) + "..." : body;
}

const char* Reason(long status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "";
  }
}

}  // namespace

std::string Response::Describe() const {
  if (status == 0) return error.empty() ? "no response" : error;
  return fmt::format("{} {}: {}", status, Reason(status), StatusMessage(body));
}

RateLimiter::RateLimiter(double qps, int burst)
    : qps_(qps),
      burst_(std::max(1, burst)),
      tokens_(std::max(1, burst)),
      last_(std::chrono::steady_clock::now()) {}

void RateLimiter::Acquire() {
  if (qps_ <= 0) return;
  std::chrono::duration<double> wait{0};
  {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    tokens_ = std::min(burst_, tokens_ + std::chrono::duration<double>(now - last_).count() * qps_);
    last_ = now;
    tokens_ -= 1;  // reserve now, wait for it outside the lock (client-go's Wait does the same)
    if (tokens_ < 0) wait = std::chrono::duration<double>(-tokens_ / qps_);
  }
  if (wait.count() > 0) std::this_thread::sleep_for(wait);
}

struct Http::Handle {
  CURL* curl = nullptr;
  curl_slist* headers = nullptr;
  curl_slist* connect_to = nullptr;
  std::string body;
  std::string pending;  // a streamed line not yet complete
  const std::function<bool(std::string_view)>* on_line = nullptr;
  const std::function<void()>* on_open = nullptr;  // told once the server answers 2xx
  const std::atomic<bool>* stop = nullptr;
  bool stopped = false;
  bool authorized = false;  // sends a bearer token (which the log masks)
  const std::string* upload = nullptr;

  ~Handle() {
    if (headers != nullptr) curl_slist_free_all(headers);
    if (connect_to != nullptr) curl_slist_free_all(connect_to);
    if (curl != nullptr) curl_easy_cleanup(curl);
  }
};

namespace {

size_t Write(char* data, size_t size, size_t n, void* user) {
  auto* h = static_cast<Http::Handle*>(user);
  const size_t bytes = size * n;
  long status = 0;
  curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
  if (h->on_line == nullptr || status >= 300) {  // an error answers with a Status, not lines
    h->body.append(data, bytes);
    return bytes;
  }
  h->pending.append(data, bytes);
  size_t start = 0;
  for (size_t nl = h->pending.find('\n'); nl != std::string::npos;
       nl = h->pending.find('\n', start)) {
    if (!(*h->on_line)(std::string_view(h->pending).substr(start, nl - start))) {
      h->stopped = true;
      return 0;  // aborts the transfer
    }
    start = nl + 1;
  }
  h->pending.erase(0, start);
  return bytes;
}

int Progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* h = static_cast<Http::Handle*>(user);
  if (h->stop != nullptr && h->stop->load()) {
    h->stopped = true;
    return 1;  // aborts the transfer
  }
  if (h->on_open != nullptr) {
    long status = 0;
    curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && status < 300) {
      (*h->on_open)();
      h->on_open = nullptr;
    }
  }
  return 0;
}

}  // namespace

Http::Http(RestConfig config)
    : config_(std::move(config)), base_url_(config_.server), limiter_(config_.qps, config_.burst) {
  GlobalInit();
  if (config_.tls_server_name.empty()) return;
  // Verify (and send SNI) for tls_server_name while connecting to the server's own host: the
  // URL names tls_server_name, and connect-to maps it back to the real host and port.
  CURLU* url = curl_url();
  char* host = nullptr;
  char* port = nullptr;
  char* rewritten = nullptr;
  if (curl_url_set(url, CURLUPART_URL, config_.server.c_str(), 0) == CURLUE_OK &&
      curl_url_get(url, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
      curl_url_get(url, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
      curl_url_set(url, CURLUPART_HOST, config_.tls_server_name.c_str(), 0) == CURLUE_OK &&
      curl_url_get(url, CURLUPART_URL, &rewritten, 0) == CURLUE_OK) {
    base_url_ = rewritten;
    // The path of the server (an extender's urlPrefix may have one) stays; a lone "/" added by
    // curl goes, as paths are appended with their own.
    if (!config_.server.ends_with('/') && base_url_.ends_with('/')) base_url_.pop_back();
    connect_to_ = fmt::format("{}:{}:{}:{}", config_.tls_server_name, port, host, port);
  }
  curl_free(host);
  curl_free(port);
  curl_free(rewritten);
  curl_url_cleanup(url);
}

Http::~Http() = default;

std::unique_ptr<Http::Handle> Http::Take() {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<Handle> h = std::move(idle_.back());
      idle_.pop_back();
      return h;
    }
  }
  auto h = std::make_unique<Handle>();
  h->curl = curl_easy_init();
  return h;
}

void Http::Give(std::unique_ptr<Handle> h) {
  std::lock_guard lock(mu_);
  idle_.push_back(std::move(h));
}

std::string Http::Token() {
  if (config_.token_file.empty()) return config_.token;
  std::lock_guard lock(mu_);
  // Re-read the file at most once a minute, as client-go's cached token source does: a
  // projected service-account token rotates in place.
  const auto now = std::chrono::steady_clock::now();
  if (token_.empty() || now - token_read_ > std::chrono::minutes(1)) {
    std::ifstream in(config_.token_file);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string t = ss.str();
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    if (!t.empty()) token_ = std::move(t);
    token_read_ = now;
  }
  return token_;
}

void Http::Prepare(Handle& h, std::string_view method, const std::string& path) {
  CURL* c = h.curl;
  curl_easy_reset(c);
  h.body.clear();
  h.pending.clear();
  h.on_line = nullptr;
  h.on_open = nullptr;
  h.stop = nullptr;
  h.stopped = false;
  if (h.headers != nullptr) {
    curl_slist_free_all(h.headers);
    h.headers = nullptr;
  }
  if (h.connect_to != nullptr) {
    curl_slist_free_all(h.connect_to);
    h.connect_to = nullptr;
  }
  const std::string url = base_url_ + path;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  if (!connect_to_.empty()) {
    h.connect_to = curl_slist_append(nullptr, connect_to_.c_str());
    curl_easy_setopt(c, CURLOPT_CONNECT_TO, h.connect_to);
  }
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS);
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "muster/v0 (scheduler)");
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Write);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &h);
  if (method == "GET") {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, std::string(method).c_str());
  }
  if (config_.insecure_skip_tls_verify) {
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!config_.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, config_.ca_file.c_str());
  if (!config_.ca_data.empty()) {
    curl_blob blob{const_cast<char*>(config_.ca_data.data()), config_.ca_data.size(),
                   CURL_BLOB_NOCOPY};
    curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
  }
  if (!config_.cert_file.empty()) curl_easy_setopt(c, CURLOPT_SSLCERT, config_.cert_file.c_str());
  if (!config_.cert_data.empty()) {
    curl_blob blob{const_cast<char*>(config_.cert_data.data()), config_.cert_data.size(),
                   CURL_BLOB_NOCOPY};
    curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &blob);
  }
  if (!config_.key_file.empty()) curl_easy_setopt(c, CURLOPT_SSLKEY, config_.key_file.c_str());
  if (!config_.key_data.empty()) {
    curl_blob blob{const_cast<char*>(config_.key_data.data()), config_.key_data.size(),
                   CURL_BLOB_NOCOPY};
    curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &blob);
  }
  h.headers = curl_slist_append(h.headers, "Accept: application/json");
  const std::string token = Token();
  h.authorized = !token.empty();
  if (!token.empty()) {
    h.headers = curl_slist_append(h.headers, ("Authorization: Bearer " + token).c_str());
  }
}

Response Http::Do(std::string_view method, const std::string& path, const std::string& body,
                  std::string_view content_type, std::chrono::milliseconds timeout) {
  limiter_.Acquire();
  std::unique_ptr<Handle> h = Take();
  Prepare(*h, method, path);
  CURL* c = h->curl;
  const long timeout_ms = static_cast<long>(std::max<int64_t>(timeout.count(), 1));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 10000L));
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    h->headers =
        curl_slist_append(h->headers, fmt::format("Content-Type: {}", content_type).c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
  Response r;
  const auto began = std::chrono::steady_clock::now();
  const CURLcode code = curl_easy_perform(c);
  if (log::V(6)) {
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    LogRequest(method, config_.server + path, status, code, began, h->authorized);
  }
  if (code != CURLE_OK) {
    r.error = fmt::format("{} {}{}: {}", method, config_.server, path, curl_easy_strerror(code));
  } else {
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    r.body = std::move(h->body);
  }
  Give(std::move(h));
  return r;
}

Response Http::Stream(const std::string& path, const std::function<bool(std::string_view)>& on_line,
                      const std::atomic<bool>& stop, const std::function<void()>& on_open) {
  limiter_.Acquire();
  std::unique_ptr<Handle> h = Take();
  Prepare(*h, "GET", path);
  CURL* c = h->curl;
  h->on_line = &on_line;
  h->on_open = on_open ? &on_open : nullptr;
  h->stop = &stop;
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, Progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, h.get());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h->headers);
  Response r;
  const auto began = std::chrono::steady_clock::now();
  const CURLcode code = curl_easy_perform(c);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  LogRequest("WATCH", config_.server + path, r.status, h->stopped ? CURLE_OK : code, began,
             h->authorized);
  if (code != CURLE_OK && !h->stopped) {
    r.error = fmt::format("GET {}{}: {}", config_.server, path, curl_easy_strerror(code));
  }
  if (r.status >= 300) r.body = std::move(h->body);
  // A stream cut short leaves its connection in an unknown state: do not reuse it.
  if (code == CURLE_OK) Give(std::move(h));
  return r;
}

}  // namespace muster::cluster::kube
