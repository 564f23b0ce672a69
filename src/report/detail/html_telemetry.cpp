// A state's telemetry in the HTML report: the SM clock per trial, throttled trials marked, the
// energy, the clock events (html_sections.hpp).

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "report/detail/html_sections.hpp"
#include "report/detail/html_text.hpp"
#include "report/detail/roofline_text.hpp"
#include "report/detail/svg_chart.hpp"
#include "report/detail/telemetry_summary.hpp"
#include "report/detail/units.hpp"

namespace kerntime::detail {

void print_telemetry(std::ostream& out, std::string_view state, const measurement_result& r) {
  const auto summary = detail::summarise_telemetry(r);
  out << "<figure class=\"telemetry\">\n<h4>Telemetry</h4>\n";
  if (summary.has_readings) {
    std::vector<detail::trial_series> series(3);
    series[0].name = "SM clock before (NVML)";
    series[1].name = "SM clock after (NVML)";
    series[2].name = "measured on the GPU";
    std::vector<detail::trial_mark> marks;
    for (std::size_t t = 0; t < r.trials.size(); ++t) {
      const auto& tel = r.trials[t].telemetry;
      const auto sm = [](const std::optional<gpu_snapshot>& s) -> std::optional<double> {
        if (s && s->sm_clock_mhz) {
          return static_cast<double>(*s->sm_clock_mhz);
        }
        return std::nullopt;
      };
      series[0].values.push_back(sm(tel.before));
      series[1].values.push_back(sm(tel.after));
      series[2].values.push_back(tel.measured_sm_clock_mhz);
      if (tel.throttled) {
        marks.push_back({t, fmt::format("trial {} throttled: {}", t + 1, tel.throttle_reason)});
      }
    }
    std::erase_if(series, [](const detail::trial_series& s) {
      return std::none_of(s.values.begin(), s.values.end(),
                          [](const auto& v) { return v.has_value(); });
    });
    if (!series.empty()) {
      out << detail::trial_chart(series, r.trials.size(), marks, "MHz",
                                 fmt::format("{}: SM clock per trial", state));
      out << "<figcaption>SM clock per trial; shaded: a throttled trial.</figcaption>\n";
    }
  }
  if (r.energy.available && r.energy.joules_per_iteration) {
    out << "<p>Energy: " << html_escape(detail::energy_text(*r.energy.joules_per_iteration))
        << " per iteration"
        << (r.energy.average_watts
                ? html_escape(fmt::format(", {:.1f} W on average", *r.energy.average_watts))
                : std::string())
        << html_escape(detail::energy_window_text(r.energy)) << ".</p>\n";
  }
  const std::string line = detail::describe(summary);
  if (!line.empty()) {
    out << "<p" << (summary.throttling.throttled_trials > 0 ? " class=\"throttled\"" : "") << ">"
        << html_escape(line) << "</p>\n";
  }
  if (const auto events = detail::describe_clock_events(summary.throttling); !events.empty()) {
    out << "<p>Clock events: " << html_escape(events) << "</p>\n";
  }
  out << "</figure>\n";
}
} // namespace kerntime::detail
