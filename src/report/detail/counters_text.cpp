#include "report/detail/counters_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace kerntime::detail {

kernel_counter_columns kernel_counter_columns_of(const counters_summary& c) {
  kernel_counter_columns columns;
  if (c.status != counters_status::measured) {
    return columns;
  }
  for (const auto& k : c.kernels) {
    columns.dram_bytes = columns.dram_bytes || k.derived.dram_bytes.has_value();
    columns.dram_percent = columns.dram_percent || k.derived.dram_percent_of_peak.has_value();
    columns.l2_hit_rate = columns.l2_hit_rate || metric_value(k, l2_hit_rate_metric).has_value();
    columns.tensor = columns.tensor || metric_value(k, tensor_pipe_metric).has_value();
    columns.bound = columns.bound || k.derived.bound.has_value();
  }
  return columns;
}

const std::string* implausible_reason(const counters_derived& d, std::string_view metric) {
  const auto it = std::find_if(d.implausible.begin(), d.implausible.end(), [&](const auto& why) {
    return why.starts_with(metric) && why.size() > metric.size() && why[metric.size()] == ' ';
  });
  return it == d.implausible.end() ? nullptr : &*it;
}

std::optional<double> metric_value(const kernel_counters_result& k, std::string_view metric) {
  const auto it = k.metrics.find(std::string(metric));
  return it == k.metrics.end() ? std::nullopt : std::optional<double>(it->second);
}

const kernel_counters_result* kernel_counters_of(const counters_summary& c, std::string_view name) {
  if (c.status != counters_status::measured) {
    return nullptr;
  }
  const auto it = std::find_if(c.kernels.begin(), c.kernels.end(),
                               [&](const kernel_counters_result& k) { return k.name == name; });
  return it == c.kernels.end() ? nullptr : &*it;
}

std::string bytes_text(double bytes) {
  constexpr std::array<const char*, 5> units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) {
    return fmt::format("{:.0f} B", bytes);
  }
  std::size_t unit = 0;
  double value = bytes / 1024;
  for (; value >= 1024 && unit + 1 < units.size(); ++unit) {
    value /= 1024;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

std::string describe_counters(const counters_summary& c) {
  std::string text = fmt::format("{}, {} replay pass{} in {:.3f} s", c.chip, c.passes,
                                 c.passes == 1 ? "" : "es", c.seconds);
  const auto& d = c.derived;
  std::string iteration;
  const auto add = [&iteration](const std::string& part) {
    iteration += (iteration.empty() ? "" : ", ") + part;
  };
  if (d.dram_bytes) {
    std::string dram = "DRAM " + bytes_text(*d.dram_bytes);
    if (d.dram_bytes_per_second) {
      dram += fmt::format(", {:.1f} GB/s", *d.dram_bytes_per_second / 1e9);
      if (d.dram_fraction_of_peak) {
        dram += fmt::format(" ({:.1f}% of peak)", *d.dram_fraction_of_peak * 100);
      }
    }
    add(dram);
  }
  // One DRAM figure a line: the measured bytes over kerntime's time against the peak when there
  // is one, else the counter's own throughput %.
  if (d.dram_percent_of_peak && !d.dram_fraction_of_peak) {
    add(fmt::format("DRAM {:.1f}%", *d.dram_percent_of_peak));
  }
  if (d.compute_percent_of_peak) {
    add(fmt::format("compute {:.1f}%", *d.compute_percent_of_peak));
  }
  if (d.bound) {
    add(fmt::format("{}-bound", to_string(*d.bound)));
  }
  return iteration.empty() ? text : text + "; the iteration: " + iteration;
}

} // namespace kerntime::detail
