// Extenders at upstream's points of the scheduling and binding cycles (schedule_one.go:
// findNodesThatPassExtenders, prioritizeNodes, extendersBinding), with extenders in memory. The
// HTTP side is cluster/kube/extender_test.cc.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "muster/api/testing/builders.h"
#include "muster/framework/extender.h"
#include "muster/framework/node_info.h"
#include "muster/scheduler/testing/harness.h"

namespace muster::scheduler {
namespace {

using framework::Status;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing::MakeNode;
using testing::MakePod;
using testing::SchedulerHarness;

// An extender whose answers the test writes: each verb a function of the nodes asked about.
class FakeExtender final : public framework::Extender {
 public:
  std::string name = "http://fake";
  bool ignorable = false;
  std::string managed;  // a resource name: interested only in pods that ask for it
  // Filter: node name -> verdict ("" passes, "!reason" unresolvable, else the reason).
  std::map<std::string, std::string> verdicts;
  std::optional<Status> filter_error;
  std::map<std::string, int64_t> scores;  // Prioritize, when set
  int64_t weight = 1;
  std::optional<Status> prioritize_error;
  bool binder = false;
  std::optional<Status> bind_error;

  // What it was asked.
  std::vector<std::vector<std::string>> filtered;  // the nodes of each Filter call
  std::vector<std::string> bound;                  // "pod -> node"
  int prioritized = 0;

  const std::string& Name() const override { return name; }
  bool IsFilter() const override { return !verdicts.empty() || filter_error.has_value(); }
  bool IsPrioritizer() const override { return !scores.empty() || prioritize_error.has_value(); }
  bool IsBinder() const override { return binder; }
  bool SupportsPreemption() const override { return false; }
  bool IsIgnorable() const override { return ignorable; }
  bool IsInterested(const api::Pod& pod) const override {
    if (managed.empty()) return true;
    for (const api::Container& c : pod.spec.containers) {
      if (c.resources.requests.Has(managed)) return true;
    }
    return false;
  }
  Status Filter(const api::Pod&, std::span<framework::NodeInfo* const> nodes,
                framework::ExtenderFilterResult* result) override {
    std::vector<std::string> names;
    for (const framework::NodeInfo* n : nodes) names.push_back(n->name().string());
    filtered.push_back(names);
    if (filter_error) return *filter_error;
    for (framework::NodeInfo* n : nodes) {
      const std::string& v = verdicts[n->name().string()];
      if (v.empty()) {
        result->passed.push_back(n);
      } else if (v[0] == '!') {
        result->failed_and_unresolvable[n->name().string()] = v.substr(1);
      } else {
        result->failed[n->name().string()] = v;
      }
    }
    return Status::OK();
  }
  Status Prioritize(const api::Pod&, std::span<framework::NodeInfo* const>,
                    std::vector<std::pair<std::string, int64_t>>* out, int64_t* w) override {
    ++prioritized;
    if (prioritize_error) return *prioritize_error;
    out->assign(scores.begin(), scores.end());
    *w = weight;
    return Status::OK();
  }
  Status Bind(const api::Pod& pod, api::Symbol node) override {
    bound.push_back(pod.metadata.Key() + " -> " + node.string());
    return bind_error.value_or(Status::OK());
  }
  Status ProcessPreemption(const api::Pod&, const framework::NodeToVictims&,
                           const std::function<const framework::NodeInfo*(std::string_view)>&,
                           framework::NodeToVictims*) override {
    return Status::Error("not asked in these tests");
  }
};

class ExtendersTest : public ::testing::Test {
 protected:
  std::shared_ptr<FakeExtender> Add() {
    auto e = std::make_shared<FakeExtender>();
    extenders_.push_back(e);
    h_.scheduler().SetExtenders({extenders_.begin(), extenders_.end()});
    return e;
  }
  void Nodes(int n) {
    for (int i = 1; i <= n; ++i) h_.AddNode(Node("n" + std::to_string(i)));
  }
  static api::Node Node(const std::string& name) {
    return MakeNode().Name(name).Capacity({{"pods", "10"}}).Obj();
  }
  // The pod's last PodScheduled condition: reason, message.
  std::pair<std::string, std::string> Condition() const {
    const auto& updates = h_.client().condition_updates;
    if (updates.empty()) return {};
    return {updates.back().second.reason, updates.back().second.message};
  }

  SchedulerHarness h_;
  std::vector<std::shared_ptr<framework::Extender>> extenders_;
};

// The extender sees only the nodes the filter plugins passed; its reasons join the plugins' in
// the FitError, an unresolvable one as such.
TEST_F(ExtendersTest, FilterRunsAfterThePluginsAndItsReasonsJoinTheFitError) {
  h_.AddNode(MakeNode().Name("n1").Capacity({{"pods", "10"}}).Unschedulable().Obj());
  h_.AddNode(Node("n2"));
  h_.AddNode(Node("n3"));
  auto gpu = Add();
  gpu->verdicts = {{"n2", "gpushare: node has no GPU memory"}, {"n3", "!no GPU on this node"}};
  h_.AddPod(MakePod().Name("train").Obj());
  h_.RunCycles();
  ASSERT_EQ(gpu->filtered.size(), 1u);
  EXPECT_THAT(gpu->filtered[0], ElementsAre("n2", "n3"));
  EXPECT_THAT(h_.Bindings(), IsEmpty());
  EXPECT_EQ(Condition(), std::make_pair(std::string("Unschedulable"),
                                        std::string("0/3 nodes are available: 1 gpushare: node has "
                                                    "no GPU memory, 1 no GPU on this node, 1 "
                                                    "node(s) were unschedulable.")));
}

// Extenders are called in order, each on what the one before kept.
TEST_F(ExtendersTest, EachExtenderFiltersWhatTheOneBeforeKept) {
  Nodes(3);
  auto first = Add();
  first->verdicts = {{"n1", "first says no"}};
  auto second = Add();
  second->verdicts = {{"n2", "second says no"}};
  h_.AddPod(MakePod().Name("p").Obj());
  h_.RunCycles();
  EXPECT_THAT(first->filtered.at(0), ElementsAre("n1", "n2", "n3"));
  EXPECT_THAT(second->filtered.at(0), ElementsAre("n2", "n3"));
  EXPECT_THAT(h_.Bindings(), ElementsAre("default/p -> n3"));
}

// An ignorable extender that fails is skipped; one that is not fails the attempt with its error
// (SchedulerError), and the pod is retried.
TEST_F(ExtendersTest, AFailingExtenderIsSkippedOnlyWhenIgnorable) {
  Nodes(1);
  auto down = Add();
  down->filter_error = Status::Error("Post \"http://fake/filter\": connection refused");
  down->ignorable = true;
  h_.AddPod(MakePod().Name("a").Obj());
  h_.RunCycles();
  EXPECT_THAT(h_.Bindings(), ElementsAre("default/a -> n1"));

  down->ignorable = false;
  h_.AddPod(MakePod().Name("b").Obj());
  h_.RunCycles();
  EXPECT_THAT(h_.Bindings(), ElementsAre("default/a -> n1"));
  EXPECT_EQ(Condition(), std::make_pair(std::string("SchedulerError"),
                                        std::string("Post \"http://fake/filter\": connection "
                                                    "refused")));
}

// Ignorable extenders are asked last, whatever the configuration's order.
TEST_F(ExtendersTest, IgnorableExtendersComeLast) {
  Nodes(2);
  auto optional = Add();
  optional->ignorable = true;
  optional->verdicts = {{"n1", "optional says no"}};
  auto required = Add();
  required->verdicts = {{"n2", "required says no"}};
  h_.AddPod(MakePod().Name("p").Obj());
  h_.RunCycles();
  EXPECT_THAT(required->filtered.at(0), ElementsAre("n1", "n2"));
  EXPECT_THAT(optional->filtered.at(0), ElementsAre("n1"));
}

// managedResources: an extender is asked only about the pods that use one of its resources.
TEST_F(ExtendersTest, OnlyPodsWithAManagedResourceAreAsked) {
  Nodes(1);
  auto gpu = Add();
  gpu->managed = "example.com/gpu-mem";
  gpu->verdicts = {{"n1", "no GPU memory"}};
  h_.AddPod(MakePod().Name("web").Obj());
  h_.AddPod(MakePod().Name("train").Req({{"example.com/gpu-mem", "2"}}).Obj());
  h_.RunCycles();
  EXPECT_EQ(gpu->filtered.size(), 1u);
  EXPECT_THAT(h_.Bindings(), ElementsAre("default/web -> n1"));
}

// Extender scores (0..10) are scaled to the plugins' 0..100 and weighted: the node it likes most
// wins where the plugins tie; two extenders add up.
TEST_F(ExtendersTest, PrioritizeScoresAreScaledWeightedAndAdded) {
  Nodes(3);
  auto binpack = Add();
  binpack->scores = {{"n1", 2}, {"n2", 7}, {"n3", 5}};
  binpack->weight = 1;
  auto spread = Add();
  spread->scores = {{"n1", 10}, {"n3", 1}, {"elsewhere", 10}};
  spread->weight = 2;
  h_.AddPod(MakePod().Name("p").Obj());
  h_.RunCycles();
  // n1: 2*10 + 10*2*10 = 220; n2: 70; n3: 50 + 20 = 70.
  EXPECT_THAT(h_.Bindings(), ElementsAre("default/p -> n1"));
  EXPECT_EQ(binpack->prioritized, 1);
}

// A failed prioritize call gives no score, whether ignorable or not (upstream ignores them).
TEST_F(ExtendersTest, AFailedPrioritizeGivesNoScore) {
  Nodes(2);
  auto broken = Add();
  broken->prioritize_error = Status::Error("failed prioritize with extender, code 500");
  auto picky = Add();
  picky->scores = {{"n2", 1}};
  h_.AddPod(MakePod().Name("p").Obj());
  h_.RunCycles();
  EXPECT_THAT(h_.Bindings(), ElementsAre("default/p -> n2"));
}

// One feasible node: no scoring at all, as upstream's schedulePod.
TEST_F(ExtendersTest, ASingleFeasibleNodeIsNotScored) {
  Nodes(1);
  auto scorer = Add();
  scorer->scores = {{"n1", 3}};
  h_.AddPod(MakePod().Name("p").Obj());
  h_.RunCycles();
  EXPECT_EQ(scorer->prioritized, 0);
  EXPECT_THAT(h_.Bindings(), ElementsAre("default/p -> n1"));
}

// A binder extender binds in place of the bind plugins; an ignorable one that fails leaves it to
// them; one that is not fails the binding.
TEST_F(ExtendersTest, ABinderExtenderBindsInPlaceOfTheBindPlugins) {
  Nodes(1);
  auto binder = Add();
  binder->binder = true;
  h_.AddPod(MakePod().Name("a").Obj());
  h_.RunCycles();
  EXPECT_THAT(binder->bound, ElementsAre("default/a -> n1"));
  EXPECT_THAT(h_.Bindings(), IsEmpty());  // TestBinder was not asked
  EXPECT_EQ(h_.scheduler().stats().scheduled, 1u);

  binder->bind_error = Status::Error("extender could not bind");
  binder->ignorable = true;
  h_.AddPod(MakePod().Name("b").Obj());
  h_.RunCycles();
  EXPECT_THAT(h_.Bindings(), ElementsAre("default/b -> n1"));

  binder->ignorable = false;
  h_.AddPod(MakePod().Name("c").Obj());
  h_.RunCycles();
  EXPECT_THAT(h_.Bindings(), ElementsAre("default/b -> n1"));
  EXPECT_EQ(Condition(),
            std::make_pair(std::string("SchedulerError"), std::string("extender could not bind")));
}

// Extenders register for no events: a pod they turned away is retried on any event, here a
// node's arrival that no plugin of the pod's rejection registered for.
TEST_F(ExtendersTest, APodAnExtenderTurnedAwayIsRetriedOnAnyEvent) {
  Nodes(1);
  auto gpu = Add();
  gpu->verdicts = {{"n1", "no GPU memory"}};
  h_.AddPod(MakePod().Name("p").Obj());
  h_.RunCycles();
  ASSERT_EQ(h_.scheduler().queue().NumUnschedulable(), 1u);
  gpu->verdicts = {{"n1", "no GPU memory"}, {"n2", ""}};
  h_.AddNode(Node("n2"));
  EXPECT_EQ(h_.scheduler().queue().NumUnschedulable(), 0u);
  h_.clock().AdvanceTo(h_.clock().Now() + std::chrono::seconds(10));
  h_.RunCycles();
  EXPECT_THAT(h_.Bindings(), ElementsAre("default/p -> n2"));
}

}  // namespace
}  // namespace muster::scheduler
