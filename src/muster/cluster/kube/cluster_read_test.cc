// ReadCluster against a fake API server of canned answers (cpp-httplib): the pages it follows,
// the list it starts again, what it leaves out, the snapshot it writes. The real server is the
// e2e test's (tests/e2e/simulate_live_test.py).

#include "muster/cluster/kube/cluster_read.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "muster/api/manifests.h"

namespace muster::cluster::kube {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Answers GET requests by their target (path and query): a canned answer, else 404 for an API
// group's discovery (no optional kind is served) and an empty list for any other list.
class FakeApiServer {
 public:
  using Answer = std::function<void(httplib::Response&)>;

  FakeApiServer() {
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      Answer answer;
      {
        std::lock_guard lock(mu_);
        targets_.push_back(req.target);
        auto it = answers_.find(req.target);
        if (it != answers_.end()) answer = it->second;
      }
      if (answer) {
        answer(res);
      } else if (req.target.find('?') == std::string::npos && req.target != "/version") {
        res.status = 404;
      } else {
        res.set_content(R"({"metadata":{},"items":[]})", "application/json");
      }
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~FakeApiServer() {
    server_.stop();
    thread_.join();
  }

  void On(const std::string& target, Answer answer) {
    std::lock_guard lock(mu_);
    answers_[target] = std::move(answer);
  }
  // A page of a list: `items`, and a continue token when `next` is not empty.
  void Page(const std::string& target, const std::vector<json>& items,
            const std::string& next = "") {
    json page = {{"metadata", {{"resourceVersion", "7"}}}, {"items", json::array()}};
    for (const json& item : items) page["items"].push_back(item);
    if (!next.empty()) page["metadata"]["continue"] = next;
    On(target,
       [text = page.dump()](httplib::Response& res) { res.set_content(text, "application/json"); });
  }
  std::vector<std::string> targets() {
    std::lock_guard lock(mu_);
    return targets_;
  }
  RestConfig config() const {
    RestConfig c;
    c.server = fmt::format("http://127.0.0.1:{}", port_);
    c.source = "the test's";
    c.qps = 0;
    return c;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::map<std::string, Answer> answers_;
  std::vector<std::string> targets_;
};

constexpr const char* kPods =
    "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed";

json Pod(const std::string& name, const std::string& created, const std::string& node = "",
         const std::string& scheduler = "default-scheduler") {
  json spec = {{"schedulerName", scheduler}, {"containers", {{{"name", "c"}, {"image", "nginx"}}}}};
  if (!node.empty()) spec["nodeName"] = node;
  return {{"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"creationTimestamp", created},
            {"managedFields", {{{"manager", "kubectl"}, {"operation", "Update"}}}}}},
          {"spec", spec},
          {"status", {{"phase", node.empty() ? "Pending" : "Running"}}}};
}

json Node(const std::string& name) {
  return {{"metadata", {{"name", name}, {"creationTimestamp", "2026-01-01T00:00:00Z"}}},
          {"status", {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}}}}};
}

std::vector<std::string> Names(const json& snapshot, const std::string& kind) {
  std::vector<std::string> names;
  for (const json& item : snapshot["items"]) {
    if (item["kind"] == kind) names.push_back(item["metadata"]["name"]);
  }
  return names;
}

TEST(ReadClusterTest, FollowsThePagesAndKeepsThePodsInTheOrderTheyWereCreated) {
  FakeApiServer server;
  server.Page("/api/v1/nodes?limit=500", {Node("n1"), Node("n2")});
  server.Page(std::string(kPods) + "&limit=500",
              {Pod("a", "2026-01-01T00:00:03Z"), Pod("b", "2026-01-01T00:00:01Z", "n1")}, "next");
  server.Page(std::string(kPods) + "&limit=500&continue=next", {Pod("c", "2026-01-01T00:00:02Z")});
  Http http(server.config());
  ClusterRead read;
  ASSERT_TRUE(ReadCluster(http, {}, &read).IsSuccess());

  const json snapshot = json::parse(read.snapshot);
  EXPECT_EQ(snapshot["kind"], "List");
  EXPECT_EQ(snapshot["metadata"]["annotations"][std::string(api::kSnapshotOfAnnotation)],
            server.config().server);
  EXPECT_THAT(Names(snapshot, "Node"), ElementsAre("n1", "n2"));
  EXPECT_THAT(Names(snapshot, "Pod"), ElementsAre("b", "c", "a"));
  for (const json& item : snapshot["items"]) {
    EXPECT_FALSE(item["metadata"].contains("managedFields")) << item.dump();
    if (item["kind"] == "Pod") EXPECT_EQ(item["apiVersion"], "v1");
  }
  EXPECT_EQ(read.nodes, 2U);
  EXPECT_EQ(read.bound_pods, 1U);
  EXPECT_EQ(read.pending_pods, 2U);
  // Nothing but reads.
  for (const std::string& target : server.targets()) {
    EXPECT_THAT(target, ::testing::Not(HasSubstr("watch"))) << target;
  }
}

TEST(ReadClusterTest, StartsAListAgainWhenItsContinueTokenHasExpired) {
  FakeApiServer server;
  server.Page(std::string(kPods) + "&limit=500", {Pod("a", "2026-01-01T00:00:01Z")}, "old");
  int expired = 0;
  server.On(std::string(kPods) + "&limit=500&continue=old", [&](httplib::Response& res) {
    if (expired++ == 0) {
      res.status = 410;
      res.set_content(R"({"kind":"Status","code":410,"reason":"Expired"})", "application/json");
      return;
    }
    json page = {{"metadata", json::object()}, {"items", json::array()}};
    page["items"].push_back(Pod("b", "2026-01-01T00:00:02Z"));
    res.set_content(page.dump(), "application/json");
  });
  Http http(server.config());
  ClusterRead read;
  ASSERT_TRUE(ReadCluster(http, {}, &read).IsSuccess());
  EXPECT_THAT(Names(json::parse(read.snapshot), "Pod"), ElementsAre("a", "b"));
  EXPECT_EQ(read.pending_pods, 2U);
}

TEST(ReadClusterTest, LeavesOutThePendingPodsOfOtherSchedulers) {
  FakeApiServer server;
  server.Page(
      std::string(kPods) + "&limit=500",
      {Pod("mine", "2026-01-01T00:00:02Z"), Pod("theirs", "2026-01-01T00:00:03Z", "", "other"),
       Pod("theirs-bound", "2026-01-01T00:00:04Z", "n1", "other")});
  Http http(server.config());
  ClusterRead read;
  ClusterReadOptions options;
  options.scheduler_names = {"default-scheduler"};
  ASSERT_TRUE(ReadCluster(http, options, &read).IsSuccess());
  // A bound pod holds its node's resources whoever bound it.
  EXPECT_THAT(Names(json::parse(read.snapshot), "Pod"), ElementsAre("mine", "theirs-bound"));
  EXPECT_EQ(read.pending_pods, 1U);
  EXPECT_EQ(read.bound_pods, 1U);
}

TEST(ReadClusterTest, AForbiddenListNamesTheRoleThatGrantsIt) {
  FakeApiServer server;
  server.On("/api/v1/nodes?limit=1", [](httplib::Response& res) {
    res.status = 403;
    res.set_content(R"({"kind":"Status","code":403,"message":"nodes is forbidden"})",
                    "application/json");
  });
  Http http(server.config());
  ClusterRead read;
  const framework::Status s = ReadCluster(http, {}, &read);
  ASSERT_FALSE(s.IsSuccess());
  EXPECT_THAT(s.Message(), HasSubstr("list nodes"));
  EXPECT_THAT(s.Message(), HasSubstr("deploy/rbac-simulate.yaml"));
}

// The loader takes the snapshot as `muster run` takes what a server sends: fields newer than
// muster pass, admission is not run again, and what muster cannot read is left out with a
// warning rather than refusing the whole input.
TEST(ReadClusterTest, ASnapshotLoadsAsServedObjects) {
  FakeApiServer server;
  json pod = Pod("p", "2026-01-01T00:00:01Z");
  // Admitted by the server under a class since deleted, with a field newer than muster.
  pod["spec"]["priorityClassName"] = "gone";
  pod["spec"]["priority"] = 7;
  pod["spec"]["someFieldFromTheFuture"] = true;
  json unreadable = Pod("bad", "2026-01-01T00:00:02Z");
  unreadable["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "lots"}}}};
  server.Page(std::string(kPods) + "&limit=500", {pod, unreadable});
  Http http(server.config());
  ClusterRead read;
  ASSERT_TRUE(ReadCluster(http, {}, &read).IsSuccess());
  std::istringstream no_stdin;
  const api::LoadResult loaded =
      api::LoadManifests({}, no_stdin, api::FieldValidation::kStrict, {{"snap", read.snapshot}});
  ASSERT_TRUE(loaded.ok()) << fmt::format("{}", fmt::join(loaded.errors, "\n"));
  ASSERT_EQ(loaded.manifests.pods.size(), 1U);
  EXPECT_EQ(loaded.manifests.pods[0].metadata.name, "p");
  EXPECT_EQ(loaded.manifests.pods[0].spec.priority, 7);
  EXPECT_TRUE(loaded.manifests.order.back().served);
  ASSERT_EQ(loaded.warnings.size(), 1U);
  EXPECT_THAT(loaded.warnings[0], HasSubstr("leaving out an object muster cannot read: snap: "
                                            "document 1, items[1] (Pod default/bad)"));
}

}  // namespace
}  // namespace muster::cluster::kube
