#include "muster/sim/testing/random_workload.h"

#include <random>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace muster::testing {
namespace {

constexpr std::string_view kZones[] = {"zone-a", "zone-b", "zone-c"};
constexpr std::string_view kApps[] = {"web", "db", "cache"};
constexpr std::string_view kPriorityClasses[] = {"", "low", "high", "high-never"};

class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  int Int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  // True one time in `n`.
  bool OneIn(int n) { return Int(1, n) == 1; }
  template <typename T, size_t N>
  T Pick(const T (&items)[N]) {
    return items[Int(0, static_cast<int>(N) - 1)];
  }

 private:
  std::mt19937_64 rng_;
};

std::string Annotations(std::vector<std::string> items) {
  if (items.empty()) return "";
  std::string out = "  annotations: {";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "}\n";
}

// The spec of a pod (or a pod template's, indented by `indent`) and its metadata's labels and
// annotations.
struct PodParts {
  std::string labels;  // "{app: web, ...}"
  std::vector<std::string> annotations;
  std::string spec;  // lines of the spec, each indented by two spaces
};

PodParts RandomPod(Draw& d, bool allow_timing, bool gang_member, int cpu_hi) {
  PodParts p;
  const std::string_view app = d.Pick(kApps);
  p.labels = fmt::format("app: {}", app);
  std::string& s = p.spec;
  if (allow_timing) {
    if (d.OneIn(5))
      p.annotations.push_back(fmt::format("muster.dev/create-after: {}s", d.Int(1, 40)));
    if (d.OneIn(3)) p.annotations.push_back(fmt::format("muster.dev/run-for: {}s", d.Int(1, 60)));
    if (d.OneIn(12)) {
      p.annotations.push_back(fmt::format("muster.dev/delete-after: {}s", d.Int(1, 60)));
    }
  }
  if (d.OneIn(10)) {
    p.annotations.push_back(fmt::format("muster.dev/ungate-after: {}s", d.Int(0, 30)));
    s += "  schedulingGates: [{name: example.com/wait}]\n";
  }
  if (const std::string_view pc = d.Pick(kPriorityClasses); !pc.empty() && !gang_member) {
    s += fmt::format("  priorityClassName: {}\n", pc);
  }
  if (d.OneIn(6)) s += fmt::format("  nodeSelector: {{disk: {}}}\n", d.OneIn(2) ? "ssd" : "hdd");
  if (d.OneIn(4)) {
    s += "  tolerations: [{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}]\n";
  }
  std::string affinity;
  switch (d.Int(0, 7)) {
    case 0:
      affinity += fmt::format(
          "    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
          "        nodeSelectorTerms: [{{matchExpressions: [{{key: topology.kubernetes.io/zone, "
          "operator: In, values: [{}, {}]}}]}}]\n",
          d.Pick(kZones), d.Pick(kZones));
      break;
    case 1:
      affinity += fmt::format(
          "    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n"
          "      - weight: {}\n        preference: {{matchExpressions: [{{key: disk, operator: "
          "In, values: [ssd]}}]}}\n",
          d.Int(1, 100));
      break;
    default:
      break;
  }
  if (d.OneIn(6)) {
    affinity += fmt::format(
        "    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      - labelSelector: {{matchLabels: {{app: {}}}}}\n"
        "        topologyKey: {}\n",
        d.Pick(kApps), d.OneIn(3) ? "topology.kubernetes.io/zone" : "kubernetes.io/hostname");
  } else if (d.OneIn(8)) {
    affinity += fmt::format(
        "    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      - labelSelector: {{matchLabels: {{app: {}}}}}\n"
        "        topologyKey: topology.kubernetes.io/zone\n",
        d.Pick(kApps));
  }
  if (!affinity.empty()) s += "  affinity:\n" + affinity;
  if (d.OneIn(5)) {
    s += fmt::format(
        "  topologySpreadConstraints:\n  - maxSkew: {}\n    topologyKey: {}\n"
        "    whenUnsatisfiable: {}\n    labelSelector: {{matchLabels: {{app: {}}}}}\n",
        d.Int(1, 2), d.OneIn(2) ? "topology.kubernetes.io/zone" : "kubernetes.io/hostname",
        d.OneIn(3) ? "ScheduleAnyway" : "DoNotSchedule", app);
  }
  std::string requests =
      fmt::format("cpu: {}m, memory: {}Mi", d.Int(1, cpu_hi * 10) * 100, d.Int(1, 32) * 128);
  std::string limits;
  if (d.OneIn(8)) {
    // An extended resource's request must equal its limit.
    const int gpus = d.Int(1, 2);
    requests += fmt::format(", example.com/gpu: \"{}\"", gpus);
    limits = fmt::format(", limits: {{example.com/gpu: \"{}\"}}", gpus);
  }
  std::string ports;
  if (d.OneIn(10))
    ports = fmt::format(", ports: [{{containerPort: 80, hostPort: {}}}]", d.Int(8080, 8082));
  s += fmt::format(
      "  containers: [{{name: c, image: registry/{}:1, resources: {{requests: {{{}}}{}}}{}}}]\n",
      app, requests, limits, ports);
  return p;
}

// A workload's storage (about one in three has some): classes that provision at once, for the
// first consumer, or not at all (static volumes in one zone each), CSINodes with attach limits,
// and claims for some pods. Drawn from a stream of its own, so that the rest of each seed's
// workload is what it was before storage was added.
class Storage {
 public:
  Storage(uint64_t seed, int nodes, std::string& out) : d_(seed ^ 0x5707a6e5eedull), out_(out) {
    on_ = d_.OneIn(3);
    if (!on_) return;
    std::string allowed;
    if (d_.OneIn(2)) {
      allowed = fmt::format(
          "allowedTopologies: [{{matchLabelExpressions: [{{key: topology.kubernetes.io/zone, "
          "values: [{}, {}]}}]}}]\n",
          d_.Pick(kZones), d_.Pick(kZones));
    }
    out_ +=
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: wait}\n"
        "provisioner: csi.example.com\nvolumeBindingMode: WaitForFirstConsumer\n" +
        allowed + "---\n";
    out_ +=
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: now}\n"
        "provisioner: csi.example.com\nvolumeBindingMode: Immediate\n---\n";
    out_ +=
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: static}\n"
        "provisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n"
        "---\n";
    const int volumes = d_.Int(0, 5);
    for (int i = 0; i < volumes; ++i) {
      out_ += fmt::format(
          "apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: pv{}}}\nspec:\n"
          "  capacity: {{storage: {}Gi}}\n  accessModes: [ReadWriteOnce]\n"
          "  storageClassName: static\n"
          "  csi: {{driver: csi.example.com, volumeHandle: pv{}}}\n"
          "  nodeAffinity: {{required: {{nodeSelectorTerms: [{{matchExpressions: [{{key: "
          "topology.kubernetes.io/zone, operator: In, values: [{}]}}]}}]}}}}\n---\n",
          i, d_.Int(1, 4) * 5, i, d_.Pick(kZones));
    }
    for (int n = 0; n < nodes; ++n) {
      if (!d_.OneIn(2)) continue;
      out_ += fmt::format(
          "apiVersion: storage.k8s.io/v1\nkind: CSINode\nmetadata: {{name: n{}}}\nspec:\n"
          "  drivers: [{{name: csi.example.com, nodeID: n{}, allocatable: {{count: {}}}, "
          "topologyKeys: [topology.kubernetes.io/zone]}}]\n---\n",
          n, n, d_.Int(1, 4));
    }
  }

  // The `volumes:` line of a pod's spec, if it gets one, with the claim it uses written out
  // (or shared with an earlier pod, or made from an ephemeral volume's template).
  std::string Volumes(const std::string& pod) {
    if (!on_ || !d_.OneIn(3)) return "";
    static constexpr std::string_view kClasses[] = {"wait", "now", "static"};
    const std::string_view cls = d_.Pick(kClasses);
    const int size = d_.Int(1, 4) * 5;
    if (d_.OneIn(4)) {
      return fmt::format(
          "  volumes: [{{name: scratch, ephemeral: {{volumeClaimTemplate: {{spec: {{accessModes: "
          "[ReadWriteOnce], storageClassName: {}, resources: {{requests: {{storage: "
          "{}Gi}}}}}}}}}}}}]\n",
          cls, size);
    }
    std::string claim;
    if (!claims_.empty() && d_.OneIn(4)) {
      claim = claims_[d_.Int(0, static_cast<int>(claims_.size()) - 1)];
    } else {
      claim = "c-" + pod;
      claims_.push_back(claim);
      out_ += fmt::format(
          "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {}}}\nspec:\n"
          "  accessModes: [{}]\n  storageClassName: {}\n"
          "  resources: {{requests: {{storage: {}Gi}}}}\n---\n",
          claim, d_.OneIn(5) ? "ReadWriteOncePod" : "ReadWriteOnce", cls, size);
    }
    return fmt::format("  volumes: [{{name: data, persistentVolumeClaim: {{claimName: {}}}}}]\n",
                       claim);
  }

 private:
  Draw d_;
  std::string& out_;
  bool on_ = false;
  std::vector<std::string> claims_;
};

std::string Indent(const std::string& text, int by) {
  const std::string pad(by, ' ');
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    out += pad + text.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return out;
}

}  // namespace

RandomWorkload MakeRandomWorkload(uint64_t seed) {
  Draw d(seed);
  RandomWorkload w;
  constexpr std::string_view kModes[] = {"Group", "PerPod", ""};
  const std::string_view mode = kModes[seed % 3];
  w.config = mode.empty()
                 ? "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
                 : CoschedulingConfig(fmt::format(
                       "mode: {}, permitWaitingTimeSeconds: 10, podGroupBackoffSeconds: 2", mode));
  std::string& out = w.manifests;
  out += fmt::format("# muster random workload, seed {}\n", seed);

  out +=
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\n"
      "value: 10\n---\n";
  out +=
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
      "value: 1000\n---\n";
  out +=
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high-never}\n"
      "value: 1000\npreemptionPolicy: Never\n---\n";

  const int nodes = d.Int(1, 8);
  const bool removals = d.OneIn(3);
  for (int n = 0; n < nodes; ++n) {
    std::vector<std::string> annotations;
    if (n > 0 && d.OneIn(5)) {
      annotations.push_back(fmt::format("muster.dev/create-after: {}s", d.Int(1, 40)));
    }
    if (removals && d.OneIn(3)) {
      annotations.push_back(fmt::format("muster.dev/delete-after: {}s", d.Int(5, 60)));
    }
    out += fmt::format(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{}\n"
        "  labels: {{kubernetes.io/hostname: n{}, topology.kubernetes.io/zone: {}, disk: {}}}\n",
        n, n, d.Pick(kZones), d.OneIn(2) ? "ssd" : "hdd");
    out += Annotations(annotations);
    if (d.OneIn(5)) {
      out += fmt::format("spec: {{taints: [{{key: dedicated, value: infra, effect: {}}}]}}\n",
                         d.OneIn(2) ? "NoSchedule" : "PreferNoSchedule");
    } else if (d.OneIn(15)) {
      out += "spec: {unschedulable: true}\n";
    }
    std::string capacity = fmt::format("cpu: \"{}\", memory: {}Gi, pods: \"{}\"", d.Int(1, 8) * 2,
                                       d.Int(2, 32), d.Int(2, 20));
    if (d.OneIn(4)) capacity += fmt::format(", example.com/gpu: \"{}\"", d.Int(1, 4));
    out += fmt::format("status: {{capacity: {{{}}}}}\n---\n", capacity);
  }

  Storage storage(seed, nodes, out);
  int pods = 0;
  auto pod = [&](const std::string& name, const std::string& group, bool timing, int cpu_hi) {
    PodParts p = RandomPod(d, timing, !group.empty(), cpu_hi);
    // Not for gang members: a gang's members are bound in one go, and one whose bind waits for
    // its claim is bound after the others within the instant, which the checker's bind-time
    // Filter check (bound pods only, not the assumed ones the scheduler counted) cannot follow.
    if (group.empty()) p.spec += storage.Volumes(name);
    std::string labels = p.labels;
    if (!group.empty()) labels += ", scheduling.x-k8s.io/pod-group: " + group;
    out += fmt::format("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {}\n  labels: {{{}}}\n", name,
                       labels);
    out += Annotations(p.annotations);
    out += "spec:\n" + p.spec + "---\n";
    ++pods;
  };
  const int singles = d.Int(0, 16);
  for (int i = 0; i < singles; ++i) pod(fmt::format("p{}", i), "", true, 3);

  const int groups = d.Int(0, 4);
  for (int g = 0; g < groups; ++g) {
    const int size = d.Int(1, 8);
    const int min_member = d.Int(1, size);
    std::vector<std::string> annotations;
    if (d.OneIn(6))
      annotations.push_back(fmt::format("muster.dev/create-after: {}s", d.Int(1, 20)));
    if (d.OneIn(8))
      annotations.push_back(fmt::format("muster.dev/delete-after: {}s", d.Int(1, 60)));
    std::string spec = fmt::format("minMember: {}", min_member);
    if (d.OneIn(5))
      spec += fmt::format(", minResources: {{cpu: \"{}\"}}", d.Int(1, 3) * min_member);
    out += fmt::format(
        "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata:\n  name: g{}\n", g);
    out += Annotations(annotations);
    out += fmt::format("spec: {{{}}}\n---\n", spec);
    // Members arrive together or one by one, and run for long enough to be seen together.
    for (int m = 0; m < size; ++m)
      pod(fmt::format("g{}-{}", g, m), fmt::format("g{}", g), d.OneIn(2), 2);
  }

  if (d.OneIn(3)) {
    PodParts p = RandomPod(d, false, false, 2);
    const int parallelism = d.Int(1, 4);
    out += fmt::format(
        "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: batch}}\n"
        "spec:\n  parallelism: {}\n  completions: {}\n  template:\n"
        "    metadata:\n      labels: {{{}}}\n      annotations: {{muster.dev/run-for: {}s}}\n"
        "    spec:\n      restartPolicy: Never\n{}---\n",
        parallelism, parallelism + d.Int(0, 4), p.labels, d.Int(1, 30), Indent(p.spec, 4));
    pods += parallelism;
  }
  w.description = fmt::format("{}, {} nodes, {} pods, {} PodGroups",
                              mode.empty() ? "default profile" : std::string(mode) + " mode", nodes,
                              pods, groups);
  return w;
}

std::string CoschedulingConfig(std::string_view args) {
  return fmt::format(
      "apiVersion: kubescheduler.config.k8s.io/v1\n"
      "kind: KubeSchedulerConfiguration\n"
      "profiles:\n"
      "- schedulerName: default-scheduler\n"
      "  pluginConfig:\n"
      "  - name: Coscheduling\n"
      "    args: {{{}}}\n"
      "  plugins:\n"
      "    multiPoint:\n"
      "      enabled: [{{name: Coscheduling}}]\n"
      "    queueSort:\n"
      "      enabled: [{{name: Coscheduling}}]\n"
      "      disabled: [{{name: \"*\"}}]\n",
      args);
}

}  // namespace muster::testing
