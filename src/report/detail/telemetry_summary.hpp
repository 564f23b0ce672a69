#pragma once
// The one-line view of a state's GPU telemetry shown by markdown, JUnit and CSV: clock range,
// hottest and most power-hungry reading, clock-event reasons seen and throttled trials. The
// JSON keeps every reading instead.

#include <optional>
#include <string>
#include <vector>

#include "kerntime/result.hpp"

namespace kerntime::detail {

struct telemetry_summary {
  bool has_readings = false;      // at least one NVML snapshot or on-GPU clock in some trial
  std::string unavailable_reason; // NVML could not be used (device_telemetry)
  std::optional<unsigned> sm_clock_min_mhz; // NVML, before and after every trial
  std::optional<unsigned> sm_clock_max_mhz;
  std::optional<double> measured_sm_clock_min_mhz; // the on-GPU clock check
  std::optional<double> measured_sm_clock_max_mhz;
  std::optional<unsigned> max_temperature_c;
  std::optional<double> max_power_w;
  std::vector<std::string> clock_events; // every decoded reason seen, in first-seen order
  int throttled_trials = 0;
  int trials = 0;
};

[[nodiscard]] telemetry_summary summarize_telemetry(const measurement_result& result);

// "SM clock 1755–1980 MHz, on-GPU clock 1740–1975 MHz, max 62 °C, max 412.5 W, clock events:
// sw_power_cap, throttled trials: 1 of 5"; "unavailable: reason"; empty when nothing
// was recorded.
[[nodiscard]] std::string describe(const telemetry_summary& summary);

// "sw_power_cap;hw_slowdown": reason names are identifiers, so a semicolon keeps CSV cells and
// JUnit property values unambiguous.
[[nodiscard]] std::string join_clock_events(const telemetry_summary& summary);

} // namespace kerntime::detail
