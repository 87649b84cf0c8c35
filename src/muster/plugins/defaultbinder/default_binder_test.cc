#include "muster/plugins/defaultbinder/default_binder.h"

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/testing/null_client.h"

// Cases from upstream default_binder_test.go (TestDefaultBinder): a successful binding, and a
// client error surfacing as an Error status.

namespace muster::plugins::defaultbinder {
namespace {

using framework::Status;

class RecordingClient final : public muster::testing::NullClient {
 public:
  Status Bind(const api::Pod& pod, api::Symbol node) override {
    bindings.emplace_back(pod.metadata.Key(), node.string());
    return result;
  }

  Status result;
  std::vector<std::pair<std::string, std::string>> bindings;
};

// A Handle whose only working part is the client: DefaultBinder uses nothing else.
class ClientOnlyHandle final : public framework::Handle {
 public:
  explicit ClientOnlyHandle(framework::ClusterClient& client) : client_(client) {}
  const framework::Snapshot& snapshot() const override { std::abort(); }
  framework::Clock& clock() override { std::abort(); }
  framework::WaitingPods& waiting_pods() override { std::abort(); }
  framework::ClusterClient& client() override { return client_; }
  const framework::ObjectLister& lister() const override { std::abort(); }
  void ActivatePods(std::span<const std::string>) override { std::abort(); }
  std::vector<framework::PodInfoPtr> NominatedPodsForNode(api::Symbol) const override {
    std::abort();
  }
  const framework::Framework& framework() const override { std::abort(); }
  int parallelism() const override { return 1; }

 private:
  framework::ClusterClient& client_;
};

TEST(DefaultBinderBind, UpstreamCases) {
  const framework::PodInfoPtr pod =
      framework::PodInfo::Make(testing::MakePod().Name("foo").Namespace("ns").Obj());
  struct Case {
    std::string name;
    Status client_result;
    framework::Code want;
  };
  const std::vector<Case> cases = {
      {"successful", Status::OK(), framework::Code::kSuccess},
      {"binding error", Status::Error("failed"), framework::Code::kError},
      {"a rejection from the client is still an error", Status::Unschedulable("conflict"),
       framework::Code::kError},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    RecordingClient client;
    client.result = c.client_result;
    ClientOnlyHandle handle(client);
    std::string error;
    std::unique_ptr<framework::Plugin> plugin = DefaultBinder::New({}, handle, &error);
    auto* binder = dynamic_cast<framework::BindPlugin*>(plugin.get());
    ASSERT_NE(binder, nullptr);
    framework::CycleState state;
    const Status got = binder->Bind(state, *pod, api::Symbol("foohost.kubernetes.mydomain.com"));
    EXPECT_EQ(got.code(), c.want);
    if (!got.IsSuccess()) {
      EXPECT_EQ(got.Message(), c.client_result.Message());
    }
    EXPECT_EQ(client.bindings, (std::vector<std::pair<std::string, std::string>>{
                                   {"ns/foo", "foohost.kubernetes.mydomain.com"}}));
  }
}

}  // namespace
}  // namespace muster::plugins::defaultbinder
