// Scheduler extenders in whole runs of `muster simulate`, against a real HTTP extender served in
// the test.

#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "muster/cli/simulate.h"

namespace muster {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

// An extender that keeps state as examples/extender/gpushare.py does: a node it bound a pod to
// is taken, for this run and every run after, until the extender is restarted.
class StatefulExtender {
 public:
  StatefulExtender() {
    server_.Post("/x/filter", [this](const httplib::Request& req, httplib::Response& res) {
      const json args = json::parse(req.body);
      json kept = json::array();
      std::lock_guard lock(mu_);
      for (const json& name : args["NodeNames"]) {
        if (!taken_.contains(name.get<std::string>())) kept.push_back(name);
      }
      res.set_content(json{{"NodeNames", kept}}.dump(), "application/json");
    });
    server_.Post("/x/bind", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mu_);
      taken_.insert(json::parse(req.body)["Node"].get<std::string>());
      res.set_content(R"({"Error": ""})", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~StatefulExtender() {
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::set<std::string> taken_;
};

struct SimulateRun {
  int status = 0;
  std::string out, err;
};

SimulateRun Simulate(const std::string& manifests, const std::string& config_path) {
  cli::SimulateFlags flags;
  flags.paths = {"-"};
  flags.config = config_path;
  std::istringstream in(manifests);
  std::ostringstream out, err;
  SimulateRun run;
  run.status = cli::RunSimulate(flags, in, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

// The second run against an extender that remembers the first finds every node taken: muster
// says what that looks like and what to do, rather than leaving the user to wonder why the same
// input now schedules nothing.
TEST(ExtenderTest, AnExtenderThatRemembersAnEarlierRunIsPointedOut) {
  StatefulExtender extender;
  const std::string config_path = ::testing::TempDir() + "/extender-scheduler.yaml";
  {
    std::ofstream config(config_path);
    config << fmt::format(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "extenders:\n- urlPrefix: http://127.0.0.1:{}/x\n  filterVerb: filter\n"
        "  bindVerb: bind\n  nodeCacheCapable: true\n",
        extender.port());
  }
  std::string manifests;
  for (const char* node : {"n1", "n2"}) {
    manifests += fmt::format(
        "apiVersion: v1\nkind: Node\nmetadata: {{name: {}}}\n"
        "status: {{capacity: {{cpu: \"4\", memory: 4Gi, pods: \"110\"}}}}\n---\n",
        node);
  }
  for (const char* pod : {"a", "b"}) {
    manifests += fmt::format(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: {}}}\n"
        "spec: {{containers: [{{name: c, image: i}}]}}\n---\n",
        pod);
  }
  const SimulateRun first = Simulate(manifests, config_path);
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_THAT(first.out, HasSubstr("Running"));
  EXPECT_THAT(first.err, Not(HasSubstr("note: extender")));

  const SimulateRun second = Simulate(manifests, config_path);
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_THAT(second.out, Not(HasSubstr("Running")));
  EXPECT_THAT(second.err,
              HasSubstr(fmt::format("note: extender http://127.0.0.1:{}/x turned away every node "
                                    "in its first filter answer of this run",
                                    extender.port())));
  EXPECT_THAT(second.err, HasSubstr("restart it before each run"));
}

}  // namespace
}  // namespace muster
