#include "muster/framework/profile.h"

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "muster/framework/testing/null_client.h"

namespace muster::framework {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::SizeIs;

// ---- fake plugins: one mixin per extension point, combined per test plugin ----

class FakePlugin : public virtual Plugin {
 public:
  explicit FakePlugin(std::string name) : name_(std::move(name)) {}
  std::string_view Name() const override { return name_; }

 private:
  std::string name_;
};

class PreEnqueuePoint : public virtual PreEnqueuePlugin {
 public:
  Status PreEnqueue(const api::Pod&) override { return Status::OK(); }
};
class QueueSortPoint : public virtual QueueSortPlugin {
 public:
  bool Less(const QueuedPodInfo&, const QueuedPodInfo&) const override { return false; }
};
class PreFilterPoint : public virtual PreFilterPlugin {
 public:
  Status PreFilter(CycleState&, const PodInfo&, std::span<NodeInfo* const>,
                   PreFilterResult*) override {
    return Status::OK();
  }
};
class FilterPoint : public virtual FilterPlugin {
 public:
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo&) const override {
    return Status::OK();
  }
};
class PostFilterPoint : public virtual PostFilterPlugin {
 public:
  Status PostFilter(CycleState&, const PodInfo&, const NodeToStatus&, PostFilterResult*) override {
    return Status::OK();
  }
};
class PreScorePoint : public virtual PreScorePlugin {
 public:
  Status PreScore(CycleState&, const PodInfo&, std::span<NodeInfo* const>) override {
    return Status::OK();
  }
};
class ScorePoint : public virtual ScorePlugin {
 public:
  Status Score(const CycleState&, const PodInfo&, const NodeInfo&, int64_t*) const override {
    return Status::OK();
  }
};
class ReservePoint : public virtual ReservePlugin {
 public:
  Status Reserve(CycleState&, const PodInfo&, api::Symbol) override { return Status::OK(); }
  void Unreserve(CycleState&, const PodInfo&, api::Symbol) override {}
};
class PermitPoint : public virtual PermitPlugin {
 public:
  Status Permit(CycleState&, const PodInfo&, api::Symbol, api::Duration*) override {
    return Status::OK();
  }
};
class PreBindPoint : public virtual PreBindPlugin {
 public:
  Status PreBind(CycleState&, const PodInfo&, api::Symbol) override { return Status::OK(); }
  Status PreBindPreFlight(const CycleState&, const PodInfo&, api::Symbol) const override {
    return Status::OK();
  }
};
class BindPoint : public virtual BindPlugin {
 public:
  Status Bind(CycleState&, const PodInfo&, api::Symbol) override { return Status::OK(); }
};
class PostBindPoint : public virtual PostBindPlugin {
 public:
  void PostBind(CycleState&, const PodInfo&, api::Symbol) override {}
};

template <typename... Points>
class Fake final : public FakePlugin, public Points... {
 public:
  using FakePlugin::FakePlugin;
};

// Upstream framework_test's testPlugin: every point but PreEnqueue.
using AllPoints =
    Fake<QueueSortPoint, PreFilterPoint, FilterPoint, PostFilterPoint, PreScorePoint, ScorePoint,
         ReservePoint, PermitPoint, PreBindPoint, BindPoint, PostBindPoint>;
using FilterScore = Fake<PreFilterPoint, FilterPoint, ScorePoint>;
using PreScoreScore = Fake<PreScorePoint, ScorePoint>;  // upstream's scorePlugin1
using ScoreOnly = Fake<ScorePoint>;                     // upstream's scoreWithNormalizePlugin1
using Sort = Fake<QueueSortPoint>;
using Binder = Fake<BindPoint>;
using Permitter = Fake<PermitPoint>;
using Gate = Fake<PreEnqueuePoint>;
using NoPoints = Fake<>;

// ---- fake scheduler services: nothing here runs a pod, so nothing is called ----

class FakeServices final : public SchedulerServices,
                           public Clock,
                           public WaitingPods,
                           public muster::testing::NullClient,
                           public ObjectLister {
 public:
  const Snapshot& snapshot() const override {
    static const Snapshot kEmpty;
    return kEmpty;
  }
  Clock& clock() override { return *this; }
  WaitingPods& waiting_pods() override { return *this; }
  ClusterClient& client() override { return *this; }
  const ObjectLister& lister() const override { return *this; }
  void ActivatePods(std::span<const std::string>) override {}
  std::vector<PodInfoPtr> NominatedPodsForNode(api::Symbol) const override { return {}; }
  int parallelism() const override { return 1; }

  api::Time Now() const override { return {}; }
  TimerId AddTimer(api::Time, std::function<void()>, bool) override { return 0; }
  void CancelTimer(TimerId) override {}

  void Iterate(const std::function<void(WaitingPod&)>&) override {}
  WaitingPod* Get(std::string_view) override { return nullptr; }

  std::vector<const api::Pod*> PodsWithLabel(api::Symbol, api::Symbol, api::Symbol) const override {
    return {};
  }
  std::vector<const api::Pod*> PodsInGang(api::Symbol, const api::GangRef&) const override {
    return {};
  }
  const ObjectTables& objects() const override { return objects_; }
  ObjectTables objects_;
};

// ---- config builders ----

api::PluginRef Ref(std::string name, std::optional<int32_t> weight = std::nullopt) {
  return api::PluginRef{std::move(name), weight};
}

api::PluginSet Set(std::vector<api::PluginRef> enabled, std::vector<api::PluginRef> disabled = {}) {
  return api::PluginSet{std::move(enabled), std::move(disabled)};
}

api::SchedulerProfile Profile(std::string name, std::optional<api::Plugins> plugins = {}) {
  api::SchedulerProfile p;
  p.scheduler_name = std::move(name);
  p.plugins = std::move(plugins);
  return p;
}

api::PluginConfig Config(std::string name, const std::string& yaml, std::string prefix = "") {
  return api::PluginConfig{std::move(name), YAML::Load(yaml), std::move(prefix)};
}

template <typename T>
std::vector<std::string> Names(const std::vector<T*>& plugins) {
  std::vector<std::string> names;
  for (const T* p : plugins) names.emplace_back(p->Name());
  return names;
}

std::vector<std::pair<std::string, int32_t>> Scores(const Framework& f) {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const auto& [plugin, weight] : f.plugins().score) out.emplace_back(plugin->Name(), weight);
  return out;
}

// What a factory was given.
struct Call {
  std::string name;
  YAML::Node args;
  std::string error_prefix;
  const Handle* handle;
};

class CreateProfilesTest : public ::testing::Test {
 protected:
  CreateProfilesTest() {
    Add<Gate>("SchedulingGates");
    Add<Sort>("PrioritySort");
    Add<FilterScore>("NodeAffinity");
    Add<FilterScore>("TaintToleration");
    Add<PreScoreScore>("PodTopologySpread");
    Add<Binder>("DefaultBinder");
    // Registered, not in the defaults.
    Add<FilterScore>("Extra");
    Add<Sort>("OtherSort");
    Add<Binder>("OtherBinder");
    Add<Permitter>("Gang");
    Add<NoPoints>("Passive");
    Add<AllPoints>("TestPlugin");
    Add<PreScoreScore>("ScorePlugin1");
    Add<PreScoreScore>("ScorePlugin2");
    Add<ScoreOnly>("ScoreWithNormalize");

    // A miniature of upstream's default list: only multiPoint, with some weights.
    defaults_.multi_point =
        Set({Ref("SchedulingGates"), Ref("PrioritySort"), Ref("NodeAffinity", 2),
             Ref("TaintToleration", 3), Ref("PodTopologySpread", 2), Ref("DefaultBinder")});
  }

  template <typename T>
  void Add(const std::string& name, const std::string& plugin_name = "") {
    Status s = registry_.Register(
        name, [this, name, plugin_name](const PluginArgs& args, Handle& handle, std::string*) {
          calls_.push_back(Call{name, args.args, args.error_prefix, &handle});
          return std::make_unique<T>(plugin_name.empty() ? name : plugin_name);
        });
    ASSERT_TRUE(s.IsSuccess()) << ToString(s);
  }

  void AddFailing(const std::string& name, const std::string& error) {
    Status s = registry_.Register(
        name, [this, name, error](const PluginArgs& args, Handle& handle, std::string* out) {
          calls_.push_back(Call{name, args.args, args.error_prefix, &handle});
          *out = error;
          return std::unique_ptr<Plugin>();
        });
    ASSERT_TRUE(s.IsSuccess()) << ToString(s);
  }

  std::vector<std::unique_ptr<Framework>> Create(const api::SchedulerConfiguration* config) {
    errors_.clear();
    return CreateProfiles(config, registry_, defaults_, services_, &errors_);
  }

  // One profile with these plugins.
  std::vector<std::unique_ptr<Framework>> CreateOne(api::Plugins plugins) {
    config_.profiles = {Profile("default-scheduler", std::move(plugins))};
    return Create(&config_);
  }

  const Call* FindCall(const std::string& name) const {
    for (const Call& c : calls_) {
      if (c.name == name) return &c;
    }
    return nullptr;
  }

  // No defaults, for upstream's framework cases, which build a framework from exactly the
  // plugins they list.
  void UseBareDefaults() { defaults_ = api::Plugins{}; }

  Registry registry_;
  api::Plugins defaults_;
  FakeServices services_;
  api::SchedulerConfiguration config_;
  std::vector<Call> calls_;
  std::vector<std::string> errors_;
};

// ---- profiles and defaults ----

TEST_F(CreateProfilesTest, NullConfigBuildsTheDefaultProfileFromTheDefaults) {
  auto profiles = Create(nullptr);
  ASSERT_THAT(errors_, IsEmpty());
  ASSERT_THAT(profiles, SizeIs(1));
  const Framework& f = *profiles[0];
  EXPECT_EQ(f.scheduler_name(), "default-scheduler");
  EXPECT_EQ(f.percentage_of_nodes_to_score(), std::nullopt);
  const ProfilePlugins& p = f.plugins();
  EXPECT_THAT(Names(p.pre_enqueue), ElementsAre("SchedulingGates"));
  ASSERT_NE(p.queue_sort, nullptr);
  EXPECT_EQ(p.queue_sort->Name(), "PrioritySort");
  EXPECT_THAT(Names(p.pre_filter), ElementsAre("NodeAffinity", "TaintToleration"));
  EXPECT_THAT(Names(p.filter), ElementsAre("NodeAffinity", "TaintToleration"));
  EXPECT_THAT(Names(p.post_filter), IsEmpty());
  EXPECT_THAT(Names(p.pre_score), ElementsAre("PodTopologySpread"));
  EXPECT_THAT(Scores(f), ElementsAre(Pair("NodeAffinity", 2), Pair("TaintToleration", 3),
                                     Pair("PodTopologySpread", 2)));
  EXPECT_THAT(Names(p.reserve), IsEmpty());
  EXPECT_THAT(Names(p.permit), IsEmpty());
  EXPECT_THAT(Names(p.pre_bind), IsEmpty());
  EXPECT_THAT(Names(p.bind), ElementsAre("DefaultBinder"));
  EXPECT_THAT(Names(p.post_bind), IsEmpty());
  // Each plugin built once, with the framework as its Handle and no args.
  ASSERT_THAT(calls_, SizeIs(6));
  for (const Call& c : calls_) {
    EXPECT_EQ(c.handle, profiles[0].get()) << c.name;
    EXPECT_TRUE(!c.args.IsDefined() || c.args.IsNull()) << c.name;
  }
}

TEST_F(CreateProfilesTest, NoProfilesMeansOneDefaultProfileWithTheGlobalPercentage) {
  config_.percentage_of_nodes_to_score = 30;
  auto profiles = Create(&config_);
  ASSERT_THAT(errors_, IsEmpty());
  ASSERT_THAT(profiles, SizeIs(1));
  EXPECT_EQ(profiles[0]->scheduler_name(), "default-scheduler");
  EXPECT_EQ(profiles[0]->percentage_of_nodes_to_score(), 30);
}

TEST_F(CreateProfilesTest, ProfilePercentageWinsOverTheGlobalOne) {
  config_.percentage_of_nodes_to_score = 30;
  config_.profiles = {Profile("a"), Profile("b"), Profile("c")};
  config_.profiles[0].percentage_of_nodes_to_score = 70;
  config_.profiles[2].percentage_of_nodes_to_score = 0;
  auto profiles = Create(&config_);
  ASSERT_THAT(errors_, IsEmpty());
  ASSERT_THAT(profiles, SizeIs(3));
  EXPECT_EQ(profiles[0]->percentage_of_nodes_to_score(), 70);
  EXPECT_EQ(profiles[1]->percentage_of_nodes_to_score(), 30);
  EXPECT_EQ(profiles[2]->percentage_of_nodes_to_score(), 0);
}

TEST_F(CreateProfilesTest, DisablingADefaultAtOnePointKeepsItElsewhere) {
  api::Plugins plugins;
  plugins.filter = Set({}, {Ref("TaintToleration")});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  const ProfilePlugins& p = profiles[0]->plugins();
  EXPECT_THAT(Names(p.filter), ElementsAre("NodeAffinity"));
  EXPECT_THAT(Names(p.pre_filter), ElementsAre("NodeAffinity", "TaintToleration"));
  EXPECT_THAT(Scores(*profiles[0]), ElementsAre(Pair("NodeAffinity", 2), Pair("TaintToleration", 3),
                                                Pair("PodTopologySpread", 2)));
}

TEST_F(CreateProfilesTest, DisablingStarAtAPointSkipsMultiPointExpansionThere) {
  api::Plugins plugins;
  plugins.score = Set({}, {Ref("*")});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  const ProfilePlugins& p = profiles[0]->plugins();
  EXPECT_THAT(Scores(*profiles[0]), IsEmpty());
  EXPECT_THAT(Names(p.pre_score), ElementsAre("PodTopologySpread"));
  EXPECT_THAT(Names(p.filter), ElementsAre("NodeAffinity", "TaintToleration"));
}

TEST_F(CreateProfilesTest, StarDisabledPointKeepsItsExplicitPlugins) {
  api::Plugins plugins;
  plugins.score = Set({Ref("TaintToleration", 5)}, {Ref("*")});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  EXPECT_THAT(Scores(*profiles[0]), ElementsAre(Pair("TaintToleration", 5)));
}

TEST_F(CreateProfilesTest, DisablingADefaultInMultiPointRemovesItEverywhere) {
  api::Plugins plugins;
  plugins.multi_point = Set({}, {Ref("TaintToleration")});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  const ProfilePlugins& p = profiles[0]->plugins();
  EXPECT_THAT(Names(p.pre_filter), ElementsAre("NodeAffinity"));
  EXPECT_THAT(Names(p.filter), ElementsAre("NodeAffinity"));
  EXPECT_THAT(Scores(*profiles[0]),
              ElementsAre(Pair("NodeAffinity", 2), Pair("PodTopologySpread", 2)));
  EXPECT_EQ(FindCall("TaintToleration"), nullptr);
}

TEST_F(CreateProfilesTest, MultiPointStarReplacesAllDefaults) {
  api::Plugins plugins;
  plugins.multi_point =
      Set({Ref("OtherSort"), Ref("OtherBinder"), Ref("ScorePlugin1")}, {Ref("*")});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  const ProfilePlugins& p = profiles[0]->plugins();
  EXPECT_EQ(p.queue_sort->Name(), "OtherSort");
  EXPECT_THAT(Names(p.bind), ElementsAre("OtherBinder"));
  EXPECT_THAT(Names(p.pre_score), ElementsAre("ScorePlugin1"));
  EXPECT_THAT(Scores(*profiles[0]), ElementsAre(Pair("ScorePlugin1", 1)));
  EXPECT_THAT(Names(p.filter), IsEmpty());
  EXPECT_THAT(Names(p.pre_enqueue), IsEmpty());
  EXPECT_THAT(calls_, SizeIs(3));
}

TEST_F(CreateProfilesTest, ReconfiguredMultiPointDefaultKeepsItsPosition) {
  api::Plugins plugins;
  plugins.multi_point = Set({Ref("Extra"), Ref("TaintToleration", 7)});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  const ProfilePlugins& p = profiles[0]->plugins();
  EXPECT_THAT(Names(p.filter), ElementsAre("NodeAffinity", "TaintToleration", "Extra"));
  EXPECT_THAT(Scores(*profiles[0]), ElementsAre(Pair("NodeAffinity", 2), Pair("TaintToleration", 7),
                                                Pair("PodTopologySpread", 2), Pair("Extra", 1)));
}

TEST_F(CreateProfilesTest, CustomPluginIsAppendedAndExpandedToEveryPointItImplements) {
  api::Plugins plugins;
  plugins.multi_point = Set({Ref("Gang"), Ref("Extra", 4)});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  const ProfilePlugins& p = profiles[0]->plugins();
  EXPECT_THAT(Names(p.pre_filter), ElementsAre("NodeAffinity", "TaintToleration", "Extra"));
  EXPECT_THAT(Names(p.filter), ElementsAre("NodeAffinity", "TaintToleration", "Extra"));
  EXPECT_THAT(Names(p.permit), ElementsAre("Gang"));
  EXPECT_THAT(Names(p.pre_score), ElementsAre("PodTopologySpread"));
  EXPECT_THAT(Scores(*profiles[0]), ElementsAre(Pair("NodeAffinity", 2), Pair("TaintToleration", 3),
                                                Pair("PodTopologySpread", 2), Pair("Extra", 4)));
}

TEST_F(CreateProfilesTest, PerPointDefaultReconfiguredKeepsPositionAndCustomIsAppended) {
  // Upstream's defaults used to be per point; mergePluginSet still handles them.
  defaults_.filter = Set({Ref("NodeAffinity"), Ref("TaintToleration")});
  defaults_.multi_point = Set({Ref("PrioritySort"), Ref("DefaultBinder")});
  api::Plugins plugins;
  plugins.filter = Set({Ref("Extra"), Ref("NodeAffinity")});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  EXPECT_THAT(Names(profiles[0]->plugins().filter),
              ElementsAre("NodeAffinity", "TaintToleration", "Extra"));
}

TEST_F(CreateProfilesTest, ExplicitPointConfigOverridesMultiPointInUpstreamOrder) {
  // Overridden plugins first in their explicit order, then multiPoint's, then other explicit.
  api::Plugins plugins;
  plugins.filter = Set({Ref("Extra"), Ref("TaintToleration")});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  EXPECT_THAT(Names(profiles[0]->plugins().filter),
              ElementsAre("TaintToleration", "NodeAffinity", "Extra"));
  EXPECT_THAT(Names(profiles[0]->plugins().pre_filter),
              ElementsAre("NodeAffinity", "TaintToleration"));
}

TEST_F(CreateProfilesTest, ExplicitScoreEntryWithoutWeightGetsOneNotTheMultiPointWeight) {
  api::Plugins plugins;
  plugins.score = Set({Ref("TaintToleration")});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  EXPECT_THAT(Scores(*profiles[0]), ElementsAre(Pair("TaintToleration", 1), Pair("NodeAffinity", 2),
                                                Pair("PodTopologySpread", 2)));
}

TEST_F(CreateProfilesTest, PluginsSectionAbsentOrEmptyGivesTheSameDefaults) {
  config_.profiles = {Profile("a"), Profile("b", api::Plugins{})};
  auto profiles = Create(&config_);
  ASSERT_THAT(errors_, IsEmpty());
  ASSERT_THAT(profiles, SizeIs(2));
  EXPECT_EQ(Scores(*profiles[0]), Scores(*profiles[1]));
  EXPECT_EQ(Names(profiles[0]->plugins().filter), Names(profiles[1]->plugins().filter));
  // Plugins are per profile: built once for each.
  EXPECT_THAT(calls_, SizeIs(12));
}

TEST_F(CreateProfilesTest, MultiPointPluginAtNoPointIsStillBuilt) {
  api::Plugins plugins;
  plugins.multi_point = Set({Ref("Passive")});
  auto profiles = CreateOne(plugins);
  ASSERT_THAT(errors_, IsEmpty());
  ASSERT_NE(FindCall("Passive"), nullptr);
  EXPECT_EQ(FindCall("Passive")->handle, profiles[0].get());
}

// ---- upstream's TestNewFrameworkMultiPointExpansion ----

struct ExpansionCase {
  std::string name;
  api::Plugins plugins;
  std::vector<std::string> want_pre_score;
  std::vector<std::pair<std::string, int32_t>> want_score;
  bool want_test_plugin_elsewhere = true;  // TestPlugin alone at its other points
};

// Names the case in failure messages instead of dumping its bytes.
void PrintTo(const ExpansionCase& c, std::ostream* os) { *os << c.name; }

class MultiPointExpansionTest : public CreateProfilesTest,
                                public ::testing::WithParamInterface<ExpansionCase> {};

TEST_P(MultiPointExpansionTest, MatchesUpstream) {
  UseBareDefaults();
  auto profiles = CreateOne(GetParam().plugins);
  ASSERT_THAT(errors_, IsEmpty());
  ASSERT_THAT(profiles, SizeIs(1));
  const ProfilePlugins& p = profiles[0]->plugins();
  EXPECT_EQ(Names(p.pre_score), GetParam().want_pre_score);
  EXPECT_EQ(Scores(*profiles[0]), GetParam().want_score);
  if (GetParam().want_test_plugin_elsewhere) {
    const std::vector<std::string> test_plugin = {"TestPlugin"};
    EXPECT_EQ(p.queue_sort->Name(), "TestPlugin");
    EXPECT_EQ(Names(p.pre_filter), test_plugin);
    EXPECT_EQ(Names(p.filter), test_plugin);
    EXPECT_EQ(Names(p.post_filter), test_plugin);
    EXPECT_EQ(Names(p.reserve), test_plugin);
    EXPECT_EQ(Names(p.permit), test_plugin);
    EXPECT_EQ(Names(p.pre_bind), test_plugin);
    EXPECT_EQ(Names(p.bind), test_plugin);
    EXPECT_EQ(Names(p.post_bind), test_plugin);
    EXPECT_THAT(Names(p.pre_enqueue), IsEmpty());
  }
  // However often a name appears, its plugin is built once.
  std::set<std::string> built;
  for (const Call& c : calls_) EXPECT_TRUE(built.insert(c.name).second) << c.name;
}

api::Plugins WithMultiPoint(std::vector<api::PluginRef> enabled) {
  api::Plugins plugins;
  plugins.multi_point = Set(std::move(enabled));
  return plugins;
}

std::vector<ExpansionCase> ExpansionCases() {
  std::vector<ExpansionCase> cases;
  cases.push_back({"PluginExpansion",
                   WithMultiPoint({Ref("TestPlugin", 5)}),
                   {"TestPlugin"},
                   {{"TestPlugin", 5}}});
  {
    api::Plugins p = WithMultiPoint({Ref("TestPlugin")});
    p.pre_score = Set({}, {Ref("TestPlugin")});
    p.score = Set({}, {Ref("TestPlugin")});
    cases.push_back({"DisableAtSomePoints", p, {}, {}});
  }
  cases.push_back({"MultipleMultiPointPlugins",
                   WithMultiPoint({Ref("TestPlugin"), Ref("ScorePlugin1")}),
                   {"TestPlugin", "ScorePlugin1"},
                   {{"TestPlugin", 1}, {"ScorePlugin1", 1}}});
  {
    api::Plugins p = WithMultiPoint({Ref("TestPlugin"), Ref("ScorePlugin1")});
    p.pre_score = Set({}, {Ref("*")});
    cases.push_back(
        {"DisableMultiPointExtension", p, {}, {{"TestPlugin", 1}, {"ScorePlugin1", 1}}});
  }
  {
    api::Plugins p =
        WithMultiPoint({Ref("ScoreWithNormalize"), Ref("TestPlugin"), Ref("ScorePlugin1")});
    p.score = Set({Ref("ScorePlugin1"), Ref("TestPlugin")});
    cases.push_back({"SpecifiedExtensionTakesPrecedence",
                     p,
                     {"TestPlugin", "ScorePlugin1"},
                     {{"ScorePlugin1", 1}, {"TestPlugin", 1}, {"ScoreWithNormalize", 1}}});
  }
  {
    api::Plugins p = WithMultiPoint({Ref("TestPlugin"), Ref("ScorePlugin1")});
    p.score = Set({Ref("ScoreWithNormalize"), Ref("ScorePlugin1"), Ref("TestPlugin")});
    cases.push_back({"SpecifiedExtensionPrecedesOnlyWhenInMultiPoint",
                     p,
                     {"TestPlugin", "ScorePlugin1"},
                     {{"ScorePlugin1", 1}, {"TestPlugin", 1}, {"ScoreWithNormalize", 1}}});
  }
  {
    api::Plugins p = WithMultiPoint({Ref("TestPlugin"), Ref("ScorePlugin1")});
    p.score = Set({Ref("ScorePlugin1", 5), Ref("TestPlugin", 3)});
    cases.push_back({"OverrideMultiPointWeights",
                     p,
                     {"TestPlugin", "ScorePlugin1"},
                     {{"ScorePlugin1", 5}, {"TestPlugin", 3}}});
  }
  {
    api::Plugins p = WithMultiPoint({Ref("OtherSort"), Ref("OtherBinder"), Ref("ScorePlugin1")});
    p.multi_point.disabled = {Ref("*")};
    cases.push_back({"DisableAndEnableWithStar",
                     p,
                     {"ScorePlugin1"},
                     {{"ScorePlugin1", 1}},
                     /*want_test_plugin_elsewhere=*/false});
  }
  {
    api::Plugins p = WithMultiPoint({Ref("OtherBinder"), Ref("OtherSort"), Ref("ScorePlugin1")});
    p.multi_point.disabled = {Ref("ScorePlugin1")};
    cases.push_back({"DisableAndEnableByName",
                     p,
                     {"ScorePlugin1"},
                     {{"ScorePlugin1", 1}},
                     /*want_test_plugin_elsewhere=*/false});
  }
  {
    api::Plugins p = WithMultiPoint({Ref("TestPlugin"), Ref("ScorePlugin1")});
    p.score = Set({Ref("ScorePlugin1", 5), Ref("ScorePlugin2", 5), Ref("TestPlugin", 3)});
    cases.push_back({"OverrideWeightsAndBuildOnce",
                     p,
                     {"TestPlugin", "ScorePlugin1"},
                     {{"ScorePlugin1", 5}, {"TestPlugin", 3}, {"ScorePlugin2", 5}}});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Upstream, MultiPointExpansionTest, ::testing::ValuesIn(ExpansionCases()),
                         [](const ::testing::TestParamInfo<ExpansionCase>& info) {
                           return info.param.name;
                         });

// ---- plugin args ----

TEST_F(CreateProfilesTest, ArgsGoToTheirOwnPluginsFactory) {
  config_.source = "cfg.yaml: document 1";
  config_.profiles = {Profile("default-scheduler")};
  config_.profiles[0].plugin_config = {
      Config("TaintToleration", "{a: 1}", "cfg.yaml: profiles[0].pluginConfig[0].args"),
      Config("NodeAffinity", "{b: [x, y]}", "cfg.yaml: profiles[0].pluginConfig[1].args")};
  auto profiles = Create(&config_);
  ASSERT_THAT(errors_, IsEmpty());
  const Call* taint = FindCall("TaintToleration");
  ASSERT_NE(taint, nullptr);
  EXPECT_EQ(taint->args["a"].as<int>(), 1);
  EXPECT_EQ(taint->error_prefix, "cfg.yaml: profiles[0].pluginConfig[0].args");
  const Call* affinity = FindCall("NodeAffinity");
  ASSERT_NE(affinity, nullptr);
  EXPECT_EQ(affinity->args["b"][1].as<std::string>(), "y");
  EXPECT_EQ(affinity->error_prefix, "cfg.yaml: profiles[0].pluginConfig[1].args");
  const Call* binder = FindCall("DefaultBinder");
  ASSERT_NE(binder, nullptr);
  EXPECT_TRUE(!binder->args.IsDefined() || binder->args.IsNull());
  EXPECT_EQ(binder->error_prefix,
            "cfg.yaml: document 1 (KubeSchedulerConfiguration): profiles[0].pluginConfig");
}

TEST_F(CreateProfilesTest, ConfigForAPluginTheProfileDoesNotUseIsIgnored) {
  config_.profiles = {Profile("default-scheduler")};
  config_.profiles[0].plugin_config = {Config("Extra", "{a: 1}"), Config("Unregistered", "{}")};
  auto profiles = Create(&config_);
  EXPECT_THAT(errors_, IsEmpty());
  EXPECT_THAT(profiles, SizeIs(1));
  EXPECT_EQ(FindCall("Extra"), nullptr);
}

TEST_F(CreateProfilesTest, FactoryFailureIsReportedWithItsError) {
  AddFailing("Broken", "cfg.yaml: profiles[0].pluginConfig[0].args.x: Invalid value: 3");
  api::Plugins plugins;
  plugins.filter = Set({Ref("Broken")});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(profiles, IsEmpty());
  // Reported once: not again as a FilterPlugin that does not exist.
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): initializing plugin "
                                   "\"Broken\": cfg.yaml: profiles[0].pluginConfig[0].args.x: "
                                   "Invalid value: 3"));
}

// ---- errors within a profile ----

TEST_F(CreateProfilesTest, UnknownPluginNamesItsExtensionPoint) {
  api::Plugins plugins;
  plugins.filter = Set({Ref("Foo")});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_,
              ElementsAre("profiles[0] (default-scheduler): FilterPlugin \"Foo\" does not exist"));
}

TEST_F(CreateProfilesTest, UnknownMultiPointPluginIsReportedAtTheFirstExpandedPoint) {
  api::Plugins plugins;
  plugins.multi_point = Set({Ref("Foo")});
  CreateOne(plugins);
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): PreFilterPlugin \"Foo\" does "
                                   "not exist"));

  plugins.pre_filter = Set({}, {Ref("*")});
  CreateOne(plugins);
  EXPECT_THAT(errors_,
              ElementsAre("profiles[0] (default-scheduler): FilterPlugin \"Foo\" does not exist"));
}

TEST_F(CreateProfilesTest, PluginEnabledAtAPointItDoesNotImplement) {
  api::Plugins plugins;
  plugins.filter = Set({Ref("PrioritySort")});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): plugin \"PrioritySort\" does "
                                   "not extend FilterPlugin plugin"));
}

TEST_F(CreateProfilesTest, PluginTwiceAtAPoint) {
  api::Plugins plugins;
  plugins.filter = Set({Ref("Extra"), Ref("Extra")});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): plugin \"Extra\" already "
                                   "registered as \"FilterPlugin\""));
}

TEST_F(CreateProfilesTest, PluginTwiceInMultiPointIsReportedOnce) {
  api::Plugins plugins;
  plugins.multi_point = Set({Ref("Extra"), Ref("Extra")});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): plugin \"Extra\" already "
                                   "registered as \"PreFilterPlugin\""));
}

TEST_F(CreateProfilesTest, NoQueueSortPlugin) {
  api::Plugins plugins;
  plugins.multi_point = Set({}, {Ref("PrioritySort")});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): only one queue sort plugin "
                                   "required for profile with scheduler name "
                                   "\"default-scheduler\", but got 0"));
}

TEST_F(CreateProfilesTest, TwoQueueSortPluginsThroughMultiPoint) {
  api::Plugins plugins;
  plugins.multi_point = Set({Ref("OtherSort")});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): only one queue sort plugin "
                                   "required for profile with scheduler name "
                                   "\"default-scheduler\", but got 2"));
}

TEST_F(CreateProfilesTest, TwoExplicitQueueSortPluginsFailValidation) {
  api::Plugins plugins;
  plugins.queue_sort = Set({Ref("PrioritySort"), Ref("OtherSort")});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): plugins.queueSort.Enabled: "
                                   "Invalid value: 2: only one queue sort plugin can be enabled"));
  EXPECT_THAT(calls_, IsEmpty());
}

TEST_F(CreateProfilesTest, NoBindPlugin) {
  api::Plugins plugins;
  plugins.bind = Set({}, {Ref("*")});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): at least one bind plugin is "
                                   "needed for profile with scheduler name "
                                   "\"default-scheduler\""));
}

TEST_F(CreateProfilesTest, NegativeWeightTripsUpstreamsOverflowCheck) {
  // Go's wrapping subtraction makes any score plugin after a negative weight "overflow", and
  // multiPoint's score plugins count even where the score point disables them.
  api::Plugins plugins;
  plugins.score = Set({Ref("Extra", -1)}, {Ref("*")});
  CreateOne(plugins);
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): total score of Score "
                                   "plugins could overflow"));

  // Last in line it passes.
  UseBareDefaults();
  plugins.multi_point = Set({Ref("PrioritySort"), Ref("DefaultBinder")});
  plugins.score = Set({Ref("ScorePlugin1", 1), Ref("Extra", -1)});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(errors_, IsEmpty());
  ASSERT_THAT(profiles, SizeIs(1));
  EXPECT_THAT(Scores(*profiles[0]), ElementsAre(Pair("ScorePlugin1", 1), Pair("Extra", -1)));
}

TEST_F(CreateProfilesTest, ScorePluginWhoseNameDiffersFromItsRegistrationHasNoWeight) {
  Add<ScoreOnly>("Alias", "RealName");
  api::Plugins plugins;
  plugins.score = Set({Ref("Alias", 2)});
  auto profiles = CreateOne(plugins);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (default-scheduler): score plugin \"RealName\" is "
                                   "not configured with weight"));
}

// ---- validation and errors across profiles ----

TEST_F(CreateProfilesTest, ErrorsOfEveryProfileAreCollected) {
  api::Plugins bad_filter;
  bad_filter.filter = Set({Ref("Foo")});
  api::Plugins bad_bind;
  bad_bind.bind = Set({Ref("Extra")});
  config_.profiles = {Profile("a", bad_filter), Profile("b"), Profile("c", bad_bind)};
  auto profiles = Create(&config_);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[0] (a): FilterPlugin \"Foo\" does not exist",
                                   "profiles[2] (c): plugin \"Extra\" does not extend BindPlugin "
                                   "plugin"));
}

TEST_F(CreateProfilesTest, ExplicitQueueSortDifferingBetweenProfiles) {
  api::Plugins other;
  other.queue_sort = Set({Ref("OtherSort")}, {Ref("*")});
  config_.profiles = {Profile("a"), Profile("b", other)};
  auto profiles = Create(&config_);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(
      errors_,
      ElementsAre("profiles[1] (b): plugins.queueSort: Invalid value: "
                  "config.PluginSet{Enabled:[]config.Plugin{config.Plugin{Name:\"OtherSort\", "
                  "Weight:0}}, Disabled:[]config.Plugin{config.Plugin{Name:\"*\", "
                  "Weight:0}}}: must be the same for all profiles"));
  EXPECT_THAT(calls_, IsEmpty());
}

TEST_F(CreateProfilesTest, ExplicitQueueSortInOneProfileOnlyIsRejectedEvenIfTheSamePlugin) {
  api::Plugins explicit_sort;
  explicit_sort.queue_sort = Set({Ref("PrioritySort")});
  config_.profiles = {Profile("a", explicit_sort), Profile("b")};
  auto profiles = Create(&config_);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[1] (b): plugins.queueSort: Invalid value: "
                                   "config.PluginSet{Enabled:[]config.Plugin(nil), "
                                   "Disabled:[]config.Plugin(nil)}: must be the same for all "
                                   "profiles"));
}

TEST_F(CreateProfilesTest, EffectiveQueueSortDifferingThroughMultiPoint) {
  api::Plugins other;
  other.multi_point = Set({Ref("OtherSort")}, {Ref("PrioritySort")});
  config_.profiles = {Profile("a"), Profile("b", other)};
  auto profiles = Create(&config_);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[1] (b): different queue sort plugins for profile "
                                   "\"b\": \"OtherSort\", first: \"PrioritySort\""));
}

TEST_F(CreateProfilesTest, QueueSortArgsDifferingBetweenProfiles) {
  config_.profiles = {Profile("a"), Profile("b")};
  config_.profiles[0].plugin_config = {Config("PrioritySort", "{x: 1}")};
  config_.profiles[1].plugin_config = {Config("PrioritySort", "{x: 2}")};
  auto profiles = Create(&config_);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_,
              ElementsAre("profiles[1] (b): different queue sort plugin args for profile \"b\""));

  // Same args written differently are the same.
  config_.profiles[0].plugin_config = {Config("PrioritySort", "{x: 1, y: [a]}")};
  config_.profiles[1].plugin_config = {Config("PrioritySort", "y: [a]\nx: 1\n")};
  profiles = Create(&config_);
  EXPECT_THAT(errors_, IsEmpty());
  EXPECT_THAT(profiles, SizeIs(2));
}

TEST_F(CreateProfilesTest, ExplicitQueueSortArgsDifferingFailValidation) {
  api::Plugins explicit_sort;
  explicit_sort.queue_sort = Set({Ref("PrioritySort")});
  config_.profiles = {Profile("a", explicit_sort), Profile("b", explicit_sort)};
  config_.profiles[0].plugin_config = {Config("PrioritySort", "{x: 1}")};
  config_.profiles[1].plugin_config = {Config("PrioritySort", "{x: 2}")};
  auto profiles = Create(&config_);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[1] (b): pluginConfig.args: Invalid value: {x: 2}: "
                                   "queueSort must be the same for all profiles"));
}

TEST_F(CreateProfilesTest, SchedulerNamesMustBeSetAndUnique) {
  config_.profiles = {Profile("a"), Profile(""), Profile("a")};
  auto profiles = Create(&config_);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors_, ElementsAre("profiles[1] (): schedulerName: Required value",
                                   "profiles[2] (a): schedulerName: Duplicate value: \"a\""));
  EXPECT_THAT(calls_, IsEmpty());
}

TEST_F(CreateProfilesTest, RepeatedPluginConfigAndBadPercentages) {
  config_.percentage_of_nodes_to_score = 101;
  config_.profiles = {Profile("a")};
  config_.profiles[0].percentage_of_nodes_to_score = -1;
  config_.profiles[0].plugin_config = {Config("Extra", "{}"), Config("Extra", "{}")};
  auto profiles = Create(&config_);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(
      errors_,
      ElementsAre("profiles[0] (a): percentageOfNodesToScore: Invalid value: -1: not in valid "
                  "range [0-100]",
                  "profiles[0] (a): pluginConfig[1]: Duplicate value: \"Extra\"",
                  "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"));
}

TEST_F(CreateProfilesTest, ErrorsAreAppendedToWhatTheCallerHas) {
  api::Plugins plugins;
  plugins.filter = Set({Ref("Foo")});
  config_.profiles = {Profile("default-scheduler", plugins)};
  std::vector<std::string> errors = {"earlier"};
  auto profiles = CreateProfiles(&config_, registry_, defaults_, services_, &errors);
  EXPECT_THAT(profiles, IsEmpty());
  EXPECT_THAT(errors, ElementsAre("earlier",
                                  "profiles[0] (default-scheduler): FilterPlugin "
                                  "\"Foo\" does not exist"));
}

}  // namespace
}  // namespace muster::framework
