#include "report/runs_speed_of_light.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "roofline/peak_table.hpp"
#include "roofline/peaks_file.hpp"

namespace kerntime::detail {

std::vector<std::string> add_speed_of_light(std::span<benchmark_run> runs,
                                            const roofline_settings& settings) {
  std::vector<std::string> without_peaks;
  for (auto& run : runs) {
    if (run.status != run_status::ok || !run.result) {
      continue;
    }
    const peak_inputs gpu = peak_inputs_of(*run.result);
    std::optional<device_peaks> peaks = table_peaks(gpu);
    if (settings.overrides) {
      peaks = apply_overrides(std::move(peaks), *settings.overrides);
    }
    if (!peaks) {
      const std::string line = fmt::format("no speed of light on {}: {}", run.result->device.name,
                                           no_table_peaks_reason(gpu));
      if ((run.flops || run.bytes) &&
          std::find(without_peaks.begin(), without_peaks.end(), line) == without_peaks.end()) {
        without_peaks.push_back(line);
      }
      continue;
    }
    add_counter_fractions(run.result->counters, *peaks);
    const declared_work work{run.flops, run.flops_precision, run.bytes, run.result->latency_ns,
                             run.result->device.l2_bytes};
    const calibration* achievable = settings.achievable ? &*settings.achievable : nullptr;
    run.sol = compute_speed_of_light(work, *peaks, achievable, settings.achievable_source);
    // With counters, what DRAM really moved says what the memory share is.
    const counters_derived& measured = run.result->counters.derived;
    if (run.sol && run.sol->memory_pct && *run.sol->memory_pct > 100 && measured.dram_bytes &&
        peaks->bytes_per_s) {
      run.sol->notes.push_back(fmt::format(
          "the counters measured {:.3g} MB of DRAM traffic: {:.1f}% of the DRAM peak",
          *measured.dram_bytes / 1e6,
          100 * *measured.dram_bytes / (run.result->latency_ns * 1e-9) / *peaks->bytes_per_s));
    }
  }
  return without_peaks;
}

} // namespace kerntime::detail
