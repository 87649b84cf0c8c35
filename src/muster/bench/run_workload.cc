#include "muster/bench/run_workload.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <unordered_map>

#include <fmt/format.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include "muster/api/cel/cel.h"
#include "muster/api/gang.h"
#include "muster/api/generated_name.h"
#include "muster/api/storage.h"
#include "muster/cluster/memory.h"
#include "muster/framework/virtual_clock.h"
#include "muster/host/host.h"
#include "muster/plugins/coscheduling/coscheduling.h"

namespace muster::bench {
namespace {

using Steady = std::chrono::steady_clock;
using api::Symbol;

const api::Time kEpoch = std::chrono::sys_days(std::chrono::year(2025) / 1 / 1);
// A wait has stalled when none of its pods is bound while this much virtual time is skipped
// (the scheduler idle), or while the scheduler works this long (pods retried in a cycle that
// never places them).
constexpr api::Duration kMaxWait = std::chrono::minutes(15);
constexpr auto kMaxBusyStall = std::chrono::seconds(60);
constexpr auto kProgressEvery = std::chrono::milliseconds(250);
// How many pods createPods makes before the informers are given the notifications of them.
constexpr int32_t kDeliverEvery = 1024;

// examples/config/coscheduling.yaml: Coscheduling at every point it implements, and as the
// only queueSort; with `backoff`, coscheduling-advanced.yaml's podGroupBackoffSeconds too.
api::SchedulerConfiguration CoschedulingConfig(bool backoff, const std::string& mode) {
  api::SchedulerConfiguration config;
  config.api_version = "kubescheduler.config.k8s.io/v1";
  config.source = backoff ? "muster bench (examples/config/coscheduling-advanced.yaml)"
                          : "muster bench (examples/config/coscheduling.yaml)";
  config.leader_election.leader_elect = false;
  api::Plugins plugins;
  plugins.multi_point.enabled.push_back({std::string(plugins::coscheduling::kName), std::nullopt});
  plugins.queue_sort.enabled.push_back({std::string(plugins::coscheduling::kName), std::nullopt});
  plugins.queue_sort.disabled.push_back({"*", std::nullopt});
  api::SchedulerProfile profile;
  profile.plugins = plugins;
  api::PluginConfig args;
  args.name = plugins::coscheduling::kName;
  args.args = YAML::Load(
      fmt::format("{{mode: {}{}}}", mode, backoff ? ", podGroupBackoffSeconds: 10" : ""));
  args.error_prefix = config.source;
  profile.plugin_config.push_back(std::move(args));
  config.profiles.push_back(profile);
  return config;
}

// Resident memory now, from /proc/self/statm (0 when unreadable).
int64_t CurrentRss() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * sysconf(_SC_PAGESIZE);
}

int64_t PeakRss() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return int64_t{usage.ru_maxrss} * 1024;  // Linux reports kilobytes
}

// Starts a fresh high-water mark, so that a workload's peak is its own and not an earlier
// one's: memory freed by earlier workloads goes back to the system, then the kernel's mark is
// reset to the current RSS (Linux 4.0+; without it the peak is the process's).
void ResetPeakRss() {
  malloc_trim(0);
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
}

// Watches bindings as a client of the cluster would: pods bound per namespace (ever bound: a
// later deletion does not uncount them) and per PodGroup, checking that no group is ever seen
// with fewer than minMember pods bound.
class BindTracker final : public cluster::TypedObserver<BindTracker> {
 public:
  void AddGroup(Symbol ns, Symbol name, int32_t min_member) {
    groups_[{ns.id(), name.id()}] = Group{ns, name, min_member, 0, false};
  }
  int64_t BoundIn(Symbol ns) const {
    auto it = bound_.find(ns.id());
    return it == bound_.end() ? 0 : it->second;
  }
  // Every group bound since the last check must be whole (at least minMember). Called between
  // event deliveries: the binding cycles of a group's pods, allowed together at Permit, run in
  // one delivery round, so a partly bound group seen here is one the scheduler split.
  void CheckGangs(std::vector<std::string>& errors) {
    for (Group* g : touched_) {
      if (g->bound >= g->min_member || g->reported) continue;
      g->reported = true;
      errors.push_back(fmt::format("PodGroup {}/{} had {} of minMember {} pods bound", g->ns.str(),
                                   g->name.str(), g->bound, g->min_member));
    }
    touched_.clear();
  }
  void Added(const api::PodPtr& pod) {
    if (!pod->spec.node_name.empty()) Bound(*pod);
  }
  void Updated(const api::PodPtr& old_pod, const api::PodPtr& new_pod) {
    if (old_pod->spec.node_name.empty() && !new_pod->spec.node_name.empty()) Bound(*new_pod);
  }

 private:
  struct Group {
    Symbol ns;
    Symbol name;
    int32_t min_member = 0;
    int32_t bound = 0;
    bool reported = false;
  };

  void Bound(const api::Pod& pod) {
    ++bound_[pod.metadata.namespace_.id()];
    if (groups_.empty()) return;
    const Symbol group = api::GangOf(pod).name;
    if (group.empty()) return;
    auto it = groups_.find({pod.metadata.namespace_.id(), group.id()});
    if (it == groups_.end()) return;
    ++it->second.bound;
    touched_.push_back(&it->second);
  }

  std::unordered_map<uint32_t, int64_t> bound_;
  std::map<std::pair<uint32_t, uint32_t>, Group> groups_;
  std::vector<Group*> touched_;
};

// One run of one workload.
class Run {
 public:
  Run(const Workload& workload, const RunOptions& options)
      : workload_(workload),
        options_(options),
        clock_(kEpoch),
        cluster_(clock_),
        rng_(options.seed) {
    cluster_.KeepEvents(false);  // nothing here reads them (MemoryCluster::KeepEvents)
  }

  Result Execute();

 private:
  bool Setup();
  void Apply(const Op& op);
  void Apply(const CreateNodes& op);
  void Apply(const CreateNamespaces& op);
  void Apply(const CreatePodGroups& op);
  void Apply(const CreatePods& op);
  // Creates a CSI volume and a claim bound to it, and gives `pod` a volume on the claim.
  void AddCSIVolume(api::Pod& pod);
  // A claim from the template for `pod`, as the resource claim controller makes it.
  void AddDraClaim(api::Pod& pod);
  void Apply(const Barrier& op);
  void Apply(const DeletePods& op);
  void Apply(const Churn& op);

  // The virtual clock follows the wall clock (plus the time skipped while idle).
  void Sync() { clock_.AdvanceTo(kEpoch + WallElapsed() + skipped_); }
  api::Duration WallElapsed() const {
    return std::chrono::duration_cast<api::Duration>(Steady::now() - start_);
  }
  struct Wait {
    bool done = false;              // false: stalled
    Steady::time_point last_bound;  // when the last of the pods was bound
    uint64_t attempts_since = 0;    // scheduling attempts after that
  };
  class Turns;
  class UntilBound;
  class UntilQuiet;
  // Schedules until `target` pods of `ns` are bound; when idle, jumps to the next timer.
  Wait RunUntilBound(Symbol ns, int64_t target);
  // Schedules until nothing is ready to schedule.
  void RunQuiet();
  void Report(Steady::time_point now);
  // Repeats `tick` every `interval` while it returns true.
  void Every(api::Duration interval, std::function<bool()> tick);
  std::string PodName(std::string_view generate_name, std::string_view ns);
  std::string NodeName(std::string_view generate_name);
  std::string CreateTemplatePod(PodTemplate t, std::string_view ns);
  std::string CreateTemplateNode(NodeTemplate t);

  const Workload& workload_;
  const RunOptions& options_;
  // Declared before what uses it: the scheduler cancels its timers when destroyed.
  framework::VirtualClock clock_;
  cluster::MemoryCluster cluster_;
  std::unique_ptr<host::Host> host_;
  scheduler::Scheduler* scheduler_ = nullptr;
  BindTracker tracker_;
  std::mt19937_64 rng_;
  Steady::time_point start_;
  api::Duration skipped_{};
  Result result_;
  const bool gangs_ = workload_.profile != Profile::kDefault;

  // The createPods being waited for, for progress reports.
  std::string_view phase_ = "initial";
  Symbol waiting_ns_;
  int64_t waiting_base_ = 0;
  int64_t waiting_total_ = 0;
  Steady::time_point last_report_;

  // While the measured createPods runs: its namespace and its pods' attempt latencies.
  bool measuring_ = false;
  std::string measured_prefix_;  // "namespace/"
  std::vector<int64_t> latencies_ns_;

  // PodGroups by namespace, in creation order, for the gang templates.
  std::map<std::string, std::vector<std::pair<std::string, int32_t>>, std::less<>> groups_;
  int64_t pods_created_ = 0;
  int64_t rss_before_nodes_ = 0;
  int64_t rss_after_nodes_ = 0;
};

bool Run::Setup() {
  std::vector<std::string> errors;
  const api::SchedulerConfiguration config = CoschedulingConfig(
      workload_.profile == Profile::kCoschedulingWithBackoff, options_.gang_mode);
  // The host subscribes the scheduler first: its informers see each change before the tracker
  // counts it.
  host_ = host::Host::Create(cluster_, clock_,
                             workload_.profile == Profile::kDefault ? nullptr : &config,
                             options_.seed, &errors);
  if (host_ == nullptr) {
    for (std::string& e : errors) result_.errors.push_back("scheduler: " + std::move(e));
    return false;
  }
  scheduler_ = &host_->scheduler();
  cluster_.AddObserver(&tracker_);
  return true;
}

Result Run::Execute() {
  result_.workload = workload_.name;
  result_.upstream_threshold = workload_.upstream_threshold;
  result_.target = workload_.target;
  ResetPeakRss();
  start_ = Steady::now();
  last_report_ = start_;
  if (!Setup()) return result_;
  const std::vector<Op> ops = workload_.plan(options_.nodes.value_or(workload_.default_nodes),
                                             options_.pods.value_or(workload_.default_pods));
  rss_before_nodes_ = CurrentRss();
  for (const Op& op : ops) {
    Apply(op);
    if (!result_.errors.empty()) break;
  }
  if (gangs_) tracker_.CheckGangs(result_.errors);
  if (scheduler_->stats().errors > 0) {
    result_.errors.push_back(
        fmt::format("{} scheduling attempts ended in an error", scheduler_->stats().errors));
  }

  std::sort(latencies_ns_.begin(), latencies_ns_.end());
  auto percentile_ms = [&](double p) {
    if (latencies_ns_.empty()) return 0.0;
    const size_t i = std::min(latencies_ns_.size() - 1,
                              static_cast<size_t>(p * static_cast<double>(latencies_ns_.size())));
    return static_cast<double>(latencies_ns_[i]) / 1e6;
  };
  result_.p50_latency_ms = percentile_ms(0.50);
  result_.p99_latency_ms = percentile_ms(0.99);
  result_.attempts = latencies_ns_.size();
  if (result_.seconds > 0) {
    result_.pods_per_second = static_cast<double>(result_.measured_pods) / result_.seconds;
  }
  result_.peak_rss_bytes = PeakRss();
  const int64_t rss_end = CurrentRss();
  if (rss_before_nodes_ > 0 && result_.nodes > 0 && rss_after_nodes_ > rss_before_nodes_) {
    result_.bytes_per_node = (rss_after_nodes_ - rss_before_nodes_) / result_.nodes;
  }
  if (rss_after_nodes_ > 0 && pods_created_ > 0 && rss_end > rss_after_nodes_) {
    result_.bytes_per_pod = (rss_end - rss_after_nodes_) / pods_created_;
  }
  return result_;
}

void Run::Apply(const Op& op) {
  std::visit([this](const auto& o) { Apply(o); }, op);
}

// What every bench run does each turn: the virtual clock follows the wall clock, gangs are
// checked, the measured pods' attempts are timed, progress is reported.
class Run::Turns : public host::RunPolicy {
 public:
  explicit Turns(Run& run) : run_(run) {}
  void BeforeTurn() override { run_.Sync(); }
  bool Done() override {
    if (run_.gangs_) run_.tracker_.CheckGangs(run_.result_.errors);
    return false;
  }
  void Attempted(std::string_view pod_key, std::chrono::nanoseconds took) override {
    if (run_.measuring_ && pod_key.starts_with(run_.measured_prefix_)) {
      run_.latencies_ns_.push_back(took.count());
    }
    if (run_.options_.progress) {
      const Steady::time_point now = Steady::now();
      if (now - run_.last_report_ >= kProgressEvery) run_.Report(now);
    }
  }

 protected:
  Run& run_;
};

// Until nothing is ready to schedule.
class Run::UntilQuiet final : public Turns {
 public:
  using Turns::Turns;
  bool Idle() override { return false; }
};

void Run::RunQuiet() {
  UntilQuiet quiet(*this);
  host_->Run(quiet);
}

// Until `target` pods of `ns` are bound, or the wait stalls: none of them bound while the
// scheduler idles through kMaxWait of skipped time, or while it works for kMaxBusyStall.
class Run::UntilBound final : public Turns {
 public:
  UntilBound(Run& run, Symbol ns, int64_t target)
      : Turns(run), ns_(ns), target_(target), bound_(run.tracker_.BoundIn(ns)) {
    wait_.last_bound = Steady::now();
    attempts_at_bound_ = run.scheduler_->stats().attempts;
  }

  bool Done() override {
    Turns::Done();
    if (const int64_t now_bound = run_.tracker_.BoundIn(ns_); now_bound != bound_) {
      bound_ = now_bound;
      wait_.last_bound = Steady::now();
      attempts_at_bound_ = run_.scheduler_->stats().attempts;
      waited_ = {};
    }
    if (bound_ >= target_) {
      wait_.done = true;
      return true;
    }
    // Checked now and then: reading the clock every turn would cost more than the check.
    if (++turns_ % 256 == 0 && Steady::now() - wait_.last_bound > kMaxBusyStall) {
      return Stalled();
    }
    return false;
  }
  bool Idle() override {
    // Nothing to schedule: the next thing that can happen is a timer (a backoff expiring, a
    // background operation). Jump to it rather than sleep.
    const std::optional<api::Time> next = run_.clock_.NextTimer();
    if (!next) return !Stalled();
    const api::Duration gap = *next - run_.clock_.Now();
    if (gap > api::Duration::zero()) {
      waited_ += gap;
      run_.skipped_ += gap;
      if (run_.measuring_) run_.result_.waited += gap;
      if (waited_ > kMaxWait) return !Stalled();
    }
    if (run_.options_.progress && Steady::now() - run_.last_report_ >= kProgressEvery) {
      run_.Report(Steady::now());
    }
    return true;
  }
  const Wait& wait() const { return wait_; }

 private:
  bool Stalled() {
    wait_.attempts_since = run_.scheduler_->stats().attempts - attempts_at_bound_;
    return true;
  }

  const Symbol ns_;
  const int64_t target_;
  int64_t bound_;
  uint64_t attempts_at_bound_ = 0;
  api::Duration waited_{};
  uint64_t turns_ = 0;
  Wait wait_;
};

Run::Wait Run::RunUntilBound(Symbol ns, int64_t target) {
  UntilBound until(*this, ns, target);
  host_->Run(until);
  return until.wait();
}

void Run::Report(Steady::time_point now) {
  last_report_ = now;
  options_.progress(Progress{workload_.name, phase_, tracker_.BoundIn(waiting_ns_) - waiting_base_,
                             waiting_total_, std::chrono::duration<double>(now - start_).count()});
}

void Run::Every(api::Duration interval, std::function<bool()> tick) {
  clock_.AddTimer(clock_.Now() + interval, [this, interval, tick = std::move(tick)]() mutable {
    if (tick()) Every(interval, std::move(tick));
  });
}

std::string Run::PodName(std::string_view generate_name, std::string_view ns) {
  while (true) {
    std::string name = api::GenerateName(generate_name, rng_);
    if (cluster_.Get<api::Pod>(fmt::format("{}/{}", ns, name)) == nullptr) return name;
  }
}

std::string Run::NodeName(std::string_view generate_name) {
  while (true) {
    std::string name = api::GenerateName(generate_name, rng_);
    if (cluster_.Get<api::Node>(name) == nullptr) return name;
  }
}

std::string Run::CreateTemplatePod(PodTemplate t, std::string_view ns) {
  api::Pod pod = MakePod(t, PodName(GenerateName(t), ns), ns);
  std::string key = pod.metadata.Key();
  if (cluster_.Create(std::move(pod)).IsSuccess()) ++pods_created_;
  return key;
}

std::string Run::CreateTemplateNode(NodeTemplate t) {
  api::Node node = MakeNode(t, NodeName(GenerateName(t)));
  std::string name = node.metadata.name;
  cluster_.Create(std::move(node));
  return name;
}

void Run::Apply(const CreateNodes& op) {
  for (int32_t i = 0; i < op.count; ++i) {
    const std::string_view generate = GenerateName(op.node_template);
    api::Node node = MakeNode(op.node_template, generate.empty() ? "" : NodeName(generate));
    if (!op.label_values.empty()) {
      node.metadata.labels.Set(
          Symbol(op.label_key),
          Symbol(op.label_values[static_cast<size_t>(i) % op.label_values.size()]));
    }
    const std::string name = node.metadata.name;
    if (!cluster_.Create(std::move(node)).IsSuccess()) {
      result_.errors.push_back(fmt::format("createNodes: node {} exists", i));
      return;
    }
    if (op.dra_devices) {
      // upstream's createResourceDriver: one slice per node, its own pool.
      api::ResourceSlice slice;
      slice.metadata.name = name;
      slice.spec.driver = Symbol(kDraDriver);
      slice.spec.pool = {Symbol(name), 0, 1};
      slice.spec.nodes.node_name = Symbol(name);
      const Symbol driver(kDraDriver);
      for (int32_t d = 0; d < *op.dra_devices; ++d) {
        api::Device device;
        device.name = Symbol(fmt::format("instance-{}", d));
        device.attributes = {{driver, Symbol("driverVersion"), *api::SemVer::Parse("1.2.3")},
                             {driver, Symbol("family"), std::string("GPU")},
                             {driver, Symbol("model"), std::string("A100")},
                             {Symbol("dra.example.com"), Symbol("numa"), int64_t{d}}};
        std::sort(device.attributes.begin(), device.attributes.end(),
                  [](const auto& a, const auto& b) {
                    return std::pair(a.domain.str(), a.name.str()) <
                           std::pair(b.domain.str(), b.name.str());
                  });
        device.capacity = {
            {driver, Symbol("memory"),
             api::Quantity::FromValue(int64_t{1} << 30, api::QuantityFormat::kBinarySI)}};
        slice.spec.devices.push_back(std::move(device));
      }
      cluster_.Create(std::move(slice));
    }
    if (op.csi_attach_limit) {
      api::CSINode csi;
      csi.metadata.name = name;
      csi.drivers.push_back(
          api::CSINode::Driver{std::string(kCSIDriver), name, {}, *op.csi_attach_limit});
      cluster_.Create(std::move(csi));
    }
  }
  if (op.dra_devices && cluster_.Get<api::DeviceClass>(std::string(kDraClass)) == nullptr) {
    api::DeviceClass cls;
    cls.metadata.name = std::string(kDraClass);
    api::DeviceSelector selector;
    selector.expression = fmt::format("device.driver == \"{}\"", kDraDriver);
    api::cel::Compiled compiled = api::cel::Compile(selector.expression);
    selector.program = std::move(compiled.program);
    selector.error = std::move(compiled.error);
    cls.spec.selectors.push_back(std::move(selector));
    cluster_.Create(std::move(cls));
  }
  result_.nodes += op.count;
  RunQuiet();
  rss_after_nodes_ = CurrentRss();
}

void Run::Apply(const CreateNamespaces& op) {
  for (int32_t i = 0; i < op.count; ++i) {
    api::Namespace ns;
    ns.metadata.name = fmt::format("{}-{}", op.prefix, i);
    cluster_.Create(std::move(ns));
  }
}

void Run::Apply(const CreatePodGroups& op) {
  auto& groups = groups_[op.ns];
  for (int32_t min_member : op.min_members) {
    api::PodGroup group;
    group.api_version = "scheduling.x-k8s.io/v1alpha1";
    group.metadata.name = fmt::format("group-{:05}", groups.size());
    group.metadata.namespace_ = Symbol(op.ns);
    group.spec.min_member = min_member;
    tracker_.AddGroup(group.metadata.namespace_, Symbol(group.metadata.name), min_member);
    groups.emplace_back(group.metadata.name, min_member);
    cluster_.Create(std::move(group));
  }
}

void Run::Apply(const CreatePods& op) {
  const Symbol ns(op.ns);
  const bool gang = op.pod_template == PodTemplate::kGangMember ||
                    op.pod_template == PodTemplate::kGangMemberLarge;
  const std::vector<std::pair<std::string, int32_t>>* groups = nullptr;
  if (gang) {
    auto it = groups_.find(op.ns);
    if (it == groups_.end()) {
      result_.errors.push_back(fmt::format("createPods: no PodGroups in namespace {}", op.ns));
      return;
    }
    groups = &it->second;
  }
  phase_ = op.measured ? "measured" : "initial";
  waiting_ns_ = ns;
  waiting_base_ = tracker_.BoundIn(ns);
  waiting_total_ = op.expect_bound.value_or(op.count);
  if (op.measured) {
    result_.created_pods = op.count;
    measured_prefix_ = op.ns + "/";
    measuring_ = true;
  } else {
    result_.initial_pods += op.count;
  }
  const Steady::time_point begin = Steady::now();

  // One template object, copied per pod.
  const api::Pod prototype = MakePod(op.pod_template, "", op.ns);
  const Symbol group_label(api::kPodGroupLabel);
  size_t group = 0;
  int32_t in_group = 0;
  for (int32_t i = 0; i < op.count; ++i) {
    api::Pod pod = prototype;
    if (gang) {
      if (group >= groups->size()) break;
      const auto& [group_name, size] = (*groups)[group];
      pod.metadata.name = fmt::format("{}-{}", group_name, in_group);
      pod.metadata.labels.Set(group_label, Symbol(group_name));
      if (++in_group == size) {
        ++group;
        in_group = 0;
      }
    } else {
      pod.metadata.name = PodName(GenerateName(op.pod_template), op.ns);
    }
    if (op.csi_volume) AddCSIVolume(pod);
    if (op.dra_claim) AddDraClaim(pod);
    if (cluster_.Create(std::move(pod)).IsSuccess()) ++pods_created_;
    // The informers take the new pods as they come, as a watch delivers them, rather than all
    // at once when scheduling starts: a million notifications held until then cost ~200 bytes
    // a pod of peak memory. Delivering them schedules nothing, and in the same order.
    if ((i + 1) % kDeliverEvery == 0) clock_.RunDue();
  }
  if (op.skip_wait) return;

  Wait wait = RunUntilBound(ns, waiting_base_ + waiting_total_);
  const int64_t bound = tracker_.BoundIn(ns) - waiting_base_;
  if (!wait.done && op.settled_bound && bound >= *op.settled_bound) wait.done = true;
  if (op.measured) {
    measuring_ = false;
    // A stalled run is timed to its last binding: the time spent stalling measures nothing.
    result_.seconds = std::chrono::duration<double>(wait.last_bound - begin).count();
    result_.measured_pods = bound;
  }
  if (!wait.done) {
    result_.errors.push_back(fmt::format(
        "createPods in namespace {}: {} of {} pods bound, then none in {} scheduling attempts "
        "over {:.0f}s; stopped",
        op.ns, bound, waiting_total_, wait.attempts_since,
        std::chrono::duration<double>(Steady::now() - wait.last_bound).count()));
  }
}

void Run::AddCSIVolume(api::Pod& pod) {
  const std::string claim_name = pod.metadata.name + "-data";
  api::PersistentVolume pv;
  pv.metadata.name = "pv-" + pod.metadata.namespace_.string() + "-" + pod.metadata.name;
  pv.spec.capacity = api::Quantity::FromValue(int64_t{1} << 30, api::QuantityFormat::kBinarySI);
  pv.spec.access_modes.Add(api::AccessMode::kReadWriteOnce);
  pv.spec.source.kind = "csi";
  pv.spec.source.csi = api::CSISource{std::string(kCSIDriver), pv.metadata.name, false};
  pv.status.phase = api::VolumePhase::kBound;
  api::PersistentVolumeClaim pvc;
  pvc.metadata.name = claim_name;
  pvc.metadata.namespace_ = pod.metadata.namespace_;
  pv.spec.claim_ref = api::ClaimReference(pvc);
  pvc.metadata.annotations[std::string(api::kBindCompletedAnnotation)] = "yes";
  pvc.spec.access_modes = pv.spec.access_modes;
  pvc.spec.storage = pv.spec.capacity;
  pvc.spec.storage_class_name = "";
  pvc.spec.volume_name = api::Symbol(pv.metadata.name);
  pvc.status.phase = api::ClaimPhase::kBound;
  cluster_.Create(std::move(pv));
  cluster_.Create(std::move(pvc));
  api::Volume volume;
  volume.name = "data";
  volume.claim_name = api::Symbol(claim_name);
  volume.source.kind = "persistentVolumeClaim";
  pod.spec.volumes.push_back(std::move(volume));
}

void Run::AddDraClaim(api::Pod& pod) {
  pod.metadata.uid = fmt::format("{}-{}", pod.metadata.namespace_.str(), pod.metadata.name);
  api::ResourceClaim claim;
  claim.metadata.name = pod.metadata.name + "-resource";
  claim.metadata.namespace_ = pod.metadata.namespace_;
  claim.metadata.owner_references.push_back(
      api::OwnerReference{"v1", "Pod", pod.metadata.name, pod.metadata.uid, true, true});
  api::DeviceRequest request;
  request.name = Symbol("req-0");
  request.exactly = api::DeviceRequestSpec{};
  request.exactly->device_class_name = Symbol(kDraClass);
  claim.spec.requests.push_back(std::move(request));
  const Symbol pod_claim("resource");
  pod.spec.resource_claims.push_back(
      api::PodResourceClaim{pod_claim, Symbol(), Symbol("test-claim-template")});
  pod.status.resource_claim_statuses.push_back(
      api::PodResourceClaimStatus{pod_claim, Symbol(claim.metadata.name)});
  for (api::Container& c : pod.spec.containers) c.resources.claims.push_back({pod_claim, {}});
  cluster_.Create(std::move(claim));
}

void Run::Apply(const Barrier&) { RunQuiet(); }

void Run::Apply(const DeletePods& op) {
  if (op.per_second <= 0) return;
  auto keys = std::make_shared<std::vector<std::string>>();
  const std::string prefix = op.ns + "/";
  for (const auto& [key, pod] : cluster_.pods()) {
    if (key.starts_with(prefix)) keys->push_back(key);
  }
  auto next = std::make_shared<size_t>(0);
  Every(std::chrono::duration_cast<api::Duration>(std::chrono::seconds(1)) / op.per_second,
        [this, keys, next] {
          if (*next >= keys->size()) return false;
          cluster_.Delete<api::Pod>((*keys)[(*next)++]);
          return true;
        });
}

void Run::Apply(const Churn& op) {
  const std::string ns = op.ns;
  if (op.mode == Churn::Mode::kCreate) {
    Every(op.interval, [this, op, ns] {
      for (PodTemplate t : op.pods) CreateTemplatePod(t, ns);
      for (NodeTemplate t : op.nodes) CreateTemplateNode(t);
      return true;
    });
    return;
  }
  // Recreate, number 1: each tick deletes what the previous one created, or creates anew.
  auto pods = std::make_shared<std::vector<std::string>>(op.pods.size());
  auto nodes = std::make_shared<std::vector<std::string>>(op.nodes.size());
  Every(op.interval, [this, op, ns, pods, nodes] {
    for (size_t i = 0; i < op.pods.size(); ++i) {
      std::string& key = (*pods)[i];
      if (key.empty()) {
        key = CreateTemplatePod(op.pods[i], ns);
      } else {
        cluster_.Delete<api::Pod>(key);
        key.clear();
      }
    }
    for (size_t i = 0; i < op.nodes.size(); ++i) {
      std::string& name = (*nodes)[i];
      if (name.empty()) {
        name = CreateTemplateNode(op.nodes[i]);
      } else {
        cluster_.Delete<api::Node>(name);
        name.clear();
      }
    }
    return true;
  });
}

}  // namespace

Result RunWorkload(const Workload& workload, const RunOptions& options) {
  return Run(workload, options).Execute();
}

}  // namespace muster::bench
