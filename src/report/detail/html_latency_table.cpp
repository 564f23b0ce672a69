#include "report/detail/html_latency_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "report/detail/html_cells.hpp"
#include "report/detail/html_sections.hpp"
#include "report/detail/html_text.hpp"
#include "report/detail/roofline_text.hpp"
#include "report/detail/text.hpp"
#include "report/detail/units.hpp"

namespace kerntime::detail {
namespace {

// The share of the peak for the bound the roofline names ("73.2 % compute"), with every figure
// behind it as the tooltip.
std::string speed_of_light_cell(const speed_of_light& sol, const std::optional<double>& compute_pct,
                                const std::optional<double>& memory_pct, std::string_view peaks) {
  const auto share = detail::bound_share_text(sol.bound, compute_pct, memory_pct);
  if (share.empty()) {
    return std::string(html_no_value);
  }
  std::string tooltip = fmt::format("{} bound; roofline time {}", to_string(sol.bound),
                                    detail::human_duration(sol.roofline_ns));
  if (compute_pct) {
    tooltip += fmt::format("; compute {:.1f} %", *compute_pct);
  }
  if (memory_pct) {
    tooltip += fmt::format("; DRAM bandwidth {:.1f} %", *memory_pct);
  }
  tooltip += fmt::format(" of the {}", peaks);
  for (const auto& note : sol.notes) {
    tooltip += "; " + note;
  }
  // A share that cannot be a plain fact is marked in the cell, its reason in the tooltip.
  return fmt::format("<td class=\"num\"><span title=\"{}\">{}{}</span></td>", html_escape(tooltip),
                     html_escape(share), sol.notes.empty() ? "" : " *");
}

std::string theoretical_peaks(const speed_of_light& sol) {
  std::string text = "peaks";
  if (sol.precision) {
    text += fmt::format(" ({})", to_string(*sol.precision));
  }
  if (sol.peak_flops_per_s) {
    text += fmt::format(": {:.1f} TFLOP/s", *sol.peak_flops_per_s / 1e12);
  }
  if (sol.peak_bytes_per_s) {
    text += fmt::format(", {:.0f} GB/s", *sol.peak_bytes_per_s / 1e9);
  }
  return text + "; " + sol.peak_source;
}

std::string achievable_peaks(const achievable_speed_of_light& a) {
  std::string text = "achievable peaks (kerntime calibrate)";
  if (a.flops_per_s) {
    text += fmt::format(": {:.1f} TFLOP/s", *a.flops_per_s / 1e12);
  }
  if (a.bytes_per_s) {
    text += fmt::format(", {:.0f} GB/s", *a.bytes_per_s / 1e9);
  }
  return text + "; " + a.source;
}

} // namespace

void print_latency_table(std::ostream& out, const benchmark_group& group,
                         std::span<const benchmark_run> runs, const compared_states& compared,
                         bool summary) {
  const auto& axes = group.axes;
  const detail::optional_columns columns = detail::columns_of(group, runs);
  const bool throughput = columns.flops || columns.bytes;
  out << "<table class=\"latency\">\n<tr><th>state</th>";
  for (const auto& a : axes) {
    out << "<th>" << html_escape(a) << "</th>";
  }
  out << "<th>latency (median)</th><th>stdev</th><th>CV</th><th>p10</th><th>p90</th>"
         "<th>samples</th>";
  if (throughput) {
    out << "<th>TFLOP/s</th><th>GB/s</th>";
  }
  if (columns.sol) {
    out << "<th>SOL</th>";
  }
  if (columns.achievable) {
    out << "<th>of achievable</th>";
  }
  if (columns.energy) {
    out << "<th>energy/iter</th><th>power</th>";
  }
  if (columns.launch) {
    out << "<th>launch</th>";
  }
  out << "<th>backend</th>";
  if (compared.all() != nullptr) {
    out << "<th>new / base</th>";
  }
  out << "</tr>\n";
  for (const auto i : group.runs) {
    const auto& run = runs[i];
    if (summary) { // the state's trials drawn small beside its name: no wider a table
      out << "<tr><td class=\"name\">" << html_escape(run.state_name);
      if (run.result) {
        out << ' ' << trial_glyph(run.state_name, *run.result);
      }
      out << "</td>";
    } else {
      out << fmt::format("<tr><td class=\"name\"><a href=\"#{}\">{}</a></td>", html_id("state", i),
                         html_escape(run.state_name));
    }
    for (const auto& a : axes) {
      const auto it = std::find_if(run.axes.begin(), run.axes.end(),
                                   [&](const auto& axis) { return axis.first == a; });
      out << cell(it == run.axes.end() ? std::string() : it->second);
    }
    if (run.status != run_status::ok || !run.result) {
      const int span = 6 + (throughput ? 2 : 0) + (columns.sol ? 1 : 0) +
                       (columns.achievable ? 1 : 0) + (columns.energy ? 2 : 0) +
                       (columns.launch ? 1 : 0) + 1 + (compared.all() != nullptr ? 1 : 0);
      const bool failed = run.status == run_status::failed;
      out << fmt::format(
          "<td colspan=\"{}\" class=\"{}\">{}</td></tr>\n", span, failed ? "failed" : "skipped",
          html_escape(failed ? "failed (" + detail::error_kind_text(run) + "): " + run.message
                             : "skipped: " + run.message));
      continue;
    }
    const auto& r = *run.result;
    out << cell(detail::human_duration(r.latency_ns), "num")
        << cell(detail::human_duration(r.stats.stdev), "num")
        << cell(detail::percent(r.stats.cv), "num")
        << cell(detail::human_duration(r.stats.p10), "num")
        << cell(detail::human_duration(r.stats.p90), "num")
        << cell(std::to_string(r.stats.count), "num");
    if (throughput) {
      out << number_cell(detail::tflop_per_second(run), "{:.2f}")
          << number_cell(detail::gigabytes_per_second(run), "{:.1f}");
    }
    const std::string none(html_no_value);
    if (columns.sol) {
      out << (run.sol ? speed_of_light_cell(*run.sol, run.sol->compute_pct, run.sol->memory_pct,
                                            theoretical_peaks(*run.sol))
                      : none);
    }
    if (columns.achievable) {
      const auto* a = run.sol && run.sol->achievable ? &*run.sol->achievable : nullptr;
      out << (a ? speed_of_light_cell(*run.sol, a->compute_pct, a->memory_pct, achievable_peaks(*a))
                : none);
    }
    if (columns.energy) {
      if (r.energy.available) {
        out << (r.energy.joules_per_iteration
                    ? cell(detail::energy_text(*r.energy.joules_per_iteration), "num")
                    : none)
            << number_cell(r.energy.average_watts, "{:.1f} W");
      } else {
        out << fmt::format("<td class=\"num\" colspan=\"2\"><span title=\"{}\">"
                           "\xE2\x80\x93</span></td>",
                           html_escape("energy unavailable: " + r.energy.unavailable_reason));
      }
    }
    if (columns.launch) {
      out << cell(to_string(r.protocol_used.launch));
    }
    out << cell(to_string(r.backend));
    if (compared.all() != nullptr) {
      if (const auto* s = compared.find(run.state_name)) {
        out << fmt::format("<td class=\"num {}\"><span title=\"{}\">{}</span></td>",
                           verdict_class(*s), html_escape(ratio_tooltip(*s, compared.confidence())),
                           html_escape(fmt::format("{:.3f} ({})", s->ratio, verdict_word(*s))));
      } else {
        out << cell("not compared");
      }
    }
    out << "</tr>\n";
  }
  out << "</table>\n";
}

} // namespace kerntime::detail
