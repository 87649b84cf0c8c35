// The HTTP extender against a real extender: a cpp-httplib server in the test, over HTTP and
// HTTPS (a CA and a server certificate made with openssl for the test). Each verb's request is
// checked field by field against k8s.io/kube-scheduler/extender/v1, and each answer's reading.

#include "muster/cluster/kube/extender.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/node_info.h"

namespace muster::cluster::kube {
namespace {

using framework::NodeInfo;
using framework::Status;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeNode;
using testing::MakePod;

// A real extender: each verb answers with what the test sets, and records what it was sent.
class Server {
 public:
  explicit Server(std::unique_ptr<httplib::Server> server = std::make_unique<httplib::Server>())
      : server_(std::move(server)) {
    server_->Post(R"(/scheduler/(\w+))",
                  [this](const httplib::Request& req, httplib::Response& res) {
                    const std::string verb = req.matches[1];
                    std::function<void(const json&, httplib::Response&)> handler;
                    {
                      std::lock_guard lock(mu_);
                      requests_[verb] = json::parse(req.body);
                      content_type_ = req.get_header_value("Content-Type");
                      auto it = handlers_.find(verb);
                      if (it == handlers_.end()) {
                        res.status = 404;
                        return;
                      }
                      handler = it->second;
                    }
                    handler(json::parse(req.body), res);
                  });
    port_ = server_->bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    // The socket listens already (connections queue); stop() needs the loop to have started.
    while (!server_->is_running()) std::this_thread::yield();
  }
  ~Server() {
    server_->stop();
    thread_.join();
  }
  void On(const std::string& verb, std::function<void(const json&, httplib::Response&)> handler) {
    std::lock_guard lock(mu_);
    handlers_[verb] = std::move(handler);
  }
  void Answer(const std::string& verb, json answer) {
    On(verb, [answer](const json&, httplib::Response& res) {
      res.set_content(answer.dump(), "application/json");
    });
  }
  json Request(const std::string& verb) {
    std::lock_guard lock(mu_);
    return requests_[verb];
  }
  std::string content_type() {
    std::lock_guard lock(mu_);
    return content_type_;
  }
  int port() const { return port_; }

 private:
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::map<std::string, std::function<void(const json&, httplib::Response&)>> handlers_;
  std::map<std::string, json> requests_;
  std::string content_type_;
};

class HttpExtenderTest : public ::testing::Test {
 protected:
  HttpExtenderTest() {
    for (const char* name : {"n1", "n2", "n3"}) {
      nodes_.push_back(std::make_unique<NodeInfo>(
          std::make_shared<const api::Node>(MakeNode()
                                                .Name(name)
                                                .Label("zone", "a")
                                                .Capacity({{"example.com/gpu-mem", "16"}})
                                                .Obj())));
      node_ptrs_.push_back(nodes_.back().get());
    }
    config_.url_prefix = fmt::format("http://127.0.0.1:{}/scheduler/", server_.port());
    config_.filter_verb = "filter";
    config_.prioritize_verb = "prioritize";
    config_.bind_verb = "bind";
    config_.preempt_verb = "preempt";
    config_.weight = 3;
  }

  Server server_;
  api::ExtenderConfig config_;
  std::vector<std::unique_ptr<NodeInfo>> nodes_;
  std::vector<NodeInfo*> node_ptrs_;
  const api::Pod pod_ =
      MakePod().Name("train").Uid("uid-train").Req({{"example.com/gpu-mem", "4"}}).Obj();
};

// nodeCacheCapable: the nodes go by name, and the answer names the ones kept.
TEST_F(HttpExtenderTest, FilterWithANodeCacheSendsNamesAndReadsNames) {
  config_.node_cache_capable = true;
  HttpExtender extender(config_);
  server_.Answer("filter", {{"NodeNames", {"n3", "n1"}},
                            {"FailedNodes", {{"n2", "gpushare: node has no GPU memory"}}},
                            {"FailedAndUnresolvableNodes", {{"n2", "no GPU"}}}});
  framework::ExtenderFilterResult result;
  ASSERT_TRUE(extender.Filter(pod_, node_ptrs_, &result).IsSuccess());
  const json sent = server_.Request("filter");
  // extender/v1's Go field names (its structs have no json tags), the unused one null.
  EXPECT_EQ(sent["NodeNames"], json({"n1", "n2", "n3"}));
  EXPECT_TRUE(sent.contains("Nodes") && sent["Nodes"].is_null());
  EXPECT_EQ(sent["Pod"]["metadata"]["name"], "train");
  EXPECT_EQ(sent["Pod"]["metadata"]["uid"], "uid-train");
  EXPECT_EQ(sent["Pod"]["spec"]["containers"][0]["resources"]["requests"]["example.com/gpu-mem"],
            "4");
  EXPECT_EQ(sent["Pod"]["status"]["qosClass"], "BestEffort");
  EXPECT_EQ(server_.content_type(), "application/json");
  ASSERT_EQ(result.passed.size(), 2u);
  EXPECT_EQ(result.passed[0], node_ptrs_[2]);
  EXPECT_EQ(result.passed[1], node_ptrs_[0]);
  EXPECT_EQ(result.failed.at("n2"), "gpushare: node has no GPU memory");
  EXPECT_EQ(result.failed_and_unresolvable.at("n2"), "no GPU");
  EXPECT_EQ(extender.Stats().filter.calls, 1u);
}

// Without a node cache the nodes go in full, as a NodeList, and come back the same way.
TEST_F(HttpExtenderTest, FilterWithoutANodeCacheSendsAndReadsNodeLists) {
  HttpExtender extender(config_);
  server_.On("filter", [](const json& args, httplib::Response& res) {
    json kept = {{"items", json::array()}};
    for (const json& node : args["Nodes"]["items"]) {
      if (node["metadata"]["name"] != "n2") kept["items"].push_back(node);
    }
    res.set_content(json{{"Nodes", kept}, {"FailedNodes", {{"n2", "busy"}}}}.dump(),
                    "application/json");
  });
  framework::ExtenderFilterResult result;
  ASSERT_TRUE(extender.Filter(pod_, node_ptrs_, &result).IsSuccess());
  const json sent = server_.Request("filter");
  EXPECT_TRUE(sent.contains("NodeNames") && sent["NodeNames"].is_null());
  ASSERT_EQ(sent["Nodes"]["items"].size(), 3u);
  EXPECT_EQ(sent["Nodes"]["metadata"], json::object());
  const json& n1 = sent["Nodes"]["items"][0];
  EXPECT_FALSE(n1.contains("kind"));  // as an informer's objects
  EXPECT_EQ(n1["metadata"]["labels"]["zone"], "a");
  EXPECT_EQ(n1["status"]["allocatable"]["example.com/gpu-mem"], "16");
  ASSERT_EQ(result.passed.size(), 2u);
  EXPECT_EQ(result.passed[0], node_ptrs_[0]);
  EXPECT_EQ(result.passed[1], node_ptrs_[2]);
  EXPECT_EQ(result.failed.at("n2"), "busy");
}

// Each node's JSON is kept per node object: an updated node (a new object) is sent as it is now.
TEST_F(HttpExtenderTest, AnUpdatedNodeIsSentAsItIsNow) {
  HttpExtender extender(config_);
  server_.Answer("filter", {{"Nodes", {{"items", json::array()}}}});
  framework::ExtenderFilterResult result;
  ASSERT_TRUE(extender.Filter(pod_, node_ptrs_, &result).IsSuccess());
  EXPECT_EQ(server_.Request("filter")["Nodes"]["items"][0]["metadata"]["labels"]["zone"], "a");
  nodes_[0]->SetNode(std::make_shared<const api::Node>(
      MakeNode().Name("n1").Label("zone", "b").Capacity({{"example.com/gpu-mem", "16"}}).Obj()));
  ASSERT_TRUE(extender.Filter(pod_, node_ptrs_, &result).IsSuccess());
  const json sent = server_.Request("filter");
  EXPECT_EQ(sent["Nodes"]["items"][0]["metadata"]["labels"]["zone"], "b");
  EXPECT_EQ(sent["Nodes"]["items"][1]["metadata"]["labels"]["zone"], "a");
}

// Go's encoding/json reads field names case-insensitively; so does muster (an extender not
// written in Go may answer "nodenames").
TEST_F(HttpExtenderTest, AnswersAreReadWithGoFieldMatching) {
  config_.node_cache_capable = true;
  HttpExtender extender(config_);
  server_.Answer("filter", {{"nodenames", {"n1"}}, {"failedNodes", {{"n2", "x"}}}});
  framework::ExtenderFilterResult result;
  ASSERT_TRUE(extender.Filter(pod_, node_ptrs_, &result).IsSuccess());
  ASSERT_EQ(result.passed.size(), 1u);
  EXPECT_EQ(result.failed.at("n2"), "x");
}

// Answers that keep no node are counted, and whether the first of the run was one (what an
// extender that remembers an earlier run answers: report::ExtenderNotes).
TEST_F(HttpExtenderTest, FilterAnswersThatKeepNoNodeAreCounted) {
  config_.node_cache_capable = true;
  HttpExtender extender(config_);
  framework::ExtenderFilterResult result;
  server_.Answer("filter", {{"NodeNames", {"n1"}}});
  ASSERT_TRUE(extender.Filter(pod_, node_ptrs_, &result).IsSuccess());
  server_.Answer("filter", {{"NodeNames", json::array()}});
  result = {};
  ASSERT_TRUE(extender.Filter(pod_, node_ptrs_, &result).IsSuccess());
  EXPECT_EQ(extender.Stats().filter_kept_none, 1u);
  EXPECT_FALSE(extender.Stats().first_filter_kept_none);

  HttpExtender restarted(config_);
  ASSERT_TRUE(restarted.Filter(pod_, node_ptrs_, &result).IsSuccess());
  EXPECT_TRUE(restarted.Stats().first_filter_kept_none);
}

// The ways a filter call fails, each worded as upstream words it.
TEST_F(HttpExtenderTest, FilterFailures) {
  config_.node_cache_capable = true;
  HttpExtender extender(config_);
  framework::ExtenderFilterResult result;

  server_.Answer("filter", {{"Error", "gpushare is rebuilding its cache"}});
  EXPECT_EQ(extender.Filter(pod_, node_ptrs_, &result).Message(),
            "gpushare is rebuilding its cache");

  server_.Answer("filter", {{"NodeNames", {"n9"}}});
  EXPECT_EQ(extender.Filter(pod_, node_ptrs_, &result).Message(),
            fmt::format("extender \"{}\" claims a filtered node \"n9\" which is not found in the "
                        "input node list",
                        config_.url_prefix));

  server_.On("filter", [](const json&, httplib::Response& res) { res.status = 500; });
  EXPECT_EQ(extender.Filter(pod_, node_ptrs_, &result).Message(),
            fmt::format("failed filter with extender at URL http://127.0.0.1:{}/scheduler/filter, "
                        "code 500",
                        server_.port()));
  EXPECT_EQ(extender.Stats().filter.calls, 3u);
  EXPECT_EQ(extender.Stats().filter.errors, 3u);
}

// An answer Go's decoder would refuse (a value of the wrong type) fails the call, as upstream's.
TEST_F(HttpExtenderTest, AMalformedAnswerFailsTheCall) {
  HttpExtender extender(config_);
  framework::ExtenderFilterResult result;
  server_.Answer("filter", {{"Nodes", {{"items", json::array()}}}, {"FailedNodes", {"n1"}}});
  EXPECT_EQ(extender.Filter(pod_, node_ptrs_, &result).Message(),
            fmt::format("extender {}: the answer to filter has a malformed FailedNodes",
                        config_.url_prefix.substr(0, config_.url_prefix.size() - 1)));
  server_.Answer("filter", json::array());
  EXPECT_TRUE(extender.Filter(pod_, node_ptrs_, &result).IsError());
  server_.Answer("prioritize", json::array({{{"Host", "n1"}, {"Score", "7"}}}));
  std::vector<std::pair<std::string, int64_t>> scores;
  int64_t weight = 0;
  EXPECT_TRUE(extender.Prioritize(pod_, node_ptrs_, &scores, &weight).IsError());
}

// An extender slower than httpTimeout fails the call at the timeout. The server holds its
// answer until the client has given up.
TEST_F(HttpExtenderTest, ASlowExtenderTimesOut) {
  config_.http_timeout = std::chrono::milliseconds(200);
  HttpExtender extender(config_);
  std::promise<void> gave_up;
  std::shared_future<void> released = gave_up.get_future().share();
  server_.On("filter", [released](const json&, httplib::Response& res) {
    released.wait();
    res.set_content("{}", "application/json");
  });
  framework::ExtenderFilterResult result;
  const Status s = extender.Filter(pod_, node_ptrs_, &result);
  gave_up.set_value();
  EXPECT_TRUE(s.IsError());
  EXPECT_THAT(s.Message(), HasSubstr("Timeout"));
}

// Nothing listens: a transport error naming the URL.
TEST_F(HttpExtenderTest, AnExtenderThatIsDownFailsWithTheURL) {
  config_.url_prefix = "http://127.0.0.1:1/scheduler";
  HttpExtender extender(config_);
  framework::ExtenderFilterResult result;
  const Status s = extender.Filter(pod_, node_ptrs_, &result);
  EXPECT_TRUE(s.IsError());
  EXPECT_THAT(s.Message(), HasSubstr("http://127.0.0.1:1/scheduler/filter"));
}

TEST_F(HttpExtenderTest, PrioritizeReadsAHostPriorityList) {
  HttpExtender extender(config_);
  server_.Answer("prioritize",
                 json::array({{{"Host", "n1"}, {"Score", 7}}, {{"Host", "n3"}, {"Score", 2}}}));
  std::vector<std::pair<std::string, int64_t>> scores;
  int64_t weight = 0;
  ASSERT_TRUE(extender.Prioritize(pod_, node_ptrs_, &scores, &weight).IsSuccess());
  EXPECT_THAT(scores, ElementsAre(std::pair<std::string, int64_t>{"n1", 7},
                                  std::pair<std::string, int64_t>{"n3", 2}));
  EXPECT_EQ(weight, 3);
  EXPECT_EQ(server_.Request("prioritize")["Nodes"]["items"].size(), 3u);
}

TEST_F(HttpExtenderTest, BindSendsExtenderBindingArgs) {
  HttpExtender extender(config_);
  server_.Answer("bind", json::object());
  ASSERT_TRUE(extender.Bind(pod_, api::Symbol("n2")).IsSuccess());
  EXPECT_EQ(server_.Request("bind"), (json{{"PodName", "train"},
                                           {"PodNamespace", "default"},
                                           {"PodUID", "uid-train"},
                                           {"Node", "n2"}}));
  server_.Answer("bind", {{"Error", "GPU 3 is gone"}});
  EXPECT_EQ(extender.Bind(pod_, api::Symbol("n2")).Message(), "GPU 3 is gone");
}

// Preemption: victims go in full without a node cache, by UID with one; the answer's UIDs are
// found among the node's pods.
TEST_F(HttpExtenderTest, ProcessPreemptionSendsVictimsAndFindsThemByUID) {
  const api::Pod low = MakePod().Name("low").Uid("uid-low").NodeName("n1").Obj();
  const api::Pod other = MakePod().Name("other").Uid("uid-other").NodeName("n1").Obj();
  nodes_[0]->AddPod(framework::PodInfo::Make(low));
  nodes_[0]->AddPod(framework::PodInfo::Make(other));
  const api::Pod* low_on_node = &nodes_[0]->pods()[0]->pod;
  framework::NodeToVictims candidates;
  candidates["n1"].pods = {low_on_node};
  candidates["n1"].num_pdb_violations = 1;
  auto lookup = [&](std::string_view name) -> const NodeInfo* {
    for (NodeInfo* n : node_ptrs_) {
      if (n->name().str() == name) return n;
    }
    return nullptr;
  };
  for (const bool cache : {false, true}) {
    config_.node_cache_capable = cache;
    HttpExtender extender(config_);
    server_.Answer("preempt",
                   {{"NodeNameToMetaVictims",
                     {{"n1", {{"Pods", {{{"UID", "uid-other"}}}}, {"NumPDBViolations", 0}}}}}});
    framework::NodeToVictims kept;
    ASSERT_TRUE(extender.ProcessPreemption(pod_, candidates, lookup, &kept).IsSuccess());
    const json sent = server_.Request("preempt");
    if (cache) {
      EXPECT_EQ(sent["NodeNameToMetaVictims"]["n1"],
                (json{{"Pods", {{{"UID", "uid-low"}}}}, {"NumPDBViolations", 1}}));
      EXPECT_TRUE(sent["NodeNameToVictims"].is_null());
    } else {
      EXPECT_EQ(sent["NodeNameToVictims"]["n1"]["Pods"][0]["metadata"]["name"], "low");
      EXPECT_EQ(sent["NodeNameToVictims"]["n1"]["NumPDBViolations"], 1);
      EXPECT_TRUE(sent["NodeNameToMetaVictims"].is_null());
    }
    ASSERT_EQ(kept.size(), 1u);
    ASSERT_EQ(kept["n1"].pods.size(), 1u);
    EXPECT_EQ(kept["n1"].pods[0]->metadata.name, "other");
  }
  HttpExtender extender(config_);
  server_.Answer("preempt", {{"NodeNameToMetaVictims", {{"n1", {{"Pods", {{{"UID", "nope"}}}}}}}}});
  framework::NodeToVictims kept;
  EXPECT_EQ(extender.ProcessPreemption(pod_, candidates, lookup, &kept).Message(),
            fmt::format("extender: {} claims to preempt pod (UID: nope) on node: n1, but the pod "
                        "is not found on that node",
                        config_.url_prefix));
}

// managedResources decide which pods the extender hears about: requests or limits, init
// containers included.
TEST_F(HttpExtenderTest, IsInterestedFollowsManagedResources) {
  config_.managed_resources = {{"example.com/gpu-mem", true}};
  HttpExtender extender(config_);
  EXPECT_TRUE(extender.IsInterested(pod_));
  EXPECT_FALSE(extender.IsInterested(MakePod().Name("web").Req({{"cpu", "1"}}).Obj()));
  EXPECT_TRUE(
      extender.IsInterested(MakePod().Name("init").InitReq({{"example.com/gpu-mem", "1"}}).Obj()));
  config_.managed_resources.clear();
  EXPECT_TRUE(HttpExtender(config_).IsInterested(MakePod().Name("web").Obj()));
}

// ---- HTTPS ----

// A CA, a server certificate it signed for "extender.test", and another CA (made with the
// openssl tool).
class Certificates {
 public:
  Certificates() {
    dir_ =
        std::filesystem::temp_directory_path() / fmt::format("muster-extender-tls-{}", ::getpid());
    std::filesystem::create_directories(dir_);
    const std::string d = dir_.string();
    const std::string script = fmt::format(
        "(cd {} && "
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 1 "
        "-subj /CN=test-ca && "
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout other.key -out other.crt -days 1 "
        "-subj /CN=other-ca && "
        "openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr "
        "-subj /CN=extender.test && "
        "printf 'subjectAltName=DNS:extender.test' > san.ext && "
        "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial "
        "-out server.crt -days 1 -extfile san.ext) > /dev/null 2>&1",
        d);
    ok_ = std::system(script.c_str()) == 0;
  }
  ~Certificates() { std::filesystem::remove_all(dir_); }
  bool ok() const { return ok_; }
  std::string Path(const char* name) const { return (dir_ / name).string(); }

 private:
  std::filesystem::path dir_;
  bool ok_ = false;
};

TEST(HttpExtenderTLS, VerifiesTheServerAgainstTheCAAndServerName) {
  Certificates certs;
  ASSERT_TRUE(certs.ok()) << "openssl could not make the test certificates";
  Server server(std::make_unique<httplib::SSLServer>(certs.Path("server.crt").c_str(),
                                                     certs.Path("server.key").c_str()));
  server.Answer("filter", {{"NodeNames", {"n1"}}});
  std::vector<std::unique_ptr<NodeInfo>> owned;
  owned.push_back(
      std::make_unique<NodeInfo>(std::make_shared<const api::Node>(MakeNode().Name("n1").Obj())));
  std::vector<NodeInfo*> nodes = {owned[0].get()};
  const api::Pod pod = MakePod().Name("p").Obj();

  api::ExtenderConfig config;
  config.url_prefix = fmt::format("https://127.0.0.1:{}/scheduler", server.port());
  config.filter_verb = "filter";
  config.node_cache_capable = true;
  config.enable_https = true;
  auto filter = [&](const api::ExtenderConfig& c) {
    HttpExtender extender(c);
    framework::ExtenderFilterResult result;
    return extender.Filter(pod, nodes, &result);
  };
  // The CA and the name the certificate carries: verified.
  config.tls_config = api::ExtenderTLSConfig{};
  config.tls_config->ca_file = certs.Path("ca.crt");
  config.tls_config->server_name = "extender.test";
  EXPECT_TRUE(filter(config).IsSuccess()) << filter(config).Message();
  // The CA as data.
  std::ifstream in(certs.Path("ca.crt"));
  config.tls_config->ca_data.assign(std::istreambuf_iterator<char>(in), {});
  config.tls_config->ca_file.clear();
  EXPECT_TRUE(filter(config).IsSuccess()) << filter(config).Message();
  // Without serverName the certificate does not match 127.0.0.1.
  config.tls_config->server_name.clear();
  EXPECT_TRUE(filter(config).IsError());
  // enableHTTPS without a CA skips the check, as upstream's.
  config.tls_config.reset();
  EXPECT_TRUE(filter(config).IsSuccess()) << filter(config).Message();
  // ... but a CA that did not sign the certificate fails it.
  config.tls_config = api::ExtenderTLSConfig{};
  config.tls_config->ca_file = certs.Path("other.crt");
  config.tls_config->server_name = "extender.test";
  EXPECT_TRUE(filter(config).IsError());
}

}  // namespace
}  // namespace muster::cluster::kube
