#pragma once

// The HTML report's charts, drawn as inline SVG by muster itself (no charting library, no
// script): a stacked step chart of pods over virtual time, a heat map, histograms and a Gantt
// chart of PodGroups. Hover text is SVG <title> elements. Each function takes plain data and
// returns one <svg> element; every string in it is escaped here. Output depends on the input
// only (fixed-precision coordinates), so a report is byte-identical from run to run.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "muster/api/time.h"

namespace muster::report::charts {

// Text and attribute values for HTML and SVG: & < > " ' escaped.
std::string Escape(std::string_view text);

// A compact virtual time for axes and labels: "0s", "250ms", "1.5s", "45s", "1m30s", "2m",
// "1h", "1h30m", "2d4h".
std::string TimeLabel(api::Duration d);

// Tick positions for a time axis from 0 to `end`: multiples of a round step (1s, 2s, 5s, 10s,
// 15s, 30s, 1m, ...), at most `max_ticks` of them, 0 first.
std::vector<api::Duration> TimeTicks(api::Duration end, int max_ticks);

// The colours of the report (Okabe and Ito's palette, distinguishable with every common colour
// vision deficiency), as CSS colours.
inline constexpr std::string_view kBlue = "#0072B2";
inline constexpr std::string_view kSkyBlue = "#56B4E9";
inline constexpr std::string_view kGreen = "#009E73";
inline constexpr std::string_view kOrange = "#E69F00";
inline constexpr std::string_view kVermillion = "#D55E00";
inline constexpr std::string_view kPurple = "#CC79A7";

// ---- Stacked step chart ----

struct Layer {
  std::string name;
  std::string_view color;
};

// Values of every layer from `at` until the next step.
struct Step {
  api::Duration at;
  std::vector<int64_t> values;  // one per layer, bottom first
};

// Layers stacked bottom first, each value held until the next step and the last until `end`;
// zero before the first step. Steps closer than half a pixel collapse into the last of them.
// `end` 0 draws the one instant across the whole width; a last step at `end` gets a width past
// it (the axis runs a fortieth further), so that the state the run ended in shows.
std::string StackedStepChart(const std::vector<Layer>& layers, const std::vector<Step>& steps,
                             api::Duration end, int width, int height);

// ---- Heat map ----

struct Cell {
  std::optional<double> fraction;  // nullopt: not applicable (drawn grey, "–")
  std::string title;               // hover text
};

struct HeatRow {
  std::string label;
  std::string title;  // hover text of the label
  std::vector<Cell> cells;
  bool emphasis = false;  // a bold label, a rule under the row (a total)
};

// Columns under groups: `groups` names each run of `group_size` columns (say "cpu" over "end"
// and "peak"), `columns` name each. Cells are coloured by fraction on a light-to-dark blue scale
// and show it as a percentage.
std::string HeatMap(const std::vector<std::string>& groups, const std::vector<std::string>& columns,
                    const std::vector<HeatRow>& rows, int label_width);

// The heat map's colour for a fraction (clamped to [0, 1]).
std::string HeatColor(double fraction);

// ---- Histogram ----

struct HistogramSeries {
  std::string name;
  std::string_view color;
  std::vector<int64_t> counts;  // one per bin
};

// Grouped bars: for each bin, one bar per series. `bins` name the bins in hover text ("cpu
// 50-60%: 12 nodes", with `unit` "nodes"); `ticks` label the bin boundaries under the axis
// (bins + 1 of them, empty ones left out).
std::string Histogram(const std::string& title, const std::vector<std::string>& bins,
                      const std::vector<std::string>& ticks,
                      const std::vector<HistogramSeries>& series, std::string_view unit, int width,
                      int height);

// ---- Gantt chart ----

struct Span {
  api::Duration from;
  api::Duration to;
  std::string_view color;
  std::string title;
};

struct Mark {
  api::Duration at;
  std::string title;
};

struct GanttRow {
  std::string label;
  std::string title;  // hover text of the whole row
  std::vector<Span> spans;
  std::vector<Mark> marks;                // drawn as ticks over the bar
  std::optional<api::Duration> end_mark;  // a stop line (the group deleted)
  std::string note;                       // printed right of the chart ("waited 12s")
  bool note_alert = false;                // the note in the alert colour
};

// One row per entry on a shared time axis from 0 to `end`. A span that lasts to `end` reaches
// the right edge, so with `end` 0 a row shows the state its one instant ended in; when a span
// starts at `end`, the axis runs a fortieth further, so that it shows too.
std::string Gantt(const std::vector<GanttRow>& rows, api::Duration end, int width, int label_width,
                  int note_width);

}  // namespace muster::report::charts
