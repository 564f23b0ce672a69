#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kerntime/report.hpp"
#include "report/detail/stopping_text.hpp"
#include "report/detail/telemetry_summary.hpp"
#include "report/detail/text.hpp"
#include "report/detail/units.hpp"

namespace kerntime {
namespace {

// The columns after the axis columns, documented in docs/report-formats.md.
constexpr const char* result_columns[] = {"status",
                                          "error_kind",
                                          "message",
                                          "latency_ms",
                                          "mean_ms",
                                          "stdev_ms",
                                          "cv",
                                          "min_ms",
                                          "max_ms",
                                          "p10_ms",
                                          "p90_ms",
                                          "samples",
                                          "trials",
                                          "stopping_rule",
                                          "stopped_because",
                                          "median_ci_low_ms",
                                          "median_ci_high_ms",
                                          "median_ci_half_width",
                                          "warmup_iterations",
                                          "timing_backend",
                                          "backend_reason",
                                          "launch",
                                          "tflop_per_s",
                                          "gb_per_s",
                                          "sol_bound",
                                          "sol_compute_pct",
                                          "sol_memory_pct",
                                          "roofline_ms",
                                          "achievable_compute_pct",
                                          "achievable_memory_pct",
                                          "energy_j_per_iteration",
                                          "average_power_w",
                                          "dram_bytes",
                                          "dram_percent_of_peak",
                                          "compute_percent_of_peak",
                                          "counters_bound",
                                          "counters_status",
                                          "sm_clock_min_mhz",
                                          "sm_clock_max_mhz",
                                          "measured_sm_clock_min_mhz",
                                          "measured_sm_clock_max_mhz",
                                          "max_temperature_c",
                                          "max_power_w",
                                          "clock_events",
                                          "throttled_trials",
                                          "warnings"};

template <typename T> std::string optional_cell(const std::optional<T>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : std::string();
}

// The bound, both shares of the theoretical peaks, the roofline time and both shares of the
// calibrated ones; blank where the benchmark declared no work or the GPU has no peak.
void add_speed_of_light(std::vector<std::string>& cells, const std::optional<speed_of_light>& sol) {
  if (!sol) {
    cells.resize(cells.size() + 6);
    return;
  }
  cells.emplace_back(to_string(sol->bound));
  cells.push_back(optional_cell(sol->compute_pct, "{:.3f}"));
  cells.push_back(optional_cell(sol->memory_pct, "{:.3f}"));
  cells.push_back(detail::fixed_ms(sol->roofline_ns));
  const auto* a = sol->achievable ? &*sol->achievable : nullptr;
  cells.push_back(a ? optional_cell(a->compute_pct, "{:.3f}") : std::string());
  cells.push_back(a ? optional_cell(a->memory_pct, "{:.3f}") : std::string());
}

// The counter pass's values for the whole iteration (blank where not derived) and its status.
void add_counters(std::vector<std::string>& cells, const counters_summary& c) {
  const auto& d = c.derived;
  cells.push_back(optional_cell(d.dram_bytes, "{:.0f}"));
  cells.push_back(optional_cell(d.dram_percent_of_peak, "{:.3f}"));
  cells.push_back(optional_cell(d.compute_percent_of_peak, "{:.3f}"));
  cells.push_back(d.bound ? std::string(to_string(*d.bound)) : std::string());
  cells.emplace_back(to_string(c.status));
}

std::vector<std::string> result_cells(const benchmark_run& run) {
  std::vector<std::string> cells = {std::string(to_string(run.status)),
                                    detail::error_kind_text(run), run.message};
  if (run.status != run_status::ok || !run.result) {
    cells.resize(std::size(result_columns));
    return cells;
  }
  const auto& r = *run.result;
  const auto& s = r.stats;
  const auto t = detail::summarise_telemetry(r);
  for (double ns : {r.latency_ns, s.mean, s.stdev}) {
    cells.push_back(detail::fixed_ms(ns));
  }
  cells.push_back(fmt::format("{:.6f}", s.cv));
  for (double ns : {s.min, s.max, s.p10, s.p90}) {
    cells.push_back(detail::fixed_ms(ns));
  }
  cells.push_back(std::to_string(s.count));
  cells.push_back(std::to_string(r.trials.size()));
  const auto& stop = r.stopping;
  cells.emplace_back(detail::stopping_rule_name(r.protocol_used));
  cells.emplace_back(to_string(stop.reason));
  cells.push_back(stop.median_interval ? detail::fixed_ms(stop.median_interval->low) : "");
  cells.push_back(stop.median_interval ? detail::fixed_ms(stop.median_interval->high) : "");
  cells.push_back(optional_cell(stop.half_width, "{:.6f}"));
  cells.push_back(std::to_string(stop.warmup_iterations));
  cells.emplace_back(to_string(r.backend));
  cells.push_back(r.backend_reason);
  cells.emplace_back(to_string(r.protocol_used.launch));
  cells.push_back(optional_cell(detail::tflop_per_second(run), "{:.3f}"));
  cells.push_back(optional_cell(detail::gigabytes_per_second(run), "{:.3f}"));
  add_speed_of_light(cells, run.sol);
  cells.push_back(optional_cell(r.energy.joules_per_iteration, "{:.6g}"));
  cells.push_back(optional_cell(r.energy.average_watts, "{:.1f}"));
  add_counters(cells, r.counters);
  cells.push_back(optional_cell(t.sm_clock_min_mhz, "{}"));
  cells.push_back(optional_cell(t.sm_clock_max_mhz, "{}"));
  cells.push_back(optional_cell(t.measured_sm_clock_min_mhz, "{:.0f}"));
  cells.push_back(optional_cell(t.measured_sm_clock_max_mhz, "{:.0f}"));
  cells.push_back(optional_cell(t.max_temperature_c, "{}"));
  cells.push_back(optional_cell(t.max_power_w, "{:.1f}"));
  cells.push_back(detail::join_clock_events(t));
  cells.push_back(t.has_readings ? std::to_string(t.throttling.throttled_trials) : std::string());
  cells.push_back(std::to_string(r.warnings.size()));
  return cells;
}

void print_record(std::ostream& out, const std::vector<std::string>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out << (i == 0 ? "" : ",") << detail::csv_field(cells[i]);
  }
  out << "\r\n"; // RFC 4180 line ending
}

// One row per state. Axis columns are the union of every run's axes, blank where a state has
// no such axis, so one file holds several benchmarks.
class csv_writer final : public report_writer {
  void do_print(std::ostream& out, const run_context&,
                std::span<const benchmark_run> runs) override {
    std::vector<std::string> axes;
    for (const auto& run : runs) {
      for (const auto& axis : run.axes) {
        if (std::find(axes.begin(), axes.end(), axis.first) == axes.end()) {
          axes.push_back(axis.first);
        }
      }
    }
    std::vector<std::string> header = {"benchmark", "state"};
    header.insert(header.end(), axes.begin(), axes.end());
    header.insert(header.end(), std::begin(result_columns), std::end(result_columns));
    print_record(out, header);
    for (const auto& run : runs) {
      std::vector<std::string> cells = {run.benchmark, run.state_name};
      for (const auto& axis : axes) {
        auto it = std::find_if(run.axes.begin(), run.axes.end(),
                               [&](const auto& a) { return a.first == axis; });
        cells.push_back(it == run.axes.end() ? std::string() : it->second);
      }
      auto results = result_cells(run);
      cells.insert(cells.end(), results.begin(), results.end());
      print_record(out, cells);
    }
  }
};

} // namespace

std::unique_ptr<report_writer> make_csv_writer() {
  return std::make_unique<csv_writer>();
}

} // namespace kerntime
