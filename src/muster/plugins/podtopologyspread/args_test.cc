#include "muster/plugins/podtopologyspread/args.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

// Validation cases from upstream validation_pluginargs_test.go (TestValidatePodTopologySpreadArgs)
// with the full messages upstream's field errors print, and the v1 default of defaults_test.go.

namespace muster::plugins::podtopologyspread {
namespace {

constexpr std::string_view kPrefix = "cfg.yaml: document 1 (KubeSchedulerConfiguration): args";

std::vector<std::string> Messages(const std::vector<api::FieldError>& errors) {
  std::vector<std::string> out;
  for (const api::FieldError& e : errors) out.push_back(e.ToString());
  return out;
}

DefaultConstraint Make(int32_t max_skew, std::string key, std::string when) {
  DefaultConstraint c;
  c.max_skew = max_skew;
  c.topology_key = std::move(key);
  c.when_unsatisfiable = std::move(when);
  return c;
}

PodTopologySpreadArgs List(std::vector<DefaultConstraint> constraints) {
  return PodTopologySpreadArgs{std::move(constraints), std::string(kListDefaulting)};
}

TEST(PodTopologySpreadArgsDecode, AllFields) {
  const YAML::Node yaml = YAML::Load(R"(
apiVersion: kubescheduler.config.k8s.io/v1
kind: PodTopologySpreadArgs
defaultingType: List
defaultConstraints:
- maxSkew: 2
  topologyKey: topology.kubernetes.io/zone
  whenUnsatisfiable: ScheduleAnyway
  minDomains: 3
  nodeAffinityPolicy: Ignore
  nodeTaintsPolicy: Honor
  matchLabelKeys: [app]
)");
  PodTopologySpreadArgs got;
  ArgsErrors errors{std::string(kPrefix)};
  ASSERT_TRUE(DecodePodTopologySpreadArgs(yaml, &got, errors)) << errors.Joined();
  DefaultConstraint want = Make(2, "topology.kubernetes.io/zone", "ScheduleAnyway");
  want.min_domains = 3;
  want.node_affinity_policy = "Ignore";
  want.node_taints_policy = "Honor";
  want.match_label_keys = {"app"};
  EXPECT_EQ(got, List({want}));
}

TEST(PodTopologySpreadArgsDecode, StrictErrors) {
  const YAML::Node yaml = YAML::Load(R"(
defaultingType: List
defaultConstraints:
- maxSkew: "1"
  topologyKey: zone
  whenUnsatisfiable: DoNotSchedule
  labelSelector: {matchLabels: {a: b}, bogus: 1}
  extra: true
)");
  PodTopologySpreadArgs got;
  ArgsErrors errors{std::string(kPrefix)};
  EXPECT_FALSE(DecodePodTopologySpreadArgs(yaml, &got, errors));
  const std::string p = std::string(kPrefix) + ".defaultConstraints[0]";
  EXPECT_EQ(errors.list(), (std::vector<std::string>{
                               p + ".extra: unknown field \"extra\"",
                               p + ".maxSkew: expected an integer, got string \"1\"",
                               p + ".labelSelector.bogus: unknown field \"bogus\"",
                           }));
}

TEST(PodTopologySpreadArgsDefaults, SystemWhenUnset) {
  PodTopologySpreadArgs args;
  SetDefaults(args);
  EXPECT_EQ(args.defaulting_type, kSystemDefaulting);
  PodTopologySpreadArgs list = List({});
  SetDefaults(list);
  EXPECT_EQ(list.defaulting_type, kListDefaulting);
}

TEST(PodTopologySpreadArgsValidate, UpstreamCases) {
  DefaultConstraint with_selector = Make(1, "key", "DoNotSchedule");
  with_selector.has_label_selector = true;
  struct Case {
    std::string name;
    PodTopologySpreadArgs args;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"valid config",
       List({Make(1, "node", "DoNotSchedule"), Make(2, "zone", "ScheduleAnyway")}),
       {}},
      {"maxSkew less than zero",
       List({Make(-1, "node", "DoNotSchedule")}),
       {"defaultConstraints[0].maxSkew: Invalid value: -1: not in valid range (0, inf)"}},
      {"empty topology key",
       List({Make(1, "", "DoNotSchedule")}),
       {"defaultConstraints[0].topologyKey: Required value: can not be empty"}},
      {"invalid topology key",
       List({Make(1, "a/b/c", "DoNotSchedule")}),
       {"defaultConstraints[0].topologyKey: Invalid value: \"a/b/c\": a valid label key must "
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
        "subdomain prefix and '/' (e.g. 'example.com/MyName')"}},
      {"whenUnsatisfiable is empty",
       List({Make(1, "node", "")}),
       {"defaultConstraints[0].whenUnsatisfiable: Required value: can not be empty"}},
      {"whenUnsatisfiable contains unsupported action",
       List({Make(1, "node", "unknown action")}),
       {"defaultConstraints[0].whenUnsatisfiable: Unsupported value: \"unknown action\": "
        "supported values: \"DoNotSchedule\", \"ScheduleAnyway\""}},
      {"duplicated constraints",
       List({Make(1, "node", "DoNotSchedule"), Make(2, "node", "DoNotSchedule")}),
       {"defaultConstraints[1]: Duplicate value: \"{node, DoNotSchedule}\""}},
      {"each duplicate reported once",
       List({Make(1, "node", "DoNotSchedule"), Make(2, "node", "DoNotSchedule"),
             Make(3, "node", "DoNotSchedule")}),
       {"defaultConstraints[1]: Duplicate value: \"{node, DoNotSchedule}\"",
        "defaultConstraints[2]: Duplicate value: \"{node, DoNotSchedule}\""}},
      {"label selector present",
       List({with_selector}),
       {"defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, "
        "as they deduced for each pod"}},
      {"list default constraints, no constraints", List({}), {}},
      {"system default constraints", PodTopologySpreadArgs{{}, std::string(kSystemDefaulting)}, {}},
      {"wrong constraints",
       PodTopologySpreadArgs{{}, "unknown"},
       {"defaultingType: Unsupported value: \"unknown\": supported values: \"System\", \"List\""}},
      {"system default constraints, but has constraints",
       PodTopologySpreadArgs{{Make(1, "key", "DoNotSchedule")}, std::string(kSystemDefaulting)},
       {"defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(Messages(Validate(c.args)), c.want);
  }
}

TEST(PodTopologySpreadArgsLoad, PrefixesErrorsWithTheArgsLocation) {
  framework::PluginArgs args{YAML::Load("defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
                                        "whenUnsatisfiable: DoNotSchedule}]"),
                             std::string(kPrefix)};
  PodTopologySpreadArgs out;
  std::string error;
  // defaultingType defaults to System, which forbids a constraint list.
  EXPECT_FALSE(LoadPodTopologySpreadArgs(args, &out, &error));
  EXPECT_EQ(error, std::string(kPrefix) +
                       ".defaultingType: Invalid value: \"System\": when .defaultConstraints are "
                       "not empty");
}

TEST(PodTopologySpreadArgsLoad, NullArgsAreTheSystemDefaults) {
  framework::PluginArgs args{YAML::Node(), std::string(kPrefix)};
  PodTopologySpreadArgs out;
  std::string error;
  ASSERT_TRUE(LoadPodTopologySpreadArgs(args, &out, &error)) << error;
  EXPECT_EQ(out, (PodTopologySpreadArgs{{}, std::string(kSystemDefaulting)}));
}

}  // namespace
}  // namespace muster::plugins::podtopologyspread
