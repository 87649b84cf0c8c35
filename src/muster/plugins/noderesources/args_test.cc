#include "muster/plugins/noderesources/args.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

// Validation cases from upstream validation_pluginargs_test.go (TestValidateFitArgs,
// TestValidate{Least,Most}AllocatedScoringStrategy,
// TestValidateRequestedToCapacityRatioScoringStrategy,
// TestValidateNodeResourcesBalancedAllocationArgs) and the v1 defaults of defaults_test.go. The
// label-name messages are current apimachinery's (api::LabelKeyErrors): "bytes" where older
// releases said "characters", "a valid label key" where they said "a qualified name".

namespace muster::plugins::noderesources {
namespace {

constexpr std::string_view kPrefix = "cfg.yaml: document 1 (KubeSchedulerConfiguration): args";

std::vector<std::string> Paths(const std::vector<api::FieldError>& errors) {
  std::vector<std::string> out;
  for (const api::FieldError& e : errors) out.push_back(e.path);
  return out;
}

std::vector<std::string> Messages(const std::vector<api::FieldError>& errors) {
  std::vector<std::string> out;
  for (const api::FieldError& e : errors) out.push_back(e.ToString());
  return out;
}

NodeResourcesFitArgs LeastAllocatedWith(std::vector<ResourceSpec> resources) {
  NodeResourcesFitArgs args;
  args.scoring_strategy = ScoringStrategy{std::string(kLeastAllocated), std::move(resources), {}};
  return args;
}

TEST(NodeResourcesFitArgsDecode, AllFields) {
  const YAML::Node yaml = YAML::Load(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: NodeResourcesFitArgs
ignoredResources: [example.com/foo]
ignoredResourceGroups: [example.org]
scoringStrategy:
  type: RequestedToCapacityRatio
  resources:
  - name: cpu
    weight: 2
  - name: intel.com/foo
  requestedToCapacityRatio:
    shape:
    - utilization: 0
      score: 0
    - utilization: 100
      score: 10
)");
  NodeResourcesFitArgs got;
  ArgsErrors errors{std::string(kPrefix)};
  ASSERT_TRUE(DecodeNodeResourcesFitArgs(yaml, &got, errors)) << errors.Joined();
  NodeResourcesFitArgs want;
  want.ignored_resources = {"example.com/foo"};
  want.ignored_resource_groups = {"example.org"};
  want.scoring_strategy = ScoringStrategy{"RequestedToCapacityRatio",
                                          {{"cpu", 2}, {"intel.com/foo", 0}},
                                          RequestedToCapacityRatioParam{{{0, 0}, {100, 10}}}};
  EXPECT_EQ(got, want);
  SetDefaults(got);
  want.scoring_strategy->resources[1].weight = 1;
  EXPECT_EQ(got, want);
  EXPECT_TRUE(Validate(got).empty());
}

TEST(NodeResourcesFitArgsDecode, NullArgsTakeTheDefaults) {
  NodeResourcesFitArgs args;
  std::string error;
  ASSERT_TRUE(LoadNodeResourcesFitArgs({YAML::Node(), std::string(kPrefix)}, &args, &error));
  ASSERT_TRUE(args.scoring_strategy.has_value());
  EXPECT_EQ(args.scoring_strategy->type, "LeastAllocated");
  EXPECT_EQ(args.scoring_strategy->resources, DefaultResources());
  EXPECT_FALSE(args.scoring_strategy->requested_to_capacity_ratio.has_value());
  EXPECT_TRUE(args.ignored_resources.empty());
}

TEST(NodeResourcesFitArgsDecode, StrictErrorsNameTheField) {
  struct Case {
    std::string name;
    std::string yaml;
    std::vector<std::string> want;
  };
  const std::string p(kPrefix);
  const std::vector<Case> cases = {
      {"unknown top-level field",
       "ignoredResource: [a]",
       {p + ".ignoredResource: unknown field \"ignoredResource\""}},
      {"unknown nested field",
       "scoringStrategy: {type: MostAllocated, foo: 1}",
       {p + ".scoringStrategy.foo: unknown field \"foo\""}},
      {"field names are case-sensitive",
       "scoringStrategy:\n  type: RequestedToCapacityRatio\n  requestedToCapacityRatio:\n"
       "    shape:\n    - Score: 2\n      Utilization: 1\n",
       {p + ".scoringStrategy.requestedToCapacityRatio.shape[0].Score: unknown field \"Score\"",
        p + ".scoringStrategy.requestedToCapacityRatio.shape[0].Utilization: unknown field "
            "\"Utilization\""}},
      {"a quoted integer is a string",
       "scoringStrategy: {resources: [{name: cpu, weight: \"1\"}]}",
       {p + ".scoringStrategy.resources[0].weight: expected an integer, got string \"1\""}},
      {"a list where a list belongs",
       "ignoredResources: example.com/foo",
       {p + ".ignoredResources: expected a list, got \"example.com/foo\""}},
      {"an object where an object belongs",
       "scoringStrategy: [1]",
       {p + ".scoringStrategy: expected an object, got a list"}},
      {"int32 range",
       "scoringStrategy: {requestedToCapacityRatio: {shape: [{utilization: 3000000000}]}}",
       {p + ".scoringStrategy.requestedToCapacityRatio.shape[0].utilization: integer 3000000000 "
            "out of range [-2147483648, 2147483647]"}},
      {"args that are not an object", "5", {p + ": expected an object, got \"5\""}},
      {"kind of another plugin",
       "kind: NodeAffinityArgs",
       {p + ": args for plugin NodeResourcesFit were not of type "
            "NodeResourcesFitArgs.kubescheduler.config.k8s.io, got "
            "NodeAffinityArgs.kubescheduler.config.k8s.io"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeResourcesFitArgs args;
    ArgsErrors errors{p};
    EXPECT_FALSE(DecodeNodeResourcesFitArgs(YAML::Load(c.yaml), &args, errors));
    EXPECT_EQ(errors.list(), c.want);
  }
}

TEST(NodeResourcesFitArgsDefaults, V1Defaults) {
  NodeResourcesFitArgs empty;
  SetDefaults(empty);
  EXPECT_EQ(empty, LeastAllocatedWith(DefaultResources()));

  NodeResourcesFitArgs no_resources;
  no_resources.scoring_strategy = ScoringStrategy{"MostAllocated", {}, {}};
  SetDefaults(no_resources);
  EXPECT_EQ(no_resources.scoring_strategy->resources, DefaultResources());

  NodeResourcesFitArgs zero_weight = LeastAllocatedWith({{"cpu", 0}, {"memory", 3}});
  SetDefaults(zero_weight);
  EXPECT_EQ(zero_weight.scoring_strategy->resources,
            (std::vector<ResourceSpec>{{"cpu", 1}, {"memory", 3}}));

  // The type is not defaulted when a strategy is given; validation rejects the empty type.
  NodeResourcesFitArgs no_type;
  no_type.scoring_strategy = ScoringStrategy{};
  SetDefaults(no_type);
  EXPECT_EQ(Messages(Validate(no_type)),
            std::vector<std::string>{
                "scoringStrategy.type: Unsupported value: \"\": supported values: "
                "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""});

  NodeResourcesBalancedAllocationArgs balanced;
  SetDefaults(balanced);
  EXPECT_EQ(balanced.resources, DefaultResources());
  NodeResourcesBalancedAllocationArgs balanced_zero{{{"cpu", 0}}};
  SetDefaults(balanced_zero);
  EXPECT_EQ(balanced_zero.resources, (std::vector<ResourceSpec>{{"cpu", 1}}));
}

TEST(NodeResourcesFitArgsValidate, FitArgs) {
  struct Case {
    std::string name;
    NodeResourcesFitArgs args;
    std::string expect;  // a substring of the errors, as upstream checks; empty when valid
  };
  auto with = [](std::vector<std::string> resources, std::vector<std::string> groups) {
    NodeResourcesFitArgs args = LeastAllocatedWith(DefaultResources());
    args.ignored_resources = std::move(resources);
    args.ignored_resource_groups = std::move(groups);
    return args;
  };
  NodeResourcesFitArgs invalid_type;
  invalid_type.scoring_strategy = ScoringStrategy{"Invalid", {}, {}};
  const std::vector<Case> cases = {
      {"IgnoredResources: too long value", with({"longvalue" + std::string(64, 'a')}, {}),
       "name part must be no more than 63 bytes"},
      {"IgnoredResources: name is empty", with({"example.com/"}, {}),
       "name part must be non-empty"},
      {"IgnoredResources: name has too many slash", with({"example.com/aaa/bbb"}, {}),
       "a valid label key must consist of alphanumeric characters"},
      {"IgnoredResources: valid args", with({"example.com"}, {}), ""},
      {"IgnoredResourceGroups: valid args", with({}, {"example.com"}), ""},
      {"IgnoredResourceGroups: illegal args", with({}, {"example.com/"}),
       "name part must be non-empty"},
      {"IgnoredResourceGroups: name is too long", with({}, {std::string(64, 'a')}),
       "name part must be no more than 63 bytes"},
      {"IgnoredResourceGroups: name cannot be contain slash", with({}, {"example.com/aa"}),
       "resource group name can't contain '/'"},
      {"ScoringStrategy: field is required", NodeResourcesFitArgs{},
       "ScoringStrategy field is required"},
      {"ScoringStrategy: type is unsupported", invalid_type, "Unsupported value: \"Invalid\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::vector<api::FieldError> errors = Validate(c.args);
    if (c.expect.empty()) {
      EXPECT_TRUE(errors.empty()) << Messages(errors)[0];
      continue;
    }
    std::string all;
    for (const std::string& m : Messages(errors)) all += m + "\n";
    EXPECT_NE(all.find(c.expect), std::string::npos) << all;
  }
  // The full text of one, as kube-scheduler prints it.
  EXPECT_EQ(Messages(Validate(with({}, {"example.com/aa"}))),
            std::vector<std::string>{"ignoredResourceGroups[0]: Invalid value: \"example.com/aa\": "
                                     "resource group name can't contain '/'"});
}

TEST(NodeResourcesFitArgsValidate, Weights) {
  struct Case {
    std::string name;
    std::vector<ResourceSpec> resources;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"default config", {}, {}},
      {"multi valid resources", {{"cpu", 1}, {"memory", 10}}, {}},
      {"weight less than min", {{"cpu", 0}}, {"scoringStrategy.resources[0].weight"}},
      {"weight greater than max", {{"cpu", 101}}, {"scoringStrategy.resources[0].weight"}},
      {"multi invalid resources",
       {{"cpu", 0}, {"memory", 101}},
       {"scoringStrategy.resources[0].weight", "scoringStrategy.resources[1].weight"}},
  };
  for (std::string_view type : {kLeastAllocated, kMostAllocated}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(type) + ": " + c.name);
      NodeResourcesFitArgs args;
      args.scoring_strategy = ScoringStrategy{std::string(type), c.resources, {}};
      EXPECT_EQ(Paths(Validate(args)), c.want);
    }
  }
}

TEST(NodeResourcesFitArgsValidate, RequestedToCapacityRatio) {
  struct Case {
    std::string name;
    std::vector<ResourceSpec> resources;
    std::vector<UtilizationShapePoint> shape;
    std::vector<std::string> want;
  };
  const std::string shape_path = "scoringStrategy.requestedToCapacityRatio.shape";
  const std::vector<UtilizationShapePoint> default_shape = {{30, 3}};
  const std::vector<Case> cases = {
      {"no shapes", {}, {}, {shape_path}},
      {"weight greater than max",
       {{"cpu", 101}},
       default_shape,
       {"scoringStrategy.resources[0].weight"}},
      {"weight less than min",
       {{"cpu", 0}},
       default_shape,
       {"scoringStrategy.resources[0].weight"}},
      {"valid shapes", {}, default_shape, {}},
      {"utilization less than min", {}, {{-1, 3}}, {shape_path + "[0].utilization"}},
      {"utilization greater than max", {}, {{101, 3}}, {shape_path + "[0].utilization"}},
      {"duplicated utilization values", {}, {{10, 3}, {10, 3}}, {shape_path + "[1].utilization"}},
      {"increasing utilization values", {}, {{10, 3}, {20, 3}, {30, 3}}, {}},
      {"non-increasing utilization values",
       {},
       {{10, 3}, {20, 3}, {15, 3}},
       {shape_path + "[2].utilization"}},
      {"score less than min", {}, {{10, -1}}, {shape_path + "[0].score"}},
      {"score greater than max", {}, {{10, 11}}, {shape_path + "[0].score"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    NodeResourcesFitArgs args;
    args.scoring_strategy = ScoringStrategy{std::string(kRequestedToCapacityRatio), c.resources,
                                            RequestedToCapacityRatioParam{c.shape}};
    EXPECT_EQ(Paths(Validate(args)), c.want);
  }

  NodeResourcesFitArgs args;
  args.scoring_strategy = ScoringStrategy{std::string(kRequestedToCapacityRatio), {}, {}};
  EXPECT_EQ(Messages(Validate(args)),
            std::vector<std::string>{"scoringStrategy.requestedToCapacityRatio: Required value: "
                                     "must be specified when type is RequestedToCapacityRatio"});
  args.scoring_strategy =
      ScoringStrategy{std::string(kMostAllocated), {}, RequestedToCapacityRatioParam{{{10, 3}}}};
  EXPECT_EQ(Messages(Validate(args)),
            std::vector<std::string>{"scoringStrategy.requestedToCapacityRatio: Forbidden: must be "
                                     "nil when type is not RequestedToCapacityRatio"});
  args.scoring_strategy = ScoringStrategy{std::string(kRequestedToCapacityRatio),
                                          {},
                                          RequestedToCapacityRatioParam{{{10, 3}, {5, 11}}}};
  EXPECT_EQ(Messages(Validate(args)),
            (std::vector<std::string>{
                shape_path + "[1].utilization: Invalid value: 5: values must be sorted in "
                             "increasing order",
                shape_path + "[1].score: Invalid value: 11: not in valid range [0, 10]"}));
}

TEST(NodeResourcesBalancedAllocationArgsValidate, UpstreamCases) {
  EXPECT_TRUE(Validate(NodeResourcesBalancedAllocationArgs{{{"cpu", 1}, {"memory", 1}}}).empty());
  EXPECT_EQ(Messages(Validate(NodeResourcesBalancedAllocationArgs{{{"cpu", 2}, {"memory", 1}}})),
            std::vector<std::string>{"resources[0].weight: Invalid value: 2: must be 1"});
  EXPECT_EQ(Messages(Validate(NodeResourcesBalancedAllocationArgs{{{"cpu", 1}, {"cpu", 1}}})),
            std::vector<std::string>{"resources[1].name: Duplicate value: \"cpu\""});
}

TEST(NodeResourcesArgsLoad, ErrorsCarryThePrefixOnePerLine) {
  const std::string p(kPrefix);
  NodeResourcesFitArgs fit;
  std::string error;
  EXPECT_FALSE(LoadNodeResourcesFitArgs(
      {YAML::Load("scoringStrategy: {type: Most, resources: [{name: cpu, weight: 200}]}"), p}, &fit,
      &error));
  EXPECT_EQ(error, p +
                       ".scoringStrategy.type: Unsupported value: \"Most\": supported values: "
                       "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\"\n" +
                       p +
                       ".scoringStrategy.resources[0].weight: Invalid value: 200: resource "
                       "weight of cpu not in valid range (0, 100]");

  // Decoding errors stop before validation.
  error.clear();
  EXPECT_FALSE(
      LoadNodeResourcesFitArgs({YAML::Load("scoringStrategy: {typ: Most}"), p}, &fit, &error));
  EXPECT_EQ(error, p + ".scoringStrategy.typ: unknown field \"typ\"");

  NodeResourcesBalancedAllocationArgs balanced;
  error.clear();
  EXPECT_TRUE(LoadNodeResourcesBalancedAllocationArgs(
      {YAML::Load("resources: [{name: cpu}, {name: nvidia.com/gpu}]"), p}, &balanced, &error))
      << error;
  EXPECT_EQ(balanced.resources, (std::vector<ResourceSpec>{{"cpu", 1}, {"nvidia.com/gpu", 1}}));
  EXPECT_FALSE(LoadNodeResourcesBalancedAllocationArgs(
      {YAML::Load("resources: [{name: cpu, weight: 2}]"), p}, &balanced, &error));
  EXPECT_EQ(error, p + ".resources[0].weight: Invalid value: 2: must be 1");
}

}  // namespace
}  // namespace muster::plugins::noderesources
