#include "muster/report/charts.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace muster::report::charts {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

size_t Count(const std::string& text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ChartsTest, EscapesMarkup) {
  EXPECT_EQ(Escape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(Escape("plain"), "plain");
}

TEST(ChartsTest, LabelsTimesCompactly) {
  EXPECT_EQ(TimeLabel(api::Duration::zero()), "0s");
  EXPECT_EQ(TimeLabel(milliseconds(250)), "250ms");
  EXPECT_EQ(TimeLabel(milliseconds(1500)), "1.5s");
  EXPECT_EQ(TimeLabel(seconds(45)), "45s");
  EXPECT_EQ(TimeLabel(seconds(90)), "1m30s");
  EXPECT_EQ(TimeLabel(minutes(2)), "2m");
  EXPECT_EQ(TimeLabel(hours(1)), "1h");
  EXPECT_EQ(TimeLabel(minutes(90)), "1h30m");
  EXPECT_EQ(TimeLabel(hours(52)), "2d4h");
}

TEST(ChartsTest, TicksAreRoundStepsWithinTheLimit) {
  EXPECT_EQ(TimeTicks(api::Duration::zero(), 8), std::vector<api::Duration>{api::Duration::zero()});
  const std::vector<api::Duration> ticks = TimeTicks(seconds(100), 8);
  ASSERT_EQ(ticks.size(), 7u);
  EXPECT_EQ(ticks[1], seconds(15));
  EXPECT_EQ(ticks.back(), seconds(90));
  EXPECT_EQ(TimeTicks(minutes(2), 5),
            (std::vector<api::Duration>{seconds(0), seconds(30), seconds(60), seconds(90),
                                        seconds(120)}));
}

TEST(ChartsTest, StackedStepChartDrawsOneAreaPerNonEmptyLayer) {
  const std::vector<Layer> layers = {{"running", kBlue}, {"pending", kOrange}, {"gated", kPurple}};
  const std::vector<Step> steps = {
      {seconds(0), {0, 3, 0}}, {seconds(10), {2, 1, 0}}, {seconds(30), {3, 0, 0}}};
  const std::string svg = StackedStepChart(layers, steps, seconds(60), 800, 300);
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(Count(svg, "<path "), 2u) << "gated is empty";
  EXPECT_THAT(svg, HasSubstr("fill=\"#0072B2\""));
  EXPECT_THAT(svg, HasSubstr("fill=\"#E69F00\""));
  EXPECT_THAT(svg, Not(HasSubstr("fill=\"#CC79A7\"")));
  // Hover text per stretch between steps, and the axis in virtual time.
  EXPECT_THAT(svg, HasSubstr("<title>10s\u201330s: 1 pending, 2 running</title>"));
  EXPECT_THAT(svg, HasSubstr(">1m</text>"));
  EXPECT_EQ(svg, StackedStepChart(layers, steps, seconds(60), 800, 300));
}

TEST(ChartsTest, StepsWithinHalfAPixelCollapseIntoTheLast) {
  const std::vector<Layer> layers = {{"running", kBlue}};
  std::vector<Step> steps;
  for (int i = 0; i < 10000; ++i) steps.push_back({milliseconds(i), {i % 7}});
  const std::string svg = StackedStepChart(layers, steps, seconds(10), 500, 200);
  EXPECT_LT(svg.size(), 60000u);
  EXPECT_LE(Count(svg, "<rect "), 240u);
}

// The width of the hover target whose title is `title`, in pixels; -1 when there is none.
double HoverWidth(const std::string& svg, const std::string& title) {
  const size_t at = svg.find("><title>" + title + "</title>");
  if (at == std::string::npos) return -1;
  const size_t width = svg.rfind("width=\"", at);
  return std::stod(svg.substr(width + 7));
}

// A run usually ends at its last change: the state it ended in is drawn with a width, not as a
// line at the right edge.
TEST(ChartsTest, TheLastStepAtTheEndHasAWidth) {
  const std::vector<Layer> layers = {{"succeeded", kGreen}, {"running", kBlue}};
  const std::vector<Step> steps = {{seconds(0), {0, 2}}, {seconds(20), {2, 0}}};
  const std::string svg = StackedStepChart(layers, steps, seconds(20), 1300, 300);
  EXPECT_GT(HoverWidth(svg, "20s: 2 succeeded"), 20) << svg;
  EXPECT_GT(HoverWidth(svg, "0s\u201320s: 2 running"), 1000) << svg;
  // A state reached before the end already lasts to it: the axis stays as it was.
  const std::string until_later = StackedStepChart(layers, steps, seconds(40), 1300, 300);
  EXPECT_NEAR(HoverWidth(until_later, "20s: 2 succeeded"), 620, 1);
}

TEST(ChartsTest, GanttDrawsASpanThatStartsAtTheEnd) {
  GanttRow row;
  row.label = "g";
  row.spans = {{seconds(0), seconds(20), kBlue, "running"},
               {seconds(20), seconds(20), kGreen, "finished"}};
  const std::string svg = Gantt({row}, seconds(20), 1000, 200, 150);
  EXPECT_GT(HoverWidth(svg, "finished"), 5) << svg;
}

TEST(ChartsTest, HeatMapColoursAndPrintsFractions) {
  EXPECT_EQ(HeatColor(0), "#f7fbff");
  EXPECT_EQ(HeatColor(1), "#08306b");
  EXPECT_EQ(HeatColor(7), "#08306b");
  const std::string svg =
      HeatMap({"cpu"}, {"end", "peak"},
              {{"node <1>", "", {{0.754, "cpu 75%"}, {std::nullopt, "none"}}, false}}, 200);
  EXPECT_THAT(svg, HasSubstr(">75%</text>"));
  EXPECT_THAT(svg, HasSubstr(">\u2013</text>"));
  EXPECT_THAT(svg, HasSubstr("node &lt;1&gt;"));
  EXPECT_THAT(svg, Not(HasSubstr("node <1>")));
}

// A resource's name is not cut over its columns: they widen until it fits (it was cut to
// "example.com/gpu-…" over two cells of the usual width).
TEST(ChartsTest, HeatMapColumnsWidenForTheirGroupsName) {
  const std::vector<HeatRow> rows = {
      {"n", "", {{0.5, ""}, {0.5, ""}, {1.0, ""}, {1.0, ""}}, false}};
  const std::string svg =
      HeatMap({"cpu", "example.com/gpu-mem"}, {"end", "peak", "end", "peak"}, rows, 100);
  EXPECT_THAT(svg, HasSubstr(">example.com/gpu-mem</text>"));
  // cpu's cells keep their width; the GPU memory's take half the name's 19 characters each.
  EXPECT_THAT(svg, HasSubstr("width=\"56\""));
  // (19 x 6.5 px + 8) / 2 - 2 px of margin = 63.75.
  EXPECT_THAT(svg, HasSubstr("width=\"63.8\""));
  // A name past 48 characters is cut, and whole in its tooltip.
  const std::string name = "example.com/" + std::string(60, 'x');
  const std::string cut = HeatMap({name}, {"end"}, {{"n", "", {{0.5, ""}}, false}}, 100);
  EXPECT_THAT(cut, HasSubstr("<title>" + name + "</title>"));
  EXPECT_THAT(cut, Not(HasSubstr(">" + name + "</text>")));
}

TEST(ChartsTest, GanttSkipsEmptySpansAndPrintsNotes) {
  GanttRow row;
  row.label = "g";
  row.spans = {{seconds(0), seconds(0), kOrange, "instant"}, {seconds(0), seconds(20), kBlue, "r"}};
  row.marks = {{seconds(0), "first member"}};
  row.note = "quorum at once";
  const std::string svg = Gantt({row}, seconds(40), 1000, 200, 150);
  EXPECT_THAT(svg, Not(HasSubstr("<title>instant</title>")));
  EXPECT_THAT(svg, HasSubstr("<title>r</title>"));
  EXPECT_THAT(svg, HasSubstr(">quorum at once</text>"));
}

}  // namespace
}  // namespace muster::report::charts
