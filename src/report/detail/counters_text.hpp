#pragma once
// Hardware counters as every report shows them (docs/counters.md): which per-kernel columns a
// breakdown gains, DRAM bytes in binary units, the line for counters that were not collected.
// The reports only read what the counter pass filled in; the one thing they look up in the raw
// metrics is the two values shown as measured (L2 hit rate, tensor-pipe utilisation).

#include <optional>
#include <string>
#include <string_view>

#include "kerntime/counters.hpp"

namespace kerntime::detail {

// The CUPTI names of the default set's metrics that a breakdown shows as measured.
inline constexpr std::string_view l2_hit_rate_metric = counter_metrics::l2_hit_rate;
inline constexpr std::string_view tensor_pipe_metric = counter_metrics::tensor_pipe;

// The per-kernel counter columns a breakdown shows: each only when some kernel has a value.
struct kernel_counter_columns {
  bool dram_bytes = false;   // derived.dram_bytes
  bool dram_percent = false; // derived.dram_percent_of_peak, the counter's own DRAM %
  bool l2_hit_rate = false;  // l2_hit_rate_metric
  bool tensor = false;       // tensor_pipe_metric
  bool bound = false;        // derived.bound
  [[nodiscard]] bool any() const {
    return dram_bytes || dram_percent || l2_hit_rate || tensor || bound;
  }
};

// None unless the counters were measured.
[[nodiscard]] kernel_counter_columns kernel_counter_columns_of(const counters_summary& c);

// Why `metric`'s value is one of the derived block's implausible values (a counter artefact:
// shown marked, never as a fact); nullptr when it is not.
[[nodiscard]] const std::string* implausible_reason(const counters_derived& d,
                                                    std::string_view metric);

[[nodiscard]] std::optional<double> metric_value(const kernel_counters_result& k,
                                                 std::string_view metric);

// The counters of the breakdown's kernel of that name; null for memsets and copies (the range
// profiler sees kernels only) and for a kernel the pass did not match.
[[nodiscard]] const kernel_counters_result* kernel_counters_of(const counters_summary& c,
                                                               std::string_view name);

// "512.0 MiB": binary units with one decimal, "812 B" below one KiB.
[[nodiscard]] std::string bytes_text(double bytes);

// "GH100, 2 replay passes in 0.412 s; the iteration: DRAM 512.0 MiB, 3151.2 GB/s (65.5% of
// peak), DRAM 89.0%, compute 12.0%, memory-bound": a measured summary in one line.
[[nodiscard]] std::string describe_counters(const counters_summary& c);

} // namespace kerntime::detail
