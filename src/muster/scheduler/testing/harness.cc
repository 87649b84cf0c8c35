#include "muster/scheduler/testing/harness.h"

#include <fmt/format.h>

#include "muster/framework/interface.h"

namespace muster::testing {
namespace {

using framework::Code;
using framework::CycleState;
using framework::NodeInfo;
using framework::PodInfo;
using framework::QueuedPodInfo;
using framework::Status;

class TestSort final : public framework::QueueSortPlugin {
 public:
  std::string_view Name() const override { return "TestSort"; }
  bool Less(const QueuedPodInfo& a, const QueuedPodInfo& b) const override {
    if (a.pod().Priority() != b.pod().Priority()) return a.pod().Priority() > b.pod().Priority();
    return a.timestamp < b.timestamp;
  }
};

class Cordoned final : public framework::FilterPlugin, public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return "Cordoned"; }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo& node) const override {
    if (!node.unschedulable()) return Status::OK();
    return Status::Unresolvable("node(s) were unschedulable").WithPlugin("Cordoned");
  }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    return {{framework::ClusterEvent{framework::EventResource::kNode,
                                     framework::kAdd | framework::kUpdateNodeTaint, "Node"},
             nullptr}};
  }
};

class PodSlots final : public framework::FilterPlugin, public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return "PodSlots"; }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo& node) const override {
    if (node.summary().free_pods > 0) return Status::OK();
    return Status::Unschedulable("Too many pods").WithPlugin("PodSlots");
  }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    return {{framework::ClusterEvent{framework::EventResource::kNode, framework::kAdd, "NodeAdd"},
             nullptr},
            {framework::ClusterEvent{framework::EventResource::kAssignedPod, framework::kDelete,
                                     "AssignedPodDelete"},
             nullptr}};
  }
};

class RejectAll final : public framework::FilterPlugin, public framework::EnqueueExtensions {
 public:
  std::string_view Name() const override { return "RejectAll"; }
  Status Filter(const CycleState&, const PodInfo&, const NodeInfo&) const override {
    return Status::Unschedulable("rejected").WithPlugin("RejectAll");
  }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    return {{framework::ClusterEvent{framework::EventResource::kWildCard, framework::kAll, "*"},
             nullptr}};
  }
};

class TestBinder final : public framework::BindPlugin {
 public:
  explicit TestBinder(framework::Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return "TestBinder"; }
  Status Bind(CycleState&, const PodInfo& pod, api::Symbol node) override {
    return handle_.client().Bind(pod.pod, node);
  }

 private:
  framework::Handle& handle_;
};

// PreBind waits for a pod annotated kReadyAfter (seconds) until it has waited that long; one
// annotated kGiveUpAfter fails then.
class Awaiting final : public framework::PreBindPlugin {
 public:
  std::string_view Name() const override { return "Awaiting"; }
  Status PreBind(CycleState&, const PodInfo& pod, api::Symbol) override {
    return Seconds(pod, kReadyAfter) || Seconds(pod, kGiveUpAfter) ? Status(Code::kWait)
                                                                   : Status(Code::kSkip);
  }
  Status PreBindPreFlight(const CycleState&, const PodInfo& pod, api::Symbol) const override {
    return Seconds(pod, kReadyAfter) || Seconds(pod, kGiveUpAfter) ? Status::OK()
                                                                   : Status(Code::kSkip);
  }
  Status PreBindWait(CycleState&, const PodInfo& pod, api::Symbol, api::Duration waited) override {
    if (auto ready = Seconds(pod, kReadyAfter); ready && waited >= *ready) return Status::OK();
    if (auto limit = Seconds(pod, kGiveUpAfter); limit && waited >= *limit) {
      return Status::Error("gave up waiting");
    }
    return Status(Code::kWait);
  }

 private:
  static std::optional<api::Duration> Seconds(const PodInfo& pod, std::string_view key) {
    auto it = pod.pod.metadata.annotations.find(std::string(key));
    if (it == pod.pod.metadata.annotations.end()) return std::nullopt;
    return std::chrono::seconds(std::stoi(it->second));
  }
};

class TestGang final : public framework::GroupPlugin,
                       public framework::PreFilterPlugin,
                       public framework::EnqueueExtensions {
 public:
  explicit TestGang(framework::Handle& handle) : handle_(handle) {}
  std::string_view Name() const override { return "TestGang"; }
  bool Handles(const api::GangRef& gang) const override { return gang.Of<api::PodGroup>(); }
  Status PreFilter(CycleState&, const PodInfo& pod, std::span<NodeInfo* const>,
                   framework::PreFilterResult*) override {
    const api::Symbol* name = pod.pod.metadata.labels.Get(api::Symbol(kGangLabel));
    if (name == nullptr ||
        handle_.lister().Get<api::PodGroup>(pod.pod.metadata.namespace_, *name) != nullptr) {
      return Status::OK();
    }
    return Status::Unresolvable("PodGroup not found").WithPlugin("TestGang");
  }
  std::optional<framework::Gang> GroupOf(const PodInfo& pod) override {
    const api::Symbol* name = pod.pod.metadata.labels.Get(api::Symbol(kGangLabel));
    if (name == nullptr) return std::nullopt;
    const api::PodGroup* group =
        handle_.lister().Get<api::PodGroup>(pod.pod.metadata.namespace_, *name);
    if (group == nullptr) return std::nullopt;
    framework::Gang gang;
    gang.namespace_ = pod.pod.metadata.namespace_;
    gang.name = *name;
    gang.min_count = group->spec.min_member;
    for (const api::Pod* member : handle_.lister().PodsWithLabel(pod.pod.metadata.namespace_,
                                                                 api::Symbol(kGangLabel), *name)) {
      if (!member->IsTerminal()) gang.members.push_back(member);
    }
    gang.object = framework::ReferenceTo(*group);
    gang.conditions = group->status.conditions;
    return gang;
  }
  Status PreFilterGroup(const framework::Gang&, std::span<NodeInfo* const>) override {
    return Status::OK();
  }
  std::vector<framework::ClusterEventWithHint> EventsToRegister() const override {
    return {{framework::ClusterEvent{framework::EventResource::Of<api::PodGroup>(), framework::kAdd,
                                     "PodGroupAdd"},
             nullptr}};
  }

 private:
  framework::Handle& handle_;
};

template <typename P>
framework::PluginFactory Plain() {
  return [](const framework::PluginArgs&, framework::Handle&, std::string*) {
    return std::make_unique<P>();
  };
}
template <typename P>
framework::PluginFactory WithHandle() {
  return [](const framework::PluginArgs&, framework::Handle& handle, std::string*) {
    return std::make_unique<P>(handle);
  };
}

api::Plugins HarnessPlugins(const HarnessOptions& options) {
  api::Plugins plugins;
  for (const char* name : {"TestSort", "Cordoned", "PodSlots", "Awaiting", "TestBinder"}) {
    plugins.multi_point.enabled.push_back(api::PluginRef{name, std::nullopt});
  }
  if (options.gang) plugins.multi_point.enabled.push_back(api::PluginRef{"TestGang", std::nullopt});
  if (options.reject_all) {
    plugins.multi_point.enabled.push_back(api::PluginRef{"RejectAll", std::nullopt});
  }
  return plugins;
}

}  // namespace

const framework::Registry& HarnessRegistry() {
  static const framework::Registry registry = [] {
    framework::Registry r;
    r.Register("TestSort", Plain<TestSort>());
    r.Register("Cordoned", Plain<Cordoned>());
    r.Register("PodSlots", Plain<PodSlots>());
    r.Register("TestBinder", WithHandle<TestBinder>());
    r.Register("Awaiting", Plain<Awaiting>());
    r.Register("RejectAll", Plain<RejectAll>());
    r.Register("TestGang", WithHandle<TestGang>());
    return r;
  }();
  return registry;
}

SchedulerHarness::SchedulerHarness(HarnessOptions options) {
  api::SchedulerConfiguration config;
  config.percentage_of_nodes_to_score = options.percentage_of_nodes_to_score;
  api::SchedulerProfile profile;
  profile.plugins = HarnessPlugins(options);
  config.profiles.push_back(profile);
  std::vector<std::string> errors;
  scheduler_ = scheduler::Scheduler::Create(&config, HarnessRegistry(), HarnessPlugins({}), clock(),
                                            client_, /*seed=*/1, &errors);
  if (scheduler_ == nullptr) {
    throw std::runtime_error(fmt::format("SchedulerHarness: {}", fmt::join(errors, "; ")));
  }
}

void SchedulerHarness::AddNode(api::Node node) {
  scheduler_->OnAdd(std::make_shared<const api::Node>(std::move(node)));
}

void SchedulerHarness::AddPod(api::Pod pod) {
  if (pod.metadata.uid.empty()) pod.metadata.uid = "uid-" + pod.metadata.Key();
  scheduler_->OnAdd(std::make_shared<const api::Pod>(std::move(pod)));
}

void SchedulerHarness::UpdatePod(const api::Pod& old_pod, api::Pod new_pod) {
  scheduler_->OnUpdate(std::make_shared<const api::Pod>(old_pod),
                       std::make_shared<const api::Pod>(std::move(new_pod)));
}

void SchedulerHarness::DeletePod(const api::Pod& pod) {
  scheduler_->OnDelete(std::make_shared<const api::Pod>(pod));
}

void SchedulerHarness::AddPodGroup(api::PodGroup group) {
  scheduler_->OnAdd(std::make_shared<const api::PodGroup>(std::move(group)));
}

void SchedulerHarness::UpdatePodGroup(const api::PodGroup& old_group, api::PodGroup new_group) {
  scheduler_->OnUpdate(std::make_shared<const api::PodGroup>(old_group),
                       std::make_shared<const api::PodGroup>(std::move(new_group)));
}

int SchedulerHarness::RunCycles(int limit) {
  int cycles = 0;
  while (true) {
    clock().RunDue();  // binding cycles, and what else is due now
    if (cycles == limit || !scheduler_->HasActivePods()) return cycles;
    scheduler_->ScheduleOne();
    ++cycles;
  }
}

std::vector<std::string> SchedulerHarness::Bindings() const {
  std::vector<std::string> out;
  for (const auto& [pod, node] : client_.bindings) out.push_back(pod + " -> " + node);
  return out;
}

}  // namespace muster::testing
