#include "counters/counters_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "counters/range_attribution.hpp"

namespace kerntime::detail {
namespace {

bool is_compute_percent(std::string_view metric) {
  const bool percent = metric.find(".pct_of_peak_sustained") != std::string_view::npos;
  return percent &&
         (metric.starts_with("sm__pipe_tensor") || metric.starts_with("sm__throughput") ||
          metric.starts_with("sm__inst_executed_pipe_tensor"));
}

std::string mismatch_text(const attribution_mismatch& m) {
  switch (m.kind) {
  case attribution_mismatch_kind::range_without_kernel:
    return fmt::format("{} range(s) of \"{}\", a kernel the timed iteration did not launch",
                       m.ranges, m.name);
  case attribution_mismatch_kind::kernel_without_range:
    return fmt::format("\"{}\" launched {} time(s) in the timed iteration but was not profiled",
                       m.name, m.launches);
  case attribution_mismatch_kind::count_differs:
    return fmt::format("\"{}\" launched {} time(s) in the timed iteration, {} in the profiled one",
                       m.name, m.launches, m.ranges);
  case attribution_mismatch_kind::order_differs:
    return fmt::format("the profiled iteration launched its kernels in another order (first "
                       "difference at launch {}, \"{}\")",
                       m.position + 1, m.name);
  }
  return "unknown mismatch";
}

// A metric in per cent (".pct", ".pct_of_peak_sustained_elapsed", "hit_rate.pct", ...).
bool is_percent(std::string_view metric) {
  return metric.ends_with(".pct") || metric.find(".pct_of_peak") != std::string_view::npos ||
         metric.ends_with("_pct");
}

// A percentage this far past its range is not rounding.
constexpr double percent_tolerance = 0.5;

} // namespace

std::vector<std::string> implausible_counters(const std::map<std::string, double>& metrics) {
  std::vector<std::string> found;
  for (const auto& [name, value] : metrics) {
    if (!std::isfinite(value)) {
      continue; // not evaluated: shown as missing, not as a value
    }
    if (is_percent(name) && (value > 100 + percent_tolerance || value < -percent_tolerance)) {
      found.push_back(fmt::format(
          "{} = {:.1f} % is outside 0-100 %: a counter artefact (a ratio whose parts come from "
          "separate replay passes can exceed its range), not a measurement",
          name, value));
    } else if (!is_percent(name) && value < 0) {
      found.push_back(
          fmt::format("{} = {:g} is negative: a counter artefact, not a measurement", name, value));
    }
  }
  return found;
}

counters_derived derive_counters(const std::map<std::string, double>& metrics, double duration_ns) {
  counters_derived d;
  const auto read = metrics.find(counter_metrics::dram_read);
  const auto write = metrics.find(counter_metrics::dram_write);
  if (read != metrics.end() && write != metrics.end()) {
    d.dram_bytes = read->second + write->second;
    if (duration_ns > 0) {
      d.dram_bytes_per_second = *d.dram_bytes / (duration_ns * 1e-9);
    }
  }
  if (const auto dram = metrics.find(counter_metrics::dram_percent); dram != metrics.end()) {
    d.dram_percent_of_peak = dram->second;
  }
  for (const auto& [name, value] : metrics) {
    if (is_compute_percent(name)) {
      d.compute_percent_of_peak = std::max(d.compute_percent_of_peak.value_or(value), value);
    }
  }
  if (d.dram_percent_of_peak && d.compute_percent_of_peak &&
      std::max(*d.dram_percent_of_peak, *d.compute_percent_of_peak) >= bound_floor_percent) {
    d.bound = *d.dram_percent_of_peak >= *d.compute_percent_of_peak ? roofline_bound::memory
                                                                    : roofline_bound::compute;
  }
  d.implausible = implausible_counters(metrics);
  return d;
}

void rederive_counters(counters_summary& counters, const std::vector<kernel_summary>& breakdown,
                       double latency_ns) {
  if (counters.status != counters_status::measured) {
    return;
  }
  for (kernel_counters_result& k : counters.kernels) {
    const auto timed = std::find_if(breakdown.begin(), breakdown.end(), [&](const auto& row) {
      return row.kind == activity_kind::kernel && row.name == k.name;
    });
    k.derived = derive_counters(k.metrics, timed != breakdown.end() ? timed->median_ns : 0.0);
  }
  counters.derived = derive_counters(counters.metrics_total, latency_ns);
}

counters_summary counters_unavailable_because(std::string reason) {
  counters_summary s;
  s.status = counters_status::unavailable;
  s.reason = std::move(reason);
  return s;
}

counters_summary summarise_counters(const counter_pass_outcome& pass,
                                    const std::vector<trace_record>& iteration,
                                    const std::vector<kernel_summary>& breakdown,
                                    double latency_ns) {
  counters_summary s;
  s.chip = pass.chip;
  s.metrics = pass.metrics;
  s.passes = static_cast<int>(pass.passes);
  s.seconds = pass.seconds;
  if (pass.unavailable) {
    s.status = counters_status::unavailable;
    s.reason = *pass.unavailable;
    return s;
  }
  if (pass.ranges.empty()) {
    const auto kernels = std::count_if(iteration.begin(), iteration.end(), [](const auto& r) {
      return r.kind == activity_kind::kernel;
    });
    s.status = counters_status::unavailable;
    s.reason =
        kernels == 0
            ? "the range profiler returned no range: the iteration launches no kernel, "
              "only copies or memsets, which have no counters"
            : fmt::format("the range profiler returned no range for the {} kernel launch(es) "
                          "of the iteration: auto range with kernel replay did not profile "
                          "them (kernels launched from a CUDA graph of several kernels are "
                          "not profiled)",
                          kernels);
    return s;
  }
  s.status = counters_status::measured;
  const range_attribution attributed = attribute_ranges(pass.ranges, iteration);
  for (const kernel_counters& kernel : attributed.kernels) {
    kernel_counters_result k;
    k.name = kernel.name;
    k.launches = static_cast<int>(kernel.launches);
    k.metrics = kernel.metrics;
    if (!kernel.ranges.empty()) {
      s.kernels.push_back(std::move(k));
    }
  }
  // The breakdown's order (largest time first), as the tables show kernels.
  std::stable_sort(s.kernels.begin(), s.kernels.end(), [&](const auto& a, const auto& b) {
    const auto rank = [&](const std::string& name) {
      return std::find_if(breakdown.begin(), breakdown.end(),
                          [&](const auto& row) { return row.name == name; }) -
             breakdown.begin();
    };
    return rank(a.name) < rank(b.name);
  });
  std::vector<const profiled_range*> all;
  for (const profiled_range& range : pass.ranges) {
    all.push_back(&range);
  }
  for (const std::string& metric : pass.metrics) {
    s.metrics_total[metric] = reduce_metric(metric, all);
  }
  rederive_counters(s, breakdown, latency_ns);
  for (const attribution_mismatch& m : attributed.mismatches) {
    s.mismatches.push_back(mismatch_text(m));
  }
  if (pass.dropped_ranges > 0) {
    s.mismatches.push_back(
        fmt::format("CUPTI dropped {} range(s) of the profiled iteration", pass.dropped_ranges));
  }
  return s;
}

} // namespace kerntime::detail
