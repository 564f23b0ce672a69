#include "report/detail/svg_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/detail/html_text.hpp"

namespace kerntime::detail {
namespace {

constexpr double chart_width = 760;
constexpr double axis_height = 34; // tick labels and the axis name under the plot
constexpr double top_margin = 8;

// A time axis in one unit, chosen from the largest value so tick labels stay short.
struct time_unit {
  std::string_view name;
  double ns;
};

time_unit unit_for(double largest_ns) {
  if (largest_ns >= 1e6) {
    return {"ms", 1e6};
  }
  if (largest_ns >= 1e3) {
    return {"\xC2\xB5s", 1e3};
  }
  return {"ns", 1};
}

std::string number(double v) {
  return fmt::format("{:.4g}", v);
}

// The opening of a chart: its size, an accessible name and the tooltip of the whole figure.
std::string open_svg(double height, std::string_view title) {
  const std::string name = html_escape(title);
  return fmt::format("<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} "
                     "{:.0f}\" width=\"{}\" height=\"{:.0f}\" role=\"img\" aria-label=\"{}\">"
                     "<title>{}</title>\n",
                     chart_width, height, chart_width, height, name, name);
}

// Where a value falls between two pixel positions.
struct mapping {
  linear_scale scale;
  double from;
  double to;
  [[nodiscard]] double operator()(double v) const {
    const double span = scale.high - scale.low;
    return from + (span > 0 ? (v - scale.low) / span : 0.5) * (to - from);
  }
};

// Vertical grid lines and tick labels under the plot, and the axis name.
std::string x_axis(const mapping& x, double top, double bottom, double divisor,
                   std::string_view name) {
  std::string out;
  for (const double t : x.scale.ticks) {
    const double px = x(t);
    out += fmt::format("<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                       "y2=\"{2:.1f}\"/><text class=\"tick\" x=\"{0:.1f}\" y=\"{3:.1f}\" "
                       "text-anchor=\"middle\">{4}</text>\n",
                       px, top, bottom, bottom + 13, html_escape(number(t / divisor)));
  }
  out += fmt::format("<text class=\"axis-name\" x=\"{:.1f}\" y=\"{:.1f}\" "
                     "text-anchor=\"middle\">{}</text>\n",
                     (x.from + x.to) / 2, bottom + 28, html_escape(name));
  return out;
}

// Dots of one row spread over its height in a fixed pattern, so overlapping values stay visible
// and the same data draws the same picture.
double jitter(std::size_t i) {
  return static_cast<double>((i * 7919) % 13) / 12.0 - 0.5;
}

} // namespace

linear_scale nice_scale(double low, double high, int target_ticks) {
  if (!std::isfinite(low) || !std::isfinite(high)) {
    low = 0, high = 1;
  }
  if (high < low) {
    std::swap(low, high);
  }
  if (high == low) {
    const double pad = low == 0 ? 1 : std::abs(low) * 0.05;
    low -= pad, high += pad;
  }
  const double raw = (high - low) / std::max(target_ticks, 1);
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) {
      break;
    }
  }
  linear_scale s;
  s.low = std::floor(low / step) * step;
  s.high = std::ceil(high / step) * step;
  for (double t = s.low; t <= s.high + step / 2; t += step) {
    s.ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  }
  return s;
}

std::string series_class(std::size_t index) {
  return fmt::format("series-{}", index % series_colours);
}

namespace {

// The value at quantile q of `sorted` (ascending, not empty): the nearest rank below.
double quantile_of(const std::vector<double>& sorted, double q) {
  return sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))];
}

std::vector<double> sorted_copy(const std::vector<double>& values) {
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

} // namespace

std::string trial_glyph(std::span<const strip_row> rows, std::string_view tooltip) {
  constexpr double width = 72;
  constexpr double height = 20;
  struct spread {
    double p10;
    double p90;
    double median;
  };
  std::vector<spread> spreads;
  double low = 0;
  double high = 0;
  for (const auto& row : rows) {
    if (row.values_ns.empty()) {
      continue;
    }
    const auto sorted = sorted_copy(row.values_ns);
    spreads.push_back({quantile_of(sorted, 0.1), quantile_of(sorted, 0.9), row.median_ns});
    low = spreads.size() == 1 ? spreads.back().p10 : std::min(low, spreads.back().p10);
    high = std::max(high, spreads.back().p90);
  }
  const double range = high - low;
  const auto x = [&](double v) { return 2 + (range > 0 ? (v - low) / range : 0.5) * (width - 4); };
  const double step = (height - 2) / static_cast<double>(std::max<std::size_t>(spreads.size(), 1));
  std::string out = fmt::format("<svg class=\"glyph\" xmlns=\"http://www.w3.org/2000/svg\" "
                                "viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" "
                                "role=\"img\" aria-label=\"{2}\"><title>{2}</title>",
                                width, height, html_escape(tooltip));
  for (std::size_t t = 0; t < spreads.size(); ++t) {
    const double y = 1 + step * (static_cast<double>(t) + 0.5);
    out +=
        fmt::format("<path d=\"M{:.1f} {:.1f}H{:.1f}M{:.1f} {:.1f}v{:.1f}\"/>", x(spreads[t].p10),
                    y, x(spreads[t].p90), x(spreads[t].median), y - step * 0.45, step * 0.9);
  }
  out += "</svg>";
  return out;
}

std::string strip_plot(std::span<const strip_row> rows, double median_ns, std::string_view title,
                       bool dots) {
  double low = median_ns;
  double high = median_ns;
  for (const auto& r : rows) {
    for (const double v : r.values_ns) {
      low = std::min(low, v);
      high = std::max(high, v);
    }
  }
  const time_unit unit = unit_for(high);
  const double row_height = rows.size() > 24 ? 9 : 18;
  const double plot_top = top_margin;
  const double plot_bottom = plot_top + row_height * static_cast<double>(rows.size());
  const mapping x{nice_scale(low, high), 90, chart_width - 20};
  std::string out = open_svg(plot_bottom + axis_height, title);
  out +=
      x_axis(x, plot_top, plot_bottom, unit.ns, fmt::format("time per iteration ({})", unit.name));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& row = rows[r];
    const double centre = plot_top + row_height * (static_cast<double>(r) + 0.5);
    out +=
        fmt::format("<g class=\"{}\"><title>{}</title>", series_class(r), html_escape(row.tooltip));
    out += fmt::format("<rect class=\"row-hit\" x=\"0\" y=\"{:.1f}\" width=\"{}\" "
                       "height=\"{:.1f}\"/>",
                       centre - row_height / 2, chart_width, row_height);
    out += fmt::format("<text class=\"row-label{}\" x=\"84\" y=\"{:.1f}\" text-anchor=\"end\" "
                       "dominant-baseline=\"middle\">{}{}</text>",
                       row.flagged ? " flagged" : "", centre, html_escape(row.label),
                       row.flagged ? " \xE2\x9A\xA0" : "");
    if (dots) {
      for (std::size_t i = 0; i < row.values_ns.size(); ++i) {
        out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.2\"/>", x(row.values_ns[i]),
                           centre + jitter(i) * row_height * 0.7);
      }
    } else if (!row.values_ns.empty()) {
      const auto sorted = sorted_copy(row.values_ns);
      const auto at = [&](double q) { return quantile_of(sorted, q); };
      out += fmt::format("<line class=\"spread\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
                         "y2=\"{:.1f}\"/><rect class=\"spread-box\" x=\"{:.1f}\" y=\"{:.1f}\" "
                         "width=\"{:.1f}\" height=\"{:.1f}\"/>",
                         x(at(0.1)), centre, x(at(0.9)), centre, x(at(0.25)),
                         centre - row_height * 0.3, x(at(0.75)) - x(at(0.25)), row_height * 0.6);
    }
    out += fmt::format("<line class=\"trial-median\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                       "y2=\"{2:.1f}\"/></g>\n",
                       x(row.median_ns), centre - row_height * 0.45, centre + row_height * 0.45);
  }
  out += fmt::format("<line class=\"median\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                     "y2=\"{2:.1f}\"><title>median of every iteration: {3} {4}</title></line>\n",
                     x(median_ns), plot_top, plot_bottom, html_escape(number(median_ns / unit.ns)),
                     unit.name);
  out += "</svg>\n";
  return out;
}

std::string bar_chart(std::span<const bar> bars, std::string_view title) {
  double high = 0;
  for (const auto& b : bars) {
    high = std::max(high, b.value);
  }
  constexpr double row_height = 20;
  constexpr double label_width = 330;
  constexpr double value_width = 150;
  const double height = top_margin * 2 + row_height * static_cast<double>(bars.size());
  const mapping x{linear_scale{0, high > 0 ? high : 1, {}}, label_width + 8,
                  chart_width - value_width};
  std::string out = open_svg(height, title);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const double y = top_margin + row_height * static_cast<double>(i);
    out += fmt::format("<g><title>{}</title>", html_escape(b.tooltip));
    out += fmt::format("<text class=\"bar-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" "
                       "dominant-baseline=\"middle\">{}</text>",
                       label_width, y + row_height / 2, html_escape(b.label));
    out += fmt::format("<rect class=\"bar {}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                       "height=\"{:.1f}\"/>",
                       series_class(i), x.from, y + 3, std::max(x(b.value) - x.from, 1.0),
                       row_height - 6);
    out += fmt::format("<text class=\"bar-value\" x=\"{:.1f}\" y=\"{:.1f}\" "
                       "dominant-baseline=\"middle\">{}</text></g>\n",
                       x(b.value) + 6, y + row_height / 2, html_escape(b.value_text));
  }
  out += "</svg>\n";
  return out;
}

std::string trial_chart(std::span<const trial_series> series, std::size_t trials,
                        std::span<const trial_mark> marks, std::string_view unit,
                        std::string_view title) {
  std::optional<double> low;
  std::optional<double> high;
  for (const auto& s : series) {
    for (const auto& v : s.values) {
      if (v) {
        low = std::min(low.value_or(*v), *v);
        high = std::max(high.value_or(*v), *v);
      }
    }
  }
  constexpr double legend_height = 20;
  constexpr double plot_height = 120;
  const double plot_top = top_margin + legend_height;
  const double plot_bottom = plot_top + plot_height;
  const mapping x{nice_scale(1, static_cast<double>(std::max<std::size_t>(trials, 1))), 90,
                  chart_width - 20};
  // Clocks sit near one value: a range under 2 % of it is widened to that, so a 2 MHz wobble
  // does not fill the chart.
  const double mid = (low.value_or(0) + high.value_or(1)) / 2;
  const double half = std::max((high.value_or(1) - low.value_or(0)) / 2, std::abs(mid) * 0.01);
  const mapping y{nice_scale(mid - half, mid + half, 4), plot_bottom, plot_top};
  std::string out = open_svg(plot_bottom + axis_height, title);
  const double slot = (x.to - x.from) / std::max(x.scale.high - x.scale.low, 1.0);
  for (const auto& m : marks) {
    const double centre = x(static_cast<double>(m.trial + 1));
    out +=
        fmt::format("<rect class=\"throttle\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                    "height=\"{:.1f}\"><title>{}</title></rect>\n",
                    centre - slot * 0.4, plot_top, slot * 0.8, plot_height, html_escape(m.tooltip));
  }
  for (const double t : y.scale.ticks) {
    out += fmt::format("<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" "
                       "y2=\"{1:.1f}\"/><text class=\"tick\" x=\"{3:.1f}\" y=\"{1:.1f}\" "
                       "text-anchor=\"end\" dominant-baseline=\"middle\">{4}</text>\n",
                       x.from, y(t), x.to, x.from - 6, html_escape(number(t)));
  }
  out += fmt::format("<text class=\"axis-name\" x=\"12\" y=\"{:.1f}\" transform=\"rotate(-90 12 "
                     "{:.1f})\" text-anchor=\"middle\">{}</text>\n",
                     (plot_top + plot_bottom) / 2, (plot_top + plot_bottom) / 2, html_escape(unit));
  // Trial numbers are whole: keep only the whole ticks.
  mapping whole = x;
  whole.scale.ticks.erase(std::remove_if(whole.scale.ticks.begin(), whole.scale.ticks.end(),
                                         [](double t) { return t != std::floor(t) || t < 1; }),
                          whole.scale.ticks.end());
  out += x_axis(whole, plot_top, plot_bottom, 1, "trial");
  double legend_x = x.from;
  for (std::size_t s = 0; s < series.size(); ++s) {
    const auto& line = series[s];
    out +=
        fmt::format("<g class=\"{}\"><title>{}</title>", series_class(s), html_escape(line.name));
    out += fmt::format("<rect class=\"swatch\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" "
                       "height=\"10\"/><text class=\"legend\" x=\"{:.1f}\" y=\"{:.1f}\" "
                       "dominant-baseline=\"middle\">{}</text>",
                       legend_x, top_margin, legend_x + 14, top_margin + 5, html_escape(line.name));
    legend_x += 24 + 7.0 * static_cast<double>(line.name.size());
    std::string points;
    for (std::size_t t = 0; t < line.values.size(); ++t) {
      if (!line.values[t]) {
        if (!points.empty()) {
          out += fmt::format("<polyline class=\"line\" points=\"{}\"/>", points);
          points.clear();
        }
        continue;
      }
      const double px = x(static_cast<double>(t + 1));
      const double py = y(*line.values[t]);
      points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", px, py);
      out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>{}, trial {}: {} "
                         "{}</title></circle>",
                         px, py, html_escape(line.name), t + 1,
                         html_escape(number(*line.values[t])), html_escape(unit));
    }
    if (!points.empty()) {
      out += fmt::format("<polyline class=\"line\" points=\"{}\"/>", points);
    }
    out += "</g>\n";
  }
  out += "</svg>\n";
  return out;
}

std::string interval_chart(std::span<const interval_row> rows, double reference,
                           std::string_view title) {
  double low = reference;
  double high = reference;
  for (const auto& r : rows) {
    low = std::min({low, r.low, r.point, r.band_low});
    high = std::max({high, r.high, r.point, r.band_high});
  }
  constexpr double row_height = 22;
  constexpr double label_width = 300;
  constexpr double legend_height = 20;
  const double plot_top = top_margin + legend_height;
  const double plot_bottom = plot_top + row_height * static_cast<double>(rows.size());
  const mapping x{nice_scale(low, high, 5), label_width + 10, chart_width - 20};
  std::string out = open_svg(plot_bottom + axis_height, title);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out +=
        fmt::format("<rect class=\"band\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
                    "height=\"{:.1f}\"><title>the \"same\" band of {}: {} to {}</title></rect>\n",
                    x(r.band_low), plot_top + row_height * static_cast<double>(i),
                    x(r.band_high) - x(r.band_low), row_height, html_escape(r.label),
                    html_escape(number(r.band_low)), html_escape(number(r.band_high)));
  }
  out += x_axis(x, plot_top, plot_bottom, 1, "ratio new / base");
  out += fmt::format("<line class=\"reference\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                     "y2=\"{2:.1f}\"/>\n",
                     x(reference), plot_top, plot_bottom);
  // The legend: a swatch of each mark and its words, left to right above the plot.
  const double legend_y = top_margin + 5;
  double legend_x = x.from;
  out += fmt::format("<g class=\"chart-legend\"><rect class=\"band\" x=\"{:.1f}\" y=\"{:.1f}\" "
                     "width=\"14\" height=\"10\"/><text class=\"legend\" x=\"{:.1f}\" "
                     "y=\"{:.1f}\" dominant-baseline=\"middle\">the state's \"same\" band</text>",
                     legend_x, legend_y - 5, legend_x + 18, legend_y);
  legend_x += 150;
  out += fmt::format("<line class=\"reference\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                     "y2=\"{2:.1f}\"/><text class=\"legend\" x=\"{3:.1f}\" y=\"{4:.1f}\" "
                     "dominant-baseline=\"middle\">no change</text>",
                     legend_x + 5, legend_y - 6, legend_y + 6, legend_x + 12, legend_y);
  legend_x += 85;
  out += fmt::format("<line class=\"interval\" x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" "
                     "y2=\"{2:.1f}\" style=\"--c:#47526a\"/><circle class=\"estimate\" "
                     "cx=\"{3:.1f}\" cy=\"{2:.1f}\" r=\"4\" style=\"--c:#47526a\"/><text "
                     "class=\"legend\" x=\"{4:.1f}\" y=\"{2:.1f}\" dominant-baseline=\"middle\">"
                     "ratio (dot) and its interval (bar)</text></g>\n",
                     legend_x, legend_x + 20, legend_y, legend_x + 10, legend_x + 26);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double centre = plot_top + row_height * (static_cast<double>(i) + 0.5);
    out += fmt::format("<g class=\"{}\"><title>{}</title>", html_escape(r.css_class),
                       html_escape(r.tooltip));
    out += fmt::format("<text class=\"bar-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\" "
                       "dominant-baseline=\"middle\">{}</text>",
                       label_width, centre, html_escape(r.label));
    out += fmt::format("<line class=\"interval\" x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{1:.1f}\" "
                       "y2=\"{2:.1f}\"/><circle class=\"estimate\" cx=\"{3:.1f}\" cy=\"{2:.1f}\" "
                       "r=\"4\"/></g>\n",
                       x(r.low), x(r.high), centre, x(r.point));
  }
  out += "</svg>\n";
  return out;
}

} // namespace kerntime::detail
