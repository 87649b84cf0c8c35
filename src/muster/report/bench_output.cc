#include "muster/report/bench_output.h"

#include <cmath>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace muster::report {
namespace {

double Round(double v, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(v * scale) / scale;
}

std::string Mib(int64_t bytes) {
  return fmt::format("{:.0f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

std::string Rate(std::optional<double> v) {
  return v ? fmt::format("{:.0f}", *v) : std::string("-");
}

bool BelowTarget(const bench::Result& r) { return r.target && r.pods_per_second < *r.target; }

std::string Ratio(double value, std::optional<double> base) {
  return base && *base > 0 ? fmt::format("{:.1f}x", value / *base) : std::string("-");
}

}  // namespace

void PrintTable(std::span<const bench::Result> results, std::ostream& out) {
  out << fmt::format(
      "{:<31} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>7} {:>8} "
      "{:>7} {:>7} {:>7}\n",
      "WORKLOAD", "NODES", "INITIAL", "MEASURED", "SECONDS", "PODS/S", "P50 MS", "P99 MS",
      "PEAK RSS", "UPSTREAM", "RATIO", "TARGET", "VS TGT", "B/NODE", "B/POD");
  std::vector<std::string> notes;
  bool below = false;
  for (const bench::Result& r : results) {
    out << fmt::format(
        "{:<31} {:>6} {:>8} {:>8} {:>8.3f} {:>8.0f} {:>8.3f} {:>8.3f} {:>9} {:>8} {:>7} {:>8} "
        "{:>7} {:>7} {:>7}\n",
        r.workload, r.nodes, r.initial_pods, r.measured_pods, r.seconds, r.pods_per_second,
        r.p50_latency_ms, r.p99_latency_ms, Mib(r.peak_rss_bytes), Rate(r.upstream_threshold),
        Ratio(r.pods_per_second, r.upstream_threshold), Rate(r.target),
        Ratio(r.pods_per_second, r.target) + (BelowTarget(r) ? "*" : ""), r.bytes_per_node,
        r.bytes_per_pod);
    below = below || BelowTarget(r);
    if (r.created_pods != r.measured_pods) {
      notes.push_back(fmt::format("{}: {} pods created, {} bound (measured)", r.workload,
                                  r.created_pods, r.measured_pods));
    }
    if (r.waited > api::Duration::zero()) {
      notes.push_back(fmt::format(
          "{}: the scheduler sat idle for {} of virtual time (backoff) while measuring; not "
          "counted in SECONDS",
          r.workload, api::FormatDuration(r.waited)));
    }
    for (const std::string& e : r.errors)
      notes.push_back(fmt::format("{}: error: {}", r.workload, e));
  }
  for (const std::string& n : notes) out << n << "\n";
  if (below) out << "* below its target\n";
  out << "INITIAL: pods placed before measuring; MEASURED: pods whose scheduling is timed; "
         "SECONDS, PODS/S: the measured pods' wall time and rate; P50/P99 MS: their attempt "
         "latency; PEAK RSS: the process's peak resident memory so far (it only grows across "
         "workloads run in one process); UPSTREAM: kube-scheduler's threshold for the workload "
         "(pods/s), RATIO the rate over it; TARGET: muster's own, VS TGT the rate over it; "
         "B/NODE: resident memory added while creating the nodes, per node; B/POD: resident "
         "memory added from then to the end of the run, per pod created.\n";
}

void PrintJson(std::span<const bench::Result> results, std::ostream& out) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const bench::Result& r : results) {
    nlohmann::ordered_json j;
    j["workload"] = r.workload;
    j["nodes"] = r.nodes;
    j["initialPods"] = r.initial_pods;
    j["measuredPods"] = r.measured_pods;
    j["seconds"] = Round(r.seconds, 4);
    j["podsPerSecond"] = static_cast<int64_t>(std::llround(r.pods_per_second));
    j["p50LatencyMs"] = Round(r.p50_latency_ms, 4);
    j["p99LatencyMs"] = Round(r.p99_latency_ms, 4);
    j["peakRssBytes"] = r.peak_rss_bytes;
    if (r.upstream_threshold) {
      j["upstreamThreshold"] = static_cast<int64_t>(std::llround(*r.upstream_threshold));
    } else {
      j["upstreamThreshold"] = nullptr;
    }
    j["attempts"] = r.attempts;
    if (r.target) {
      j["target"] = static_cast<int64_t>(std::llround(*r.target));
      j["belowTarget"] = BelowTarget(r);
    } else {
      j["target"] = nullptr;
      j["belowTarget"] = false;
    }
    list.push_back(std::move(j));
  }
  nlohmann::ordered_json doc;
  doc["results"] = std::move(list);
  out << doc.dump(2) << "\n";
}

}  // namespace muster::report
