// The workloads whose pods the simulation makes: ReplicaSet, Deployment, StatefulSet (apps/v1) and
// Job (batch/v1).

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "muster/api/decoder.h"
#include "muster/api/kinds.h"
#include "muster/api/object_decoding.h"

namespace muster::api::decoding {
namespace {

PodTemplateSpec ReadTemplate(Decoder& d, const YAML::Node& n, const std::string& path) {
  PodTemplateSpec t;
  Map m(d, n, path);
  // The object name stays the workload's: a template's metadata has no name of its own.
  Decoder& dec = d;
  {
    Map meta(dec, m.Get("metadata"), m.Path("metadata"));
    meta.Known(kUnreadMetadata);
    meta.Known({"name", "generateName", "namespace", "uid", "resourceVersion", "ownerReferences",
                "creationTimestamp", "deletionTimestamp"});  // an object's own, not a template's
    t.metadata.labels = ReadLabels(dec, meta.Get("labels"), meta.Path("labels"));
    t.metadata.annotations =
        ReadAnnotations(dec, meta.Get("annotations"), meta.Path("annotations"));
  }
  t.spec = ReadPodSpec(d, m.Get("spec"), m.Path("spec"));
  return t;
}

// A workload's selector must select its own template's pods, as the API server checks.
void CheckSelectorMatchesTemplate(Decoder& d, const LabelSelector& sel, const PodTemplateSpec& t) {
  if (sel.Empty()) {
    d.Error("spec.selector", "Invalid value: empty selector is invalid for this workload");
    return;
  }
  if (!sel.Matches(t.metadata.labels)) {
    d.Error("spec.template.metadata.labels",
            "Invalid value: `selector` does not match template `labels`");
  }
}

int32_t ReadReplicas(Decoder& d, Map& spec, std::string_view field, int32_t fallback) {
  auto r = ReadInt(d, spec.Get(field), spec.Path(field));
  if (!r) return fallback;
  if (*r < 0) {
    d.Error(spec.Path(field),
            fmt::format("Invalid value: {}: must be greater than or equal to 0", *r));
    return fallback;
  }
  return static_cast<int32_t>(*r);
}

template <typename Workload>
Workload ReadReplicatedWorkload(Decoder& d, Map& m) {
  Workload w;
  w.metadata = ReadObjectMeta<Workload>(d, m);
  Map s(d, m.Get("spec"), "spec");
  // The rollout's fields: a simulation creates the pods of one revision.
  if (d.kind() == "Deployment") {
    s.Known({"minReadySeconds", "strategy", "revisionHistoryLimit", "progressDeadlineSeconds",
             "paused"});
  } else if (d.kind() == "StatefulSet") {
    s.Known({"minReadySeconds", "updateStrategy", "revisionHistoryLimit",
             "persistentVolumeClaimRetentionPolicy", "ordinals"});
  } else {
    s.Known({"minReadySeconds"});
  }
  w.replicas = ReadReplicas(d, s, "replicas", 1);
  if (!Present(s.Get("selector"))) d.Error(s.Path("selector"), "Required value");
  w.selector = ReadLabelSelector(d, s.Get("selector"), s.Path("selector"));
  w.template_ = ReadTemplate(d, s.Get("template"), s.Path("template"));
  if (!w.template_.spec.restart_policy.empty() &&
      w.template_.spec.restart_policy != AlwaysRestartPolicy()) {
    d.Error("spec.template.spec.restartPolicy",
            fmt::format("Unsupported value: \"{}\": supported values: \"Always\"",
                        w.template_.spec.restart_policy.str()));
  }
  if (Present(s.Get("selector"))) CheckSelectorMatchesTemplate(d, w.selector, w.template_);
  if constexpr (std::is_same_v<Workload, StatefulSet>) {
    ReadList(d, s.Get("volumeClaimTemplates"), s.Path("volumeClaimTemplates"),
             [&](const YAML::Node& item, const std::string& p) {
               w.volume_claim_templates.push_back(ReadClaimTemplate(d, item, p, true));
             });
    w.service_name = ReadString(d, s.Get("serviceName"), s.Path("serviceName")).value_or("");
    if (auto p = ReadString(d, s.Get("podManagementPolicy"), s.Path("podManagementPolicy"))) {
      if (*p == "OrderedReady") {
        w.pod_management_policy = PodManagementPolicy::kOrderedReady;
      } else if (*p == "Parallel") {
        w.pod_management_policy = PodManagementPolicy::kParallel;
      } else {
        d.Error(s.Path("podManagementPolicy"),
                fmt::format("Unsupported value: \"{}\": supported values: \"OrderedReady\", "
                            "\"Parallel\"",
                            *p));
      }
    }
  }
  return w;
}

// Go's %q of a list of strings, as upstream prints a Required value's valid values.
std::string GoQuotedList(std::initializer_list<std::string_view> values) {
  std::string out = "[";
  for (std::string_view v : values) {
    if (out.size() > 1) out += ' ';
    out += GoQuote(v);
  }
  return out + "]";
}

PodFailurePolicyAction ReadPodFailurePolicyAction(Decoder& d, Map& rule, bool per_index) {
  const std::string path = rule.Path("action");
  const std::string action = ReadString(d, rule.Get("action"), path).value_or("");
  if (action == "FailJob") return PodFailurePolicyAction::kFailJob;
  if (action == "Ignore") return PodFailurePolicyAction::kIgnore;
  if (action == "Count") return PodFailurePolicyAction::kCount;
  if (action == "FailIndex") {
    if (!per_index) {
      d.Error(path, "Invalid value: \"FailIndex\": requires the backoffLimitPerIndex to be set");
    }
    return PodFailurePolicyAction::kFailIndex;
  }
  if (action.empty()) {
    d.Error(path, "Required value: valid values: " +
                      GoQuotedList({"Count", "FailIndex", "FailJob", "Ignore"}));
  } else {
    d.Error(path, fmt::format("Unsupported value: \"{}\": supported values: \"Count\", "
                              "\"FailIndex\", \"FailJob\", \"Ignore\"",
                              action));
  }
  return PodFailurePolicyAction::kCount;
}

// Go's %#v of an []int32, as upstream prints an invalid list of exit codes.
std::string GoInt32Slice(const std::vector<int32_t>& values) {
  return fmt::format("[]int32{{{}}}", fmt::join(values, ", "));
}

PodFailurePolicyOnExitCodes ReadOnExitCodes(Decoder& d, const YAML::Node& n,
                                            const std::string& path,
                                            const std::set<std::string>& containers) {
  Map m(d, n, path);
  PodFailurePolicyOnExitCodes req;
  req.container_name = ReadString(d, m.Get("containerName"), m.Path("containerName"));
  if (req.container_name && !containers.contains(*req.container_name)) {
    d.Error(m.Path("containerName"),
            FieldError::Invalid("", *req.container_name,
                                "must be one of the container or initContainer names in the pod "
                                "template")
                .message);
  }
  req.operator_ = ReadString(d, m.Get("operator"), m.Path("operator")).value_or("");
  if (req.operator_.empty()) {
    d.Error(m.Path("operator"), "Required value: valid values: " + GoQuotedList({"In", "NotIn"}));
  } else if (req.operator_ != "In" && req.operator_ != "NotIn") {
    d.Error(m.Path("operator"),
            fmt::format("Unsupported value: \"{}\": supported values: \"In\", \"NotIn\"",
                        req.operator_));
  }
  const std::string values_path = m.Path("values");
  ReadList(d, m.Get("values"), values_path, [&](const YAML::Node& item, const std::string& p) {
    const auto v = ReadInt(d, item, p);
    if (!v) return;
    const auto value = static_cast<int32_t>(*v);
    if (req.operator_ == "In" && value == 0) {
      d.Error(p, "Invalid value: 0: must not be 0 for the In operator");
    }
    if (std::find(req.values.begin(), req.values.end(), value) != req.values.end()) {
      d.Error(p, fmt::format("Duplicate value: {}", value));
    }
    req.values.push_back(value);
  });
  if (req.values.empty()) {
    // Go prints an absent list as nil and an empty one as {}.
    const std::string shown = Present(m.Get("values")) ? "[]int32{}" : "[]int32(nil)";
    d.Error(values_path, fmt::format("Invalid value: {}: at least one value is required", shown));
  } else if (req.values.size() > 255) {
    d.Error(values_path,
            fmt::format("Too many: {}: must have at most 255 items", req.values.size()));
  }
  if (!std::is_sorted(req.values.begin(), req.values.end())) {
    d.Error(values_path,
            fmt::format("Invalid value: {}: must be ordered", GoInt32Slice(req.values)));
  }
  return req;
}

std::vector<PodFailurePolicyOnPodConditionsPattern> ReadOnPodConditions(Decoder& d,
                                                                        const YAML::Node& n,
                                                                        const std::string& path) {
  std::vector<PodFailurePolicyOnPodConditionsPattern> patterns;
  ReadList(d, n, path, [&](const YAML::Node& item, const std::string& p) {
    Map m(d, item, p);
    PodFailurePolicyOnPodConditionsPattern pattern;
    pattern.type = ReadString(d, m.Get("type"), m.Path("type")).value_or("");
    ReportInvalid(d, m.Path("type"), pattern.type, LabelKeyErrors(pattern.type));
    // The API server defaults an unset status to True.
    pattern.status = ReadString(d, m.Get("status"), m.Path("status")).value_or("True");
    if (pattern.status != "True" && pattern.status != "False" && pattern.status != "Unknown") {
      d.Error(m.Path("status"), fmt::format("Unsupported value: \"{}\": supported values: "
                                            "\"False\", \"True\", \"Unknown\"",
                                            pattern.status));
    }
    patterns.push_back(std::move(pattern));
  });
  if (patterns.size() > 20) {
    d.Error(path, fmt::format("Too many: {}: must have at most 20 items", patterns.size()));
  }
  return patterns;
}

PodFailurePolicyRule ReadPodFailurePolicyRule(Decoder& d, const YAML::Node& n,
                                              const std::string& path,
                                              const std::set<std::string>& containers,
                                              bool per_index) {
  Map m(d, n, path);
  PodFailurePolicyRule rule;
  rule.action = ReadPodFailurePolicyAction(d, m, per_index);
  if (Present(m.Get("onExitCodes"))) {
    rule.on_exit_codes =
        ReadOnExitCodes(d, m.Get("onExitCodes"), m.Path("onExitCodes"), containers);
  }
  rule.on_pod_conditions =
      ReadOnPodConditions(d, m.Get("onPodConditions"), m.Path("onPodConditions"));
  const bool exit_codes = rule.on_exit_codes.has_value();
  const bool conditions = !rule.on_pod_conditions.empty();
  if (exit_codes && conditions) {
    d.Error(path,
            "Invalid value: specifying both OnExitCodes and OnPodConditions is not supported");
  } else if (!exit_codes && !conditions) {
    d.Error(path, "Invalid value: specifying one of OnExitCodes and OnPodConditions is required");
  }
  return rule;
}

// `template_spec` is the Job's pod template, whose containers onExitCodes may name; `per_index`
// says whether the Job sets backoffLimitPerIndex, which FailIndex needs.
PodFailurePolicy ReadPodFailurePolicy(Decoder& d, const YAML::Node& n, const std::string& path,
                                      const PodSpec& template_spec, bool per_index) {
  Map m(d, n, path);
  std::set<std::string> containers;
  for (const auto* list : {&template_spec.containers, &template_spec.init_containers}) {
    for (const Container& c : *list) containers.insert(c.name);
  }
  PodFailurePolicy policy;
  const std::string rules = m.Path("rules");
  ReadList(d, m.Get("rules"), rules, [&](const YAML::Node& item, const std::string& p) {
    policy.rules.push_back(ReadPodFailurePolicyRule(d, item, p, containers, per_index));
  });
  if (policy.rules.size() > 20) {
    d.Error(rules, fmt::format("Too many: {}: must have at most 20 items", policy.rules.size()));
  }
  return policy;
}

CompletionMode ReadCompletionMode(Decoder& d, Map& spec) {
  const std::optional<std::string> mode =
      ReadString(d, spec.Get("completionMode"), spec.Path("completionMode"));
  if (!mode || *mode == "NonIndexed") return CompletionMode::kNonIndexed;
  if (*mode == "Indexed") return CompletionMode::kIndexed;
  d.Error(spec.Path("completionMode"),
          fmt::format("Unsupported value: \"{}\": supported values: \"NonIndexed\", \"Indexed\"",
                      *mode));
  return CompletionMode::kNonIndexed;
}

// The API server's checks of an Indexed Job: its completions are its indexes, and each pod's
// hostname, "<name>-<index>", must be a DNS label.
void CheckIndexedJob(Decoder& d, const Job& job) {
  if (!job.completions) {
    d.Error("spec.completions", "Required value: when completion mode is Indexed");
    return;
  }
  constexpr int32_t kMaxParallelism = 100000;
  if (job.parallelism > kMaxParallelism) {
    d.Error("spec.parallelism",
            fmt::format("Invalid value: {}: must be less than or equal to {} when completion mode "
                        "is Indexed",
                        job.parallelism, kMaxParallelism));
  }
  if (*job.completions == 0) return;
  const std::string hostname = fmt::format("{}-{}", job.metadata.name, *job.completions - 1);
  if (!Dns1123LabelErrors(hostname).empty()) {
    d.Error("metadata.name",
            FieldError::Invalid("", job.metadata.name,
                                "will not able to create pod with invalid DNS label: " + hostname)
                .message);
  }
}

Job ReadJob(Decoder& d, Map& m) {
  Job job;
  job.metadata = ReadObjectMeta<Job>(d, m);
  Map s(d, m.Get("spec"), "spec");
  s.Known({"activeDeadlineSeconds", "ttlSecondsAfterFinished", "manualSelector", "maxFailedIndexes",
           "successPolicy", "podReplacementPolicy", "managedBy"});
  job.parallelism = ReadReplicas(d, s, "parallelism", 1);
  if (Present(s.Get("completions"))) job.completions = ReadReplicas(d, s, "completions", 1);
  job.completion_mode = ReadCompletionMode(d, s);
  job.backoff_limit = ReadReplicas(d, s, "backoffLimit", 6);
  // Per-index backoff is not simulated: a Job that asks for it is refused, not run without it.
  const bool per_index = Present(s.Get("backoffLimitPerIndex"));
  for (std::string_view field : {"backoffLimitPerIndex", "maxFailedIndexes"}) {
    if (Present(s.Get(field))) {
      d.Error(s.Path(field), "not supported: muster does not simulate per-index backoff");
    }
  }
  job.suspend = ReadBool(d, s.Get("suspend"), s.Path("suspend")).value_or(false);
  job.selector = ReadOptionalLabelSelector(d, s.Get("selector"), s.Path("selector"));
  // A Job's template has no restartPolicy default; it must say Never or OnFailure.
  const bool has_policy = [&] {
    YAML::Node t = s.Get("template");
    return Present(t) && t.IsMap() && t["spec"] && t["spec"].IsMap() &&
           Present(t["spec"]["restartPolicy"]);
  }();
  job.template_ = ReadTemplate(d, s.Get("template"), s.Path("template"));
  if (job.completion_mode == CompletionMode::kIndexed) CheckIndexedJob(d, job);
  if (Present(s.Get("podFailurePolicy"))) {
    job.pod_failure_policy = ReadPodFailurePolicy(
        d, s.Get("podFailurePolicy"), s.Path("podFailurePolicy"), job.template_.spec, per_index);
  }
  const std::string restart = job.template_.spec.restart_policy.string();
  if (!has_policy) {
    d.Error("spec.template.spec.restartPolicy",
            "Required value: valid values: \"OnFailure\", \"Never\"");
  } else if (restart == "Always") {
    d.Error("spec.template.spec.restartPolicy",
            "Unsupported value: \"Always\": supported values: \"OnFailure\", \"Never\"");
  } else if (job.pod_failure_policy && restart != "Never") {
    d.Error("spec.template.spec.restartPolicy",
            FieldError::Invalid("", restart,
                                "only \"Never\" is supported when podFailurePolicy is specified")
                .message);
  }
  return job;
}

}  // namespace

ReplicaSet DecodeReplicaSet(Decoder& d, Map& m, const std::string&) {
  return ReadReplicatedWorkload<ReplicaSet>(d, m);
}
Deployment DecodeDeployment(Decoder& d, Map& m, const std::string&) {
  m.Get("strategy");
  return ReadReplicatedWorkload<Deployment>(d, m);
}
StatefulSet DecodeStatefulSet(Decoder& d, Map& m, const std::string&) {
  return ReadReplicatedWorkload<StatefulSet>(d, m);
}
Job DecodeJob(Decoder& d, Map& m, const std::string&) { return ReadJob(d, m); }

}  // namespace muster::api::decoding
