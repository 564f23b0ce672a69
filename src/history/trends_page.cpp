#include "history/trends_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include "report/detail/html_text.hpp"
#include "report/detail/svg_chart.hpp"

namespace kerntime::detail {
namespace {

// The HTML report's look (report/html_writer.cpp), cut to what this page shows. Articles off
// screen are not laid out until scrolled to: a nightly suite's 2,600 charts open at once.
constexpr std::string_view style_sheet = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2430;background:#fff}
main{max-width:1320px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0}h3{font-size:15px;margin:6px 0 2px}
code,.name{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;overflow-wrap:anywhere;white-space:pre-wrap}
table{border-collapse:collapse;margin:4px 0 6px;font-size:13px;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #d6dbe3;padding:3px 8px;text-align:left;vertical-align:top;white-space:nowrap}
td code{white-space:nowrap}th{background:#f2f4f8}td.num{text-align:right;font-variant-numeric:tabular-nums}
article.trend{border:1px solid #e1e5ec;border-radius:6px;padding:4px 14px 8px;margin:14px 0;content-visibility:auto;contain-intrinsic-size:auto 300px}
p.facts{margin:0 0 4px;color:#5a6478;font-size:13px}p.legend{color:#47526a;max-width:62em}
.slower{color:#b42318;font-weight:bold}
svg.defs{position:absolute;width:0;height:0}
svg.chart{display:block;max-width:100%;height:auto;font-size:11px}
svg .grid{stroke:#e6e9ef;fill:none}svg .axis{stroke:#9aa3b2;fill:none}
svg text{fill:#47526a}svg .tick text{text-anchor:end;dominant-baseline:middle}
svg .run text,svg .axis-name{text-anchor:middle}
svg .interval{stroke:#0072b2;stroke-opacity:.5;fill:none}
svg .median{stroke:#0072b2;stroke-width:1.2;fill:none}svg .median.dots{marker:url(#run-dot)}
#run-dot circle{fill:#0072b2}
svg .level{stroke:#1d2430;stroke-width:2;fill:none}
svg .change path{stroke:#47526a;stroke-dasharray:4 3;fill:none}
svg .change.slower path{stroke:#b42318;stroke-width:1.5}svg .change.slower text{fill:#b42318;font-weight:bold}
)";

// A chart's geometry, in SVG units (as wide as the report's charts).
constexpr double chart_width = 760;
constexpr double plot_left = 64; // the median axis's tick labels
constexpr double plot_right = 740;
constexpr double plot_height = 110;
constexpr double top_margin = 6;
constexpr double label_row = 26;   // a change's label: two lines, its size and its commit range
constexpr double axis_height = 32; // two lines under the plot: a run's date and its commit
// A character of 11 px text, at its widest where it matters (digits of DejaVu Sans, the usual
// system-ui on Linux: 7.0 px; 7.7 in bold, as a slower change is labelled): keeps labels apart
// and inside the chart without a layout engine.
constexpr double char_width = 7.0;
constexpr double bold_char_width = 7.7;
constexpr double label_gap = 6;
// Under the axis a date and commit every so often: 10-character labels with room between.
constexpr double run_label_spacing = 130;
// A dot per run while runs are at least this far apart; closer, a year of nightly runs would
// be a smear of dots, and the line alone shows the level.
constexpr double dot_spacing = 5;
// As long as git's short hashes in a large repository.
constexpr std::size_t commit_width = 10;

std::size_t code_points(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// The first `count` code points of `text`.
std::string head(std::string_view text, std::size_t count) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && seen++ == count) {
      return std::string(text.substr(0, i));
    }
  }
  return std::string(text);
}

// A run's commit as the chart shows it; a run added without --commit is named by its id.
std::string short_commit(const series_point& p) {
  return p.commit.empty() ? fmt::format("run {}", p.run_id) : head(p.commit, commit_width);
}

std::string_view day_of(std::string_view date) {
  return date.substr(0, std::min(date.find('T'), date.size()));
}

bool slower(const trend_series& s, std::size_t change) {
  return change < s.slower_beyond_band.size() && s.slower_beyond_band[change];
}

bool slower_at_tip(const trend_series& s) {
  return !s.changes.empty() && slower(s, s.changes.size() - 1);
}

// A change names the run before it: one at the first run (or past the last) cannot be drawn.
bool drawable(const trend_series& s, const change_point& c) {
  return c.index > 0 && c.index < s.points.size();
}

// The runs on each side of change k: from the change before it (or the first run) to the next
// one (or past the last run).
struct segment {
  std::size_t from = 0;
  std::size_t to = 0;
};
segment before(const trend_series& s, std::size_t k) {
  return {k == 0 ? 0 : s.changes[k - 1].index, s.changes[k].index};
}
segment after(const trend_series& s, std::size_t k) {
  return {s.changes[k].index, k + 1 == s.changes.size() ? s.points.size() : s.changes[k + 1].index};
}

// The mean on-GPU SM clock of a segment's runs that measured one.
std::optional<double> mean_clock(const trend_series& s, segment runs) {
  const std::size_t to = std::min(runs.to, s.points.size());
  return runs.from < to ? mean_sm_clock(std::span(s.points).subspan(runs.from, to - runs.from))
                        : std::nullopt;
}

// The lowest and highest finite value added.
struct extent {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (std::isfinite(v)) {
      low = std::min(low, v);
      high = std::max(high, v);
    }
  }
};

// Path data in tenths of a unit, each point relative to the one before: the runs are evenly
// spaced, so a step is short ("l13.5-2.1"), and a 50-run chart's line and intervals take about
// 9 and 13 bytes a run instead of 12 and 17 (2,600 charts on a page).
class path_data {
public:
  void move_to(double x, double y) {
    d_ += 'm';
    write(x, x_, true);
    write(y, y_, false);
  }
  void line_to(double x, double y) {
    d_ += 'l';
    write(x, x_, true);
    write(y, y_, false);
  }
  void vertical_to(double y) {
    d_ += 'v';
    write(y, y_, true);
  }
  [[nodiscard]] const std::string& text() const { return d_; }

private:
  std::string d_;
  long x_ = 0; // the pen, in tenths, where the path written so far leaves it
  long y_ = 0;

  // The step from `pen` to `to`, in tenths: "-2.1", " .5", " 13".
  void write(double to, long& pen, bool first) {
    const long step = std::lround(to * 10) - pen;
    pen += step;
    const long whole = std::abs(step) / 10;
    const long tenth = std::abs(step) % 10;
    if (step < 0) {
      d_ += '-';
    } else if (!first) {
      d_ += ' ';
    }
    if (whole > 0 || tenth == 0) {
      d_ += fmt::format("{}", whole);
    }
    if (tenth > 0) {
      d_ += fmt::format(".{}", tenth);
    }
  }
};

// A change's label, placed in a row above the plot (row 0 at the top) beside its dashed line,
// which runs from the label down through the plot: no label may cover another label or a line.
struct label_place {
  double x = 0; // the change's line
  double left = 0;
  double right = 0;
  std::size_t row = 0;
  bool end = false; // written leftwards of its line (near the chart's right edge)
};

bool fits(const label_place& p, std::span<const label_place> placed) {
  return std::none_of(placed.begin(), placed.end(), [&p](const label_place& q) {
    const auto covers = [](const label_place& label, double x) {
      return label.left - label_gap < x && x < label.right + label_gap;
    };
    if (q.row == p.row) {
      return p.left < q.right + label_gap && q.left < p.right + label_gap;
    }
    return q.row < p.row ? covers(p, q.x) : covers(q, p.x);
  });
}

std::vector<label_place> place_labels(std::span<const double> xs, std::span<const double> widths) {
  std::vector<label_place> placed;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::optional<label_place> chosen;
    for (std::size_t row = 0; !chosen && row <= placed.size(); ++row) {
      for (const bool end : {false, true}) {
        const double left = end ? xs[i] - 3 - widths[i] : xs[i] + 3;
        const label_place p{xs[i], left, left + widths[i], row, end};
        if (p.left >= 0 && p.right <= chart_width && fits(p, placed)) {
          chosen = p;
          break;
        }
      }
    }
    if (!chosen) { // crowded beyond untangling: below the others, where it stays in the chart
      std::size_t below = 0;
      for (const auto& q : placed) {
        below = std::max(below, q.row + 1);
      }
      const bool end = xs[i] + 3 + widths[i] > chart_width;
      const double left = end ? xs[i] - 3 - widths[i] : xs[i] + 3;
      chosen = label_place{xs[i], left, left + widths[i], below, end};
    }
    placed.push_back(*chosen);
  }
  return placed;
}

// Where a chart puts things: the runs evenly along x, their medians in µs up the plot.
struct chart_frame {
  double step = 0; // from one run to the next
  linear_scale scale;
  double plot_top = 0;
  double plot_bottom = 0;

  [[nodiscard]] double run_x(std::size_t i) const {
    return plot_left + step * (static_cast<double>(i) + 0.5);
  }
  // Between run i - 1 and run i.
  [[nodiscard]] double boundary_x(std::size_t i) const {
    return plot_left + step * static_cast<double>(i);
  }
  [[nodiscard]] double y(double ns) const {
    return plot_bottom - plot_height * (ns / 1e3 - scale.low) / (scale.high - scale.low);
  }
};

// The scale of a series' medians and intervals, in µs. A wobble inside the band does not fill
// the chart: the scale spans at least ±band around the middle, so a flat series looks flat and
// a step beyond the band looks like one.
linear_scale median_scale(const trend_series& s, double threshold) {
  extent range;
  for (const auto& p : s.points) {
    range.add(p.median_ns);
    range.add(p.low_ns.value_or(p.median_ns));
    range.add(p.high_ns.value_or(p.median_ns));
  }
  if (!(range.low <= range.high)) {
    range = {0, 1};
  }
  const double middle = (range.low + range.high) / 2;
  const double half = std::max((range.high - range.low) / 2, std::abs(middle) * threshold);
  return nice_scale((middle - half) / 1e3, (middle + half) / 1e3, 4);
}

// A change as drawn: which of the series' changes, its label's two lines (the size with its
// interval; the commits of the runs either side) and where the label goes.
struct change_mark {
  std::size_t change = 0;
  std::string size;
  std::string commits;
  label_place place;
};

std::vector<change_mark> change_marks(const trend_series& s, const chart_frame& frame) {
  std::vector<change_mark> marks;
  std::vector<double> xs;
  std::vector<double> widths;
  for (std::size_t k = 0; k < s.changes.size(); ++k) {
    const auto& c = s.changes[k];
    if (!drawable(s, c)) {
      continue;
    }
    change_mark mark;
    mark.change = k;
    mark.size = change_text(c);
    mark.commits = short_commit(s.points[c.index - 1]) + ".." + short_commit(s.points[c.index]);
    xs.push_back(frame.boundary_x(c.index));
    widths.push_back(bold_char_width * static_cast<double>(std::max(code_points(mark.size),
                                                                    code_points(mark.commits))));
    marks.push_back(std::move(mark));
  }
  const auto places = place_labels(xs, widths);
  for (std::size_t m = 0; m < marks.size(); ++m) {
    marks[m].place = places[m];
  }
  return marks;
}

// Grid lines, their values in µs and the axis' name.
std::string median_axis(const chart_frame& frame) {
  std::string grid;
  std::string ticks;
  for (const double t : frame.scale.ticks) {
    const double y = frame.y(t * 1e3);
    grid += fmt::format("M{} {:.1f}H{}", plot_left, y, plot_right);
    ticks += fmt::format("<text x=\"{}\" y=\"{:.1f}\">{:g}</text>", plot_left - 5, y, t);
  }
  return fmt::format("<path class=\"grid\" d=\"{}\"/><g class=\"tick\">{}</g><text "
                     "class=\"axis-name\" transform=\"rotate(-90)\" x=\"{:.1f}\" y=\"11\">median "
                     "(\xC2\xB5s)</text>",
                     grid, ticks, -(frame.plot_top + frame.plot_bottom) / 2);
}

// Under the plot the latest run's date and commit, and every so many runs back, each with a
// tick at its run; a label at the chart's edge is moved in, its tick stays.
std::string run_axis(const chart_frame& frame, std::span<const series_point> points) {
  const auto stride =
      static_cast<std::size_t>(std::max(1.0, std::ceil(run_label_spacing / frame.step)));
  std::string axis = fmt::format("M{} {:.1f}H{}", plot_left, frame.plot_bottom, plot_right);
  std::string labels;
  for (std::size_t back = 0; back < points.size(); back += stride) {
    const std::size_t i = points.size() - 1 - back;
    const double x = frame.run_x(i);
    const double half_width = char_width * 5 + 3; // 10 characters, a little room at the edge
    axis += fmt::format("M{:.1f} {:.1f}v4", x, frame.plot_bottom);
    labels += fmt::format(
        "<text x=\"{0:.1f}\" y=\"{1:.1f}\">{2}<tspan x=\"{0:.1f}\" dy=\"12\">{3}</tspan></text>",
        std::clamp(x, half_width, chart_width - half_width), frame.plot_bottom + 15,
        html_escape(day_of(points[i].date)), html_escape(short_commit(points[i])));
  }
  return fmt::format("<path class=\"axis\" d=\"{}\"/><g class=\"run\">{}</g>", axis, labels);
}

// Each run's interval (where it had one) as a thin bar.
std::string intervals(const chart_frame& frame, std::span<const series_point> points) {
  path_data bars;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (p.low_ns && p.high_ns && std::isfinite(*p.low_ns) && std::isfinite(*p.high_ns)) {
      bars.move_to(frame.run_x(i), frame.y(*p.low_ns));
      bars.vertical_to(frame.y(*p.high_ns));
    }
  }
  return bars.text().empty() ? std::string()
                             : fmt::format("<path class=\"interval\" d=\"{}\"/>", bars.text());
}

// The level of each segment between changes: the mean of its medians, as find_change_points
// gave it (a split too small to report leaves the means of its two sides as the neighbouring
// changes' `after` and `before`, within that small shift of each other: the line keeps the
// first).
std::string levels(const chart_frame& frame, const trend_series& s,
                   std::span<const change_mark> marks) {
  std::string d;
  const auto level = [&](std::size_t from, std::size_t to, double ns) {
    if (std::isfinite(ns)) {
      d += fmt::format("M{:.1f} {:.1f}H{:.1f}", frame.boundary_x(from), frame.y(ns),
                       frame.boundary_x(to));
    }
  };
  if (marks.empty() && !s.points.empty()) {
    double sum = 0;
    for (const auto& p : s.points) {
      sum += p.median_ns;
    }
    level(0, s.points.size(), sum / static_cast<double>(s.points.size()));
  }
  for (std::size_t m = 0; m < marks.size(); ++m) {
    const auto& c = s.changes[marks[m].change];
    if (m == 0) {
      level(0, c.index, c.before);
    }
    level(c.index, m + 1 < marks.size() ? s.changes[marks[m + 1].change].index : s.points.size(),
          c.after);
  }
  return d.empty() ? std::string() : fmt::format("<path class=\"level\" d=\"{}\"/>", d);
}

// The medians: one line, a dot at each run (a marker) while the runs are apart enough.
std::string medians(const chart_frame& frame, std::span<const series_point> points) {
  path_data line;
  bool drawn = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!std::isfinite(points[i].median_ns)) {
      continue;
    }
    if (drawn) {
      line.line_to(frame.run_x(i), frame.y(points[i].median_ns));
    } else {
      line.move_to(frame.run_x(i), frame.y(points[i].median_ns));
    }
    drawn = true;
  }
  if (points.size() == 1 && drawn) {
    line.line_to(frame.run_x(0), frame.y(points[0].median_ns)); // a vertex to mark: its dot
  }
  return drawn ? fmt::format("<path class=\"median{}\" d=\"{}\"/>",
                             frame.step >= dot_spacing ? " dots" : "", line.text())
               : std::string();
}

// Each change: a dashed line from its label down through the plot; the full commits and dates
// on hover.
std::string change_lines(const chart_frame& frame, const trend_series& s,
                         std::span<const change_mark> marks) {
  std::string out;
  for (const auto& mark : marks) {
    const auto& c = s.changes[mark.change];
    const auto& good = s.points[c.index - 1];
    const auto& bad = s.points[c.index];
    const auto& place = mark.place;
    const double row_top = top_margin + label_row * static_cast<double>(place.row);
    const double text_x = place.end ? place.right : place.left;
    out += fmt::format(
        "<g class=\"change{}\"><title>{} between run {} ({}{}) and run {} ({}{})</title>"
        "<path d=\"M{:.1f} {:.1f}V{:.1f}\"/><text x=\"{:.1f}\" y=\"{:.1f}\"{}>{}<tspan "
        "x=\"{:.1f}\" dy=\"12\">{}</tspan></text></g>",
        slower(s, mark.change) ? " slower" : "", html_escape(mark.size), good.run_id,
        html_escape(good.date), good.commit.empty() ? "" : ", " + html_escape(good.commit),
        bad.run_id, html_escape(bad.date), bad.commit.empty() ? "" : ", " + html_escape(bad.commit),
        place.x, row_top, frame.plot_bottom, text_x, row_top + 10,
        place.end ? " text-anchor=\"end\"" : "", html_escape(mark.size), text_x,
        html_escape(mark.commits));
  }
  return out;
}

// A series' chart: a dot per run at its median joined by a line, its interval a thin bar, the
// level of each segment a thick line, each change a dashed line at the boundary of its two
// runs with its label in a row above the plot.
std::string trend_chart(const trend_series& s, std::string_view heading_id, double threshold) {
  chart_frame frame;
  frame.step =
      (plot_right - plot_left) / static_cast<double>(std::max<std::size_t>(s.points.size(), 1));
  frame.scale = median_scale(s, threshold);
  const auto marks = change_marks(s, frame);
  std::size_t rows = 0;
  for (const auto& mark : marks) {
    rows = std::max(rows, mark.place.row + 1);
  }
  frame.plot_top = top_margin + label_row * static_cast<double>(rows) + 6;
  frame.plot_bottom = frame.plot_top + plot_height;
  const double height = frame.plot_bottom + axis_height;
  return fmt::format("<svg class=\"chart trend\" viewBox=\"0 0 {0} {1:.0f}\" width=\"{0}\" "
                     "height=\"{1:.0f}\" role=\"img\" aria-labelledby=\"{2}\">{3}{4}{5}{6}{7}{8}"
                     "</svg>\n",
                     chart_width, height, heading_id, median_axis(frame), run_axis(frame, s.points),
                     intervals(frame, s.points), levels(frame, s, marks), medians(frame, s.points),
                     change_lines(frame, s, marks));
}

std::string run_cell(const series_point& p) {
  std::string commit;
  if (!p.commit.empty()) {
    const std::string shown = head(p.commit, commit_width);
    commit = shown.size() == p.commit.size()
                 ? fmt::format(", <code>{}</code>", html_escape(shown))
                 : fmt::format(", <code title=\"{}\">{}</code>", html_escape(p.commit),
                               html_escape(shown));
  }
  return fmt::format("<td>run {}, {}{}</td>", p.run_id, html_escape(p.date), commit);
}

// A row per change: the runs either side (the commit range to bisect), the change with its
// interval, and the mean SM clock either side (a change that moves with the clock is the power
// cap, not the code).
std::string changes_table(const trend_series& s) {
  std::string out = "<table class=\"changes\"><tr><th>last good run</th><th>first changed "
                    "run</th><th>change [95 % interval]</th><th>SM clock before \xE2\x86\x92 "
                    "after</th></tr>\n";
  for (std::size_t k = 0; k < s.changes.size(); ++k) {
    const auto& c = s.changes[k];
    if (!drawable(s, c)) {
      continue;
    }
    const auto clock_before = mean_clock(s, before(s, k));
    const auto clock_after = mean_clock(s, after(s, k));
    out += fmt::format("<tr>{}{}<td class=\"num{}\">{}</td><td class=\"num\">{}</td></tr>\n",
                       run_cell(s.points[c.index - 1]), run_cell(s.points[c.index]),
                       slower(s, k) ? " slower" : "", html_escape(change_text(c)),
                       clock_before && clock_after ? fmt::format("{:.0f} \xE2\x86\x92 {:.0f} MHz",
                                                                 *clock_before, *clock_after)
                                                   : std::string("\xE2\x80\x93"));
  }
  return out + "</table>\n";
}

// The branches a series' runs measured, as one phrase ("branch main", "branches main, next").
std::string branches_of(const trend_series& s) {
  std::set<std::string> names;
  for (const auto& p : s.points) {
    if (!p.branch.empty()) {
      names.insert(p.branch);
    }
  }
  if (names.empty()) {
    return {};
  }
  std::string out = names.size() == 1 ? " \xC2\xB7 branch " : " \xC2\xB7 branches ";
  bool first = true;
  for (const auto& name : names) {
    out += (first ? "" : ", ") + html_escape(name);
    first = false;
  }
  return out;
}

std::string series_article(const trend_series& s, std::size_t index, double threshold) {
  const std::string id = html_id("series", index);
  const std::string heading_id = id + "-name";
  std::string facts = fmt::format("{} \xC2\xB7 {} run{}", html_escape(s.device), s.points.size(),
                                  s.points.size() == 1 ? "" : "s");
  if (!s.points.empty()) {
    const auto first = day_of(s.points.front().date);
    const auto last = day_of(s.points.back().date);
    facts += first == last ? ", " + html_escape(first)
                           : fmt::format(", {} to {}", html_escape(first), html_escape(last));
  }
  facts += branches_of(s);
  facts += s.changes.empty() ? " \xC2\xB7 no change"
                             : fmt::format(" \xC2\xB7 {} change{}", s.changes.size(),
                                           s.changes.size() == 1 ? "" : "s");
  if (slower_at_tip(s)) {
    facts += " \xC2\xB7 <strong class=\"slower\">slower at the tip</strong>";
  }
  std::string out = fmt::format("<article class=\"trend\" id=\"{}\"><h3 class=\"name\" "
                                "id=\"{}\">{}</h3><p class=\"facts\">{}</p>\n",
                                id, heading_id, html_escape(s.state), facts);
  out += trend_chart(s, heading_id, threshold);
  if (std::any_of(s.changes.begin(), s.changes.end(),
                  [&s](const change_point& c) { return drawable(s, c); })) {
    out += changes_table(s);
  }
  return out + "</article>\n";
}

} // namespace

std::string trends_page(std::span<const trend_series> series, const trends_page_options& options) {
  std::vector<std::size_t> order(series.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&series](std::size_t a, std::size_t b) {
    const auto& l = series[a];
    const auto& r = series[b];
    return std::make_tuple(!slower_at_tip(l), std::string_view(l.state),
                           std::string_view(l.device)) <
           std::make_tuple(!slower_at_tip(r), std::string_view(r.state),
                           std::string_view(r.device));
  });
  std::size_t changes = 0;
  std::size_t slower_now = 0;
  for (const auto& s : series) {
    changes += s.changes.size();
    slower_now += slower_at_tip(s) ? 1 : 0;
  }
  const std::string title = "kerntime trends: " + html_escape(options.store);
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{0}</title>\n<style>{1}</style>\n</head>\n<body>\n"
      "<svg class=\"defs\" aria-hidden=\"true\"><marker id=\"run-dot\" viewBox=\"0 0 6 6\" "
      "refX=\"3\" refY=\"3\" markerWidth=\"6\" markerHeight=\"6\" markerUnits=\"userSpaceOnUse\">"
      "<circle cx=\"3\" cy=\"3\" r=\"2.3\"/></marker></svg>\n<main>\n"
      "<header id=\"summary\">\n<h1>{0}</h1>\n<p class=\"summary\">{2} change{3} in {4} series; "
      "{5} state{6} slower at the tip beyond \xC2\xB1{7:g} %</p>\n",
      title, style_sheet, changes, changes == 1 ? "" : "s", series.size(), slower_now,
      slower_now == 1 ? "" : "s", 100 * options.threshold);
  out += fmt::format(
      "<p class=\"legend\">Per series, one run after another: a dot at each run's median (in "
      "\xC2\xB5s), a thin bar its interval, a thick line the level between change points. A "
      "dashed line marks a change: its size with its 95 % interval, and the commits of the last "
      "run before it and the first run after it (the range to bisect). In red: slower with its "
      "whole interval beyond \xC2\xB1{:g} %. The series slower at the tip (their latest change) "
      "come first.</p>\n</header>\n",
      100 * options.threshold);
  for (std::size_t i = 0; i < order.size(); ++i) {
    out += series_article(series[order[i]], i, options.threshold);
  }
  out += "</main>\n</body>\n</html>\n";
  return out;
}

} // namespace kerntime::detail
