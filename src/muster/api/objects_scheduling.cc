// The scheduling kinds: PodGroup (scheduler-plugins' CRD, both its API groups) and PriorityClass.

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <string>
#include <vector>

#include "muster/api/decoder.h"
#include "muster/api/kinds.h"
#include "muster/api/object_decoding.h"
#include "muster/api/priority.h"

namespace muster::api::decoding {
namespace {

PodGroup ReadPodGroup(Decoder& d, Map& m, const std::string& api_version) {
  PodGroup pg;
  pg.api_version = api_version;
  pg.metadata = ReadObjectMeta<PodGroup>(d, m);
  {
    Map s(d, m.Get("spec"), "spec");
    if (auto mm = ReadInt(d, s.Get("minMember"), s.Path("minMember"))) {
      if (*mm < 1) {
        d.Error(s.Path("minMember"),
                fmt::format("Invalid value: {}: spec.minMember in body should be greater than or "
                            "equal to 1",
                            *mm));
      }
      pg.spec.min_member = static_cast<int32_t>(*mm);
    }
    pg.spec.min_resources =
        ReadResourceList(d, s.Get("minResources"), s.Path("minResources"), false);
    if (auto t = ReadInt(d, s.Get("scheduleTimeoutSeconds"), s.Path("scheduleTimeoutSeconds"))) {
      if (*t < 0) {
        d.Error(s.Path("scheduleTimeoutSeconds"),
                fmt::format("Invalid value: {}: must be greater than or equal to 0", *t));
      }
      pg.spec.schedule_timeout_seconds = static_cast<int32_t>(*t);
    }
  }
  Map s(d, m.Get("status"), "status");
  if (auto phase = ReadString(d, s.Get("phase"), s.Path("phase")); phase && !phase->empty()) {
    if (auto p = ParsePodGroupPhase(*phase)) {
      pg.status.phase = *p;
    } else {
      d.Error(s.Path("phase"), fmt::format("Unsupported value: \"{}\"", *phase));
    }
  }
  pg.status.occupied_by = ReadString(d, s.Get("occupiedBy"), s.Path("occupiedBy")).value_or("");
  auto counter = [&](std::string_view field) {
    return static_cast<int32_t>(ReadInt(d, s.Get(field), s.Path(field), 0).value_or(0));
  };
  pg.status.scheduled = counter("scheduled");
  pg.status.running = counter("running");
  pg.status.succeeded = counter("succeeded");
  pg.status.failed = counter("failed");
  pg.status.schedule_start_time =
      ReadTime(d, s.Get("scheduleStartTime"), s.Path("scheduleStartTime"));
  ReadList(d, s.Get("conditions"), s.Path("conditions"),
           [&](const YAML::Node& item, const std::string& p) {
             pg.status.conditions.push_back(ReadCondition(d, item, p));
           });
  return pg;
}

PriorityClass ReadPriorityClass(Decoder& d, Map& m) {
  PriorityClass pc;
  pc.metadata = ReadObjectMeta<PriorityClass>(d, m);
  if (!Present(m.Get("value"))) d.Error("value", "Required value");
  pc.value = static_cast<int32_t>(ReadInt(d, m.Get("value"), "value").value_or(0));
  pc.global_default = ReadBool(d, m.Get("globalDefault"), "globalDefault").value_or(false);
  if (auto s = ReadString(d, m.Get("preemptionPolicy"), "preemptionPolicy")) {
    if (*s == "Never") {
      pc.preemption_policy = PreemptionPolicy::kNever;
    } else if (*s == "PreemptLowerPriority") {
      pc.preemption_policy = PreemptionPolicy::kPreemptLowerPriority;
    } else {
      d.Error("preemptionPolicy",
              fmt::format("Unsupported value: \"{}\": supported values: \"Never\", "
                          "\"PreemptLowerPriority\"",
                          *s));
    }
  }
  pc.description = ReadString(d, m.Get("description"), "description").value_or("");
  if (std::string err = ValidatePriorityClass(pc); !err.empty()) d.Error("", err);
  return pc;
}

}  // namespace

PodGroup DecodePodGroup(Decoder& d, Map& m, const std::string& api_version) {
  return ReadPodGroup(d, m, api_version);
}
PriorityClass DecodePriorityClass(Decoder& d, Map& m, const std::string&) {
  return ReadPriorityClass(d, m);
}

}  // namespace muster::api::decoding
