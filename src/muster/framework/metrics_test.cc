#include "muster/framework/metrics.h"

#include <string>

#include <gtest/gtest.h>

namespace muster::framework {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(Metrics, SeriesAppearOnceUsedWithKubeSchedulersLabels) {
  Metrics m;
  Metrics::Profile& p = m.ForProfile("default-scheduler");
  EXPECT_EQ(&p, &m.ForProfile("default-scheduler"));
  p.ExtensionPoint(ExtensionPoint::kPermit, Code::kWait, 0.00015);
  const std::string text = m.Text();
  EXPECT_TRUE(Has(
      text,
      R"(scheduler_framework_extension_point_duration_seconds_count{extension_point="Permit",profile="default-scheduler",status="Wait"} 1)"))
      << text;
  // 0.1ms is the first bound: 0.15ms falls in the second (0.2ms).
  EXPECT_TRUE(Has(
      text,
      R"(scheduler_framework_extension_point_duration_seconds_bucket{extension_point="Permit",profile="default-scheduler",status="Wait",le="0.0001"} 0)"));
  EXPECT_TRUE(Has(
      text,
      R"(scheduler_framework_extension_point_duration_seconds_bucket{extension_point="Permit",profile="default-scheduler",status="Wait",le="0.0002"} 1)"));
  // A point never run has no series; attempt series exist from the start, at zero.
  EXPECT_EQ(text.find(R"(extension_point="Bind")"), std::string::npos);
  EXPECT_TRUE(Has(
      text,
      R"(scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"} 0)"));
}

TEST(Metrics, ManyPluginCallsAreObservedAtOnceInTheirMeansBucket) {
  Metrics m;
  // 64 calls of 30us each: all in the bucket bounded by 10us * 1.5^3 = 33.75us.
  m.PluginExecution("NodeResourcesFit", ExtensionPoint::kFilter, Code::kSuccess, 30e-6, 64);
  m.PluginExecution("NodeResourcesFit", ExtensionPoint::kFilter, Code::kUnschedulable, 30e-6, 0);
  const std::string text = m.Text();
  const std::string series =
      R"(scheduler_plugin_execution_duration_seconds_bucket{extension_point="Filter",plugin="NodeResourcesFit",status="Success",le=)";
  EXPECT_TRUE(Has(text, series + R"("2.25e-05"} 0)")) << text;
  // The bound is 10us * 1.5 * 1.5 * 1.5 as multiplied (3.375000000000001e-05), as upstream's.
  const size_t at = text.find(series + R"("3.375)");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_EQ(text.substr(text.find('}', at), 5), "} 64\n");
  EXPECT_TRUE(Has(
      text,
      R"(scheduler_plugin_execution_duration_seconds_count{extension_point="Filter",plugin="NodeResourcesFit",status="Success"} 64)"));
  // No calls, no series.
  EXPECT_EQ(text.find(R"(status="Unschedulable")"), std::string::npos);
}

TEST(Metrics, TheSliIsLabelledWithAttemptsUpToFifteenPlus) {
  Metrics m;
  m.PodScheduled(1, 0.5);
  m.PodScheduled(15, 2);
  m.PodScheduled(40, 3);
  const std::string text = m.Text();
  EXPECT_TRUE(Has(text, R"(scheduler_pod_scheduling_sli_duration_seconds_count{attempts="1"} 1)"));
  EXPECT_TRUE(
      Has(text, R"(scheduler_pod_scheduling_sli_duration_seconds_count{attempts="15+"} 2)"));
  EXPECT_TRUE(Has(text, R"(scheduler_pod_scheduling_sli_duration_seconds_sum{attempts="15+"} 5)"));
  EXPECT_TRUE(Has(text, "scheduler_pod_scheduling_attempts_count 3"));
}

TEST(Metrics, QueueSeriesByQueueAndEvent) {
  Metrics m;
  m.QueueIncoming(QueueName::kActive, "PodAdd");
  m.QueueIncoming(QueueName::kActive, "PodAdd");
  m.QueueIncoming(QueueName::kBackoff, "ScheduleAttemptFailure");
  m.SetPending(QueueName::kGated, 4);
  const std::string text = m.Text();
  EXPECT_TRUE(Has(text, R"(scheduler_queue_incoming_pods_total{event="PodAdd",queue="active"} 2)"));
  EXPECT_TRUE(Has(
      text,
      R"(scheduler_queue_incoming_pods_total{event="ScheduleAttemptFailure",queue="backoff"} 1)"));
  EXPECT_TRUE(Has(text, R"(scheduler_pending_pods{queue="gated"} 4)"));
  EXPECT_TRUE(Has(text, R"(scheduler_pending_pods{queue="active"} 0)"));
}

TEST(Metrics, EvaluationsHintsEventsAndGoroutinesUnderKubeSchedulersNames) {
  Metrics m;
  prometheus::Counter* score = m.PluginEvaluations("ImageLocality", ExtensionPoint::kScore, "p");
  EXPECT_EQ(score, m.PluginEvaluations("ImageLocality", ExtensionPoint::kScore, "p"));
  score->Increment(3);
  m.QueueingHint("NodeAffinity", "NodeAdd", "QueueSkip", 12e-6);
  m.EventHandled("NodeAdd", 0.00015);
  const std::shared_ptr<std::atomic<int64_t>> binding = m.Goroutines("binding");
  EXPECT_EQ(binding, m.Goroutines("binding"));
  binding->fetch_add(2);
  std::string text = m.Text();
  EXPECT_TRUE(Has(
      text,
      R"(scheduler_plugin_evaluation_total{extension_point="Score",plugin="ImageLocality",profile="p"} 3)"))
      << text;
  // The plugin layout: 10us, then 15us (12us falls there).
  EXPECT_TRUE(Has(
      text,
      R"(scheduler_queueing_hint_execution_duration_seconds_bucket{event="NodeAdd",hint="QueueSkip",plugin="NodeAffinity",le="1.5e-05"} 1)"));
  // The extension point layout: 0.1ms, 0.2ms...
  EXPECT_TRUE(Has(
      text, R"(scheduler_event_handling_duration_seconds_bucket{event="NodeAdd",le="0.0002"} 1)"));
  EXPECT_TRUE(Has(text, R"(scheduler_goroutines{operation="binding"} 2)"));
  // Read again when the metrics are.
  binding->fetch_sub(2);
  EXPECT_TRUE(Has(m.Text(), R"(scheduler_goroutines{operation="binding"} 0)"));
}

TEST(Metrics, EveryTenthCycleIsSampled) {
  Metrics m;
  int sampled = 0;
  for (int i = 0; i < 30; ++i) sampled += m.SamplePluginsThisCycle() ? 1 : 0;
  EXPECT_EQ(sampled, 3);
}

// The plugins' clock turns ticks into seconds at a rate that is a CPU's: between 1 MHz and
// 100 GHz, whatever the machine.
TEST(PluginTicks, SecondsPerTickIsACpusRate) {
  const double per_tick = SecondsPerPluginTick();
  EXPECT_GT(per_tick, 1e-11);
  EXPECT_LT(per_tick, 1e-6);
  EXPECT_EQ(TicksSince(4, 10), 6u);
  EXPECT_EQ(TicksSince(10, 4), 0u);  // a counter that went back counts nothing
}

}  // namespace
}  // namespace muster::framework
