// The distribution and the per-kernel breakdown of a state (html_sections.hpp).

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "report/detail/html_cells.hpp"
#include "report/detail/html_sections.hpp"
#include "report/detail/html_text.hpp"
#include "report/detail/svg_chart.hpp"
#include "report/detail/text.hpp"
#include "report/detail/units.hpp"
#include "result/message_words.hpp"

namespace kerntime::detail {
namespace {

// Visible kernel labels are folded like markdown's (the full name is the tooltip).
constexpr std::size_t kernel_label_width = 48;

// A row per trial: its samples of the headline metric, its median, whether it was throttled.
std::vector<detail::strip_row> trial_rows(const measurement_result& r) {
  const bool busy = r.protocol_used.metric == headline_metric::busy;
  std::vector<detail::strip_row> rows;
  for (std::size_t t = 0; t < r.trials.size(); ++t) {
    const auto& trial = r.trials[t];
    detail::strip_row row;
    row.label = fmt::format("trial {}", t + 1);
    for (const auto& s : trial.iterations) {
      row.values_ns.push_back(busy ? s.busy_ns : s.span_ns);
    }
    const bool has_summary = t < r.trials_summary.medians.size();
    row.median_ns = has_summary ? r.trials_summary.medians[t] : r.latency_ns;
    row.flagged = trial.telemetry.throttled;
    row.tooltip =
        fmt::format("trial {}: {}, median {}", t + 1, counted(row.values_ns.size(), "iteration"),
                    detail::human_duration(row.median_ns));
    if (t < r.trials_summary.means.size()) {
      row.tooltip += ", mean " + detail::human_duration(r.trials_summary.means[t]);
    }
    if (trial.telemetry.throttled) {
      row.tooltip += "; throttled: " + trial.telemetry.throttle_reason;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace

std::string trial_glyph(std::string_view state, const measurement_result& r) {
  const auto rows = trial_rows(r);
  if (rows.empty()) {
    return {};
  }
  const auto [fastest, slowest] =
      std::minmax_element(rows.begin(), rows.end(),
                          [](const auto& a, const auto& b) { return a.median_ns < b.median_ns; });
  return detail::trial_glyph(rows, fmt::format("{}: {}, medians {} to {}", state,
                                               counted(rows.size(), "trial"),
                                               detail::human_duration(fastest->median_ns),
                                               detail::human_duration(slowest->median_ns)));
}

void print_distribution(std::ostream& out, std::string_view state, const measurement_result& r,
                        bool dots) {
  const auto rows = trial_rows(r);
  std::size_t iterations = 0;
  for (const auto& row : rows) {
    iterations += row.values_ns.size();
  }
  out << "<figure class=\"distribution\">\n<h4>Distribution</h4>\n"
      << detail::strip_plot(
             rows, r.latency_ns,
             fmt::format("{}: {} per iteration", state, to_string(r.protocol_used.metric)), dots)
      << fmt::format("<figcaption>{} in {} ({} per iteration); {}; tick: the "
                     "trial's median; dashed: the median of every iteration, {}.</figcaption>"
                     "\n</figure>\n",
                     counted(iterations, "iteration"), counted(r.trials.size(), "trial"),
                     to_string(r.protocol_used.metric),
                     dots ? "a dot per iteration, coloured by trial"
                          : "per trial a line from p10 to p90 and a box from p25 to p75 (the "
                            "report holds too many samples to draw each)",
                     html_escape(detail::human_duration(r.latency_ns)));
}

void print_kernels(std::ostream& out, std::string_view state, const measurement_result& r) {
  out << "<figure class=\"kernels\">\n<h4>Kernels</h4>\n";
  if (r.kernels.empty()) {
    out << "<p>No per-kernel breakdown: timed with " << html_escape(to_string(r.backend))
        << (r.backend_reason.empty() ? "" : " (" + html_escape(r.backend_reason) + ")")
        << ".</p>\n</figure>\n";
    return;
  }
  std::vector<detail::bar> bars;
  for (const auto& k : r.kernels) {
    bars.push_back(
        {detail::shorten_kernel_name(k.name, kernel_label_width),
         fmt::format("{} ({}), {:g} calls per iteration: mean {}, median {}, {} of "
                     "the busy time",
                     detail::valid_utf8(k.name), to_string(k.kind), k.calls_per_iteration,
                     detail::human_duration(k.mean_ns), detail::human_duration(k.median_ns),
                     detail::percent(k.share)),
         k.mean_ns,
         fmt::format("{} · {}", detail::human_duration(k.mean_ns), detail::percent(k.share))});
  }
  out << detail::bar_chart(bars, fmt::format("{}: mean GPU time per iteration by kernel", state))
      << "<figcaption>Mean time per iteration (all calls summed) and share of the busy "
         "time.</figcaption>\n";
  out << "<table class=\"kernels\">\n<tr><th>kernel</th><th>kind</th><th>calls/iter</th>"
         "<th>mean</th><th>median</th><th>share</th></tr>\n";
  for (const auto& k : r.kernels) {
    out << "<tr>" << cell(k.name, "name") << cell(to_string(k.kind))
        << cell(fmt::format("{:g}", k.calls_per_iteration), "num")
        << cell(detail::human_duration(k.mean_ns), "num")
        << cell(detail::human_duration(k.median_ns), "num") << cell(detail::percent(k.share), "num")
        << "</tr>\n";
  }
  out << "</table>\n</figure>\n";
}

} // namespace kerntime::detail
