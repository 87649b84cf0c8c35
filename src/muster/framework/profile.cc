// CreateProfiles: KubeSchedulerConfiguration to frameworks, in kube-scheduler's three stages.
//   1. Defaulting and validation (apis/config/v1 and apis/config/validation): each profile's
//      plugins merged into the defaults, then the checks that stop kube-scheduler before any
//      plugin is built (names, percentages, repeated pluginConfig, a common queueSort).
//   2. One framework per profile (framework/runtime NewFramework): instantiate the plugins the
//      profile names, fill each extension point, expand multiPoint, compute score weights.
//   3. The profile map (scheduler/profile NewMap): the effective queueSort plugin and its args
//      must agree across profiles.
// Upstream stops at the first error of a stage; here every independent error of a stage is
// collected, but a later stage only runs when the earlier one found nothing, so that one mistake
// is not reported again as its consequences.

#include "muster/framework/profile.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/nearest.h"

namespace muster::framework {
namespace {

// ---- stage 1: defaulting (upstream mergePlugins / mergePluginSet) ----

api::PluginSet MergePluginSet(const api::PluginSet& defaults, const api::PluginSet& custom) {
  api::PluginSet merged;
  std::set<std::string, std::less<>> disabled;
  // The disabled list survives the merge: multiPoint expansion consults it per point. Weights of
  // disabled entries are dropped, as upstream copies only the name.
  for (const auto* set : {&custom, &defaults}) {
    for (const api::PluginRef& ref : set->disabled) {
      merged.disabled.push_back(api::PluginRef{ref.name, std::nullopt});
      disabled.insert(ref.name);
    }
  }
  // A name enabled twice in the custom set maps to its last occurrence (upstream builds a map);
  // the other occurrence is appended below and the framework then reports the duplicate.
  std::map<std::string, size_t, std::less<>> custom_index;
  for (size_t i = 0; i < custom.enabled.size(); ++i) custom_index[custom.enabled[i].name] = i;
  std::vector<bool> replaced(custom.enabled.size(), false);
  if (!disabled.contains("*")) {
    for (const api::PluginRef& ref : defaults.enabled) {
      if (disabled.contains(ref.name)) continue;
      // A re-configured default keeps the default's position with the custom settings.
      if (auto it = custom_index.find(ref.name); it != custom_index.end()) {
        merged.enabled.push_back(custom.enabled[it->second]);
        replaced[it->second] = true;
      } else {
        merged.enabled.push_back(ref);
      }
    }
  }
  for (size_t i = 0; i < custom.enabled.size(); ++i) {
    if (!replaced[i]) merged.enabled.push_back(custom.enabled[i]);
  }
  return merged;
}

api::Plugins MergePlugins(const api::Plugins& defaults, const std::optional<api::Plugins>& custom) {
  // Upstream returns the defaults untouched when the profile has no plugins section, which
  // differs from merging an empty one only if a default set disables "*" itself.
  if (!custom) return defaults;
  api::Plugins merged;
  const std::array<api::PluginSet api::Plugins::*, 13> sets = {
      &api::Plugins::multi_point, &api::Plugins::pre_enqueue, &api::Plugins::queue_sort,
      &api::Plugins::pre_filter,  &api::Plugins::filter,      &api::Plugins::post_filter,
      &api::Plugins::pre_score,   &api::Plugins::score,       &api::Plugins::reserve,
      &api::Plugins::permit,      &api::Plugins::pre_bind,    &api::Plugins::bind,
      &api::Plugins::post_bind};
  for (auto set : sets) merged.*set = MergePluginSet(defaults.*set, (*custom).*set);
  return merged;
}

// ---- helpers ----

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

// Go's %#v of the internal config.PluginSet, which upstream's validation prints as the invalid
// value (an unset weight is 0 in the internal type; an empty list is nil after defaulting).
std::string GoSyntax(const api::PluginSet& set) {
  auto list = [](const std::vector<api::PluginRef>& refs) {
    if (refs.empty()) return std::string("[]config.Plugin(nil)");
    std::vector<std::string> items;
    for (const api::PluginRef& ref : refs) {
      items.push_back(fmt::format("config.Plugin{{Name:{}, Weight:{}}}", Quote(ref.name),
                                  ref.weight.value_or(0)));
    }
    return fmt::format("[]config.Plugin{{{}}}", fmt::join(items, ", "));
  };
  return fmt::format("config.PluginSet{{Enabled:{}, Disabled:{}}}", list(set.enabled),
                     list(set.disabled));
}

bool SamePluginSet(const api::PluginSet& a, const api::PluginSet& b) {
  auto same = [](const std::vector<api::PluginRef>& x, const std::vector<api::PluginRef>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].name != y[i].name || x[i].weight.value_or(0) != y[i].weight.value_or(0)) {
        return false;
      }
    }
    return true;
  };
  return same(a.enabled, b.enabled) && same(a.disabled, b.disabled);
}

bool NoArgs(const YAML::Node& n) { return !n.IsDefined() || n.IsNull(); }

// Structural equality of undecoded args; upstream compares the decoded objects, which this
// approximates (absent and null args are equal, mapping order does not matter).
bool SameArgs(const YAML::Node& a, const YAML::Node& b) {
  if (NoArgs(a) || NoArgs(b)) return NoArgs(a) && NoArgs(b);
  if (a.Type() != b.Type()) return false;
  switch (a.Type()) {
    case YAML::NodeType::Scalar:
      return a.Scalar() == b.Scalar();
    case YAML::NodeType::Sequence:
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!SameArgs(a[i], b[i])) return false;
      }
      return true;
    case YAML::NodeType::Map:
      if (a.size() != b.size()) return false;
      for (const auto& kv : a) {
        bool found = false;
        for (const auto& other : b) {
          if (SameArgs(kv.first, other.first)) {
            if (!SameArgs(kv.second, other.second)) return false;
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
      return true;
    default:
      return true;
  }
}

std::string FlowYaml(const YAML::Node& n) {
  if (NoArgs(n)) return "null";
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << n;
  return out.c_str();
}

// The pluginConfig entry of `name` (the first, repeats being a validation error).
const api::PluginConfig* FindConfig(const api::SchedulerProfile& profile, std::string_view name) {
  for (const api::PluginConfig& cfg : profile.plugin_config) {
    if (cfg.name == name) return &cfg;
  }
  return nullptr;
}

// ---- stage 2: one framework ----

template <typename T>
bool Implements(const Plugin& p) {
  return dynamic_cast<const T*>(&p) != nullptr;
}

enum PointIndex {
  kPreFilter,
  kFilter,
  kPostFilter,
  kReserve,
  kPreScore,
  kScore,
  kPreBind,
  kBind,
  kPostBind,
  kPermit,
  kPreEnqueue,
  kQueueSort,
  kNumPoints
};

struct Point {
  std::string_view type;  // upstream's interface name, which its messages use
  api::PluginSet api::Plugins::*set;
  bool (*implements)(const Plugin&);
};

// In upstream's order (getExtensionPoints): it decides which point reports a problem first.
constexpr std::array<Point, kNumPoints> kPoints = {{
    {"PreFilterPlugin", &api::Plugins::pre_filter, &Implements<PreFilterPlugin>},
    {"FilterPlugin", &api::Plugins::filter, &Implements<FilterPlugin>},
    {"PostFilterPlugin", &api::Plugins::post_filter, &Implements<PostFilterPlugin>},
    {"ReservePlugin", &api::Plugins::reserve, &Implements<ReservePlugin>},
    {"PreScorePlugin", &api::Plugins::pre_score, &Implements<PreScorePlugin>},
    {"ScorePlugin", &api::Plugins::score, &Implements<ScorePlugin>},
    {"PreBindPlugin", &api::Plugins::pre_bind, &Implements<PreBindPlugin>},
    {"BindPlugin", &api::Plugins::bind, &Implements<BindPlugin>},
    {"PostBindPlugin", &api::Plugins::post_bind, &Implements<PostBindPlugin>},
    {"PermitPlugin", &api::Plugins::permit, &Implements<PermitPlugin>},
    {"PreEnqueuePlugin", &api::Plugins::pre_enqueue, &Implements<PreEnqueuePlugin>},
    {"QueueSortPlugin", &api::Plugins::queue_sort, &Implements<QueueSortPlugin>},
}};

// Go's int64 arithmetic wraps; upstream's overflow check relies on it (a negative weight makes
// `MaxTotalScore - total` wrap, so that any later score plugin fails the check). Reproduced
// without signed overflow.
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

struct ProfileInput {
  size_t index;
  const api::SchedulerProfile* profile;
  api::Plugins plugins;  // merged with the defaults
  std::optional<int32_t> percentage_of_nodes_to_score;
  std::string prefix;  // "profiles[0] (default-scheduler)"
};

class FrameworkBuilder {
 public:
  FrameworkBuilder(const ProfileInput& in, const Registry& registry, SchedulerServices& services,
                   const std::string& source, std::vector<std::string>& errors)
      : in_(in), registry_(registry), services_(services), source_(source), errors_(errors) {}

  // nullptr after reporting this profile's errors.
  std::unique_ptr<Framework> Build() {
    auto framework = std::make_unique<Framework>(in_.profile->scheduler_name,
                                                 in_.percentage_of_nodes_to_score, services_);
    // Declared after `framework`, so plugins that fail the profile die before their Handle.
    std::vector<std::unique_ptr<Plugin>> owned;
    const size_t errors_before = errors_.size();
    // A failed factory is reported once and skipped afterwards, so the per-point errors that
    // follow are about other plugins.
    Instantiate(*framework, owned);
    for (size_t p = 0; p < kNumPoints; ++p) FillPoint(p);
    if (errors_.size() != errors_before) return nullptr;
    if (!in_.plugins.multi_point.enabled.empty()) ExpandMultiPoint();
    if (errors_.size() != errors_before) return nullptr;

    if (names_[kQueueSort].size() != 1) {
      Error(
          fmt::format("only one queue sort plugin required for profile with scheduler name {}, "
                      "but got {}",
                      Quote(in_.profile->scheduler_name), names_[kQueueSort].size()));
    }
    if (names_[kBind].empty()) {
      Error(fmt::format("at least one bind plugin is needed for profile with scheduler name {}",
                        Quote(in_.profile->scheduler_name)));
    }
    for (size_t point : {kFilter, kScore}) {
      if (names_[point].size() > CycleState::kMaxPluginsPerPoint) {
        Error(fmt::format("at most {} {} plugins are supported, but got {}",
                          CycleState::kMaxPluginsPerPoint, point == kFilter ? "filter" : "score",
                          names_[point].size()));
      }
    }
    if (errors_.size() != errors_before) return nullptr;
    if (!ScoreWeights()) return nullptr;

    ProfilePlugins plugins;
    Fill(kPreEnqueue, plugins.pre_enqueue);
    plugins.queue_sort = dynamic_cast<QueueSortPlugin*>(by_name_.at(names_[kQueueSort][0]));
    Fill(kPreFilter, plugins.pre_filter);
    Fill(kFilter, plugins.filter);
    Fill(kPostFilter, plugins.post_filter);
    Fill(kPreScore, plugins.pre_score);
    for (const std::string& name : names_[kScore]) {
      auto* score = dynamic_cast<ScorePlugin*>(by_name_.at(name));
      // Weights are looked up by Name() at run time upstream; ScoreWeights checked it exists.
      plugins.score.emplace_back(score, weights_.at(std::string(score->Name())));
    }
    Fill(kReserve, plugins.reserve);
    Fill(kPermit, plugins.permit);
    Fill(kPreBind, plugins.pre_bind);
    Fill(kBind, plugins.bind);
    Fill(kPostBind, plugins.post_bind);
    framework->SetPlugins(std::move(plugins), std::move(owned));
    return framework;
  }

 private:
  void Error(const std::string& message) {
    errors_.push_back(fmt::format("{}: {}", in_.prefix, message));
  }

  // Every plugin named as enabled anywhere, including multiPoint, is built once, even one that
  // ends up at no point. Names the registry lacks are reported where they are used, as upstream
  // does; pluginConfig entries for plugins the profile does not use are ignored, as upstream.
  void Instantiate(Framework& framework, std::vector<std::unique_ptr<Plugin>>& owned) {
    std::set<std::string> needed;  // built in name order; upstream walks a Go map
    for (const Point& point : kPoints) {
      for (const api::PluginRef& ref : (in_.plugins.*point.set).enabled) needed.insert(ref.name);
    }
    for (const api::PluginRef& ref : in_.plugins.multi_point.enabled) needed.insert(ref.name);

    for (const std::string& name : needed) {
      const PluginFactory* factory = registry_.Find(name);
      if (factory == nullptr) continue;
      PluginArgs args;
      if (const api::PluginConfig* cfg = FindConfig(*in_.profile, name)) {
        args.args = cfg->args;
        args.error_prefix = cfg->error_prefix;
      } else {
        args.error_prefix =
            source_.empty()
                ? fmt::format("profiles[{}].pluginConfig", in_.index)
                : fmt::format("{} (KubeSchedulerConfiguration): profiles[{}].pluginConfig", source_,
                              in_.index);
      }
      std::string error;
      std::unique_ptr<Plugin> plugin = (*factory)(args, framework, &error);
      if (plugin == nullptr) {
        Error(fmt::format("initializing plugin {}: {}", Quote(name),
                          error.empty() ? "the factory returned no plugin" : error));
        failed_.insert(name);
        continue;
      }
      by_name_[name] = plugin.get();
      owned.push_back(std::move(plugin));
    }
  }

  // The point's own enabled list (upstream updatePluginList).
  void FillPoint(size_t p) {
    const Point& point = kPoints[p];
    std::set<std::string, std::less<>> seen;
    for (const api::PluginRef& ref : (in_.plugins.*point.set).enabled) {
      if (failed_.contains(ref.name)) continue;  // already reported
      auto it = by_name_.find(ref.name);
      if (it == by_name_.end()) {
        Error(fmt::format("{} {} does not exist{}", point.type, Quote(ref.name),
                          api::DidYouMean(ref.name, registry_.Names())));
      } else if (!point.implements(*it->second)) {
        Error(fmt::format("plugin {} does not extend {} plugin", Quote(ref.name), point.type));
      } else if (!seen.insert(ref.name).second) {
        Error(
            fmt::format("plugin {} already registered as {}", Quote(ref.name), Quote(point.type)));
      } else {
        names_[p].push_back(ref.name);
      }
    }
  }

  // Adds multiPoint plugins to every point they implement (upstream expandMultiPointPlugins).
  void ExpandMultiPoint() {
    // Upstream returns at the first of these; each is reported once, at the first point that
    // meets it, which is where upstream would.
    std::set<std::string, std::less<>> reported;
    for (size_t p = 0; p < kNumPoints; ++p) {
      const Point& point = kPoints[p];
      std::set<std::string, std::less<>> disabled;
      for (const api::PluginRef& ref : (in_.plugins.*point.set).disabled) disabled.insert(ref.name);
      if (disabled.contains("*")) continue;

      const std::vector<std::string>& explicit_names = names_[p];
      std::set<std::string, std::less<>> overridden;
      std::vector<std::string> from_multi_point;
      for (const api::PluginRef& ref : in_.plugins.multi_point.enabled) {
        if (failed_.contains(ref.name)) continue;
        auto it = by_name_.find(ref.name);
        if (it == by_name_.end()) {
          if (reported.insert(ref.name).second) {
            Error(fmt::format("{} {} does not exist{}", point.type, Quote(ref.name),
                              api::DidYouMean(ref.name, registry_.Names())));
          }
          continue;
        }
        if (!point.implements(*it->second) || disabled.contains(ref.name)) continue;
        // Configured at the point itself: that setting wins over multiPoint.
        if (std::find(explicit_names.begin(), explicit_names.end(), ref.name) !=
            explicit_names.end()) {
          overridden.insert(ref.name);
          continue;
        }
        if (std::find(from_multi_point.begin(), from_multi_point.end(), ref.name) !=
            from_multi_point.end()) {
          if (reported.insert(ref.name).second) {
            Error(fmt::format("plugin {} already registered as {}", Quote(ref.name),
                              Quote(point.type)));
          }
          continue;
        }
        from_multi_point.push_back(ref.name);
      }

      // Upstream's order: the overridden plugins in their explicit order, then the multiPoint
      // ones, then the rest of the explicit ones.
      std::vector<std::string> ordered;
      for (const std::string& name : explicit_names) {
        if (overridden.contains(name)) ordered.push_back(name);
      }
      ordered.insert(ordered.end(), from_multi_point.begin(), from_multi_point.end());
      for (const std::string& name : explicit_names) {
        if (!overridden.contains(name)) ordered.push_back(name);
      }
      names_[p] = std::move(ordered);
    }
  }

  // Upstream getScoreWeights: the score point's entries, then multiPoint's (whether or not the
  // plugin ended up at the score point); the first entry of a name decides its weight.
  bool ScoreWeights() {
    std::vector<const api::PluginRef*> refs;
    for (const api::PluginRef& ref : in_.plugins.score.enabled) refs.push_back(&ref);
    for (const api::PluginRef& ref : in_.plugins.multi_point.enabled) refs.push_back(&ref);
    int64_t total = 0;
    for (const api::PluginRef* ref : refs) {
      auto it = by_name_.find(ref->name);
      // A multiPoint plugin the registry lacks is unreported only when every point disables "*".
      if (it == by_name_.end() || !Implements<ScorePlugin>(*it->second)) continue;
      if (weights_.contains(ref->name)) continue;
      // Weight 0 is not allowed: a plugin is disabled explicitly, not weighted out.
      const int32_t weight = ref->weight.value_or(0) == 0 ? 1 : *ref->weight;
      weights_[ref->name] = weight;
      const int64_t max_score = int64_t{weight} * kMaxNodeScore;
      if (max_score > WrapSub(kMaxTotalScore, total)) {
        Error("total score of Score plugins could overflow");
        return false;
      }
      total = WrapAdd(total, max_score);
    }
    // A plugin whose Name() differs from its configured name has no weight under that name.
    for (const std::string& name : names_[kScore]) {
      std::string plugin_name(by_name_.at(name)->Name());
      if (!weights_.contains(plugin_name)) {
        Error(fmt::format("score plugin {} is not configured with weight", Quote(plugin_name)));
        return false;
      }
    }
    return true;
  }

  template <typename T>
  void Fill(size_t p, std::vector<T*>& out) {
    for (const std::string& name : names_[p]) out.push_back(dynamic_cast<T*>(by_name_.at(name)));
  }

  const ProfileInput& in_;
  const Registry& registry_;
  SchedulerServices& services_;
  const std::string& source_;
  std::vector<std::string>& errors_;

  std::map<std::string, Plugin*, std::less<>> by_name_;
  std::set<std::string, std::less<>> failed_;  // factory failed, already reported
  std::array<std::vector<std::string>, kNumPoints> names_;
  std::map<std::string, int32_t, std::less<>> weights_;
};

// ---- stage 1: validation ----

std::string PercentageError(int32_t value) {
  return fmt::format("Invalid value: {}: not in valid range [0-100]", value);
}

void Validate(const std::vector<ProfileInput>& inputs,
              const std::optional<int32_t>& global_percentage, std::vector<std::string>& errors) {
  std::set<std::string, std::less<>> names;
  for (const ProfileInput& in : inputs) {
    const api::SchedulerProfile& profile = *in.profile;
    auto error = [&](const std::string& message) {
      errors.push_back(fmt::format("{}: {}", in.prefix, message));
    };
    if (profile.scheduler_name.empty()) error("schedulerName: Required value");
    if (auto pct = profile.percentage_of_nodes_to_score; pct && (*pct < 0 || *pct > 100)) {
      error("percentageOfNodesToScore: " + PercentageError(*pct));
    }
    std::set<std::string, std::less<>> configured;
    for (size_t j = 0; j < profile.plugin_config.size(); ++j) {
      const std::string& name = profile.plugin_config[j].name;
      if (!configured.insert(name).second) {
        error(fmt::format("pluginConfig[{}]: Duplicate value: {}", j, Quote(name)));
      }
    }
    // Upstream's value here is the earlier profile's field path printed as a Go struct; the
    // repeated name says more.
    if (!names.insert(profile.scheduler_name).second) {
      error(fmt::format("schedulerName: Duplicate value: {}", Quote(profile.scheduler_name)));
    }
  }

  // queueSort must be configured identically everywhere (upstream validateCommonQueueSort). This
  // compares the merged per-point sets, so it rejects an explicit queueSort in one profile that
  // another gets from multiPoint even when both resolve to the same plugin, as upstream does.
  const ProfileInput& first = inputs.front();
  const api::PluginSet& canon = first.plugins.queue_sort;
  std::string queue_sort_name;
  if (!canon.enabled.empty()) queue_sort_name = canon.enabled[0].name;
  if (canon.enabled.size() > 1) {
    errors.push_back(fmt::format(
        "{}: plugins.queueSort.Enabled: Invalid value: {}: only one queue sort plugin can be "
        "enabled",
        first.prefix, canon.enabled.size()));
  }
  YAML::Node queue_sort_args;
  for (const api::PluginConfig& cfg : first.profile->plugin_config) {
    if (!queue_sort_name.empty() && cfg.name == queue_sort_name) queue_sort_args = cfg.args;
  }
  for (size_t i = 1; i < inputs.size(); ++i) {
    const ProfileInput& in = inputs[i];
    if (!SamePluginSet(canon, in.plugins.queue_sort)) {
      errors.push_back(
          fmt::format("{}: plugins.queueSort: Invalid value: {}: must be the same for all profiles",
                      in.prefix, GoSyntax(in.plugins.queue_sort)));
    }
    for (const api::PluginConfig& cfg : in.profile->plugin_config) {
      if (cfg.name == queue_sort_name && !SameArgs(queue_sort_args, cfg.args)) {
        errors.push_back(fmt::format(
            "{}: pluginConfig.args: Invalid value: {}: queueSort must be the same for all "
            "profiles",
            in.prefix, FlowYaml(cfg.args)));
      }
    }
  }

  if (global_percentage && (*global_percentage < 0 || *global_percentage > 100)) {
    errors.push_back("percentageOfNodesToScore: " + PercentageError(*global_percentage));
  }
}

// ---- stage 3: across profiles (upstream profile.NewMap) ----

void CheckCommonQueueSort(const std::vector<ProfileInput>& inputs,
                          const std::vector<std::unique_ptr<Framework>>& frameworks,
                          std::vector<std::string>& errors) {
  const Framework* first = nullptr;
  YAML::Node first_args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (frameworks[i] == nullptr) continue;
    std::string_view name = frameworks[i]->plugins().queue_sort->Name();
    const api::PluginConfig* cfg = FindConfig(*inputs[i].profile, name);
    YAML::Node args = cfg != nullptr ? cfg->args : YAML::Node();
    if (first == nullptr) {
      first = frameworks[i].get();
      first_args = args;
      continue;
    }
    const std::string& scheduler_name = inputs[i].profile->scheduler_name;
    std::string_view first_name = first->plugins().queue_sort->Name();
    if (name != first_name) {
      errors.push_back(fmt::format("{}: different queue sort plugins for profile {}: {}, first: {}",
                                   inputs[i].prefix, Quote(scheduler_name), Quote(name),
                                   Quote(first_name)));
    } else if (!SameArgs(first_args, args)) {
      errors.push_back(fmt::format("{}: different queue sort plugin args for profile {}",
                                   inputs[i].prefix, Quote(scheduler_name)));
    }
  }
}

}  // namespace

std::vector<std::unique_ptr<Framework>> CreateProfiles(const api::SchedulerConfiguration* config,
                                                       const Registry& registry,
                                                       const api::Plugins& defaults,
                                                       SchedulerServices& services,
                                                       std::vector<std::string>* errors) {
  static const api::SchedulerProfile kDefaultProfile;
  std::vector<const api::SchedulerProfile*> profiles;
  if (config != nullptr) {
    for (const api::SchedulerProfile& profile : config->profiles) profiles.push_back(&profile);
  }
  if (profiles.empty()) profiles.push_back(&kDefaultProfile);
  const std::optional<int32_t> global_percentage =
      config != nullptr ? config->percentage_of_nodes_to_score : std::nullopt;
  const std::string source = config != nullptr ? config->source : "";

  std::vector<ProfileInput> inputs;
  for (size_t i = 0; i < profiles.size(); ++i) {
    const api::SchedulerProfile& profile = *profiles[i];
    inputs.push_back(ProfileInput{
        .index = i,
        .profile = &profile,
        .plugins = MergePlugins(defaults, profile.plugins),
        .percentage_of_nodes_to_score = profile.percentage_of_nodes_to_score.has_value()
                                            ? profile.percentage_of_nodes_to_score
                                            : global_percentage,
        .prefix = fmt::format("profiles[{}] ({})", i, profile.scheduler_name),
    });
  }

  std::vector<std::string> found;
  std::vector<std::unique_ptr<Framework>> frameworks;
  Validate(inputs, global_percentage, found);
  if (found.empty()) {
    for (const ProfileInput& in : inputs) {
      frameworks.push_back(FrameworkBuilder(in, registry, services, source, found).Build());
    }
    CheckCommonQueueSort(inputs, frameworks, found);
  }
  if (!found.empty()) {
    // A plugin's args may have several problems, one per line: each is an error of its own.
    for (const std::string& error : found) {
      if (errors == nullptr) break;
      for (size_t start = 0; start <= error.size();) {
        const size_t end = std::min(error.find('\n', start), error.size());
        if (end > start) errors->push_back(error.substr(start, end - start));
        start = end + 1;
      }
    }
    return {};
  }
  return frameworks;
}

}  // namespace muster::framework
