// KubeSchedulerConfiguration, decoded and validated as `muster validate` does: the text is
// decoded (strictly, api/manifests.h), and each configuration that decodes cleanly is turned into
// profiles by framework::CreateProfiles with the in-tree registry and default plugins, which
// merges the plugin lists and decodes and validates every plugin's args. A configuration it
// refuses must come with errors; one it accepts must give at least one profile.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/manifests.h"
#include "muster/framework/profile.h"
#include "muster/framework/testing/fake_services.h"
#include "muster/plugins/registry.h"

namespace api = muster::api;

namespace {

void Check(bool condition) {
  if (!condition) __builtin_trap();
}

void CreateProfiles(const api::SchedulerConfiguration& config) {
  static const muster::framework::Registry registry = muster::plugins::InTreeRegistry();
  static const api::Plugins defaults = muster::plugins::DefaultPlugins();
  muster::testing::FakeServices services;
  std::vector<std::string> errors;
  const std::vector<std::unique_ptr<muster::framework::Framework>> profiles =
      muster::framework::CreateProfiles(&config, registry, defaults, services, &errors);
  for (const std::string& e : errors) Check(!e.empty());
  if (!errors.empty()) return;
  Check(!profiles.empty());
  Check(config.profiles.empty() || profiles.size() == config.profiles.size());
  for (const auto& profile : profiles) {
    // Every profile can sort its queue and bind.
    Check(profile->plugins().queue_sort != nullptr);
    Check(!profile->plugins().bind.empty());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  api::LoadResult result;
  api::DecodeText(text, "config.yaml", result);
  api::FinishLoad(result);
  for (const std::string& e : result.errors) Check(e.find("config.yaml") != std::string::npos);
  if (!result.ok()) return 0;
  for (const api::SchedulerConfiguration& config : result.manifests.scheduler_configs) {
    CreateProfiles(config);
  }
  return 0;
}
