#include "muster/report/charts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>

#include <fmt/format.h>

namespace muster::report::charts {
namespace {

using std::chrono::microseconds;

constexpr std::string_view kAxisColor = "#6b7280";
constexpr std::string_view kGridColor = "#e5e7eb";
constexpr std::string_view kTextColor = "#1f2937";
constexpr std::string_view kAlertColor = "#a33d00";

template <typename... Args>
void Put(std::string& out, fmt::format_string<Args...> format, Args&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<Args>(args)...);
}

// A coordinate: one decimal is finer than a pixel, and the text stays the same across runs.
std::string C(double v) {
  if (std::abs(v) < 0.05) return "0";
  std::string s = fmt::format("{:.1f}", v);
  if (s.ends_with(".0")) s.resize(s.size() - 2);
  return s;
}

// 1, 2 or 5 times a power of ten, so that `max` takes about `ticks` steps.
int64_t NiceStep(int64_t max, int ticks) {
  const double raw = std::max<double>(1.0, static_cast<double>(max) / ticks);
  int64_t magnitude = 1;
  while (magnitude * 10 <= raw) magnitude *= 10;
  for (int64_t m : {1, 2, 5, 10}) {
    if (magnitude * m >= raw) return magnitude * m;
  }
  return magnitude * 10;
}

// A count axis from 0 to a round maximum at or above the largest value, in about `ticks` steps,
// drawn over the plot's rows from `top` down `height` pixels.
struct CountScale {
  int64_t step;
  int64_t max;
  double top;
  double height;

  CountScale(int64_t largest, int ticks, double top_px, double height_px)
      : step(NiceStep(std::max<int64_t>(largest, 1), ticks)),
        max(std::max<int64_t>(1, (largest + step - 1) / step) * step),
        top(top_px),
        height(height_px) {}
  double Y(int64_t v) const {
    return top + height - height * static_cast<double>(v) / static_cast<double>(max);
  }
};

// Opens a chart's <svg> element (width and height as they are to be written).
void OpenSvg(std::string& out, std::string_view width, std::string_view height) {
  Put(out,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\">",
      width, height);
}

// Shortens `text` to about `max_chars`, ending in an ellipsis.
std::string Clip(std::string_view text, size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);
  // Cut at a UTF-8 character boundary.
  size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return std::string(text.substr(0, cut)) + "\u2026";
}

void Title(std::string& out, std::string_view title) {
  if (!title.empty()) Put(out, "<title>{}</title>", Escape(title));
}

// The time axis under a plot from x0 to x0 + width at y, with vertical grid lines up to `top`.
// Where a chart's time axis ends: at `end`, or a fortieth further when the last change comes at
// `end` (a run usually ends at its last change), so that the state the run ended in has a width.
api::Duration AxisEnd(api::Duration end, api::Duration last_change) {
  return end.count() > 0 && last_change >= end ? end + end / 40 : end;
}

void TimeAxis(std::string& out, api::Duration end, double x0, double width, double y, double top) {
  const double domain = static_cast<double>(std::max<int64_t>(end.count(), 1));
  const int max_ticks = std::max(2, static_cast<int>(width / 90));
  Put(out, "<g font-size=\"11\" fill=\"{}\">", kAxisColor);
  for (api::Duration t : TimeTicks(end, max_ticks)) {
    const double x = x0 + width * static_cast<double>(t.count()) / domain;
    if (t.count() > 0) {
      Put(out, "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\"/>", C(x), C(top),
          C(y), kGridColor);
    }
    Put(out, "<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"{3}\"/>", C(x), C(y),
        C(y + 4), kAxisColor);
    const std::string_view anchor =
        x > x0 + width - 20 ? "end" : (t.count() == 0 ? "start" : "middle");
    Put(out, "<text x=\"{}\" y=\"{}\" text-anchor=\"{}\">{}</text>", C(x), C(y + 16), anchor,
        Escape(TimeLabel(t)));
  }
  Put(out, "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\"/></g>", C(x0),
      C(x0 + width), C(y), kAxisColor);
}

// Linear interpolation between two "#rrggbb" colours.
std::string Mix(std::string_view a, std::string_view b, double t) {
  auto channel = [](std::string_view c, int i) {
    return std::stoi(std::string(c.substr(1 + 2 * i, 2)), nullptr, 16);
  };
  std::string out = "#";
  for (int i = 0; i < 3; ++i) {
    const double v = channel(a, i) + (channel(b, i) - channel(a, i)) * t;
    Put(out, "{:02x}", static_cast<int>(std::lround(v)));
  }
  return out;
}

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string TimeLabel(api::Duration d) {
  if (d.count() <= 0) return "0s";
  const int64_t us = d.count();
  if (us < 1000) return fmt::format("{}\u00b5s", us);
  if (us < 1'000'000) {
    return us % 1000 == 0 ? fmt::format("{}ms", us / 1000)
                          : fmt::format("{:g}ms", static_cast<double>(us) / 1000);
  }
  if (us < 60'000'000 && us % 1'000'000 != 0) {
    return fmt::format("{:g}s", std::round(static_cast<double>(us) / 1000) / 1000);
  }
  int64_t s = us / 1'000'000;
  std::string out;
  for (auto [unit, size] : std::array<std::pair<const char*, int64_t>, 4>{
           {{"d", 86400}, {"h", 3600}, {"m", 60}, {"s", 1}}}) {
    if (s >= size) {
      Put(out, "{}{}", s / size, unit);
      s %= size;
    }
  }
  return out;
}

std::vector<api::Duration> TimeTicks(api::Duration end, int max_ticks) {
  if (end.count() <= 0) return {api::Duration::zero()};
  using std::chrono::hours;
  using std::chrono::milliseconds;
  using std::chrono::minutes;
  using std::chrono::seconds;
  static const std::vector<api::Duration> kSteps = {
      milliseconds(1),  milliseconds(2),   milliseconds(5),   milliseconds(10),  milliseconds(20),
      milliseconds(50), milliseconds(100), milliseconds(200), milliseconds(500), seconds(1),
      seconds(2),       seconds(5),        seconds(10),       seconds(15),       seconds(30),
      minutes(1),       minutes(2),        minutes(5),        minutes(10),       minutes(15),
      minutes(30),      hours(1),          hours(2),          hours(3),          hours(6),
      hours(12),        hours(24),         hours(48),         hours(24 * 7),     hours(24 * 14),
      hours(24 * 28)};
  const int64_t max_steps = std::max(1, max_ticks - 1);
  api::Duration step = kSteps.back();
  for (api::Duration s : kSteps) {
    if (end / s <= max_steps) {
      step = s;
      break;
    }
  }
  while (end / step > max_steps) step *= 2;
  std::vector<api::Duration> ticks;
  for (api::Duration t{0}; t <= end; t += step) ticks.push_back(t);
  return ticks;
}

std::string StackedStepChart(const std::vector<Layer>& layers, const std::vector<Step>& steps,
                             api::Duration end, int width, int height) {
  const double left = 48, right = 12, top = 10, bottom = 28;
  const double pw = width - left - right, ph = height - top - bottom;
  const api::Duration axis_end =
      AxisEnd(end, steps.empty() ? api::Duration::zero() : steps.back().at);
  const double domain = static_cast<double>(std::max<int64_t>(axis_end.count(), 1));
  auto x_of = [&](api::Duration t) {
    return left + pw * std::clamp(static_cast<double>(t.count()), 0.0, domain) / domain;
  };
  // Half-pixel columns: a step shares its column with the steps after it until one moves on.
  auto column = [&](api::Duration t) { return std::round(x_of(t) * 2) / 2; };
  std::vector<size_t> kept;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (!kept.empty() && column(steps[kept.back()].at) == column(steps[i].at)) {
      kept.back() = i;
    } else {
      kept.push_back(i);
    }
  }
  int64_t max_total = 0;
  for (size_t i : kept) {
    int64_t total = 0;
    for (int64_t v : steps[i].values) total += v;
    max_total = std::max(max_total, total);
  }
  const CountScale scale(max_total, 5, top, ph);
  auto y_of = [&](int64_t v) { return scale.Y(v); };

  std::string out;
  OpenSvg(out, std::to_string(width), std::to_string(height));
  // Grid and the count axis.
  Put(out, "<g font-size=\"11\" fill=\"{}\" text-anchor=\"end\">", kAxisColor);
  for (int64_t v = 0; v <= scale.max; v += scale.step) {
    Put(out, "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\"/>", C(left),
        C(left + pw), C(y_of(v)), v == 0 ? kAxisColor : kGridColor);
    Put(out, "<text x=\"{}\" y=\"{}\">{}</text>", C(left - 6), C(y_of(v) + 4), v);
  }
  out += "</g>";
  TimeAxis(out, axis_end, left, pw, top + ph, top);
  // One closed path per layer: along its top, then back along the layer under it.
  const double x_end = left + pw;
  for (size_t layer = 0; layer < layers.size(); ++layer) {
    std::vector<int64_t> lower(kept.size()), upper(kept.size());
    bool any = false;
    for (size_t k = 0; k < kept.size(); ++k) {
      const std::vector<int64_t>& v = steps[kept[k]].values;
      for (size_t j = 0; j < layer && j < v.size(); ++j) lower[k] += v[j];
      upper[k] = lower[k] + (layer < v.size() ? v[layer] : 0);
      any |= upper[k] != lower[k];
    }
    if (!any) continue;
    std::string d = fmt::format("M{} {}", C(column(steps[kept[0]].at)), C(y_of(lower[0])));
    for (size_t k = 0; k < kept.size(); ++k) {
      const double next = k + 1 < kept.size() ? column(steps[kept[k + 1]].at) : x_end;
      Put(d, "V{}H{}", C(y_of(upper[k])), C(next));
    }
    for (size_t k = kept.size(); k-- > 0;) {
      Put(d, "V{}H{}", C(y_of(lower[k])), C(column(steps[kept[k]].at)));
    }
    d += "Z";
    Put(out, "<path d=\"{}\" fill=\"{}\">", d, layers[layer].color);
    Title(out, layers[layer].name);
    out += "</path>";
  }
  if (kept.empty()) {
    Put(out, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{}\">no pods</text>",
        C(left + pw / 2), C(top + ph / 2), kAxisColor);
  }
  // Hover targets: what the counts were, per stretch of time (at most 240 of them).
  const size_t per = std::max<size_t>(1, (kept.size() + 239) / 240);
  out += "<g fill=\"#000\" fill-opacity=\"0\">";
  for (size_t k = 0; k < kept.size(); k += per) {
    const Step& s = steps[kept[k]];
    const double x0 = column(s.at);
    const double x1 = k + per < kept.size() ? column(steps[kept[k + per]].at) : x_end;
    std::string title = TimeLabel(s.at);
    if (per == 1 && k + 1 < kept.size()) title += "\u2013" + TimeLabel(steps[kept[k + 1]].at);
    title += ":";
    bool first = true;
    for (size_t j = layers.size(); j-- > 0;) {
      const int64_t v = j < s.values.size() ? s.values[j] : 0;
      if (v == 0) continue;
      Put(title, "{} {} {}", first ? "" : ",", v, layers[j].name);
      first = false;
    }
    if (first) title += " no pods";
    Put(out, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">", C(x0), C(top),
        C(std::max(1.0, x1 - x0)), C(ph));
    Title(out, title);
    out += "</rect>";
  }
  out += "</g></svg>";
  return out;
}

std::string HeatColor(double fraction) {
  // ColorBrewer's Blues: one hue, lightness falling with the value, legible to every viewer.
  static constexpr std::array<std::string_view, 9> kBlues = {"#f7fbff", "#deebf7", "#c6dbef",
                                                             "#9ecae1", "#6baed6", "#4292c6",
                                                             "#2171b5", "#08519c", "#08306b"};
  const double f = std::clamp(fraction, 0.0, 1.0) * (kBlues.size() - 1);
  const size_t i = std::min(static_cast<size_t>(f), kBlues.size() - 2);
  return Mix(kBlues[i], kBlues[i + 1], f - static_cast<double>(i));
}

std::string HeatMap(const std::vector<std::string>& groups, const std::vector<std::string>& columns,
                    const std::vector<HeatRow>& rows, int label_width) {
  const double cell_w = 58, cell_h = 20, gap = 6, header = 36, char_w = 6.5;
  const size_t per_group = groups.empty() ? columns.size() : columns.size() / groups.size();
  // Each column's left edge and width: a group's columns widen together until its name (say
  // "example.com/gpu-mem") fits over them, up to 48 characters; a longer one is cut, whole in
  // its tooltip.
  constexpr size_t kLongestGroupName = 48;
  std::vector<double> left(columns.size()), width(columns.size(), cell_w);
  double x = label_width;
  for (size_t c = 0; c < columns.size(); ++c) {
    const size_t g = per_group == 0 ? 0 : c / per_group;
    if (c > 0 && per_group != 0 && c % per_group == 0) x += gap;
    if (g < groups.size()) {
      const size_t chars = std::min(groups[g].size(), kLongestGroupName);
      width[c] = std::max(cell_w, (static_cast<double>(chars) * char_w + 8) / per_group);
    }
    left[c] = x;
    x += width[c];
  }
  const double total_width = x + 4;
  double height = header;
  for (const HeatRow& row : rows) height += cell_h + (row.emphasis ? gap : 0);
  std::string out;
  OpenSvg(out, C(total_width), C(height));
  Put(out, "<g font-size=\"11\" fill=\"{}\" text-anchor=\"middle\">", kAxisColor);
  for (size_t g = 0; per_group > 0 && g < groups.size(); ++g) {
    const size_t last = (g + 1) * per_group - 1;
    const double x0 = left[g * per_group], x1 = left[last] + width[last];
    Put(out, "<text x=\"{}\" y=\"13\" font-weight=\"600\" fill=\"{}\">", C((x0 + x1) / 2),
        kTextColor);
    if (groups[g].size() > kLongestGroupName) Title(out, groups[g]);
    Put(out, "{}</text>", Escape(Clip(groups[g], kLongestGroupName)));
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    Put(out, "<text x=\"{}\" y=\"30\">{}</text>", C(left[c] + width[c] / 2), Escape(columns[c]));
  }
  out += "</g>";
  double y = header;
  for (const HeatRow& row : rows) {
    Put(out, "<g><text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"12\" fill=\"{}\"{}>",
        label_width - 8, C(y + 14), kTextColor, row.emphasis ? " font-weight=\"600\"" : "");
    Title(out, row.title.empty() ? row.label : row.title);
    Put(out, "{}</text>", Escape(Clip(row.label, static_cast<size_t>(label_width / 7))));
    for (size_t c = 0; c < row.cells.size() && c < columns.size(); ++c) {
      const Cell& cell = row.cells[c];
      const double x = left[c], w = width[c];
      const std::string fill = cell.fraction ? HeatColor(*cell.fraction) : "#eef0f3";
      Put(out, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">", C(x + 1),
          C(y + 1), C(w - 2), C(cell_h - 2), fill);
      Title(out, cell.title);
      out += "</rect>";
      std::string text = "\u2013";
      if (cell.fraction) {
        const double pct = *cell.fraction * 100;
        text = pct > 0 && pct < 1 ? "<1%" : fmt::format("{}%", std::lround(pct));
      }
      const bool dark = cell.fraction && *cell.fraction >= 0.55;
      Put(out,
          "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" fill=\"{}\" "
          "pointer-events=\"none\">{}</text>",
          C(x + w / 2), C(y + 14), dark ? "#ffffff" : kTextColor, Escape(text));
    }
    out += "</g>";
    y += cell_h;
    if (row.emphasis) {
      Put(out, "<line x1=\"0\" x2=\"{0}\" y1=\"{1}\" y2=\"{1}\" stroke=\"{2}\"/>", C(total_width),
          C(y + gap / 2), kGridColor);
      y += gap;
    }
  }
  out += "</svg>";
  return out;
}

std::string Histogram(const std::string& title, const std::vector<std::string>& bins,
                      const std::vector<std::string>& ticks,
                      const std::vector<HistogramSeries>& series, std::string_view unit, int width,
                      int height) {
  const double left = 40, right = 16, top = 24, bottom = 30;
  const double pw = width - left - right, ph = height - top - bottom;
  int64_t max_count = 0;
  for (const HistogramSeries& s : series) {
    for (int64_t c : s.counts) max_count = std::max(max_count, c);
  }
  const CountScale scale(max_count, 4, top, ph);
  auto y_of = [&](int64_t v) { return scale.Y(v); };
  std::string out;
  OpenSvg(out, std::to_string(width), std::to_string(height));
  Put(out, "<text x=\"{}\" y=\"14\" font-size=\"12\" font-weight=\"600\" fill=\"{}\">{}</text>",
      C(left), kTextColor, Escape(title));
  Put(out, "<g font-size=\"10\" fill=\"{}\" text-anchor=\"end\">", kAxisColor);
  for (int64_t v = 0; v <= scale.max; v += scale.step) {
    Put(out, "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\"/>", C(left),
        C(left + pw), C(y_of(v)), v == 0 ? kAxisColor : kGridColor);
    Put(out, "<text x=\"{}\" y=\"{}\">{}</text>", C(left - 4), C(y_of(v) + 3), v);
  }
  out += "</g>";
  const double bin_w = bins.empty() ? pw : pw / static_cast<double>(bins.size());
  const double bar_w = (bin_w - 3) / static_cast<double>(std::max<size_t>(series.size(), 1));
  for (size_t b = 0; b < bins.size(); ++b) {
    for (size_t s = 0; s < series.size(); ++s) {
      const int64_t count = b < series[s].counts.size() ? series[s].counts[b] : 0;
      const double x = left + b * bin_w + 1.5 + s * bar_w;
      // A zero-height bar still takes the hover text.
      const double y = count > 0 ? y_of(count) : top + ph - 1;
      Put(out, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}>", C(x), C(y),
          C(bar_w), C(top + ph - y), series[s].color, count > 0 ? "" : " fill-opacity=\"0\"");
      Title(out, fmt::format("{} {}: {} {}", series[s].name, bins[b], count, unit));
      out += "</rect>";
    }
  }
  Put(out, "<g font-size=\"10\" fill=\"{}\" text-anchor=\"middle\">", kAxisColor);
  for (size_t t = 0; t < ticks.size(); ++t) {
    if (ticks[t].empty()) continue;
    Put(out, "<text x=\"{}\" y=\"{}\">{}</text>", C(left + t * bin_w), C(top + ph + 14),
        Escape(ticks[t]));
  }
  out += "</g></svg>";
  return out;
}

std::string Gantt(const std::vector<GanttRow>& rows, api::Duration end, int width, int label_width,
                  int note_width) {
  const double row_h = 24, bar_h = 12, top = 4, axis_h = 28;
  const double x0 = label_width, pw = width - label_width - note_width - 8;
  const double height = top + rows.size() * row_h + axis_h;
  api::Duration last_change = api::Duration::zero();
  for (const GanttRow& row : rows) {
    for (const Span& span : row.spans) last_change = std::max(last_change, span.from);
  }
  const api::Duration axis_end = AxisEnd(end, last_change);
  const double domain = static_cast<double>(std::max<int64_t>(axis_end.count(), 1));
  auto x_of = [&](api::Duration t) {
    return x0 +
           pw * static_cast<double>(std::clamp<int64_t>(t.count(), 0, axis_end.count())) / domain;
  };
  std::string out;
  OpenSvg(out, std::to_string(width), C(height));
  for (size_t r = 1; r < rows.size(); r += 2) {
    Put(out, "<rect x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f9fafb\"/>",
        C(top + r * row_h), width, C(row_h));
  }
  TimeAxis(out, axis_end, x0, pw, top + rows.size() * row_h, top);
  for (size_t r = 0; r < rows.size(); ++r) {
    const GanttRow& row = rows[r];
    const double y = top + r * row_h;
    out += "<g>";
    Title(out, row.title);
    Put(out, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"12\" fill=\"{}\">{}</text>",
        C(x0 - 8), C(y + 16), kTextColor,
        Escape(Clip(row.label, static_cast<size_t>(label_width / 7))));
    const double bar_y = y + (row_h - bar_h) / 2;
    for (const Span& span : row.spans) {
      // What lasts to the end of the run reaches the right edge (all of it when the run ended
      // at its first instant).
      const double a = x_of(span.from), b = span.to >= end ? x0 + pw : x_of(span.to);
      if (b <= a) continue;
      Put(out, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">", C(a), C(bar_y),
          C(std::max(1.0, b - a)), C(bar_h), span.color);
      Title(out, span.title);
      out += "</rect>";
    }
    for (const Mark& mark : row.marks) {
      Put(out, "<rect x=\"{}\" y=\"{}\" width=\"2\" height=\"{}\" fill=\"{}\">",
          C(x_of(mark.at) - 1), C(bar_y - 3), C(bar_h + 6), kTextColor);
      Title(out, mark.title);
      out += "</rect>";
    }
    if (row.end_mark) {
      const double x = x_of(*row.end_mark);
      Put(out,
          "<path d=\"M{0} {1}l6 6m0 -6l-6 6\" transform=\"translate(-3 0)\" stroke=\"{2}\" "
          "stroke-width=\"2\"/>",
          C(x), C(bar_y + bar_h / 2 - 3), kTextColor);
    }
    Put(out, "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{}\">{}</text>",
        C(width - note_width), C(y + 16), row.note_alert ? kAlertColor : kTextColor,
        Escape(row.note));
    out += "</g>";
  }
  out += "</svg>";
  return out;
}

}  // namespace muster::report::charts
