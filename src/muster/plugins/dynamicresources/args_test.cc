#include "muster/plugins/dynamicresources/args.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/feature_gates.h"

// Upstream's validation_pluginargs_test.go (TestValidateDynamicResourcesArgs) and the v1
// defaults, with kube-scheduler 1.37's gates unless a case sets them.

namespace muster::plugins::dynamicresources {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::string_view kPrefix = "cfg.yaml: document 1 (KubeSchedulerConfiguration): args";

// Decodes, defaults and validates `yaml`; the errors, one per line, or "" with *out set.
std::string Load(const std::string& yaml, DynamicResourcesArgs* out) {
  framework::PluginArgs args{YAML::Load(yaml), std::string(kPrefix)};
  std::string error;
  const bool ok = LoadDynamicResourcesArgs(args, out, &error);
  EXPECT_EQ(ok, error.empty());
  return error;
}

TEST(DynamicResourcesArgs, Defaults) {
  DynamicResourcesArgs args;
  ASSERT_EQ(Load("{}", &args), "");
  EXPECT_EQ(args.filter_timeout, seconds(10));
  EXPECT_EQ(args.binding_timeout, seconds(600));

  args = {};
  ASSERT_EQ(Load("{filterTimeout: 0s, bindingTimeout: 1m}", &args), "");
  EXPECT_EQ(args.filter_timeout, api::Duration::zero()) << "0s turns the limit off";
  EXPECT_EQ(args.binding_timeout, seconds(60));

  // Upstream's tests use 1ns: finer than muster's microseconds, it is one, not none.
  args = {};
  ASSERT_EQ(Load("{filterTimeout: 1ns}", &args), "");
  EXPECT_EQ(args.filter_timeout, api::Duration(1));
}

TEST(DynamicResourcesArgs, UpstreamValidation) {
  struct Case {
    std::string name;
    std::string yaml;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"valid", "{filterTimeout: 10s, bindingTimeout: 10m}", ""},
      {"negative filter timeout", "{filterTimeout: -1s}",
       std::string(kPrefix) + ".filterTimeout: Invalid value: -1s: must be zero or positive"},
      {"binding timeout under a second", "{bindingTimeout: 500ms}",
       std::string(kPrefix) + ".bindingTimeout: Invalid value: 500ms: must be at least 1 second"},
      {"both", "{filterTimeout: -2s, bindingTimeout: 0s}",
       std::string(kPrefix) + ".filterTimeout: Invalid value: -2s: must be zero or positive\n" +
           std::string(kPrefix) + ".bindingTimeout: Invalid value: 0s: must be at least 1 second"},
      {"not a duration", "{filterTimeout: soon}",
       std::string(kPrefix) +
           ".filterTimeout: invalid duration \"soon\" (want a Go duration like 10s)"},
      {"unknown field", "{filterTimeOut: 1s}",
       std::string(kPrefix) + ".filterTimeOut: unknown field \"filterTimeOut\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    DynamicResourcesArgs args;
    EXPECT_EQ(Load(c.yaml, &args), c.want);
  }
}

TEST(DynamicResourcesArgs, FilterTimeoutBelongsToItsGate) {
  api::FeatureGates gates;
  gates.Set(api::Feature::kDRASchedulerFilterTimeout, false);
  api::ScopedFeatures scoped(gates);
  DynamicResourcesArgs args;
  ASSERT_EQ(Load("{}", &args), "");
  EXPECT_EQ(args.filter_timeout, std::nullopt) << "nothing defaulted with the gate off";
  EXPECT_EQ(Load("{filterTimeout: 5s}", &args),
            std::string(kPrefix) +
                ".filterTimeout: Forbidden: DRASchedulingFilterTimeout feature gate is disabled");
}

TEST(DynamicResourcesArgs, BindingTimeoutBelongsToItsGate) {
  api::FeatureGates gates;
  gates.Set(api::Feature::kDRADeviceBindingConditions, false);
  api::ScopedFeatures scoped(gates);
  DynamicResourcesArgs args;
  ASSERT_EQ(Load("{}", &args), "");
  EXPECT_EQ(args.binding_timeout, std::nullopt) << "nothing defaulted with the gate off";
  EXPECT_EQ(Load("{bindingTimeout: 5m}", &args),
            std::string(kPrefix) +
                ".bindingTimeout: Forbidden: DRADeviceBindingConditions or "
                "DRAResourceClaimDeviceStatus feature gate is disabled");
}

}  // namespace
}  // namespace muster::plugins::dynamicresources
