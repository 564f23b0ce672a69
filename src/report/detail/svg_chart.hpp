#pragma once
// The HTML report's charts as inline SVG, drawn here: no script, no library, nothing fetched at
// view time. Callers pass plain text; every label and tooltip is escaped here (html_text.hpp).
// Colours are CSS classes (`series-N`, `verdict-…`) that the page's style sheet defines.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kerntime::detail {

// Round tick positions covering [low, high], 1, 2 or 5 times a power of ten apart; the scale's
// ends are the outer ticks.
struct linear_scale {
  double low = 0;
  double high = 1;
  std::vector<double> ticks;
};
[[nodiscard]] linear_scale nice_scale(double low, double high, int target_ticks = 6);

// The colour classes of a chart's series, repeated past the last ("series-0" … "series-9").
inline constexpr int series_colours = 10;
[[nodiscard]] std::string series_class(std::size_t index);

// The distribution of one state: a row per trial, a dot per iteration (x: its time), the trial's
// median as a tick, the state's median over every iteration as a dashed line. A flagged trial
// (throttled) has its label marked.
struct strip_row {
  std::string label;   // "trial 1"
  std::string tooltip; // the trial's numbers, shown on hover over its row
  std::vector<double> values_ns;
  double median_ns = 0;
  bool flagged = false;
};
// `dots` false: each trial is drawn as its spread instead (a line from p10 to p90, a box from
// p25 to p75), for pages with too many samples to draw one by one.
[[nodiscard]] std::string strip_plot(std::span<const strip_row> rows, double median_ns,
                                     std::string_view title, bool dots = true);

// A state's trials drawn small, for a table cell: per trial (top to bottom) a line from p10 to p90
// and a tick at its median, on the state's own scale (the lowest p10 to the highest p90). For
// pages with too many states to draw each one's charts; `tooltip` says what the glyph holds.
[[nodiscard]] std::string trial_glyph(std::span<const strip_row> rows, std::string_view tooltip);

// Horizontal bars from zero, one per item (a kernel), the value written after the bar.
struct bar {
  std::string label;   // shown (may be shortened by the caller)
  std::string tooltip; // the full text
  double value = 0;
  std::string value_text;
};
[[nodiscard]] std::string bar_chart(std::span<const bar> bars, std::string_view title);

// Readings per trial (x: trial 1…N), one line per series, gaps where a trial has no reading;
// marked trials (throttled) get a shaded band with the reason as its tooltip.
struct trial_series {
  std::string name;
  std::vector<std::optional<double>> values; // one per trial
};
struct trial_mark {
  std::size_t trial = 0; // from 0
  std::string tooltip;
};
[[nodiscard]] std::string trial_chart(std::span<const trial_series> series, std::size_t trials,
                                      std::span<const trial_mark> marks, std::string_view unit,
                                      std::string_view title);

// A row per item (a compared state): its estimate and interval against a reference line and a
// shaded band (the "same" band), coloured by the row's class.
struct interval_row {
  std::string label;
  std::string tooltip;
  double low = 1;
  double point = 1;
  double high = 1;
  std::string css_class; // "verdict-slower", …
  // The row's own "same" band (a state may have a wider one than the threshold); shaded behind
  // its row, so a state called "same" never plots outside its shading.
  double band_low = 1;
  double band_high = 1;
};
// A legend above the plot names the marks: the band, the reference line, dot and bar.
[[nodiscard]] std::string interval_chart(std::span<const interval_row> rows, double reference,
                                         std::string_view title);

} // namespace kerntime::detail
