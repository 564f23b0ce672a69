// A state's counters in the HTML report (html_sections.hpp).

#include <fmt/format.h>

#include "report/detail/counters_text.hpp"
#include "report/detail/html_cells.hpp"
#include "report/detail/html_sections.hpp"
#include "report/detail/html_text.hpp"
#include "report/detail/units.hpp"

namespace kerntime::detail {

// Each kernel's counters (the columns some kernel has; every metric on hover of its name), the
// iteration's line and any mismatch; or why the counters are unavailable. Nothing when they
// were not requested.
void print_counters(std::ostream& out, const counters_summary& c) {
  if (c.status == counters_status::not_requested) {
    return;
  }
  out << "<figure class=\"counters\">\n<h4>Counters</h4>\n";
  if (c.status == counters_status::unavailable) {
    out << "<p>Counters unavailable: " << html_escape(c.reason) << "</p>\n</figure>\n";
    return;
  }
  const detail::kernel_counter_columns columns = detail::kernel_counter_columns_of(c);
  out << "<table class=\"counters\">\n<tr><th>kernel</th><th>launches</th>";
  for (const auto& [shown, name] :
       {std::pair{columns.dram_bytes, "DRAM bytes"}, std::pair{columns.dram_percent, "DRAM %"},
        std::pair{columns.l2_hit_rate, "L2 hit %"}, std::pair{columns.tensor, "tensor %"},
        std::pair{columns.bound, "bound"}}) {
    if (shown) {
      out << "<th>" << name << "</th>";
    }
  }
  out << "</tr>\n";
  for (const auto& k : c.kernels) {
    std::string metrics;
    for (const auto& [metric, value] : k.metrics) {
      metrics += fmt::format("{}{} = {}", metrics.empty() ? "" : "; ", metric, value);
    }
    out << fmt::format("<tr><td class=\"name\" title=\"{}\">{}</td>", html_escape(metrics),
                       html_escape(k.name))
        << cell(std::to_string(k.launches), "num");
    if (columns.dram_bytes) {
      out << (k.derived.dram_bytes ? cell(detail::bytes_text(*k.derived.dram_bytes), "num")
                                   : number_cell(std::nullopt, ""));
    }
    if (columns.dram_percent) {
      out << number_cell(k.derived.dram_percent_of_peak, "{:.1f}");
    }
    // A value outside its range is marked as the artefact it is, with why as its tooltip.
    const auto metric_cell = [&k](std::string_view metric) {
      const auto value = detail::metric_value(k, metric);
      const std::string* why = detail::implausible_reason(k.derived, metric);
      if (!value || why == nullptr) {
        return number_cell(value, "{:.1f}");
      }
      return fmt::format("<td class=\"num\"><span title=\"{}\">{:.1f} (artefact)</span></td>",
                         html_escape(*why), *value);
    };
    if (columns.l2_hit_rate) {
      out << metric_cell(detail::l2_hit_rate_metric);
    }
    if (columns.tensor) {
      out << metric_cell(detail::tensor_pipe_metric);
    }
    if (columns.bound) {
      out << cell(k.derived.bound ? to_string(*k.derived.bound) : "\xE2\x80\x93");
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
  if (!c.mismatches.empty()) {
    out << "<ul class=\"warnings\">\n";
    for (const auto& m : c.mismatches) {
      out << "<li>" << html_escape(m) << "</li>\n";
    }
    out << "</ul>\n";
  }
  out << "<figcaption>" << html_escape(detail::describe_counters(c))
      << "; every metric of a kernel on hover of its name.</figcaption>\n</figure>\n";
}

} // namespace kerntime::detail
